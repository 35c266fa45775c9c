//! The data engine: a request is split into chunk parts once; chunks not
//! in the cache are fetched (in parallel when there are several), and each
//! part is copied run by run between the chunk and the caller's buffer.
//!
//! Chunks are held decoded, in the variable's type and native byte order.
//! Writes go through the cache; dirty chunks reach storage when evicted or
//! when the dataset is synced or closed.

use std::collections::HashMap;
use std::ffi::c_char;

use super::cache::{ChunkCache, DirtyChunk, default_settings};
use super::element::{check_types, convert_run, get_strings, put_strings, strings_fit, swap_bytes};
use super::grid::{ChunkPart, chunk_parts, for_each_run, part_span};
use super::layout::VarLayout;
use super::selection::Selection;
use crate::dataset::Dataset;
use crate::error::{NcError, NcResult};
use crate::types::*;
use crate::zmap::Zmap;

/// Most threads one request uses to fetch or store chunks.
const MAX_THREADS: usize = 8;

/// Checks shared by reads and writes; leaves define mode as netCDF-4 does.
fn prepare(ds: &mut Dataset, grp: usize, varid: i32, mem_type: NcType) -> NcResult<NcType> {
    let var = ds.model.var(grp, varid)?;
    let mem_type = if mem_type == NC_NAT { var.xtype } else { mem_type };
    check_types(mem_type, var.xtype)?;
    if !var.codecs.is_empty() {
        // Filters arrive with their own issue; never hand out encoded bytes.
        return Err(NcError::ENOFILTER);
    }
    if ds.model.define_mode {
        if ds.model.classic_model {
            return Err(NcError::EINDEFINE);
        }
        ds.enddef()?;
    }
    Ok(mem_type)
}

/// Read one stored chunk, decoded; a missing chunk is all fill.
pub fn load_chunk(store: &dyn Zmap, layout: &VarLayout, idx: &[usize]) -> NcResult<Vec<u8>> {
    match store.get(&layout.chunk_key(idx))? {
        None => Ok(layout.fill_chunk()),
        Some(mut data) => {
            if data.len() != layout.chunk_bytes() {
                // Truncated or foreign: never hand out misaligned bytes.
                return Err(NcError::ENCZARR);
            }
            if layout.swap {
                swap_bytes(&mut data, layout.elem_size);
            }
            Ok(data)
        }
    }
}

/// Write one chunk, encoded.
pub fn store_chunk(store: &dyn Zmap, layout: &VarLayout, idx: &[usize], data: &[u8]) -> NcResult<()> {
    if layout.swap {
        let mut swapped = data.to_vec();
        swap_bytes(&mut swapped, layout.elem_size);
        store.put(&layout.chunk_key(idx), &swapped)
    } else {
        store.put(&layout.chunk_key(idx), data)
    }
}

fn store_all(store: &dyn Zmap, layout: &VarLayout, chunks: Vec<DirtyChunk>) -> NcResult<()> {
    chunks.into_iter().try_for_each(|(idx, data)| store_chunk(store, layout, &idx, &data))
}

/// Apply `f` to every item, on scoped threads when there is more than
/// one (no thread outlives the call, so a fork between calls is safe).
/// Results keep the items' order; the first error wins.
fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> NcResult<R> + Sync) -> NcResult<Vec<R>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS).min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<NcResult<R>>>> =
        std::sync::Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= items.len() {
                        break;
                    }
                    let r = f(&items[i]);
                    if let Ok(mut results) = results.lock() {
                        results[i] = Some(r);
                    }
                }
            });
        }
    });
    let results = results.into_inner().map_err(|_| NcError::EINTERNAL)?;
    results.into_iter().map(|r| r.unwrap_or(Err(NcError::EINTERNAL))).collect()
}

/// Fetch several whole chunks, in parallel.
fn load_chunks(store: &dyn Zmap, layout: &VarLayout, idxs: &[Vec<usize>]) -> NcResult<Vec<Vec<u8>>> {
    in_parallel(idxs, |idx| load_chunk(store, layout, idx))
}

fn cache_for(ds: &mut Dataset, grp: usize, varid: i32) -> &mut ChunkCache {
    ds.caches.entry((grp, varid as usize)).or_insert_with(|| ChunkCache::new(default_settings()))
}

