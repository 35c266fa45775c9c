//! netcdf-c's internal log (`nclog`, `ncsetlogging`, 4.9.0 names): one
//! process-wide switch, off unless the environment variable `NCLOGGING`
//! is set (or `NCTRACING` is set to a level >= 0) when first used. A
//! message is written as `<Tag>:<text>` and a newline; an error message
//! (`NCLOGERR`) turns logging on for good before it is written, so errors
//! are always shown.

use std::sync::Mutex;

pub const NCLOGNOTE: i32 = 0;
pub const NCLOGWARN: i32 = 1;
pub const NCLOGERR: i32 = 2;
pub const NCLOGDBG: i32 = 3;

/// None until first use; then the current setting (any int, as netcdf-c
/// stores what it is given).
static LOGGING: Mutex<Option<i32>> = Mutex::new(None);

fn initial_setting() -> i32 {
    let mut on = i32::from(std::env::var_os("NCLOGGING").is_some());
    if let Some(level) = std::env::var_os("NCTRACING") {
        on = i32::from(atoi(level.as_encoded_bytes()) >= 0);
    }
    on
}

/// C's `atoi`.
fn atoi(s: &[u8]) -> i64 {
    super::scan::strtol(s).map_or(0, |(v, _)| i64::from(v as i32))
}

/// Use the switch, inside the call gate ([`crate::gate`]: no `fork`
/// while its lock is held).
fn with_setting<T>(f: impl FnOnce(&mut i32) -> T) -> T {
    let _inside = crate::gate::enter();
    let mut guard = LOGGING.lock().unwrap_or_else(|e| e.into_inner());
    let setting = guard.get_or_insert_with(initial_setting);
    f(setting)
}

/// `ncsetlogging`: set the switch, return its previous value.
pub fn set_logging(value: i32) -> i32 {
    with_setting(|s| std::mem::replace(s, value))
}

/// The line `nclog` writes for a message, or None when logging is off.
pub fn log_line(tag: i32, message: &[u8]) -> Option<Vec<u8>> {
    let on = with_setting(|s| {
        if tag == NCLOGERR {
            *s = 1;
        }
        *s != 0
    });
    if !on {
        return None;
    }
    let name: &[u8] = match tag {
        NCLOGNOTE => b"Note",
        NCLOGWARN => b"Warning",
        NCLOGERR => b"Error",
        NCLOGDBG => b"Debug",
        _ => b"unknown",
    };
    Some([name, b":", message, b"\n"].concat())
}

unsafe extern "C" {
    /// csrc/cstdio.c: fwrite to C's `stderr`, then fflush.
    fn nczrs_stderr_write(text: *const std::ffi::c_char, len: usize);
}

/// Write to the C library's `stderr`, as netcdf-c's messages are.
pub fn stderr_write(bytes: &[u8]) {
    // SAFETY: the pointer and length describe `bytes`.
    unsafe { nczrs_stderr_write(bytes.as_ptr() as *const std::ffi::c_char, bytes.len()) }
}

/// Log a message the way `nclog` does (the library's own messages too).
pub fn emit(tag: i32, message: &[u8]) {
    if let Some(line) = log_line(tag, message) {
        stderr_write(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switch_and_format() {
        // One test owns the process-wide switch.
        set_logging(0);
        assert_eq!(log_line(NCLOGNOTE, b"hidden"), None);
        assert_eq!(set_logging(1), 0);
        assert_eq!(log_line(NCLOGWARN, b"w").unwrap(), b"Warning:w\n");
        assert_eq!(log_line(7, b"x").unwrap(), b"unknown:x\n");
        assert_eq!(set_logging(0), 1);
        assert_eq!(log_line(NCLOGERR, b"e").unwrap(), b"Error:e\n");
        assert_eq!(set_logging(0), 1, "an error leaves logging on");
        assert_eq!(atoi(b" -3x"), -3);
    }
}
