//! Writes of a parallel dataset to chunks that other ranks may write too
//! (two-phase I/O at chunk granularity, the parallel build only).
//!
//! A rank that writes a chunk whole stores it at once, as a serial write
//! does. A rank that writes part of a chunk cannot: another rank may be
//! writing another part of it, and whichever stored its copy last would
//! undo the other's (a lost update). So the part becomes a [`Piece`]: the
//! region of the chunk it covers, by start, count and stride in the
//! chunk's own coordinates, and its values already converted to the
//! variable's type. Pieces wait in the dataset until the next collective
//! call (a commit, or a write to a variable in collective access), where
//! every rank sends each piece to the chunk's *owner*, one rank chosen by
//! the chunk's index ([`owner`]). The owner reads the chunk once (or
//! starts from fill), lays every rank's pieces on it in rank order and
//! stores it once: each chunk assembled and written by one rank, whether
//! it is compressed or not.
//!
//! Until then a rank reads a chunk it wrote part of as stored, without
//! its own pending pieces (netCDF's parallel rules make another rank's
//! writes visible only after `nc_sync`; this extends that to the rank's
//! own partial writes).
//!
//! A sharded variable (Zarr v3 `sharding_indexed`) is shared by shard:
//! a rank stores at once the shards its write covers whole, and every
//! other part becomes a piece of its inner chunk; the pieces of a shard
//! all go to one owner (chosen by the shard's index), which lays them on
//! the inner chunks and rewrites the shard once.
//!
//! Variables of variable-length strings, whose chunks cannot be assembled
//! in a plain buffer, keep the serial path: their shared chunks are the
//! last writer's.
//!
//! Built in every build (its tests and the fuzz target `pieces` need no
//! MPI); only the parallel build writes through it.
#![cfg_attr(not(feature = "mpi"), allow(dead_code))]

use std::collections::HashMap;
use std::sync::Mutex;

use super::chunk_io::{load_chunks, store_all, store_chunk};
use super::copy::copy_in;
use super::grid::ChunkPart;
use super::layout::VarLayout;
use super::selection::Selection;
use crate::error::{NcError, NcResult};
use crate::model::Model;
use crate::types::NcType;
use crate::zmap::Zmap;

/// Part of one chunk written by one rank, waiting to be sent to the
/// chunk's owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub grp: usize,
    pub varid: i32,
    /// The chunk's index along each dimension.
    pub idx: Vec<usize>,
    /// The index of the stored object that holds the chunk: the chunk's
    /// own, or its shard's (Zarr v3 sharding). Its owner assembles it.
    pub holder: Vec<usize>,
    /// The region, in the chunk's own element coordinates.
    pub start: Vec<usize>,
    pub count: Vec<usize>,
    pub stride: Vec<usize>,
    /// The region's values in the variable's type, C order.
    pub bytes: Vec<u8>,
}

/// The part of a selection inside one chunk, as a region of the chunk.
fn region(layout: &VarLayout, sel: &Selection, part: &ChunkPart) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let rank = part.idx.len();
    let mut start = Vec::with_capacity(rank);
    let mut count = Vec::with_capacity(rank);
    for d in 0..rank {
        let first = sel.start[d] + part.lo[d] * sel.stride[d];
        start.push(first - part.idx[d] * layout.chunks[d]);
        count.push(part.hi[d] - part.lo[d] + 1);
    }
    (start, count, sel.stride.clone())
}

/// Call `f` with the byte offset in a C-order chunk of every element of a
/// region, in C order.
fn for_each_offset(layout: &VarLayout, start: &[usize], count: &[usize], stride: &[usize], mut f: impl FnMut(usize)) {
    let rank = count.len();
    if count.contains(&0) {
        return;
    }
    // Elements between neighbours along each dimension of the chunk.
    let mut pitch = vec![1usize; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        pitch[d] = pitch[d + 1] * layout.chunks[d + 1];
    }
    let mut at = vec![0usize; rank];
    loop {
        let element: usize = (0..rank).map(|d| (start[d] + at[d] * stride[d]) * pitch[d]).sum();
        f(element * layout.elem_size);
        // The next index, last dimension fastest.
        let mut d = rank;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            at[d] += 1;
            if at[d] < count[d] {
                break;
            }
            at[d] = 0;
        }
    }
}

/// Does the region lie inside a chunk of this layout?
fn fits(layout: &VarLayout, start: &[usize], count: &[usize], stride: &[usize]) -> bool {
    start.len() == layout.chunks.len()
        && count.len() == start.len()
        && stride.len() == start.len()
        && (0..start.len()).all(|d| {
            count[d] == 0
                || stride[d]
                    .checked_mul(count[d] - 1)
                    .and_then(|s| s.checked_add(start[d]))
                    .is_some_and(|last| last < layout.chunks[d])
        })
}

