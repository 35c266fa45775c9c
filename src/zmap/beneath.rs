//! Keeping a directory store's keys inside its root when the tree holds
//! symbolic links.
//!
//! Key syntax (`key.rs`) already refuses `..`, absolute keys and the like;
//! what remains is a link inside the store that leads out of it (`v/0 ->
//! /etc/passwd`, `g -> /`). A store from elsewhere (an unpacked archive, a
//! shared directory) must not make a reader read, write or delete outside
//! it, so a key whose path leads outside the root is refused with
//! NC_EACCESS. Links that stay inside the store (and a root that is itself
//! a link) are followed as usual.
//!
//! The check looks at the tree as it is: a directory found real is not
//! looked at again while the store is open, and nothing here guards
//! against another process swapping a directory for a link meanwhile.

use std::collections::HashSet;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{NcError, NcResult};

/// Directories (as key prefixes) of one store already found to be real
/// directories, so deep trees are not checked again segment by segment
/// at every access (a tree as deep as the system allows would otherwise
/// cost time cubic in its depth).
#[derive(Default)]
pub struct Checked(Mutex<HashSet<String>>);

/// Most prefixes remembered; past this the set starts over.
const MAX_CHECKED: usize = 1 << 16;

/// The set is only ever tried, never waited for: busy (another thread,
/// or a lock held across a `fork`), it is simply not used this time.
impl Checked {
    fn contains(&self, prefix: &str) -> bool {
        self.0.try_lock().is_ok_and(|set| set.contains(prefix))
    }

    fn insert(&self, prefix: &str) {
        if let Ok(mut set) = self.0.try_lock() {
            if set.len() >= MAX_CHECKED {
                set.clear();
            }
            set.insert(prefix.to_string());
        }
    }
}

/// Check the path of `key` below `root`. With `last` false only the
/// directories leading to the key's object are checked: deleting or
/// replacing a link never touches what it points to. Costs one `lstat`
/// per key segment not yet known to be a directory; a `realpath` only
/// when a link is met.
pub fn check(root: &Path, checked: &Checked, key: &str, last: bool) -> NcResult<()> {
    let segments: Vec<&str> = if key.is_empty() { Vec::new() } else { key.split('/').collect() };
    let n = if last { segments.len() } else { segments.len().saturating_sub(1) };
    // Where each prefix ends in `key`.
    let ends: Vec<usize> = segments
        .iter()
        .scan(0, |end, seg| {
            *end += seg.len() + usize::from(*end > 0);
            Some(*end)
        })
        .collect();
    // Prefixes are remembered only once every shorter one was checked:
    // start after the longest one remembered.
    let start = (0..n).rev().find(|&i| checked.contains(&key[..ends[i]])).map_or(0, |i| i + 1);
    let mut path = root.join(if start == 0 { "" } else { &key[..ends[start - 1]] });
    for i in start..n {
        path.push(segments[i]);
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                // (Joining an empty rest would add a trailing slash.)
                let rest = &segments[i + 1..n];
                return inside(root, &if rest.is_empty() { path } else { path.join(rest.iter().collect::<PathBuf>()) });
            }
            Ok(meta) if meta.is_dir() => checked.insert(&key[..ends[i]]),
            Ok(_) => {}
            // Nothing there (yet): no link further on either.
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => return Ok(()),
            Err(e) => return Err(NcError::from_io(&e)),
        }
    }
    Ok(())
}

/// Does `path` (or, if it does not exist, its deepest existing ancestor)
/// resolve to a place inside `root`? A link that leads nowhere cannot be
/// checked and is refused.
fn inside(root: &Path, path: &Path) -> NcResult<()> {
    let real_root = fs::canonicalize(root).map_err(|e| NcError::from_io(&e))?;
    let mut probe = path.to_path_buf();
    loop {
        match fs::canonicalize(&probe) {
            Ok(real) => return if real.starts_with(&real_root) { Ok(()) } else { Err(NcError::EACCESS) },
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                // The object (or directories above it) may not exist yet:
                // check where the deepest existing one is, unless what is
                // missing is the target of a dangling link.
                if fs::symlink_metadata(&probe).is_ok() || !probe.pop() || !probe.starts_with(root) {
                    return Err(NcError::EACCESS);
                }
            }
            Err(e) => return Err(NcError::from_io(&e)),
        }
    }
}
