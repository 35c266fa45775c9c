//! Library-wide settings: the default create format, HDF5 alignment,
//! logging level, user-defined formats and the `.ncrc` table.
//!
//! The plain settings live in atomics, so reading or changing them takes
//! no lock (nothing here can be held across a `fork`).

// Unsafe blocks here only dereference, or pass on, the enclosing C
// function's own pointer arguments, as its `# Safety` section says the
// caller guarantees: that section is their SAFETY comment (policy in
// src/capi/mod.rs). Blocks doing more carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "caller pointers, per each function's # Safety section")]

use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU64, Ordering};

use super::{c_str, guard, put};
use crate::delegate::settings::Setting;
use crate::error::NcError;

const NC_FORMAT_CLASSIC: c_int = 1;
const NC_FORMAT_CDF5: c_int = 5;
const NC_UDF0: c_int = 0x0040;
const NC_UDF1: c_int = 0x0080;
const NC_MAX_MAGIC_NUMBER_LEN: usize = 8;
/// The `NC_Dispatch` version of netcdf-c 4.9 (`NC_DISPATCH_VERSION`).
const NC_DISPATCH_VERSION: c_int = 5;

static DEFAULT_FORMAT: AtomicI32 = AtomicI32::new(NC_FORMAT_CLASSIC);

/// Remember the format `nc_create` would use for a path without a format
/// in its mode flags. NCZarr datasets are named by URL, so the setting is
/// only kept and reported, as netcdf-c keeps it.
///
/// # Safety
/// `old_formatp` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_set_default_format(format: c_int, old_formatp: *mut c_int) -> c_int {
    guard(|| {
        unsafe { put(old_formatp, DEFAULT_FORMAT.load(Ordering::Relaxed)) };
        if !(NC_FORMAT_CLASSIC..=NC_FORMAT_CDF5).contains(&format) {
            return Err(NcError::EINVAL);
        }
        DEFAULT_FORMAT.store(format, Ordering::Relaxed);
        Setting::DefaultFormat(format).tell_delegate();
        Ok(())
    })
}

static ALIGNMENT: AtomicU64 = AtomicU64::new(0);

/// HDF5 file alignment (threshold, alignment). There is no HDF5 file to
/// align, but the values are kept for `nc_get_alignment`, as in netcdf-c.
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_alignment(threshold: c_int, alignment: c_int) -> c_int {
    let packed = ((threshold as u32 as u64) << 32) | alignment as u32 as u64;
    ALIGNMENT.store(packed, Ordering::Relaxed);
    guard(|| {
        Setting::Alignment { threshold, alignment }.tell_delegate();
        Ok(())
    })
}

/// # Safety
/// Each pointer must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_alignment(thresholdp: *mut c_int, alignmentp: *mut c_int) -> c_int {
    let packed = ALIGNMENT.load(Ordering::Relaxed);
    unsafe {
        put(thresholdp, (packed >> 32) as u32 as c_int);
        put(alignmentp, packed as u32 as c_int);
    }
    0
}

/// netcdf-c's debug logging level. Like a netcdf-c built without
/// logging (Debian's), the call succeeds and changes nothing.
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_log_level(new_level: c_int) -> c_int {
    guard(|| {
        Setting::LogLevel(new_level).tell_delegate();
        Ok(())
    })
}

/// A user-defined format: netcdf-c's dispatch table pointer and magic
/// number, by slot (UDF0, UDF1).
struct UserFormat {
    table: AtomicPtr<NcDispatch>,
    /// Up to NC_MAX_MAGIC_NUMBER_LEN bytes, little-endian packed, 0-padded.
    magic: AtomicU64,
}

/// The start of netcdf-c's `NC_Dispatch` (the rest is opaque to us).
#[repr(C)]
pub struct NcDispatch {
    model: c_int,
    dispatch_version: c_int,
}

static USER_FORMATS: [UserFormat; 2] = [
    UserFormat { table: AtomicPtr::new(std::ptr::null_mut()), magic: AtomicU64::new(0) },
    UserFormat { table: AtomicPtr::new(std::ptr::null_mut()), magic: AtomicU64::new(0) },
];

