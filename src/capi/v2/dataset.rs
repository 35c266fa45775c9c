//! v2 datasets, dimensions and variable definitions.

use std::ffi::{c_char, c_int, c_long};

use super::{c_text, check, ncid_message, v2_call};
use crate::capi::api::{nc_abort, nc_close, nc_create, nc_enddef, nc_inq, nc_open, nc_redef, nc_set_fill, nc_sync};
use crate::capi::api::{nc_def_dim, nc_inq_dim, nc_inq_dimid, nc_rename_dim};
use crate::capi::api::{nc_def_var, nc_inq_var, nc_inq_varid, nc_rename_var};
use crate::capi::put;
use crate::error::code::NC_EDIMSIZE;

/// The message nccreate and ncopen report: `filename "<path>"`.
///
/// # Safety
/// `path` must be NULL or a C string.
unsafe fn filename_message(path: *const c_char) -> impl FnOnce() -> Vec<u8> {
    // SAFETY: the closure runs during the v2 call, while `path` is valid.
    move || [&b"filename \""[..], unsafe { c_text(path) }, b"\""].concat()
}

/// Returns the new ncid.
///
/// # Safety
/// `path` must be NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nccreate(path: *const c_char, cmode: c_int) -> c_int {
    let mut ncid = -1;
    // SAFETY: `path` is passed on as received; `ncid` is a local.
    v2_call(c"nccreate", unsafe { filename_message(path) }, || {
        // SAFETY: as above.
        check(unsafe { nc_create(path, cmode, &mut ncid) })?;
        Ok(ncid)
    })
}

/// Returns the ncid.
///
/// # Safety
/// `path` must be NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncopen(path: *const c_char, mode: c_int) -> c_int {
    let mut ncid = -1;
    // SAFETY: `path` is passed on as received; `ncid` is a local.
    v2_call(c"ncopen", unsafe { filename_message(path) }, || {
        // SAFETY: as above.
        check(unsafe { nc_open(path, mode, &mut ncid) })?;
        Ok(ncid)
    })
}

/// Run a status-only nc_* call on a dataset the v2 way: 0 or -1.
fn simple(routine: &std::ffi::CStr, ncid: c_int, call: extern "C" fn(c_int) -> c_int) -> c_int {
    v2_call(routine, ncid_message(ncid), || check(call(ncid)).map(|()| 0))
}

#[unsafe(no_mangle)]
pub extern "C" fn ncredef(ncid: c_int) -> c_int {
    simple(c"ncredef", ncid, nc_redef)
}

#[unsafe(no_mangle)]
pub extern "C" fn ncendef(ncid: c_int) -> c_int {
    simple(c"ncendef", ncid, nc_enddef)
}

#[unsafe(no_mangle)]
pub extern "C" fn ncclose(ncid: c_int) -> c_int {
    simple(c"ncclose", ncid, nc_close)
}

#[unsafe(no_mangle)]
pub extern "C" fn ncsync(ncid: c_int) -> c_int {
    simple(c"ncsync", ncid, nc_sync)
}

#[unsafe(no_mangle)]
pub extern "C" fn ncabort(ncid: c_int) -> c_int {
    simple(c"ncabort", ncid, nc_abort)
}

/// Returns the old fill mode.
#[unsafe(no_mangle)]
pub extern "C" fn ncsetfill(ncid: c_int, fillmode: c_int) -> c_int {
    let mut old_mode = -1;
    v2_call(c"ncsetfill", ncid_message(ncid), || {
        // SAFETY: `old_mode` is a local.
        check(unsafe { nc_set_fill(ncid, fillmode, &mut old_mode) })?;
        Ok(old_mode)
    })
}

/// Returns ncid itself (as netcdf-c).
///
/// # Safety
/// Each pointer must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncinquire(
    ncid: c_int,
    ndims: *mut c_int,
    nvars: *mut c_int,
    natts: *mut c_int,
    recdim: *mut c_int,
) -> c_int {
    v2_call(c"ncinquire", ncid_message(ncid), || {
        let (mut nd, mut nv, mut na) = (0, 0, 0);
        // SAFETY: the counts go to locals; `recdim` is passed on as
        // received (NULL or writable).
        check(unsafe { nc_inq(ncid, &mut nd, &mut nv, &mut na, recdim) })?;
        // SAFETY: the caller's pointers are NULL or writable.
        unsafe {
            put(ndims, nd);
            put(nvars, nv);
            put(natts, na);
        }
        Ok(ncid)
    })
}

