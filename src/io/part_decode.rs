//! Reading part of a chunk whose codecs can decode parts of it (a chain
//! of blosc alone: its blocks decode one by one): only the bytes the
//! part's runs cover are decoded, as raw chunks read only the bytes
//! wanted. Such a chunk is not cached, since it was never whole; when
//! its blocks make decoding parts not pay after all, it is decoded whole
//! and handed back to be copied out (and cached) as any other.

use std::ops::Range;

use super::chunk_io::decode_stored;
use super::copy::copy_run_out;
use super::element::swap_bytes;
use super::grid::{ChunkPart, Run, for_each_run};
use super::layout::VarLayout;
use super::selection::Selection;
use crate::error::{NcError, NcResult};
use crate::types::*;
use crate::zmap::Zmap;

/// Decoding parts pays when they are under this fraction of the chunk
/// (1/2): beyond it, most blocks are decoded anyway, and a whole chunk
/// can be cached for the reads after.
fn worth_it(bytes: usize, chunk_bytes: usize) -> bool {
    bytes * 2 <= chunk_bytes
}

/// Whether to read `part` by decoding only what it needs: the chain can,
/// nothing moves bytes between the codec and memory (a transpose, half
/// floats, shards; strings are parsed whole) and the runs cover under
/// half the chunk.
pub fn pays(layout: &VarLayout, sel: &Selection, part: &ChunkPart) -> bool {
    if part.covers_chunk
        || layout.perm.is_some()
        || layout.half
        || layout.shards.is_some()
        || layout.xtype == NC_STRING
        || layout.text.is_vlen()
        || !layout.chain.decodes_ranges()
    {
        return false;
    }
    let mut bytes = 0;
    let counted = for_each_run(sel, &layout.chunks, part, |run| {
        bytes += run_bytes(&run, layout.elem_size);
        Ok(())
    });
    counted.is_ok() && worth_it(bytes, layout.chunk_bytes())
}

/// Bytes of the chunk a run spans (its elements and those between).
fn run_bytes(run: &Run, elem_size: usize) -> usize {
    ((run.n - 1) * run.chunk_step + 1) * elem_size
}

/// What [`copy_out`] did.
pub enum Outcome {
    /// Copied out from the decoded parts; whether a value was out of range.
    Copied(bool),
    /// The chunk's blocks made parts cost more than planned: the whole
    /// chunk, decoded, still to be copied out.
    Whole(Vec<u8>),
}

/// Read `part` of an uncached chunk by decoding only the byte ranges its
/// runs span (see [`pays`]) and copy it to `buf`.
///
/// # Safety
/// `buf` must hold the whole selection in `mem_type` at its imap.
pub unsafe fn copy_out(
    store: &dyn Zmap,
    layout: &VarLayout,
    sel: &Selection,
    part: &ChunkPart,
    mem_type: NcType,
    buf: *mut u8,
) -> NcResult<Outcome> {
    let es = layout.elem_size;
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for_each_run(sel, &layout.chunks, part, |run| {
        let start = run.chunk_off * es;
        ranges.push(start..start + run_bytes(&run, es));
        Ok(())
    })?;
    let Some(stored) = store.get(&layout.chunk_key(&part.idx))? else {
        // Not stored: every run is fill.
        let longest = ranges.iter().map(|r| r.len()).max().unwrap_or(0);
        let fill = crate::buffers::repeat(&layout.fill, longest / es)?;
        return copy_runs(layout, sel, part, mem_type, buf, |_, len| Ok(&fill[..len])).map(Outcome::Copied);
    };
    let chunk_bytes = layout.chunk_bytes();
    let budget = chunk_bytes / 2;
    let Some(mut bytes) = layout.chain.decode_ranges(&stored, chunk_bytes, &ranges, budget)? else {
        return decode_stored(layout, Some(stored)).map(Outcome::Whole);
    };
    crate::buffers::recycle(stored);
    if layout.swap {
        // Each range is whole elements, so their bytes one after another are too.
        swap_bytes(&mut bytes, es);
    }
    let mut at = 0;
    let copied = copy_runs(layout, sel, part, mem_type, buf, |_, len| {
        let run = bytes.get(at..at + len).ok_or(NcError::EINTERNAL)?;
        at += len;
        Ok(run)
    });
    crate::buffers::recycle(bytes);
    copied.map(Outcome::Copied)
}

/// Copy each run of `part` from the bytes `source` gives for it (the
/// run, and its length in bytes), in the runs' order.
fn copy_runs<'a>(
    layout: &VarLayout,
    sel: &Selection,
    part: &ChunkPart,
    mem_type: NcType,
    buf: *mut u8,
    mut source: impl FnMut(&Run, usize) -> NcResult<&'a [u8]>,
) -> NcResult<bool> {
    let mut range_error = false;
    for_each_run(sel, &layout.chunks, part, |run| {
        let src = source(&run, run_bytes(&run, layout.elem_size))?;
        // SAFETY: `buf` holds the whole selection (our caller's
        // contract), so this run; `src` holds the run's elements.
        range_error |= unsafe { copy_run_out(layout, run, src, &[], mem_type, buf) }?;
        Ok(())
    })?;
    Ok(range_error)
}