/// Copy one run from chunk bytes starting at the run's first element.
///
/// # Safety
/// `buf` must hold the run's elements in `mem_type` at its offsets.
unsafe fn copy_run_out(
    layout: &VarLayout,
    run: super::grid::Run,
    src: &[u8],
    mem_type: NcType,
    buf: *mut u8,
) -> NcResult<bool> {
    let es = layout.elem_size;
    let ms = type_size(mem_type)? as isize;
    let step = run.chunk_step * es;
    if src.len() < ((run.n - 1) * run.chunk_step + 1) * es {
        return Err(NcError::EINTERNAL);
    }
    let dst = unsafe { buf.offset(run.mem_off * ms) };
    if layout.xtype == NC_STRING {
        unsafe { get_strings(src.as_ptr(), step, es, dst as *mut *mut c_char, run.mem_step, run.n) }?;
        Ok(false)
    } else {
        unsafe { convert_run(layout.xtype, src.as_ptr(), step as isize, mem_type, dst, run.mem_step * ms, run.n) }
    }
}

/// Copy the selected elements of one chunk to the caller's memory;
/// `chunk` holds the chunk's elements from element `base` on.
///
/// # Safety
/// `buf` must hold the whole selection in `mem_type` at the selection's imap.
unsafe fn copy_out(
    layout: &VarLayout,
    sel: &Selection,
    part: &ChunkPart,
    chunk: &[u8],
    base: usize,
    mem_type: NcType,
    buf: *mut u8,
) -> NcResult<bool> {
    let es = layout.elem_size;
    let mut range_error = false;
    for_each_run(sel, &layout.chunks, part, |run| {
        let src = chunk.get((run.chunk_off - base) * es..).ok_or(NcError::EINTERNAL)?;
        range_error |= unsafe { copy_run_out(layout, run, src, mem_type, buf) }?;
        Ok(())
    })?;
    Ok(range_error)
}

/// Copy the caller's values for one chunk part into the chunk.
///
/// # Safety
/// `buf` must hold the whole selection in `mem_type` at the selection's imap.
unsafe fn copy_in(
    layout: &VarLayout,
    sel: &Selection,
    part: &ChunkPart,
    chunk: &mut [u8],
    mem_type: NcType,
    buf: *const u8,
) -> NcResult<bool> {
    let es = layout.elem_size;
    let ms = type_size(mem_type)? as isize;
    let mut range_error = false;
    for_each_run(sel, &layout.chunks, part, |run| {
        let dst = chunk[run.chunk_off * es..].as_mut_ptr();
        let dst_step = run.chunk_step * es;
        let src = unsafe { buf.offset(run.mem_off * ms) };
        if layout.xtype == NC_STRING {
            unsafe { put_strings(src as *const *const c_char, run.mem_step, dst, dst_step, es, run.n) }
        } else {
            let bad =
                unsafe { convert_run(mem_type, src, run.mem_step * ms, layout.xtype, dst, dst_step as isize, run.n) }?;
            range_error |= bad;
            Ok(())
        }
    })?;
    Ok(range_error)
}

/// How to read a chunk part that is not cached. Raw chunks allow reading
/// only the bytes wanted, which pays when they are few.
enum PartRead {
    /// Read the selected bytes straight into the caller's buffer: the
    /// chunk is raw, no conversion is needed and every run is contiguous
    /// on both sides.
    Direct,
    /// Load the whole chunk (and cache it).
    Whole,
    /// One byte range: elements `[first, first + span)` hold them all.
    Span { first: usize, span: usize },
    /// A byte range per run (few, small runs far apart).
    Runs,
}

/// Most runs worth fetching one by one instead of loading the chunk.
const MAX_RANGED_RUNS: usize = 64;

fn plan_part_read(layout: &VarLayout, sel: &Selection, part: &ChunkPart, mem_type: NcType) -> PartRead {
    let nd = sel.count.len();
    let raw_copy = mem_type == layout.xtype && !layout.swap && layout.xtype != NC_STRING;
    if raw_copy && sel.stride[nd - 1] == 1 && sel.imap[nd - 1] == 1 {
        return PartRead::Direct;
    }
    let chunk_elems = layout.chunk_elems();
    let (first, last) = part_span(sel, &layout.chunks, part);
    let span = last - first + 1;
    if span * 2 <= chunk_elems {
        return PartRead::Span { first, span };
    }
    let wanted: usize = part.lo.iter().zip(&part.hi).map(|(lo, hi)| hi - lo + 1).product();
    let runs = wanted / (part.hi[nd - 1] - part.lo[nd - 1] + 1);
    if wanted * 4 <= chunk_elems && runs <= MAX_RANGED_RUNS { PartRead::Runs } else { PartRead::Whole }
}

/// Decode stored bytes in place; a missing chunk reads as fill.
fn decode_or_fill(layout: &VarLayout, bytes: Option<Vec<u8>>, elems: usize) -> Vec<u8> {
    match bytes {
        None => layout.fill.repeat(elems),
        Some(mut b) => {
            if layout.swap {
                swap_bytes(&mut b, layout.elem_size);
            }
            b
        }
    }
}

