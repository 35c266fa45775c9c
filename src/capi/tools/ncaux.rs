//! The `ncaux_*` functions of netcdf-c's public `netcdf_aux.h`: type
//! alignment and filter spec parsing (which the utilities use), whole-file
//! reads and writes, typed-memory reclaiming, and the compound-type
//! builder (which ends in NC_ENOTNC4, NCZarr having no compound types).

use std::ffi::{c_char, c_int, c_uchar, c_uint, c_void};

use super::{guarded, log, opt_bytes};
use crate::capi::{guard, put};
use crate::compat::{alignment, filterspec, nclog};
use crate::error::{NcError, NcResult};

/// `struct NC_H5_Filterspec` (netcdf_aux.h).
#[repr(C)]
pub struct NC_H5_Filterspec {
    pub filterid: c_uint,
    pub nparams: usize,
    pub params: *mut c_uint,
}

/// `int ncaux_class_alignment(int ncclass, size_t* alignp)`: the C
/// alignment of an atomic type, NC_VLEN or NC_OPAQUE; any other class is
/// NC_EINVAL (alignment 0) and logs an error, as netcdf-c does.
///
/// # Safety
/// `alignp` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_class_alignment(ncclass: c_int, alignp: *mut usize) -> c_int {
    guard(|| {
        let (align, result) = match alignment::class_alignment(ncclass) {
            Ok(a) => (a, Ok(())),
            Err((e, message)) => {
                log::emit(nclog::NCLOGERR, message.as_bytes());
                (0, Err(e))
            }
        };
        // SAFETY: NULL or writable.
        unsafe { put(alignp, align) };
        result
    })
}

/// A malloc'ed copy of unsigned ints (never NULL on success, even when
/// empty, as netcdf-c's calloc of zero elements).
fn c_uints(values: &[u32]) -> NcResult<*mut c_uint> {
    // SAFETY: a fresh block of at least one element, filled below.
    unsafe {
        let p = libc::malloc(values.len().max(1) * std::mem::size_of::<c_uint>()) as *mut c_uint;
        if p.is_null() {
            return Err(NcError::ENOMEM);
        }
        std::ptr::copy_nonoverlapping(values.as_ptr(), p, values.len());
        Ok(p)
    }
}

/// A malloc'ed NC_H5_Filterspec.
fn c_spec(spec: &filterspec::Spec) -> NcResult<*mut NC_H5_Filterspec> {
    let params = c_uints(&spec.params)?;
    // SAFETY: a fresh block for one struct, written whole.
    unsafe {
        let p = libc::malloc(std::mem::size_of::<NC_H5_Filterspec>()) as *mut NC_H5_Filterspec;
        if p.is_null() {
            libc::free(params as *mut c_void);
            return Err(NcError::ENOMEM);
        }
        p.write(NC_H5_Filterspec { filterid: spec.id, nparams: spec.params.len(), params });
        Ok(p)
    }
}

/// `int ncaux_h5filterspec_parselist(const char* txt, int* formatp,
/// size_t* nspecsp, NC_H5_Filterspec*** vectorp)`: parse
/// `[format]id,params|id,params...` into a malloc'ed vector of malloc'ed
/// specs (NULL for an empty list). NC_EINVAL on a syntax error.
///
/// # Safety
/// `txt` is NULL or a C string; the out-pointers are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_parselist(
    txt: *const c_char,
    formatp: *mut c_int,
    nspecsp: *mut usize,
    vectorp: *mut *mut *mut NC_H5_Filterspec,
) -> c_int {
    // SAFETY: per this function's contract.
    let Some(text) = (unsafe { opt_bytes(txt) }) else { return NcError::EINVAL.0 };
    guard(|| {
        let list = filterspec::parse_list(text)?;
        let n = list.specs.len();
        let mut vector: *mut *mut NC_H5_Filterspec = std::ptr::null_mut();
        if n > 0 && !vectorp.is_null() {
            // SAFETY: a zeroed array of n pointers.
            vector = unsafe { libc::calloc(n, std::mem::size_of::<*mut NC_H5_Filterspec>()) } as *mut _;
            if vector.is_null() {
                return Err(NcError::ENOMEM);
            }
            for (i, spec) in list.specs.iter().enumerate() {
                match c_spec(spec) {
                    // SAFETY: i < n.
                    Ok(p) => unsafe { *vector.add(i) = p },
                    Err(e) => {
                        for j in 0..i {
                            // SAFETY: the specs made so far, then the array.
                            unsafe { ncaux_h5filterspec_free(*vector.add(j)) };
                        }
                        // SAFETY: as above.
                        unsafe { libc::free(vector as *mut c_void) };
                        return Err(e);
                    }
                }
            }
        }
        // SAFETY: NULL or writable.
        unsafe {
            put(formatp, list.format);
            put(nspecsp, n);
            put(vectorp, vector);
        }
        Ok(())
    })
}

