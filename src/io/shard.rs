//! Chunks inside shards (Zarr v3 `sharding_indexed`): a shard is one
//! object holding its inner chunks and an index of `(offset, nbytes)`
//! pairs, one per inner chunk in C order, at its start or end. A read
//! fetches the index (once per shard and read call) and then only the
//! inner chunks it needs, by byte range: never the whole shard.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::error::{NcError, NcResult};
use crate::model::chunking::Shards;
use crate::zmap::Zmap;

/// An empty slot: both numbers all ones (the chunk is fill).
const EMPTY: u64 = u64::MAX;

/// A shard's index once read: `None` when there is no shard (all fill).
type Index = Option<Arc<Vec<u64>>>;

/// The shards of one variable, with the indexes read so far.
#[derive(Debug)]
pub struct ShardReader {
    spec: Shards,
    /// Shard key → its index, each behind a lock of its own, so that
    /// concurrent readers of one shard fetch its index once while other
    /// shards' are fetched beside it. Lives as long as the variable's
    /// layout, which is one read call.
    indexes: Mutex<HashMap<String, Arc<Mutex<Option<Index>>>>>,
}

/// Where an inner chunk is.
pub enum InnerChunk {
    /// Nothing stored: fill.
    Missing,
    /// Bytes `offset..offset + len` of the shard object.
    At { offset: u64, len: usize },
}

impl ShardReader {
    pub fn new(spec: Shards) -> ShardReader {
        ShardReader { spec, indexes: Mutex::new(HashMap::new()) }
    }

    /// The shard holding inner chunk `idx` (its grid indices), and the
    /// inner chunk's number within it (C order).
    pub fn locate(&self, idx: &[usize]) -> (Vec<usize>, usize) {
        let shard = idx.iter().zip(&self.spec.per_shard).map(|(i, n)| i / n).collect();
        let inner = idx.iter().zip(&self.spec.per_shard).fold(0, |k, (i, n)| k * n + i % n);
        (shard, inner)
    }

    fn inner_count(&self) -> usize {
        self.spec.per_shard.iter().product()
    }

    /// Bytes of the index without and with its CRC.
    fn index_size(&self) -> NcResult<(usize, usize)> {
        let entries = self.inner_count().checked_mul(2).ok_or(NcError::ENCZARR)?;
        let body = entries.checked_mul(8).ok_or(NcError::ENCZARR)?;
        Ok((body, body + if self.spec.index_crc { 4 } else { 0 }))
    }

