//! The filter API: HDF5 filter ids and parameters over the codecs built
//! into the library (deflate, shuffle, fletcher32, bzip2, zstd, lz4, blosc).
//! szip is not built in: defining it answers NC_ENOFILTER
//! (netcdf-c's answer when no plugin provides a filter) rather than
//! silently writing uncompressed data.

// Unsafe blocks here only dereference, or pass on, the enclosing C
// function's own pointer arguments, as its `# Safety` section says the
// caller guarantees: that section is their SAFETY comment (policy in
// src/capi/mod.rs). Blocks doing more carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "caller pointers, per each function's # Safety section")]

use std::ffi::{c_char, c_int, c_uint};

use super::{c_str, cmem, guard, put, put_slice, read_array};
use crate::codec::plugin;
use crate::codec::spec::{self, BLOSC, BZIP2, DEFLATE, FLETCHER32, SHUFFLE, SZIP, ZSTD};
use crate::error::{NcError, NcResult};
use crate::registry;

/// Define one filter on a variable.
fn def_filter(ncid: c_int, varid: c_int, id: c_uint, params: &[c_uint]) -> NcResult<()> {
    registry::with(ncid, |ds, grp| ds.model.def_var_filter(grp, varid, id, params))
}

/// The visible parameters of a filter, if the variable has it.
fn filter_params(ncid: c_int, varid: c_int, id: c_uint) -> NcResult<Option<Vec<c_uint>>> {
    registry::with(ncid, |ds, grp| match ds.model.var_filter_info(grp, varid, id) {
        Ok(p) => Ok(Some(p)),
        Err(NcError::ENOFILTER) => Ok(None),
        Err(e) => Err(e),
    })
}

/// # Safety
/// `params` must hold `nparams` values (may be NULL when `nparams` is 0).
pub unsafe extern "C" fn nc_def_var_filter(
    ncid: c_int,
    varid: c_int,
    id: c_uint,
    nparams: usize,
    params: *const c_uint,
) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let params = unsafe { read_array(params, nparams) }?;
        def_filter(ncid, varid, id, &params)
    })
}

/// The filter ids of a variable in chain order (0 for a codec that has
/// no HDF5 id or that this build does not know, as netcdf-c reports it).
///
/// # Safety
/// `nfiltersp` NULL or writable; `ids` NULL or room for every filter.
pub unsafe extern "C" fn nc_inq_var_filter_ids(
    ncid: c_int,
    varid: c_int,
    nfiltersp: *mut usize,
    ids: *mut c_uint,
) -> c_int {
    guard(|| {
        let filters = registry::with(ncid, |ds, grp| ds.model.var_filters(grp, varid))?;
        let list: Vec<c_uint> = filters.iter().map(|f| f.0).collect();
        unsafe {
            put(nfiltersp, list.len());
            put_slice(ids, &list);
        }
        Ok(())
    })
}

/// # Safety
/// `nparamsp` NULL or writable; `params` NULL or room for every parameter.
pub unsafe extern "C" fn nc_inq_var_filter_info(
    ncid: c_int,
    varid: c_int,
    id: c_uint,
    nparamsp: *mut usize,
    params: *mut c_uint,
) -> c_int {
    guard(|| {
        let p = registry::with(ncid, |ds, grp| ds.model.var_filter_info(grp, varid, id))?;
        unsafe {
            put(nparamsp, p.len());
            put_slice(params, &p);
        }
        Ok(())
    })
}

/// The first filter of a variable; `*idp` is 0 when it has none.
///
/// # Safety
/// Each pointer NULL or writable (`params`: room for every parameter).
pub unsafe extern "C" fn nc_inq_var_filter(
    ncid: c_int,
    varid: c_int,
    idp: *mut c_uint,
    nparamsp: *mut usize,
    params: *mut c_uint,
) -> c_int {
    guard(|| {
        let filters = registry::with(ncid, |ds, grp| ds.model.var_filters(grp, varid))?;
        let (id, p) = filters.into_iter().next().unwrap_or((0, Vec::new()));
        unsafe {
            put(idp, id);
            put(nparamsp, p.len());
            put_slice(params, &p);
        }
        Ok(())
    })
}

pub extern "C" fn nc_inq_filter_avail(ncid: c_int, id: c_uint) -> c_int {
    guard(|| {
        registry::check(ncid)?;
        if spec::available(id) { Ok(()) } else { Err(NcError::ENOFILTER) }
    })
}

