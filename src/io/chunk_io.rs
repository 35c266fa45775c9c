//! Chunks between storage and memory: load (decode) and store (encode)
//! whole chunks, on scoped threads when there are several.

use super::cache::DirtyChunk;
use super::element::swap_bytes;
use super::float16;
use super::layout::{VLEN_ELEM, VarLayout, transpose};
use super::shard::{InnerChunk, InnerPath};
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
        let (shard, path) = shards.locate(idx);
        let key = layout.chunk_key(&shard);
        match shards.find(store, &key, &path)? {
            InnerChunk::Missing => None,
            // The shard went away under us: it held this chunk.
            InnerChunk::At { offset, len } => Some(store.get_range(&key, offset, len)?.ok_or(NcError::ENCZARR)?),
        }
    } else if layout.chain.is_empty() && !layout.text.is_vlen() {
        store.get_exact(&layout.chunk_key(idx), stored_bytes)?
    } else {
        store.get(&layout.chunk_key(idx))?
    };
    decode_stored(layout, stored)
}

/// Load the chunks of `items` (each names one by `idx`) and hand each,
/// decoded, to `consume` as soon as it is ready, on up to `threads`
/// threads (with one, in the items' order); returns what `consume`
/// returned, in the items' order.
///
/// Chunks of a sharded variable are fetched shard by shard: the shard's
/// index once (with shards inside shards, then the indexes of the inner
/// shards wanted, one [`Zmap::get_ranges`] per level), then every inner
/// chunk wanted in one [`Zmap::get_ranges`], which a remote store merges
/// into as few requests as pay; the inner chunks are then decoded on the
/// threads the call has left.
pub fn load_each<T: Sync, R: Send>(
    store: &dyn Zmap,
    layout: &VarLayout,
    items: &[T],
    threads: usize,
    idx: impl Fn(&T) -> &[usize] + Sync,
    consume: impl Fn(&T, Vec<u8>) -> NcResult<R> + Sync,
) -> NcResult<Vec<R>> {
    let Some(shards) = layout.shards.as_ref().filter(|_| threads > 1) else {
        // One thread: in the items' order (a caller whose items overlap
        // in its buffer needs the last one to land last).
        return crate::workers::map(items, threads, |item| consume(item, load_chunk(store, layout, idx(item))?));
    };
    // Shard → (item, inner chunk path) of each item in it.
    let mut by_shard: std::collections::BTreeMap<Vec<usize>, Vec<(usize, InnerPath)>> = Default::default();
    for (k, item) in items.iter().enumerate() {
        let (shard, path) = shards.locate(idx(item));
        by_shard.entry(shard).or_default().push((k, path));
    }
    let groups: Vec<_> = by_shard.into_iter().collect();
    let done = crate::workers::map(&groups, threads, |(shard, members)| {
        let key = layout.chunk_key(shard);
        let paths: Vec<InnerPath> = members.iter().map(|(_, path)| path.clone()).collect();
        let places = shards.find_all(store, &key, &paths)?;
        let wanted: Vec<(u64, usize)> = places
            .iter()
            .filter_map(|place| match *place {
                InnerChunk::At { offset, len } => Some((offset, len)),
                InnerChunk::Missing => None,
            })
            .collect();
        let mut fetched = if wanted.is_empty() {
            Vec::new()
        } else {
            // The shard went away under us: it held these chunks.
            store.get_ranges(&key, &wanted)?.ok_or(NcError::ENCZARR)?
        }
        .into_iter();
        let mut stored = Vec::with_capacity(members.len());
        for (&(k, _), place) in members.iter().zip(&places) {
            let bytes = match place {
                InnerChunk::Missing => None,
                InnerChunk::At { .. } => Some(fetched.next().ok_or(NcError::EINTERNAL)?),
            };
            stored.push((k, std::sync::Mutex::new(bytes)));
        }
        crate::workers::map(&stored, crate::zmap::cpus(), |(k, bytes)| {
            let bytes = bytes.lock().map_err(|_| NcError::EINTERNAL)?.take();
            Ok((*k, consume(&items[*k], decode_stored(layout, bytes)?)?))
        })
    })?;
    let mut out: Vec<Option<R>> = items.iter().map(|_| None).collect();
    for (k, r) in done.into_iter().flatten() {
        out[k] = Some(r);
    }
    out.into_iter().map(|r| r.ok_or(NcError::EINTERNAL)).collect()
}

