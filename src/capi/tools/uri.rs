//! `ncuriparse`, `ncurifree`, `ncuribuild`, `ncuriappendfragmentkey` and
//! `nc__testurl` over netcdf-c 4.9.0's open `NCURI` struct.

use std::ffi::{c_char, c_int, c_void};

use super::{c_copy, guarded, opt_bytes};
use crate::capi::{guard, put};
use crate::compat::ncuri::{self, Params, Uri};
use crate::error::NcError;

/// `NCURI` as netcdf-c 4.9.0 lays it out (include/ncuri.h): strings are
/// malloc'ed or NULL; the two lists are NULL or malloc'ed
/// NULL-terminated arrays of malloc'ed key, value, key, value... strings.
#[repr(C)]
pub struct NCURI {
    pub uri: *mut c_char,
    pub protocol: *mut c_char,
    pub user: *mut c_char,
    pub password: *mut c_char,
    pub host: *mut c_char,
    pub port: *mut c_char,
    pub path: *mut c_char,
    pub query: *mut c_char,
    pub fragment: *mut c_char,
    pub fraglist: *mut *mut c_char,
    pub querylist: *mut *mut c_char,
}

fn c_opt(s: &Option<Vec<u8>>) -> *mut c_char {
    s.as_deref().map_or(std::ptr::null_mut(), c_copy)
}

/// A malloc'ed NULL-terminated key/value array, or NULL.
fn c_list(list: &Option<Params>) -> *mut *mut c_char {
    let Some(list) = list else { return std::ptr::null_mut() };
    let n = list.len() * 2 + 1;
    // SAFETY: a fresh array of n pointers, every slot written below.
    unsafe {
        let arr = libc::malloc(n * std::mem::size_of::<*mut c_char>()) as *mut *mut c_char;
        if arr.is_null() {
            return arr;
        }
        for (i, (k, v)) in list.iter().enumerate() {
            *arr.add(2 * i) = c_copy(k);
            *arr.add(2 * i + 1) = c_copy(v);
        }
        *arr.add(n - 1) = std::ptr::null_mut();
        arr
    }
}

/// # Safety
/// `arr` is NULL or a key/value array as [`c_list`] makes.
unsafe fn read_list(arr: *mut *mut c_char) -> Option<Params> {
    if arr.is_null() {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    // SAFETY: pairs up to the NULL key; a NULL value reads as empty.
    unsafe {
        while !(*arr.add(i)).is_null() {
            let key = opt_bytes(*arr.add(i)).unwrap_or_default().to_vec();
            let value_p = *arr.add(i + 1);
            out.push((key, opt_bytes(value_p).unwrap_or_default().to_vec()));
            if value_p.is_null() {
                break;
            }
            i += 2;
        }
    }
    Some(out)
}

/// # Safety
/// As [`read_list`]; the array and its strings are freed.
unsafe fn free_list(arr: *mut *mut c_char) {
    if arr.is_null() {
        return;
    }
    // SAFETY: strings up to the first NULL, then the array itself.
    unsafe {
        let mut i = 0;
        while !(*arr.add(i)).is_null() {
            libc::free(*arr.add(i) as *mut c_void);
            i += 1;
        }
        libc::free(arr as *mut c_void);
    }
}

/// # Safety
/// `u` points to a valid NCURI.
unsafe fn read_uri(u: *const NCURI) -> Uri {
    // SAFETY: every field is NULL or a C string / key-value array.
    unsafe {
        let u = &*u;
        let s = |p: *mut c_char| opt_bytes(p).map(<[u8]>::to_vec);
        Uri {
            uri: s(u.uri).unwrap_or_default(),
            protocol: s(u.protocol),
            user: s(u.user),
            password: s(u.password),
            host: s(u.host),
            port: s(u.port),
            path: s(u.path),
            query: s(u.query),
            fragment: s(u.fragment),
            fraglist: read_list(u.fraglist),
            querylist: read_list(u.querylist),
        }
    }
}

/// Replace a string field.
///
/// # Safety
/// `*field` is NULL or malloc'ed.
unsafe fn set_str(field: &mut *mut c_char, value: &Option<Vec<u8>>) {
    // SAFETY: the old value came from malloc.
    unsafe { libc::free(*field as *mut c_void) };
    *field = c_opt(value);
}

/// Replace a list field.
///
/// # Safety
/// `*field` is NULL or a key/value array.
unsafe fn set_list(field: &mut *mut *mut c_char, value: &Option<Params>) {
    // SAFETY: the old value is freed with its strings.
    unsafe { free_list(*field) };
    *field = c_list(value);
}

/// `int ncuriparse(const char* s, NCURI** ncuri)`: NC_NOERR and a new
/// NCURI, or NC_EURL (NULL or malformed text) / NC_ENOMEM.
///
/// # Safety
/// `s` is NULL or a C string; `ncuri` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuriparse(s: *const c_char, ncuri: *mut *mut NCURI) -> c_int {
    // SAFETY: per this function's contract.
    let Some(text) = (unsafe { opt_bytes(s) }) else { return NcError::EURL.0 };
    guard(|| {
        let uri = ncuri::parse(text)?;
        if ncuri.is_null() {
            return Ok(());
        }
        // SAFETY: a zeroed NCURI (all fields NULL), then filled.
        unsafe {
            let out = libc::calloc(1, std::mem::size_of::<NCURI>()) as *mut NCURI;
            if out.is_null() {
                return Err(NcError::ENOMEM);
            }
            let o = &mut *out;
            o.uri = c_copy(&uri.uri);
            o.protocol = c_opt(&uri.protocol);
            o.user = c_opt(&uri.user);
            o.password = c_opt(&uri.password);
            o.host = c_opt(&uri.host);
            o.port = c_opt(&uri.port);
            o.path = c_opt(&uri.path);
            o.query = c_opt(&uri.query);
            o.fragment = c_opt(&uri.fragment);
            o.fraglist = c_list(&uri.fraglist);
            o.querylist = c_list(&uri.querylist);
            put(ncuri, out);
        }
        Ok(())
    })
}

