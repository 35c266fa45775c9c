//! Reading: chunks in the cache are copied from there; the rest are either
//! loaded whole (in parallel, then cached) or, when stored raw and only a
//! little of them is wanted, read by byte ranges, straight into the
//! caller's buffer when no conversion is needed.

use std::collections::HashMap;

use super::chunk_io::{decode_or_fill, load_chunks, store_all};
use super::copy::{copy_out, copy_run_out};
use super::engine::{cache_for, prepare};
use super::grid::{ChunkPart, chunk_parts, for_each_run, part_span};
use super::layout::VarLayout;
use super::selection::Selection;
use crate::dataset::Dataset;
use crate::error::{NcError, NcResult};
use crate::types::*;
use crate::zmap::Zmap;

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
    if layout.order_f || !layout.chain.is_empty() {
        // Byte ranges need raw chunks in C order.
        return PartRead::Whole;
    }
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
            if !store.read_into_exact(&key, layout.chunk_bytes() as u64, &mut segments)? {
                for (_, dst) in segments.iter_mut() {
                    dst.chunks_exact_mut(es).for_each(|e| e.copy_from_slice(&layout.fill));
                }
            }
            Ok(false)
        }
        PartRead::Span { first, span } => {
            let mut bytes = crate::buffers::zeroed(span * es)?;
            let found =
                store.read_into_exact(&key, layout.chunk_bytes() as u64, &mut [((first * es) as u64, &mut bytes)])?;
            let bytes = decode_or_fill(layout, found.then_some(bytes), span)?;
            unsafe { copy_out(layout, sel, part, &bytes, first, mem_type, buf) }
        }
        PartRead::Runs | PartRead::Whole => {
            let mut ranges = Vec::new();
            for_each_run(sel, &layout.chunks, part, |run| {
                ranges.push((
                    (run.chunk_off * es) as u64,
                    crate::buffers::zeroed(((run.n - 1) * run.chunk_step + 1) * es)?,
                ));
                Ok(())
            })?;
            let mut segments: Vec<(u64, &mut [u8])> = ranges.iter_mut().map(|(o, b)| (*o, &mut b[..])).collect();
            let found = store.read_into_exact(&key, layout.chunk_bytes() as u64, &mut segments)?;
            let mut range_error = false;
            let mut fetched = ranges.into_iter();
            for_each_run(sel, &layout.chunks, part, |run| {
                let (_, stored) = fetched.next().ok_or(NcError::EINTERNAL)?;
                let elems = stored.len() / es;
                let bytes = decode_or_fill(layout, found.then_some(stored), elems)?;
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
    let layout = VarLayout::of(&ds.model, grp, varid)?;
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
