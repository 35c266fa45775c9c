//! Chunk cache settings: the defaults for variables opened or defined
//! later (`nc_set_chunk_cache`) and each variable's own.

use std::ffi::c_int;

use super::{guard, put};
use crate::io::cache::{CacheSettings, default_settings, set_default_settings};
use crate::io::engine;
use crate::registry;

#[unsafe(no_mangle)]
pub extern "C" fn nc_set_chunk_cache(size: usize, nelems: usize, preemption: f32) -> c_int {
    guard(|| set_default_settings(CacheSettings { size, nelems, preemption }))
}

/// # Safety
/// Each pointer must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_chunk_cache(sizep: *mut usize, nelemsp: *mut usize, preemptionp: *mut f32) -> c_int {
    guard(|| {
        let s = default_settings();
        unsafe {
            put(sizep, s.size);
            put(nelemsp, s.nelems);
            put(preemptionp, s.preemption);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_set_var_chunk_cache(
    ncid: c_int,
    varid: c_int,
    size: usize,
    nelems: usize,
    preemption: f32,
) -> c_int {
    guard(|| {
        registry::with(ncid, |ds, grp| {
            engine::set_var_cache(ds, grp, varid, CacheSettings { size, nelems, preemption })
        })
    })
}

/// # Safety
/// Each pointer must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_var_chunk_cache(
    ncid: c_int,
    varid: c_int,
    sizep: *mut usize,
    nelemsp: *mut usize,
    preemptionp: *mut f32,
) -> c_int {
    guard(|| {
        let s = registry::with(ncid, |ds, grp| engine::var_cache(ds, grp, varid))?;
        unsafe {
            put(sizep, s.size);
            put(nelemsp, s.nelems);
            put(preemptionp, s.preemption);
        }
        Ok(())
    })
}
