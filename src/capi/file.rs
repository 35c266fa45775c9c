//! Datasets as a whole: create, open, define mode, close, and inquiries
//! about the dataset or group rather than one object in it.

// Unsafe blocks here only dereference, or pass on, the enclosing C
// function's own pointer arguments, as its `# Safety` section says the
// caller guarantees: that section is their SAFETY comment (policy in
// src/capi/mod.rs). Blocks doing more carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "caller pointers, per each function's # Safety section")]

use std::ffi::{c_char, c_int};

use super::crossing::{How, open_elsewhere};
use super::{c_str, guard, put, put_name, put_slice};
use crate::dataset::Dataset;
use crate::error::{self, NcError, NcResult};
use crate::registry;
use crate::types::{is_atomic, type_name, type_size};

const NC_FORMAT_NETCDF4: c_int = 3;
const NC_FORMAT_NETCDF4_CLASSIC: c_int = 4;
const NC_FORMATX_NCZARR: c_int = 10;

/// Create a dataset and return its root ncid.
///
/// # Safety
/// `path` must be a C string; `ncidp` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_create(path: *const c_char, cmode: c_int, ncidp: *mut c_int) -> c_int {
    let elsewhere =
        unsafe { open_elsewhere(path, cmode, How::Create, ncidp, |t, id| t.nc_create.map(|f| f(path, cmode, id))) };
    if let Some(status) = elsewhere {
        return status;
    }
    guard(|| {
        let path = unsafe { c_str(path, NcError::EINVAL) }?;
        let ncid = registry::insert(Dataset::create(path, cmode)?)?;
        unsafe { put(ncidp, ncid) };
        Ok(())
    })
}

/// `nc_create` with netCDF-3 tuning hints, which NCZarr ignores.
///
/// # Safety
/// As [`nc_create`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc__create(
    path: *const c_char,
    cmode: c_int,
    _initialsz: usize,
    _chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    unsafe { nc_create(path, cmode, ncidp) }
}

/// NC_EBADID unless `ncid` names a group of an open dataset. netcdf-c
/// checks the id before any other argument, so a bad id with a NULL name
/// is NC_EBADID, not a name error.
pub(crate) fn check_id(ncid: c_int) -> NcResult<()> {
    registry::with(ncid, |_, _| Ok(()))
}

/// Open an existing dataset.
///
/// # Safety
/// `path` must be a C string; `ncidp` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open(path: *const c_char, mode: c_int, ncidp: *mut c_int) -> c_int {
    let elsewhere =
        unsafe { open_elsewhere(path, mode, How::Open, ncidp, |t, id| t.nc_open.map(|f| f(path, mode, id))) };
    if let Some(status) = elsewhere {
        return status;
    }
    guard(|| {
        let path = unsafe { c_str(path, NcError::EINVAL) }?;
        let opened = Dataset::open(path, mode);
        let status = opened.as_ref().map_or_else(|e| e.0, |_| 0);
        crate::zmap::trace::log(1, format_args!("Open {path}: served by nczarr-rs, status {status}"));
        let ncid = registry::insert(opened?)?;
        unsafe { put(ncidp, ncid) };
        Ok(())
    })
}

/// `nc_open` with a netCDF-3 tuning hint, which NCZarr ignores.
///
/// # Safety
/// As [`nc_open`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc__open(
    path: *const c_char,
    mode: c_int,
    _chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    unsafe { nc_open(path, mode, ncidp) }
}

/// `nc__create` for netCDF-3 multiprocessing ("base PE"), which NCZarr
/// ignores, as netcdf-c does for every format but classic files.
///
/// # Safety
/// As [`nc_create`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc__create_mp(
    path: *const c_char,
    cmode: c_int,
    _initialsz: usize,
    _basepe: c_int,
    _chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    unsafe { nc_create(path, cmode, ncidp) }
}

