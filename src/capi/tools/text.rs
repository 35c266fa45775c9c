//! `NC_shellUnescape`, `NCpathcanonical`, `strlcat`, `nc_utf8_to_utf16`.

use std::ffi::{c_char, c_int, c_uchar, c_ushort};

use super::{c_copy, guarded, opt_bytes};
use crate::capi::{guard, put};
use crate::compat::text;
use crate::error::NcError;

/// `char* NC_shellUnescape(const char* esc)`: a malloc'ed copy without
/// the `\` before each `#`; NULL for NULL.
///
/// # Safety
/// `esc` is NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NC_shellUnescape(esc: *const c_char) -> *mut c_char {
    // SAFETY: per this function's contract.
    let Some(s) = (unsafe { opt_bytes(esc) }) else { return std::ptr::null_mut() };
    guarded(std::ptr::null_mut(), || c_copy(&text::shell_unescape(s)))
}

/// `int NCpathcanonical(const char* srcpath, char** canonp)`: the
/// malloc'ed canonical form of a path (a copy with `/` separators on
/// Unix); a NULL path succeeds and stores nothing.
///
/// # Safety
/// `srcpath` is NULL or a C string; `canonp` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NCpathcanonical(srcpath: *const c_char, canonp: *mut *mut c_char) -> c_int {
    // SAFETY: per this function's contract.
    let Some(path) = (unsafe { opt_bytes(srcpath) }) else { return 0 };
    guard(|| {
        if !canonp.is_null() {
            let canon = c_copy(&text::path_canonical(path));
            if canon.is_null() {
                return Err(NcError::ENOMEM);
            }
            // SAFETY: canonp is writable per the contract.
            unsafe { put(canonp, canon) };
        }
        Ok(())
    })
}

/// `size_t strlcat(char* dst, const char* src, size_t dsize)`, exactly as
/// BSD's: append `src` to the string in the `dsize`-byte buffer `dst`,
/// truncating and always NUL-terminating unless `dst` holds no NUL within
/// `dsize`; returns the length the result would have had untruncated.
/// netcdf-c 4.9.0 exports it (4.9.3 renamed it `nc_strlcat`), and Debian's
/// tools import it from libnetcdf; a NULL `src` counts as empty and a NULL
/// `dst` as a zero-size buffer.
///
/// # Safety
/// `dst` is NULL or valid for `dsize` bytes; `src` is NULL or a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn strlcat(dst: *mut c_char, src: *const c_char, dsize: usize) -> usize {
    // SAFETY: src is NULL or a C string.
    let slen = if src.is_null() { 0 } else { unsafe { libc::strlen(src) } };
    if dst.is_null() {
        return slen;
    }
    let mut dlen = 0;
    // SAFETY: dst is valid for dsize bytes and we stay below dsize.
    while dlen < dsize && unsafe { *dst.add(dlen) } != 0 {
        dlen += 1;
    }
    if dlen == dsize {
        return dlen + slen;
    }
    let n = slen.min(dsize - dlen - 1);
    // SAFETY: dlen + n + 1 <= dsize; memmove semantics in case the
    // caller overlaps the buffers.
    unsafe {
        std::ptr::copy(src, dst.add(dlen), n);
        *dst.add(dlen + n) = 0;
    }
    dlen + slen
}

/// `int nc_utf8_to_utf16(const unsigned char* s8, unsigned short**
/// utf16p, size_t* lenp)`: a malloc'ed, 0-terminated UTF-16 copy of UTF-8
/// text and its length in code units; NC_EBADNAME for invalid UTF-8 or
/// a code point above U+FFFF; NC_EINVAL for NULL text.
///
/// # Safety
/// `s8` is NULL or a C string; `utf16p` and `lenp` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_utf8_to_utf16(s8: *const c_uchar, utf16p: *mut *mut c_ushort, lenp: *mut usize) -> c_int {
    // SAFETY: per this function's contract.
    let Some(s) = (unsafe { opt_bytes(s8 as *const c_char) }) else { return NcError::EINVAL.0 };
    guard(|| {
        let units = text::utf8_to_utf16(s)?;
        if !utf16p.is_null() {
            // SAFETY: a fresh block of units.len() + 1 u16s, filled below.
            let p = unsafe { libc::malloc((units.len() + 1) * 2) } as *mut c_ushort;
            if p.is_null() {
                return Err(NcError::ENOMEM);
            }
            // SAFETY: p holds units.len() + 1 u16s; utf16p is writable.
            unsafe {
                std::ptr::copy_nonoverlapping(units.as_ptr(), p, units.len());
                *p.add(units.len()) = 0;
                put(utf16p, p);
            }
        }
        // SAFETY: lenp is NULL or writable.
        unsafe { put(lenp, units.len()) };
        Ok(())
    })
}
