//! The zip driver: a dataset inside one zip archive
//! (`file:///p/d.zip#mode=nczarr,zip`).
//!
//! Reads go straight to single entries through the central directory
//! ([`index`]): a stored entry is read by byte range with `pread`, a
//! deflated one inflated whole. Where in the archive the keys are is
//! detected on open ([`layout`]).
//!
//! Writes never touch the archive in place. What is written, deleted or
//! moved is held beside it (an overlay over the archive's entries; new
//! bytes in an unlinked spool file) and becomes visible to other readers
//! only at [`Zmap::commit`] (end of define mode, `nc_sync`, `nc_close`),
//! which writes a whole new archive to a temporary file in the same
//! directory, copying unchanged entries raw, and renames it over the old
//! one ([`commit`]). So a crash or an error leaves the old archive or the
//! new one, never half of either, and [`Zmap::discard`] (`nc_abort`) just
//! forgets the overlay.

mod commit;
mod index;
mod layout;

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use self::index::Index;
use super::Zmap;
use super::durability::Durability;
use super::key::validate_key;
use super::local::{parent_of, sibling_prefix, sync_path, temp_name, writer_is_dead};
use crate::error::{NcError, NcResult};

use layout::{dataset_dir_name, detect_prefix};

/// Where a new archive puts its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZipLayout {
    /// Under one top directory named after the file, as netcdf-c writes.
    Directory,
    /// At the archive root, as zarr-python's `ZipStore` writes.
    Root,
}

/// The archive as last committed: its file and table of contents, keyed
/// by dataset key. Never changed; a commit makes a new one.
#[derive(Default)]
struct Base {
    file: Option<File>,
    index: Index,
    /// Dataset key → position in `index.entries`.
    by_key: BTreeMap<String, usize>,
}

impl Base {
    fn open(path: &Path, prefix: Option<&str>) -> NcResult<(Base, String)> {
        let (file, _) = super::local::open_regular(path, NcError::ENOTNC)?.ok_or(NcError::ENOOBJECT)?;
        let index = Index::read(&file)?;
        let prefix = match prefix {
            Some(p) => p.to_string(),
            None => {
                let names: Vec<&str> = index.order.iter().map(String::as_str).collect();
                detect_prefix(&names).ok_or(NcError::ENOTNC)?
            }
        };
        let by_key = index
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.name.strip_prefix(prefix.as_str()).map(|k| (k.to_string(), i)))
            .collect();
        Ok((Base { file: Some(file), index, by_key }, prefix))
    }
}

/// What the overlay says about a key.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    /// New bytes, at `offset` in the spool.
    New {
        offset: u64,
        len: u64,
    },
    /// The bytes of the committed archive's object under another key (a
    /// moved variable or group).
    Moved {
        from: String,
    },
    Deleted,
}

/// Where a key's bytes are now.
enum Source {
    Base(Arc<Base>, usize),
    Spool(Arc<File>, u64, u64),
}

#[derive(Default)]
struct State {
    base: Arc<Base>,
    overlay: BTreeMap<String, Slot>,
    /// Directory entries of the view (dataset keys): committed ones,
    /// minus deleted ones.
    dirs: BTreeSet<String>,
    /// New bytes, in an unlinked file beside the archive (created on the
    /// first write).
    spool: Option<Arc<File>>,
    spool_end: u64,
    /// Something to commit (new archives always have).
    dirty: bool,
}

pub struct ZipMap {
    path: PathBuf,
    /// What every entry name of the dataset starts with ("" or "d/").
    prefix: String,
    durability: Durability,
    /// An archive was written since the last [`Zmap::sync`] (which, with
    /// `AtSync`, then makes it durable).
    unsynced: std::sync::atomic::AtomicBool,
    state: Mutex<State>,
    /// Only the process that opened the archive commits to it: a forked
    /// child holds a copy of the overlay, not the right to publish it.
    owner_pid: u32,
}

fn io_err(e: std::io::Error) -> NcError {
    NcError::from_io(&e)
}

/// Is `key` at or below `prefix` ("" holds everything)?
fn under(key: &str, prefix: &str) -> bool {
    prefix.is_empty() || key == prefix || key.strip_prefix(prefix).is_some_and(|r| r.starts_with('/'))
}

