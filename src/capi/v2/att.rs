//! v2 attributes. Values move in the attribute's own type (nc_put_att,
//! nc_get_att). The success values (0 from some, 1 from others, the
//! number from ncattname) are netcdf-c's.

use std::ffi::{c_char, c_int, c_void};

use super::{c_text, check, ncid_message, v2_call};
use crate::capi::api::{nc_copy_att, nc_del_att, nc_get_att, nc_inq_att, nc_inq_attname, nc_put_att, nc_rename_att};
use crate::capi::put;

/// Returns 0. A negative `len` reaches nc_put_att sign-extended to a huge
/// size_t, as the C conversion does in netcdf-c, and is refused there.
///
/// # Safety
/// `name` must be NULL or a C string; `value` must hold `len` values of
/// `datatype`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattput(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    datatype: c_int,
    len: c_int,
    value: *const c_void,
) -> c_int {
    v2_call(c"ncattput", ncid_message(ncid), || {
        // SAFETY: the pointers are passed on as received.
        check(unsafe { nc_put_att(ncid, varid, name, datatype, len as usize, value) })?;
        Ok(0)
    })
}

/// Returns 1. The length goes through a C int, as in netcdf-c.
///
/// # Safety
/// `name` must be NULL or a C string; `datatype` and `len` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattinq(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    datatype: *mut c_int,
    len: *mut c_int,
) -> c_int {
    let message = move || {
        // SAFETY: this runs during the call, while `name` is valid.
        let name = unsafe { c_text(name) };
        [format!("ncid {ncid}; varid {varid}; attname \"").as_bytes(), name, b"\""].concat()
    };
    v2_call(c"ncattinq", message, || {
        let mut length = 0usize;
        // SAFETY: `name` and `datatype` are passed on as received; the
        // length goes to a local.
        check(unsafe { nc_inq_att(ncid, varid, name, datatype, &mut length) })?;
        // SAFETY: `len` is NULL or writable.
        unsafe { put(len, length as c_int) };
        Ok(1)
    })
}

/// Returns 1.
///
/// # Safety
/// `name` must be NULL or a C string; `value` must have room for the
/// attribute's values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattget(ncid: c_int, varid: c_int, name: *const c_char, value: *mut c_void) -> c_int {
    v2_call(c"ncattget", ncid_message(ncid), || {
        // SAFETY: the pointers are passed on as received.
        check(unsafe { nc_get_att(ncid, varid, name, value) })?;
        Ok(1)
    })
}

/// Returns 0. The failure message is just the attribute name, as in
/// netcdf-c.
///
/// # Safety
/// `name` must be NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattcopy(
    ncid_in: c_int,
    varid_in: c_int,
    name: *const c_char,
    ncid_out: c_int,
    varid_out: c_int,
) -> c_int {
    // SAFETY: this runs during the call, while `name` is valid.
    let message = move || unsafe { c_text(name) }.to_vec();
    v2_call(c"ncattcopy", message, || {
        // SAFETY: `name` is passed on as received.
        check(unsafe { nc_copy_att(ncid_in, varid_in, name, ncid_out, varid_out) })?;
        Ok(0)
    })
}

/// Returns `attnum`.
///
/// # Safety
/// `name` NULL or room for NC_MAX_NAME + 1 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattname(ncid: c_int, varid: c_int, attnum: c_int, name: *mut c_char) -> c_int {
    v2_call(c"ncattname", ncid_message(ncid), || {
        // SAFETY: `name` is passed on as received.
        check(unsafe { nc_inq_attname(ncid, varid, attnum, name) })?;
        Ok(attnum)
    })
}

/// Returns 1.
///
/// # Safety
/// `name` and `newname` must be NULL or C strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattrename(ncid: c_int, varid: c_int, name: *const c_char, newname: *const c_char) -> c_int {
    v2_call(c"ncattrename", ncid_message(ncid), || {
        // SAFETY: the names are passed on as received.
        check(unsafe { nc_rename_att(ncid, varid, name, newname) })?;
        Ok(1)
    })
}

/// Returns 1.
///
/// # Safety
/// `name` must be NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattdel(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    v2_call(c"ncattdel", ncid_message(ncid), || {
        // SAFETY: `name` is passed on as received.
        check(unsafe { nc_del_att(ncid, varid, name) })?;
        Ok(1)
    })
}