    /// An index from its stored bytes, its CRC checked.
    fn parse_index(&self, raw: &[u8]) -> NcResult<Vec<u64>> {
        let (body, size) = self.index_size()?;
        if raw.len() != size {
            return Err(NcError::ENCZARR);
        }
        if self.spec.index_crc && crc32c::crc32c(&raw[..body]).to_le_bytes() != raw[body..] {
            return Err(NcError::ENCZARR);
        }
        Ok(raw[..body].chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]))).collect())
    }

    /// The index of the shard under `key`, read and checked once.
    fn index(&self, store: &dyn Zmap, key: &str) -> NcResult<Index> {
        let slot = self.indexes.lock().map_err(|_| NcError::EINTERNAL)?.entry(key.to_string()).or_default().clone();
        let mut slot = slot.lock().map_err(|_| NcError::EINTERNAL)?;
        if let Some(known) = slot.as_ref() {
            return Ok(known.clone());
        }
        let (_, size) = self.index_size()?;
        let raw = if self.spec.index_at_end { store.get_suffix(key, size)? } else { store.get_range(key, 0, size)? };
        let index = raw.map(|raw| self.parse_index(&raw).map(Arc::new)).transpose()?;
        *slot = Some(index.clone());
        Ok(index)
    }

    /// Rewrite the shard under `key` with some inner chunks (by number,
    /// already encoded) replaced and the others kept as stored: the whole
    /// shard is read, then written with its inner chunks in order and the
    /// index where the layout puts it. A shard left without any inner
    /// chunk is deleted, as zarr-python deletes an all-fill shard. The
    /// caller writes each shard from one thread at a time.
    pub fn rewrite(&self, store: &dyn Zmap, key: &str, updates: Vec<(usize, Vec<u8>)>) -> NcResult<()> {
        let n = self.inner_count();
        let (_, size) = self.index_size()?;
        let mut slots: Vec<Option<Vec<u8>>> = vec![None; n];
        if let Some(old) = store.get(key)? {
            let at = if self.spec.index_at_end { old.len().checked_sub(size) } else { Some(0) };
            let raw = at.and_then(|at| old.get(at..at + size)).ok_or(NcError::ENCZARR)?;
            let index = self.parse_index(raw)?;
            for (k, slot) in slots.iter_mut().enumerate() {
                let (offset, len) = (index[2 * k], index[2 * k + 1]);
                if offset == EMPTY && len == EMPTY {
                    continue;
                }
                let range = usize::try_from(offset).ok().zip(usize::try_from(len).ok());
                let bytes = range.and_then(|(o, l)| old.get(o..o.checked_add(l)?)).ok_or(NcError::ENCZARR)?;
                *slot = Some(bytes.to_vec());
            }
        }
        for (k, bytes) in updates {
            *slots.get_mut(k).ok_or(NcError::EINTERNAL)? = Some(bytes);
        }
        self.indexes.lock().map_err(|_| NcError::EINTERNAL)?.remove(key);
        if slots.iter().all(Option::is_none) {
            return store.delete(key);
        }
        let base = if self.spec.index_at_end { 0 } else { size };
        let mut data = Vec::new();
        let mut index = Vec::with_capacity(size);
        for slot in &slots {
            let (offset, len) = match slot {
                Some(bytes) => ((base + data.len()) as u64, bytes.len() as u64),
                None => (EMPTY, EMPTY),
            };
            index.extend_from_slice(&offset.to_le_bytes());
            index.extend_from_slice(&len.to_le_bytes());
            data.extend_from_slice(slot.as_deref().unwrap_or_default());
        }
        if self.spec.index_crc {
            let crc = crc32c::crc32c(&index);
            index.extend_from_slice(&crc.to_le_bytes());
        }
        let shard = if self.spec.index_at_end { [data, index].concat() } else { [index, data].concat() };
        store.put(key, &shard)
    }

    /// Where inner chunk number `inner` of the shard under `key` is.
    pub fn find(&self, store: &dyn Zmap, key: &str, inner: usize) -> NcResult<InnerChunk> {
        let Some(index) = self.index(store, key)? else { return Ok(InnerChunk::Missing) };
        let (offset, len) = (index[2 * inner], index[2 * inner + 1]);
        if offset == EMPTY && len == EMPTY {
            return Ok(InnerChunk::Missing);
        }
        // A place past the object's end is caught by the ranged read.
        let len = usize::try_from(len).map_err(|_| NcError::ENCZARR)?;
        offset.checked_add(len as u64).ok_or(NcError::ENCZARR)?;
        Ok(InnerChunk::At { offset, len })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zmap::MemoryMap;

    fn reader(per_shard: Vec<usize>, at_end: bool, crc: bool) -> ShardReader {
        ShardReader::new(Shards { per_shard, index_at_end: at_end, index_crc: crc })
    }

    #[test]
    fn inner_chunks_in_c_order() {
        let r = reader(vec![2, 3], true, false);
        assert_eq!(r.locate(&[0, 0]), (vec![0, 0], 0));
        assert_eq!(r.locate(&[1, 2]), (vec![0, 0], 5));
        assert_eq!(r.locate(&[3, 4]), (vec![1, 1], 4));
    }

    fn shard_bytes() -> Vec<u8> {
        let mut shard: Vec<u8> = [1i32, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
        let index: Vec<u8> = [0u64, 8, EMPTY, EMPTY].iter().flat_map(|v| v.to_le_bytes()).collect();
        shard.extend_from_slice(&index);
        shard.extend_from_slice(&crc32c::crc32c(&index).to_le_bytes());
        shard
    }

    /// zarr-python's example (ZARR_V3.md §2.2): shape 8, shard 4, inner 2,
    /// [1, 2] written to 0:2: 8 data bytes, (0, 8), (empty), CRC.
    #[test]
    fn reads_zarr_python_shard() {
        let mut shard: Vec<u8> = [1i32, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
        let index: Vec<u8> = [0u64, 8, EMPTY, EMPTY].iter().flat_map(|v| v.to_le_bytes()).collect();
        shard.extend_from_slice(&index);
        shard.extend_from_slice(&crc32c::crc32c(&index).to_le_bytes());
        assert_eq!(shard.len(), 44);
        let store = MemoryMap::from_objects([("c/0".to_string(), shard.clone())]).unwrap();
        let r = reader(vec![2], true, true);
        assert!(matches!(r.find(&store, "c/0", 0).unwrap(), InnerChunk::At { offset: 0, len: 8 }));
        assert!(matches!(r.find(&store, "c/0", 1).unwrap(), InnerChunk::Missing));
        assert!(matches!(r.find(&store, "c/1", 0).unwrap(), InnerChunk::Missing), "no shard");
        // A damaged index fails its CRC.
        let mut bad = shard;
        bad[12] ^= 1;
        let store = MemoryMap::from_objects([("c/0".to_string(), bad)]).unwrap();
        assert!(matches!(reader(vec![2], true, true).find(&store, "c/0", 0), Err(NcError::ENCZARR)));
        // Rewritten: the slot filled, the other kept, the index where
        // it belongs; zarr-python's bytes exactly when the same is written.
        let store = MemoryMap::from_objects([("c/0".to_string(), shard_bytes())]).unwrap();
        let r = reader(vec![2], true, true);
        r.rewrite(&store, "c/0", vec![(0, [1i32, 2].iter().flat_map(|v| v.to_le_bytes()).collect())]).unwrap();
        assert_eq!(store.get("c/0").unwrap().unwrap(), shard_bytes());
        r.rewrite(&store, "c/0", vec![(1, vec![9; 8])]).unwrap();
        assert!(matches!(r.find(&store, "c/0", 0).unwrap(), InnerChunk::At { offset: 0, len: 8 }));
        assert!(matches!(r.find(&store, "c/0", 1).unwrap(), InnerChunk::At { offset: 8, len: 8 }));
        let start = reader(vec![2], false, true);
        start.rewrite(&store, "s", vec![(1, vec![7; 4])]).unwrap();
        assert!(matches!(start.find(&store, "s", 1).unwrap(), InnerChunk::At { offset: 36, len: 4 }));
        assert!(matches!(start.find(&store, "s", 0).unwrap(), InnerChunk::Missing));
        // A damaged shard is not rewritten over.
        store.put("bad", &[0; 5]).unwrap();
        assert_eq!(r.rewrite(&store, "bad", vec![(0, vec![1])]), Err(NcError::ENCZARR));
        // An object shorter than its index.
        let store = MemoryMap::from_objects([("c/0".to_string(), vec![0; 10])]).unwrap();
        assert!(matches!(reader(vec![2], false, false).find(&store, "c/0", 0), Err(NcError::ENCZARR)));
    }
}
