//! The directory driver: one file per key under a root directory.
//!
//! Crash safety (see `format::commit` for the order of a commit):
//! - a new object is written as an unnamed file (`O_TMPFILE`) in its
//!   directory and then linked under its name; one that replaces an old
//!   object (or where unnamed files are not to be had) is written to a
//!   temporary file in the root directory and renamed into place. Either
//!   way a reader (or a crash) never sees half an object; temporary files
//!   are named `.nczarr-rs-tmp.<pid>.<n>`, never listed, and those of dead
//!   processes are removed when the store is next opened for writing.
//!   (`close` errors, which only network file systems report, go unseen
//!   on the first way; those have no unnamed files and take the second);
//! - a new store is built in a hidden sibling directory and renamed (or,
//!   over an old store, exchanged) into place, and a deleted store is
//!   renamed away before it is emptied, so the path names a whole store
//!   or nothing at every moment;
//! - a moved prefix (a renamed variable or group) leaves a symbolic link
//!   behind until the metadata naming the new place is written;
//! - [`Zmap::sync`] makes everything written since the last call durable,
//!   as the store's [`Durability`] says: with `EveryCommit` by `fdatasync`
//!   of each file written and `fsync` of each directory changed (it is
//!   also the barrier between a commit's steps); with `AtSync` (called
//!   only for `nc_sync`) by one `syncfs` of the store's file system, which
//!   covers the store's creation and renames too; with `Never` not at all.

use std::collections::HashSet;
use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Zmap;
use super::beneath::Checked;
use super::durability::Durability;
use super::key::validate_key;
use super::local::{
    TMP_PREFIX, for_each_parallel, is_special, open_without_waiting, parent_of, read_opened, remove_any,
    sibling_prefix, sync_path, temp_name, writer_is_dead,
};
use crate::error::{NcError, NcResult};

/// Paths written since the last [`Zmap::sync`].
#[derive(Default)]
struct Unsynced {
    files: HashSet<PathBuf>,
    dirs: HashSet<PathBuf>,
}

pub struct FileMap {
    root: PathBuf,
    /// What [`Zmap::sync`] does (see the module's notes).
    durability: Durability,
    /// `EveryCommit`: what the next sync must make durable.
    unsynced: Mutex<Unsynced>,
    /// `AtSync`: anything written since the last sync (else it has
    /// nothing to do).
    written: AtomicBool,
    /// Directories found not to be links (`beneath.rs`).
    checked: Checked,
    /// The root directory, open and `flock`ed while a commit has the
    /// store to itself (`Zmap::lock_commits`).
    commit_lock: Mutex<Option<fs::File>>,
}

fn io_err(e: std::io::Error) -> NcError {
    NcError::from_io(&e)
}

/// Swap two paths atomically (Linux `renameat2(RENAME_EXCHANGE)`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes())?;
    let cb = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both are NUL-terminated paths; the raw system call needs no
    // particular C library version.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(ErrorKind::Unsupported))
}

/// What [`put_unnamed`] did with the file it wrote.
enum Linked {
    /// It is in place under the key.
    Done,
    /// The key names an object already; here is the file, still unnamed.
    Exists(fs::File),
}

