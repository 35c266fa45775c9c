//! Variables: definition, inquiry and per-variable storage settings.

// Unsafe blocks here only dereference, or pass on, the enclosing C
// function's own pointer arguments, as its `# Safety` section says the
// caller guarantees: that section is their SAFETY comment (policy in
// src/capi/mod.rs). Blocks doing more carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "caller pointers, per each function's # Safety section")]

use std::ffi::{c_char, c_int, c_void};

use super::{c_bytes, c_str, guard, put, put_name, put_slice, read_array};
use crate::codec::callback;
use crate::error::NcError;
use crate::model::{NC_CHUNKED, NC_MAX_VAR_DIMS, Values};
use crate::registry;
use crate::types::NC_STRING;

/// # Safety
/// `name` must be a C string, `dimidsp` hold `ndims` ids, `varidp` NULL or
/// writable.
pub unsafe extern "C" fn nc_def_var(
    ncid: c_int,
    name: *const c_char,
    xtype: c_int,
    ndims: c_int,
    dimidsp: *const c_int,
    varidp: *mut c_int,
) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { c_bytes(name) }?;
        let ndims = usize::try_from(ndims).map_err(|_| NcError::EINVAL)?;
        if ndims > NC_MAX_VAR_DIMS {
            return Err(NcError::EMAXDIMS);
        }
        let dimids = unsafe { read_array(dimidsp, ndims) }?;
        let varid = registry::with(ncid, |ds, grp| ds.model.def_var(grp, name, xtype, &dimids))?;
        unsafe { put(varidp, varid as c_int) };
        Ok(())
    })
}

/// # Safety
/// `name` must be a C string; `varidp` NULL or writable.
pub unsafe extern "C" fn nc_inq_varid(ncid: c_int, name: *const c_char, varidp: *mut c_int) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { c_str(name, NcError::ENOTVAR) }?;
        let varid = registry::with(ncid, |ds, grp| ds.model.find_var(grp, name))?;
        unsafe { put(varidp, varid as c_int) };
        Ok(())
    })
}

/// # Safety
/// Every pointer must be NULL or writable (`name`: NC_MAX_NAME + 1 bytes,
/// `dimidsp`: one int per dimension).
pub unsafe extern "C" fn nc_inq_var(
    ncid: c_int,
    varid: c_int,
    name: *mut c_char,
    xtypep: *mut c_int,
    ndimsp: *mut c_int,
    dimidsp: *mut c_int,
    nattsp: *mut c_int,
) -> c_int {
    guard(|| {
        // A filter plugin asking about the variable being set up.
        if let Some(info) = callback::lookup(ncid, varid) {
            unsafe {
                put_name(name, &info.name);
                put(xtypep, info.xtype);
                put(ndimsp, info.dimids.len() as c_int);
                put_slice(dimidsp, &info.dimids);
                put(nattsp, info.natts);
            }
            return Ok(());
        }
        registry::with(ncid, |ds, grp| {
            let var = ds.model.var(grp, varid)?;
            let dimids: Vec<c_int> = var.dimids.iter().map(|&d| d as c_int).collect();
            unsafe {
                put_name(name, &var.name);
                put(xtypep, var.xtype);
                put(ndimsp, dimids.len() as c_int);
                put_slice(dimidsp, &dimids);
                put(nattsp, var.atts.len() as c_int);
            }
            Ok(())
        })
    })
}

/// # Safety
/// `name` NULL or NC_MAX_NAME + 1 bytes.
pub unsafe extern "C" fn nc_inq_varname(ncid: c_int, varid: c_int, name: *mut c_char) -> c_int {
    let null = std::ptr::null_mut();
    unsafe { nc_inq_var(ncid, varid, name, null, null, null, null) }
}

/// # Safety
/// `xtypep` NULL or writable.
pub unsafe extern "C" fn nc_inq_vartype(ncid: c_int, varid: c_int, xtypep: *mut c_int) -> c_int {
    let null = std::ptr::null_mut();
    unsafe { nc_inq_var(ncid, varid, std::ptr::null_mut(), xtypep, null, null, null) }
}

/// # Safety
/// `ndimsp` NULL or writable.
pub unsafe extern "C" fn nc_inq_varndims(ncid: c_int, varid: c_int, ndimsp: *mut c_int) -> c_int {
    let null = std::ptr::null_mut();
    unsafe { nc_inq_var(ncid, varid, std::ptr::null_mut(), null, ndimsp, null, null) }
}

/// # Safety
/// `dimidsp` NULL or room for one int per dimension.
pub unsafe extern "C" fn nc_inq_vardimid(ncid: c_int, varid: c_int, dimidsp: *mut c_int) -> c_int {
    let null = std::ptr::null_mut();
    unsafe { nc_inq_var(ncid, varid, std::ptr::null_mut(), null, null, dimidsp, null) }
}