/// `nc__open` with a base PE, ignored as in [`nc__create_mp`].
///
/// # Safety
/// As [`nc_open`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc__open_mp(
    path: *const c_char,
    mode: c_int,
    _basepe: c_int,
    _chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    unsafe { nc_open(path, mode, ncidp) }
}

/// Delete a dataset: its whole store, once it has opened as a dataset
/// (netcdf-c opens it too, then unlinks the path, which for a store
/// named by URL fails; we remove the store).
///
/// # Safety
/// `path` must be a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_delete(path: *const c_char) -> c_int {
    if let Some(status) = unsafe { super::crossing::delete_elsewhere(path) } {
        return status;
    }
    guard(|| {
        let path = unsafe { c_str(path, NcError::EINVAL) }?;
        Dataset::delete(path)
    })
}

/// [`nc_delete`] with an ignored base PE.
///
/// # Safety
/// As [`nc_delete`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_delete_mp(path: *const c_char, _basepe: c_int) -> c_int {
    unsafe { nc_delete(path) }
}

/// Classic-format multiprocessing: nothing to set, once the id is good.
pub extern "C" fn nc_set_base_pe(ncid: c_int, _pe: c_int) -> c_int {
    guard(|| registry::check(ncid))
}

/// # Safety
/// `pe` must be NULL or writable.
pub unsafe extern "C" fn nc_inq_base_pe(ncid: c_int, pe: *mut c_int) -> c_int {
    guard(|| {
        registry::check(ncid)?;
        unsafe { put(pe, 0) };
        Ok(())
    })
}

/// A debugging dump of the metadata; netcdf-c's NCZarr prints nothing.
pub extern "C" fn nc_show_metadata(ncid: c_int) -> c_int {
    guard(|| registry::check(ncid))
}

pub extern "C" fn nc_close(ncid: c_int) -> c_int {
    guard(|| registry::remove(ncid, false, |ds| ds.close()))
}

pub extern "C" fn nc_abort(ncid: c_int) -> c_int {
    guard(|| registry::remove(ncid, true, |ds| ds.abort()))
}

pub extern "C" fn nc_redef(ncid: c_int) -> c_int {
    guard(|| registry::with(ncid, |ds, _| ds.model.redef()))
}

pub extern "C" fn nc_enddef(ncid: c_int) -> c_int {
    guard(|| registry::with(ncid, |ds, _| ds.enddef()))
}

/// `nc_enddef` with netCDF-3 alignment hints, which NCZarr ignores.
#[allow(non_snake_case, reason = "netcdf-c's name")]
pub extern "C" fn nc__enddef(
    ncid: c_int,
    _h_minfree: usize,
    _v_align: usize,
    _v_minfree: usize,
    _r_align: usize,
) -> c_int {
    nc_enddef(ncid)
}

pub extern "C" fn nc_sync(ncid: c_int) -> c_int {
    guard(|| registry::with(ncid, |ds, _| ds.sync()))
}

/// Set the default fill mode for variables defined from now on.
///
/// # Safety
/// `old_modep` must be NULL or writable.
pub unsafe extern "C" fn nc_set_fill(ncid: c_int, fillmode: c_int, old_modep: *mut c_int) -> c_int {
    guard(|| {
        let old = registry::with(ncid, |ds, _| ds.model.set_fill(fillmode))?;
        unsafe { put(old_modep, old) };
        Ok(())
    })
}

/// Counts for a group: its dimensions, variables, attributes and first
/// unlimited dimension (-1 if none).
///
/// # Safety
/// Every pointer must be NULL or writable.
pub unsafe extern "C" fn nc_inq(
    ncid: c_int,
    ndimsp: *mut c_int,
    nvarsp: *mut c_int,
    nattsp: *mut c_int,
    unlimdimidp: *mut c_int,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let g = &ds.model.groups[grp];
            let unlim = ds.model.unlimited_dims(grp).first().map_or(-1, |&d| d as c_int);
            unsafe {
                put(ndimsp, g.dims.len() as c_int);
                put(nvarsp, g.vars.len() as c_int);
                put(nattsp, g.atts.len() as c_int);
                put(unlimdimidp, unlim);
            }
            Ok(())
        })
    })
}

