//! netcdf-c's `NClist` (a growable array of pointers) as ncdump uses it:
//! `nclistnew`, `nclistfree`, `nclistpush`, `nclistremove`. C code reads
//! the fields directly (`nclistlength` is a macro), so the struct and its
//! array live in C heap memory.

use std::ffi::{c_int, c_void};

use super::guarded;

/// `struct NClist` (include/nclist.h).
#[repr(C)]
pub struct NClist {
    pub alloc: usize,
    pub length: usize,
    pub content: *mut *mut c_void,
}

/// `NClist* nclistnew(void)`: an empty list (NULL when out of memory).
#[unsafe(no_mangle)]
pub extern "C" fn nclistnew() -> *mut NClist {
    // SAFETY: calloc returns NULL or a zeroed block for one NClist, and
    // all-zero is an empty list.
    unsafe { libc::calloc(1, std::mem::size_of::<NClist>()) as *mut NClist }
}

/// `int nclistfree(NClist*)`: free the list and its array, not the
/// elements; returns 1 (also for NULL).
///
/// # Safety
/// `l` is NULL or a list from `nclistnew`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistfree(l: *mut NClist) -> c_int {
    if !l.is_null() {
        // SAFETY: both blocks came from the C allocator.
        unsafe {
            libc::free((*l).content as *mut c_void);
            libc::free(l as *mut c_void);
        }
    }
    1
}

/// `int nclistpush(NClist*, const void* elem)`: append; the array grows
/// to 16 slots, then doubles. Returns 1, or 0 for NULL or out of memory.
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistpush(l: *mut NClist, elem: *const c_void) -> c_int {
    if l.is_null() {
        return 0;
    }
    guarded(0, || {
        // SAFETY: l is a valid list: content holds `alloc` slots, the first
        // `length` in use.
        unsafe {
            let list = &mut *l;
            if list.length >= list.alloc || list.content.is_null() {
                let grown = if list.length == 0 { 16 } else { list.length.saturating_mul(2) };
                let fresh = libc::calloc(grown, std::mem::size_of::<*mut c_void>()) as *mut *mut c_void;
                if fresh.is_null() {
                    return 0;
                }
                if !list.content.is_null() {
                    std::ptr::copy_nonoverlapping(list.content, fresh, list.length);
                    libc::free(list.content as *mut c_void);
                }
                list.content = fresh;
                list.alloc = grown;
            }
            *list.content.add(list.length) = elem as *mut c_void;
            list.length += 1;
        }
        1
    })
}

/// `void* nclistremove(NClist* l, size_t i)`: take out element `i`,
/// shifting the rest down; NULL when out of range.
///
/// # Safety
/// `l` is NULL or a valid list.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nclistremove(l: *mut NClist, i: usize) -> *mut c_void {
    if l.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: l is a valid list and i < length.
    unsafe {
        let list = &mut *l;
        if i >= list.length || list.content.is_null() {
            return std::ptr::null_mut();
        }
        let elem = *list.content.add(i);
        std::ptr::copy(list.content.add(i + 1), list.content.add(i), list.length - i - 1);
        list.length -= 1;
        elem
    }
}
