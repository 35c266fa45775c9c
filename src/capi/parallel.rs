//! Parallel I/O. NCZarr has none (netcdf-c documents NCZarr as unusable
//! with MPI), so these answer as a netcdf-c built without parallel I/O:
//! NC_ENOPAR, whatever the arguments.

use std::ffi::{c_char, c_int};

/// # Safety
/// No pointer argument is used.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_create_par_fortran(
    _path: *const c_char,
    _cmode: c_int,
    _comm: c_int,
    _info: c_int,
    _ncidp: *mut c_int,
) -> c_int {
    crate::error::code::NC_ENOPAR
}

/// # Safety
/// No pointer argument is used.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open_par_fortran(
    _path: *const c_char,
    _mode: c_int,
    _comm: c_int,
    _info: c_int,
    _ncidp: *mut c_int,
) -> c_int {
    crate::error::code::NC_ENOPAR
}

/// Independent or collective access to a variable: parallel I/O only.
#[unsafe(no_mangle)]
pub extern "C" fn nc_var_par_access(_ncid: c_int, _varid: c_int, _par_access: c_int) -> c_int {
    crate::error::code::NC_ENOPAR
}
