//! One open dataset: its name, its storage and its model, and the life
//! cycle netCDF defines for it (create/open, define mode, sync, close,
//! abort).

use std::collections::HashMap;

use crate::error::{NcError, NcResult};
use crate::format::{self, WriteOptions};
use crate::io::{ChunkCache, engine};
use crate::model::Model;
use crate::url::{self, DatasetUrl};
use crate::zmap::{FileMap, Zmap};

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
    pub store: Box<dyn Zmap>,
    pub model: Model,
    /// The create/open mode, with NC_NETCDF4 added as netcdf-c does.
    pub mode: i32,
    /// Created by this handle: `nc_abort` deletes it.
    pub created: bool,
    /// The root group's `_NCProperties`, if the dataset has one.
    pub ncproperties: Option<String>,
    /// Chunk caches, per (group id, variable id).
    pub caches: HashMap<(usize, usize), ChunkCache>,
}

/// The `_NCProperties` we write: netcdf-c's provenance format plus our own
/// name and version.
pub fn our_ncproperties() -> String {
    format!(
        "version=2,netcdf={},nczarr={},nczarr-rs={}",
        crate::NC_API_VERSION,
        format::nczarr::NCZARR_FORMAT_VERSION,
        env!("CARGO_PKG_VERSION")
    )
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
        let store = FileMap::create(url.file_root(), cmode & NC_NOCLOBBER == 0)?;
        let mut model = Model::new(true);
        model.define_mode = true;
        model.classic_model = cmode & NC_CLASSIC_MODEL != 0;
        model.layout_490 = url.layout_490();
        model.dirty = true;
        Ok(Dataset {
            path: path.to_string(),
            url,
            store: Box::new(store),
            model,
            mode: cmode | NC_NETCDF4,
            created: true,
            ncproperties: Some(our_ncproperties()),
            caches: HashMap::new(),
        })
    }

    pub fn open(path: &str, mode: i32) -> NcResult<Dataset> {
        check_mode_flags(mode)?;
        let url = url::parse(path)?;
        apply_controls(&url);
        if url.bare_path {
            check_plain_path(url.file_root())?;
        }
        let store = FileMap::open(url.file_root())?;
        Dataset::open_in(path, url, Box::new(store), mode)
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
        Dataset::open_in(name, url, store, mode)
    }

    fn open_in(path: &str, url: DatasetUrl, store: Box<dyn Zmap>, mode: i32) -> NcResult<Dataset> {
        let writable = mode & NC_WRITE != 0;
        let read = format::read_dataset(store.as_ref(), writable)?;
        let mut model = read.model;
        model.classic_model = mode & NC_CLASSIC_MODEL != 0;
        Ok(Dataset {
            path: path.to_string(),
            url,
            store,
            model,
            mode: mode | NC_NETCDF4,
            created: false,
            ncproperties: read.ncproperties,
            caches: HashMap::new(),
        })
    }

    /// Remove a dataset's whole store (`nc_delete`). It must open as a
    /// dataset first, so a path that names something else is left alone.
    pub fn delete(path: &str) -> NcResult<()> {
        let ds = Dataset::open(path, 0)?;
        ds.store.destroy()
    }

    fn write_options(&self) -> WriteOptions {
        WriteOptions {
            pure_zarr: self.url.pure_zarr(),
            xarray_dims: self.url.xarray_dims(),
            ncproperties: self.ncproperties.clone().unwrap_or_else(our_ncproperties),
            consolidated: !self.url.has_mode("noconsolidated") && !self.url.layout_490(),
            layout_490: self.url.layout_490(),
        }
    }

    /// Write cached chunks, then the metadata if anything changed since
    /// the last write (data first: metadata never names a shape whose
    /// chunks are not there yet).
    fn flush_metadata(&mut self) -> NcResult<()> {
        if self.model.writable {
            engine::flush(self)?;
        }
        if self.model.writable && self.model.dirty {
            let opts = self.write_options();
            format::write_dataset(&mut self.model, self.store.as_ref(), &opts)?;
        }
        Ok(())
    }

    pub fn rename_var(&mut self, grp: usize, varid: i32, name: &[u8]) -> NcResult<()> {
        self.model.rename_var(grp, varid, name)?;
        self.move_renamed_objects()
    }

    pub fn rename_grp(&mut self, grp: usize, name: &[u8]) -> NcResult<()> {
        self.model.rename_grp(grp, name)?;
        self.move_renamed_objects()
    }

    /// Move the stored objects of whatever was renamed to its new keys at
    /// once, so chunks written later and chunks already stored stay
    /// together (netcdf-c leaves them behind).
    fn move_renamed_objects(&mut self) -> NcResult<()> {
        let model = &mut self.model;
        for g in 0..model.groups.len() {
            let new = model.group_key(g);
            let Some(old) = model.groups[g].stored_path.clone() else {
                continue;
            };
            if old == new {
                continue;
            }
            self.store.rename_prefix(&old, &new)?;
            let rebase = |path: &mut Option<String>| {
                if let Some(p) = path {
                    if let Some(rest) = p.strip_prefix(&old).filter(|r| r.is_empty() || r.starts_with('/')) {
                        *p = format!("{new}{rest}");
                    }
                }
            };
            for group in &mut model.groups {
                rebase(&mut group.stored_path);
                group.vars.iter_mut().for_each(|v| rebase(&mut v.stored_path));
            }
        }
        for g in 0..model.groups.len() {
            let gkey = model.group_key(g);
            for var in &mut model.groups[g].vars {
                let new = crate::zmap::join(&gkey, &var.name);
                if let Some(old) = var.stored_path.as_ref().filter(|old| **old != new) {
                    self.store.rename_prefix(old, &new)?;
                    var.stored_path = Some(new);
                }
            }
        }
        Ok(())
    }

    pub fn enddef(&mut self) -> NcResult<()> {
        if !self.model.define_mode {
            return Err(NcError::ENOTINDEFINE);
        }
        self.flush_metadata()?;
        self.model.commit_definitions();
        Ok(())
    }

    pub fn sync(&mut self) -> NcResult<()> {
        if self.model.define_mode {
            if self.model.classic_model {
                return Err(NcError::EINDEFINE);
            }
            return self.enddef();
        }
        self.flush_metadata()
    }

    /// Finish a dataset for `nc_close`: leave define mode, write metadata.
    pub fn close(&mut self) -> NcResult<()> {
        if self.model.define_mode { self.enddef() } else { self.flush_metadata() }
    }

    /// `nc_abort`: a dataset created by this handle is deleted; for an
    /// opened one, changes not yet written are dropped.
    pub fn abort(&mut self) -> NcResult<()> {
        self.caches.clear();
        if self.created {
            self.store.destroy()?;
        }
        Ok(())
    }
}
