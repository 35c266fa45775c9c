//! The calls whose routing needs more than a translated ncid (the rest
//! are generated in route.rs): opens and creates, routed by the dataset's
//! name; calls that give group ncids back, translated into ours; closes,
//! which forget the dataset; and the calls taking two datasets, which may
//! be served by different libraries (`nccopy in.nc out.zarr`).
//!
//! Copies between the two libraries go through the routed API, as
//! netcdf-c's own `nc_copy_var` does through its dispatch layer. NCZarr
//! has no user-defined types, so such copies carry atomic types and
//! strings; a user-defined type is NC_EBADTYPE on the way to a Zarr
//! dataset.

// Unsafe blocks here pass the enclosing C function's own arguments on to
// the library that serves the dataset, under the contract that function's
// `# Safety` section states (netcdf-c's for the same call), or call the
// routed API with buffers of ours sized as it requires: that is their
// SAFETY comment (policy in src/capi/mod.rs). Blocks doing more (freeing
// memory, writing out-pointers) carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "arguments passed on, per each function's # Safety section")]

use std::ffi::{c_char, c_int, c_void};

use super::memio::NcMemio;
use super::route as api;
use super::{c_str, put};
use crate::delegate::{self, Table, remote::Remote};
use crate::error::{NcError, NcResult};
use crate::registry::{self, Delegated, Route, route};
use crate::types::{NC_STRING, is_atomic, type_size};
use crate::zmap::trace;

const NC_NOERR: c_int = 0;
const NC_MAX_NAME: usize = 256;

fn status(r: NcResult<()>) -> c_int {
    match r {
        Ok(()) => NC_NOERR,
        Err(NcError(s)) => s,
    }
}

fn check(s: c_int) -> NcResult<()> {
    if s == NC_NOERR { Ok(()) } else { Err(NcError(s)) }
}

// ---- opening by name ------------------------------------------------------

/// What an open-like call does with its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum How {
    /// Opens what is there.
    Open,
    /// Creates it (a plain path is a netcdf-c file).
    Create,
    /// Names a dataset in memory (the name is only a name).
    InMemory,
}

/// Open or create `path` in the delegate if it serves such names: None
/// when the name is ours (or no delegate is installed, so ours answers as
/// it always has), else the call's status, with our ncid in `ncidp`.
/// `call` makes the delegate's open with a place for its ncid.
///
/// # Safety
/// `path` NULL or a C string; `ncidp` NULL or writable.
pub(crate) unsafe fn open_elsewhere(
    path: *const c_char,
    mode: c_int,
    how: How,
    ncidp: *mut c_int,
    call: impl FnOnce(&Table, *mut c_int) -> Option<c_int>,
) -> Option<c_int> {
    let _inside = crate::gate::enter();
    // SAFETY: the caller's C string, or NULL (then not ours to route).
    let name = unsafe { c_str(path, NcError::EINVAL) }.ok()?;
    if how != How::InMemory {
        match crate::url::remote_file(name) {
            Ok(Some(file)) => return Some(status(unsafe { open_remote(name, &file, mode, how, ncidp) })),
            Err(NcError(e)) => return Some(e),
            Ok(None) => {}
        }
    }
    if !delegate::claims(name, mode, how != How::Open) {
        return None;
    }
    let lib = delegate::get().ok()?;
    let mut theirs: c_int = 0;
    let s = lib.call(|t| call(t, &mut theirs));
    trace::log(
        1,
        format_args!("{how:?} {name}: served by netcdf-c {} ({}), status {s}", lib.version(), lib.path.display()),
    );
    if s != NC_NOERR {
        return Some(s);
    }
    Some(status(unsafe { adopt(lib, theirs, None, ncidp) }))
}