/// # Safety
/// `nattsp` NULL or writable.
pub unsafe extern "C" fn nc_inq_varnatts(ncid: c_int, varid: c_int, nattsp: *mut c_int) -> c_int {
    // As netcdf-c: NC_GLOBAL counts the group's attributes (nccopy asks).
    if varid == crate::model::NC_GLOBAL {
        return unsafe { crate::capi::file::nc_inq_natts(ncid, nattsp) };
    }
    let null = std::ptr::null_mut();
    unsafe { nc_inq_var(ncid, varid, std::ptr::null_mut(), null, null, null, nattsp) }
}

/// The variable ids of a group (0..n-1).
///
/// # Safety
/// `nvars` NULL or writable; `varids` NULL or room for them all.
pub unsafe extern "C" fn nc_inq_varids(ncid: c_int, nvars: *mut c_int, varids: *mut c_int) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let ids: Vec<c_int> = (0..ds.model.groups[grp].vars.len() as c_int).collect();
            unsafe {
                put(nvars, ids.len() as c_int);
                put_slice(varids, &ids);
            }
            Ok(())
        })
    })
}

/// # Safety
/// `name` must be a C string.
pub unsafe extern "C" fn nc_rename_var(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { c_bytes(name) }?;
        registry::with(ncid, |ds, grp| ds.rename_var(grp, varid, name))
    })
}

/// # Safety
/// `chunksizesp` NULL or one size per dimension.
pub unsafe extern "C" fn nc_def_var_chunking(
    ncid: c_int,
    varid: c_int,
    storage: c_int,
    chunksizesp: *const usize,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let ndims = ds.model.var(grp, varid)?.dimids.len();
            let chunks = if chunksizesp.is_null() { None } else { Some(unsafe { read_array(chunksizesp, ndims) }?) };
            ds.model.def_var_chunking(grp, varid, storage, chunks.as_deref())
        })
    })
}

/// `nc_def_var_chunking` with int chunk sizes (netcdf_f.h, for Fortran).
///
/// # Safety
/// `chunksizesp` NULL or one int per dimension.
pub unsafe extern "C" fn nc_def_var_chunking_ints(
    ncid: c_int,
    varid: c_int,
    contiguous: c_int,
    chunksizesp: *mut c_int,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let ndims = ds.model.var(grp, varid)?.dimids.len();
            let chunks = if chunksizesp.is_null() {
                None
            } else {
                let ints = unsafe { read_array(chunksizesp as *const c_int, ndims) }?;
                let sizes = ints.iter().map(|&c| usize::try_from(c).map_err(|_| NcError::EINVAL));
                Some(sizes.collect::<Result<Vec<_>, _>>()?)
            };
            ds.model.def_var_chunking(grp, varid, contiguous, chunks.as_deref())
        })
    })
}

/// `nc_inq_var_chunking` with int chunk sizes (netcdf_f.h, for Fortran).
///
/// # Safety
/// `contiguousp` NULL or writable; `chunksizesp` NULL or one int per dimension.
pub unsafe extern "C" fn nc_inq_var_chunking_ints(
    ncid: c_int,
    varid: c_int,
    contiguousp: *mut c_int,
    chunksizesp: *mut c_int,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let var = ds.model.var(grp, varid)?;
            let chunks = var.chunks.iter().map(|&c| c_int::try_from(c).map_err(|_| NcError::ERANGE));
            let chunks = chunks.collect::<Result<Vec<_>, _>>()?;
            unsafe {
                put(contiguousp, NC_CHUNKED);
                put_slice(chunksizesp, &chunks);
            }
            Ok(())
        })
    })
}

/// Every variable is stored chunked (contiguous requests become one chunk),
/// so this reports NC_CHUNKED and the chunk shape, as netcdf-c's NCZarr does.
///
/// # Safety
/// `storagep` NULL or writable; `chunksizesp` NULL or one size per dimension.
pub unsafe extern "C" fn nc_inq_var_chunking(
    ncid: c_int,
    varid: c_int,
    storagep: *mut c_int,
    chunksizesp: *mut usize,
) -> c_int {
    guard(|| {
        let chunks = match callback::lookup(ncid, varid) {
            Some(info) => info.chunks,
            None => registry::with(ncid, |ds, grp| Ok(ds.model.var(grp, varid)?.chunks.clone()))?,
        };
        unsafe {
            put(storagep, NC_CHUNKED);
            put_slice(chunksizesp, &chunks);
        }
        Ok(())
    })
}

/// Set fill mode and value of a variable; `fill_value` points to one value
/// of the variable's type (a `char*` for NC_STRING).
///
/// # Safety
/// `fill_value` NULL or valid for one value of the variable's type.
pub unsafe extern "C" fn nc_def_var_fill(
    ncid: c_int,
    varid: c_int,
    no_fill: c_int,
    fill_value: *const c_void,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let xtype = ds.model.var(grp, varid)?.xtype;
            let fill =
                if fill_value.is_null() { None } else { Some(unsafe { Values::read_from_c(xtype, fill_value, 1) }?) };
            ds.model.def_var_fill(grp, varid, no_fill != 0, fill)
        })
    })
}

