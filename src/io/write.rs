//! The chunk work of a write: the caller's values into every chunk the
//! selection touches, on several threads, and the chunks stored.
//!
//! Two routes:
//! - **Whole chunks, many of them** (a write covering more chunks whole
//!   than the variable's cache holds, which would only evict each other):
//!   each worker assembles a chunk in a buffer of its own, reused from
//!   chunk to chunk, then encodes and stores it. One copy from the
//!   caller's buffer, one encode, one write; nothing read or filled first
//!   (only the part of an edge chunk outside the shape is filled), and
//!   the chunks of a big write are copied, encoded and written on every
//!   core at once. A cached copy of such a chunk is dropped: it is
//!   replaced whole.
//! - **Everything else** goes through the variable's chunk cache, so that
//!   a chunk written in pieces over many calls (one time step at a time)
//!   is assembled in memory and encoded and stored once: by the call that
//!   completes it when it is assembled a slab of rows at a time, else
//!   when evicted or at the next commit. In batches that bound the memory
//!   they take, the batch's chunks are taken from the cache (or read, or
//!   made of fill where the write covers them), changed on several
//!   threads, and put back (or stored, when just completed); what the
//!   cache evicts then (every chunk, when it cannot hold one) is stored,
//!   also on several threads.

use std::ops::RangeInclusive;
use std::sync::Mutex;

use super::cache::ChunkCache;
use super::chunk_io::{load_chunks, store_all, store_chunk};
use super::copy::copy_in;
use super::engine::cache_for;
use super::grid::{ChunkPart, chunk_parts};
use super::layout::VarLayout;
use super::selection::Selection;
use super::unfilled::{Unfilled, whole_rows};
use super::write_behind;
use crate::dataset::Dataset;
use crate::error::{NcError, NcResult};
use crate::types::NcType;

/// Most chunk bytes a batch of a write holds at once (chunks being
/// changed, or assembled by the workers of the whole-chunk route).
const WRITE_BATCH_BYTES: usize = 128 << 20;

/// Below this many bytes of values a write's copying stays on the calling
/// thread: starting workers would cost more.
const PARALLEL_COPY_BYTES: usize = 1 << 20;

/// The caller's values, read by the workers of one call.
struct CallerValues(*const u8);

// SAFETY: the buffer is only read, and every worker is joined before the
// call that received it returns.
unsafe impl Sync for CallerValues {}

/// Write the caller's values (`buf`, holding `sel` in `mem_type`) into
/// the chunks of a variable whose shape already covers `sel`. Returns
/// whether a value was out of range for the variable's type (every value
/// is written regardless).
///
/// # Safety
/// `buf` must hold the selection in `mem_type` at the selection's imap.
pub(super) unsafe fn write_chunks(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    sel: &Selection,
    mem_type: NcType,
    buf: *const u8,
) -> NcResult<bool> {
    let layout = VarLayout::of(&ds.model, grp, varid)?;
    let parts = chunk_parts(sel, &layout.chunks, &layout.shape);
    let values = CallerValues(buf);
    #[cfg(feature = "mpi")]
    if ds.parallel.is_some() && !layout.text.is_vlen() {
        // SAFETY: our contract, passed on.
        return unsafe { write_shared(ds, (grp, varid), &layout, sel, parts, mem_type, &values) };
    }
    // A chunk an earlier write handed on must be stored before this one
    // reads or replaces it.
    if ds.in_flight.as_ref().is_some_and(|f| f.holds_any((grp, varid as usize), parts.iter().map(|p| &p.idx[..]))) {
        write_behind::settle(ds)?;
    }
    let threads = copy_threads(ds, sel, &layout);
    let cache = cache_for(ds, grp, varid);
    let (whole, partial): (Vec<ChunkPart>, Vec<ChunkPart>) =
        parts.into_iter().partition(|p| p.covers_chunk && assembled_directly(&layout));
    let (whole, partial) =
        if whole.len() * layout.chunk_bytes() > cache.settings.size || !cache.can_hold(layout.chunk_bytes()) {
            (whole, partial)
        } else {
            // Few enough to cache: as any other part.
            (Vec::new(), whole.into_iter().chain(partial).collect())
        };
    whole.iter().for_each(|p| {
        drop(cache.take(&p.idx));
        cache.note_written(&p.idx);
    });
    // A batch of the cached route holds no more than the cache does (it
    // replaces what the cache evicts for it: see `change_batch`).
    let cached_batch = batch_len(&layout, cache.settings.size);
    // SAFETY: our contract, passed on.
    let mut range_error = unsafe { store_whole(ds, &layout, sel, &whole, mem_type, &values) }?;
    for batch in partial.chunks(cached_batch) {
        // SAFETY: as above.
        range_error |= unsafe { change_batch(ds, grp, varid, &layout, sel, batch, mem_type, &values, threads) }?;
    }
    Ok(range_error)
}

