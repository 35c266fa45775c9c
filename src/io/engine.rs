//! The data engine's entry points: checks shared by reads and writes, the
//! write path, flushing and cache settings. Reading is in `read.rs`.
//!
//! A request is split into chunk parts once. Chunks are held decoded, in
//! the variable's type and native byte order; writes go through the cache
//! and dirty chunks reach storage when evicted or when the dataset is
//! synced or closed.

use std::ffi::c_char;

use super::cache::{ChunkCache, default_settings};
use super::chunk_io::{store_all, store_chunk, store_chunks};
use super::copy::{all_strings_fit, gather};
use super::element::check_types;
use super::layout::VarLayout;
use super::quantize::{self, Sample};
use super::selection::{Selection, c_order};
use crate::dataset::Dataset;
use crate::error::{NcError, NcResult};
use crate::model::quantize::Quantize;
use crate::types::*;

pub use super::read::read;

/// Checks shared by reads and writes; leaves define mode as netCDF-4 does.
pub(super) fn prepare(ds: &mut Dataset, grp: usize, varid: i32, mem_type: NcType) -> NcResult<NcType> {
    let var = ds.model.var(grp, varid)?;
    let mem_type = if mem_type == NC_NAT { var.xtype } else { mem_type };
    if let Some(e) = var.data_error {
        return Err(e);
    }
    check_types(mem_type, var.xtype)?;
    if ds.model.define_mode {
        if ds.model.classic_model {
            return Err(NcError::EINDEFINE);
        }
        ds.enddef()?;
    }
    Ok(mem_type)
}

pub(super) fn cache_for(ds: &mut Dataset, grp: usize, varid: i32) -> &mut ChunkCache {
    ds.caches.entry((grp, varid as usize)).or_insert_with(|| ChunkCache::new(default_settings()))
}

/// Write a checked selection from `buf`, growing unlimited dimensions as
/// needed. Returns whether a value was out of range for the variable's
/// type (every value is written regardless).
///
/// # Safety
/// `buf` must hold the selection in `mem_type` at the selection's imap.
pub unsafe fn write(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    sel: &Selection,
    mem_type: NcType,
    buf: *const u8,
) -> NcResult<bool> {
    // SAFETY: our contract is write_in_pieces's.
    unsafe { write_in_pieces(ds, grp, varid, sel, mem_type, buf, sel.len()) }
}

/// [`write`] for a request netcdf-c carries out as successive writes of
/// `piece` elements each (a mapped write, see `capi::data::put`), which
/// quantization sees one at a time.
///
/// # Safety
/// As [`write`].
pub unsafe fn write_in_pieces(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    sel: &Selection,
    mem_type: NcType,
    buf: *const u8,
    piece: usize,
) -> NcResult<bool> {
    ds.model.check_writable()?;
    let mem_type = prepare(ds, grp, varid, mem_type)?;
    if sel.is_empty() {
        return Ok(false);
    }
    let var = ds.model.var(grp, varid)?;
    match (Quantize::of(var), var.xtype) {
        // SAFETY: our contract, passed on; f32 is the variable's type.
        (Some(_), NC_FLOAT) => unsafe { write_quantized::<f32>(ds, grp, varid, sel, mem_type, buf, piece) },
        // SAFETY: our contract, passed on; f64 is the variable's type.
        (Some(_), NC_DOUBLE) => unsafe { write_quantized::<f64>(ds, grp, varid, sel, mem_type, buf, piece) },
        // SAFETY: our contract, passed on.
        _ => unsafe { write_checked(ds, grp, varid, sel, mem_type, buf) },
    }
}

/// Quantized writes, as netcdf-c does them: the whole request converted
/// to the variable's type, quantized, then written.
///
/// # Safety
/// As [`write`]; `T` must be the variable's type.
unsafe fn write_quantized<T: Sample>(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    sel: &Selection,
    mem_type: NcType,
    buf: *const u8,
    piece: usize,
) -> NcResult<bool> {
    let var = ds.model.var(grp, varid)?;
    let q = Quantize::of(var).ok_or(NcError::EINTERNAL)?;
    let (xtype, fill) = (var.xtype, ds.model.quantize_fill(var)?);
    let mut values = vec![T::default(); sel.len()];
    // SAFETY: `buf` holds the selection (our contract); `values` has room
    // for all of it in T, the variable's numeric type, which `prepare`
    // checked against `mem_type`.
    let range_error = unsafe { gather(sel, mem_type, buf, xtype, values.as_mut_ptr() as *mut u8) }?;
    quantize::apply(q, &mut values, fill, piece);
    let flat = Selection { imap: c_order(&sel.count), ..sel.clone() };
    // SAFETY: `values` holds the selection in C order, as `flat` maps it.
    let more = unsafe { write_checked(ds, grp, varid, &flat, xtype, values.as_ptr() as *const u8) }?;
    Ok(range_error | more)
}