/// `int ncaux_h5filterspec_parse(const char* txt, unsigned int* idp,
/// size_t* nparamsp, unsigned int** paramsp)`: one `id,params` spec; the
/// parameters are malloc'ed.
///
/// # Safety
/// `txt` is NULL or a C string; the out-pointers are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_parse(
    txt: *const c_char,
    idp: *mut c_uint,
    nparamsp: *mut usize,
    paramsp: *mut *mut c_uint,
) -> c_int {
    // SAFETY: per this function's contract.
    let Some(text) = (unsafe { opt_bytes(txt) }) else { return NcError::EINVAL.0 };
    guard(|| {
        let spec = filterspec::parse_spec(text)?;
        let params = if paramsp.is_null() { std::ptr::null_mut() } else { c_uints(&spec.params)? };
        // SAFETY: NULL or writable.
        unsafe {
            put(idp, spec.id);
            put(nparamsp, spec.params.len());
            put(paramsp, params);
        }
        Ok(())
    })
}

/// `int ncaux_h5filterspec_parse_parameter(const char* txt, size_t*
/// nuiparamsp, unsigned int* uiparams)`: one typed parameter into one or
/// two unsigned ints of the caller's array (room for two needed).
///
/// # Safety
/// `txt` is NULL or a C string; `nuiparamsp` NULL or writable;
/// `uiparams` NULL or writable for two unsigned ints.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_parse_parameter(
    txt: *const c_char,
    nuiparamsp: *mut usize,
    uiparams: *mut c_uint,
) -> c_int {
    // SAFETY: per this function's contract.
    let Some(text) = (unsafe { opt_bytes(txt) }) else { return NcError::EINVAL.0 };
    if uiparams.is_null() {
        return NcError::EINVAL.0;
    }
    guard(|| {
        let values = filterspec::parse_parameter(text)?;
        // SAFETY: uiparams holds two unsigned ints; nuiparamsp NULL or
        // writable.
        unsafe {
            crate::capi::put_slice(uiparams, &values);
            put(nuiparamsp, values.len());
        }
        Ok(())
    })
}

/// `void ncaux_h5filterspec_free(NC_H5_Filterspec* f)`: free a spec and
/// its parameters.
///
/// # Safety
/// `f` is NULL or a spec from this library's parsers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_free(f: *mut NC_H5_Filterspec) {
    if !f.is_null() {
        // SAFETY: both blocks came from malloc.
        unsafe {
            libc::free((*f).params as *mut c_void);
            libc::free(f as *mut c_void);
        }
    }
}

/// `void ncaux_h5filterspec_fix8(unsigned char* mem, int decode)`: turn an
/// 8-byte value into (or back from) the two-unsigned-int form HDF5
/// filter parameters use: nothing to do on a little-endian machine; on a
/// big-endian one the value is made little-endian and each half swapped
/// back.
///
/// # Safety
/// `mem` is NULL or valid for 8 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_fix8(mem: *mut c_uchar, decode: c_int) {
    if mem.is_null() || cfg!(target_endian = "little") {
        return;
    }
    guarded((), || {
        // SAFETY: mem is valid for 8 bytes.
        let bytes = unsafe { &mut *(mem as *mut [u8; 8]) };
        let halves = |b: &mut [u8; 8]| {
            b[..4].reverse();
            b[4..].reverse();
        };
        if decode != 0 {
            halves(bytes);
            bytes.reverse();
        } else {
            bytes.reverse();
            halves(bytes);
        }
    })
}

/// `ncaux_reclaim_data`: netcdf-c's name for [`nc_reclaim_data`](crate::capi::udt::nc_reclaim_data).
///
/// # Safety
/// As `nc_reclaim_data`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_reclaim_data(ncid: c_int, xtype: c_int, memory: *mut c_void, count: usize) -> c_int {
    // SAFETY: the same contract, passed on.
    unsafe { crate::capi::api::nc_reclaim_data(ncid, xtype, memory, count) }
}

/// `ncaux_reclaim_data_all`: as `nc_reclaim_data_all`.
///
/// # Safety
/// As `nc_reclaim_data_all`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_reclaim_data_all(ncid: c_int, xtype: c_int, memory: *mut c_void, count: usize) -> c_int {
    // SAFETY: the same contract, passed on.
    unsafe { crate::capi::api::nc_reclaim_data_all(ncid, xtype, memory, count) }
}

/// The C alignment of values of a type: atomic types by their class;
/// user types of a dataset the netcdf-c beside us serves, as it computes
/// them; NCZarr has none (the ncid is checked, then NC_EBADTYPE).
///
/// # Safety
/// `alignp` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_type_alignment(xtype: c_int, ncid: c_int, alignp: *mut usize) -> c_int {
    if let crate::registry::Route::Theirs(d) = crate::registry::route(ncid) {
        // SAFETY: the caller's arguments, passed on under the same contract.
        return d.call(|t| t.ncaux_type_alignment.map(|f| unsafe { f(xtype, d.ncid, alignp) }));
    }
    guard(|| {
        if xtype > crate::types::NC_STRING {
            crate::registry::check(ncid)?;
            return Err(NcError::EBADTYPE);
        }
        let align = alignment::class_alignment_of(xtype)?;
        // SAFETY: `alignp` is NULL or writable, as the caller promises.
        unsafe { put(alignp, align) };
        Ok(())
    })
}