/// A write to a parallel dataset (`io::shared`): chunks it covers stored
/// at once, parts of the others kept as pieces for their owners.
///
/// # Safety
/// As [`write_chunks`].
#[cfg(feature = "mpi")]
unsafe fn write_shared(
    ds: &mut Dataset,
    (grp, varid): (usize, i32),
    layout: &VarLayout,
    sel: &Selection,
    parts: Vec<ChunkPart>,
    mem_type: NcType,
    values: &CallerValues,
) -> NcResult<bool> {
    let (whole, partial) = match &layout.shards {
        None => parts.into_iter().partition(|p| p.covers_chunk),
        Some(shards) => whole_shards(layout, shards, parts),
    };
    let cache = cache_for(ds, grp, varid);
    // A cached copy is stale from here: replaced, or changed by its owner
    // at the next collective call.
    for part in whole.iter().chain(&partial) {
        drop(cache.take(&part.idx));
        cache.note_written(&part.idx);
    }
    let mut range_error = if layout.shards.is_some() {
        // SAFETY: our contract, passed on.
        unsafe { store_whole_shards(ds, layout, sel, &whole, mem_type, values) }?
    } else {
        // SAFETY: our contract, passed on.
        unsafe { store_whole(ds, layout, sel, &whole, mem_type, values) }?
    };
    // SAFETY: as above.
    let (pieces, more) = unsafe { super::shared::pieces(layout, sel, &partial, mem_type, values.0, (grp, varid)) }?;
    range_error |= more;
    ds.parallel.as_mut().ok_or(NcError::EINTERNAL)?.pending.extend(pieces);
    Ok(range_error)
}

/// The parts of a write to a sharded variable split by shard: those of
/// shards the write covers whole (every inner chunk inside the shape),
/// which this rank may rewrite at once, and the rest, each a piece for
/// the shard's owner.
#[cfg(feature = "mpi")]
fn whole_shards(
    layout: &VarLayout,
    shards: &super::shard::ShardReader,
    parts: Vec<ChunkPart>,
) -> (Vec<ChunkPart>, Vec<ChunkPart>) {
    let per_shard = shards.per_shard();
    // Inner chunks of a shard inside the shape (fewer in edge shards).
    let inside = |shard: &[usize]| -> usize {
        (0..shard.len())
            .map(|d| {
                let grid = layout.shape[d].div_ceil(layout.chunks[d].max(1));
                per_shard[d].min(grid.saturating_sub(shard[d] * per_shard[d]))
            })
            .product()
    };
    let mut covered: std::collections::HashMap<Vec<usize>, usize> = std::collections::HashMap::new();
    for part in parts.iter().filter(|p| p.covers_chunk) {
        *covered.entry(shards.locate(&part.idx).0).or_default() += 1;
    }
    parts.into_iter().partition(|p| {
        let shard = shards.locate(&p.idx).0;
        p.covers_chunk && covered.get(&shard) == Some(&inside(&shard))
    })
}