/// `void ncurifree(NCURI*)`: free the struct, its strings and lists.
///
/// # Safety
/// `u` is NULL or an NCURI from `ncuriparse`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncurifree(u: *mut NCURI) {
    if u.is_null() {
        return;
    }
    // SAFETY: every field was malloc'ed (or is NULL), as was the struct.
    unsafe {
        let o = &mut *u;
        for p in [o.uri, o.protocol, o.user, o.password, o.host, o.port, o.path, o.query, o.fragment] {
            libc::free(p as *mut c_void);
        }
        free_list(o.fraglist);
        free_list(o.querylist);
        libc::free(u as *mut c_void);
    }
}

/// `char* ncuribuild(NCURI*, const char* prefix, const char* suffix, int
/// flags)`: the URL text (malloc'ed), parts chosen by the NCURI* flags.
/// Like netcdf-c, it first brings the query and fragment strings and
/// lists into agreement, in the struct itself. NULL for a NULL NCURI.
///
/// # Safety
/// `u` is NULL or a valid NCURI; `prefix`, `suffix` NULL or C strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuribuild(
    u: *mut NCURI,
    prefix: *const c_char,
    suffix: *const c_char,
    flags: c_int,
) -> *mut c_char {
    if u.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: per this function's contract.
    let (prefix, suffix) = unsafe { (opt_bytes(prefix).unwrap_or_default(), opt_bytes(suffix).unwrap_or_default()) };
    guarded(std::ptr::null_mut(), || {
        // SAFETY: u is a valid NCURI.
        let mut uri = unsafe { read_uri(u) };
        let query_changed = flags & ncuri::NCURIQUERY != 0 && uri.ensure_query();
        let frag_changed = flags & ncuri::NCURIFRAG != 0 && uri.ensure_fragment();
        let text = uri.build(prefix, suffix, flags);
        // SAFETY: u is a valid NCURI whose fields we own from here on.
        unsafe {
            let o = &mut *u;
            if query_changed {
                set_str(&mut o.query, &uri.query);
                set_list(&mut o.querylist, &uri.querylist);
            }
            if frag_changed {
                set_str(&mut o.fragment, &uri.fragment);
                set_list(&mut o.fraglist, &uri.fraglist);
            }
        }
        c_copy(&text)
    })
}

/// `int ncuriappendfragmentkey(NCURI* duri, const char* key, const char*
/// value)`: add `key[=value]` to the fragment, or give an existing key
/// (case ignored) the new value; the fragment string is rebuilt.
/// NC_EINVAL for a NULL NCURI or key.
///
/// # Safety
/// `duri` is NULL or a valid NCURI; `key`, `value` NULL or C strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncuriappendfragmentkey(duri: *mut NCURI, key: *const c_char, value: *const c_char) -> c_int {
    // SAFETY: per this function's contract.
    let (key, value) = unsafe { (opt_bytes(key), opt_bytes(value)) };
    let Some(key) = key.filter(|_| !duri.is_null()) else { return NcError::EINVAL.0 };
    guard(|| {
        // SAFETY: duri is a valid NCURI.
        let mut uri = unsafe { read_uri(duri) };
        uri.append_fragment_key(key, value);
        // SAFETY: as above.
        unsafe {
            let o = &mut *duri;
            set_str(&mut o.fragment, &uri.fragment);
            set_list(&mut o.fraglist, &uri.fraglist);
        }
        Ok(())
    })
}

/// `int nc__testurl(const char* path, char** basenamep)`: 1 when `path`
/// is a URL with a non-empty dataset name (its last path segment minus
/// the extension, stored malloc'ed through `basenamep`), else 0.
///
/// # Safety
/// `path` is NULL or a C string; `basenamep` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc__testurl(path: *const c_char, basenamep: *mut *mut c_char) -> c_int {
    // SAFETY: per this function's contract.
    let Some(text) = (unsafe { opt_bytes(path) }) else { return 0 };
    guarded(0, || match ncuri::test_url(text) {
        Some(base) => {
            if !basenamep.is_null() {
                // SAFETY: basenamep is writable.
                unsafe { put(basenamep, c_copy(&base)) };
            }
            1
        }
        None => 0,
    })
}
