//! One open dataset: its name, its storage and its model, and the life
//! cycle netCDF defines for it (create/open, define mode, sync, close,
//! abort).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{NcError, NcResult};
use crate::format::{self, Consolidation, ReadOptions, WriteOptions};
use crate::io::{ChunkCache, engine};
use crate::model::Model;
use crate::url::{self, DatasetUrl, Storage};
use crate::zmap::{Durability, FileMap, ReferenceMap, S3Map, ZipLayout, ZipMap, Zmap, trace};

pub const NC_WRITE: i32 = 0x0001;
pub const NC_NOCLOBBER: i32 = 0x0004;
pub const NC_DISKLESS: i32 = 0x0008;
pub const NC_MMAP: i32 = 0x0010;
pub const NC_64BIT_DATA: i32 = 0x0020;
pub const NC_CLASSIC_MODEL: i32 = 0x0100;
pub const NC_64BIT_OFFSET: i32 = 0x0200;
pub const NC_NETCDF4: i32 = 0x1000;
pub const NC_MPIIO: i32 = 0x2000;
pub const NC_INMEMORY: i32 = 0x8000;

pub const NC_UDF0: i32 = 0x0040;
pub const NC_UDF1: i32 = 0x0080;

/// Mode flags NCZarr cannot honour (netcdf-c rejects them with NC_EINVAL).
const UNSUPPORTED_FLAGS: i32 = NC_DISKLESS | NC_MMAP | NC_64BIT_DATA | NC_64BIT_OFFSET | NC_INMEMORY | NC_MPIIO;
/// User-defined formats: their dispatch tables expect netcdf-c's
/// internals, so datasets are never opened through them.
const USER_FORMAT_FLAGS: i32 = NC_UDF0 | NC_UDF1;

/// The mode-flag checks shared by create and open.
fn check_mode_flags(mode: i32) -> NcResult<()> {
    if mode & USER_FORMAT_FLAGS != 0 {
        return Err(NcError::ENOTBUILT);
    }
    if mode & UNSUPPORTED_FLAGS != 0 {
        return Err(NcError::EINVAL);
    }
    Ok(())
}

pub struct Dataset {
    /// The name exactly as given to `nc_create`/`nc_open` (`nc_inq_path`).
    pub path: String,
    pub url: DatasetUrl,
    /// Shared, so reads can fetch chunks with the dataset unlocked.
    pub store: Arc<dyn Zmap>,
    pub model: Model,
    /// The create/open mode, with NC_NETCDF4 added as netcdf-c does.
    pub mode: i32,
    /// Created by this handle: `nc_abort` deletes it.
    pub created: bool,
    /// The root group's `_NCProperties`, if the dataset has one.
    pub ncproperties: Option<String>,
    /// Chunk caches, per (group id, variable id).
    pub caches: HashMap<(usize, usize), ChunkCache>,
    /// The process that opened it: a forked child that finds another pid
    /// here inherited the dataset (see [`Dataset::adopt_if_inherited`]).
    pub owner_pid: u32,
    /// What the commit protocol remembers between commits.
    pub commit: format::commit::CommitState,
    /// Which commits are forced to disk (`fsync=`, `NCZARR_RS_FSYNC`).
    pub durability: Durability,
    /// Opened by `nc_create_par`/`nc_open_par` (src/parallel): commits
    /// and aborts are collective.
    pub parallel: Option<Box<crate::parallel::Parallel>>,
    /// Chunks a write completed, being stored on a thread of their own
    /// (`io::write_behind`): every call but a write waits for them first.
    pub in_flight: Option<crate::io::write_behind::InFlight>,
}

/// The `_NCProperties` we write: netcdf-c's provenance format plus our own
/// name and version. `nczarr=` is the NCZarr format version of what is
/// written: 2.0.0 for Zarr v2, 3.0.0 for v3 (as its `_nczarr_superblock`).
pub fn our_ncproperties(zarr_v3: bool) -> String {
    format!(
        "version=2,netcdf={},nczarr={},nczarr-rs={}",
        crate::NC_API_VERSION,
        if zarr_v3 { format::v3::write::NCZARR_V3_VERSION } else { format::v2::NCZARR_FORMAT_VERSION },
        env!("CARGO_PKG_VERSION")
    )
}

/// The chunk key separator of new Zarr v2 variables: `ZARR.DIMENSION_SEPARATOR`
/// in `.ncrc` (`/` or `.`, as netcdf-c reads it), else `.`.
fn separator_setting() -> char {
    match crate::rc::get("ZARR.DIMENSION_SEPARATOR").ok().flatten().as_deref().map(str::trim) {
        Some("/") => '/',
        _ => '.',
    }
}

