//! v2 records: the record variables are those whose first dimension is
//! the (first) unlimited dimension, in varid order; record `n` is the
//! slab of each of them at index `n` of that dimension, spanning their
//! other dimensions whole. (netcdf-c's nc_inq_rec, nc_get_rec and
//! nc_put_rec, which its header does not declare, do the work there.)

use std::ffi::{c_int, c_long, c_void};

use super::{check, ncid_message, nctypelen, v2_call};
use crate::capi::api::nc_inq_dimlen;
use crate::capi::api::{nc_get_vara, nc_put_vara};
use crate::capi::api::{nc_inq_nvars, nc_inq_unlimdim};
use crate::capi::api::{nc_inq_vardimid, nc_inq_varndims, nc_inq_vartype};
use crate::capi::{put, put_slice};
use crate::error::code::NC_EINVAL;

/// The dimension ids of a variable.
fn var_dimids(ncid: c_int, varid: c_int) -> Result<Vec<c_int>, c_int> {
    let mut ndims = 0;
    // SAFETY: `ndims` is a local.
    check(unsafe { nc_inq_varndims(ncid, varid, &mut ndims) })?;
    let mut dimids = vec![0; ndims.max(0) as usize];
    // SAFETY: `dimids` has room for every dimension id.
    check(unsafe { nc_inq_vardimid(ncid, varid, dimids.as_mut_ptr()) })?;
    Ok(dimids)
}

fn dim_len(ncid: c_int, dimid: c_int) -> Result<usize, c_int> {
    let mut len = 0;
    // SAFETY: `len` is a local.
    check(unsafe { nc_inq_dimlen(ncid, dimid, &mut len) })?;
    Ok(len)
}

/// The record variables' ids; none when there is no unlimited dimension.
fn record_varids(ncid: c_int) -> Result<Vec<c_int>, c_int> {
    let (mut nvars, mut recdim) = (0, -1);
    // SAFETY: both go to locals.
    check(unsafe { nc_inq_nvars(ncid, &mut nvars) })?;
    // SAFETY: as above.
    check(unsafe { nc_inq_unlimdim(ncid, &mut recdim) })?;
    if recdim == -1 {
        return Ok(Vec::new());
    }
    let mut ids = Vec::new();
    for varid in 0..nvars {
        if var_dimids(ncid, varid)?.first() == Some(&recdim) {
            ids.push(varid);
        }
    }
    Ok(ids)
}

/// Bytes in one record of a record variable: its type's size times the
/// lengths of its other dimensions, in C int arithmetic as netcdf-c
/// computes it (so it wraps past INT_MAX).
fn record_size(ncid: c_int, varid: c_int) -> Result<c_int, c_int> {
    let mut xtype = 0;
    // SAFETY: `xtype` is a local.
    check(unsafe { nc_inq_vartype(ncid, varid, &mut xtype) })?;
    let mut size = nctypelen(xtype);
    for &dimid in var_dimids(ncid, varid)?.iter().skip(1) {
        size = size.wrapping_mul(dim_len(ncid, dimid)? as c_int);
    }
    Ok(size)
}

/// Returns the number of record variables.
///
/// # Safety
/// `nrecvars` NULL or writable; `recvarids` and `recsizes` NULL or room for
/// one entry per record variable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncrecinq(
    ncid: c_int,
    nrecvars: *mut c_int,
    recvarids: *mut c_int,
    recsizes: *mut c_long,
) -> c_int {
    v2_call(c"ncrecinq", ncid_message(ncid), || {
        let ids = record_varids(ncid)?;
        // SAFETY: `recvarids` is NULL or has room for every id. netcdf-c
        // too writes the ids before working out the sizes.
        unsafe { put_slice(recvarids, &ids) };
        let sizes =
            ids.iter().map(|&varid| record_size(ncid, varid).map(c_long::from)).collect::<Result<Vec<_>, _>>()?;
        // SAFETY: the caller's pointers are NULL or have room enough.
        unsafe {
            put(nrecvars, ids.len() as c_int);
            put_slice(recsizes, &sizes);
        }
        Ok(ids.len() as c_int)
    })
}

/// Where record `recnum` of a record variable lies: the start and count
/// of its one-record hyperslab.
fn record_slab(ncid: c_int, varid: c_int, recnum: usize) -> Result<(Vec<usize>, Vec<usize>), c_int> {
    let mut count = var_dimids(ncid, varid)?.iter().map(|&d| dim_len(ncid, d)).collect::<Result<Vec<_>, _>>()?;
    let mut start = vec![0; count.len()];
    // Record variables have at least the record dimension.
    start[0] = recnum;
    count[0] = 1;
    Ok((start, count))
}

/// The untyped nc_get_vara, or nc_put_vara behind [`put_slab`] (which
/// takes its data pointer as `*mut` for the shared signature).
type SlabIo = unsafe extern "C" fn(c_int, c_int, *const usize, *const usize, *mut c_void) -> c_int;

/// Move record `recnum` of every record variable whose entry in `datap`
/// (one per record variable, in order) is not NULL.
///
/// # Safety
/// `datap` must be NULL or hold one pointer per record variable, each
/// NULL or valid for that variable's record.
unsafe fn move_record(ncid: c_int, recnum: c_long, datap: *const *mut c_void, io: SlabIo) -> Result<c_int, c_int> {
    let ids = record_varids(ncid)?;
    if ids.is_empty() {
        return Ok(0);
    }
    // netcdf-c would crash on a NULL table; we refuse it.
    if datap.is_null() {
        return Err(NC_EINVAL);
    }
    for (i, &varid) in ids.iter().enumerate() {
        // SAFETY: `datap` has one entry per record variable.
        let data = unsafe { datap.add(i).read() };
        if data.is_null() {
            continue;
        }
        // A negative record number becomes a huge index, as C's cast makes
        // it, which the read or write refuses.
        let (start, count) = record_slab(ncid, varid, recnum as usize)?;
        // SAFETY: start and count have one entry per dimension; `data` is
        // valid for one record, as the caller promises.
        check(unsafe { io(ncid, varid, start.as_ptr(), count.as_ptr(), data) })?;
    }
    Ok(0)
}

/// The untyped nc_put_vara in the shape of [`SlabIo`].
unsafe extern "C" fn put_slab(
    ncid: c_int,
    varid: c_int,
    start: *const usize,
    count: *const usize,
    data: *mut c_void,
) -> c_int {
    // SAFETY: the caller's promises are nc_put_vara's.
    unsafe { nc_put_vara(ncid, varid, start, count, data) }
}

/// Returns 0.
///
/// # Safety
/// `datap` NULL or one pointer per record variable, each NULL (skip that
/// variable) or holding one record of it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncrecput(ncid: c_int, recnum: c_long, datap: *const *mut c_void) -> c_int {
    // SAFETY: `datap` is as move_record requires.
    v2_call(c"ncrecput", ncid_message(ncid), || unsafe { move_record(ncid, recnum, datap, put_slab) })
}

/// Returns 0.
///
/// # Safety
/// `datap` NULL or one pointer per record variable, each NULL (skip that
/// variable) or with room for one record of it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncrecget(ncid: c_int, recnum: c_long, datap: *mut *mut c_void) -> c_int {
    // SAFETY: `datap` is as move_record requires.
    v2_call(c"ncrecget", ncid_message(ncid), || unsafe { move_record(ncid, recnum, datap, nc_get_vara) })
}
