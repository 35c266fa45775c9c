//! Reading: chunks in the cache are copied from there; the rest are either
//! loaded whole (in parallel, each copied out as it is decoded; those read
//! only in part are cached after) or, when stored raw and only a
//! little of them is wanted, read by byte ranges, straight into the
//! caller's buffer when no conversion is needed; blosc chunks of which
//! little is wanted decode only the blocks holding it (`part_decode`),
//! and are not cached either.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::chunk_io::{decode_or_fill, load_chunk, load_chunks, load_each, store_all};
use super::copy::{copy_out, copy_run_out};
use super::engine::{cache_for, prepare};
use super::grid::{ChunkPart, chunk_parts, for_each_run, part_span};
use super::layout::VarLayout;
use super::part_decode::{self, Outcome};
use super::selection::{Selection, c_order};
use crate::dataset::{self, Dataset};
use crate::error::{NcError, NcResult};
use crate::types::*;
use crate::zmap::Zmap;

/// How to read a chunk part that is not cached. Raw chunks allow reading
/// only the bytes wanted, which pays when they are few.
#[derive(Clone, Copy)]
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
    /// Fetch the chunk, decode only the bytes the runs need (see
    /// `part_decode`).
    Decoded,
}

/// Most runs worth fetching one by one instead of loading the chunk.
const MAX_RANGED_RUNS: usize = 64;
/// Runs at least this long (bytes) are read one by one, however many.
const MIN_DIRECT_RUN: usize = 16 << 10;

fn plan_part_read(layout: &VarLayout, sel: &Selection, part: &ChunkPart, mem_type: NcType) -> PartRead {
    if part_decode::pays(layout, sel, part) {
        return PartRead::Decoded;
    }
    if layout.perm.is_some() || layout.half || layout.shards.is_some() || !layout.chain.is_empty() {
        // Byte ranges need raw chunks in C order.
        return PartRead::Whole;
    }
    if layout.xtype == NC_STRING {
        // Strings are handed out malloc'ed as they are copied. Whole
        // chunks are all fetched (and checked) before the first is copied,
        // so a read that fails has handed out none; ranges are fetched
        // part by part, and a failing part would leave the strings of the
        // parts before it to a caller who, seeing an error, frees nothing.
        return PartRead::Whole;
    }
    let nd = sel.count.len();
    let raw_copy = mem_type == layout.xtype && !layout.swap && layout.xtype != NC_STRING;
    // Direct reads borrow each run's destination as a `&mut [u8]`; an
    // imap that sends runs onto each other would make them alias.
    let wanted: usize = part.lo.iter().zip(&part.hi).map(|(lo, hi)| hi - lo + 1).product();
    let run_len = part.hi[nd - 1] - part.lo[nd - 1] + 1;
    let runs = wanted / run_len;
    // Direct reads cost a system call per run unless the runs follow
    // each other in the file (a whole chunk): many short runs (an
    // unaligned block) are cheaper read in one piece and copied.
    let few_or_long_runs = part.covers_chunk || runs <= MAX_RANGED_RUNS || run_len * layout.elem_size >= MIN_DIRECT_RUN;
    if raw_copy && few_or_long_runs && sel.stride[nd - 1] == 1 && sel.imap[nd - 1] == 1 && sel.maps_disjoint() {
        return PartRead::Direct;
    }
    let chunk_elems = layout.chunk_elems();
    let (first, last) = part_span(sel, &layout.chunks, part);
    let span = last - first + 1;
    if span * 2 <= chunk_elems {
        return PartRead::Span { first, span };
    }
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
                // buffer, and distinct runs never overlap (the plan is
                // Direct only when the selection's map is disjoint).
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
            // SAFETY: `buf` holds the whole selection (our contract).
            unsafe { copy_out(layout, sel, part, &bytes, first, mem_type, buf) }
        }
        // Read by `fetch_numbers` (it may end up with the whole chunk).
        PartRead::Decoded => Err(NcError::EINTERNAL),
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
                // SAFETY: `buf` holds the whole selection, so this run.
                range_error |= unsafe { copy_run_out(layout, run, &bytes, &[], mem_type, buf) }?;
                Ok(())
            })?;
            Ok(range_error)
        }
    }
}

/// The caller's buffer, shared by the threads that fill disjoint parts of it.
struct CallerBuffer(*mut u8);
// SAFETY: the threads write disjoint elements (see its one use in `read`),
// and the buffer outlives them (they are joined before `read` returns).
unsafe impl Sync for CallerBuffer {}

impl CallerBuffer {
    /// The pointer (a method, so closures capture the `Sync` wrapper).
    fn ptr(&self) -> *mut u8 {
        self.0
    }
}