/// Fragment keys that change the library rather than the dataset: `log`
/// turns netcdf-c's log (`nclog`) on, as netcdf-c 4.9.0 does.
fn apply_controls(url: &DatasetUrl) {
    if url.params.iter().any(|(k, _)| k == "log") {
        crate::compat::nclog::set_logging(1);
    }
}

/// What netcdf-c answers for a plain path that is not a directory store:
/// the system's ENOENT for nothing there, NC_ENOTBUILT for a classic or
/// HDF5 file (formats this library lacks); other files are left to the
/// store driver (NC_ENOTNC).
fn check_plain_path(path: &std::path::Path) -> NcResult<()> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(NcError(libc::ENOENT)),
        Ok(meta) if meta.is_file() && format::foreign::is_netcdf_file(path) => Err(NcError::ENOTBUILT),
        _ => Ok(()),
    }
}

/// Lock a shared dataset for a call, once chunks a write handed on are
/// stored (`io::write_behind`). A poisoned lock means an earlier call
/// panicked half-way through; its state cannot be trusted.
pub fn lock(shared: &Mutex<Dataset>) -> NcResult<MutexGuard<'_, Dataset>> {
    let mut ds = lock_for_write(shared)?;
    crate::io::write_behind::settle(&mut ds)?;
    Ok(ds)
}

/// [`lock`] for a write, which may leave chunks handed on in flight (it
/// waits for those it touches itself).
pub fn lock_for_write(shared: &Mutex<Dataset>) -> NcResult<MutexGuard<'_, Dataset>> {
    let mut ds = shared.lock().map_err(|_| NcError::EINTERNAL)?;
    ds.adopt_if_inherited();
    Ok(ds)
}

/// How to write a dataset: as its URL says, and in netcdf-c 4.9.0's
/// layout when asked for or when the dataset was read in it
/// (`model.layout_490`).
fn write_options(url: &DatasetUrl, ncproperties: Option<&str>, model: &Model) -> WriteOptions {
    let layout_490 = url.layout_490() || model.layout_490;
    WriteOptions {
        pure_zarr: url.pure_zarr(),
        xarray_dims: url.xarray_dims(),
        ncproperties: ncproperties.map_or_else(|| our_ncproperties(model.zarr_v3), str::to_string),
        consolidated: !url.has_mode("noconsolidated") && !layout_490,
        layout_490,
        zarr_v3: model.zarr_v3,
        durable: false,
    }
}

impl Dataset {
    pub fn create(path: &str, cmode: i32) -> NcResult<Dataset> {
        check_mode_flags(cmode)?;
        let url = url::parse(path)?;
        apply_controls(&url);
        if url.bare_path {
            // netcdf-c creates an HDF5 or classic file from a plain path;
            // this library has neither.
            return Err(NcError::ENOTBUILT);
        }
        let durability = Durability::of_dataset(&url.params)?;
        let mut model = Model::new(true);
        model.define_mode = true;
        model.classic_model = cmode & NC_CLASSIC_MODEL != 0;
        model.layout_490 = url.layout_490();
        model.zarr_v3 = url.zarr_v3();
        model.new_separator = separator_setting();
        if model.zarr_v3 && model.layout_490 {
            // netcdf-c 4.9.0 had no v3.
            return Err(NcError::EINVAL);
        }
        model.dirty = true;
        // The empty dataset is stored at once, so the path holds a
        // readable dataset from here on, whatever happens to this process.
        let ncproperties = our_ncproperties(model.zarr_v3);
        let opts = write_options(&url, Some(&ncproperties), &model);
        let mut commit = format::commit::CommitState::default();
        let clobber = cmode & NC_NOCLOBBER == 0;
        let mut init = |map: &dyn Zmap| format::commit::write_new(&mut model, map, &opts, &mut commit);
        let store: Box<dyn Zmap> = match &url.storage {
            Storage::File(root) => {
                trace::wrap(Box::new(FileMap::create_with(root, clobber, durability, |m| init(m))?), "file", 5)
            }
            Storage::Zip(path) => {
                let layout = if url.zip_at_root() { ZipLayout::Root } else { ZipLayout::Directory };
                trace::wrap(Box::new(ZipMap::create_with(path, clobber, layout, durability, |m| init(m))?), "zip", 5)
            }
            Storage::S3(loc) => {
                let store = trace::wrap(Box::new(S3Map::create(loc, &url.params, clobber)?), "s3", 6);
                init(store.as_ref())?;
                store
            }
            // A plain web server and a reference file are read only.
            Storage::Http(_) | Storage::Reference(_) => return Err(NcError::EPERM),
        };
        let _ = store.clean_stray_temps();
        Ok(Dataset {
            path: path.to_string(),
            url,
            store: Arc::from(store),
            model,
            mode: cmode | NC_NETCDF4,
            created: true,
            ncproperties: Some(ncproperties),
            caches: HashMap::new(),
            owner_pid: crate::gate::process_id(),
            in_flight: None,
            commit,
            durability,
            parallel: None,
        })
    }