/// Shuffle (if asked) then deflate (if asked), as netcdf-c orders them.
pub extern "C" fn nc_def_var_deflate(
    ncid: c_int,
    varid: c_int,
    shuffle: c_int,
    deflate: c_int,
    deflate_level: c_int,
) -> c_int {
    guard(|| {
        if deflate != 0 && !(0..=9).contains(&deflate_level) {
            return Err(NcError::EINVAL);
        }
        if shuffle != 0 {
            def_filter(ncid, varid, SHUFFLE, &[])?;
        }
        if deflate != 0 {
            def_filter(ncid, varid, DEFLATE, &[deflate_level as c_uint])?;
        }
        // Neither: still check the ids, as netcdf-c does.
        registry::with(ncid, |ds, grp| ds.model.var(grp, varid).map(|_| ()))
    })
}

/// # Safety
/// Each pointer must be NULL or writable.
pub unsafe extern "C" fn nc_inq_var_deflate(
    ncid: c_int,
    varid: c_int,
    shufflep: *mut c_int,
    deflatep: *mut c_int,
    deflate_levelp: *mut c_int,
) -> c_int {
    guard(|| {
        let shuffle = filter_params(ncid, varid, SHUFFLE)?.is_some();
        let deflate = filter_params(ncid, varid, DEFLATE)?;
        unsafe {
            put(shufflep, shuffle as c_int);
            put(deflatep, deflate.is_some() as c_int);
            put(deflate_levelp, deflate.and_then(|p| p.first().copied()).unwrap_or(0) as c_int);
        }
        Ok(())
    })
}

pub extern "C" fn nc_def_var_fletcher32(ncid: c_int, varid: c_int, fletcher32: c_int) -> c_int {
    guard(|| {
        if fletcher32 != 0 {
            def_filter(ncid, varid, FLETCHER32, &[])
        } else {
            registry::with(ncid, |ds, grp| ds.model.var(grp, varid).map(|_| ()))
        }
    })
}

/// # Safety
/// `fletcher32p` must be NULL or writable.
pub unsafe extern "C" fn nc_inq_var_fletcher32(ncid: c_int, varid: c_int, fletcher32p: *mut c_int) -> c_int {
    guard(|| {
        let on = filter_params(ncid, varid, FLETCHER32)?.is_some();
        unsafe { put(fletcher32p, on as c_int) };
        Ok(())
    })
}

/// szip is not built in (it may come as a plugin): NC_ENOFILTER.
pub extern "C" fn nc_def_var_szip(ncid: c_int, varid: c_int, options_mask: c_int, pixels_per_block: c_int) -> c_int {
    guard(|| def_filter(ncid, varid, SZIP, &[options_mask as c_uint, pixels_per_block as c_uint]))
}

/// # Safety
/// Each pointer must be NULL or writable.
pub unsafe extern "C" fn nc_inq_var_szip(
    ncid: c_int,
    varid: c_int,
    options_maskp: *mut c_int,
    pixels_per_blockp: *mut c_int,
) -> c_int {
    guard(|| {
        let p = filter_params(ncid, varid, SZIP)?.unwrap_or_default();
        unsafe {
            put(options_maskp, p.first().copied().unwrap_or(0) as c_int);
            put(pixels_per_blockp, p.get(1).copied().unwrap_or(0) as c_int);
        }
        Ok(())
    })
}

pub extern "C" fn nc_def_var_bzip2(ncid: c_int, varid: c_int, level: c_int) -> c_int {
    guard(|| {
        if !(1..=9).contains(&level) {
            return Err(NcError::EINVAL);
        }
        def_filter(ncid, varid, BZIP2, &[level as c_uint])
    })
}

/// Whether a level-style filter is present, and its level.
///
/// # Safety
/// Each pointer must be NULL or writable.
unsafe fn inq_level(ncid: c_int, varid: c_int, id: c_uint, hasfilterp: *mut c_int, levelp: *mut c_int) -> c_int {
    guard(|| {
        let p = filter_params(ncid, varid, id)?;
        unsafe {
            put(hasfilterp, p.is_some() as c_int);
            if let Some(level) = p.and_then(|p| p.first().copied()) {
                put(levelp, level as c_int);
            }
        }
        Ok(())
    })
}

/// # Safety
/// Each pointer must be NULL or writable.
pub unsafe extern "C" fn nc_inq_var_bzip2(
    ncid: c_int,
    varid: c_int,
    hasfilterp: *mut c_int,
    levelp: *mut c_int,
) -> c_int {
    unsafe { inq_level(ncid, varid, BZIP2, hasfilterp, levelp) }
}

pub extern "C" fn nc_def_var_zstandard(ncid: c_int, varid: c_int, level: c_int) -> c_int {
    guard(|| {
        if !(-131072..=22).contains(&level) {
            return Err(NcError::EINVAL);
        }
        def_filter(ncid, varid, ZSTD, &[level as c_uint])
    })
}

