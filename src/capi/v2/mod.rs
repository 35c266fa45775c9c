//! The netCDF-2 API ("v2"), as netcdf-c 4.9.0's libdispatch/dv2i.c
//! defines it on top of the nc_* functions.
//!
//! Every v2 function calls its nc_* counterpart. On failure it reports the
//! status through the advise logic (sets `ncerr`; prints
//! `routine: message: nc_strerror(status)` to stderr under NC_VERBOSE;
//! calls `exit(ncopts)` under NC_FATAL) and returns -1. On success it
//! returns what dv2i.c returns, which varies by function (an id, 0, 1,
//! the old fill mode, ...); the per-function comments say which.
//!
//! netcdf-c's quirks are kept where a program could observe them, because
//! this library stands in for it: each one is marked "as netcdf-c".

mod att;
mod data;
mod dataset;
mod records;

use std::ffi::{CStr, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::capi::api::nc_strerror;
use crate::error::code::{NC_EINTERNAL, NC_NOERR, NC_SYSERR};
use crate::types::type_size;

/// ncopts bit: exit the program when a v2 call fails.
pub const NC_FATAL: c_int = 1;
/// ncopts bit: print a message to stderr when a v2 call fails.
pub const NC_VERBOSE: c_int = 2;

/// The last v2 error.
#[allow(non_upper_case_globals)]
#[unsafe(no_mangle)]
pub static mut ncerr: c_int = 0;

/// v2 error handling options; netcdf-c's default is NC_FATAL | NC_VERBOSE.
#[allow(non_upper_case_globals)]
#[unsafe(no_mangle)]
pub static mut ncopts: c_int = NC_FATAL | NC_VERBOSE;

unsafe extern "C" {
    /// The C library's stderr stream. The report goes through it rather
    /// than straight to file descriptor 2 so that it keeps its place among
    /// what the program itself writes to stderr (which it may have made
    /// buffered, or reopened).
    static mut stderr: *mut libc::FILE;
}

/// The body of `nc_advise` once its message is formatted (csrc/variadic.c).
///
/// # Safety
/// `routine` and `message` are NULL or C strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nczrs_v2_advise(routine: *const c_char, err: c_int, message: *const c_char) {
    // SAFETY: both are NULL or C strings, as the caller promises.
    let (routine, message) = unsafe { (c_text(routine), (!message.is_null()).then(|| CStr::from_ptr(message))) };
    advise(routine, err, message.map(CStr::to_bytes));
}

/// The text printf's `%s` shows for a C string: its bytes, or glibc's
/// "(null)" for NULL, which is what netcdf-c's messages then contain.
///
/// # Safety
/// `p` must be NULL or a C string.
unsafe fn c_text<'a>(p: *const c_char) -> &'a [u8] {
    // SAFETY: not NULL, so a C string, as the caller promises.
    if p.is_null() { b"(null)" } else { unsafe { CStr::from_ptr(p) }.to_bytes() }
}

/// netcdf-c's `nc_advise`: record the error, print it if NC_VERBOSE, exit
/// if NC_FATAL. A positive `err` is a system errno value: `ncerr` then
/// holds NC_SYSERR while the printed text is the system's message.
/// NC_NOERR is recorded and printed but never exits.
fn advise(routine: &[u8], err: c_int, message: Option<&[u8]>) {
    // SAFETY: plain loads and stores of C-visible globals, unsynchronised
    // exactly as in netcdf-c (the v2 API has one error state per process).
    let opts = unsafe {
        ncerr = if err > 0 { NC_SYSERR } else { err };
        ncopts
    };
    if opts & NC_VERBOSE != 0 {
        write_to_stderr(&report_line(routine, err, message));
    }
    if opts & NC_FATAL != 0 && err != NC_NOERR {
        // exit(3), like netcdf-c: atexit handlers run and stdio is flushed.
        std::process::exit(opts);
    }
}

/// `routine: message: status text\n`; the status text is left out for
/// NC_NOERR and the message when there is none.
fn report_line(routine: &[u8], err: c_int, message: Option<&[u8]>) -> Vec<u8> {
    let mut line = [routine, b": ", message.unwrap_or_default()].concat();
    if err != NC_NOERR {
        // SAFETY: nc_strerror returns a C string for any status.
        let text = unsafe { CStr::from_ptr(nc_strerror(err)) };
        line.extend_from_slice(b": ");
        line.extend_from_slice(text.to_bytes());
    }
    line.push(b'\n');
    line
}

fn write_to_stderr(bytes: &[u8]) {
    // SAFETY: `stderr` is the C library's stream, valid for the whole
    // process; fwrite reads exactly `bytes.len()` bytes from `bytes`.
    unsafe {
        let stream = stderr;
        libc::fwrite(bytes.as_ptr().cast(), 1, bytes.len(), stream);
        libc::fflush(stream);
    }
}

/// Run the body of a v2 function. `Ok(value)` is returned as is; on
/// `Err(status)` (or a panic, as NC_EINTERNAL) the status is reported
/// under `routine` with the text `message` builds, and -1 is returned.
fn v2_call(routine: &CStr, message: impl FnOnce() -> Vec<u8>, body: impl FnOnce() -> Result<c_int, c_int>) -> c_int {
    match catch_unwind(AssertUnwindSafe(body)).unwrap_or(Err(NC_EINTERNAL)) {
        Ok(value) => value,
        Err(status) => {
            advise(routine.to_bytes(), status, Some(&message()));
            -1
        }
    }
}

/// An nc_* status as a Result, so v2 bodies can use `?`.
fn check(status: c_int) -> Result<(), c_int> {
    if status == NC_NOERR { Ok(()) } else { Err(status) }
}

/// The message most v2 functions report: "ncid %d".
fn ncid_message(ncid: c_int) -> impl FnOnce() -> Vec<u8> {
    move || format!("ncid {ncid}").into_bytes()
}

/// Size in bytes of one value of an atomic type (a `char *` for
/// NC_STRING); -1 for any other type.
#[unsafe(no_mangle)]
pub extern "C" fn nctypelen(datatype: c_int) -> c_int {
    type_size(datatype).map_or(-1, |size| size as c_int)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::code::{NC_EBADID, NC_ENOTVAR};

    #[test]
    fn report_line_matches_netcdf_c() {
        assert_eq!(report_line(b"ncclose", NC_EBADID, Some(b"ncid 7")), b"ncclose: ncid 7: NetCDF: Not a valid ID\n");
        assert_eq!(report_line(b"r", NC_NOERR, Some(b"m")), b"r: m\n");
        assert_eq!(report_line(b"r", NC_ENOTVAR, None), b"r: : NetCDF: Variable not found\n");
        let syserr = report_line(b"ncopen", libc::ENOENT, Some(b"filename \"x\""));
        assert_eq!(syserr, b"ncopen: filename \"x\": No such file or directory\n");
    }

    #[test]
    fn type_lengths() {
        assert_eq!(nctypelen(crate::types::NC_DOUBLE), 8);
        assert_eq!(nctypelen(crate::types::NC_CHAR), 1);
        assert_eq!(nctypelen(crate::types::NC_STRING), size_of::<*const u8>() as c_int);
        assert_eq!(nctypelen(0), -1);
        assert_eq!(nctypelen(100), -1);
    }
}