/// Copy a part of an uncached chunk by reading only the bytes it needs.
///
/// # Safety
/// As [`copy_out`].
unsafe fn copy_out_ranged(
    store: &dyn Zmap,
    layout: &VarLayout,
    sel: &Selection,
    part: &ChunkPart,
    plan: PartRead,
    mem_type: NcType,
    buf: *mut u8,
) -> NcResult<bool> {
    let es = layout.elem_size;
    let key = layout.chunk_key(&part.idx);
    match plan {
        PartRead::Direct => {
            let mut segments = Vec::new();
            for_each_run(sel, &layout.chunks, part, |run| {
                // SAFETY: the run's destination lies inside the caller's
                // buffer, and distinct runs never overlap.
                let dst = unsafe { std::slice::from_raw_parts_mut(buf.offset(run.mem_off * es as isize), run.n * es) };
                segments.push(((run.chunk_off * es) as u64, dst));
                Ok(())
            })?;
            if !store.read_into(&key, &mut segments)? {
                for (_, dst) in segments.iter_mut() {
                    dst.chunks_exact_mut(es).for_each(|e| e.copy_from_slice(&layout.fill));
                }
            }
            Ok(false)
        }
        PartRead::Span { first, span } => {
            let bytes = store.get_range(&key, (first * es) as u64, span * es)?;
            let bytes = decode_or_fill(layout, bytes, span);
            unsafe { copy_out(layout, sel, part, &bytes, first, mem_type, buf) }
        }
        PartRead::Runs | PartRead::Whole => {
            let mut ranges = Vec::new();
            for_each_run(sel, &layout.chunks, part, |run| {
                ranges.push(((run.chunk_off * es) as u64, ((run.n - 1) * run.chunk_step + 1) * es));
                Ok(())
            })?;
            let fetched = store.get_ranges(&key, &ranges)?;
            let mut range_error = false;
            let mut k = 0;
            for_each_run(sel, &layout.chunks, part, |run| {
                let elems = ranges[k].1 / es;
                let bytes = decode_or_fill(layout, fetched.as_ref().map(|f| f[k].clone()), elems);
                k += 1;
                range_error |= unsafe { copy_run_out(layout, run, &bytes, mem_type, buf) }?;
                Ok(())
            })?;
            Ok(range_error)
        }
    }
}

/// Read a checked selection into `buf`. Returns whether a value was out of
/// range for `mem_type` (every value is delivered regardless).
///
/// # Safety
/// `buf` must hold the selection in `mem_type` at the selection's imap.
pub unsafe fn read(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    sel: &Selection,
    mem_type: NcType,
    buf: *mut u8,
) -> NcResult<bool> {
    let mem_type = prepare(ds, grp, varid, mem_type)?;
    if sel.is_empty() {
        return Ok(false);
    }
    let layout = VarLayout::of(&ds.model, grp, ds.model.var(grp, varid)?)?;
    let parts = chunk_parts(sel, &layout.chunks, &layout.shape);
    let missing: Vec<Vec<usize>> = {
        let cache = cache_for(ds, grp, varid);
        parts
            .iter()
            .filter(|p| !cache.contains(&p.idx) && matches!(plan_part_read(&layout, sel, p, mem_type), PartRead::Whole))
            .map(|p| p.idx.clone())
            .collect()
    };
    let fetched: HashMap<Vec<usize>, Vec<u8>> =
        missing.iter().cloned().zip(load_chunks(ds.store.as_ref(), &layout, &missing)?).collect();
    let mut range_error = false;
    let cache = ds.caches.get_mut(&(grp, varid as usize)).ok_or(NcError::EINTERNAL)?;
    for part in &parts {
        let chunk = match fetched.get(&part.idx) {
            Some(c) => c.as_slice(),
            None => match cache.get(&part.idx) {
                Some(c) => c,
                None => {
                    let plan = plan_part_read(&layout, sel, part, mem_type);
                    range_error |=
                        unsafe { copy_out_ranged(ds.store.as_ref(), &layout, sel, part, plan, mem_type, buf) }?;
                    continue;
                }
            },
        };
        range_error |= unsafe { copy_out(&layout, sel, part, chunk, 0, mem_type, buf) }?;
    }
    if cache.can_hold(layout.chunk_bytes()) {
        let mut evicted = Vec::new();
        for (idx, data) in fetched {
            evicted.extend(cache.insert(idx, data, false));
        }
        store_all(ds.store.as_ref(), &layout, evicted)?;
    }
    Ok(range_error)
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
    ds.model.check_writable()?;
    let mem_type = prepare(ds, grp, varid, mem_type)?;
    if sel.is_empty() {
        return Ok(false);
    }
    let var = ds.model.var(grp, varid)?;
    if var.xtype == NC_STRING {
        let width = VarLayout::of(&ds.model, grp, var)?.elem_size;
        if !unsafe { all_strings_fit(sel, buf as *const *const c_char, width) } {
            return Err(NcError::EINVAL);
        }
    }
    grow_unlimited(ds, grp, varid, sel)?;
    let layout = VarLayout::of(&ds.model, grp, ds.model.var(grp, varid)?)?;
    let parts = chunk_parts(sel, &layout.chunks, &layout.shape);
    let cacheable = cache_for(ds, grp, varid).can_hold(layout.chunk_bytes());
    let mut range_error = false;
    for part in &parts {
        let cache = ds.caches.get_mut(&(grp, varid as usize)).ok_or(NcError::EINTERNAL)?;
        if let Some(chunk) = cache.get_dirty(&part.idx) {
            range_error |= unsafe { copy_in(&layout, sel, part, chunk, mem_type, buf) }?;
            continue;
        }
        let mut chunk =
            if part.covers_chunk { layout.fill_chunk() } else { load_chunk(ds.store.as_ref(), &layout, &part.idx)? };
        range_error |= unsafe { copy_in(&layout, sel, part, &mut chunk, mem_type, buf) }?;
        if cacheable {
            let evicted = ds.caches.get_mut(&(grp, varid as usize)).ok_or(NcError::EINTERNAL)?.insert(
                part.idx.clone(),
                chunk,
                true,
            );
            store_all(ds.store.as_ref(), &layout, evicted)?;
        } else {
            store_chunk(ds.store.as_ref(), &layout, &part.idx, &chunk)?;
        }
    }
    ds.model.var_mut(grp, varid)?.written = true;
    Ok(range_error)
}