fn user_format(mode_flag: c_int) -> Option<&'static UserFormat> {
    match mode_flag {
        NC_UDF0 => Some(&USER_FORMATS[0]),
        NC_UDF1 => Some(&USER_FORMATS[1]),
        _ => None,
    }
}

/// Register a user-defined format, with netcdf-c's checks. The table is
/// kept and reported by `nc_inq_user_format`, but datasets are never
/// opened through it: its functions expect netcdf-c's internal `NC`
/// structures, so `nc_open`/`nc_create` with NC_UDF0/NC_UDF1 are
/// NC_ENOTBUILT.
///
/// # Safety
/// `dispatch_table` must be NULL or point to an `NC_Dispatch`;
/// `magic_number` NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_user_format(
    mode_flag: c_int,
    dispatch_table: *mut NcDispatch,
    magic_number: *mut c_char,
) -> c_int {
    guard(|| {
        let slot = user_format(mode_flag).ok_or(NcError::EINVAL)?;
        if dispatch_table.is_null() {
            return Err(NcError::EINVAL);
        }
        let magic = if magic_number.is_null() {
            None
        } else {
            let bytes = unsafe { std::ffi::CStr::from_ptr(magic_number) }.to_bytes();
            if bytes.len() > NC_MAX_MAGIC_NUMBER_LEN {
                return Err(NcError::EINVAL);
            }
            let mut packed = [0u8; 8];
            packed[..bytes.len()].copy_from_slice(bytes);
            Some(u64::from_le_bytes(packed))
        };
        // SAFETY: the caller's NC_Dispatch, whose first two fields are ints.
        if unsafe { (*dispatch_table).dispatch_version } != NC_DISPATCH_VERSION {
            return Err(NcError::EINVAL);
        }
        slot.table.store(dispatch_table, Ordering::Relaxed);
        if let Some(m) = magic {
            slot.magic.store(m, Ordering::Relaxed);
        }
        // Datasets opened with this flag are netcdf-c's to serve: the
        // table is written against its internals.
        Setting::UserFormat { flag: mode_flag, table: dispatch_table as usize, magic: magic.map(u64::to_le_bytes) }
            .tell_delegate();
        Ok(())
    })
}

/// # Safety
/// `dispatch_table` NULL or writable; `magic_number` NULL or room for
/// NC_MAX_MAGIC_NUMBER_LEN bytes (netcdf-c's strncpy: NUL-padded, no NUL
/// when the number fills it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_user_format(
    mode_flag: c_int,
    dispatch_table: *mut *mut NcDispatch,
    magic_number: *mut c_char,
) -> c_int {
    guard(|| {
        let slot = user_format(mode_flag).ok_or(NcError::EINVAL)?;
        unsafe { put(dispatch_table, slot.table.load(Ordering::Relaxed)) };
        if !magic_number.is_null() {
            let bytes = slot.magic.load(Ordering::Relaxed).to_le_bytes();
            // SAFETY: the caller provides NC_MAX_MAGIC_NUMBER_LEN bytes.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), magic_number as *mut u8, NC_MAX_MAGIC_NUMBER_LEN) };
        }
        Ok(())
    })
}

/// A `.ncrc` key's value (not restricted to a URL), malloc'ed; NULL when
/// it is not set.
///
/// # Safety
/// `key` must be NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rc_get(key: *const c_char) -> *mut c_char {
    let lookup = std::panic::catch_unwind(|| {
        let key = unsafe { c_str(key, NcError::EINVAL) }.ok()?;
        crate::rc::get(key).ok().flatten()
    });
    match lookup {
        Ok(Some(value)) => super::cmem::malloc_cstring(value.as_bytes()).unwrap_or(std::ptr::null_mut()),
        _ => std::ptr::null_mut(),
    }
}

/// Set a `.ncrc` key for every URL, for the rest of the process.
///
/// # Safety
/// `key` and `value` must be C strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rc_set(key: *const c_char, value: *const c_char) -> c_int {
    guard(|| {
        let key = unsafe { c_str(key, NcError::EINVAL) }?;
        let value = unsafe { c_str(value, NcError::EINVAL) }?;
        crate::rc::set(key, value)?;
        Setting::Rc { key: key.to_string(), value: value.to_string() }.tell_delegate();
        Ok(())
    })
}