/// The pieces of the parts of a write that do not cover their chunks:
/// the caller's values converted as a serial write converts them. Also
/// whether a value was out of range for the variable's type.
///
/// # Safety
/// `buf` must hold the selection in `mem_type` at the selection's imap.
pub(super) unsafe fn pieces(
    layout: &VarLayout,
    sel: &Selection,
    parts: &[ChunkPart],
    mem_type: NcType,
    buf: *const u8,
    (grp, varid): (usize, i32),
) -> NcResult<(Vec<Piece>, bool)> {
    let mut out = Vec::with_capacity(parts.len());
    let mut range_error = false;
    let mut scratch = Vec::new();
    for part in parts {
        if scratch.len() != layout.chunk_bytes() {
            scratch = layout.fill_chunk()?;
        }
        // SAFETY: `buf` holds the selection (our contract); the part is
        // one of its chunk parts.
        range_error |= unsafe { copy_in(layout, sel, part, &mut scratch, mem_type, buf) }?;
        let (start, count, stride) = region(layout, sel, part);
        let mut bytes = Vec::with_capacity(count.iter().product::<usize>() * layout.elem_size);
        for_each_offset(layout, &start, &count, &stride, |at| {
            bytes.extend_from_slice(&scratch[at..at + layout.elem_size]);
        });
        let holder = layout.shards.as_ref().map_or_else(|| part.idx.clone(), |shards| shards.locate(&part.idx).0);
        out.push(Piece { grp, varid, idx: part.idx.clone(), holder, start, count, stride, bytes });
    }
    Ok((out, range_error))
}

/// The rank that assembles a chunk: spread over the ranks by a hash of
/// the variable and the index of the object holding the chunk (so the
/// chunks of one shard have one owner), the same on every rank.
pub fn owner(piece: &Piece, ranks: usize) -> usize {
    // FNV-1a: stable across processes and builds (std's hasher is not).
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |v: u64| {
        for b in v.to_le_bytes() {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(piece.grp as u64);
    eat(piece.varid as u64);
    piece.holder.iter().for_each(|&i| eat(i as u64));
    (hash % ranks.max(1) as u64) as usize
}

/// Pieces as bytes for another rank: per piece its group, variable,
/// rank (number of dimensions), then index, holder, start, count and stride, and
/// its byte count (u64 each, little-endian), then its bytes.
pub fn encode(pieces: &[&Piece]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in pieces {
        let mut put = |v: usize| out.extend_from_slice(&(v as u64).to_le_bytes());
        put(p.grp);
        put(p.varid as usize);
        put(p.idx.len());
        for list in [&p.idx, &p.holder, &p.start, &p.count, &p.stride] {
            list.iter().for_each(|&v| put(v));
        }
        put(p.bytes.len());
        out.extend_from_slice(&p.bytes);
    }
    out
}

/// [`encode`]'s pieces back. Malformed bytes are `NC_EINTERNAL`: they
/// come from another rank of this library, never from storage.
pub fn decode(bytes: &[u8]) -> NcResult<Vec<Piece>> {
    let mut reader = Reader(bytes);
    let mut out = Vec::new();
    while !reader.0.is_empty() {
        let grp = reader.number()?;
        let varid = i32::try_from(reader.number()?).map_err(|_| NcError::EINTERNAL)?;
        let rank = reader.number()?;
        if rank > crate::model::NC_MAX_VAR_DIMS {
            return Err(NcError::EINTERNAL);
        }
        let mut list = || (0..rank).map(|_| reader.number()).collect::<NcResult<Vec<usize>>>();
        let (idx, holder, start, count, stride) = (list()?, list()?, list()?, list()?, list()?);
        let len = reader.number()?;
        let bytes = reader.take(len)?.to_vec();
        out.push(Piece { grp, varid, idx, holder, start, count, stride, bytes });
    }
    Ok(out)
}

/// Bytes read from the front.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> NcResult<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n).ok_or(NcError::EINTERNAL)?;
        self.0 = rest;
        Ok(head)
    }

    fn number(&mut self) -> NcResult<usize> {
        let bytes: [u8; 8] = self.take(8)?.try_into().map_err(|_| NcError::EINTERNAL)?;
        usize::try_from(u64::from_le_bytes(bytes)).map_err(|_| NcError::EINTERNAL)
    }
}

/// A chunk of a variable: group, variable, index.
type ChunkKey = (usize, i32, Vec<usize>);

