//! Attributes: the typed `nc_put_att_*`/`nc_get_att_*` families, inquiry,
//! deletion, renaming and copying.
//!
//! Each typed function names the C memory type of the caller's buffer;
//! values are converted between it and the attribute's type as netcdf-c
//! does (NC_ERANGE after converting everything, NC_ECHAR for text versus
//! numbers).

// Unsafe blocks here only dereference, or pass on, the enclosing C
// function's own pointer arguments, as its `# Safety` section says the
// caller guarantees: that section is their SAFETY comment (policy in
// src/capi/mod.rs). Blocks doing more carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "caller pointers, per each function's # Safety section")]

use std::ffi::{c_char, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulonglong, c_ushort, c_void};

use super::{c_bytes, c_str, guard, put, put_name};
use crate::dataset::Dataset;
use crate::error::{NcError, NcResult};
use crate::model::{NC_GLOBAL, Values, attrs};
use crate::registry;
use crate::types::*;

/// Attributes netcdf-c computes on request rather than storing; they are
/// readable by name only and never listed.
fn special_att(ds: &Dataset, grp: usize, varid: c_int, name: &str) -> Option<Values> {
    if varid != NC_GLOBAL {
        // `_Codecs`: the variable's codec chain as a JSON array (absent
        // when it has none).
        // Spelled as netcdf-c spells it (`[{"id": "zlib", "level": 1},...]`),
        // whatever spacing the stored metadata has.
        let var = ds.model.var(grp, varid).ok()?;
        return (name == "_Codecs" && !var.codecs.is_empty()).then(|| {
            Values::Char(crate::format::json::netcdf_c_text(&serde_json::Value::Array(var.codecs.clone())).into_bytes())
        });
    }
    match name {
        "_NCProperties" => ds.ncproperties.as_ref().map(|p| Values::Char(p.clone().into_bytes())),
        "_IsNetcdf4" => Some(Values::Int(vec![1])),
        "_SuperblockVersion" => Some(Values::Int(vec![2])),
        _ => None,
    }
}

/// Check that the variable (or NC_GLOBAL) exists.
fn check_varid(ds: &Dataset, grp: usize, varid: c_int) -> NcResult<()> {
    if varid != NC_GLOBAL {
        ds.model.var(grp, varid)?;
    }
    Ok(())
}

/// The attribute's values converted to `mem_type` (NC_NAT: its own
/// type), with the range-error flag.
fn fetch(ds: &Dataset, grp: usize, varid: c_int, name: &str, mem_type: NcType) -> NcResult<(Values, bool)> {
    check_varid(ds, grp, varid)?;
    match special_att(ds, grp, varid, name) {
        Some(values) => attrs::convert_for_reading(&values, mem_type, false),
        None => attrs::get_att(&ds.model, grp, varid, name, mem_type),
    }
}

/// Shared body of every `nc_put_att*`.
unsafe fn put_att_from_c(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    file_type: NcType,
    len: usize,
    op: *const c_void,
    mem_type: NcType,
) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        if name.is_null() {
            return Err(NcError::EBADNAME);
        }
        let name = unsafe { c_bytes(name) }?;
        // netcdf-c's limit, checked before anything is read or allocated.
        if len > 0 && op.is_null() || len > i32::MAX as usize {
            return Err(NcError::EINVAL);
        }
        registry::with(ncid, |ds, grp| {
            check_varid(ds, grp, varid)?;
            // The values must be readable before the model judges the
            // file type; an untyped put names them with the same id.
            attrs::check_att_type(mem_type)?;
            let values = unsafe { Values::read_from_c(mem_type, op, len) }?;
            attrs::put_att_as(&mut ds.model, grp, varid, name, file_type, values)
        })
    })
}

/// An attribute name argument: NULL is NC_EBADNAME, as in netcdf-c.
unsafe fn att_name<'a>(name: *const c_char) -> NcResult<&'a str> {
    if name.is_null() {
        return Err(NcError::EBADNAME);
    }
    unsafe { c_str(name, NcError::ENOTATT) }
}