/// Shards a write to a parallel dataset covers whole: their inner chunks
/// assembled on every core and each shard rewritten once, in batches.
///
/// # Safety
/// As [`write_chunks`].
#[cfg(feature = "mpi")]
unsafe fn store_whole_shards(
    ds: &Dataset,
    layout: &VarLayout,
    sel: &Selection,
    parts: &[ChunkPart],
    mem_type: NcType,
    values: &CallerValues,
) -> NcResult<bool> {
    let mut range_error = false;
    for batch in parts.chunks(batch_len(layout, WRITE_BATCH_BYTES)) {
        let made = crate::workers::map(batch, crate::zmap::cpus(), |part| {
            let mut chunk = layout.fill_chunk()?;
            // SAFETY: `values` holds the selection (our contract); the
            // part is one of its chunk parts.
            let range_error = unsafe { copy_in(layout, sel, part, &mut chunk, mem_type, values.0) }?;
            Ok(((part.idx.clone(), chunk), range_error))
        })?;
        range_error |= made.iter().any(|(_, e)| *e);
        store_all(ds.store.as_ref(), layout, made.into_iter().map(|(chunk, _)| chunk).collect())?;
    }
    Ok(range_error)
}

/// Can a chunk this layout describes be assembled in a plain buffer and
/// stored on its own? (Not a shard's inner chunk, which is stored with
/// its shard, nor variable-length strings, whose chunk grows.)
fn assembled_directly(layout: &VarLayout) -> bool {
    layout.shards.is_none() && !layout.text.is_vlen()
}

/// How many chunks a batch of at most `bytes` (and [`WRITE_BATCH_BYTES`])
/// holds: one at least.
fn batch_len(layout: &VarLayout, bytes: usize) -> usize {
    (bytes.min(WRITE_BATCH_BYTES) / layout.chunk_bytes().max(1)).max(1)
}

/// Threads for copying a write's values: the cores, unless it is small or
/// a storer is at work (`write_behind`). That storer has the other cores:
/// workers beside it would only take turns with it, and a program writing
/// a step a call would start them at every call (measured on 2 cores:
/// write_steps 3-12% faster copying on the calling thread alone).
fn copy_threads(ds: &Dataset, sel: &Selection, layout: &VarLayout) -> usize {
    let small = sel.len().saturating_mul(layout.elem_size) < PARALLEL_COPY_BYTES;
    if small || ds.in_flight.is_some() { 1 } else { crate::zmap::cpus() }
}

/// Is every element of the chunk inside the variable's shape (so that the
/// write, which covers the chunk, sets every one of its bytes)?
fn inside_shape(layout: &VarLayout, idx: &[usize]) -> bool {
    idx.iter().zip(&layout.chunks).zip(&layout.shape).all(|((&i, &c), &n)| (i + 1).saturating_mul(c) <= n)
}

/// The whole-chunk route (see the module's notes).
///
/// # Safety
/// As [`write_chunks`].
unsafe fn store_whole(
    ds: &Dataset,
    layout: &VarLayout,
    sel: &Selection,
    parts: &[ChunkPart],
    mem_type: NcType,
    values: &CallerValues,
) -> NcResult<bool> {
    if parts.is_empty() {
        return Ok(false);
    }
    let store = ds.store.as_ref();
    let threads = store.concurrency().min(batch_len(layout, WRITE_BATCH_BYTES));
    let chunk_bytes = layout.chunk_bytes();
    let range_errors = crate::workers::map_with(parts, threads, Spare::default, |spare: &mut Spare, part| {
        let chunk = &mut spare.0;
        if inside_shape(layout, &part.idx) {
            // Every byte is about to be set: what the buffer held (its
            // last chunk) is never seen.
            if chunk.len() != chunk_bytes {
                crate::buffers::recycle(std::mem::take(chunk));
                *chunk = crate::buffers::zeroed(chunk_bytes)?;
            }
        } else {
            crate::buffers::recycle(std::mem::replace(chunk, layout.fill_chunk()?));
        }
        // SAFETY: `values` holds the selection (our contract); the part
        // is one of its chunk parts.
        let range_error = unsafe { copy_in(layout, sel, part, chunk, mem_type, values.0) }?;
        store_chunk(store, layout, &part.idx, chunk)?;
        Ok(range_error)
    })?;
    Ok(range_errors.into_iter().any(|e| e))
}