/// Do all the strings of a selection fit the variable's width?
unsafe fn all_strings_fit(sel: &Selection, buf: *const *const c_char, width: usize) -> bool {
    let nd = sel.count.len();
    let mut i = vec![0usize; nd];
    loop {
        let off: isize = (0..nd - 1).map(|d| i[d] as isize * sel.imap[d]).sum();
        let row = unsafe { buf.offset(off) };
        if !unsafe { strings_fit(row, sel.imap[nd - 1], sel.count[nd - 1], width) } {
            return false;
        }
        let mut d = nd - 1;
        loop {
            if d == 0 {
                return true;
            }
            d -= 1;
            i[d] += 1;
            if i[d] < sel.count[d] {
                break;
            }
            i[d] = 0;
        }
    }
}

/// Extend the unlimited dimensions a write reaches past.
fn grow_unlimited(ds: &mut Dataset, grp: usize, varid: i32, sel: &Selection) -> NcResult<()> {
    let dimids = ds.model.var(grp, varid)?.dimids.clone();
    for (d, &dimid) in dimids.iter().enumerate() {
        let end = sel.end(d);
        let dim = &mut ds.model.dims[dimid];
        if dim.unlimited && end > dim.len {
            dim.len = end;
            ds.model.dirty = true;
        }
    }
    Ok(())
}

/// Write every dirty cached chunk of the dataset to storage.
pub fn flush(ds: &mut Dataset) -> NcResult<()> {
    let Dataset { model, store, caches, .. } = ds;
    for (&(grp, varid), cache) in caches.iter_mut() {
        let dirty = cache.dirty();
        if dirty.is_empty() {
            continue;
        }
        let layout = VarLayout::of(model, grp, model.var(grp, varid as i32)?)?;
        in_parallel(&dirty, |(idx, data)| store_chunk(store.as_ref(), &layout, idx, data))?;
        cache.mark_clean();
    }
    Ok(())
}

/// Apply new cache bounds to one variable, writing what they evict.
pub fn set_var_cache(ds: &mut Dataset, grp: usize, varid: i32, settings: super::CacheSettings) -> NcResult<()> {
    super::cache::check(&settings)?;
    let layout = VarLayout::of(&ds.model, grp, ds.model.var(grp, varid)?)?;
    let evicted = cache_for(ds, grp, varid).resize(settings);
    store_all(ds.store.as_ref(), &layout, evicted)
}

/// The cache bounds of one variable.
pub fn var_cache(ds: &mut Dataset, grp: usize, varid: i32) -> NcResult<super::CacheSettings> {
    ds.model.var(grp, varid)?;
    Ok(cache_for(ds, grp, varid).settings)
}