/// Shared body of every `nc_get_att*`: the values are delivered even when
/// some were out of range, and NC_ERANGE is returned afterwards.
unsafe fn get_att_to_c(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_void, mem_type: NcType) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { att_name(name) }?;
        registry::with(ncid, |ds, grp| {
            let (values, range_error) = fetch(ds, grp, varid, name, mem_type)?;
            if !ip.is_null() {
                unsafe { values.write_to_c(ip) }?;
                if let Values::Char(text) = &values
                    && special_att(ds, grp, varid, name).is_some()
                {
                    // netcdf-c copies the computed text attributes
                    // (`_Codecs`, `_NCProperties`) with their NUL, one byte
                    // past the length it reports, and ncdump prints them
                    // as C strings relying on it.
                    // SAFETY: beyond "room for every value": as with
                    // netcdf-c, callers reading these two attributes must
                    // allow one byte more (ncdump allocates length + 1).
                    unsafe { (ip as *mut u8).add(text.len()).write(0) };
                }
            }
            if range_error { Err(NcError::ERANGE) } else { Ok(()) }
        })
    })
}

macro_rules! doc_put {
    () => {
        "Write an attribute from a C array of this function's type.\n\n# Safety\n`name` must be a C string; `op` must hold `len` values."
    };
}
macro_rules! doc_get {
    () => {
        "Read an attribute into a C array of this function's type.\n\n# Safety\n`name` must be a C string; `ip` NULL or room for every value (for the computed text attributes `_NCProperties` and `_Codecs`, one byte more: their NUL, which netcdf-c writes too)."
    };
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_text(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    len: usize,
    op: *const c_char,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, NC_CHAR, len, op as *const c_void, NC_CHAR) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_string(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    len: usize,
    op: *mut *const c_char,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, NC_STRING, len, op as *const c_void, NC_STRING) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_schar(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_schar,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_BYTE) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_uchar(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_uchar,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_UBYTE) }
}

/// netcdf-c's other name for [`nc_put_att_uchar`].
///
/// # Safety
/// As [`nc_put_att_uchar`].
pub unsafe extern "C" fn nc_put_att_ubyte(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_uchar,
) -> c_int {
    unsafe { nc_put_att_uchar(ncid, varid, name, xtype, len, op) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_short(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_short,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_SHORT) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_int(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_int,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_INT) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_long(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_long,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_LONG_MEMTYPE) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_float(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const f32,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_FLOAT) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_double(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const f64,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_DOUBLE) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_ushort(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_ushort,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_USHORT) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_uint(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_uint,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_UINT) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_longlong(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_longlong,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_INT64) }
}

#[doc = doc_put!()]
pub unsafe extern "C" fn nc_put_att_ulonglong(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_ulonglong,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op as *const c_void, NC_UINT64) }
}

/// Write an attribute whose memory type equals its file type `xtype`.
///
/// # Safety
/// `name` must be a C string; `op` must hold `len` values of `xtype`.
pub unsafe extern "C" fn nc_put_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_void,
) -> c_int {
    unsafe { put_att_from_c(ncid, varid, name, xtype, len, op, xtype) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_text(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_char) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_CHAR) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_string(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    ip: *mut *mut c_char,
) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_STRING) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_schar(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_schar) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_BYTE) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_uchar(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_uchar) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_UBYTE) }
}

/// netcdf-c's other name for [`nc_get_att_uchar`].
///
/// # Safety
/// As [`nc_get_att_uchar`].
pub unsafe extern "C" fn nc_get_att_ubyte(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_uchar) -> c_int {
    unsafe { nc_get_att_uchar(ncid, varid, name, ip) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_short(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_short) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_SHORT) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_int(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_int) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_INT) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_long(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_long) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_LONG_MEMTYPE) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_float(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut f32) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_FLOAT) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_double(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut f64) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_DOUBLE) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_ushort(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_ushort) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_USHORT) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_uint(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_uint) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_UINT) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_longlong(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    ip: *mut c_longlong,
) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_INT64) }
}

#[doc = doc_get!()]
pub unsafe extern "C" fn nc_get_att_ulonglong(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    ip: *mut c_ulonglong,
) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip as *mut c_void, NC_UINT64) }
}

/// Read an attribute in its own type.
///
/// # Safety
/// `name` must be a C string; `ip` NULL or room for every value (plus one
/// byte for `_NCProperties` and `_Codecs`, as in [`nc_get_att_text`]).
pub unsafe extern "C" fn nc_get_att(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_void) -> c_int {
    unsafe { get_att_to_c(ncid, varid, name, ip, NC_NAT) }
}

