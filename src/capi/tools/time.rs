//! The cdtime entry points of netcdf-c 4.9.0 (include/nctime.h):
//! `cdParseRelunits`, `cdRel2Iso`, `cdSetErrOpts`, `cdChar2Comp`,
//! `Cdh2e`, `Cde2h`. Errors are printed as "CDMS error: ..." on stderr
//! when `CU_VERBOSE` is set, and end the process when `CU_FATAL` is.

// `long` is 64 bits here but not on every target, so its casts stay.
#![allow(non_camel_case_types, non_snake_case, clippy::unnecessary_cast)]

use std::ffi::{c_char, c_double, c_int, c_long, c_short, c_uint};
use std::sync::atomic::{AtomicI32, Ordering};

use super::{guarded, opt_bytes, stderr_write};
use crate::capi::put;
use crate::compat::cdtime::{self, CompTime, Diag, HumanTime};

/// `enum cdCalenType` (an unsigned int in C: all its values are
/// non-negative).
pub type cdCalenType = c_uint;
/// `enum cdUnitTime`.
pub type cdUnitTime = c_uint;
/// `enum CdTimeType`.
pub type CdTimeType = c_uint;

/// `cdCompTime`.
#[repr(C)]
pub struct cdCompTime {
    pub year: c_long,
    pub month: c_short,
    pub day: c_short,
    pub hour: c_double,
}

/// `CdTime`.
#[repr(C)]
pub struct CdTime {
    pub year: c_long,
    pub month: c_short,
    pub day: c_short,
    pub hour: c_double,
    pub baseYear: c_long,
    pub timeType: CdTimeType,
}

const CU_FATAL: i32 = 1;
const CU_VERBOSE: i32 = 2;

/// cdtime's error options (`cuErrOpts`).
static ERR_OPTS: AtomicI32 = AtomicI32::new(0);

/// Print cdtime's errors as netcdf-c does, and exit on the first one
/// under `CU_FATAL`.
fn report(diag: Diag) {
    let opts = ERR_OPTS.load(Ordering::Relaxed);
    for message in diag {
        if opts & CU_VERBOSE != 0 {
            stderr_write(&[&b"CDMS error: "[..], &message, b"\n"].concat());
        }
        if opts & CU_FATAL != 0 {
            // SAFETY: exit is what cdtime does here; C atexit handlers run.
            unsafe { libc::exit(1) };
        }
    }
}

fn to_c(c: &CompTime) -> cdCompTime {
    cdCompTime { year: c.year as c_long, month: c.month, day: c.day, hour: c.hour }
}

/// `int cdSetErrOpts(int opts)`: set `CU_FATAL`/`CU_VERBOSE`, return the
/// previous options.
#[unsafe(no_mangle)]
pub extern "C" fn cdSetErrOpts(opts: c_int) -> c_int {
    ERR_OPTS.swap(opts, Ordering::Relaxed)
}

/// `int cdParseRelunits(cdCalenType, char* relunits, cdUnitTime* unit,
/// cdCompTime* base)`: 0 and the unit and base date of "<unit> since
/// <date>", or 1.
///
/// # Safety
/// `relunits` is NULL or a C string; `unit` and `base_comptime` are NULL
/// or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cdParseRelunits(
    timetype: cdCalenType,
    relunits: *mut c_char,
    unit: *mut cdUnitTime,
    base_comptime: *mut cdCompTime,
) -> c_int {
    // SAFETY: per this function's contract.
    let text = unsafe { opt_bytes(relunits) }.unwrap_or(b"");
    guarded(1, || {
        let mut diag = Diag::new();
        let parsed = cdtime::parse_relunits(timetype, text, &mut diag);
        report(diag);
        match parsed {
            Some((u, base)) => {
                // SAFETY: NULL or writable, per the contract.
                unsafe {
                    put(unit, u as cdUnitTime);
                    put(base_comptime, to_c(&base));
                }
                0
            }
            None => 1,
        }
    })
}

/// `void cdRel2Iso(cdCalenType, char* relunits, int separator, double
/// reltime, char* chartime)`: the date `reltime` units after the base in
/// `relunits`, as ISO text in `chartime` (48 bytes are enough); the
/// separator goes between date and time. On an error `chartime` is left
/// as it was.
///
/// # Safety
/// `relunits` is NULL or a C string; `chartime` is NULL or writable for
/// the text and its NUL (at most 48 bytes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cdRel2Iso(
    timetype: cdCalenType,
    relunits: *mut c_char,
    separator: c_int,
    reltime: c_double,
    chartime: *mut c_char,
) {
    // SAFETY: per this function's contract.
    let Some(text) = (unsafe { opt_bytes(relunits) }) else { return };
    guarded((), || {
        let mut diag = Diag::new();
        let iso = cdtime::rel_to_iso(timetype, text, separator as u8, reltime, &mut diag);
        report(diag);
        if let (Some(iso), false) = (iso, chartime.is_null()) {
            // SAFETY: chartime holds the text and its NUL per the contract.
            unsafe {
                std::ptr::copy_nonoverlapping(iso.as_ptr(), chartime as *mut u8, iso.len());
                *chartime.add(iso.len()) = 0;
            }
        }
    })
}

/// `void cdChar2Comp(cdCalenType, char* chartime, cdCompTime* comptime)`:
/// parse "yyyy-mm-dd hh:mm:ss" (any tail optional).
///
/// # Safety
/// `chartime` is NULL or a C string; `comptime` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cdChar2Comp(timetype: cdCalenType, chartime: *mut c_char, comptime: *mut cdCompTime) {
    // SAFETY: per this function's contract.
    let text = unsafe { opt_bytes(chartime) }.unwrap_or(b"");
    guarded((), || {
        let mut diag = Diag::new();
        let c = cdtime::char_to_comp(timetype, text, &mut diag);
        report(diag);
        // SAFETY: NULL or writable.
        unsafe { put(comptime, to_c(&c)) };
    })
}

/// `void Cdh2e(CdTime* htime, double* etime)`: a date as hours since
/// 1970-01-01 (or since its base year, for relative time types).
///
/// # Safety
/// `htime` is NULL or a valid CdTime; `etime` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn Cdh2e(htime: *mut CdTime, etime: *mut c_double) {
    if htime.is_null() {
        return;
    }
    // SAFETY: htime is a valid CdTime.
    let h = unsafe { &*htime };
    let h = HumanTime {
        year: h.year as i64,
        month: h.month,
        day: h.day,
        hour: h.hour,
        base_year: h.baseYear as i64,
        time_type: h.timeType,
    };
    guarded((), || {
        let mut diag = Diag::new();
        let e = cdtime::human_to_epoch(&h, &mut diag);
        report(diag);
        // SAFETY: NULL or writable.
        unsafe { put(etime, e) };
    })
}

/// `void Cde2h(double etime, CdTimeType timeType, long baseYear, CdTime*
/// htime)`: the inverse of `Cdh2e`.
///
/// # Safety
/// `htime` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn Cde2h(etime: c_double, timeType: CdTimeType, baseYear: c_long, htime: *mut CdTime) {
    guarded((), || {
        let h = cdtime::epoch_to_human(etime, timeType, baseYear as i64);
        let out = CdTime {
            year: h.year as c_long,
            month: h.month,
            day: h.day,
            hour: h.hour,
            baseYear: h.base_year as c_long,
            timeType: h.time_type,
        };
        // SAFETY: NULL or writable.
        unsafe { put(htime, out) };
    })
}