    pub fn open(path: &str, mode: i32) -> NcResult<Dataset> {
        Dataset::open_locking(path, mode, true)
    }

    /// [`open`](Dataset::open); `lock`: read under the store's commit
    /// lock, so that no other writer's commit is caught half done. The
    /// ranks of a parallel open that never commit themselves (rank 0
    /// commits for them, after opening under the lock first) skip it, so
    /// that thousands of ranks do not queue for it.
    pub(crate) fn open_locking(path: &str, mode: i32, lock: bool) -> NcResult<Dataset> {
        check_mode_flags(mode)?;
        let url = url::parse(path)?;
        apply_controls(&url);
        if url.bare_path {
            check_plain_path(url.file_root())?;
        }
        let durability = Durability::of_dataset(&url.params)?;
        match &url.storage {
            Storage::File(root) => {
                let store = trace::wrap(Box::new(FileMap::open_with(root, durability)?), "file", 5);
                Dataset::open_in(path, url, Arc::from(store), mode, durability, lock)
            }
            Storage::Zip(archive) => {
                let store = trace::wrap(Box::new(ZipMap::open_with(archive, durability)?), "zip", 5);
                Dataset::open_in(path, url, Arc::from(store), mode, durability, lock)
            }
            Storage::S3(loc) => {
                let store: Arc<dyn Zmap> = Arc::from(trace::wrap(Box::new(S3Map::open(loc, &url.params)?), "s3", 6));
                match Dataset::open_in(path, url, store.clone(), mode, durability, lock) {
                    // Nothing at all under the key: say so, as the file
                    // driver does for a missing directory.
                    Err(NcError::ENOTNC) if store.list("")?.is_empty() => Err(NcError::ENOOBJECT),
                    other => other,
                }
            }
            Storage::Http(loc) => {
                if mode & NC_WRITE != 0 {
                    return Err(NcError::EPERM);
                }
                let store = trace::wrap(Box::new(S3Map::open_web(loc, &url.params)?), "http", 6);
                Dataset::open_in(path, url, Arc::from(store), mode, durability, lock)
            }
            Storage::Reference(file) => {
                if mode & NC_WRITE != 0 {
                    return Err(NcError::EPERM);
                }
                let store = trace::wrap(Box::new(ReferenceMap::open(file, &url.params)?), "reference", 5);
                Dataset::open_in(path, url, Arc::from(store), mode, durability, lock)
            }
        }
    }

    /// Open a dataset held in a store the caller provides (an in-memory
    /// [`MemoryMap`](crate::zmap::MemoryMap) in tests and fuzz targets),
    /// read as [`open`](Dataset::open) reads a directory. `name` is what
    /// `nc_inq_path` reports and its `#mode=` fragment applies as for
    /// `open`; its path is not used.
    pub fn open_store(name: &str, store: Box<dyn Zmap>, mode: i32) -> NcResult<Dataset> {
        check_mode_flags(mode)?;
        let url = url::parse(name)?;
        apply_controls(&url);
        let durability = Durability::of_dataset(&url.params)?;
        Dataset::open_in(name, url, Arc::from(store), mode, durability, true)
    }