/// Register a dataset the delegate opened or created as `theirs`, our
/// ncid for it in `ncidp`; if there is no room, the delegate's copy is
/// aborted.
///
/// # Safety
/// `ncidp` NULL or writable.
pub(crate) unsafe fn adopt(
    lib: &delegate::Delegate,
    theirs: c_int,
    remote: Option<Remote>,
    ncidp: *mut c_int,
) -> NcResult<()> {
    match registry::insert_theirs(theirs, remote) {
        Ok(ours) => {
            // SAFETY: the caller's out-pointer.
            unsafe { put(ncidp, ours) };
            Ok(())
        }
        Err(e) => {
            lib.call(|t| t.nc_abort.map(|f| unsafe { f(theirs) }));
            Err(e)
        }
    }
}

/// Open or create a netCDF file on S3 or a web server (src/delegate/remote.rs):
/// read in memory, written in a scratch file.
///
/// # Safety
/// `ncidp` NULL or writable.
unsafe fn open_remote(
    name: &str,
    file: &crate::url::RemoteFile,
    mode: c_int,
    how: How,
    ncidp: *mut c_int,
) -> NcResult<()> {
    const NC_WRITE: c_int = 0x0001;
    const NC_NOCLOBBER: c_int = 0x0004;
    let lib = delegate::get()?;
    let mut remote = Remote::new(name, file)?;
    let web = matches!(file.storage, crate::url::Storage::Http(_));
    // The delegate gets a plain name: a URL would send it to its own
    // S3 or DAP code.
    let base = std::ffi::CString::new(remote.name()).map_err(|_| NcError::EINVAL)?;
    let mut theirs: c_int = 0;
    let s = match how {
        How::Create => {
            if web {
                return Err(NcError::EPERM);
            }
            if mode & NC_NOCLOBBER != 0 && remote.exists()? {
                return Err(NcError::EEXIST);
            }
            let file = remote.scratch_file(None)?;
            lib.call(|t| t.nc_create.map(|f| unsafe { f(file.as_ptr(), mode, &mut theirs) }))
        }
        _ if mode & NC_WRITE != 0 => {
            if web {
                return Err(NcError::EPERM);
            }
            let image = remote.fetch()?;
            let file = remote.scratch_file(Some(&image))?;
            drop(image);
            lib.call(|t| t.nc_open.map(|f| unsafe { f(file.as_ptr(), mode, &mut theirs) }))
        }
        _ => {
            let image = remote.fetch()?;
            let (size, memory) = (image.len(), image.as_ptr() as *mut c_void);
            // The delegate reads this image until it closes: it lives in
            // the registry's entry (moving the Vec does not move its bytes).
            remote.image = Some(image);
            lib.call(|t| t.nc_open_mem.map(|f| unsafe { f(base.as_ptr(), mode, size, memory, &mut theirs) }))
        }
    };
    trace::log(1, format_args!("{how:?} {name}: served by netcdf-c in memory, status {s}"));
    check(s)?;
    unsafe { adopt(lib, theirs, Some(remote), ncidp) }
}

/// Delete a dataset the delegate serves (`nc_delete` of a `.nc` file).
///
/// # Safety
/// `path` NULL or a C string.
pub(crate) unsafe fn delete_elsewhere(path: *const c_char) -> Option<c_int> {
    let _inside = crate::gate::enter();
    // SAFETY: as in open_elsewhere.
    let name = unsafe { c_str(path, NcError::EINVAL) }.ok()?;
    if !delegate::claims(name, 0, false) {
        return None;
    }
    let lib = delegate::get().ok()?;
    Some(lib.call(|t| t.nc_delete.map(|f| unsafe { f(path) })))
}

// ---- closing ---------------------------------------------------------------

/// How a dataset the delegate serves is closed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Closing {
    Close,
    Abort,
    /// `nc_close_memio`, the image given to the caller's `NC_memio`.
    Memio(*mut NcMemio),
}