/// Write `data` as an unnamed file (`O_TMPFILE`) in the key's directory,
/// then give it the key's name (`linkat`): readers and crashes see the
/// whole object or none, with no temporary name to clean up, and no
/// rename from the root, whose locks (the root directory's, and the file
/// system's for a rename across directories) serialise parallel writers.
/// An error means "do it the other way"; `NotFound` that the directory is
/// missing.
#[cfg(target_os = "linux")]
fn put_unnamed(path: &Path, data: &[u8], eager: bool) -> std::io::Result<Linked> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file =
        fs::OpenOptions::new().write(true).mode(0o666).custom_flags(libc::O_TMPFILE).open(parent_of(path))?;
    file.write_all(data)?;
    if eager {
        start_writeback(&file);
    }
    match link_unnamed(&file, path) {
        Ok(()) => Ok(Linked::Done),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(Linked::Exists(file)),
        // Not `NotFound`: the directory is there (the file was made in it).
        Err(e) if e.kind() == ErrorKind::NotFound => Err(std::io::Error::other(e)),
        Err(e) => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn put_unnamed(_path: &Path, _data: &[u8], _eager: bool) -> std::io::Result<Linked> {
    Err(std::io::Error::from(ErrorKind::Unsupported))
}

/// Name an unnamed file through `/proc/self/fd` (linking the descriptor
/// itself, `AT_EMPTY_PATH`, needs a privilege).
#[cfg(target_os = "linux")]
fn link_unnamed(file: &fs::File, to: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let from = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
    let to = CString::new(to.as_os_str().as_bytes())?;
    // SAFETY: both are NUL-terminated paths that outlive the call.
    let r =
        unsafe { libc::linkat(libc::AT_FDCWD, from.as_ptr(), libc::AT_FDCWD, to.as_ptr(), libc::AT_SYMLINK_FOLLOW) };
    if r == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

#[cfg(not(target_os = "linux"))]
fn link_unnamed(_file: &fs::File, _to: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(ErrorKind::Unsupported))
}

impl FileMap {
    fn at(root: &Path, durability: Durability) -> FileMap {
        FileMap {
            root: root.to_path_buf(),
            durability,
            unsynced: Mutex::new(Unsynced::default()),
            written: AtomicBool::new(false),
            checked: Checked::default(),
            commit_lock: Mutex::new(None),
        }
    }

    /// Are a commit's steps forced to disk one by one? (Also: start
    /// writing each new file's data at once, and make a new store's
    /// directories durable before it appears.)
    fn every_commit(&self) -> bool {
        self.durability == Durability::EveryCommit
    }

    /// Create a new, empty store at `root`, with the default durability.
    /// With `clobber` an existing one is replaced; without it an existing
    /// directory or file is NC_EEXIST.
    pub fn create(root: &Path, clobber: bool) -> NcResult<FileMap> {
        FileMap::create_with(root, clobber, Durability::default(), |_| Ok(()))
    }

    /// Create a store whose first objects `init` writes, atomically: the
    /// store is built in a hidden sibling directory (made durable first
    /// when `durability` is `EveryCommit`), then renamed into place
    /// (exchanged with an old store when clobbering, which is then
    /// deleted). A crash leaves the old store or the new one at `root`,
    /// never a mix or nothing.
    pub fn create_with(
        root: &Path,
        clobber: bool,
        durability: Durability,
        init: impl FnOnce(&FileMap) -> NcResult<()>,
    ) -> NcResult<FileMap> {
        let existing = match fs::symlink_metadata(root) {
            Ok(_) if !clobber => return Err(NcError::EEXIST),
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(io_err(e)),
        };
        let parent = parent_of(root);
        if existing.is_none() {
            // Missing parents are made, as they always were (a failure
            // shows below).
            let _ = fs::create_dir_all(&parent);
        }
        let staging = temp_name(&parent, &sibling_prefix(root)?);
        if let Err(e) = fs::create_dir(&staging) {
            if existing.is_none() {
                return Err(io_err(e));
            }
            // No room beside the store (a read-only parent): empty the old
            // store in place instead, which a crash can interrupt.
            let map = FileMap::at(root, durability);
            map.empty_in_place(existing.as_ref())?;
            init(&map)?;
            map.barrier()?;
            return Ok(map);
        }
        let built = (|| {
            let map = FileMap::at(&staging, durability);
            init(&map)?;
            map.barrier()?;
            if let Some(meta) = existing.as_ref().filter(|m| m.is_dir()) {
                // The new store keeps the old one's permissions.
                let _ = fs::set_permissions(&staging, meta.permissions());
            }
            if map.every_commit() {
                sync_path(&staging, true).map_err(io_err)?;
            }
            Ok(())
        })();
        if let Err(e) = built {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
        let installed = match &existing {
            None => fs::rename(&staging, root),
            Some(meta) if meta.is_dir() => match exchange(&staging, root) {
                // `staging` now holds the old store.
                Ok(()) => Ok(()),
                Err(_) => {
                    // No atomic exchange here: move the old store aside
                    // first (a crash between the renames leaves no store).
                    let trash = temp_name(&parent, &sibling_prefix(root)?);
                    fs::rename(root, &trash).and_then(|()| match fs::rename(&staging, root) {
                        Ok(()) => {
                            let _ = remove_any(&trash);
                            Ok(())
                        }
                        Err(e) => {
                            let _ = fs::rename(&trash, root);
                            Err(e)
                        }
                    })
                }
            },
            Some(_) => fs::remove_file(root).and_then(|()| fs::rename(&staging, root)),
        };
        match installed {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::DirectoryNotEmpty || existing.is_none() => {
                let _ = fs::remove_dir_all(&staging);
                return Err(if e.kind() == ErrorKind::DirectoryNotEmpty { NcError::EEXIST } else { io_err(e) });
            }
            Err(_) => {
                // The store cannot move (a mount point): empty it in place
                // and copy the new objects in.
                let map = FileMap::at(root, durability);
                let copied = map.empty_in_place(existing.as_ref()).and_then(|()| map.copy_in(&staging, ""));
                let _ = fs::remove_dir_all(&staging);
                copied?;
                map.barrier()?;
                return Ok(map);
            }
        }
        let _ = remove_any(&staging);
        let map = FileMap::at(root, durability);
        if map.every_commit() {
            sync_path(&parent, true).map_err(io_err)?;
        }
        // The new store, its directory's rename included, is what the
        // first `nc_sync` makes durable.
        map.written.store(true, Ordering::Relaxed);
        Ok(map)
    }

    /// Make the root an empty directory, deleting what is there.
    fn empty_in_place(&self, existing: Option<&fs::Metadata>) -> NcResult<()> {
        if existing.is_some_and(|m| m.is_dir()) {
            self.delete_prefix("")
        } else {
            let _ = fs::remove_file(&self.root);
            fs::create_dir(&self.root).map_err(io_err)
        }
    }

    /// Copy the files below directory `from` into this store under `key`.
    fn copy_in(&self, from: &Path, key: &str) -> NcResult<()> {
        for entry in fs::read_dir(from).map_err(io_err)? {
            let entry = entry.map_err(io_err)?;
            let Ok(name) = entry.file_name().into_string() else { continue };
            let child = super::join(key, &name);
            if entry.file_type().map_err(io_err)?.is_dir() {
                self.copy_in(&entry.path(), &child)?;
            } else {
                self.put(&child, &fs::read(entry.path()).map_err(io_err)?)?;
            }
        }
        Ok(())
    }

    /// Open an existing store, with the default durability. A missing
    /// root is NC_ENOOBJECT (as netcdf-c); a root that is not a directory
    /// is NC_ENOTNC.
    pub fn open(root: &Path) -> NcResult<FileMap> {
        FileMap::open_with(root, Durability::default())
    }

    /// [`FileMap::open`] with the dataset's durability.
    pub fn open_with(root: &Path, durability: Durability) -> NcResult<FileMap> {
        match fs::metadata(root) {
            Ok(meta) if meta.is_dir() => Ok(FileMap::at(root, durability)),
            Ok(_) => Err(NcError::ENOTNC),
            Err(e) => Err(io_err(e)),
        }
    }

    /// The path of a key whose object may be replaced or removed: the
    /// directories leading to it stay inside the root (`beneath.rs`).
    fn path_of(&self, key: &str) -> NcResult<PathBuf> {
        validate_key(key)?;
        super::beneath::check(&self.root, &self.checked, key, false)?;
        Ok(if key.is_empty() { self.root.clone() } else { self.root.join(key) })
    }

    /// The path of a key to read (or list): it leads to a place inside
    /// the root, whatever links it goes through.
    fn read_path(&self, key: &str) -> NcResult<PathBuf> {
        validate_key(key)?;
        super::beneath::check(&self.root, &self.checked, key, true)?;
        Ok(if key.is_empty() { self.root.clone() } else { self.root.join(key) })
    }

    /// Turn durability off (tests that commit many times).
    #[cfg(test)]
    pub fn without_fsync(mut self) -> FileMap {
        self.durability = Durability::Never;
        self
    }

    /// With `EveryCommit`, a commit's barrier between its steps: everything
    /// written so far reaches the disk before what follows. Otherwise
    /// nothing (process death keeps the order anyway).
    fn barrier(&self) -> NcResult<()> {
        if self.every_commit() { self.sync() } else { Ok(()) }
    }

    /// Remember a written file for the next [`Zmap::sync`]. Returns true
    /// when so many wait that they should be synced now (early durability
    /// is harmless, and it bounds the memory of a long run of writes).
    fn note_file(&self, path: PathBuf) -> bool {
        const MOST_PENDING: usize = 4096;
        self.written.store(true, Ordering::Relaxed);
        if self.every_commit()
            && let Ok(mut u) = self.unsynced.lock()
        {
            u.dirs.insert(parent_of(&path));
            u.files.insert(path);
            return u.files.len() >= MOST_PENDING;
        }
        false
    }

    /// [`FileMap::note_file`] for a finished put, syncing when it says so.
    fn noted(&self, path: PathBuf) -> NcResult<()> {
        if self.note_file(path) {
            self.sync()?;
        }
        Ok(())
    }

    fn note_dir(&self, dir: &Path) {
        self.written.store(true, Ordering::Relaxed);
        if self.every_commit()
            && let Ok(mut u) = self.unsynced.lock()
        {
            u.dirs.insert(dir.to_path_buf());
        }
    }

    /// Create the directories of `dir` below the root (never the root
    /// itself: a store deleted underneath is not silently recreated).
    fn ensure_dir(&self, dir: &Path) -> std::io::Result<()> {
        let rel = dir.strip_prefix(&self.root).map_err(|_| std::io::Error::from(ErrorKind::InvalidInput))?;
        let mut path = self.root.clone();
        for part in rel.components() {
            path.push(part);
            match fs::create_dir(&path) {
                Ok(()) => self.note_dir(&parent_of(&path)),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl FileMap {
    /// The file under `key`, open for reading, and what it is; `None`
    /// when there is none (or a directory, which has no content of its
    /// own). Anything else but a regular file (a named pipe, a device) is
    /// NC_ENCZARR.
    fn open_object(&self, key: &str) -> NcResult<Option<(fs::File, fs::Metadata)>> {
        validate_key(key)?;
        super::beneath::check(&self.root, &self.checked, key, false)?;
        let path = if key.is_empty() { self.root.clone() } else { self.root.join(key) };
        // The object itself is opened without following a link instead
        // of looked at (`lstat`) first: one system call less per object,
        // a thousand per 500-variable open. Only an object that is a link
        // is checked (as `read_path` does), then followed.
        let opened = match open_without_waiting(&path, libc::O_NOFOLLOW) {
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                super::beneath::check(&self.root, &self.checked, key, true)?;
                open_without_waiting(&path, 0)
            }
            opened => opened,
        };
        match opened {
            Ok((_, meta)) if meta.is_dir() => Ok(None),
            Ok((_, meta)) if is_special(&meta) => Err(NcError::ENCZARR),
            Ok(opened) => Ok(Some(opened)),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => Ok(None),
            Err(e) => Err(NcError::from_io(&e)),
        }
    }

    /// [`Zmap::read_into`], checking the object's length first when `size`
    /// is given.
    fn read_into_sized(&self, key: &str, size: Option<u64>, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        use std::os::fd::AsRawFd;
        let Some((file, meta)) = self.open_object(key)? else { return Ok(false) };
        if size.is_some_and(|size| meta.len() != size) {
            return Err(NcError::ENCZARR);
        }
        // Consecutive segments whose file ranges follow each other go in one
        // preadv call (at most IOV_MAX buffers each).
        const IOV_MAX: usize = 1024;
        let mut i = 0;
        while i < segments.len() {
            let start = segments[i].0;
            let mut end = i;
            let mut next = start;
            while end < segments.len() && end - i < IOV_MAX && segments[end].0 == next {
                next += segments[end].1.len() as u64;
                end += 1;
            }
            let total = (next - start) as usize;
            let iov: Vec<libc::iovec> = segments[i..end]
                .iter_mut()
                .map(|(_, b)| libc::iovec { iov_base: b.as_mut_ptr() as *mut libc::c_void, iov_len: b.len() })
                .collect();
            // SAFETY: every iovec points into a live, exclusively borrowed
            // buffer of the stated length.
            let n =
                unsafe { libc::preadv(file.as_raw_fd(), iov.as_ptr(), iov.len() as libc::c_int, start as libc::off_t) };
            if n < 0 {
                return Err(NcError::from_io(&std::io::Error::last_os_error()));
            }
            if (n as usize) < total {
                // A short read: finish this batch one segment at a time.
                use std::os::unix::fs::FileExt;
                for (offset, buf) in segments[i..end].iter_mut() {
                    file.read_exact_at(buf, *offset).map_err(|e| {
                        if e.kind() == ErrorKind::UnexpectedEof { NcError::ENCZARR } else { NcError::from_io(&e) }
                    })?;
                }
            }
            i = end;
        }
        Ok(true)
    }
}

impl Zmap for FileMap {
    /// Objects are files: read again, they come from the page cache.
    fn rereads_are_cheap(&self) -> bool {
        true
    }

    fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
        // A key that names a directory (no content of its own) or nothing
        // is None from `open_object`.
        let Some((file, meta)) = self.open_object(key)? else { return Ok(None) };
        read_opened(file, &meta).map(Some)
    }

    /// Read straight into a buffer of the right size, not zeroed first
    /// (`read_to_end` fills its spare room), its length checked first.
    fn get_exact(&self, key: &str, size: usize) -> NcResult<Option<Vec<u8>>> {
        let Some((file, meta)) = self.open_object(key)? else { return Ok(None) };
        if meta.len() != size as u64 {
            return Err(NcError::ENCZARR);
        }
        let mut data = crate::buffers::with_capacity(size)?;
        std::io::Read::read_to_end(&mut std::io::Read::take(file, size as u64), &mut data)
            .map_err(|e| NcError::from_io(&e))?;
        // Cut short since its length was read: changed under us.
        if data.len() != size {
            return Err(NcError::ENCZARR);
        }
        Ok(Some(data))
    }

    fn get_range(&self, key: &str, offset: u64, len: usize) -> NcResult<Option<Vec<u8>>> {
        Ok(self.get_ranges(key, &[(offset, len)])?.and_then(|mut r| r.pop()))
    }

    /// The size from the file's metadata, then one `pread`.
    fn get_suffix(&self, key: &str, len: usize) -> NcResult<Option<Vec<u8>>> {
        use std::os::unix::fs::FileExt;
        let Some((file, meta)) = self.open_object(key)? else { return Ok(None) };
        let start = meta.len().checked_sub(len as u64).ok_or(NcError::ENCZARR)?;
        let mut out = crate::buffers::zeroed(len)?;
        file.read_exact_at(&mut out, start).map_err(|_| NcError::ENCZARR)?;
        Ok(Some(out))
    }

    /// One open, one `pread` per range.
    fn get_ranges(&self, key: &str, ranges: &[(u64, usize)]) -> NcResult<Option<Vec<Vec<u8>>>> {
        use std::os::unix::fs::FileExt;
        let Some((file, meta)) = self.open_object(key)? else { return Ok(None) };
        // Ranges past the end are refused before any buffer is made for
        // them (a length read from a damaged shard index may be huge).
        if ranges.iter().any(|&(o, l)| o.checked_add(l as u64).is_none_or(|end| end > meta.len())) {
            return Err(NcError::ENCZARR);
        }
        let mut out = Vec::with_capacity(ranges.len());
        for &(offset, len) in ranges {
            let mut buf = crate::buffers::zeroed(len)?;
            match file.read_exact_at(&mut buf, offset) {
                Ok(()) => out.push(buf),
                Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Err(NcError::ENCZARR),
                Err(e) if e.kind() == ErrorKind::IsADirectory => return Ok(None),
                Err(e) => return Err(NcError::from_io(&e)),
            }
        }
        Ok(Some(out))
    }

    /// `preadv` in batches, so scattering many runs costs few system calls.
    fn read_into(&self, key: &str, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        self.read_into_sized(key, None, segments)
    }

    /// The length comes from the open file (`fstat`), before any read.
    fn read_into_exact(&self, key: &str, size: u64, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        self.read_into_sized(key, Some(size), segments)
    }

    fn put(&self, key: &str, data: &[u8]) -> NcResult<()> {
        if key.is_empty() {
            return Err(NcError::EINVAL);
        }
        let path = self.path_of(key)?;
        match put_unnamed(&path, data, self.every_commit()) {
            Ok(Linked::Done) => return self.noted(path),
            Ok(Linked::Exists(file)) => {
                // Replacing an object: give the written file a temporary
                // name in the root and rename it over the old one.
                let tmp = temp_name(&self.root, TMP_PREFIX);
                if link_unnamed(&file, &tmp).and_then(|()| fs::rename(&tmp, &path)).is_ok() {
                    return self.noted(path);
                }
                let _ = fs::remove_file(&tmp);
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {
                self.ensure_dir(&parent_of(&path)).map_err(io_err)?;
                if let Ok(Linked::Done) = put_unnamed(&path, data, self.every_commit()) {
                    return self.noted(path);
                }
            }
            Err(_) => {}
        }
        // Where unnamed files are not to be had (or failed): the temporary
        // file is made in the root: it fails if the store was
        // deleted underneath, and one directory holds every stray. Where
        // the key's directory is on another file system (a linked
        // directory), it is made there instead.
        let write_then_rename = |tmp: &Path| -> std::io::Result<()> {
            let mut f = fs::File::create(tmp)?;
            f.write_all(data)?;
            if self.every_commit() {
                start_writeback(&f);
            }
            // close(2) can report a failed write (NFS, quotas): check it.
            use std::os::fd::IntoRawFd;
            // SAFETY: the descriptor is owned and closed exactly once.
            if unsafe { libc::close(f.into_raw_fd()) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            match fs::rename(tmp, &path) {
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    self.ensure_dir(&parent_of(&path))?;
                    fs::rename(tmp, &path)
                }
                other => other,
            }
        };
        let mut tmp = temp_name(&self.root, TMP_PREFIX);
        let mut result = write_then_rename(&tmp);
        if matches!(&result, Err(e) if e.raw_os_error() == Some(libc::EXDEV)) {
            let _ = fs::remove_file(&tmp);
            tmp = temp_name(&parent_of(&path), TMP_PREFIX);
            result = write_then_rename(&tmp);
        }
        if let Err(e) = result {
            let _ = fs::remove_file(&tmp);
            return Err(io_err(e));
        }
        self.noted(path)
    }

    fn delete(&self, key: &str) -> NcResult<()> {
        let path = self.path_of(key)?;
        match fs::remove_file(&path) {
            Ok(()) => {
                self.note_dir(&parent_of(&path));
                Ok(())
            }
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::IsADirectory) => Ok(()),
            Err(e) => Err(io_err(e)),
        }
    }

    fn list(&self, prefix: &str) -> NcResult<Vec<String>> {
        let path = self.read_path(prefix)?;
        let entries = match fs::read_dir(&path) {
            Ok(entries) => entries,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(Vec::new());
            }
            Err(e) => return Err(io_err(e)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io_err)?;
            // A link "./<its own name>" names nothing: a crash between
            // making a rename's link and moving the directory leaves one
            // (see `move_prefix`).
            if entry.file_type().is_ok_and(|t| t.is_symlink())
                && fs::read_link(entry.path()).is_ok_and(|t| t == Path::new(".").join(entry.file_name()))
            {
                continue;
            }
            // Names that are not UTF-8 cannot be keys; skip them.
            if let Ok(name) = entry.file_name().into_string()
                && !name.starts_with(TMP_PREFIX)
            {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }

    fn delete_prefix(&self, prefix: &str) -> NcResult<()> {
        let path = self.path_of(prefix)?;
        if prefix.is_empty() {
            for name in self.list("")? {
                self.delete_prefix(&name)?;
            }
            return Ok(());
        }
        remove_any(&path).map_err(io_err)?;
        self.note_dir(&parent_of(&path));
        Ok(())
    }

    fn exists(&self, key: &str) -> NcResult<bool> {
        Ok(fs::metadata(self.read_path(key)?).is_ok_and(|m| m.is_file()))
    }

    /// A directory rename, leaving a link from the old name to the new one
    /// (siblings only, as renames are) for [`Zmap::drop_alias`] to remove.
    fn move_prefix(&self, from: &str, to: &str) -> NcResult<()> {
        if from.is_empty() || to.is_empty() {
            return Err(NcError::EINVAL);
        }
        let (src, dst) = (self.path_of(from)?, self.path_of(to)?);
        // Nothing live is at the destination (names are checked): it can
        // only hold leftovers of a crash.
        remove_any(&dst).map_err(io_err)?;
        let dst_parent = parent_of(&dst);
        self.ensure_dir(&dst_parent).map_err(io_err)?;
        if !fs::symlink_metadata(&src).is_ok_and(|m| m.is_dir()) {
            return match fs::rename(&src, &dst) {
                Err(e) if e.kind() != ErrorKind::NotFound => Err(io_err(e)),
                _ => Ok(()),
            };
        }
        self.note_dir(&dst_parent);
        self.note_dir(&parent_of(&src));
        // Siblings (as renames are): the old name must stay a way to the
        // data at every instant, or a crash before the metadata names the
        // new one shows synced data as fill. So the link the old name
        // becomes ("./new": the "./" marks it as ours, see `materialize`)
        // is made first, at the new name, pointing at itself, and one
        // atomic exchange puts the directory at the new name and the link
        // at the old.
        if parent_of(&src) == dst_parent
            && let Some(name) = dst.file_name()
        {
            let link = Path::new(".").join(name);
            if std::os::unix::fs::symlink(&link, &dst).is_ok() {
                if exchange(&src, &dst).is_ok() {
                    return Ok(());
                }
                let _ = fs::remove_file(&dst);
            }
            // No exchange here (another OS or file system): rename,
            // then link, with a window a crash can hit.
            fs::rename(&src, &dst).map_err(io_err)?;
            let _ = std::os::unix::fs::symlink(&link, &src);
            return Ok(());
        }
        fs::rename(&src, &dst).map_err(io_err)?;
        Ok(())
    }

    /// Remove what crashed writers left: temporary files of dead processes
    /// in the root, and half-built or half-deleted copies of the store
    /// beside it. Files of live processes are left alone.
    fn clean_stray_temps(&self) -> NcResult<()> {
        let mut removed = false;
        let clean = |dir: &Path, prefix: &str| -> NcResult<bool> {
            let mut any = false;
            let entries = match fs::read_dir(dir) {
                Ok(e) => e,
                Err(e) if e.kind() == ErrorKind::NotFound => return Ok(false),
                Err(e) => return Err(io_err(e)),
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else { continue };
                if writer_is_dead(rest) {
                    remove_any(&entry.path()).map_err(io_err)?;
                    any = true;
                }
            }
            Ok(any)
        };
        removed |= clean(&self.root, TMP_PREFIX)?;
        if let Ok(prefix) = sibling_prefix(&self.root) {
            // The parent may not be readable; the store still is.
            removed |= clean(&parent_of(&self.root), &prefix).unwrap_or(false);
        }
        if removed {
            self.note_dir(&self.root);
        }
        Ok(())
    }

    /// Turn a prefix that is a link left by an interrupted move (see
    /// [`Zmap::move_prefix`]) back into the directory it points to, so the
    /// objects live under the name the metadata uses.
    /// An exclusive `flock` of the store's root directory. No other
    /// object is made for it, so readers of the store see nothing. Held
    /// only inside a library call, which a fork waits for (the call
    /// gate), so no child inherits it held.
    fn lock_commits(&self) -> NcResult<bool> {
        use std::os::fd::AsRawFd;
        let dir = fs::File::open(&self.root).map_err(io_err)?;
        loop {
            // SAFETY: flock on a descriptor this function owns.
            if unsafe { libc::flock(dir.as_raw_fd(), libc::LOCK_EX) } == 0 {
                *self.commit_lock.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir);
                return Ok(true);
            }
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                // A file system without locks: commits go unlocked.
                Some(libc::ENOLCK | libc::EOPNOTSUPP | libc::EINVAL) => return Ok(false),
                _ => return Err(io_err(e)),
            }
        }
    }

    /// Closing the locked descriptor releases the lock.
    fn unlock_commits(&self) {
        self.commit_lock.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    fn materialize(&self, key: &str) -> NcResult<()> {
        let path = self.path_of(key)?;
        let is_link = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return Ok(());
        }
        let Ok(target) = fs::read_link(&path) else { return Ok(()) };
        // Ours are "./<sibling>" (the user's own links are left alone).
        let mut parts = target.components();
        let (Some(std::path::Component::CurDir), Some(std::path::Component::Normal(name)), None) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Ok(());
        };
        let real = parent_of(&path).join(name);
        if !fs::symlink_metadata(&real).is_ok_and(|m| m.is_dir()) {
            return Ok(());
        }
        // Swap link and directory: the link then sits at the old place,
        // pointing at itself, and goes.
        match exchange(&real, &path) {
            Ok(()) => fs::remove_file(&real).map_err(io_err)?,
            Err(_) => {
                fs::remove_file(&path).map_err(io_err)?;
                fs::rename(&real, &path).map_err(io_err)?;
            }
        }
        self.note_dir(&parent_of(&path));
        Ok(())
    }

    fn drop_alias(&self, from: &str) -> NcResult<()> {
        let path = self.path_of(from)?;
        if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            fs::remove_file(&path).map_err(io_err)?;
            self.note_dir(&parent_of(&path));
        }
        Ok(())
    }

    /// Rename the store away, then empty it: the path never names half a
    /// store.
    fn destroy(&self) -> NcResult<()> {
        let trash = temp_name(&parent_of(&self.root), &sibling_prefix(&self.root)?);
        match fs::rename(&self.root, &trash) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            // Cannot rename (a read-only parent, a mount point): in place.
            Err(_) => {
                return match fs::remove_dir_all(&self.root) {
                    Err(e) if e.kind() != ErrorKind::NotFound => Err(io_err(e)),
                    _ => Ok(()),
                };
            }
        }
        if self.every_commit() {
            let _ = sync_path(&parent_of(&self.root), true);
        }
        remove_any(&trash).map_err(io_err)
    }

    fn sync(&self) -> NcResult<()> {
        match self.durability {
            Durability::Never => return Ok(()),
            Durability::AtSync => {
                if self.written.swap(false, Ordering::Relaxed) {
                    return sync_file_system(&self.root).map_err(|e| {
                        self.written.store(true, Ordering::Relaxed);
                        io_err(e)
                    });
                }
                return Ok(());
            }
            Durability::EveryCommit => {}
        }
        let pending = match self.unsynced.lock() {
            Ok(mut u) => std::mem::take(&mut *u),
            Err(_) => return Err(NcError::EINTERNAL),
        };
        if pending.files.is_empty() && pending.dirs.is_empty() {
            return Ok(());
        }
        let files: Vec<PathBuf> = pending.files.iter().cloned().collect();
        let dirs: Vec<PathBuf> = pending.dirs.iter().cloned().collect();
        // Up to 16 threads whatever the number of CPUs: they wait on the
        // disk, whose journal commits concurrent syncs together.
        let result = for_each_parallel(&files, 16, |p| sync_path(p, false))
            .and_then(|()| for_each_parallel(&dirs, 16, |p| sync_path(p, true)));
        if let Err(e) = result {
            // Keep them for a retry.
            if let Ok(mut u) = self.unsynced.lock() {
                u.files.extend(pending.files);
                u.dirs.extend(pending.dirs);
            }
            return Err(io_err(e));
        }
        Ok(())
    }
}