/// The write itself, after the checks of [`write_in_pieces`].
///
/// # Safety
/// As [`write`].
unsafe fn write_checked(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    sel: &Selection,
    mem_type: NcType,
    buf: *const u8,
) -> NcResult<bool> {
    let var = ds.model.var(grp, varid)?;
    if var.xtype == NC_STRING {
        let layout = VarLayout::of(&ds.model, grp, varid)?;
        // Refused before anything is written: text that cannot be stored
        // (too long is not that: it is cut, as netcdf-c cuts it).
        // SAFETY: a string variable's buffer holds C string pointers
        // (prepare allows only NC_STRING memory for it).
        if !unsafe { all_strings_fit(sel, buf as *const *const c_char, layout.elem_size, layout.text) } {
            return Err(NcError::EINVAL);
        }
    }
    grow_unlimited(ds, grp, varid, sel)?;
    // SAFETY: our contract, passed on.
    let range_error = unsafe { super::write::write_chunks(ds, grp, varid, sel, mem_type, buf) }?;
    ds.model.var_mut(grp, varid)?.written = true;
    Ok(range_error)
}

/// Extend the unlimited dimensions a write reaches past.
fn grow_unlimited(ds: &mut Dataset, grp: usize, varid: i32, sel: &Selection) -> NcResult<()> {
    let dimids = ds.model.var(grp, varid)?.dimids.clone();
    for (d, &dimid) in dimids.iter().enumerate() {
        let end = sel.end(d);
        let dim = &mut ds.model.dims[dimid];
        if (dim.unlimited || dim.appendable) && end > dim.len {
            dim.len = end;
            ds.model.dirty = true;
        }
    }
    Ok(())
}

/// Write every dirty cached chunk of the dataset to storage.
pub fn flush(ds: &mut Dataset) -> NcResult<()> {
    let Dataset { model, store, caches, .. } = ds;
    // Every dirty chunk of every variable in one batch, so a remote store
    // has them all in flight at once.
    let mut layouts = Vec::new();
    let mut work = Vec::new();
    for (&(grp, varid), cache) in caches.iter_mut() {
        let dirty = cache.dirty();
        if dirty.is_empty() {
            continue;
        }
        let layout = VarLayout::of(model, grp, varid as i32)?;
        if layout.shards.is_some() {
            // Shard by shard, each written once (see `store_chunks`).
            store_chunks(store.as_ref(), &layout, &dirty)?;
            continue;
        }
        layouts.push(layout);
        let layout = layouts.len() - 1;
        work.extend(dirty.into_iter().map(|(idx, data)| (layout, idx, data)));
    }
    crate::workers::map(&work, store.concurrency(), |&(layout, idx, data)| {
        store_chunk(store.as_ref(), &layouts[layout], idx, data)
    })?;
    drop(work);
    caches.values_mut().for_each(ChunkCache::mark_clean);
    Ok(())
}

/// Apply new cache bounds to one variable, writing what they evict.
pub fn set_var_cache(ds: &mut Dataset, grp: usize, varid: i32, settings: super::CacheSettings) -> NcResult<()> {
    super::cache::check(&settings)?;
    let layout = VarLayout::of(&ds.model, grp, varid)?;
    let evicted = cache_for(ds, grp, varid).resize(settings);
    store_all(ds.store.as_ref(), &layout, evicted)
}

/// The cache bounds of one variable.
pub fn var_cache(ds: &mut Dataset, grp: usize, varid: i32) -> NcResult<super::CacheSettings> {
    ds.model.var(grp, varid)?;
    Ok(cache_for(ds, grp, varid).settings)
}
