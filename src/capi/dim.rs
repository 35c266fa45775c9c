//! Dimensions.

// Unsafe blocks here only dereference, or pass on, the enclosing C
// function's own pointer arguments, as its `# Safety` section says the
// caller guarantees: that section is their SAFETY comment (policy in
// src/capi/mod.rs). Blocks doing more carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "caller pointers, per each function's # Safety section")]

use std::ffi::{c_char, c_int};

use super::{c_bytes, c_str, guard, put, put_name, put_slice};
use crate::codec::callback;
use crate::error::NcError;
use crate::registry;

/// # Safety
/// `name` must be a C string; `idp` NULL or writable.
pub unsafe extern "C" fn nc_def_dim(ncid: c_int, name: *const c_char, len: usize, idp: *mut c_int) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { c_bytes(name) }?;
        let id = registry::with(ncid, |ds, grp| ds.model.def_dim(grp, name, len))?;
        unsafe { put(idp, id as c_int) };
        Ok(())
    })
}

/// Find a dimension visible from a group (its own or an ancestor's), or by
/// fully qualified name.
///
/// # Safety
/// `name` must be a C string; `idp` NULL or writable.
pub unsafe extern "C" fn nc_inq_dimid(ncid: c_int, name: *const c_char, idp: *mut c_int) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { c_str(name, NcError::EBADDIM) }?;
        let id = registry::with(ncid, |ds, grp| ds.model.find_dim(grp, name))?;
        unsafe { put(idp, id as c_int) };
        Ok(())
    })
}

/// # Safety
/// `name` NULL or room for NC_MAX_NAME + 1 bytes; `lenp` NULL or writable.
pub unsafe extern "C" fn nc_inq_dim(ncid: c_int, dimid: c_int, name: *mut c_char, lenp: *mut usize) -> c_int {
    guard(|| {
        // A filter plugin asking about a dimension of the variable being
        // set up.
        if let Some((dim_name, len)) = callback::lookup_dim(ncid, dimid) {
            unsafe {
                put_name(name, &dim_name);
                put(lenp, len);
            }
            return Ok(());
        }
        registry::with(ncid, |ds, _| {
            let dim = ds.model.dim(dimid)?;
            unsafe {
                put_name(name, &dim.name);
                put(lenp, dim.len);
            }
            Ok(())
        })
    })
}

/// # Safety
/// `name` NULL or room for NC_MAX_NAME + 1 bytes.
pub unsafe extern "C" fn nc_inq_dimname(ncid: c_int, dimid: c_int, name: *mut c_char) -> c_int {
    unsafe { nc_inq_dim(ncid, dimid, name, std::ptr::null_mut()) }
}

/// # Safety
/// `lenp` NULL or writable.
pub unsafe extern "C" fn nc_inq_dimlen(ncid: c_int, dimid: c_int, lenp: *mut usize) -> c_int {
    unsafe { nc_inq_dim(ncid, dimid, std::ptr::null_mut(), lenp) }
}

/// # Safety
/// `name` must be a C string.
pub unsafe extern "C" fn nc_rename_dim(ncid: c_int, dimid: c_int, name: *const c_char) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { c_bytes(name) }?;
        registry::with(ncid, |ds, grp| ds.model.rename_dim(grp, dimid, name))
    })
}

/// The dimensions of a group, optionally with its ancestors', in id order.
///
/// # Safety
/// `ndims` NULL or writable; `dimids` NULL or room for them all.
pub unsafe extern "C" fn nc_inq_dimids(
    ncid: c_int,
    ndims: *mut c_int,
    dimids: *mut c_int,
    include_parents: c_int,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let groups = if include_parents != 0 { ds.model.ancestry(grp) } else { vec![grp] };
            let mut ids: Vec<c_int> =
                groups.iter().flat_map(|&g| ds.model.groups[g].dims.iter().map(|&d| d as c_int)).collect();
            ids.sort_unstable();
            unsafe {
                put(ndims, ids.len() as c_int);
                put_slice(dimids, &ids);
            }
            Ok(())
        })
    })
}

/// [`nc_inq_dimids`] with Fortran's 1-based ids (declared in netcdf_f.h).
///
/// # Safety
/// As [`nc_inq_dimids`].
pub unsafe extern "C" fn nc_inq_dimids_f(ncid: c_int, ndims: *mut c_int, fdimids: *mut c_int, parent: c_int) -> c_int {
    let mut n: c_int = 0;
    let status = unsafe { nc_inq_dimids(ncid, &mut n, fdimids, parent) };
    if status == 0 {
        unsafe {
            super::to_fortran_ids(fdimids, n);
            put(ndims, n);
        }
    }
    status
}
