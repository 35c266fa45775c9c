//! Memory handed to C callers: allocated with libc `malloc` so that they
//! (or `nc_free_string`) can release it with `free`.

use std::ffi::c_char;

use crate::error::{NcError, NcResult};

/// A NUL-terminated copy of `bytes` in C heap memory.
pub fn malloc_cstring(bytes: &[u8]) -> NcResult<*mut c_char> {
    // SAFETY: malloc returns NULL or a block of the requested size, which
    // we fill completely before handing it out.
    unsafe {
        let p = libc::malloc(bytes.len() + 1) as *mut u8;
        if p.is_null() {
            return Err(NcError::ENOMEM);
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        p.add(bytes.len()).write(0);
        Ok(p as *mut c_char)
    }
}