/// The owner's half: every piece received (in sender rank order), laid on
/// its chunk as stored (or on fill), each chunk stored once.
pub fn assemble(model: &Model, store: &dyn Zmap, pieces: Vec<Piece>) -> NcResult<()> {
    // Pieces by chunk, in the order they came (so by sender rank).
    let mut order: Vec<ChunkKey> = Vec::new();
    let mut by_chunk: HashMap<ChunkKey, Vec<Piece>> = HashMap::new();
    for piece in pieces {
        let key = (piece.grp, piece.varid, piece.idx.clone());
        by_chunk
            .entry(key)
            .or_insert_with_key(|key| {
                order.push(key.clone());
                Vec::new()
            })
            .push(piece);
    }
    let mut vars: Vec<(usize, i32)> = order.iter().map(|(g, v, _)| (*g, *v)).collect();
    vars.sort_unstable();
    vars.dedup();
    for (grp, varid) in vars {
        let layout = VarLayout::of(model, grp, varid)?;
        let keys: Vec<&ChunkKey> = order.iter().filter(|(g, v, _)| (*g, *v) == (grp, varid)).collect();
        let idxs: Vec<Vec<usize>> = keys.iter().map(|(_, _, idx)| idx.clone()).collect();
        let loaded = load_chunks(store, &layout, &idxs)?;
        let work: Vec<(Mutex<Vec<u8>>, &ChunkKey)> = loaded.into_iter().map(Mutex::new).zip(keys).collect();
        let sharded = layout.shards.is_some();
        crate::workers::map(&work, store.concurrency(), |(chunk, key)| {
            let mut chunk = chunk.lock().map_err(|_| NcError::EINTERNAL)?;
            for piece in by_chunk.get(*key).into_iter().flatten() {
                lay(&layout, &mut chunk, piece)?;
            }
            if sharded { Ok(()) } else { store_chunk(store, &layout, &key.2, &chunk) }
        })?;
        if sharded {
            // Every received chunk of a shard in one rewrite of it: this
            // rank owns the shard, so no other rank rewrites it now.
            let chunks = work
                .into_iter()
                .map(|(chunk, key)| Ok((key.2.clone(), chunk.into_inner().map_err(|_| NcError::EINTERNAL)?)))
                .collect::<NcResult<Vec<_>>>()?;
            store_all(store, &layout, chunks)?;
        }
    }
    Ok(())
}

/// One piece's values into its chunk.
fn lay(layout: &VarLayout, chunk: &mut [u8], piece: &Piece) -> NcResult<()> {
    let elements: usize = piece.count.iter().product();
    if !fits(layout, &piece.start, &piece.count, &piece.stride)
        || piece.bytes.len() != elements * layout.elem_size
        || chunk.len() != layout.chunk_bytes()
    {
        return Err(NcError::EINTERNAL);
    }
    let mut from = 0;
    for_each_offset(layout, &piece.start, &piece.count, &piece.stride, |at| {
        chunk[at..at + layout.elem_size].copy_from_slice(&piece.bytes[from..from + layout.elem_size]);
        from += layout.elem_size;
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(bytes: Vec<u8>) -> Piece {
        Piece {
            grp: 1,
            varid: 2,
            idx: vec![3, 0],
            holder: vec![1, 0],
            start: vec![1, 0],
            count: vec![2, 1],
            stride: vec![1, 3],
            bytes,
        }
    }

    #[test]
    fn pieces_survive_the_wire() {
        let (a, b) = (piece(vec![1, 2, 3, 4, 5, 6, 7, 8]), piece(Vec::new()));
        assert_eq!(decode(&encode(&[&a, &b])).unwrap(), vec![a, b]);
        assert_eq!(decode(&[]).unwrap(), Vec::new());
    }

    #[test]
    fn malformed_pieces_are_errors() {
        let bytes = encode(&[&piece(vec![9; 8])]);
        for cut in [1, 8, 40, bytes.len() - 1] {
            assert_eq!(decode(&bytes[..cut]), Err(NcError::EINTERNAL), "cut at {cut}");
        }
        // A rank past NC_MAX_VAR_DIMS, a length past the end.
        let mut huge = bytes.clone();
        huge[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(decode(&huge), Err(NcError::EINTERNAL));
    }

    #[test]
    fn owners_spread_and_agree() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..64 {
            let p = Piece { holder: vec![i, 0], ..piece(Vec::new()) };
            let o = owner(&p, 4);
            assert_eq!(o, owner(&p.clone(), 4));
            seen.insert(o);
        }
        assert_eq!(seen.len(), 4, "64 chunks over 4 ranks use every rank");
        assert_eq!(owner(&piece(Vec::new()), 1), 0);
    }
}