    fn open_in(
        path: &str,
        url: DatasetUrl,
        store: Arc<dyn Zmap>,
        mode: i32,
        durability: Durability,
        lock: bool,
    ) -> NcResult<Dataset> {
        let writable = mode & NC_WRITE != 0;
        let consolidation = if url.has_mode("noconsolidated") {
            Consolidation::Ignore
        } else if url.has_mode("consolidated") || matches!(url.storage, Storage::S3(_) | Storage::Http(_)) {
            // Asked for (netcdf-c's `consolidated` mode reads `.zmetadata`
            // alone: a store may be nothing else, its run_corrupt), or
            // remote, where checking it costs requests an open should not
            // make.
            Consolidation::Trust
        } else {
            Consolidation::Verify
        };
        // A writer reads with other writers' commits kept out, so that the
        // view its own commits merge from is never one caught mid-commit
        // (whose pending marker would look like an interrupted commit).
        let commit_lock = if writable && lock { crate::zmap::lock_commits(store.as_ref()).ok() } else { None };
        let read = format::read_dataset_with(
            store.as_ref(),
            ReadOptions { writable, consolidation, pure_zarr: url.pure_zarr() },
        )?;
        let mut model = read.model;
        let read_objects = read.objects;
        let mut pending = false;
        model.classic_model = mode & NC_CLASSIC_MODEL != 0;
        model.new_separator = separator_setting();
        if model.writable {
            // Repair what a writer killed earlier left (best effort: a
            // store that cannot be written fails at its first write).
            let _ = store.clean_stray_temps();
            for g in 0..model.groups.len() {
                let gkey = model.group_key(g);
                if g > 0 {
                    let _ = store.materialize(&gkey);
                }
                for var in &model.groups[g].vars {
                    let _ = store.materialize(&crate::zmap::join(&gkey, &var.name));
                }
            }
            // A commit was interrupted: the next one completes it.
            pending = format::commit::commit_pending(store.as_ref())?;
            model.dirty |= pending;
        }
        drop(commit_lock);
        let mut dataset = Dataset {
            path: path.to_string(),
            url,
            store,
            model,
            mode: mode | NC_NETCDF4,
            created: false,
            ncproperties: read.ncproperties,
            caches: HashMap::new(),
            owner_pid: crate::gate::process_id(),
            in_flight: None,
            commit: Default::default(),
            durability,
            parallel: None,
        };
        if dataset.model.writable && !pending {
            // Commits merge with other writers' (`format::merge`) from
            // this view; after an interrupted commit every object is
            // rewritten instead.
            let opts = dataset.write_options();
            let stored = read_objects.unwrap_or_default();
            format::commit::remember_opened(&dataset.model, &opts, stored, &mut dataset.commit)?;
        }
        Ok(dataset)
    }

    /// A forked child shares its parent's open datasets, which the parent
    /// goes on writing. So in the child they become read-only views of
    /// what the parent had at the fork (its unwritten chunks included):
    /// reads and inquiries work, writes are NC_EPERM, and closing or
    /// aborting writes and deletes nothing. Datasets the child opens
    /// itself are its own. Called on every access, before the call uses
    /// the dataset.
    pub fn adopt_if_inherited(&mut self) {
        let pid = crate::gate::process_id();
        if self.owner_pid == pid {
            return;
        }
        self.owner_pid = pid;
        self.model.writable = false;
        self.created = false;
        // The parent's unwritten chunks stay readable here, but must never
        // be written from here when evicted.
        self.caches.values_mut().for_each(ChunkCache::mark_clean);
        crate::io::write_behind::inherit(self);
    }

    /// Remove a dataset's whole store (`nc_delete`). It must open as a
    /// dataset first, so a path that names something else is left alone.
    pub fn delete(path: &str) -> NcResult<()> {
        let ds = Dataset::open(path, 0)?;
        ds.store.destroy()
    }

    pub(crate) fn write_options(&self) -> WriteOptions {
        let durable = self.durability.commit_is_durable(false);
        WriteOptions { durable, ..write_options(&self.url, self.ncproperties.as_deref(), &self.model) }
    }

    /// Write cached chunks, then commit the metadata if anything changed
    /// since the last commit (data first: metadata never names a shape
    /// whose chunks are not there yet; see `format::commit` for the order
    /// of a commit). `explicit` (an `nc_sync`) or the dataset's
    /// durability says whether it is all forced to disk.
    pub(crate) fn flush_metadata(&mut self, explicit: bool) -> NcResult<()> {
        #[cfg(feature = "mpi")]
        if self.parallel.is_some() {
            return crate::parallel::collective::commit(self, explicit);
        }
        if !self.model.writable {
            return Ok(());
        }
        let durable = self.durability.commit_is_durable(explicit);
        engine::flush(self)?;
        if durable {
            self.store.sync()?;
        }
        if self.model.dirty {
            let opts = WriteOptions { durable, ..self.write_options() };
            format::write_dataset(&mut self.model, self.store.as_ref(), &opts, &mut self.commit)?;
        }
        self.store.commit()?;
        if durable {
            // What the commit wrote last (the zip driver's new archive,
            // a step-5 `.zmetadata`) is on disk too when this returns.
            self.store.sync()?;
        }
        Ok(())
    }