/// The fill mode and the fill value in effect (the type's default unless
/// one was set). For NC_STRING the value is a new string the caller frees.
/// A variable whose stored fill value is unreadable answers as its data
/// does (a variable of an unsupported dtype reports its stand-in's fill).
///
/// # Safety
/// `no_fill` NULL or writable; `fill_valuep` NULL or room for one value.
pub unsafe extern "C" fn nc_inq_var_fill(
    ncid: c_int,
    varid: c_int,
    no_fill: *mut c_int,
    fill_valuep: *mut c_void,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let var = ds.model.var(grp, varid)?;
            if let Some(e) = var.data_error.filter(|&e| e != NcError::EBADTYPE) {
                return Err(e);
            }
            unsafe { put(no_fill, var.no_fill as c_int) };
            if !fill_valuep.is_null() {
                let mut fill = ds.model.effective_fill(var)?;
                if var.xtype == NC_STRING
                    && let Values::String(s) = &mut fill
                {
                    s.truncate(1);
                }
                unsafe { fill.write_to_c(fill_valuep) }?;
            }
            Ok(())
        })
    })
}

pub extern "C" fn nc_def_var_endian(ncid: c_int, varid: c_int, endian: c_int) -> c_int {
    guard(|| registry::with(ncid, |ds, grp| ds.model.def_var_endian(grp, varid, endian)))
}

/// # Safety
/// `endianp` NULL or writable.
pub unsafe extern "C" fn nc_inq_var_endian(ncid: c_int, varid: c_int, endianp: *mut c_int) -> c_int {
    guard(|| {
        // A filter plugin asking about the variable being set up.
        if let Some(info) = callback::lookup(ncid, varid) {
            unsafe { put(endianp, info.endianness) };
            return Ok(());
        }
        registry::with(ncid, |ds, grp| {
            let var = ds.model.var(grp, varid)?;
            unsafe { put(endianp, var.endianness) };
            Ok(())
        })
    })
}

/// Copy a variable (definition, attributes and data) into another dataset,
/// whose dimensions of the same names it uses, as netcdf-c's `nc_copy_var`.
pub extern "C" fn nc_copy_var(ncid_in: c_int, varid: c_int, ncid_out: c_int) -> c_int {
    guard(|| {
        let (name, xtype, dim_names, atts, shape) = registry::with(ncid_in, |ds, grp| {
            let var = ds.model.var(grp, varid)?;
            let dims: Vec<String> = var.dimids.iter().map(|&d| ds.model.dims[d].name.clone()).collect();
            let shape: Vec<usize> = var.dimids.iter().map(|&d| ds.model.dims[d].len).collect();
            Ok((var.name.clone(), var.xtype, dims, var.atts.clone(), shape))
        })?;
        // The whole variable passes through memory: one that does not fit
        // (or whose size does not even fit a size_t) is NC_ENOMEM, checked
        // before anything is defined in the output.
        let size = crate::types::type_size(xtype)?;
        let nelems = shape.iter().try_fold(1usize, |p, &n| p.checked_mul(n)).ok_or(NcError::ENOMEM)?;
        let mut buf = crate::buffers::zeroed(nelems.max(1).checked_mul(size).ok_or(NcError::ENOMEM)?)?;
        let new_varid = registry::with(ncid_out, |ds, grp| {
            let dimids = dim_names
                .iter()
                .map(|n| ds.model.find_dim(grp, n).map(|d| d as c_int))
                .collect::<Result<Vec<_>, _>>()?;
            let v = ds.model.def_var(grp, name.as_bytes(), xtype, &dimids)? as c_int;
            for att in &atts {
                crate::model::attrs::put_att(&mut ds.model, grp, v, att.name.as_bytes(), att.values.clone())?;
            }
            Ok(v)
        })?;
        // The data, whole, in the variable's own type; the input's shape
        // (not the output's) so records extend the output's dimensions.
        let start = vec![0usize; shape.len()];
        let (s, c) = (start.as_ptr(), shape.as_ptr());
        let status = unsafe { super::data_typed::nc_get_vara(ncid_in, varid, s, c, buf.as_mut_ptr() as *mut c_void) };
        if status != 0 {
            return Err(NcError(status));
        }
        let status =
            unsafe { super::data_typed::nc_put_vara(ncid_out, new_varid, s, c, buf.as_ptr() as *const c_void) };
        if xtype == NC_STRING {
            let strings = buf.as_mut_ptr() as *mut *mut c_char;
            unsafe { super::file::nc_free_string(nelems, strings) };
        }
        if status != 0 { Err(NcError(status)) } else { Ok(()) }
    })
}

/// [`nc_inq_varids`] with Fortran's 1-based ids (declared in netcdf_f.h).
///
/// # Safety
/// As [`nc_inq_varids`].
pub unsafe extern "C" fn nc_inq_varids_f(ncid: c_int, nvars: *mut c_int, fvarids: *mut c_int) -> c_int {
    let mut n: c_int = 0;
    let status = unsafe { nc_inq_varids(ncid, &mut n, fvarids) };
    if status == 0 {
        unsafe {
            super::to_fortran_ids(fvarids, n);
            put(nvars, n);
        }
    }
    status
}
