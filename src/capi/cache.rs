//! Chunk cache settings: the defaults for variables opened or defined
//! later (`nc_set_chunk_cache`) and each variable's own.

// Unsafe blocks here only dereference, or pass on, the enclosing C
// function's own pointer arguments, as its `# Safety` section says the
// caller guarantees: that section is their SAFETY comment (policy in
// src/capi/mod.rs). Blocks doing more carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "caller pointers, per each function's # Safety section")]

use std::ffi::c_int;

use super::{guard, put};
use crate::delegate::settings::Setting;
use crate::error::NcError;
use crate::io::cache::{CacheSettings, default_settings, set_default_settings};
use crate::io::engine;
use crate::registry;

#[unsafe(no_mangle)]
pub extern "C" fn nc_set_chunk_cache(size: usize, nelems: usize, preemption: f32) -> c_int {
    guard(|| {
        set_default_settings(CacheSettings { size, nelems, preemption })?;
        Setting::ChunkCache { size, nelems, preemption }.tell_delegate();
        Ok(())
    })
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

const MEGABYTE: usize = 1 << 20;

/// `nc_set_chunk_cache` for Fortran: size in bytes, preemption in percent.
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_chunk_cache_ints(size: c_int, nelems: c_int, preemption: c_int) -> c_int {
    guard(|| {
        if size <= 0 || nelems <= 0 || !(0..=100).contains(&preemption) {
            return Err(NcError::EINVAL);
        }
        let (size, nelems, preemption) = (size as usize, nelems as usize, preemption as f32 / 100.0);
        set_default_settings(CacheSettings { size, nelems, preemption })?;
        Setting::ChunkCache { size, nelems, preemption }.tell_delegate();
        Ok(())
    })
}

/// # Safety
/// Each pointer must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_chunk_cache_ints(
    sizep: *mut c_int,
    nelemsp: *mut c_int,
    preemptionp: *mut c_int,
) -> c_int {
    guard(|| {
        let s = default_settings();
        unsafe {
            put(sizep, c_int::try_from(s.size).unwrap_or(c_int::MAX));
            put(nelemsp, c_int::try_from(s.nelems).unwrap_or(c_int::MAX));
            put(preemptionp, (s.preemption * 100.0) as c_int);
        }
        Ok(())
    })
}

/// `nc_set_var_chunk_cache` for Fortran: size in MiB, preemption in
/// percent; a negative argument keeps that setting's default.
pub extern "C" fn nc_set_var_chunk_cache_ints(
    ncid: c_int,
    varid: c_int,
    size: c_int,
    nelems: c_int,
    preemption: c_int,
) -> c_int {
    guard(|| {
        let d = default_settings();
        let settings = CacheSettings {
            size: if size >= 0 { size as usize * MEGABYTE } else { d.size },
            nelems: if nelems >= 0 { nelems as usize } else { d.nelems },
            preemption: if preemption >= 0 { preemption as f32 / 100.0 } else { d.preemption },
        };
        registry::with(ncid, |ds, grp| engine::set_var_cache(ds, grp, varid, settings))
    })
}

/// # Safety
/// Each pointer must be NULL or writable.
pub unsafe extern "C" fn nc_get_var_chunk_cache_ints(
    ncid: c_int,
    varid: c_int,
    sizep: *mut c_int,
    nelemsp: *mut c_int,
    preemptionp: *mut c_int,
) -> c_int {
    guard(|| {
        let s = registry::with(ncid, |ds, grp| engine::var_cache(ds, grp, varid))?;
        unsafe {
            put(sizep, c_int::try_from(s.size / MEGABYTE).unwrap_or(c_int::MAX));
            put(nelemsp, c_int::try_from(s.nelems).unwrap_or(c_int::MAX));
            put(preemptionp, (s.preemption * 100.0) as c_int);
        }
        Ok(())
    })
}