    pub fn rename_var(&mut self, grp: usize, varid: i32, name: &[u8]) -> NcResult<()> {
        let old_name = self.model.var(grp, varid)?.name.clone();
        self.model.rename_var(grp, varid, name)?;
        let Some(old) = self.model.var(grp, varid)?.stored_path.clone() else { return Ok(()) };
        let new = crate::zmap::join(&self.model.group_key(grp), &self.model.var(grp, varid)?.name);
        if let Err(e) = self.move_stored(&old, &new) {
            self.model.var_mut(grp, varid)?.name = old_name;
            return Err(e);
        }
        Ok(())
    }

    pub fn rename_grp(&mut self, grp: usize, name: &[u8]) -> NcResult<()> {
        let old_name = self.model.groups.get(grp).map(|g| g.name.clone()).ok_or(NcError::EBADGRPID)?;
        self.model.rename_grp(grp, name)?;
        let Some(old) = self.model.groups[grp].stored_path.clone() else { return Ok(()) };
        let new = self.model.group_key(grp);
        if let Err(e) = self.move_stored(&old, &new) {
            self.model.groups[grp].name = old_name;
            return Err(e);
        }
        Ok(())
    }

    /// Move the stored objects of a renamed variable or group to its new
    /// keys at once, so chunks written later and chunks already stored
    /// stay together (netcdf-c leaves them behind). Crash-safe: the old
    /// keys keep reaching the objects (an alias) until metadata naming the
    /// new ones is published. On error nothing has changed on storage.
    pub(crate) fn move_stored(&mut self, old: &str, new: &str) -> NcResult<()> {
        if old == new {
            return Ok(());
        }
        #[cfg(feature = "mpi")]
        if self.parallel.is_some() {
            return crate::parallel::collective::move_stored(self, old, new);
        }
        self.store.move_prefix(old, new)?;
        self.rebase_stored_paths(old, new);
        let opts = self.write_options();
        let mut commit = std::mem::take(&mut self.commit);
        let published = format::commit::publish(&self.model, self.store.as_ref(), &opts, &mut commit);
        if let Err(e) = published {
            self.commit = commit;
            self.rebase_stored_paths(new, old);
            let _ = self.store.move_prefix(new, old).and_then(|()| self.store.drop_alias(new));
            return Err(e);
        }
        format::commit::note_move(&mut commit, old, new);
        self.commit = commit;
        self.store.drop_alias(old)
    }

    /// Stored paths at or below `old` now live below `new`.
    pub(crate) fn rebase_stored_paths(&mut self, old: &str, new: &str) {
        let rebase = |path: &mut Option<String>| {
            if let Some(p) = path
                && let Some(rest) = p.strip_prefix(old).filter(|r| r.is_empty() || r.starts_with('/'))
            {
                *p = format!("{new}{rest}");
            }
        };
        for group in &mut self.model.groups {
            rebase(&mut group.stored_path);
            group.vars.iter_mut().for_each(|v| rebase(&mut v.stored_path));
        }
    }

    pub fn enddef(&mut self) -> NcResult<()> {
        self.end_define(false)
    }

    /// Leave define mode, committing; `explicit` as for
    /// [`Dataset::flush_metadata`].
    fn end_define(&mut self, explicit: bool) -> NcResult<()> {
        if !self.model.define_mode {
            return Err(NcError::ENOTINDEFINE);
        }
        self.flush_metadata(explicit)?;
        self.model.commit_definitions();
        Ok(())
    }

    /// `nc_sync`: commit, and make everything written durable (unless
    /// durability is `Never`).
    pub fn sync(&mut self) -> NcResult<()> {
        if self.model.define_mode {
            if self.model.classic_model {
                return Err(NcError::EINDEFINE);
            }
            return self.end_define(true);
        }
        self.flush_metadata(true)
    }

    /// Finish a dataset for `nc_close`: leave define mode, write metadata.
    pub fn close(&mut self) -> NcResult<()> {
        if self.model.define_mode { self.enddef() } else { self.flush_metadata(false) }
    }

    /// `nc_abort`: a dataset created by this handle is deleted; for an
    /// opened one, changes not yet written are dropped.
    pub fn abort(&mut self) -> NcResult<()> {
        #[cfg(feature = "mpi")]
        if self.parallel.is_some() {
            return crate::parallel::collective::abort(self);
        }
        self.caches.clear();
        if self.created {
            self.store.destroy()
        } else if self.model.writable {
            if self.store.discard()? {
                return Ok(());
            }
            format::commit::undo(self.store.as_ref(), &mut self.commit, self.durability.commit_is_durable(false))
        } else {
            Ok(())
        }
    }
}
