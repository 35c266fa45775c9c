//! User-defined types (compound, enum, vlen, opaque) and the memory helpers
//! around typed data.
//!
//! NCZarr has no user-defined types, so these answer exactly as netcdf-c's
//! NCZarr dispatch does: after the ncid check, the calls that define or
//! take apart a type are `NC_ENOTNC4` (its `NC_NOTNC4_*` table entries),
//! and the inquiries that go through `nc_inq_user_type` are `NC_EBADTYPE`
//! (no type has such an id). The atomic types are still found by name
//! (`nc_inq_typeid`), compared (`nc_inq_type_equal`), copied and reclaimed.

use std::ffi::{CStr, c_char, c_int, c_longlong, c_void};

use super::{c_bytes, guard, put};
use crate::error::{NcError, NcResult};
use crate::registry;
use crate::types::{NC_NAT, NC_STRING, is_atomic, type_size};

/// `nc_vlen_t`: a length and a pointer to `len` base-type values.
#[repr(C)]
pub struct NcVlen {
    pub len: usize,
    pub p: *mut c_void,
}

/// The answer to every call that would define or dissect a user type.
fn not_netcdf4(ncid: c_int) -> c_int {
    guard(|| {
        registry::check(ncid)?;
        Err(NcError::ENOTNC4)
    })
}

/// The answer to every inquiry about a user type by id.
fn no_such_user_type(ncid: c_int) -> c_int {
    guard(|| {
        registry::check(ncid)?;
        Err(NcError::EBADTYPE)
    })
}

macro_rules! not_netcdf4 {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        /// NCZarr has no user-defined types: `NC_ENOTNC4` once the ncid is
        /// known good, as netcdf-c answers for NCZarr.
        ///
        /// # Safety
        /// No pointer argument is used.
        #[allow(unused_variables)]
        pub unsafe extern "C" fn $name(ncid: c_int, $($arg: $ty),*) -> c_int {
            not_netcdf4(ncid)
        }
    )*};
}

macro_rules! no_such_user_type {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        /// No type has this id in an NCZarr dataset: `NC_EBADTYPE` once the
        /// ncid is known good, as netcdf-c's `nc_inq_user_type` answers.
        ///
        /// # Safety
        /// No pointer argument is used.
        #[allow(unused_variables)]
        pub unsafe extern "C" fn $name(ncid: c_int, $($arg: $ty),*) -> c_int {
            no_such_user_type(ncid)
        }
    )*};
}

not_netcdf4! {
    nc_def_compound(size: usize, name: *const c_char, typeidp: *mut c_int);
    nc_insert_compound(xtype: c_int, name: *const c_char, offset: usize, field_typeid: c_int);
    nc_insert_array_compound(xtype: c_int, name: *const c_char, offset: usize, field_typeid: c_int,
        ndims: c_int, dim_sizes: *const c_int);
    nc_insert_array_compound_f(typeid1: c_int, name: *mut c_char, offset: usize, field_typeid: c_int,
        ndims: c_int, dim_sizesp: *mut c_int);
    nc_inq_compound_field(xtype: c_int, fieldid: c_int, name: *mut c_char, offsetp: *mut usize,
        field_typeidp: *mut c_int, ndimsp: *mut c_int, dim_sizesp: *mut c_int);
    nc_inq_compound_field_f(xtype: c_int, fieldid: c_int, name: *mut c_char, offsetp: *mut usize,
        field_typeidp: *mut c_int, ndimsp: *mut c_int, dim_sizesp: *mut c_int);
    nc_inq_compound_fieldname(xtype: c_int, fieldid: c_int, name: *mut c_char);
    nc_inq_compound_fieldoffset(xtype: c_int, fieldid: c_int, offsetp: *mut usize);
    nc_inq_compound_fieldtype(xtype: c_int, fieldid: c_int, field_typeidp: *mut c_int);
    nc_inq_compound_fieldndims(xtype: c_int, fieldid: c_int, ndimsp: *mut c_int);
    nc_inq_compound_fielddim_sizes(xtype: c_int, fieldid: c_int, dim_sizes: *mut c_int);
    nc_inq_compound_fieldindex(xtype: c_int, name: *const c_char, fieldidp: *mut c_int);
    nc_def_vlen(name: *const c_char, base_typeid: c_int, xtypep: *mut c_int);
    nc_put_vlen_element(typeid1: c_int, vlen_element: *mut c_void, len: usize, data: *const c_void);
    nc_get_vlen_element(typeid1: c_int, vlen_element: *const c_void, len: *mut usize, data: *mut c_void);
    nc_def_enum(base_typeid: c_int, name: *const c_char, typeidp: *mut c_int);
    nc_insert_enum(xtype: c_int, name: *const c_char, value: *const c_void);
    nc_inq_enum_member(xtype: c_int, idx: c_int, name: *mut c_char, value: *mut c_void);
    nc_inq_enum_ident(xtype: c_int, value: c_longlong, identifier: *mut c_char);
    nc_def_opaque(size: usize, name: *const c_char, xtypep: *mut c_int);
}