/// Type and length of an attribute.
///
/// # Safety
/// `name` must be a C string; the out-pointers NULL or writable.
pub unsafe extern "C" fn nc_inq_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtypep: *mut c_int,
    lenp: *mut usize,
) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { att_name(name) }?;
        registry::with(ncid, |ds, grp| {
            let (values, _) = fetch(ds, grp, varid, name, NC_NAT)?;
            unsafe {
                put(xtypep, values.nc_type());
                put(lenp, values.len());
            }
            Ok(())
        })
    })
}

/// # Safety
/// As [`nc_inq_att`].
pub unsafe extern "C" fn nc_inq_atttype(ncid: c_int, varid: c_int, name: *const c_char, xtypep: *mut c_int) -> c_int {
    unsafe { nc_inq_att(ncid, varid, name, xtypep, std::ptr::null_mut()) }
}

/// # Safety
/// As [`nc_inq_att`].
pub unsafe extern "C" fn nc_inq_attlen(ncid: c_int, varid: c_int, name: *const c_char, lenp: *mut usize) -> c_int {
    unsafe { nc_inq_att(ncid, varid, name, std::ptr::null_mut(), lenp) }
}

/// The number of an attribute. Computed attributes have none
/// (NC_EATTMETA, as in netcdf-c).
///
/// # Safety
/// `name` must be a C string; `idp` NULL or writable.
pub unsafe extern "C" fn nc_inq_attid(ncid: c_int, varid: c_int, name: *const c_char, idp: *mut c_int) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { att_name(name) }?;
        registry::with(ncid, |ds, grp| {
            check_varid(ds, grp, varid)?;
            if special_att(ds, grp, varid, name).is_some() {
                return Err(NcError::EATTMETA);
            }
            let (num, _) = attrs::find_att(&ds.model, grp, varid, name)?;
            unsafe { put(idp, num as c_int) };
            Ok(())
        })
    })
}

/// # Safety
/// `name` NULL or room for NC_MAX_NAME + 1 bytes.
pub unsafe extern "C" fn nc_inq_attname(ncid: c_int, varid: c_int, attnum: c_int, name: *mut c_char) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            let att = attrs::att_by_number(&ds.model, grp, varid, attnum)?;
            unsafe { put_name(name, &att.name) };
            Ok(())
        })
    })
}

/// # Safety
/// `name` must be a C string.
pub unsafe extern "C" fn nc_del_att(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { c_bytes(name) }?;
        registry::with(ncid, |ds, grp| attrs::del_att(&mut ds.model, grp, varid, name))
    })
}

/// # Safety
/// `name` and `newname` must be C strings.
pub unsafe extern "C" fn nc_rename_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    newname: *const c_char,
) -> c_int {
    guard(|| {
        super::file::check_id(ncid)?;
        let name = unsafe { c_bytes(name) }?;
        let newname = unsafe { c_bytes(newname) }?;
        registry::with(ncid, |ds, grp| attrs::rename_att(&mut ds.model, grp, varid, name, newname))
    })
}

/// Copy an attribute to another variable, group or dataset.
///
/// # Safety
/// `name` must be a C string.
pub unsafe extern "C" fn nc_copy_att(
    ncid_in: c_int,
    varid_in: c_int,
    name: *const c_char,
    ncid_out: c_int,
    varid_out: c_int,
) -> c_int {
    guard(|| {
        super::file::check_id(ncid_in)?;
        super::file::check_id(ncid_out)?;
        let name_bytes = unsafe { c_bytes(name) }?;
        let name = std::str::from_utf8(name_bytes).map_err(|_| NcError::ENOTATT)?;
        // Read first and release the source before writing: source and
        // destination may be the same dataset.
        let values = registry::with(ncid_in, |ds, grp| {
            check_varid(ds, grp, varid_in)?;
            Ok(attrs::find_att(&ds.model, grp, varid_in, name)?.1.values.clone())
        })?;
        registry::with(ncid_out, |ds, grp| {
            check_varid(ds, grp, varid_out)?;
            attrs::put_att(&mut ds.model, grp, varid_out, name_bytes, values)
        })
    })
}