/// # Safety
/// `ndimsp` must be NULL or writable.
pub unsafe extern "C" fn nc_inq_ndims(ncid: c_int, ndimsp: *mut c_int) -> c_int {
    unsafe { nc_inq(ncid, ndimsp, std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut()) }
}

/// # Safety
/// `nvarsp` must be NULL or writable.
pub unsafe extern "C" fn nc_inq_nvars(ncid: c_int, nvarsp: *mut c_int) -> c_int {
    unsafe { nc_inq(ncid, std::ptr::null_mut(), nvarsp, std::ptr::null_mut(), std::ptr::null_mut()) }
}

/// # Safety
/// `nattsp` must be NULL or writable.
pub unsafe extern "C" fn nc_inq_natts(ncid: c_int, nattsp: *mut c_int) -> c_int {
    unsafe { nc_inq(ncid, std::ptr::null_mut(), std::ptr::null_mut(), nattsp, std::ptr::null_mut()) }
}

/// # Safety
/// `unlimdimidp` must be NULL or writable.
pub unsafe extern "C" fn nc_inq_unlimdim(ncid: c_int, unlimdimidp: *mut c_int) -> c_int {
    unsafe { nc_inq(ncid, std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut(), unlimdimidp) }
}

/// The unlimited dimensions defined in a group.
///
/// # Safety
/// `nunlimdimsp` NULL or writable; `unlimdimidsp` NULL or room for them all.
pub unsafe extern "C" fn nc_inq_unlimdims(ncid: c_int, nunlimdimsp: *mut c_int, unlimdimidsp: *mut c_int) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let ids: Vec<c_int> = ds.model.unlimited_dims(grp).iter().map(|&d| d as c_int).collect();
            unsafe {
                put(nunlimdimsp, ids.len() as c_int);
                put_slice(unlimdimidsp, &ids);
            }
            Ok(())
        })
    })
}

/// # Safety
/// `formatp` must be NULL or writable.
pub unsafe extern "C" fn nc_inq_format(ncid: c_int, formatp: *mut c_int) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, _| {
            let format = if ds.model.classic_model { NC_FORMAT_NETCDF4_CLASSIC } else { NC_FORMAT_NETCDF4 };
            unsafe { put(formatp, format) };
            Ok(())
        })
    })
}

/// # Safety
/// Both pointers must be NULL or writable.
pub unsafe extern "C" fn nc_inq_format_extended(ncid: c_int, formatp: *mut c_int, modep: *mut c_int) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, _| {
            unsafe {
                put(formatp, NC_FORMATX_NCZARR);
                put(modep, ds.mode);
            }
            Ok(())
        })
    })
}

/// The dataset name: for URLs the normalised form netcdf-c reports
/// (absolute path, rebuilt fragment), else the path as given.
///
/// # Safety
/// `pathlen` NULL or writable; `path` NULL or room for the name plus NUL.
pub unsafe extern "C" fn nc_inq_path(ncid: c_int, pathlen: *mut usize, path: *mut c_char) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, _| {
            let name = ds.url.display_name().unwrap_or_else(|| ds.path.clone());
            unsafe {
                put(pathlen, name.len());
                put_name(path, &name);
            }
            Ok(())
        })
    })
}

/// The library version in netcdf-c's shape ("4.9.0 of Jan  1 2023 12:00:00
/// $"): the netCDF API version first, which programs parse, then this
/// library's name and version where netcdf-c has its build date, e.g.
/// "4.9.3 of nczarr-rs 0.1.0 $".
///
/// A static array, NUL-padded to LIBVERS_LEN bytes, as netcdf-c's is
/// static: netcdf-fortran's NF_INQ_LIBVERS reads 81 characters from the
/// pointer (a `Character(LEN=81)` pointer it passes to LEN_TRIM) whatever
/// the string's length, which overran the heap copy this used to be.
static LIBVERS: [u8; LIBVERS_LEN] = libvers();
const LIBVERS_LEN: usize = 96;

