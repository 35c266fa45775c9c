//! Chunks between storage and memory: load (decode) and store (encode)
//! whole chunks, on scoped threads when there are several.

use super::cache::DirtyChunk;
use super::element::swap_bytes;
use super::layout::{VarLayout, transpose};
use super::shard::InnerChunk;
use crate::error::{NcError, NcResult};
use crate::zmap::Zmap;

/// Read one stored chunk, decoded; a missing chunk is all fill. A raw
/// chunk of any other length than the chunk's is NC_ENCZARR (truncated or
/// foreign: never hand out misaligned bytes); a filtered one that does not
/// decode to exactly a chunk NC_EFILTER.
pub fn load_chunk(store: &dyn Zmap, layout: &VarLayout, idx: &[usize]) -> NcResult<Vec<u8>> {
    let stored_bytes = layout.stored_chunk_bytes();
    let stored = if let Some(shards) = &layout.shards {
        // An inner chunk: its shard's index says where, then one range.
        let (shard, inner) = shards.locate(idx);
        let key = layout.chunk_key(&shard);
        match shards.find(store, &key, inner)? {
            InnerChunk::Missing => None,
            // The shard went away under us: it held this chunk.
            InnerChunk::At { offset, len } => Some(store.get_range(&key, offset, len)?.ok_or(NcError::ENCZARR)?),
        }
    } else if layout.chain.is_empty() {
        let key = layout.chunk_key(idx);
        let mut data = crate::buffers::zeroed(stored_bytes)?;
        let found = store.read_into_exact(&key, stored_bytes as u64, &mut [(0, &mut data[..])])?;
        found.then_some(data)
    } else {
        store.get(&layout.chunk_key(idx))?
    };
    match stored {
        None => layout.fill_chunk(),
        Some(stored) => {
            let mut data = if layout.chain.is_empty() { stored } else { layout.chain.decode(&stored, stored_bytes)? };
            if data.len() != stored_bytes {
                return Err(NcError::ENCZARR);
            }
            if layout.swap {
                swap_bytes(&mut data, layout.stored_elem_size());
            }
            if layout.half {
                data = widen_halves(&data);
            }
            if let Some(perm) = &layout.perm {
                data = transpose(&data, &layout.chunks, layout.elem_size, perm, true);
            }
            Ok(data)
        }
    }
}

/// Native-endian half floats as native-endian floats.
fn widen_halves(data: &[u8]) -> Vec<u8> {
    data.chunks_exact(2).flat_map(|h| half::f16::from_ne_bytes([h[0], h[1]]).to_f32().to_ne_bytes()).collect()
}

/// Write one chunk, encoded.
pub fn store_chunk(store: &dyn Zmap, layout: &VarLayout, idx: &[usize], data: &[u8]) -> NcResult<()> {
    if layout.half || layout.shards.is_some() {
        // Half floats and shards are read only (Zarr v3 opens read-only).
        return Err(NcError::EPERM);
    }
    if layout.perm.is_none() && !layout.swap && layout.chain.is_empty() {
        return store.put(&layout.chunk_key(idx), data);
    }
    let mut bytes = match &layout.perm {
        Some(perm) => transpose(data, &layout.chunks, layout.elem_size, perm, false),
        None => data.to_vec(),
    };
    if layout.swap {
        swap_bytes(&mut bytes, layout.elem_size);
    }
    if !layout.chain.is_empty() {
        bytes = layout.chain.encode(&bytes)?;
    }
    store.put(&layout.chunk_key(idx), &bytes)
}

/// Write several chunks, [`Zmap::concurrency`] at a time.
pub fn store_all(store: &dyn Zmap, layout: &VarLayout, chunks: Vec<DirtyChunk>) -> NcResult<()> {
    crate::workers::map(&chunks, store.concurrency(), |(idx, data)| store_chunk(store, layout, idx, data))?;
    Ok(())
}

/// Fetch several whole chunks, in parallel.
pub fn load_chunks(store: &dyn Zmap, layout: &VarLayout, idxs: &[Vec<usize>]) -> NcResult<Vec<Vec<u8>>> {
    crate::workers::map(idxs, store.concurrency(), |idx| load_chunk(store, layout, idx))
}

/// Decode stored bytes in place; a missing chunk reads as fill.
pub fn decode_or_fill(layout: &VarLayout, bytes: Option<Vec<u8>>, elems: usize) -> NcResult<Vec<u8>> {
    match bytes {
        None => crate::buffers::repeat(&layout.fill, elems),
        Some(mut b) => {
            if layout.swap {
                swap_bytes(&mut b, layout.elem_size);
            }
            Ok(b)
        }
    }
}
