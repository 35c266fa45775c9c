//! `ncsetlogging` and the body of the variadic `nclog`.

use std::ffi::{c_char, c_int};

use super::{guarded, opt_bytes};
use crate::compat::nclog;

/// Log a message the way `nclog` does (for the library's own use too).
pub(crate) use nclog::emit;

/// `int ncsetlogging(int tf)`: turn netcdf-c's log on or off; returns
/// the previous setting. (netcdf-c 4.9.3 renamed it `ncsetloglevel`.)
#[unsafe(no_mangle)]
pub extern "C" fn ncsetlogging(tf: c_int) -> c_int {
    guarded(0, || nclog::set_logging(tf))
}

/// The body of `nclog` once csrc/variadic.c has formatted its message
/// (NULL when it could not be formatted).
///
/// # Safety
/// `message` is NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nczrs_log(tag: c_int, message: *const c_char) {
    // SAFETY: per this function's contract.
    let text = unsafe { opt_bytes(message) }.unwrap_or_default();
    guarded((), || emit(tag, text))
}
