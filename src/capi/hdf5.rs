//! The one HDF5 function programs reach through libnetcdf: netcdf-c links
//! HDF5, so a program linked against it may call HDF5 without linking HDF5
//! itself. Debian's python3-netcdf4 does, at import (`H5get_libversion`,
//! for `netCDF4.__hdf5libversion__`). The answer is the HDF5 of the
//! netcdf-c beside us (src/delegate), loaded for the question if need be;
//! without one, 0.0.0 (and success, so such programs still start).

use std::ffi::{c_int, c_uint};

use super::put;

/// `herr_t H5get_libversion(unsigned *majnum, unsigned *minnum, unsigned *relnum)`.
///
/// # Safety
/// Each pointer must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn H5get_libversion(majnum: *mut c_uint, minnum: *mut c_uint, relnum: *mut c_uint) -> c_int {
    // No panic crosses the C boundary (this is not a netCDF call, so it
    // has no guard).
    let version = std::panic::catch_unwind(crate::delegate::hdf5_version).ok().flatten().unwrap_or((0, 0, 0));
    // SAFETY: NULL or writable, as the caller promises.
    unsafe {
        put(majnum, version.0);
        put(minnum, version.1);
        put(relnum, version.2);
    }
    0
}