/// Close a dataset the delegate serves; on success it is forgotten. A
/// remote file being written is closed, then uploaded from its scratch
/// file (unless aborted): the close fails if the upload does.
fn close_theirs(ncid: c_int, d: Delegated, how: Closing) -> c_int {
    let mut image = NcMemio { size: 0, memory: std::ptr::null_mut(), flags: 0 };
    let to = match how {
        Closing::Memio(info) if !info.is_null() => info,
        _ => &mut image as *mut NcMemio,
    };
    let s = d.call(|t| match how {
        Closing::Abort => t.nc_abort.map(|f| unsafe { f(d.ncid) }),
        Closing::Close => t.nc_close.map(|f| unsafe { f(d.ncid) }),
        Closing::Memio(_) => t.nc_close_memio.map(|f| unsafe { f(d.ncid, to as *mut c_void) }),
    });
    if s != NC_NOERR {
        return s;
    }
    let remote = registry::forget_theirs(ncid);
    let mut result = Ok(());
    if let Some(remote) = remote.filter(|r| r.write_back && how != Closing::Abort) {
        result = remote.upload_scratch();
    }
    if !image.memory.is_null() {
        // SAFETY: malloc'ed by netcdf-c (one libc: see src/delegate) and
        // handed to us; the caller did not ask for it.
        unsafe { libc::free(image.memory) };
    }
    status(result)
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_close(ncid: c_int) -> c_int {
    match route(ncid) {
        Route::Ours => super::file::nc_close(ncid),
        Route::Theirs(d) => close_theirs(ncid, d, Closing::Close),
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_abort(ncid: c_int) -> c_int {
    match route(ncid) {
        Route::Ours => super::file::nc_abort(ncid),
        Route::Theirs(d) => close_theirs(ncid, d, Closing::Abort),
    }
}

/// # Safety
/// `info` NULL or an `NC_memio` to fill.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_close_memio(ncid: c_int, info: *mut NcMemio) -> c_int {
    match route(ncid) {
        Route::Ours => unsafe { super::memio::nc_close_memio(ncid, info) },
        Route::Theirs(d) => close_theirs(ncid, d, Closing::Memio(info)),
    }
}

/// The dataset's name: for a remote file, the URL it was opened by
/// (the delegate knows it by a scratch or plain name).
///
/// # Safety
/// As `nc_inq_path`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_path(ncid: c_int, pathlen: *mut usize, path: *mut c_char) -> c_int {
    match route(ncid) {
        Route::Ours => unsafe { super::file::nc_inq_path(ncid, pathlen, path) },
        Route::Theirs(d) => match registry::remote_url(ncid) {
            Some(url) => {
                // SAFETY: the caller's out-pointers, `path` with room for the name.
                unsafe {
                    put(pathlen, url.len());
                    super::put_name(path, &url);
                }
                NC_NOERR
            }
            None => d.call(|t| t.nc_inq_path.map(|f| unsafe { f(d.ncid, pathlen, path) })),
        },
    }
}

// ---- group ids coming back -------------------------------------------------

/// Call the delegate with a place for one group id; give ours for it.
///
/// # Safety
/// `out` NULL or writable.
unsafe fn one_group(d: Delegated, out: *mut c_int, call: impl FnOnce(&Table, *mut c_int) -> Option<c_int>) -> c_int {
    let mut theirs: c_int = 0;
    let s = d.call(|t| call(t, &mut theirs));
    if s == NC_NOERR {
        // SAFETY: the caller's out-pointer.
        unsafe { put(out, d.ours(theirs)) };
    }
    s
}

/// # Safety
/// As `nc_def_grp`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_grp(parent_ncid: c_int, name: *const c_char, new_ncid: *mut c_int) -> c_int {
    match route(parent_ncid) {
        Route::Ours => unsafe { super::group::nc_def_grp(parent_ncid, name, new_ncid) },
        Route::Theirs(d) => unsafe { one_group(d, new_ncid, |t, g| t.nc_def_grp.map(|f| f(d.ncid, name, g))) },
    }
}

