//! v2 variable data: one value, a hyperslab, a strided and a mapped
//! hyperslab, all in the variable's own type (the untyped nc_put_vara and
//! relatives).

use std::ffi::{c_int, c_long, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::{check, ncid_message, nctypelen, v2_call};
use crate::capi::api::{
    nc_get_var1, nc_get_vara, nc_get_varm, nc_get_vars, nc_put_var1, nc_put_vara, nc_put_varm, nc_put_vars,
};
use crate::capi::api::{nc_inq_varndims, nc_inq_vartype};
use crate::capi::read_array;
use crate::error::code::NC_EINTERNAL;

// v2 index, start, count and stride arrays are C longs. On the LP64
// targets this crate builds for, a long has the size and representation of
// size_t and ptrdiff_t, so netcdf-c hands these arrays on unconverted (a
// NULL stays NULL; a negative start becomes a huge index, refused as
// NC_EINVALCOORDS). So do we, by reinterpreting the pointer.
const _: () = assert!(size_of::<c_long>() == size_of::<usize>());

fn as_sizes(p: *const c_long) -> *const usize {
    p.cast()
}

fn as_strides(p: *const c_long) -> *const isize {
    p.cast()
}

/// Returns 0.
///
/// # Safety
/// `index` NULL or one long per dimension; `value` one value of the
/// variable's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarput1(ncid: c_int, varid: c_int, index: *const c_long, value: *const c_void) -> c_int {
    v2_call(c"ncvarput1", ncid_message(ncid), || {
        // SAFETY: the caller's arrays are passed on as received.
        check(unsafe { nc_put_var1(ncid, varid, as_sizes(index), value) })?;
        Ok(0)
    })
}

/// Returns 0. Failures are reported as coming from "ncdimid": netcdf-c
/// names that routine here, and programs may match the text.
///
/// # Safety
/// `index` NULL or one long per dimension; `value` room for one value of
/// the variable's type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarget1(ncid: c_int, varid: c_int, index: *const c_long, value: *mut c_void) -> c_int {
    v2_call(c"ncdimid", ncid_message(ncid), || {
        // SAFETY: the caller's arrays are passed on as received.
        check(unsafe { nc_get_var1(ncid, varid, as_sizes(index), value) })?;
        Ok(0)
    })
}

/// Returns 0.
///
/// # Safety
/// `start` and `count` NULL or one long per dimension; `value` holds the
/// hyperslab's values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarput(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    value: *const c_void,
) -> c_int {
    v2_call(c"ncvarput", ncid_message(ncid), || {
        // SAFETY: the caller's arrays are passed on as received.
        check(unsafe { nc_put_vara(ncid, varid, as_sizes(start), as_sizes(count), value) })?;
        Ok(0)
    })
}

/// Returns 0. Its failure message also names the variable.
///
/// # Safety
/// `start` and `count` NULL or one long per dimension; `value` room for
/// the hyperslab's values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarget(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    value: *mut c_void,
) -> c_int {
    let message = move || format!("ncid {ncid}; varid {varid}").into_bytes();
    v2_call(c"ncvarget", message, || {
        // SAFETY: the caller's arrays are passed on as received.
        check(unsafe { nc_get_vara(ncid, varid, as_sizes(start), as_sizes(count), value) })?;
        Ok(0)
    })
}

/// Returns 0. Without a stride this is ncvarput (failures then report
/// "ncvarput", as in netcdf-c).
///
/// # Safety
/// As [`ncvarput`]; `stride` NULL or one long per dimension.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarputs(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    stride: *const c_long,
    value: *const c_void,
) -> c_int {
    if stride.is_null() {
        // SAFETY: the caller's pointers are passed on as received.
        return unsafe { ncvarput(ncid, varid, start, count, value) };
    }
    v2_call(c"ncvarputs", ncid_message(ncid), || {
        // SAFETY: the caller's arrays are passed on as received.
        check(unsafe { nc_put_vars(ncid, varid, as_sizes(start), as_sizes(count), as_strides(stride), value) })?;
        Ok(0)
    })
}

