//! Deleting a directory tree with its files unlinked on every core.
//!
//! Why: `nc_create` with `NC_CLOBBER` over a store just written (what a
//! program writing the same output again does, and every benchmark rep)
//! deletes hundreds of chunk files whose pages are still in the page
//! cache, often dirty; freeing them is kernel work of about 125 us per
//! 2 MiB file on this machine's cores, 32 ms for a 512 MiB store on one
//! thread. Unlinks in different files proceed in parallel.
//!
//! Safety against links: every name is resolved from a descriptor of the
//! directory holding it, each directory opened from its parent's
//! descriptor without following a link (`O_NOFOLLOW`). A directory
//! swapped for a link while we work is unlinked as the link, never
//! followed out of the tree (the hazard `std::fs::remove_dir_all` also
//! guards against).

use std::ffi::{CStr, CString};
use std::fs;
use std::io::{self, ErrorKind};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::local::for_each_parallel;

/// Below this many files, the unlinks stay on the calling thread.
const PARALLEL_FILES: usize = 32;

/// Past this many directories (each held open while the files go), the
/// tree is left to `std::fs::remove_dir_all` instead: correct, one core.
const MAX_OPEN_DIRS: usize = 256;

/// A directory of the tree, open.
struct Dir {
    fd: OwnedFd,
    /// Its parent's index in the walk, and its name there (none: the root).
    parent: Option<(usize, CString)>,
}

