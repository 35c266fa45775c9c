//! Zarr v2: NCZarr's layouts (netcdf-c 4.8 to 4.10) and pure Zarr, read
//! and rendered. A sibling of `v3`; both stand on the shared parts of
//! `format` (options, attributes, dtypes, JSON, dimensions) and under
//! `commit` and `open`.

pub mod object;
pub mod read;
pub mod write;

/// The NCZarr format version of the v2 layout written.
pub const NCZARR_FORMAT_VERSION: &str = "2.0.0";
