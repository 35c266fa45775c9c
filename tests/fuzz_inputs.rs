//! The fuzz harness (fuzz/src, included here by path) replayed without
//! the fuzzer over the committed inputs: every file under
//! `fuzz/regressions/<target>/` (inputs that once crashed or broke an
//! invariant) and `fuzz/seeds/<target>/` (the seed corpora). A failure
//! names the input file; `fuzz/README.md` tells how to debug it.

#[path = "../fuzz/src/lib.rs"]
mod harness;

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files = Vec::new();
    for dir in ["regressions", "seeds"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else { continue };
        files.extend(entries.map(|e| e.expect("directory entry").path()));
    }
    files.sort();
    files
}

fn replay(target: &str) {
    let (_, run) = harness::TARGETS.iter().find(|(name, _)| *name == target).expect("a target");
    let files = inputs(target);
    assert!(!files.is_empty(), "no seeds for {target}");
    let failed: Vec<String> = files
        .iter()
        .filter(|path| {
            let data = std::fs::read(path).expect("readable input");
            std::panic::catch_unwind(|| run(&data)).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(failed.is_empty(), "{target}: {} of {} inputs fail: {failed:#?}", failed.len(), files.len());
}

macro_rules! replay_tests {
    ($($name:ident),*) => {
        $(#[test] fn $name() { replay(stringify!($name)); })*
        #[test]
        fn every_target_is_replayed() {
            let listed: Vec<&str> = vec![$(stringify!($name)),*];
            let targets: Vec<&str> = harness::TARGETS.iter().map(|(n, _)| *n).collect();
            assert_eq!(listed, targets);
        }
    };
}

replay_tests!(
    url, ncuri, cdtime, filterspec, attrs, codec, vlen, metadata, store, rewrite, zip, merge, pieces, references,
    parquet
);