impl ZipMap {
    /// Open an existing archive; the dataset's place in it is detected.
    /// A symbolic link is followed: commits replace the file it names.
    pub fn open(path: &Path) -> NcResult<ZipMap> {
        ZipMap::open_with(path, Durability::default())
    }

    /// [`ZipMap::open`] with the dataset's durability.
    pub fn open_with(path: &Path, durability: Durability) -> NcResult<ZipMap> {
        let path = &std::fs::canonicalize(path).map_err(io_err)?;
        let (base, prefix) = Base::open(path, None)?;
        let state = State::unchanged(Arc::new(base), &prefix);
        Ok(ZipMap::with_state(path, prefix, state, durability))
    }

    /// Make a new archive at `path` holding what `init` writes. With
    /// `clobber` an existing file is replaced (atomically, once `init` has
    /// succeeded); without it an existing path is NC_EEXIST. On error no
    /// file is left and an old one is untouched.
    pub fn create_with(
        path: &Path,
        clobber: bool,
        layout: ZipLayout,
        durability: Durability,
        init: impl FnOnce(&ZipMap) -> NcResult<()>,
    ) -> NcResult<ZipMap> {
        let resolved = std::fs::canonicalize(path);
        let path = resolved.as_deref().unwrap_or(path);
        match std::fs::symlink_metadata(path) {
            Ok(_) if !clobber => return Err(NcError::EEXIST),
            Ok(meta) if meta.is_dir() => return Err(NcError::EEXIST),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(e)),
        }
        let prefix = match layout {
            ZipLayout::Root => String::new(),
            ZipLayout::Directory => {
                let name = path.file_name().and_then(|n| n.to_str()).ok_or(NcError::EINVAL)?;
                format!("{}/", dataset_dir_name(name))
            }
        };
        let map = ZipMap::with_state(path, prefix, State { dirty: true, ..State::default() }, durability);
        init(&map)?;
        map.commit()?;
        Ok(map)
    }

    fn with_state(path: &Path, prefix: String, state: State, durability: Durability) -> ZipMap {
        ZipMap {
            path: path.to_path_buf(),
            prefix,
            durability,
            unsynced: Default::default(),
            state: Mutex::new(state),
            owner_pid: crate::gate::process_id(),
        }
    }

    /// The lock is never held across a panic that matters: every change
    /// under it is made whole or not at all.
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Where the bytes under `key` are now, if anywhere.
    fn source(state: &State, key: &str) -> Option<Source> {
        let from_base = |k: &str| state.base.by_key.get(k).map(|&i| Source::Base(state.base.clone(), i));
        match state.overlay.get(key) {
            Some(Slot::New { offset, len }) => state.spool.clone().map(|f| Source::Spool(f, *offset, *len)),
            Some(Slot::Moved { from }) => from_base(from),
            Some(Slot::Deleted) => None,
            None => from_base(key),
        }
    }

    /// Every key of the view at or below `prefix`, sorted.
    fn keys_under(state: &State, prefix: &str) -> Vec<String> {
        // The keys starting with `prefix` sort together, from `prefix` on;
        // those at or below it are among them.
        fn range<'a, V>(map: &'a BTreeMap<String, V>, prefix: &'a str) -> impl Iterator<Item = (&'a String, &'a V)> {
            let starting = map
                .range::<str, _>((std::ops::Bound::Included(prefix), std::ops::Bound::Unbounded))
                .take_while(move |(k, _)| k.starts_with(prefix));
            starting.filter(move |(k, _)| under(k, prefix))
        }
        let mut keys: BTreeSet<&str> = range(&state.base.by_key, prefix).map(|(k, _)| k.as_str()).collect();
        for (key, slot) in range(&state.overlay, prefix) {
            match slot {
                Slot::Deleted => keys.remove(key.as_str()),
                _ => keys.insert(key.as_str()),
            };
        }
        keys.into_iter().map(str::to_string).collect()
    }

    /// Append `data` to the spool, creating it on the first write: a file
    /// beside the archive (same file system, so as big as the archive can
    /// be), unlinked at once so that nothing is left if we die.
    fn spool(&self, state: &mut State, data: &[u8]) -> NcResult<Slot> {
        if state.spool.is_none() {
            let dir = parent_of(&self.path);
            let name = temp_name(&dir, &sibling_prefix(&self.path)?);
            let file =
                std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&name).map_err(io_err)?;
            let _ = std::fs::remove_file(&name);
            state.spool = Some(Arc::new(file));
            state.spool_end = 0;
        }
        let offset = state.spool_end;
        if let Some(spool) = &state.spool {
            spool.write_all_at(data, offset).map_err(io_err)?;
        }
        state.spool_end += data.len() as u64;
        Ok(Slot::New { offset, len: data.len() as u64 })
    }

    fn read_source(source: &Source) -> NcResult<Vec<u8>> {
        match source {
            Source::Base(base, i) => base.index.entries[*i].read(base.file.as_ref().ok_or(NcError::EINTERNAL)?),
            Source::Spool(file, offset, len) => {
                let mut data = vec![0u8; *len as usize];
                file.read_exact_at(&mut data, *offset).map_err(io_err)?;
                Ok(data)
            }
        }
    }

    fn size_of(source: &Source) -> u64 {
        match source {
            Source::Base(base, i) => base.index.entries[*i].size,
            Source::Spool(_, _, len) => *len,
        }
    }

    fn read_source_into(source: &Source, segments: &mut [(u64, &mut [u8])]) -> NcResult<()> {
        match source {
            Source::Base(base, i) => {
                base.index.entries[*i].read_into(base.file.as_ref().ok_or(NcError::EINTERNAL)?, segments)
            }
            Source::Spool(file, start, len) => {
                for (offset, dst) in segments.iter_mut() {
                    if offset.checked_add(dst.len() as u64).is_none_or(|end| end > *len) {
                        return Err(NcError::ENCZARR);
                    }
                    file.read_exact_at(dst, start + *offset).map_err(io_err)?;
                }
                Ok(())
            }
        }
    }
}

