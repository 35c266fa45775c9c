//! Groups.

// Unsafe blocks here only dereference, or pass on, the enclosing C
// function's own pointer arguments, as its `# Safety` section says the
// caller guarantees: that section is their SAFETY comment (policy in
// src/capi/mod.rs). Blocks doing more carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "caller pointers, per each function's # Safety section")]

use std::ffi::{c_char, c_int};

use super::{c_bytes, c_str, guard, put, put_name, put_slice};
use crate::error::NcError;
use crate::registry::{self, ncid_of};

/// # Safety
/// `name` must be a C string; `new_ncid` NULL or writable.
pub unsafe extern "C" fn nc_def_grp(parent_ncid: c_int, name: *const c_char, new_ncid: *mut c_int) -> c_int {
    guard(|| {
        super::file::check_id(parent_ncid)?;
        let name = unsafe { c_bytes(name) }?;
        let g = registry::with(parent_ncid, |ds, grp| ds.model.def_grp(grp, name))?;
        unsafe { put(new_ncid, ncid_of(parent_ncid, g)) };
        Ok(())
    })
}

/// # Safety
/// `name` must be a C string.
pub unsafe extern "C" fn nc_rename_grp(grpid: c_int, name: *const c_char) -> c_int {
    guard(|| {
        super::file::check_id(grpid)?;
        let name = unsafe { c_bytes(name) }?;
        registry::with(grpid, |ds, grp| ds.rename_grp(grp, name))
    })
}

/// The child groups of a group.
///
/// # Safety
/// `numgrps` NULL or writable; `ncids` NULL or room for them all.
pub unsafe extern "C" fn nc_inq_grps(ncid: c_int, numgrps: *mut c_int, ncids: *mut c_int) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let ids: Vec<c_int> = ds.model.groups[grp].children.iter().map(|&c| ncid_of(ncid, c)).collect();
            unsafe {
                put(numgrps, ids.len() as c_int);
                put_slice(ncids, &ids);
            }
            Ok(())
        })
    })
}

/// The group's own name ("/" for the root).
///
/// # Safety
/// `name` NULL or room for NC_MAX_NAME + 1 bytes.
pub unsafe extern "C" fn nc_inq_grpname(ncid: c_int, name: *mut c_char) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            unsafe { put_name(name, &ds.model.groups[grp].name) };
            Ok(())
        })
    })
}

/// The group's full path ("/a/b").
///
/// # Safety
/// `lenp` NULL or writable; `full_name` NULL or room for the path plus NUL.
pub unsafe extern "C" fn nc_inq_grpname_full(ncid: c_int, lenp: *mut usize, full_name: *mut c_char) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let full = ds.model.group_full_name(grp);
            unsafe {
                put(lenp, full.len());
                put_name(full_name, &full);
            }
            Ok(())
        })
    })
}

/// # Safety
/// `lenp` NULL or writable.
pub unsafe extern "C" fn nc_inq_grpname_len(ncid: c_int, lenp: *mut usize) -> c_int {
    unsafe { nc_inq_grpname_full(ncid, lenp, std::ptr::null_mut()) }
}

/// The parent group; the root has none (NC_ENOGRP).
///
/// # Safety
/// `parent_ncid` NULL or writable.
pub unsafe extern "C" fn nc_inq_grp_parent(ncid: c_int, parent_ncid: *mut c_int) -> c_int {
    guard(|| {
        let parent = registry::with(ncid, |ds, grp| ds.model.groups[grp].parent.ok_or(NcError::ENOGRP))?;
        unsafe { put(parent_ncid, ncid_of(ncid, parent)) };
        Ok(())
    })
}

/// A child group by name; a NULL name gives the root group.
///
/// # Safety
/// `name` must be NULL or a C string; `grp_ncid` NULL or writable.
pub unsafe extern "C" fn nc_inq_ncid(ncid: c_int, name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    guard(|| {
        if name.is_null() {
            // netcdf-c: a NULL name asks for the root group (ncdump does).
            registry::with(ncid, |_, _| Ok(()))?;
            unsafe { put(grp_ncid, ncid_of(ncid, 0)) };
            return Ok(());
        }
        let name = unsafe { c_str(name, NcError::ENOGRP) }?;
        let child = registry::with(ncid, |ds, grp| ds.model.find_child(grp, name).ok_or(NcError::ENOGRP))?;
        unsafe { put(grp_ncid, ncid_of(ncid, child)) };
        Ok(())
    })
}

/// Same as [`nc_inq_ncid`].
///
/// # Safety
/// As [`nc_inq_ncid`].
pub unsafe extern "C" fn nc_inq_grp_ncid(ncid: c_int, grp_name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    unsafe { nc_inq_ncid(ncid, grp_name, grp_ncid) }
}

/// A group by path: absolute ("/a/b") from the root, otherwise relative
/// to `ncid`.
///
/// # Safety
/// `full_name` must be a C string; `grp_ncid` NULL or writable.
pub unsafe extern "C" fn nc_inq_grp_full_ncid(ncid: c_int, full_name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let path = unsafe { c_str(full_name, NcError::ENOGRP) }?;
        let g = registry::with(ncid, |ds, grp| {
            let mut g = if path.starts_with('/') { 0 } else { grp };
            for part in path.split('/').filter(|p| !p.is_empty()) {
                g = ds.model.find_child(g, part).ok_or(NcError::ENOGRP)?;
            }
            Ok(g)
        })?;
        unsafe { put(grp_ncid, ncid_of(ncid, g)) };
        Ok(())
    })
}