/// Returns the new dimension id; a negative length is NC_EDIMSIZE.
///
/// # Safety
/// `name` must be NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncdimdef(ncid: c_int, name: *const c_char, length: c_long) -> c_int {
    v2_call(c"ncdimdef", ncid_message(ncid), || {
        if length < 0 {
            return Err(NC_EDIMSIZE);
        }
        let mut dimid = -1;
        // SAFETY: `name` is passed on as received; `dimid` is a local.
        check(unsafe { nc_def_dim(ncid, name, length as usize, &mut dimid) })?;
        Ok(dimid)
    })
}

/// Returns the dimension id.
///
/// # Safety
/// `name` must be NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncdimid(ncid: c_int, name: *const c_char) -> c_int {
    v2_call(c"ncdimid", ncid_message(ncid), || {
        let mut dimid = -1;
        // SAFETY: `name` is passed on as received; `dimid` is a local.
        check(unsafe { nc_inq_dimid(ncid, name, &mut dimid) })?;
        Ok(dimid)
    })
}

/// Returns `dimid`. The length goes through a C int on the way to the
/// caller's long, as in netcdf-c, so lengths beyond INT_MAX wrap.
///
/// # Safety
/// `name` NULL or room for NC_MAX_NAME + 1 bytes; `length` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncdiminq(ncid: c_int, dimid: c_int, name: *mut c_char, length: *mut c_long) -> c_int {
    v2_call(c"ncdiminq", ncid_message(ncid), || {
        let mut len = 0usize;
        // SAFETY: `name` is passed on as received; `len` is a local.
        check(unsafe { nc_inq_dim(ncid, dimid, name, &mut len) })?;
        // SAFETY: `length` is NULL or writable.
        unsafe { put(length, len as c_int as c_long) };
        Ok(dimid)
    })
}

/// Returns `dimid`.
///
/// # Safety
/// `name` must be NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncdimrename(ncid: c_int, dimid: c_int, name: *const c_char) -> c_int {
    v2_call(c"ncdimrename", ncid_message(ncid), || {
        // SAFETY: `name` is passed on as received.
        check(unsafe { nc_rename_dim(ncid, dimid, name) })?;
        Ok(dimid)
    })
}

/// Returns the new variable id.
///
/// # Safety
/// `name` must be NULL or a C string; `dimids` NULL or `ndims` ints.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvardef(
    ncid: c_int,
    name: *const c_char,
    datatype: c_int,
    ndims: c_int,
    dimids: *const c_int,
) -> c_int {
    v2_call(c"ncvardef", ncid_message(ncid), || {
        let mut varid = -1;
        // SAFETY: the pointers are passed on as received; `varid` is a local.
        check(unsafe { nc_def_var(ncid, name, datatype, ndims, dimids, &mut varid) })?;
        Ok(varid)
    })
}

/// Returns the variable id.
///
/// # Safety
/// `name` must be NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarid(ncid: c_int, name: *const c_char) -> c_int {
    v2_call(c"ncvarid", ncid_message(ncid), || {
        let mut varid = -1;
        // SAFETY: `name` is passed on as received; `varid` is a local.
        check(unsafe { nc_inq_varid(ncid, name, &mut varid) })?;
        Ok(varid)
    })
}

/// Returns `varid`.
///
/// # Safety
/// Each pointer must be NULL or writable (`name`: NC_MAX_NAME + 1 bytes;
/// `dimids`: one int per dimension).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarinq(
    ncid: c_int,
    varid: c_int,
    name: *mut c_char,
    datatype: *mut c_int,
    ndims: *mut c_int,
    dimids: *mut c_int,
    natts: *mut c_int,
) -> c_int {
    v2_call(c"ncvarinq", ncid_message(ncid), || {
        let (mut nd, mut na) = (0, 0);
        // SAFETY: the caller's pointers are passed on as received; the
        // counts go to locals.
        check(unsafe { nc_inq_var(ncid, varid, name, datatype, &mut nd, dimids, &mut na) })?;
        // SAFETY: `ndims` and `natts` are NULL or writable.
        unsafe {
            put(ndims, nd);
            put(natts, na);
        }
        Ok(varid)
    })
}

/// Returns `varid`.
///
/// # Safety
/// `name` must be NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarrename(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    v2_call(c"ncvarrename", ncid_message(ncid), || {
        // SAFETY: `name` is passed on as received.
        check(unsafe { nc_rename_var(ncid, varid, name) })?;
        Ok(varid)
    })
}
