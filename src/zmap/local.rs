//! What the drivers that write local files share: the names of their
//! temporary files (and how to tell those a dead process left), and
//! `fsync` by path (when it is done: `durability.rs`).

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::error::{NcError, NcResult};

/// Temporary files are named `<TMP_PREFIX><pid>.<n>`; listings skip them.
pub(super) const TMP_PREFIX: &str = ".nczarr-rs-tmp.";

/// Open a local file to read without waiting: a named pipe would block
/// the open, and then every read, for a writer that never comes. Opened
/// `O_NONBLOCK` (which changes nothing for a regular file), it opens at
/// once; the metadata returned with it says what it is (see
/// [`is_special`]). `flags` are added (`O_NOFOLLOW`).
pub(crate) fn open_without_waiting(path: &Path, flags: libc::c_int) -> std::io::Result<(fs::File, fs::Metadata)> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | flags).open(path)?;
    let meta = file.metadata()?;
    Ok((file, meta))
}

/// Neither a regular file nor a directory: a named pipe, a socket, a
/// device. Never an object of a store, nor a file a store is made of.
pub(crate) fn is_special(meta: &fs::Metadata) -> bool {
    !meta.is_file() && !meta.is_dir()
}

/// A local file open to read (with [`open_without_waiting`]) and its
/// metadata; `None` when there is none, `special` when it is a directory
/// or [`is_special`].
pub(crate) fn open_regular(path: &Path, special: NcError) -> NcResult<Option<(fs::File, fs::Metadata)>> {
    match open_without_waiting(path, 0) {
        Ok((_, meta)) if !meta.is_file() => Err(special),
        Ok(opened) => Ok(Some(opened)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(NcError::from_io(&e)),
    }
}

/// A local file's bytes, as [`open_regular`] finds it.
pub(crate) fn read_regular(path: &Path, special: NcError) -> NcResult<Option<Vec<u8>>> {
    let Some((file, meta)) = open_regular(path, special)? else { return Ok(None) };
    read_opened(file, &meta).map(Some)
}

/// The bytes of an opened file, `meta` its metadata: into a buffer of its
/// size (a spare one if any), read through `take` (unlimited), since
/// `File`'s own read_to_end would ask the size (statx) and position
/// (lseek) again first: two system calls per metadata object, a thousand
/// per 500-variable open.
pub(crate) fn read_opened(mut file: fs::File, meta: &fs::Metadata) -> NcResult<Vec<u8>> {
    let mut bytes = crate::buffers::with_capacity(usize::try_from(meta.len()).map_err(|_| NcError::ENOMEM)?)?;
    std::io::Read::read_to_end(&mut std::io::Read::take(&mut file, u64::MAX), &mut bytes)
        .map_err(|e| NcError::from_io(&e))?;
    Ok(bytes)
}

/// The directory holding `path` ("." for a bare name).
pub(super) fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A fresh temporary name `<dir>/<prefix><pid>.<n>`.
pub(super) fn temp_name(dir: &Path, prefix: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("{prefix}{}.{n}", crate::gate::process_id()))
}

/// The hidden sibling names a store is built under or deleted from:
/// `.<name>.nczarr-rs-tmp.` (followed by `<pid>.<n>`).
pub(super) fn sibling_prefix(root: &Path) -> NcResult<String> {
    let name = root.file_name().and_then(|n| n.to_str()).ok_or(NcError::EINVAL)?;
    Ok(format!(".{name}{TMP_PREFIX}"))
}

/// Is the process that made a temporary name `<prefix><pid>.<n>` gone?
/// Names that do not parse are never claimed.
pub(super) fn writer_is_dead(rest: &str) -> bool {
    let Some(pid) = rest.split('.').next().and_then(|p| p.parse::<libc::pid_t>().ok()) else {
        return false;
    };
    if pid <= 0 || pid as u32 == crate::gate::process_id() {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Remove a file or a directory tree (its files on every core: see
/// `tree.rs`); a missing one is fine.
pub(super) fn remove_any(path: &Path) -> std::io::Result<()> {
    let result = match fs::symlink_metadata(path) {
        #[cfg(target_os = "linux")]
        Ok(meta) if meta.is_dir() => super::tree::remove_tree(path, super::cpus()),
        #[cfg(not(target_os = "linux"))]
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(e) => Err(e),
    };
    match result {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Run `f` on every item, on up to `threads` scoped threads (one: on
/// the calling thread); the first error wins.
pub(super) fn for_each_parallel<T: Sync>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> std::io::Result<()> + Sync,
) -> std::io::Result<()> {
    let threads = threads.min(items.len());
    if threads <= 1 {
        return items.iter().try_for_each(f);
    }
    let next = AtomicUsize::new(0);
    let first_error: Mutex<Option<std::io::Error>> = Mutex::new(None);
    crate::workers::run(threads, || {
        while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
            if let Err(e) = f(item)
                && let Ok(mut slot) = first_error.lock()
            {
                slot.get_or_insert(e);
            }
        }
    });
    match first_error.into_inner() {
        Ok(Some(e)) => Err(e),
        _ => Ok(()),
    }
}

/// `fdatasync` a file (`fsync` a directory) by path; a path gone since is fine.
pub(super) fn sync_path(path: &Path, dir: bool) -> std::io::Result<()> {
    match fs::File::open(path) {
        Ok(f) if dir => f.sync_all(),
        Ok(f) => f.sync_data(),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}
