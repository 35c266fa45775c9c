//! The version 2 API. Its functions are not implemented (see
//! ctests/abi/pending_symbols.txt); its error-state globals are exported so
//! programs that mention them still link.

use std::ffi::c_int;

/// The last v2 error.
#[allow(non_upper_case_globals)]
#[unsafe(no_mangle)]
pub static mut ncerr: c_int = 0;

/// v2 error handling options; netcdf-c's default is NC_FATAL | NC_VERBOSE.
#[allow(non_upper_case_globals)]
#[unsafe(no_mangle)]
pub static mut ncopts: c_int = 3;

/// The body of `nc_advise` once its message is formatted (csrc/variadic.c).
///
/// # Safety
/// `routine` and `message` are NULL or C strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nczrs_v2_advise(
    _routine: *const std::ffi::c_char,
    err: c_int,
    _message: *const std::ffi::c_char,
) {
    // SAFETY: a plain store to the C-visible global, as netcdf-c does.
    unsafe { ncerr = err };
}
