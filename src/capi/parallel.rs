//! Parallel I/O. The default build has none and answers as a netcdf-c
//! built without parallel I/O: NC_ENOPAR, whatever the arguments. The
//! parallel build (Cargo feature `mpi`) defines `nc_create_par`,
//! `nc_open_par` and their Fortran forms in src/parallel/entry.rs (over
//! csrc/parallel.c), and `nc_var_par_access` here.

#[cfg(not(feature = "mpi"))]
use std::ffi::c_char;
use std::ffi::c_int;

/// # Safety
/// No pointer argument is used.
#[cfg(not(feature = "mpi"))]
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
#[cfg(not(feature = "mpi"))]
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
#[cfg(not(feature = "mpi"))]
#[unsafe(no_mangle)]
pub extern "C" fn nc_var_par_access(_ncid: c_int, _varid: c_int, _par_access: c_int) -> c_int {
    crate::error::code::NC_ENOPAR
}

/// Independent (NC_INDEPENDENT, the default) or collective (NC_COLLECTIVE)
/// access to a variable of a dataset opened for parallel I/O; recorded on
/// the variable.
#[cfg(feature = "mpi")]
#[unsafe(no_mangle)]
pub extern "C" fn nc_var_par_access(ncid: c_int, varid: c_int, par_access: c_int) -> c_int {
    super::guard(|| crate::parallel::entry::var_par_access(ncid, varid, par_access))
}