/// A part to read after the dataset is unlocked.
enum Pending<'a> {
    /// A copy of its cached chunk: strings are copied out only once every
    /// chunk is fetched, so a read that fails hands out none (the caller,
    /// seeing an error, frees nothing).
    Held(&'a ChunkPart, Vec<u8>),
    /// Its chunk is among those fetched whole.
    Fetched(&'a ChunkPart),
    /// Read by byte ranges, as planned.
    Ranged(&'a ChunkPart, PartRead),
}

/// A chunk fetched whole by a read, to be cached after it.
type FetchedChunk = (Vec<usize>, Vec<u8>);
type Fetched = Vec<FetchedChunk>;

/// Phase 2 of [`read`] for numbers and characters: every part not in the
/// cache, on as many threads as the store serves well, each fetching,
/// decoding and copying out its chunk at once, so storage reads, decoding
/// and copying overlap and a chunk is let go as soon as it is copied.
/// Chunks read only in part are kept for the cache (the caller is likely
/// to want their other values next), up to `keep_budget` bytes; chunks
/// read whole are not, so a big read neither holds all it read nor
/// sweeps the cache.
fn fetch_numbers(
    store: &dyn Zmap,
    layout: &VarLayout,
    sel: &Selection,
    pending: Vec<Pending<'_>>,
    mem_type: NcType,
    caller: &CallerBuffer,
    keep_budget: usize,
) -> NcResult<(bool, Fetched)> {
    // Parts land in distinct places of the caller's buffer, unless an
    // imap sends several elements to one place: then one at a time, in
    // order, so the last one written stays as in netcdf-c.
    let threads = if sel.maps_disjoint() { store.concurrency() } else { 1 };
    let kept_bytes = AtomicUsize::new(0);
    // A whole chunk, decoded: copied out, then kept or let go.
    let deliver = |part: &ChunkPart, chunk: Vec<u8>| -> NcResult<(bool, Option<FetchedChunk>)> {
        // SAFETY: `buf` holds the whole selection (our contract), and
        // distinct parts write distinct elements of it (maps_disjoint, or
        // one thread).
        let range_error = unsafe { copy_out(layout, sel, part, &chunk, 0, mem_type, caller.ptr()) }?;
        let size = chunk.len();
        let keep = !part.covers_chunk && kept_bytes.fetch_add(size, Ordering::Relaxed) + size <= keep_budget;
        if !keep {
            crate::buffers::recycle(chunk);
            return Ok((range_error, None));
        }
        Ok((range_error, Some((part.idx.clone(), chunk))))
    };
    let results = if layout.shards.is_some() {
        // Inner chunks are always read whole (`plan_part_read`), and
        // fetched shard by shard.
        let parts = pending
            .iter()
            .map(|item| match *item {
                Pending::Fetched(part) => Ok(part),
                _ => Err(NcError::EINTERNAL),
            })
            .collect::<NcResult<Vec<_>>>()?;
        load_each(store, layout, &parts, threads, |part| &part.idx, |part, chunk| deliver(part, chunk))?
    } else {
        crate::workers::map(&pending, threads, |item| match *item {
            Pending::Ranged(part, PartRead::Decoded) => {
                // SAFETY: as in `deliver`.
                match unsafe { part_decode::copy_out(store, layout, sel, part, mem_type, caller.ptr()) }? {
                    Outcome::Copied(range_error) => Ok((range_error, None)),
                    Outcome::Whole(chunk) => deliver(part, chunk),
                }
            }
            Pending::Ranged(part, plan) => {
                // SAFETY: as in `deliver`.
                let range_error = unsafe { copy_out_ranged(store, layout, sel, part, plan, mem_type, caller.ptr()) }?;
                Ok((range_error, None))
            }
            Pending::Fetched(part) => deliver(part, load_chunk(store, layout, &part.idx)?),
            Pending::Held(..) => Err(NcError::EINTERNAL),
        })?
    };
    let mut range_error = false;
    let mut fetched = Vec::new();
    for (bad, kept) in results {
        range_error |= bad;
        fetched.extend(kept);
    }
    Ok((range_error, fetched))
}

/// Phase 2 of [`read`] for strings: every chunk fetched (and checked)
/// before the first string is copied out, since strings are handed out
/// malloc'ed and a read that fails must hand out none (the caller, seeing
/// an error, frees nothing).
fn fetch_strings(
    store: &dyn Zmap,
    layout: &VarLayout,
    sel: &Selection,
    pending: Vec<Pending<'_>>,
    mem_type: NcType,
    caller: &CallerBuffer,
) -> NcResult<(bool, Fetched)> {
    let missing: Vec<Vec<usize>> = pending
        .iter()
        .filter_map(|item| match item {
            Pending::Fetched(part) => Some(part.idx.clone()),
            _ => None,
        })
        .collect();
    let fetched: HashMap<Vec<usize>, Vec<u8>> =
        missing.iter().cloned().zip(load_chunks(store, layout, &missing)?).collect();
    for item in pending {
        let (part, chunk) = match &item {
            Pending::Held(part, chunk) => (*part, &chunk[..]),
            Pending::Fetched(part) => (*part, &fetched.get(&part.idx).ok_or(NcError::EINTERNAL)?[..]),
            // Strings are always read whole (`plan_part_read`).
            Pending::Ranged(..) => return Err(NcError::EINTERNAL),
        };
        // SAFETY: `buf` holds the whole selection (our contract).
        unsafe { copy_out(layout, sel, part, chunk, 0, mem_type, caller.ptr()) }?;
    }
    Ok((false, fetched.into_iter().collect()))
}

/// Read the selection `select` makes (from the dataset as it is when the
/// read starts) into `buf`. Returns whether a value was out of range for
/// `mem_type` (every value is delivered regardless).
///
/// The dataset is locked only to plan the read and copy out the chunks
/// its cache holds, and again at the end to cache what was fetched;
/// fetching and decoding the other chunks (most of a read's time) happen
/// unlocked, so readers of one dataset on several threads proceed
/// together, and a writer between the two phases only makes the read
/// return, chunk by chunk, the values before or after its write.
///
/// # Safety
/// `buf` must hold the selection in `mem_type` at the selection's imap.
pub unsafe fn read(
    shared: &Mutex<Dataset>,
    grp: usize,
    varid: i32,
    mem_type: NcType,
    buf: *mut u8,
    select: impl FnOnce(&Dataset) -> NcResult<Selection>,
) -> NcResult<bool> {
    // Phase 1, locked: plan, and copy what the cache has.
    let mut ds = dataset::lock(shared)?;
    // The request's shape and buffer are checked before the types, as
    // netcdf-c does.
    let sel = select(&ds)?;
    if buf.is_null() && !sel.is_empty() {
        return Err(NcError::EINVAL);
    }
    let mem_type = prepare(&mut ds, grp, varid, mem_type)?;
    if sel.is_empty() {
        return Ok(false);
    }
    let layout = VarLayout::of(&ds.model, grp, varid)?;
    if layout.xtype != NC_STRING
        && let Ok(size) = type_size(mem_type)
        && let len = sel.count.iter().product::<usize>().saturating_mul(size)
        && len >= super::hugepages::MIN_BYTES
        && sel.imap == c_order(&sel.count)
    {
        // The read fills the buffer from end to end.
        super::hugepages::advise_fresh(buf, len);
    }
    let parts = chunk_parts(&sel, &layout.chunks, &layout.shape);
    let store = Arc::clone(&ds.store);
    let mut range_error = false;
    let mut pending = Vec::new();
    let keep_budget;
    {
        let cache = cache_for(&mut ds, grp, varid);
        // Raw chunks of a local store are cheaper read again than kept
        // (netcdf-c keeps them, in a small cache: measured on 64
        // unaligned blocks of 2 MiB chunks, keeping them cost 1.3x the
        // time, in fresh memory's page faults, and 70 MB more memory).
        let rereads_cheaper = layout.chain.is_empty() && store.rereads_are_cheap();
        keep_budget = if cache.can_hold(layout.chunk_bytes()) && !rereads_cheaper { cache.settings.size } else { 0 };
        for part in &parts {
            if let Some(chunk) = cache.get(&part.idx) {
                if layout.xtype == NC_STRING {
                    pending.push(Pending::Held(part, chunk.to_vec()));
                } else {
                    // SAFETY: `buf` holds the whole selection (our contract).
                    range_error |= unsafe { copy_out(&layout, &sel, part, chunk, 0, mem_type, buf) }?;
                }
                continue;
            }
            match plan_part_read(&layout, &sel, part, mem_type) {
                PartRead::Whole => pending.push(Pending::Fetched(part)),
                plan => pending.push(Pending::Ranged(part, plan)),
            }
        }
    }
    drop(ds);

    // Phase 2, unlocked: fetch, decode and copy out the rest.
    let caller = CallerBuffer(buf);
    let (more_errors, fetched) = if layout.xtype == NC_STRING {
        fetch_strings(store.as_ref(), &layout, &sel, pending, mem_type, &caller)?
    } else {
        fetch_numbers(store.as_ref(), &layout, &sel, pending, mem_type, &caller, keep_budget)?
    };
    range_error |= more_errors;

    // Phase 3, locked: keep what was fetched, unless a write meanwhile
    // cached a newer version of a chunk.
    let mut ds = dataset::lock(shared)?;
    let cache = cache_for(&mut ds, grp, varid);
    if cache.can_hold(layout.chunk_bytes()) {
        let mut evicted = Vec::new();
        for (idx, data) in fetched {
            if !cache.contains(&idx) {
                evicted.extend(cache.insert(idx, data, false));
            }
        }
        store_all(store.as_ref(), &layout, evicted)?;
    }
    Ok(range_error)
}