/// Returns 0. Without a stride this is ncvarget.
///
/// # Safety
/// As [`ncvarget`]; `stride` NULL or one long per dimension.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvargets(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    stride: *const c_long,
    value: *mut c_void,
) -> c_int {
    if stride.is_null() {
        // SAFETY: the caller's pointers are passed on as received.
        return unsafe { ncvarget(ncid, varid, start, count, value) };
    }
    v2_call(c"ncvargets", ncid_message(ncid), || {
        // SAFETY: the caller's arrays are passed on as received.
        check(unsafe { nc_get_vars(ncid, varid, as_sizes(start), as_sizes(count), as_strides(stride), value) })?;
        Ok(0)
    })
}

/// A v2 map, in bytes, as nc_*_varm's map in elements of the variable's
/// type (each entry divided by nctypelen, truncating as C does).
///
/// On failure this is the bare status: netcdf-c's ncvarputg and ncvargetg
/// return a failed variable lookup's status as is, unreported, instead of
/// -1, and so do ours.
///
/// # Safety
/// `map` must point to one long per dimension of the variable.
unsafe fn element_map(ncid: c_int, varid: c_int, map: *const c_long) -> Result<Vec<isize>, c_int> {
    let (mut ndims, mut xtype) = (0, 0);
    // SAFETY: both go to locals.
    check(unsafe { nc_inq_varndims(ncid, varid, &mut ndims) })?;
    // SAFETY: as above.
    check(unsafe { nc_inq_vartype(ncid, varid, &mut xtype) })?;
    let element_size = nctypelen(xtype) as isize;
    let convert = || {
        // SAFETY: `map` holds one long per dimension, as the caller promises.
        let bytes = unsafe { read_array(map, ndims as usize) }.map_err(|e| e.0)?;
        Ok(bytes.iter().map(|&b| b as isize / element_size).collect())
    };
    catch_unwind(AssertUnwindSafe(convert)).unwrap_or(Err(NC_EINTERNAL))
}

/// Returns 0. `map` is in bytes (v2's convention); without one this is
/// ncvarputs. A variable lookup failure is returned as its bare status
/// (see [`element_map`]).
///
/// # Safety
/// As [`ncvarputs`]; `map` NULL or one long per dimension; `value` holds
/// the values where the map places them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarputg(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    stride: *const c_long,
    map: *const c_long,
    value: *const c_void,
) -> c_int {
    if map.is_null() {
        // SAFETY: the caller's pointers are passed on as received.
        return unsafe { ncvarputs(ncid, varid, start, count, stride, value) };
    }
    // SAFETY: `map` is non-NULL and, as the caller promises, one long per
    // dimension.
    let imap = match unsafe { element_map(ncid, varid, map) } {
        Ok(imap) => imap,
        Err(status) => return status,
    };
    v2_call(c"ncvarputg", ncid_message(ncid), || {
        let (start, count, stride) = (as_sizes(start), as_sizes(count), as_strides(stride));
        // SAFETY: the caller's arrays are passed on as received; `imap`
        // has one entry per dimension (a dangling but non-NULL pointer
        // for none, as netcdf-c's malloc(0)).
        check(unsafe { nc_put_varm(ncid, varid, start, count, stride, imap.as_ptr(), value) })?;
        Ok(0)
    })
}

/// Returns 0. As [`ncvarputg`], reading.
///
/// # Safety
/// As [`ncvargets`]; `map` NULL or one long per dimension; `value` has
/// room for the values where the map places them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvargetg(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    stride: *const c_long,
    map: *const c_long,
    value: *mut c_void,
) -> c_int {
    if map.is_null() {
        // SAFETY: the caller's pointers are passed on as received.
        return unsafe { ncvargets(ncid, varid, start, count, stride, value) };
    }
    // SAFETY: as in ncvarputg.
    let imap = match unsafe { element_map(ncid, varid, map) } {
        Ok(imap) => imap,
        Err(status) => return status,
    };
    v2_call(c"ncvargetg", ncid_message(ncid), || {
        let (start, count, stride) = (as_sizes(start), as_sizes(count), as_strides(stride));
        // SAFETY: as in ncvarputg.
        check(unsafe { nc_get_varm(ncid, varid, start, count, stride, imap.as_ptr(), value) })?;
        Ok(0)
    })
}
