//! The C ABI. Each `nc_*` function checks its pointer arguments, converts
//! them to Rust values and calls the core; every body runs inside
//! [`guard`], so a panic becomes NC_EINTERNAL instead of unwinding into C.
//!
//! Unsafe code policy (`clippy::undocumented_unsafe_blocks` is on for the
//! crate): every `unsafe extern "C"` function states in `# Safety` what
//! its caller guarantees about its pointer arguments. Modules whose unsafe
//! blocks do nothing but dereference or pass on those arguments (att,
//! cache, data, data_typed, dim, file, filter, group, memio, settings,
//! var) allow the lint once at the top: the function's `# Safety` section
//! is the reason for each block, and repeating it on every `put(p, ..)`
//! would say nothing more. A block that does anything else (frees memory,
//! writes past a reported length, reads pointers the caller did not pass)
//! carries its own `// SAFETY:` comment even there; every other module
//! (the helpers below, udt, cmem, tools, v2, ...) comments each block.

pub mod att;
pub mod cache;
pub mod cmem;
pub mod crossing;
pub mod data;
pub mod data_typed;
pub mod dim;
pub mod file;
pub mod filter;
pub mod group;
pub mod hdf5;
pub mod memio;
pub mod parallel;
pub mod quantize;
pub mod route;
pub mod settings;
pub mod tools;
pub mod udt;
pub mod v2;
pub mod var;
pub mod variadic;

/// The routed API, for code of ours that calls entry points (the v2 API,
/// the auxiliary functions, copies): the same functions a program calls,
/// so they work on datasets of either library.
pub mod api {
    pub use super::crossing::{
        nc_abort, nc_close, nc_close_memio, nc_copy_att, nc_copy_var, nc_def_grp, nc_inq_grp_full_ncid,
        nc_inq_grp_ncid, nc_inq_grp_parent, nc_inq_grps, nc_inq_ncid, nc_inq_path, nc_inq_type_equal,
    };
    pub use super::file::{nc_create, nc_delete, nc_open, nc_strerror};
    pub use super::route::*;
}

use std::ffi::{CStr, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::error::{NcError, NcResult, code};

/// Run an API body inside the call gate (see [`crate::gate`]: a `fork`
/// waits for it), turning its result (or a panic) into a status code.
pub(crate) fn guard(body: impl FnOnce() -> NcResult<()>) -> c_int {
    let _inside = crate::gate::enter();
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => code::NC_NOERR,
        Ok(Err(NcError(status))) => status,
        Err(_) => code::NC_EINTERNAL,
    }
}

/// The bytes of a C string argument; NULL is NC_EINVAL.
///
/// # Safety
/// `p` must be NULL or point to a NUL-terminated string.
pub(crate) unsafe fn c_bytes<'a>(p: *const c_char) -> NcResult<&'a [u8]> {
    if p.is_null() {
        return Err(NcError::EINVAL);
    }
    // SAFETY: not NULL, and NUL-terminated as the caller promises.
    Ok(unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// A C string argument that must be UTF-8 text (paths, lookup names).
///
/// # Safety
/// As [`c_bytes`].
pub(crate) unsafe fn c_str<'a>(p: *const c_char, invalid: NcError) -> NcResult<&'a str> {
    // SAFETY: our own contract is c_bytes's.
    let bytes = unsafe { c_bytes(p) }?;
    std::str::from_utf8(bytes).map_err(|_| invalid)
}

/// Store `value` through an optional out-pointer.
///
/// # Safety
/// `p` must be NULL or valid for a write of `T`.
pub(crate) unsafe fn put<T>(p: *mut T, value: T) {
    if !p.is_null() {
        // SAFETY: not NULL, so writable for one `T` (alignment not assumed).
        unsafe { p.write_unaligned(value) };
    }
}

/// Copy `items` to an optional out-array.
///
/// # Safety
/// `p` must be NULL or valid for `items.len()` writes of `T`.
pub(crate) unsafe fn put_slice<T: Copy>(p: *mut T, items: &[T]) {
    if !p.is_null() {
        for (i, &item) in items.iter().enumerate() {
            // SAFETY: i < items.len(), for which `p` is valid.
            unsafe { p.add(i).write_unaligned(item) };
        }
    }
}

/// Copy a name plus its terminating NUL to an optional out-buffer (which
/// netCDF callers size as NC_MAX_NAME + 1).
///
/// # Safety
/// `p` must be NULL or valid for `name.len() + 1` bytes.
pub(crate) unsafe fn put_name(p: *mut c_char, name: &str) {
    if !p.is_null() {
        // SAFETY: `p` has room for the name and its NUL; a Rust string
        // cannot overlap the caller's buffer.
        unsafe {
            std::ptr::copy_nonoverlapping(name.as_ptr(), p as *mut u8, name.len());
            p.add(name.len()).write(0);
        }
    }
}

/// Turn `n` C ids (0-based) in an optional array into Fortran's (1-based).
///
/// # Safety
/// `ids` must be NULL or hold `n` ints.
pub(crate) unsafe fn to_fortran_ids(ids: *mut c_int, n: c_int) {
    if !ids.is_null() {
        for i in 0..n.max(0) as usize {
            // SAFETY: i < n, and `ids` holds n ints.
            unsafe { ids.add(i).write_unaligned(ids.add(i).read_unaligned() + 1) };
        }
    }
}

/// Read `n` values from an optional C array (NULL with n > 0 is NC_EINVAL).
///
/// # Safety
/// `p` must be NULL or valid for `n` reads of `T`.
pub(crate) unsafe fn read_array<T: Copy>(p: *const T, n: usize) -> NcResult<Vec<T>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err(NcError::EINVAL);
    }
    // SAFETY: i < n, and `p` (not NULL) is valid for n reads.
    Ok((0..n).map(|i| unsafe { p.add(i).read_unaligned() }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_maps_results_and_panics() {
        assert_eq!(guard(|| Ok(())), 0);
        assert_eq!(guard(|| Err(NcError::EBADID)), -33);
        assert_eq!(guard(|| panic!("boom")), code::NC_EINTERNAL);
    }
}