/// Make everything written to the file system holding `root` durable
/// (`syncfs`: the store's files, directories and renames at once, and
/// whatever else is waiting there).
fn sync_file_system(root: &Path) -> std::io::Result<()> {
    let dir = fs::File::open(root)?;
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a valid descriptor, open for the call.
        if unsafe { libc::syncfs(dir.as_raw_fd()) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        drop(dir);
        // SAFETY: no arguments; schedules every file system's writes.
        unsafe { libc::sync() };
    }
    Ok(())
}

/// Have the system start writing a new file's data to disk now, without
/// waiting: the `fdatasync` at the next [`Zmap::sync`] then finds it
/// mostly written, instead of writing every chunk of a dataset at its
/// close. Only a hint; nothing depends on it.
fn start_writeback(file: &fs::File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a valid descriptor; the call only schedules writeback.
        unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("nczarr-rs-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    /// Every name under `dir`, hidden ones included, relative to it.
    fn every_name(dir: &Path) -> Vec<String> {
        let mut names = Vec::new();
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let name = entry.file_name().into_string().unwrap();
            if entry.file_type().unwrap().is_dir() {
                names.extend(every_name(&entry.path()).into_iter().map(|n| format!("{name}/{n}")));
            }
            names.push(name);
        }
        names.sort();
        names
    }

    #[test]
    fn new_and_replaced_objects_leave_no_temporary_behind() {
        use std::os::unix::fs::PermissionsExt;
        let root = scratch("puts");
        let map = FileMap::create(&root, true).unwrap();
        // New: an unnamed file linked in (into a directory made for it).
        map.put("g/v/0.0", b"first").unwrap();
        // Replaced: the same file renamed over the old one.
        map.put("g/v/0.0", b"second, longer").unwrap();
        map.put("g/v/0.0", b"3").unwrap();
        assert_eq!(map.get("g/v/0.0").unwrap().unwrap(), b"3");
        assert_eq!(every_name(&root), vec!["g", "g/v", "g/v/0.0"]);
        // Made as a created file is (0666 less the umask), not 0600.
        let mode = fs::metadata(root.join("g/v/0.0")).unwrap().permissions().mode() & 0o777;
        // The mask read, not set: other tests make files meanwhile.
        let status = fs::read_to_string("/proc/self/status").unwrap();
        let umask = status.lines().find_map(|l| l.strip_prefix("Umask:")).unwrap().trim();
        assert_eq!(mode, 0o666 & !u32::from_str_radix(umask, 8).unwrap());
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn put_get_list_delete() {
        let root = scratch("basic");
        let map = FileMap::create(&root, true).unwrap();
        map.put(".zgroup", b"{}").unwrap();
        map.put("g/v/.zarray", b"[1]").unwrap();
        assert_eq!(map.get(".zgroup").unwrap().unwrap(), b"{}");
        assert_eq!(map.get("missing").unwrap(), None);
        assert_eq!(map.get("g").unwrap(), None, "a directory has no content");
        assert_eq!(map.get_range("g/v/.zarray", 1, 1).unwrap().unwrap(), b"1");
        assert_eq!(map.get_range("g/v/.zarray", 2, 5), Err(NcError::ENCZARR));
        assert_eq!(map.get_range("nothing", 0, 1).unwrap(), None);
        let whole = map.get("g/v/.zarray").unwrap().unwrap();
        assert_eq!(map.get_suffix("g/v/.zarray", 1).unwrap().unwrap(), whole[whole.len() - 1..]);
        assert_eq!(map.get_suffix("g/v/.zarray", whole.len() + 1), Err(NcError::ENCZARR));
        assert_eq!(map.get_suffix("nothing", 1).unwrap(), None);
        let (mut a, mut b) = ([0u8; 1], [0u8; 2]);
        let mut segs = [(0u64, &mut a[..]), (1u64, &mut b[..])];
        assert!(map.read_into("g/v/.zarray", &mut segs).unwrap());
        assert_eq!((a, b), (*b"[", *b"1]"));
        let mut short = [0u8; 9];
        assert_eq!(map.read_into("g/v/.zarray", &mut [(0, &mut short[..])]), Err(NcError::ENCZARR));
        assert!(!map.read_into("nothing", &mut [(0, &mut short[..])]).unwrap());
        assert_eq!(map.list("").unwrap(), vec![".zgroup", "g"]);
        assert_eq!(map.list("g/v").unwrap(), vec![".zarray"]);
        assert_eq!(map.list("nothing").unwrap(), Vec::<String>::new());
        assert_eq!(map.list_recursive("").unwrap().len(), 2);
        map.move_prefix("g/v", "g/w").unwrap();
        assert_eq!(map.get("g/w/.zarray").unwrap().unwrap(), b"[1]");
        // The old name still reaches the objects until the alias goes.
        assert_eq!(map.get("g/v/.zarray").unwrap().unwrap(), b"[1]");
        map.drop_alias("g/v").unwrap();
        assert_eq!(map.get("g/v/.zarray").unwrap(), None);
        assert_eq!(map.list("g").unwrap(), vec!["w"]);
        // Onto an existing prefix (leftovers): they are replaced.
        map.put("h/other", b"o").unwrap();
        map.move_prefix("g/w", "h").unwrap();
        map.drop_alias("g/w").unwrap();
        assert_eq!(map.get("h/.zarray").unwrap().unwrap(), b"[1]");
        assert_eq!(map.get("h/other").unwrap(), None);
        assert!(map.exists("h/.zarray").unwrap() && !map.exists("h").unwrap());
        map.sync().unwrap();
        map.delete_prefix("h").unwrap();
        map.delete(".zgroup").unwrap();
        map.delete(".zgroup").unwrap();
        map.delete_prefix("g").unwrap();
        assert!(map.list("").unwrap().is_empty());
        map.destroy().unwrap();
        assert!(!root.exists());
    }

    /// A process id that is certainly dead: a child already reaped.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn a_half_made_rename_link_is_never_listed() {
        let root = scratch("halflink");
        let map = FileMap::create(&root, true).unwrap().without_fsync();
        map.put("g/.zgroup", b"{}").unwrap();
        std::os::unix::fs::symlink("./grp", root.join("grp")).unwrap();
        assert_eq!(map.list("").unwrap(), vec!["g".to_string()]);
        // The rename itself clears it and leaves both names reaching g's data.
        map.move_prefix("g", "grp").unwrap();
        assert_eq!(map.get("grp/.zgroup").unwrap().as_deref(), Some(&b"{}"[..]));
        assert_eq!(map.get("g/.zgroup").unwrap().as_deref(), Some(&b"{}"[..]));
    }

    #[test]
    fn strays_of_dead_writers_are_removed_and_never_listed() {
        let root = scratch("strays");
        let map = FileMap::create(&root, true).unwrap();
        map.put("g/.zgroup", b"{}").unwrap();
        let parent = root.parent().unwrap();
        let name = root.file_name().unwrap().to_str().unwrap();
        let dead = dead_pid();
        let live = std::os::unix::process::parent_id();
        let stray = |pid: u32| root.join(format!("{TMP_PREFIX}{pid}.7"));
        for pid in [dead, live] {
            fs::write(stray(pid), b"half").unwrap();
            fs::create_dir_all(parent.join(format!(".{name}{TMP_PREFIX}{pid}.1/g"))).unwrap();
        }
        fs::write(root.join("g").join(format!("{TMP_PREFIX}{dead}.3")), b"x").unwrap();
        fs::write(root.join(format!("{TMP_PREFIX}garbage")), b"x").unwrap();
        // Never listed, at the root or below.
        assert_eq!(map.list("").unwrap(), vec!["g"]);
        assert_eq!(map.list("g").unwrap(), vec![".zgroup"]);
        assert_eq!(map.list_recursive("").unwrap(), vec!["g/.zgroup"]);
        map.clean_stray_temps().unwrap();
        assert!(!stray(dead).exists(), "a dead writer's file goes");
        assert!(stray(live).exists(), "a live writer's file stays");
        assert!(!parent.join(format!(".{name}{TMP_PREFIX}{dead}.1")).exists());
        assert!(parent.join(format!(".{name}{TMP_PREFIX}{live}.1")).exists());
        assert!(root.join(format!("{TMP_PREFIX}garbage")).exists(), "no pid: not ours to judge");
        fs::remove_dir_all(parent.join(format!(".{name}{TMP_PREFIX}{live}.1"))).unwrap();
        map.destroy().unwrap();
        assert!(!root.exists());
    }

    #[test]
    fn create_replaces_a_store_whole_and_cleans_up() {
        let root = scratch("replace");
        let map = FileMap::create(&root, true).unwrap();
        map.put("old/0", b"o").unwrap();
        let failed = FileMap::create_with(&root, true, Durability::default(), |m| {
            m.put(".zgroup", b"{}")?;
            Err(NcError::EIO)
        });
        assert!(matches!(failed, Err(NcError::EIO)));
        assert_eq!(map.get("old/0").unwrap().unwrap(), b"o", "a failed create leaves the old store");
        let map = FileMap::create_with(&root, true, Durability::default(), |m| m.put(".zgroup", b"{}")).unwrap();
        assert_eq!(map.list("").unwrap(), vec![".zgroup"]);
        let parent = root.parent().unwrap();
        let prefix = sibling_prefix(&root).unwrap();
        let leftovers = fs::read_dir(parent)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_str().is_some_and(|n| n.starts_with(&prefix)));
        assert_eq!(leftovers.count(), 0, "no staging or old copy left beside the store");
        // A file in the way is replaced too; a store deleted underneath
        // is not recreated by a write.
        map.destroy().unwrap();
        fs::write(&root, b"file").unwrap();
        let map = FileMap::create(&root, true).unwrap();
        fs::remove_dir_all(&root).unwrap();
        assert_eq!(map.put("g/v/0", b"x"), Err(NcError::ENOOBJECT));
        assert!(!root.exists());
    }

    #[test]
    fn an_interrupted_move_is_materialized() {
        let root = scratch("alias");
        let map = FileMap::create(&root, true).unwrap();
        map.put("g/v/.zarray", b"a").unwrap();
        map.move_prefix("g/v", "g/w").unwrap();
        // Killed before the alias was dropped: metadata still says g/v.
        map.materialize("g/v").unwrap();
        assert!(fs::symlink_metadata(root.join("g/v")).unwrap().is_dir());
        assert!(fs::symlink_metadata(root.join("g/w")).is_err());
        assert_eq!(map.get("g/v/.zarray").unwrap().unwrap(), b"a");
        map.materialize("g/v").unwrap(); // a directory: nothing to do
        // A link of the user's own is left alone.
        map.put("g/data/.zarray", b"b").unwrap();
        std::os::unix::fs::symlink("data", root.join("g/u")).unwrap();
        map.materialize("g/u").unwrap();
        assert!(fs::symlink_metadata(root.join("g/u")).unwrap().file_type().is_symlink());
        map.destroy().unwrap();
    }

    #[test]
    fn keys_cannot_escape_the_root() {
        let root = scratch("escape");
        let map = FileMap::create(&root, true).unwrap();
        assert_eq!(map.put("../evil", b"x"), Err(NcError::EINVAL));
        assert_eq!(map.get("/etc/passwd"), Err(NcError::EINVAL));
        assert_eq!(map.delete_prefix(".."), Err(NcError::EINVAL));
        assert!(!root.parent().unwrap().join("evil").exists());
        map.destroy().unwrap();
    }

    #[test]
    fn create_respects_noclobber_and_clobber() {
        let root = scratch("clobber");
        let map = FileMap::create(&root, true).unwrap();
        map.put("a", b"1").unwrap();
        assert!(matches!(FileMap::create(&root, false), Err(NcError::EEXIST)));
        let map = FileMap::create(&root, true).unwrap();
        assert_eq!(map.get("a").unwrap(), None);
        map.destroy().unwrap();
        assert!(matches!(FileMap::open(&root), Err(NcError::ENOOBJECT)));
    }
}
