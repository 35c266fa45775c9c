//! The zip target: the fuzzer's bytes are a zip archive, opened with the
//! zip driver from a scratch file (the one target that touches a file:
//! the driver reads with `pread` from a real one).
//!
//! Invariants, for any input: opening and reading give a netCDF error or
//! data, never a panic; a byte range of an object equals that range of
//! the whole object; and a commit (a put, then the whole archive
//! rewritten, unchanged entries copied raw) keeps every other object as
//! it was, readable or not alike.

use std::collections::BTreeMap;
use std::path::PathBuf;

use netcdf::error::NcResult;
use netcdf::zmap::{ZipMap, Zmap};

/// A scratch file of this process's own.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nczarr-fuzz-zip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir.join("input.zip")
}

/// Every object of the view, as read (or the error reading it gave).
fn contents(map: &ZipMap) -> BTreeMap<String, NcResult<Option<Vec<u8>>>> {
    let keys = map.list_recursive("").unwrap_or_default();
    keys.into_iter().map(|k| (k.clone(), map.get(&k))).collect()
}

pub fn zip(data: &[u8]) {
    let path = scratch();
    std::fs::write(&path, data).expect("scratch file");
    let Ok(map) = ZipMap::open(&path) else { return };
    let before = contents(&map);
    for (key, value) in &before {
        let Ok(Some(whole)) = value else { continue };
        let (offset, len) = (whole.len() / 3, whole.len() / 2);
        let part = map.get_range(key, offset as u64, len).expect("a range of a readable object");
        assert_eq!(part.as_deref(), Some(&whole[offset..offset + len]), "{key}: range");
    }
    if map.put("nczarr-fuzz-new", b"new").is_err() || map.commit().is_err() {
        return;
    }
    let reopened = ZipMap::open(&path).expect("a committed archive opens");
    let mut after = contents(&reopened);
    assert_eq!(after.remove("nczarr-fuzz-new").map(|r| r.ok().flatten()), Some(Some(b"new".to_vec())));
    // The same keys; what read before reads the same after (a raw copy
    // may repair a local header, so not the other way round).
    assert!(before.keys().eq(after.keys()), "a commit changed the keys");
    for (key, value) in &before {
        if let Ok(Some(v)) = value {
            assert_eq!(after[key].as_ref().ok().and_then(Option::as_ref), Some(v), "{key}: changed by a commit");
        }
    }
}