/// # Safety
/// As `nc_inq_grp_parent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grp_parent(ncid: c_int, parent_ncid: *mut c_int) -> c_int {
    match route(ncid) {
        Route::Ours => unsafe { super::group::nc_inq_grp_parent(ncid, parent_ncid) },
        Route::Theirs(d) => unsafe { one_group(d, parent_ncid, |t, g| t.nc_inq_grp_parent.map(|f| f(d.ncid, g))) },
    }
}

/// # Safety
/// As `nc_inq_ncid`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_ncid(ncid: c_int, name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    match route(ncid) {
        Route::Ours => unsafe { super::group::nc_inq_ncid(ncid, name, grp_ncid) },
        Route::Theirs(d) => unsafe { one_group(d, grp_ncid, |t, g| t.nc_inq_ncid.map(|f| f(d.ncid, name, g))) },
    }
}

/// # Safety
/// As `nc_inq_grp_ncid`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grp_ncid(ncid: c_int, grp_name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    match route(ncid) {
        Route::Ours => unsafe { super::group::nc_inq_grp_ncid(ncid, grp_name, grp_ncid) },
        Route::Theirs(d) => unsafe { one_group(d, grp_ncid, |t, g| t.nc_inq_grp_ncid.map(|f| f(d.ncid, grp_name, g))) },
    }
}

/// # Safety
/// As `nc_inq_grp_full_ncid`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grp_full_ncid(ncid: c_int, full_name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    match route(ncid) {
        Route::Ours => unsafe { super::group::nc_inq_grp_full_ncid(ncid, full_name, grp_ncid) },
        Route::Theirs(d) => unsafe {
            one_group(d, grp_ncid, |t, g| t.nc_inq_grp_full_ncid.map(|f| f(d.ncid, full_name, g)))
        },
    }
}

/// # Safety
/// As `nc_inq_grps`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grps(ncid: c_int, numgrps: *mut c_int, ncids: *mut c_int) -> c_int {
    let d = match route(ncid) {
        Route::Ours => return unsafe { super::group::nc_inq_grps(ncid, numgrps, ncids) },
        Route::Theirs(d) => d,
    };
    // How many first, so the ids can be fetched into our own array even
    // when the caller does not ask for the count.
    let mut n: c_int = 0;
    let s = d.call(|t| t.nc_inq_grps.map(|f| unsafe { f(d.ncid, &mut n, std::ptr::null_mut()) }));
    if s != NC_NOERR {
        return s;
    }
    let mut ids = vec![0; n.max(0) as usize];
    if !ncids.is_null() && n > 0 {
        let s = d.call(|t| t.nc_inq_grps.map(|f| unsafe { f(d.ncid, std::ptr::null_mut(), ids.as_mut_ptr()) }));
        if s != NC_NOERR {
            return s;
        }
        ids.iter_mut().for_each(|g| *g = d.ours(*g));
    }
    // SAFETY: the caller's out-pointers; `ncids` has room for every group.
    unsafe {
        put(numgrps, n);
        super::put_slice(ncids, &ids);
    }
    NC_NOERR
}

// ---- two datasets ----------------------------------------------------------

/// The two datasets' routes when one library serves both: Some(None) for
/// ours, Some(Some((a, b))) for the delegate's ids, None when they differ.
fn same_library(a: c_int, b: c_int) -> Option<Option<(c_int, c_int, Delegated)>> {
    match (route(a), route(b)) {
        (Route::Ours, Route::Ours) => Some(None),
        (Route::Theirs(x), Route::Theirs(y)) => Some(Some((x.ncid, y.ncid, x))),
        _ => None,
    }
}