/// Delete the directory tree at `root` (which must be a directory, not a
/// link to one), as `std::fs::remove_dir_all` does, unlinking its files
/// on up to `threads` threads. A tree missing, or an entry gone
/// meanwhile, is fine.
pub(super) fn remove_tree(root: &Path, threads: usize) -> io::Result<()> {
    if !Path::new("/proc/self/fd").is_dir() {
        // No /proc to list directories through (a bare chroot).
        return remove_on_one_core(root);
    }
    let root_name = CString::new(root.as_os_str().as_bytes())?;
    let root_fd = match open_dir(libc::AT_FDCWD, &root_name) {
        Ok(fd) => fd,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let Some((dirs, files)) = walk(root_fd)? else {
        return remove_on_one_core(root);
    };
    let threads = if files.len() < PARALLEL_FILES { 1 } else { threads };
    for_each_parallel(&files, threads, |(dir, name)| unlink_at(dirs[*dir].fd.as_raw_fd(), name, 0))?;
    // Deepest first: the walk lists a directory after its parent.
    for dir in dirs.iter().rev() {
        if let Some((parent, name)) = &dir.parent {
            unlink_at(dirs[*parent].fd.as_raw_fd(), name, libc::AT_REMOVEDIR)?;
        }
    }
    drop(dirs);
    match fs::remove_dir(root) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// `std::fs::remove_dir_all`, a missing tree fine.
fn remove_on_one_core(root: &Path) -> io::Result<()> {
    match fs::remove_dir_all(root) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Every directory below the root (opened) and every other entry (by its
/// directory's index and name), breadth first; `None` past
/// [`MAX_OPEN_DIRS`] or when descriptors run out.
#[allow(clippy::type_complexity)]
fn walk(root: OwnedFd) -> io::Result<Option<(Vec<Dir>, Vec<(usize, CString)>)>> {
    let mut dirs = vec![Dir { fd: root, parent: None }];
    let mut files = Vec::new();
    let mut at = 0;
    while at < dirs.len() {
        // Listed through the descriptor (its /proc name), not a path.
        let listing = format!("/proc/self/fd/{}", dirs[at].fd.as_raw_fd());
        let entries = match fs::read_dir(listing) {
            Ok(entries) => entries,
            Err(e) if out_of_descriptors(&e) => return Ok(None),
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            let name = CString::new(entry.file_name().as_bytes())?;
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if !is_dir {
                files.push((at, name));
                continue;
            }
            if dirs.len() >= MAX_OPEN_DIRS {
                return Ok(None);
            }
            match open_dir(dirs[at].fd.as_raw_fd(), &name) {
                Ok(fd) => dirs.push(Dir { fd, parent: Some((at, name)) }),
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                // Swapped for a link or a file since it was listed: an
                // entry like any other.
                Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => files.push((at, name)),
                Err(e) if out_of_descriptors(&e) => return Ok(None),
                Err(e) => return Err(e),
            }
        }
        at += 1;
    }
    Ok(Some((dirs, files)))
}

/// Has the process (or system) run out of file descriptors? Then the
/// walk gives way to `remove_dir_all`, which holds fewer at once.
fn out_of_descriptors(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// Open the directory `name` (relative to `at`) without following a link.
fn open_dir(at: RawFd, name: &CStr) -> io::Result<OwnedFd> {
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: a NUL-terminated name that outlives the call.
    let fd = unsafe { libc::openat(at, name.as_ptr(), flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just opened, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `unlinkat`; an entry already gone is fine.
fn unlink_at(dir: RawFd, name: &CStr, flags: libc::c_int) -> io::Result<()> {
    // SAFETY: an open descriptor and a NUL-terminated name.
    if unsafe { libc::unlinkat(dir, name.as_ptr(), flags) } == 0 {
        return Ok(());
    }
    match io::Error::last_os_error() {
        e if e.kind() == ErrorKind::NotFound => Ok(()),
        e => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("nczarr-rs-tree-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_tree_of_many_files_and_nested_directories_goes_whole() {
        let root = scratch("whole");
        let store = root.join("s.zarr");
        for d in ["", "v", "v/0", "v/0/1", "g/h"] {
            fs::create_dir_all(store.join(d)).unwrap();
            for k in 0..40 {
                fs::write(store.join(d).join(format!("{k}.0")), vec![k as u8; 4096]).unwrap();
            }
        }
        std::os::unix::fs::symlink("/nonexistent", store.join("v/dangling")).unwrap();
        remove_tree(&store, 2).unwrap();
        assert!(!store.exists());
        // The parent and its other entries are untouched.
        assert!(root.is_dir());
        remove_tree(&store, 2).unwrap(); // already gone: fine
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn links_inside_the_tree_are_removed_not_followed() {
        let root = scratch("links");
        let outside = root.join("outside");
        fs::create_dir_all(&outside).unwrap();
        for k in 0..50 {
            fs::write(outside.join(format!("keep{k}")), b"x").unwrap();
        }
        let store = root.join("s.zarr");
        fs::create_dir_all(store.join("v")).unwrap();
        for k in 0..50 {
            fs::write(store.join("v").join(format!("{k}")), b"y").unwrap();
        }
        std::os::unix::fs::symlink(&outside, store.join("v/link")).unwrap();
        std::os::unix::fs::symlink(outside.join("keep0"), store.join("filelink")).unwrap();
        remove_tree(&store, 2).unwrap();
        assert!(!store.exists());
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 50, "nothing outside the tree is deleted");
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_deep_tree_past_the_open_directory_limit_is_still_removed() {
        let root = scratch("deep");
        let store = root.join("s.zarr");
        for k in 0..MAX_OPEN_DIRS + 10 {
            let d = store.join(format!("d{k}"));
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join("0"), b"z").unwrap();
        }
        remove_tree(&store, 2).unwrap();
        assert!(!store.exists());
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_root_that_is_not_a_directory_is_an_error_and_kept() {
        let root = scratch("notdir");
        let file = root.join("s.zarr");
        fs::write(&file, b"z").unwrap();
        assert_eq!(remove_tree(&file, 2).unwrap_err().raw_os_error(), Some(libc::ENOTDIR));
        std::os::unix::fs::symlink(&root, root.join("link.zarr")).unwrap();
        // Linux says ENOTDIR (O_DIRECTORY is checked on the link itself).
        let err = remove_tree(&root.join("link.zarr"), 2).unwrap_err().raw_os_error();
        assert!(matches!(err, Some(libc::ENOTDIR | libc::ELOOP)), "{err:?}");
        assert!(root.join("link.zarr").is_dir(), "the link and what it leads to are kept");
        assert!(file.is_file());
        fs::remove_dir_all(&root).unwrap();
    }
}
