//! Parallel `.nc` files: `nc_create_par`/`nc_open_par` on a name that is
//! not Zarr go to the netcdf-c beside us (src/delegate), as the serial
//! opens do, so one program writes netCDF-4/HDF5 and NCZarr in parallel
//! through one library. The parallel build looks for a parallel netcdf-c
//! first (Debian's `libnetcdf_mpi.so.19`: src/delegate/loader.rs); a
//! serial one answers these calls NC_ENOPAR, as it would alone.
//!
//! The caller's `MPI_Comm` and `MPI_Info` stay opaque here: csrc/parallel.c
//! hands over their addresses and makes the delegate's call itself
//! (`nczrs_c_call_delegate_par`), since their types are the MPI
//! implementation's.

use std::ffi::{c_char, c_int, c_void};

use crate::capi::c_str;
use crate::delegate;
use crate::error::{NcError, NcResult};
use crate::registry::{self, Route};
use crate::zmap::trace;

unsafe extern "C" {
    /// Calls `function` (a delegate's `nc_create_par` or `nc_open_par`)
    /// with the MPI handles at `comm` and `info`.
    fn nczrs_c_call_delegate_par(
        function: *mut c_void,
        path: *const c_char,
        mode: c_int,
        comm: *const c_void,
        info: *const c_void,
        ncidp: *mut c_int,
    ) -> c_int;
}

/// Serve `nc_create_par`/`nc_open_par` of `path` in the delegate if the
/// name is one it serves: returns 1 with the call's status in `*status`
/// (and our ncid in `*ncidp`), or 0 when the name is ours.
///
/// # Safety
/// `path` NULL or a C string; `comm`/`info` the addresses of the caller's
/// `MPI_Comm` and `MPI_Info`; `ncidp` NULL or writable; `status` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nczrs_par_delegated(
    path: *const c_char,
    mode: c_int,
    creating: c_int,
    comm: *const c_void,
    info: *const c_void,
    ncidp: *mut c_int,
    status: *mut c_int,
) -> c_int {
    let route = || -> Option<c_int> {
        let _inside = crate::gate::enter();
        // SAFETY: the caller's C string, or NULL (then ours: EINVAL there).
        let name = unsafe { c_str(path, NcError::EINVAL) }.ok()?;
        // A netCDF file on S3 or the web is read whole or written in a
        // scratch file by one process (src/delegate/remote.rs): not by
        // several ranks.
        if crate::url::remote_file(name).ok().flatten().is_some() {
            return Some(crate::error::code::NC_ENOPAR);
        }
        let creating = creating != 0;
        if !delegate::claims(name, mode, creating) {
            return None;
        }
        // SAFETY: per this function's contract.
        Some(match unsafe { open(name, path, mode, creating, comm, info, ncidp) } {
            Ok(()) => 0,
            Err(NcError(e)) => e,
        })
    };
    // No panic crosses the C boundary.
    let served =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(route)).unwrap_or(Some(crate::error::code::NC_EINTERNAL));
    match served {
        Some(s) => {
            // SAFETY: writable, per the contract.
            unsafe { *status = s };
            1
        }
        None => 0,
    }
}

/// The delegate's parallel create or open, registered as its serial ones.
///
/// # Safety
/// As [`nczrs_par_delegated`].
unsafe fn open(
    name: &str,
    path: *const c_char,
    mode: c_int,
    creating: bool,
    comm: *const c_void,
    info: *const c_void,
    ncidp: *mut c_int,
) -> NcResult<()> {
    let lib = delegate::get()?;
    let symbol = if creating { c"nc_create_par" } else { c"nc_open_par" };
    let function = lib.symbol(symbol);
    if function.is_null() {
        return Err(NcError::ENOTBUILT);
    }
    let mut theirs: c_int = 0;
    // SAFETY: the delegate's function of netcdf_par.h's prototype; the
    // caller's arguments, per the contract.
    let s = lib.call(|_| Some(unsafe { nczrs_c_call_delegate_par(function, path, mode, comm, info, &mut theirs) }));
    trace::log(
        1,
        format_args!("parallel {name}: served by netcdf-c {} ({}), status {s}", lib.version(), lib.path.display()),
    );
    if s != 0 {
        return Err(NcError(s));
    }
    // SAFETY: the caller's out-pointer, per the contract.
    unsafe { crate::capi::crossing::adopt(lib, theirs, None, ncidp) }
}

/// `nc_var_par_access` of a dataset the delegate serves; None when ours.
pub fn var_par_access(ncid: c_int, varid: c_int, par_access: c_int) -> Option<NcResult<()>> {
    let Route::Theirs(d) = registry::route(ncid) else { return None };
    type VarParAccess = unsafe extern "C" fn(c_int, c_int, c_int) -> c_int;
    let function = d.lib.symbol(c"nc_var_par_access");
    if function.is_null() {
        return Some(Err(NcError::ENOTBUILT));
    }
    // SAFETY: the delegate's function of that prototype (netcdf_par.h).
    let function: VarParAccess = unsafe { std::mem::transmute::<*mut c_void, VarParAccess>(function) };
    // SAFETY: plain integers.
    let s = d.call(|_| Some(unsafe { function(d.ncid, varid, par_access) }));
    Some(if s == 0 { Ok(()) } else { Err(NcError(s)) })
}