/// A whole file's bytes in malloc'ed memory (NUL-terminated for text
/// callers, the size not counting it); errors are the system's errno.
///
/// # Safety
/// `filename` must be a C string; `sizep`, `content` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_readfile(
    filename: *const c_char,
    sizep: *mut usize,
    content: *mut *mut c_void,
) -> c_int {
    guard(|| {
        // SAFETY: `filename` is a C string, as the caller promises.
        let path = unsafe { crate::capi::c_bytes(filename) }?;
        let path = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path));
        let bytes = std::fs::read(path).map_err(|e| NcError(e.raw_os_error().unwrap_or(crate::error::code::NC_EIO)))?;
        // SAFETY: `sizep` is NULL or writable, as the caller promises.
        unsafe { put(sizep, bytes.len()) };
        if !content.is_null() {
            let copy = crate::capi::cmem::malloc_cstring(&bytes)?;
            // SAFETY: `content` (not NULL) is writable; the caller owns
            // the malloc'ed copy from here on.
            unsafe { put(content, copy as *mut c_void) };
        }
        Ok(())
    })
}

/// Write `size` bytes to a file, replacing it; NULL content writes an
/// empty file, as netcdf-c does.
///
/// # Safety
/// `filename` must be a C string; `content` NULL or `size` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_writefile(filename: *const c_char, size: usize, content: *mut c_void) -> c_int {
    guard(|| {
        // SAFETY: `filename` is a C string, as the caller promises.
        let path = unsafe { crate::capi::c_bytes(filename) }?;
        let path = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path));
        let bytes: &[u8] = if content.is_null() {
            &[]
        } else {
            // SAFETY: the caller's `size` bytes.
            unsafe { std::slice::from_raw_parts(content as *const u8, size) }
        };
        std::fs::write(path, bytes).map_err(|e| NcError(e.raw_os_error().unwrap_or(crate::error::code::NC_EIO)))
    })
}

/// A compound type under construction (`ncaux_begin_compound`): only its
/// dataset is needed, since ending it defines a compound type, which
/// NCZarr lacks.
struct CompoundTag {
    ncid: c_int,
}

/// Start a compound type. The tag is freed by `ncaux_end_compound`'s
/// caller through `ncaux_abort_compound`, as in netcdf-c.
///
/// # Safety
/// `name` must be a C string; `tag` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_begin_compound(
    ncid: c_int,
    name: *const c_char,
    _alignmode: c_int,
    tag: *mut *mut c_void,
) -> c_int {
    guard(|| {
        // SAFETY: `tag` is NULL or writable, as the caller promises.
        unsafe { put(tag, std::ptr::null_mut()) };
        // SAFETY: `name` is a C string, as the caller promises.
        unsafe { crate::capi::c_bytes(name) }?;
        if !tag.is_null() {
            let boxed = Box::into_raw(Box::new(CompoundTag { ncid }));
            // SAFETY: as above; the caller owns the box until it ends or
            // aborts the compound.
            unsafe { put(tag, boxed as *mut c_void) };
        }
        Ok(())
    })
}

/// Add a field: checked as netcdf-c checks it (no negative rank, no
/// non-positive dimension), then forgotten, since the type can never be
/// defined here.
///
/// # Safety
/// `dimsizes` must hold `ndims` ints.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_add_field(
    tag: *mut c_void,
    _name: *const c_char,
    _field_type: c_int,
    ndims: c_int,
    dimsizes: *const c_int,
) -> c_int {
    guard(|| {
        if tag.is_null() {
            return Ok(());
        }
        let n = usize::try_from(ndims).map_err(|_| NcError::EINVAL)?;
        // SAFETY: `dimsizes` holds `ndims` ints, as the caller promises.
        let sizes = unsafe { crate::capi::read_array(dimsizes, n) }?;
        if sizes.iter().any(|&s| s <= 0) {
            return Err(NcError::EINVAL);
        }
        Ok(())
    })
}

/// Define the compound type: `nc_def_compound`'s answer (NC_ENOTNC4 for an
/// NCZarr dataset).
///
/// # Safety
/// `tag` NULL or from `ncaux_begin_compound`; `xtypeid` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_end_compound(tag: *mut c_void, xtypeid: *mut c_int) -> c_int {
    if tag.is_null() {
        return NcError::EINVAL.0;
    }
    // SAFETY: a tag made by ncaux_begin_compound and not yet aborted.
    let ncid = unsafe { (*(tag as *const CompoundTag)).ncid };
    // SAFETY: nc_def_compound uses none of its pointer arguments.
    unsafe { crate::capi::api::nc_def_compound(ncid, 0, std::ptr::null(), xtypeid) }
}

/// Free a tag.
///
/// # Safety
/// `tag` NULL or from `ncaux_begin_compound`, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_abort_compound(tag: *mut c_void) -> c_int {
    if !tag.is_null() {
        // SAFETY: made by Box::into_raw in ncaux_begin_compound.
        drop(unsafe { Box::from_raw(tag as *mut CompoundTag) });
    }
    0
}