impl State {
    /// The view of a committed archive with no change over it: its
    /// directory entries below `prefix` as dataset keys.
    fn unchanged(base: Arc<Base>, prefix: &str) -> State {
        let dirs = base
            .index
            .dirs
            .iter()
            .filter_map(|d| d.strip_prefix(prefix).filter(|k| !k.is_empty()).map(str::to_string))
            .collect();
        State { base, dirs, ..State::default() }
    }
}

impl Zmap for ZipMap {
    fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
        let source = ZipMap::source(&self.state(), key);
        source.map(|s| ZipMap::read_source(&s)).transpose()
    }

    fn read_into(&self, key: &str, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let Some(source) = ZipMap::source(&self.state(), key) else { return Ok(false) };
        ZipMap::read_source_into(&source, segments)?;
        Ok(true)
    }

    fn read_into_exact(&self, key: &str, size: u64, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let Some(source) = ZipMap::source(&self.state(), key) else { return Ok(false) };
        if ZipMap::size_of(&source) != size {
            return Err(NcError::ENCZARR);
        }
        ZipMap::read_source_into(&source, segments)?;
        Ok(true)
    }

    fn get_suffix(&self, key: &str, len: usize) -> NcResult<Option<Vec<u8>>> {
        let Some(source) = ZipMap::source(&self.state(), key) else { return Ok(None) };
        let start = ZipMap::size_of(&source).checked_sub(len as u64).ok_or(NcError::ENCZARR)?;
        let mut buf = vec![0u8; len];
        ZipMap::read_source_into(&source, &mut [(start, &mut buf[..])])?;
        Ok(Some(buf))
    }

    fn get_range(&self, key: &str, offset: u64, len: usize) -> NcResult<Option<Vec<u8>>> {
        let Some(source) = ZipMap::source(&self.state(), key) else { return Ok(None) };
        // Checked before the buffer is made: `len` may come from a
        // damaged shard index.
        if offset.checked_add(len as u64).is_none_or(|end| end > ZipMap::size_of(&source)) {
            return Err(NcError::ENCZARR);
        }
        let mut buf = crate::buffers::zeroed(len)?;
        ZipMap::read_source_into(&source, &mut [(offset, &mut buf[..])])?;
        Ok(Some(buf))
    }

    fn exists(&self, key: &str) -> NcResult<bool> {
        Ok(ZipMap::source(&self.state(), key).is_some())
    }

    fn put(&self, key: &str, data: &[u8]) -> NcResult<()> {
        validate_key(key)?;
        if key.is_empty() {
            return Err(NcError::EINVAL);
        }
        let mut state = self.state();
        let slot = self.spool(&mut state, data)?;
        state.overlay.insert(key.to_string(), slot);
        state.dirty = true;
        Ok(())
    }

    fn delete(&self, key: &str) -> NcResult<()> {
        let mut state = self.state();
        if state.base.by_key.contains_key(key) {
            state.overlay.insert(key.to_string(), Slot::Deleted);
        } else {
            state.overlay.remove(key);
        }
        state.dirty = true;
        Ok(())
    }

    fn list(&self, prefix: &str) -> NcResult<Vec<String>> {
        let state = self.state();
        let mut children = BTreeSet::new();
        let dirs = state.dirs.iter().filter(|d| under(d, prefix)).cloned();
        for key in ZipMap::keys_under(&state, prefix).into_iter().chain(dirs) {
            let rest = if prefix.is_empty() { key.as_str() } else { key.get(prefix.len() + 1..).unwrap_or("") };
            if let Some(child) = rest.split('/').next().filter(|c| !c.is_empty()) {
                children.insert(child.to_string());
            }
        }
        Ok(children.into_iter().collect())
    }

    fn delete_prefix(&self, prefix: &str) -> NcResult<()> {
        let mut state = self.state();
        for key in ZipMap::keys_under(&state, prefix) {
            if state.base.by_key.contains_key(&key) {
                state.overlay.insert(key, Slot::Deleted);
            } else {
                state.overlay.remove(&key);
            }
        }
        state.dirs.retain(|d| !under(d, prefix));
        state.dirty = true;
        Ok(())
    }

    fn move_prefix(&self, from: &str, to: &str) -> NcResult<()> {
        self.delete_prefix(to)?;
        let mut state = self.state();
        for key in ZipMap::keys_under(&state, from) {
            let slot = match state.overlay.get(&key) {
                Some(Slot::New { offset, len }) => Slot::New { offset: *offset, len: *len },
                Some(Slot::Moved { from }) => Slot::Moved { from: from.clone() },
                Some(Slot::Deleted) => continue,
                None => Slot::Moved { from: key.clone() },
            };
            state.overlay.insert(format!("{to}{}", &key[from.len()..]), slot);
        }
        Ok(())
    }

    fn destroy(&self) -> NcResult<()> {
        let mut state = self.state();
        *state = State::default();
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_err(e)),
            _ => Ok(()),
        }
    }

    /// With `AtSync`, `nc_sync`'s: the archive its commit wrote (and the
    /// rename that installed it) to disk. `EveryCommit` synced it before
    /// the rename; `Never` does nothing.
    fn sync(&self) -> NcResult<()> {
        if self.durability == Durability::AtSync && self.unsynced.swap(false, std::sync::atomic::Ordering::Relaxed) {
            let synced = sync_path(&self.path, false).and_then(|()| sync_path(&parent_of(&self.path), true));
            if let Err(e) = synced {
                self.unsynced.store(true, std::sync::atomic::Ordering::Relaxed);
                return Err(io_err(e));
            }
        }
        Ok(())
    }

    fn commit(&self) -> NcResult<()> {
        let mut state = self.state();
        if !state.dirty {
            return Ok(());
        }
        if crate::gate::process_id() != self.owner_pid {
            return Err(NcError::EPERM);
        }
        let durable = self.durability == Durability::EveryCommit;
        commit::write_archive(&self.path, &self.prefix, &state, durable)?;
        self.unsynced.store(!durable, std::sync::atomic::Ordering::Relaxed);
        // The new archive replaces the old; read it back as the new base.
        let (base, _) = Base::open(&self.path, Some(&self.prefix))?;
        *state = State::unchanged(Arc::new(base), &self.prefix);
        Ok(())
    }

    fn discard(&self) -> NcResult<bool> {
        let mut state = self.state();
        *state = State::unchanged(state.base.clone(), &self.prefix);
        Ok(true)
    }

    /// Remove commit temporaries that dead processes left beside the
    /// archive (spools are unlinked as soon as they are made).
    fn clean_stray_temps(&self) -> NcResult<()> {
        let prefix = sibling_prefix(&self.path)?;
        let Ok(entries) = std::fs::read_dir(parent_of(&self.path)) else { return Ok(()) };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix.as_str())) else { continue };
            if writer_is_dead(rest) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