/// # Safety
/// As `nc_copy_att`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_copy_att(
    ncid_in: c_int,
    varid_in: c_int,
    name: *const c_char,
    ncid_out: c_int,
    varid_out: c_int,
) -> c_int {
    match same_library(ncid_in, ncid_out) {
        Some(None) => unsafe { super::att::nc_copy_att(ncid_in, varid_in, name, ncid_out, varid_out) },
        Some(Some((i, o, d))) => d.call(|t| t.nc_copy_att.map(|f| unsafe { f(i, varid_in, name, o, varid_out) })),
        None => status(unsafe { copy_att_across(ncid_in, varid_in, name, ncid_out, varid_out) }),
    }
}

/// Copy an attribute between datasets of different libraries.
///
/// # Safety
/// `name` a C string.
unsafe fn copy_att_across(
    ncid_in: c_int,
    varid_in: c_int,
    name: *const c_char,
    ncid_out: c_int,
    varid_out: c_int,
) -> NcResult<()> {
    let (mut xtype, mut len) = (0, 0usize);
    check(unsafe { api::nc_inq_att(ncid_in, varid_in, name, &mut xtype, &mut len) })?;
    // netcdf-c checks the output id too before writing anything.
    check(unsafe { api::nc_inq_natts(ncid_out, &mut 0) })?;
    if xtype == NC_STRING {
        let mut strings: Vec<*mut c_char> = vec![std::ptr::null_mut(); len];
        check(unsafe { api::nc_get_att_string(ncid_in, varid_in, name, strings.as_mut_ptr()) })?;
        let s = unsafe {
            api::nc_put_att_string(ncid_out, varid_out, name, len, strings.as_mut_ptr() as *mut *const c_char)
        };
        // SAFETY: the strings nc_get_att_string allocated, freed once.
        unsafe { super::file::nc_free_string(len, strings.as_mut_ptr()) };
        return check(s);
    }
    if !is_atomic(xtype) {
        return Err(NcError::EBADTYPE);
    }
    let mut buf = vec![0u8; (len * type_size(xtype)?).max(1)];
    check(unsafe { api::nc_get_att(ncid_in, varid_in, name, buf.as_mut_ptr() as *mut c_void) })?;
    check(unsafe { api::nc_put_att(ncid_out, varid_out, name, xtype, len, buf.as_ptr() as *const c_void) })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_copy_var(ncid_in: c_int, varid: c_int, ncid_out: c_int) -> c_int {
    match same_library(ncid_in, ncid_out) {
        Some(None) => super::var::nc_copy_var(ncid_in, varid, ncid_out),
        Some(Some((i, o, d))) => d.call(|t| t.nc_copy_var.map(|f| unsafe { f(i, varid, o) })),
        None => status(copy_var_across(ncid_in, varid, ncid_out)),
    }
}

/// Copy a variable between datasets of different libraries, as netcdf-c's
/// `nc_copy_var` does: its dimensions must exist in the output under the
/// same names; it is defined there with its attributes, the output leaves
/// define mode, then the values are copied (whole, through memory).
fn copy_var_across(ncid_in: c_int, varid: c_int, ncid_out: c_int) -> NcResult<()> {
    let mut name = [0 as c_char; NC_MAX_NAME + 1];
    let (mut xtype, mut ndims, mut natts) = (0, 0, 0);
    let mut dimids = [0 as c_int; 1024];
    check(unsafe {
        api::nc_inq_var(ncid_in, varid, name.as_mut_ptr(), &mut xtype, &mut ndims, dimids.as_mut_ptr(), &mut natts)
    })?;
    if xtype != NC_STRING && !is_atomic(xtype) {
        return Err(NcError::EBADTYPE);
    }
    let ndims = ndims.max(0) as usize;
    let mut out_dims = vec![0 as c_int; ndims];
    let mut shape = vec![0usize; ndims];
    for i in 0..ndims {
        let mut dim_name = [0 as c_char; NC_MAX_NAME + 1];
        check(unsafe { api::nc_inq_dim(ncid_in, dimids[i], dim_name.as_mut_ptr(), &mut shape[i]) })?;
        check(unsafe { api::nc_inq_dimid(ncid_out, dim_name.as_ptr(), &mut out_dims[i]) })?;
    }
    let mut varid_out = 0;
    check(unsafe {
        api::nc_def_var(ncid_out, name.as_ptr(), xtype, ndims as c_int, out_dims.as_ptr(), &mut varid_out)
    })?;
    for a in 0..natts {
        let mut att_name = [0 as c_char; NC_MAX_NAME + 1];
        check(unsafe { api::nc_inq_attname(ncid_in, varid, a, att_name.as_mut_ptr()) })?;
        check(unsafe { nc_copy_att(ncid_in, varid, att_name.as_ptr(), ncid_out, varid_out) })?;
    }
    // As netcdf-c does, whatever they answer: the output leaves define
    // mode (a classic file cannot take data in it).
    api::nc_enddef(ncid_out);
    api::nc_sync(ncid_out);
    let nelems = shape.iter().try_fold(1usize, |p, &n| p.checked_mul(n)).ok_or(NcError::ENOMEM)?;
    if nelems == 0 {
        return Ok(());
    }
    let start = vec![0usize; ndims];
    if xtype == NC_STRING {
        let mut strings: Vec<*mut c_char> = vec![std::ptr::null_mut(); nelems];
        check(unsafe {
            api::nc_get_vara(ncid_in, varid, start.as_ptr(), shape.as_ptr(), strings.as_mut_ptr() as *mut c_void)
        })?;
        let s = unsafe {
            api::nc_put_vara(ncid_out, varid_out, start.as_ptr(), shape.as_ptr(), strings.as_ptr() as *const c_void)
        };
        // SAFETY: the strings nc_get_vara allocated, freed once.
        unsafe { super::file::nc_free_string(nelems, strings.as_mut_ptr()) };
        return check(s);
    }
    let bytes = nelems.checked_mul(type_size(xtype)?).ok_or(NcError::ENOMEM)?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(bytes).map_err(|_| NcError::ENOMEM)?;
    buf.resize(bytes, 0u8);
    check(unsafe {
        api::nc_get_vara(ncid_in, varid, start.as_ptr(), shape.as_ptr(), buf.as_mut_ptr() as *mut c_void)
    })?;
    check(unsafe {
        api::nc_put_vara(ncid_out, varid_out, start.as_ptr(), shape.as_ptr(), buf.as_ptr() as *const c_void)
    })
}

/// # Safety
/// As `nc_inq_type_equal`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_type_equal(
    ncid1: c_int,
    typeid1: c_int,
    ncid2: c_int,
    typeid2: c_int,
    equal: *mut c_int,
) -> c_int {
    match same_library(ncid1, ncid2) {
        Some(None) => unsafe { super::udt::nc_inq_type_equal(ncid1, typeid1, ncid2, typeid2, equal) },
        Some(Some((a, b, d))) => d.call(|t| t.nc_inq_type_equal.map(|f| unsafe { f(a, typeid1, b, typeid2, equal) })),
        None => {
            // A user-defined type has no equal on the Zarr side (NCZarr has
            // none); atomic types are equal when their ids are. Each id is
            // checked by its own dataset first.
            for (ncid, xtype) in [(ncid1, typeid1), (ncid2, typeid2)] {
                let s = unsafe { api::nc_inq_type(ncid, xtype, std::ptr::null_mut(), std::ptr::null_mut()) };
                if s != NC_NOERR {
                    return s;
                }
            }
            let same = typeid1 == typeid2 && (is_atomic(typeid1) || typeid1 == NC_STRING);
            // SAFETY: the caller's out-pointer.
            unsafe { put(equal, c_int::from(same)) };
            NC_NOERR
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_name_nothing_are_ours_to_refuse() {
        assert!(matches!(route(12345 << 16), Route::Ours));
        assert_eq!(nc_close(12345 << 16), crate::error::code::NC_EBADID);
    }
}