no_such_user_type! {
    nc_inq_user_type(xtype: c_int, name: *mut c_char, size: *mut usize, base_nc_typep: *mut c_int,
        nfieldsp: *mut usize, classp: *mut c_int);
    nc_inq_compound(xtype: c_int, name: *mut c_char, sizep: *mut usize, nfieldsp: *mut usize);
    nc_inq_compound_name(xtype: c_int, name: *mut c_char);
    nc_inq_compound_size(xtype: c_int, sizep: *mut usize);
    nc_inq_compound_nfields(xtype: c_int, nfieldsp: *mut usize);
    nc_inq_vlen(xtype: c_int, name: *mut c_char, datum_sizep: *mut usize, base_nc_typep: *mut c_int);
    nc_inq_enum(xtype: c_int, name: *mut c_char, base_nc_typep: *mut c_int, base_sizep: *mut usize,
        num_membersp: *mut usize);
    nc_inq_opaque(xtype: c_int, name: *mut c_char, sizep: *mut usize);
}

/// The names netcdf-c gives the atomic types in `nc_inq_typeid`, indexed
/// by type id ("none" is NC_NAT).
const ATOMIC_NAMES: [&str; 13] =
    ["none", "byte", "char", "short", "int", "float", "double", "ubyte", "ushort", "uint", "int64", "uint64", "string"];

/// A type's id from its name: only the atomic types exist. A name with a
/// `/` that is not a full path is NC_EINVAL, any other unknown name
/// NC_EBADTYPE, as in netcdf-c.
///
/// # Safety
/// `name` must be a C string; `typeidp` NULL or writable.
pub unsafe extern "C" fn nc_inq_typeid(ncid: c_int, name: *const c_char, typeidp: *mut c_int) -> c_int {
    guard(|| {
        registry::check(ncid)?;
        // SAFETY: `name` is a C string, as the caller promises.
        let name = unsafe { c_bytes(name) }?;
        if let Some(id) = ATOMIC_NAMES.iter().position(|n| n.as_bytes() == name) {
            // SAFETY: `typeidp` is NULL or writable, as the caller promises.
            unsafe { put(typeidp, id as c_int) };
            return Ok(());
        }
        if name.first() != Some(&b'/') && name.contains(&b'/') {
            return Err(NcError::EINVAL);
        }
        Err(NcError::EBADTYPE)
    })
}