const fn libvers() -> [u8; LIBVERS_LEN] {
    let parts = [crate::NC_API_VERSION, " of nczarr-rs ", env!("CARGO_PKG_VERSION"), " $"];
    let mut out = [0u8; LIBVERS_LEN];
    let (mut n, mut p) = (0, 0);
    while p < parts.len() {
        let bytes = parts[p].as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            out[n] = bytes[i];
            (n, i) = (n + 1, i + 1);
        }
        p += 1;
    }
    // Checked at compile time: the text and its NUL within what Fortran reads.
    assert!(n < 81);
    out
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_inq_libvers() -> *const c_char {
    LIBVERS.as_ptr() as *const c_char
}

/// The message for a status code: netCDF's text, the system's for errno
/// values, "Unknown Error" otherwise.
#[unsafe(no_mangle)]
pub extern "C" fn nc_strerror(ncerr: c_int) -> *const c_char {
    if let Some(msg) = error::library_message(ncerr) {
        return msg.as_ptr();
    }
    if ncerr > 0 {
        // SAFETY: strerror returns a pointer to a static or thread-local
        // message for any int.
        return unsafe { libc::strerror(ncerr) };
    }
    error::UNKNOWN_ERROR.as_ptr()
}

/// Name and size of a type (atomic types only: there are no user types).
///
/// # Safety
/// `name` NULL or room for NC_MAX_NAME + 1 bytes; `size` NULL or writable.
pub unsafe extern "C" fn nc_inq_type(ncid: c_int, xtype: c_int, name: *mut c_char, size: *mut usize) -> c_int {
    guard(|| {
        // Like netcdf-c, atomic types are answered without looking at
        // ncid, and any other is NC_EBADTYPE, even with an ncid that names
        // nothing (its dispatch layer turns NC_EBADID into that): NCZarr
        // has no user-defined types.
        let _ = ncid;
        if !is_atomic(xtype) {
            return Err(NcError::EBADTYPE);
        }
        unsafe {
            put_name(name, type_name(xtype)?);
            put(size, type_size(xtype)?);
        }
        Ok(())
    })
}

/// User-defined types in a group: always none.
///
/// # Safety
/// `ntypes` must be NULL or writable.
pub unsafe extern "C" fn nc_inq_typeids(ncid: c_int, ntypes: *mut c_int, _typeids: *mut c_int) -> c_int {
    guard(|| {
        registry::check(ncid)?;
        unsafe { put(ntypes, 0) };
        Ok(())
    })
}

/// Free strings returned by `nc_get_att_string` (and later the string
/// data functions).
///
/// # Safety
/// `data` must be NULL or hold `len` pointers that are NULL or were
/// returned by this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_free_string(len: usize, data: *mut *mut c_char) -> c_int {
    guard(|| {
        if data.is_null() {
            return Ok(());
        }
        for i in 0..len {
            // SAFETY: `data` holds `len` pointers, each NULL or a string
            // this library malloc'ed (cmem::malloc_cstring) for the caller.
            unsafe {
                let p = data.add(i).read_unaligned();
                if !p.is_null() {
                    libc::free(p as *mut libc::c_void);
                }
            }
        }
        Ok(())
    })
}

/// Library set-up happens on demand; this exists for programs that call it.
#[unsafe(no_mangle)]
pub extern "C" fn nc_initialize() -> c_int {
    0
}

/// Release what the library holds globally: filter plugins are finalized
/// (`NCZ_codec_finalize`), as netcdf-c does.
#[unsafe(no_mangle)]
pub extern "C" fn nc_finalize() -> c_int {
    guard(|| {
        crate::codec::plugin::finalize();
        // The netcdf-c beside us, if loaded, finalises too (it starts
        // again by itself on its next open).
        if let Some(d) = crate::delegate::loaded() {
            d.call(|t| t.nc_finalize.map(|f| unsafe { f() }));
        }
        Ok(())
    })
}
