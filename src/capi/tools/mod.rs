//! C entry points for the netcdf-c internals Debian's utilities import
//! (ncdump, ncgen, nccopy; netcdf-c 4.9.0 names and signatures, declared
//! in `ctests/abi/tools_abi.h` and `include/netcdf_aux.h`). Each converts
//! its arguments and calls the logic in [`crate::compat`].

pub mod list;
pub mod log;
pub mod ncaux;
pub mod text;
pub mod time;
pub mod uri;

use std::ffi::{CStr, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Run a body that has no status code to return, with `fallback` as its
/// result if it panics.
pub(crate) fn guarded<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

/// The bytes of an optional C string.
///
/// # Safety
/// `p` must be NULL or point to a NUL-terminated string.
pub(crate) unsafe fn opt_bytes<'a>(p: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: non-NULL `p` is a C string by the caller's contract.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// A malloc'ed C copy of `bytes` (NULL when out of memory).
pub(crate) fn c_copy(bytes: &[u8]) -> *mut c_char {
    crate::capi::cmem::malloc_cstring(bytes).unwrap_or(std::ptr::null_mut())
}

/// Write to the C library's `stderr`, as netcdf-c's messages are.
pub(crate) use crate::compat::nclog::stderr_write;