/// Are two types the same? Atomic types are equal when their ids are; an
/// atomic and a user type never are; user type ids do not exist here.
///
/// # Safety
/// `equal` must be NULL or writable.
pub unsafe extern "C" fn nc_inq_type_equal(
    ncid1: c_int,
    typeid1: c_int,
    _ncid2: c_int,
    typeid2: c_int,
    equal: *mut c_int,
) -> c_int {
    guard(|| {
        registry::check(ncid1)?;
        // netcdf-c answers nothing, successfully, when there is nowhere to
        // put the answer.
        if equal.is_null() {
            return Ok(());
        }
        if typeid1 <= NC_NAT || typeid2 <= NC_NAT {
            return Err(NcError::EINVAL);
        }
        let atomic1 = typeid1 <= NC_STRING;
        let atomic2 = typeid2 <= NC_STRING;
        if atomic1 != atomic2 {
            // SAFETY: `equal` is NULL or writable, as the caller promises.
            unsafe { put(equal, 0) };
            return Ok(());
        }
        // netcdf-c counts the 13 ids 0..=12 as atomic here, so 13 compares
        // by id too.
        if typeid1 <= ATOMIC_NAMES.len() as c_int {
            // SAFETY: as above.
            unsafe { put(equal, (typeid1 == typeid2) as c_int) };
            return Ok(());
        }
        Err(NcError::EBADTYPE)
    })
}

/// Free the values a vlen holds (not the `nc_vlen_t` itself).
///
/// # Safety
/// `vl` must point to an `nc_vlen_t` whose `p` is NULL or malloc'ed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_free_vlen(vl: *mut NcVlen) -> c_int {
    guard(|| {
        if vl.is_null() {
            return Err(NcError::EINVAL);
        }
        // SAFETY: the caller's vlen, whose data netCDF allocated with malloc.
        unsafe {
            libc::free((*vl).p);
            (*vl).p = std::ptr::null_mut();
        }
        Ok(())
    })
}

/// [`nc_free_vlen`] on each of `len` vlens.
///
/// # Safety
/// `vlens` must hold `len` vlens as for [`nc_free_vlen`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_free_vlens(len: usize, vlens: *mut NcVlen) -> c_int {
    if len > 0 && vlens.is_null() {
        return NcError::EINVAL.0;
    }
    for i in 0..len {
        // SAFETY: i < len, and `vlens` holds `len` vlens, as the caller promises.
        let status = unsafe { nc_free_vlen(vlens.add(i)) };
        if status != 0 {
            return status;
        }
    }
    0
}

/// Whether values of `xtype` own memory that must be freed or deep-copied
/// (strings), after netcdf-c's argument checks. Types past NC_STRING would
/// be user types, which NCZarr lacks.
fn owns_memory(ncid: c_int, xtype: c_int) -> NcResult<bool> {
    if ncid < 0 || xtype <= NC_NAT {
        return Err(NcError::EINVAL);
    }
    match xtype {
        NC_STRING => Ok(true),
        t if t < NC_STRING => Ok(false),
        _ => {
            registry::check(ncid)?;
            Err(NcError::EBADTYPE)
        }
    }
}

/// Free what `count` values of `xtype` at `memory` point to (the strings
/// of NC_STRING data), leaving `memory` itself alone.
///
/// # Safety
/// `memory` must be NULL or hold `count` values of `xtype`; string
/// pointers must be NULL or malloc'ed.
pub unsafe extern "C" fn nc_reclaim_data(ncid: c_int, xtypeid: c_int, memory: *mut c_void, nelems: usize) -> c_int {
    guard(|| {
        let owns = owns_memory(ncid, xtypeid)?;
        if memory.is_null() {
            return if nelems > 0 { Err(NcError::EINVAL) } else { Ok(()) };
        }
        if owns {
            let strings = memory as *mut *mut c_char;
            for i in 0..nelems {
                // SAFETY: the caller's array of malloc'ed (or NULL) strings.
                unsafe {
                    let s = strings.add(i).read_unaligned();
                    libc::free(s as *mut c_void);
                }
            }
        }
        Ok(())
    })
}

/// [`nc_reclaim_data`], then free `memory` itself.
///
/// # Safety
/// As [`nc_reclaim_data`]; `memory` must be NULL or malloc'ed.
pub unsafe extern "C" fn nc_reclaim_data_all(ncid: c_int, xtypeid: c_int, memory: *mut c_void, nelems: usize) -> c_int {
    // SAFETY: our contract includes nc_reclaim_data's.
    let status = unsafe { nc_reclaim_data(ncid, xtypeid, memory, nelems) };
    if status == 0 {
        // SAFETY: the caller hands over a malloc'ed block.
        unsafe { libc::free(memory) };
    }
    status
}

