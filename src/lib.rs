//! nczarr-rs: the netCDF-C API for Zarr and NCZarr datasets.
//!
//! Layers, top to bottom:
//! * [`capi`]: the C ABI (`nc_*` functions), argument and pointer checks
//!   only, with a panic boundary at every entry;
//! * [`dataset`] and [`registry`]: open datasets and their ids;
//! * [`model`]: the netCDF data model in memory and its rules;
//! * [`format`]: metadata in storage (NCZarr/Zarr JSON);
//! * [`zmap`]: the key-value storage drivers;
//! * [`url`]: dataset names and `#mode=` fragments;
//! * [`compat`]: netcdf-c internals the netcdf-c utilities import (URL
//!   parsing, cdtime calendars, filter specs, logging).

pub mod buffers;
pub mod capi;
pub mod codec;
pub mod compat;
pub mod convert;
pub mod dataset;
pub mod delegate;
pub mod error;
pub mod format;
pub mod gate;
pub mod io;
pub mod json;
pub mod model;
pub mod parallel;
pub mod rc;
pub mod registry;
pub mod types;
pub mod url;
pub mod workers;
pub mod zmap;

/// The netcdf-c version whose API we implement.
pub const NC_API_VERSION: &str = "4.9.3";
