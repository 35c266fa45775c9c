//! netcdf-c internals that Debian's utilities (ncdump, ncgen, nccopy)
//! import from libnetcdf.so.19, restated from netcdf-c 4.9.0's behaviour.
//! Pure logic only; the C entry points are in `capi::tools`.

pub mod alignment;
pub mod cdtime;
pub mod filterspec;
pub mod nclog;
pub mod ncuri;
pub mod scan;
pub mod text;