/// Copy `count` values of `xtype` from `memory` to `copy`, duplicating
/// strings so the copy owns its own.
///
/// # Safety
/// `memory` must hold `count` values of `xtype` and `copy` have room for
/// them (either may be NULL when `count` is 0).
pub unsafe extern "C" fn nc_copy_data(
    ncid: c_int,
    xtypeid: c_int,
    memory: *const c_void,
    count: usize,
    copy: *mut c_void,
) -> c_int {
    // SAFETY: copy_data's contract is ours.
    guard(|| unsafe { copy_data(ncid, xtypeid, memory, count, copy) })
}

/// # Safety
/// As [`nc_copy_data`].
unsafe fn copy_data(ncid: c_int, xtype: c_int, memory: *const c_void, count: usize, copy: *mut c_void) -> NcResult<()> {
    let owns = owns_memory(ncid, xtype)?;
    if count > 0 && (memory.is_null() || copy.is_null()) {
        return Err(NcError::EINVAL);
    }
    if count == 0 {
        return Ok(());
    }
    if !owns {
        let bytes = count.checked_mul(type_size(xtype)?).ok_or(NcError::ENOMEM)?;
        // SAFETY: both blocks hold `count` values, as the caller promises;
        // they are distinct objects.
        unsafe { std::ptr::copy_nonoverlapping(memory as *const u8, copy as *mut u8, bytes) };
        return Ok(());
    }
    let from = memory as *const *const c_char;
    let to = copy as *mut *mut c_char;
    for i in 0..count {
        // SAFETY: element i of each array, in bounds by the caller's promise.
        unsafe {
            let s = from.add(i).read_unaligned();
            let dup = if s.is_null() {
                std::ptr::null_mut()
            } else {
                let dup = super::cmem::malloc_cstring(CStr::from_ptr(s).to_bytes());
                match dup {
                    Ok(p) => p,
                    Err(e) => {
                        // Free what this call already duplicated.
                        for j in 0..i {
                            libc::free(to.add(j).read_unaligned() as *mut c_void);
                        }
                        return Err(e);
                    }
                }
            };
            to.add(i).write_unaligned(dup);
        }
    }
    Ok(())
}

/// [`nc_copy_data`] into a new malloc'ed block handed out through `copyp`
/// (NULL when `count` is 0).
///
/// # Safety
/// `memory` as for [`nc_copy_data`]; `copyp` NULL or writable.
pub unsafe extern "C" fn nc_copy_data_all(
    ncid: c_int,
    xtypeid: c_int,
    memory: *const c_void,
    count: usize,
    copyp: *mut *mut c_void,
) -> c_int {
    guard(|| {
        if !is_atomic(xtypeid) {
            owns_memory(ncid, xtypeid)?;
            return Err(NcError::EBADTYPE);
        }
        let size = type_size(xtypeid)?;
        let mut copy = std::ptr::null_mut();
        if count > 0 {
            // SAFETY: calloc checks the multiplication for overflow.
            copy = unsafe { libc::calloc(count, size) };
            if copy.is_null() {
                return Err(NcError::ENOMEM);
            }
        }
        // SAFETY: `memory` as the caller promises; `copy` was just
        // allocated with room for `count` values of the type.
        if let Err(e) = unsafe { copy_data(ncid, xtypeid, memory, count, copy) } {
            // SAFETY: our own calloc'ed block, not handed out.
            unsafe { libc::free(copy) };
            return Err(e);
        }
        if copyp.is_null() {
            // Nobody takes the copy: release it, as netcdf-c does.
            // SAFETY: our own calloc'ed block of `count` values, filled.
            return match unsafe { nc_reclaim_data_all(ncid, xtypeid, copy, count) } {
                0 => Ok(()),
                status => Err(NcError(status)),
            };
        }
        // SAFETY: `copyp` (not NULL) is writable, as the caller promises;
        // the caller owns the copy from here on.
        unsafe { put(copyp, copy) };
        Ok(())
    })
}
