//! What readers and writers of either Zarr version are told, and give
//! back: the options of a read and of a write, and the read's result.
//! (Below `v2`, `v3` and `commit`, so that none depends on another for
//! them.)

use crate::model::Model;

/// Key of the consolidated metadata object (Zarr v2).
pub const ZMETADATA: &str = ".zmetadata";

/// Key, in `.zmetadata`, of the marker of a commit under way (see
/// `commit`); readers trust a `.zmetadata` carrying it.
pub const PENDING: &str = "nczarr_rs_pending";

/// Deepest group nesting read. netCDF sets no limit; this one keeps a
/// hostile store (consolidated metadata nests groups without any file
/// system path) from exhausting the stack or the time of the reader.
pub const MAX_GROUP_DEPTH: usize = 1000;

pub struct WriteOptions {
    /// `mode=zarr`: leave out the `_nczarr_*` attributes.
    pub pure_zarr: bool,
    /// Write `_ARRAY_DIMENSIONS` (xarray's dimension names).
    pub xarray_dims: bool,
    /// The `_NCProperties` text for the root group.
    pub ncproperties: String,
    /// Also write consolidated metadata (`.zmetadata`), so readers open
    /// the whole tree in one read. When off, a stale one is removed.
    pub consolidated: bool,
    /// Write netcdf-c 4.9.0's layout (`_NCZARR_*` keys in `.zgroup` and
    /// `.zarray`, NC_CHAR as `<U1`) for readers that old.
    pub layout_490: bool,
    /// Zarr v3 (`format::v3::write`): a `zarr.json` per node, consolidated
    /// metadata inline in the root's.
    pub zarr_v3: bool,
    /// Force each step of the commit to disk before the next
    /// (`zmap::Durability`); without it the order still holds for a
    /// crash of the process, which is all the ecosystem promises.
    pub durable: bool,
}

pub struct ReadResult {
    pub model: Model,
    /// The root group's `_NCProperties`, if present.
    pub ncproperties: Option<String>,
    /// For a writer: every metadata object read, by key (v3: the root's
    /// `zarr.json` without its consolidated metadata).
    pub objects: Option<serde_json::Map<String, serde_json::Value>>,
}

/// How an open uses consolidated metadata (`.zmetadata`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consolidation {
    /// Use it if it still describes the store (its root objects are
    /// checked: see [`current_consolidated`]). For stores where those
    /// reads are cheap.
    Verify,
    /// Use it as it is, as zarr-python and netcdf-c's `mode=consolidated`
    /// do: an open is one request. For remote stores. An unfinished
    /// commit of ours (the pending marker) is still checked.
    Trust,
    /// Read every object itself (`mode=noconsolidated`).
    Ignore,
}

/// How to read a dataset.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    pub writable: bool,
    pub consolidation: Consolidation,
    /// `mode=zarr` (or `xarray`): read as pure Zarr even where NCZarr
    /// metadata is present, as netcdf-c does (its ref_nczarr2zarr.cdl):
    /// groups by listing, dimensions from names or anonymous.
    pub pure_zarr: bool,
}