/// A chunk as stored (`None`: not stored, all fill) as the engine holds
/// it: filters undone, strings parsed, bytes swapped, half floats widened
/// and the elements in C order.
pub fn decode_stored(layout: &VarLayout, stored: Option<Vec<u8>>) -> NcResult<Vec<u8>> {
    let stored_bytes = layout.stored_chunk_bytes();
    match stored {
        None => layout.fill_chunk(),
        Some(stored) if layout.text.is_vlen() => {
            let bytes = if layout.chain.is_empty() {
                stored
            } else {
                crate::workers::cpu_bound(|| layout.chain.decode_up_to(&stored, max_vlen_chunk(layout.chunk_elems())))?
            };
            let chunk = decode_vlen(&bytes, layout.chunk_elems())?;
            Ok(match &layout.perm {
                Some(perm) => {
                    let (table, text) = chunk.split_at(layout.chunk_bytes());
                    let mut out = transpose(table, &layout.chunks, layout.elem_size, perm, true);
                    out.extend_from_slice(text);
                    out
                }
                None => chunk,
            })
        }
        Some(stored) => {
            let mut data = if layout.chain.is_empty() {
                stored
            } else {
                let decoded = crate::workers::cpu_bound(|| layout.chain.decode(&stored, stored_bytes))?;
                crate::buffers::recycle(stored);
                decoded
            };
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

/// Most bytes a chunk of variable-length strings may decode to: 64 KiB
/// per element on average, and at least 64 MiB (a bound against
/// decompression bombs, not a limit real data meets).
fn max_vlen_chunk(elems: usize) -> usize {
    elems.saturating_mul(1 << 16).max(1 << 26)
}

/// A `vlen-utf8`/`vlen-bytes` chunk (a `u32` LE count, then per element
/// a `u32` LE length and its bytes) as the engine holds it: a table of
/// `(offset, length)` elements (native `u64`s), then the text. The count
/// must be the chunk's element count and every length must fit: a
/// truncated or lying chunk is NC_ENCZARR.
pub fn decode_vlen(data: &[u8], elems: usize) -> NcResult<Vec<u8>> {
    let word = |at: usize| -> NcResult<usize> {
        let b: [u8; 4] = data.get(at..at + 4).and_then(|b| b.try_into().ok()).ok_or(NcError::ENCZARR)?;
        Ok(u32::from_le_bytes(b) as usize)
    };
    // Every element takes at least its length word: a chunk too short
    // for them is refused before its table (16 bytes an element) is
    // allocated for a count it cannot hold.
    if word(0)? != elems || (data.len() - 4) / 4 < elems {
        return Err(NcError::ENCZARR);
    }
    let table_len = elems.checked_mul(VLEN_ELEM).ok_or(NcError::ENCZARR)?;
    // The text is at most what the data holds beyond the lengths.
    let text_len = data.len().saturating_sub(4 + 4 * elems);
    let mut out = crate::buffers::with_capacity(table_len.checked_add(text_len).ok_or(NcError::ENCZARR)?)?;
    out.resize(table_len, 0);
    let mut at = 4;
    for k in 0..elems {
        let len = word(at)?;
        let end = (at + 4).checked_add(len).ok_or(NcError::ENCZARR)?;
        let bytes = data.get(at + 4..end).ok_or(NcError::ENCZARR)?;
        let entry = [(out.len() - table_len) as u64, len as u64];
        out[k * VLEN_ELEM..(k + 1) * VLEN_ELEM]
            .copy_from_slice(&[entry[0].to_ne_bytes(), entry[1].to_ne_bytes()].concat());
        out.extend_from_slice(bytes);
        at += 4 + len;
    }
    if at != data.len() {
        return Err(NcError::ENCZARR);
    }
    Ok(out)
}

/// A variable-length string chunk as the engine holds it (its table of
/// `(offset, length)` elements, then the text) as `vlen-utf8` stores it:
/// a `u32` LE count, then per element a `u32` LE length and its bytes.
pub fn encode_vlen(table: &[u8], text: &[u8]) -> NcResult<Vec<u8>> {
    let elems = table.len() / VLEN_ELEM;
    let word = |e: &[u8], at: usize| u64::from_ne_bytes(e[at..at + 8].try_into().unwrap_or([0; 8])) as usize;
    let count = u32::try_from(elems).map_err(|_| NcError::EINVAL)?;
    let live: usize = table.chunks_exact(VLEN_ELEM).map(|e| word(e, 8)).sum();
    let mut out = crate::buffers::with_capacity(4 + 4 * elems + live)?;
    out.extend_from_slice(&count.to_le_bytes());
    for e in table.chunks_exact(VLEN_ELEM) {
        let (offset, len) = (word(e, 0), word(e, 8));
        let bytes = text.get(offset..offset.saturating_add(len)).ok_or(NcError::EINTERNAL)?;
        out.extend_from_slice(&u32::try_from(len).map_err(|_| NcError::EINVAL)?.to_le_bytes());
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// Native-endian half floats as native-endian floats.
fn widen_halves(data: &[u8]) -> Vec<u8> {
    data.chunks_exact(2).flat_map(|h| float16::widen(u16::from_ne_bytes([h[0], h[1]])).to_ne_bytes()).collect()
}

/// Native-endian floats, each exactly a half (see `copy_in`), as
/// native-endian half floats.
fn narrow_floats(data: &[u8]) -> Vec<u8> {
    data.chunks_exact(4)
        .flat_map(|f| float16::narrow_f32(f32::from_ne_bytes([f[0], f[1], f[2], f[3]])).to_ne_bytes())
        .collect()
}

/// Write one chunk, encoded (not of a sharded variable: see
/// [`store_chunks`]).
pub fn store_chunk(store: &dyn Zmap, layout: &VarLayout, idx: &[usize], data: &[u8]) -> NcResult<()> {
    if layout.shards.is_some() {
        return Err(NcError::EINTERNAL);
    }
    let raw = layout.perm.is_none() && !layout.swap && !layout.half && layout.chain.is_empty();
    if raw && !layout.text.is_vlen() {
        return store.put(&layout.chunk_key(idx), data);
    }
    let encoded = encode_chunk(layout, data)?;
    store.put(&layout.chunk_key(idx), &encoded)?;
    // For this thread's next chunk (a worker writes many).
    crate::buffers::recycle(encoded);
    Ok(())
}

/// A chunk as stored: elements permuted, narrowed to halves and swapped
/// as the variable stores them, strings serialized, then its filters (in
/// one of the call's CPU turns: see `workers::cpu_bound`).
pub fn encode_chunk(layout: &VarLayout, data: &[u8]) -> NcResult<Vec<u8>> {
    crate::workers::cpu_bound(|| encode_now(layout, data))
}

fn encode_now(layout: &VarLayout, data: &[u8]) -> NcResult<Vec<u8>> {
    if layout.text.is_vlen() {
        let (table, text) = data.split_at(layout.chunk_bytes().min(data.len()));
        let table = match &layout.perm {
            Some(perm) => transpose(table, &layout.chunks, layout.elem_size, perm, false),
            None => table.to_vec(),
        };
        let bytes = encode_vlen(&table, text)?;
        return if layout.chain.is_empty() { Ok(bytes) } else { layout.chain.encode(&bytes) };
    }
    if layout.perm.is_none() && !layout.half && !layout.swap && !layout.chain.is_empty() {
        // Straight to the codecs: no copy of the chunk first.
        return layout.chain.encode(data);
    }
    let mut bytes = match &layout.perm {
        Some(perm) => transpose(data, &layout.chunks, layout.elem_size, perm, false),
        None => data.to_vec(),
    };
    if layout.half {
        bytes = narrow_floats(&bytes);
    }
    if layout.swap {
        swap_bytes(&mut bytes, layout.stored_elem_size());
    }
    if !layout.chain.is_empty() {
        bytes = layout.chain.encode(&bytes)?;
    }
    Ok(bytes)
}

/// Write several chunks, [`Zmap::concurrency`] at a time.
pub fn store_all(store: &dyn Zmap, layout: &VarLayout, chunks: Vec<DirtyChunk>) -> NcResult<()> {
    let borrowed: Vec<(&[usize], &[u8])> = chunks.iter().map(|(idx, data)| (&idx[..], &data[..])).collect();
    let stored = store_chunks(store, layout, &borrowed);
    drop(borrowed);
    chunks.into_iter().for_each(|(_, data)| crate::buffers::recycle(data));
    stored
}

/// Write several chunks of one variable, [`Zmap::concurrency`] at a
/// time; those of a sharded variable shard by shard, each shard read,
/// changed and written once (two writers of one shard would lose each
/// other's chunks).
pub fn store_chunks(store: &dyn Zmap, layout: &VarLayout, chunks: &[(&[usize], &[u8])]) -> NcResult<()> {
    let Some(shards) = &layout.shards else {
        crate::workers::map(chunks, store.concurrency(), |(idx, data)| store_chunk(store, layout, idx, data))?;
        return Ok(());
    };
    let mut by_shard: std::collections::BTreeMap<Vec<usize>, Vec<(InnerPath, &[u8])>> = Default::default();
    for &(idx, data) in chunks {
        let (shard, path) = shards.locate(idx);
        by_shard.entry(shard).or_default().push((path, data));
    }
    let groups: Vec<_> = by_shard.into_iter().collect();
    crate::workers::map(&groups, store.concurrency(), |(shard, items)| {
        let encoded = items
            .iter()
            .map(|(path, data)| Ok((path.clone(), encode_chunk(layout, data)?)))
            .collect::<NcResult<_>>()?;
        shards.rewrite(store, &layout.chunk_key(shard), encoded)
    })?;
    Ok(())
}

/// Fetch several whole chunks, in parallel.
pub fn load_chunks(store: &dyn Zmap, layout: &VarLayout, idxs: &[Vec<usize>]) -> NcResult<Vec<Vec<u8>>> {
    load_each(store, layout, idxs, store.concurrency(), |idx| &idx[..], |_, chunk| Ok(chunk))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn element(chunk: &[u8], k: usize) -> (u64, u64) {
        let e = &chunk[k * VLEN_ELEM..(k + 1) * VLEN_ELEM];
        (u64::from_ne_bytes(e[..8].try_into().unwrap()), u64::from_ne_bytes(e[8..].try_into().unwrap()))
    }

    #[test]
    fn vlen_chunks() {
        // ZARR_V3.md 2.3: ["a","bc","","déf"].
        let data = hex("040000000100000061020000006263000000000400000064c3a966");
        let chunk = decode_vlen(&data, 4).unwrap();
        let text = &chunk[4 * VLEN_ELEM..];
        assert_eq!(text, "abcdéf".as_bytes());
        assert_eq!(
            [element(&chunk, 0), element(&chunk, 1), element(&chunk, 2), element(&chunk, 3)],
            [(0, 1), (1, 2), (3, 0), (3, 4)]
        );
        assert_eq!(decode_vlen(&data, 3), Err(NcError::ENCZARR), "count disagrees");
        assert_eq!(decode_vlen(&data[..data.len() - 1], 4), Err(NcError::ENCZARR), "cut short");
        let mut extra = data.clone();
        extra.push(0);
        assert_eq!(decode_vlen(&extra, 4), Err(NcError::ENCZARR), "trailing bytes");
        let mut lying = data.clone();
        lying[4] = 0xff;
        assert_eq!(decode_vlen(&lying, 4), Err(NcError::ENCZARR), "length past the end");
        lying[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode_vlen(&lying, 4), Err(NcError::ENCZARR), "the longest length");
        // A count the chunk cannot hold is refused before a table is
        // allocated for it.
        let claims = [&1_000_000u32.to_le_bytes()[..], &[0; 8]].concat();
        assert_eq!(decode_vlen(&claims, 1_000_000), Err(NcError::ENCZARR), "count past the end");
        assert_eq!(decode_vlen(&[], 0), Err(NcError::ENCZARR));
        assert_eq!(decode_vlen(&[0, 0, 0, 0], 0).unwrap(), Vec::<u8>::new());
        // And back, whatever unused text the chunk carries.
        let (table, text) = chunk.split_at(4 * VLEN_ELEM);
        assert_eq!(encode_vlen(table, text).unwrap(), data);
        let mut padded = text.to_vec();
        padded.extend_from_slice(b"stale");
        assert_eq!(encode_vlen(table, &padded).unwrap(), data);
        assert_eq!(encode_vlen(table, &text[..3]), Err(NcError::EINTERNAL), "text cut short");
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }
}