/// A worker's chunk buffer, handed back for reuse when the worker is done.
#[derive(Default)]
struct Spare(Vec<u8>);

impl Drop for Spare {
    fn drop(&mut self) {
        crate::buffers::recycle(std::mem::take(&mut self.0));
    }
}

/// One batch of the cached route (see the module's notes).
///
/// # Safety
/// As [`write_chunks`].
#[allow(clippy::too_many_arguments)]
unsafe fn change_batch(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    layout: &VarLayout,
    sel: &Selection,
    parts: &[ChunkPart],
    mem_type: NcType,
    values: &CallerValues,
    threads: usize,
) -> NcResult<bool> {
    let fresh = ds.model.var(grp, varid)?.fresh;
    let Dataset { store, caches, .. } = ds;
    let store = store.as_ref();
    let cache: &mut ChunkCache = caches.get_mut(&(grp, varid as usize)).ok_or(NcError::EINTERNAL)?;
    // Of a variable this handle defined, a chunk it never wrote is not
    // stored: made of fill, not read (a request each, on S3).
    let stored = |cache: &ChunkCache, idx: &[usize]| !(fresh && cache.never_written(idx));
    // The batch's chunks leave the cache while they change (each part is
    // of a different chunk); until they are back, an error must not lose
    // the unwritten data some of them hold.
    let (mut chunks, mut unfilled): (Vec<Option<Vec<u8>>>, Vec<Option<Unfilled>>) = parts
        .iter()
        .map(|p| match cache.take_unfilled(&p.idx) {
            Some((chunk, unfilled)) => (Some(chunk), unfilled),
            None => (None, None),
        })
        .unzip();
    let from_cache: Vec<bool> = chunks.iter().map(Option::is_some).collect();
    // Whole rows a part sets (a chunk written a slab at a time): such a
    // chunk is not filled first, only its rows never written when it
    // must be whole (see `unfilled.rs`).
    let rows: Vec<Option<RangeInclusive<usize>>> = parts.iter().map(|p| whole_rows(layout, sel, p)).collect();
    // Room first: what the cache evicts for the batch is stored (and its
    // buffers spare for the new chunks) before they are made.
    if cache.can_hold(layout.chunk_bytes()) {
        let coming = chunks.len();
        let evicted = cache.make_room(coming, coming.saturating_mul(layout.chunk_bytes()));
        if let Err(e) = store_all(store, layout, evicted) {
            for (((part, chunk), _), unfilled) in
                parts.iter().zip(chunks).zip(from_cache).zip(unfilled).filter(|((_, cached), _)| *cached)
            {
                if let Some(chunk) = chunk {
                    drop(cache.insert_unfilled(part.idx.clone(), chunk, unfilled, true));
                }
            }
            return Err(e);
        }
    }
    let read_first: Vec<bool> =
        parts.iter().zip(&chunks).map(|(p, c)| c.is_none() && !p.covers_chunk && stored(cache, &p.idx)).collect();
    parts.iter().for_each(|p| cache.note_written(&p.idx));
    let changed = (|| {
        let missing: Vec<Vec<usize>> =
            parts.iter().zip(&read_first).filter(|(_, read)| **read).map(|(p, _)| p.idx.clone()).collect();
        let mut loaded = load_chunks(store, layout, &missing)?.into_iter();
        for (((chunk, unfilled), read), rows) in chunks.iter_mut().zip(unfilled.iter_mut()).zip(&read_first).zip(&rows)
        {
            if chunk.is_none() {
                *chunk = Some(if *read {
                    loaded.next().ok_or(NcError::EINTERNAL)?
                } else if let (Some(_), Some(blank)) = (rows, Unfilled::all_rows(layout)) {
                    *unfilled = Some(blank);
                    crate::buffers::overwritable(layout.chunk_bytes())?
                } else {
                    layout.fill_chunk()?
                });
            }
            // A part of less than whole rows needs the chunk whole first.
            if rows.is_none()
                && let (Some(chunk), Some(pending)) = (chunk.as_mut(), unfilled.take())
            {
                pending.complete(chunk);
            }
        }
        let work: Vec<(&ChunkPart, Mutex<&mut Vec<u8>>)> =
            parts.iter().zip(chunks.iter_mut()).filter_map(|(p, c)| Some((p, Mutex::new(c.as_mut()?)))).collect();
        let range_errors = crate::workers::map(&work, threads, |(part, chunk)| {
            let mut chunk = chunk.lock().map_err(|_| NcError::EINTERNAL)?;
            // SAFETY: `values` holds the selection (our contract).
            unsafe { copy_in(layout, sel, part, &mut chunk, mem_type, values.0) }
        })?;
        Ok(range_errors.into_iter().any(|e| e))
    })();
    // Back into the cache (or, when it cannot hold one, to storage). After
    // an error only the chunks that came from the cache go back (with
    // whatever of the write reached them, as an error half-way through
    // any write leaves it): the others may be fill the write never got to.
    let cacheable = cache.can_hold(layout.chunk_bytes());
    let mut to_store = Vec::new();
    // Chunks this call completed, assembled over several calls: handed on
    // to be stored while the caller goes on (`write_behind`).
    let mut finished = Vec::new();
    for ((((part, chunk), cached), unfilled), rows) in parts.iter().zip(chunks).zip(from_cache).zip(unfilled).zip(rows)
    {
        let Some(mut chunk) = chunk.filter(|_| cached || changed.is_ok()) else { continue };
        // The rows this write set, once it has (after a failure, the
        // rows it may not have reached are filled later, as never
        // written).
        let (unfilled, completed) = match (unfilled, rows) {
            (Some(pending), Some(rows)) if changed.is_ok() => {
                let left = pending.written(rows);
                let completed = left.is_none();
                (left, completed)
            }
            (pending, _) => (pending, false),
        };
        // A chunk assembled row by row over several calls (one time step
        // per call) that this call completed is stored now rather than
        // when evicted: it is whole, and a write a step at a time does
        // not come back to it, so keeping it would only double the
        // cache's memory (the band being assembled and the band before).
        // A chunk made whole in one call stays cached as before: a
        // program rewriting a small variable would pay an encode a call.
        let assembled = cached && completed;
        if cacheable && !assembled {
            to_store.extend(cache.insert_unfilled(part.idx.clone(), chunk, unfilled, true));
        } else {
            if let Some(pending) = unfilled {
                pending.complete(&mut chunk);
            }
            if assembled { &mut finished } else { &mut to_store }.push((part.idx.clone(), chunk));
        }
    }
    let stored = store_all(store, layout, to_store);
    let handed = if hands_on(ds, layout) {
        write_behind::hand_on(ds, (grp, varid as usize), layout, finished)
    } else {
        store_all(ds.store.as_ref(), layout, finished)
    };
    let range_error = changed?;
    stored?;
    handed?;
    Ok(range_error)
}

/// Are chunks this call completed stored on a thread of their own
/// (`write_behind`)? Not a parallel dataset's (its commits are collective).
fn hands_on(ds: &Dataset, layout: &VarLayout) -> bool {
    ds.parallel.is_none() && write_behind::can_hand_on(layout)
}