/// # Safety
/// Each pointer must be NULL or writable.
pub unsafe extern "C" fn nc_inq_var_zstandard(
    ncid: c_int,
    varid: c_int,
    hasfilterp: *mut c_int,
    levelp: *mut c_int,
) -> c_int {
    unsafe { inq_level(ncid, varid, ZSTD, hasfilterp, levelp) }
}

/// blosc with an inner codec of blosclz, lz4, lz4hc, zlib or zstd (snappy
/// is NC_ENOFILTER).
pub extern "C" fn nc_def_var_blosc(
    ncid: c_int,
    varid: c_int,
    subcompressor: c_uint,
    level: c_uint,
    blocksize: c_uint,
    addshuffle: c_uint,
) -> c_int {
    guard(|| {
        if addshuffle > 2 || subcompressor > 5 {
            return Err(NcError::EINVAL);
        }
        def_filter(ncid, varid, BLOSC, &[0, 0, 0, blocksize, level, addshuffle, subcompressor])
    })
}

/// # Safety
/// Each pointer must be NULL or writable.
pub unsafe extern "C" fn nc_inq_var_blosc(
    ncid: c_int,
    varid: c_int,
    hasfilterp: *mut c_int,
    subcompressorp: *mut c_uint,
    levelp: *mut c_uint,
    blocksizep: *mut c_uint,
    addshufflep: *mut c_uint,
) -> c_int {
    guard(|| {
        let p = filter_params(ncid, varid, BLOSC)?;
        unsafe {
            put(hasfilterp, p.is_some() as c_int);
            if let Some(p) = p.filter(|p| p.len() == 7) {
                put(blocksizep, p[3]);
                put(levelp, p[4]);
                put(addshufflep, p[5]);
                put(subcompressorp, p[6]);
            }
        }
        Ok(())
    })
}

/// `NCPluginList`: a count and an array of C strings.
#[repr(C)]
pub struct NcPluginList {
    pub ndirs: usize,
    pub dirs: *mut *mut c_char,
}

/// How many directories the plugin path has.
///
/// # Safety
/// `ndirsp` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_plugin_path_ndirs(ndirsp: *mut usize) -> c_int {
    guard(|| {
        unsafe { put(ndirsp, plugin::plugin_dirs().len()) };
        Ok(())
    })
}

/// The plugin path's directories, as malloc'ed strings the caller frees.
/// With `dirs->dirs` NULL the array is allocated too (the caller frees it);
/// otherwise it must have room for every directory (ask
/// `nc_plugin_path_ndirs` first), as in netcdf-c.
///
/// # Safety
/// `dirs` NULL or an `NCPluginList` as described.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_plugin_path_get(dirs: *mut NcPluginList) -> c_int {
    guard(|| {
        if dirs.is_null() {
            return Ok(());
        }
        let paths = plugin::plugin_dirs();
        // SAFETY: the caller's list, checked non-NULL.
        let list = unsafe { &mut *dirs };
        list.ndirs = paths.len();
        if paths.is_empty() {
            return Ok(());
        }
        if list.dirs.is_null() {
            // SAFETY: calloc checks the multiplication.
            list.dirs = unsafe { libc::calloc(paths.len(), std::mem::size_of::<*mut c_char>()) } as *mut *mut c_char;
            if list.dirs.is_null() {
                return Err(NcError::ENOMEM);
            }
        }
        for (i, path) in paths.iter().enumerate() {
            let copy = cmem::malloc_cstring(path.as_bytes())?;
            // SAFETY: the array has room for `paths.len()` pointers.
            unsafe { list.dirs.add(i).write(copy) };
        }
        Ok(())
    })
}

/// Replace the plugin path. The next filter question scans the new
/// directories (libraries already loaded stay loaded).
///
/// # Safety
/// `dirs` NULL or an `NCPluginList` whose `dirs` holds `ndirs` C strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_plugin_path_set(dirs: *mut NcPluginList) -> c_int {
    guard(|| {
        if dirs.is_null() {
            return Err(NcError::EINVAL);
        }
        // SAFETY: the caller's list, checked non-NULL.
        let list = unsafe { &*dirs };
        let entries = unsafe { read_array(list.dirs as *const *const c_char, list.ndirs) }?;
        let mut paths = Vec::with_capacity(entries.len());
        for entry in entries {
            let path = unsafe { c_str(entry, NcError::EINVAL) }?;
            paths.push(path.to_string());
        }
        plugin::set_plugin_dirs(paths);
        Ok(())
    })
}
