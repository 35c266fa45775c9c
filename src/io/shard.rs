//! Chunks inside shards (Zarr v3 `sharding_indexed`): a shard is one
//! object holding its inner chunks and an index of `(offset, nbytes)`
//! pairs, one per inner chunk, at its start or end. A read fetches the
//! index (once per shard and read call) and then only the inner chunks
//! it needs, by byte range: never the whole shard.
//!
//! Shards may nest (a `sharding_indexed` among the inner codecs): an
//! inner chunk is then a shard of its own, whose index sits at its own
//! start or end and whose offsets count from its first byte. Each level's
//! index is fetched by range as the outermost one is, one request for
//! all those of a read that a shard holds, and every place is checked to
//! lie inside the chunk that holds it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crate::error::{NcError, NcResult};
use crate::model::chunking::{ShardLevel, Shards};
use crate::zmap::Zmap;

/// An empty slot: both numbers all ones (the chunk is fill).
const EMPTY: u64 = u64::MAX;

/// Most levels of shards inside shards read (each costs a ranged read of
/// its index; real stores have one or two): where parsing the codecs
/// stops, checked again here.
const MAX_LEVELS: usize = crate::format::v3::codecs::MAX_SHARD_LEVELS;

/// A shard's index once read: `None` when there is no shard (all fill).
type Index = Option<Arc<Vec<u64>>>;

/// Where an inner chunk is within its shard: its number in the index of
/// each level, outermost first.
pub type InnerPath = Vec<usize>;

/// Indexes of inner shards, by shard key and path to the inner shard.
type InnerIndexes = HashMap<(String, InnerPath), Arc<Vec<u64>>>;

/// New inner chunks (encoded) by their paths from some level down.
type Updates<'a> = Vec<(&'a [usize], Vec<u8>)>;

/// One level's layout, with the sizes derived from it.
#[derive(Debug)]
struct Level {
    spec: ShardLevel,
    /// Inner chunks per shard of this level.
    count: usize,
    /// Bytes of the index without and with its CRC.
    body: usize,
    size: usize,
    /// The variable's chunks per inner chunk of this level, per dimension
    /// (the deeper levels' counts multiplied).
    below: Vec<usize>,
}

/// The shards of one variable, with the indexes read so far.
#[derive(Debug)]
pub struct ShardReader {
    levels: Vec<Level>,
    /// The variable's chunks per outermost shard, per dimension.
    per_shard: Vec<usize>,
    /// Shard key → its index, each behind a lock of its own, so that
    /// concurrent readers of one shard fetch its index once while other
    /// shards' are fetched beside it. Lives as long as the variable's
    /// layout, which is one read call.
    indexes: Mutex<HashMap<String, Arc<Mutex<Option<Index>>>>>,
    /// The indexes of inner shards (nested levels), by shard key and the
    /// path to the inner shard.
    inner_indexes: Mutex<InnerIndexes>,
}

/// Where an inner chunk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InnerChunk {
    /// Nothing stored: fill.
    Missing,
    /// Bytes `offset..offset + len` of the shard object.
    At { offset: u64, len: usize },
}

impl Level {
    /// An index from its stored bytes, its CRC checked.
    fn parse_index(&self, raw: &[u8]) -> NcResult<Vec<u64>> {
        if raw.len() != self.size {
            return Err(NcError::ENCZARR);
        }
        if self.spec.index_crc && crc32c::crc32c(&raw[..self.body]).to_le_bytes() != raw[self.body..] {
            return Err(NcError::ENCZARR);
        }
        Ok(raw[..self.body].chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]))).collect())
    }

    /// Where this level's index is in a shard of `len` bytes (NC_ENCZARR
    /// if it does not fit).
    fn index_range(&self, len: u64) -> NcResult<u64> {
        let at = if self.spec.index_at_end { len.checked_sub(self.size as u64) } else { Some(0) };
        at.filter(|at| at + self.size as u64 <= len).ok_or(NcError::ENCZARR)
    }

    /// Entry `k` of an index: where the inner chunk is within its shard,
    /// `None` if empty. Offset plus length must not overflow; `within`,
    /// the shard's length when known, must hold it.
    fn entry(&self, index: &[u64], k: usize, within: Option<u64>) -> NcResult<Option<(u64, u64)>> {
        let (offset, len) = (index[2 * k], index[2 * k + 1]);
        if offset == EMPTY && len == EMPTY {
            return Ok(None);
        }
        let end = offset.checked_add(len).ok_or(NcError::ENCZARR)?;
        if within.is_some_and(|within| end > within) || usize::try_from(len).is_err() {
            return Err(NcError::ENCZARR);
        }
        Ok(Some((offset, len)))
    }

    /// A shard of this level from its inner chunks (`None`: empty), its
    /// index where the layout puts it.
    fn assemble(&self, slots: &[Option<Vec<u8>>]) -> Vec<u8> {
        let base = if self.spec.index_at_end { 0 } else { self.size };
        let mut data = Vec::new();
        let mut index = Vec::with_capacity(self.size);
        for slot in slots {
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
        if self.spec.index_at_end { [data, index].concat() } else { [index, data].concat() }
    }
}

impl ShardReader {
    /// The reader of a variable's shards; NC_ENCZARR when their layout
    /// cannot be (too deep, counts or index sizes past any size).
    pub fn new(spec: Shards) -> NcResult<ShardReader> {
        let rank = spec.levels.first().map(|l| l.per_shard.len()).ok_or(NcError::ENCZARR)?;
        if spec.levels.len() > MAX_LEVELS || spec.levels.iter().any(|l| l.per_shard.len() != rank) {
            return Err(NcError::ENCZARR);
        }
        let mut levels: Vec<Level> = Vec::with_capacity(spec.levels.len());
        let mut below = vec![1usize; rank];
        for spec in spec.levels.into_iter().rev() {
            if spec.per_shard.contains(&0) {
                return Err(NcError::ENCZARR);
            }
            let count = spec.per_shard.iter().try_fold(1usize, |p, &n| p.checked_mul(n)).ok_or(NcError::ENCZARR)?;
            let body = count.checked_mul(16).ok_or(NcError::ENCZARR)?;
            let size = body.checked_add(if spec.index_crc { 4 } else { 0 }).ok_or(NcError::ENCZARR)?;
            let next: Vec<usize> = below
                .iter()
                .zip(&spec.per_shard)
                .map(|(b, n)| b.checked_mul(*n))
                .collect::<Option<_>>()
                .ok_or(NcError::ENCZARR)?;
            let order_ok = spec.order.as_ref().is_none_or(|o| {
                let mut seen = vec![false; rank];
                o.len() == rank && o.iter().all(|&d| d < rank && !std::mem::replace(&mut seen[d], true))
            });
            if !order_ok {
                return Err(NcError::ENCZARR);
            }
            levels.push(Level { spec, count, body, size, below: std::mem::replace(&mut below, next) });
        }
        levels.reverse();
        Ok(ShardReader {
            levels,
            per_shard: below,
            indexes: Mutex::new(HashMap::new()),
            inner_indexes: Mutex::new(HashMap::new()),
        })
    }

    /// The variable's chunks per (outermost) shard, per dimension.
    pub fn per_shard(&self) -> &[usize] {
        &self.per_shard
    }

    /// The shard holding chunk `idx` (its grid indices), and the chunk's
    /// path within it: at each level, its (or its enclosing inner
    /// shard's) number in C order over the level's dimension order.
    pub fn locate(&self, idx: &[usize]) -> (Vec<usize>, InnerPath) {
        let shard = idx.iter().zip(&self.per_shard).map(|(i, n)| i / n).collect();
        let path = self
            .levels
            .iter()
            .map(|level| {
                // Per dimension: the chunk's position in this level's
                // shard, and the shard's count of inner chunks. (A
                // scalar's one chunk has an index but no dimensions.)
                let at: Vec<(usize, usize)> = idx
                    .iter()
                    .zip(&level.below)
                    .zip(&level.spec.per_shard)
                    .map(|((i, below), n)| (i / below % n, *n))
                    .collect();
                let number = |k: usize, &(pos, n): &(usize, usize)| k * n + pos;
                match &level.spec.order {
                    Some(order) => order.iter().filter_map(|&d| at.get(d)).fold(0, number),
                    None => at.iter().fold(0, number),
                }
            })
            .collect();
        (shard, path)
    }

    /// The index of the shard under `key`, read and checked once.
    fn index(&self, store: &dyn Zmap, key: &str) -> NcResult<Index> {
        let slot = self.indexes.lock().map_err(|_| NcError::EINTERNAL)?.entry(key.to_string()).or_default().clone();
        let mut slot = slot.lock().map_err(|_| NcError::EINTERNAL)?;
        if let Some(known) = slot.as_ref() {
            return Ok(known.clone());
        }
        let level = &self.levels[0];
        let raw = if level.spec.index_at_end {
            store.get_suffix(key, level.size)?
        } else {
            store.get_range(key, 0, level.size)?
        };
        let index = raw.map(|raw| level.parse_index(&raw).map(Arc::new)).transpose()?;
        *slot = Some(index.clone());
        Ok(index)
    }

    /// The indexes of the inner shards of level `l` (> 0) at `places`
    /// (path to the inner shard, its bytes in the object): those not read
    /// yet in one request.
    fn inner_indexes(
        &self,
        store: &dyn Zmap,
        key: &str,
        l: usize,
        places: &BTreeMap<InnerPath, (u64, u64)>,
    ) -> NcResult<HashMap<InnerPath, Arc<Vec<u64>>>> {
        let level = &self.levels[l];
        let mut out = HashMap::new();
        let mut wanted = Vec::new();
        {
            let known = self.inner_indexes.lock().map_err(|_| NcError::EINTERNAL)?;
            for (path, &(offset, len)) in places {
                match known.get(&(key.to_string(), path.clone())) {
                    Some(index) => {
                        out.insert(path.clone(), index.clone());
                    }
                    None => wanted.push((path, offset + level.index_range(len)?)),
                }
            }
        }
        if wanted.is_empty() {
            return Ok(out);
        }
        let ranges: Vec<(u64, usize)> = wanted.iter().map(|&(_, at)| (at, level.size)).collect();
        // The shard went away under us: it held these inner shards.
        let raws = store.get_ranges(key, &ranges)?.ok_or(NcError::ENCZARR)?;
        let mut known = self.inner_indexes.lock().map_err(|_| NcError::EINTERNAL)?;
        for ((path, _), raw) in wanted.into_iter().zip(raws) {
            let index = Arc::new(level.parse_index(&raw)?);
            known.insert((key.to_string(), path.clone()), index.clone());
            out.insert(path.clone(), index);
        }
        Ok(out)
    }

    /// Where the inner chunks at `paths` of the shard under `key` are.
    pub fn find_all(&self, store: &dyn Zmap, key: &str, paths: &[InnerPath]) -> NcResult<Vec<InnerChunk>> {
        let Some(index) = self.index(store, key)? else { return Ok(vec![InnerChunk::Missing; paths.len()]) };
        // Each path's place so far: the bytes of the (inner) shard or
        // chunk it leads to, `None` once an index says it is empty. An
        // outermost place past the object's end is caught by the ranged
        // read; deeper ones are checked against the shard holding them.
        let mut places: Vec<Option<(u64, u64)>> = Vec::with_capacity(paths.len());
        for path in paths {
            let k = *path.first().ok_or(NcError::EINTERNAL)?;
            places.push(self.levels[0].entry(&index, k, None)?);
        }
        for l in 1..self.levels.len() {
            let wanted: BTreeMap<InnerPath, (u64, u64)> =
                paths.iter().zip(&places).filter_map(|(path, place)| Some((path[..l].to_vec(), (*place)?))).collect();
            let indexes = self.inner_indexes(store, key, l, &wanted)?;
            for (path, place) in paths.iter().zip(places.iter_mut()) {
                let Some((offset, len)) = *place else { continue };
                let index = indexes.get(&path[..l]).ok_or(NcError::EINTERNAL)?;
                let k = *path.get(l).ok_or(NcError::EINTERNAL)?;
                *place = self.levels[l].entry(index, k, Some(len))?.map(|(o, n)| (offset + o, n));
            }
        }
        places
            .into_iter()
            .map(|place| match place {
                None => Ok(InnerChunk::Missing),
                Some((offset, len)) => {
                    Ok(InnerChunk::At { offset, len: usize::try_from(len).map_err(|_| NcError::ENCZARR)? })
                }
            })
            .collect()
    }

    /// Where the inner chunk at `path` of the shard under `key` is.
    pub fn find(&self, store: &dyn Zmap, key: &str, path: &[usize]) -> NcResult<InnerChunk> {
        Ok(self.find_all(store, key, &[path.to_vec()])?[0])
    }

    /// Rewrite the shard under `key` with some inner chunks (by path,
    /// already encoded) replaced and the others kept as stored: the whole
    /// shard is read, then written with its inner chunks in order and
    /// each index where the layout puts it. A shard (or inner shard) left
    /// without any inner chunk is deleted (left out), as zarr-python
    /// deletes an all-fill shard. The caller writes each shard from one
    /// thread at a time.
    pub fn rewrite(&self, store: &dyn Zmap, key: &str, updates: Vec<(InnerPath, Vec<u8>)>) -> NcResult<()> {
        let old = store.get(key)?;
        let updates = updates.iter().map(|(path, bytes)| (&path[..], bytes.clone())).collect();
        let new = self.rebuild(0, old.as_deref(), updates)?;
        self.indexes.lock().map_err(|_| NcError::EINTERNAL)?.remove(key);
        self.inner_indexes.lock().map_err(|_| NcError::EINTERNAL)?.retain(|(k, _), _| k != key);
        match new {
            None => store.delete(key),
            Some(shard) => store.put(key, &shard),
        }
    }

    /// A shard of level `l` (as stored: `old`, if any) with `updates`
    /// (paths from this level down) applied; `None` when left empty.
    fn rebuild(&self, l: usize, old: Option<&[u8]>, updates: Updates) -> NcResult<Option<Vec<u8>>> {
        let level = &self.levels[l];
        let mut slots: Vec<Option<Vec<u8>>> = vec![None; level.count];
        if let Some(old) = old {
            let at = level.index_range(old.len() as u64)? as usize;
            let index = level.parse_index(&old[at..at + level.size])?;
            for (k, slot) in slots.iter_mut().enumerate() {
                if let Some((offset, len)) = level.entry(&index, k, Some(old.len() as u64))? {
                    // Inside `old` (checked by `entry`), so inside a usize.
                    *slot = Some(old[offset as usize..(offset + len) as usize].to_vec());
                }
            }
        }
        let last = l + 1 == self.levels.len();
        let mut deeper: BTreeMap<usize, Updates> = BTreeMap::new();
        for (path, bytes) in updates {
            match path {
                [k] if last => *slots.get_mut(*k).ok_or(NcError::EINTERNAL)? = Some(bytes),
                [k, rest @ ..] if !last => deeper.entry(*k).or_default().push((rest, bytes)),
                _ => return Err(NcError::EINTERNAL),
            }
        }
        for (k, updates) in deeper {
            let slot = slots.get(k).ok_or(NcError::EINTERNAL)?;
            let rebuilt = self.rebuild(l + 1, slot.as_deref(), updates)?;
            slots[k] = rebuilt;
        }
        if slots.iter().all(Option::is_none) {
            return Ok(None);
        }
        Ok(Some(level.assemble(&slots)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zmap::MemoryMap;

    fn level(per_shard: Vec<usize>, at_end: bool, crc: bool) -> ShardLevel {
        ShardLevel { per_shard, order: None, index_at_end: at_end, index_crc: crc }
    }

    fn reader(per_shard: Vec<usize>, at_end: bool, crc: bool) -> ShardReader {
        ShardReader::new(Shards { levels: vec![level(per_shard, at_end, crc)] }).unwrap()
    }

    #[test]
    fn inner_chunks_in_c_order() {
        let r = reader(vec![2, 3], true, false);
        assert_eq!(r.locate(&[0, 0]), (vec![0, 0], vec![0]));
        assert_eq!(r.locate(&[1, 2]), (vec![0, 0], vec![5]));
        assert_eq!(r.locate(&[3, 4]), (vec![1, 1], vec![4]));
    }

    /// A transpose before the codec: the index counts the shard's
    /// chunks in C order of the transposed shard.
    #[test]
    fn transposed_shards_count_in_their_order() {
        let transposed = ShardLevel { order: Some(vec![1, 0]), ..level(vec![2, 3], true, false) };
        let r = ShardReader::new(Shards { levels: vec![transposed] }).unwrap();
        // Chunk (row 1, column 2) is (2, 1) of the 3x2 transposed grid.
        assert_eq!(r.locate(&[1, 2]), (vec![0, 0], vec![5]));
        assert_eq!(r.locate(&[1, 0]), (vec![0, 0], vec![1]));
        assert_eq!(r.locate(&[0, 1]), (vec![0, 0], vec![2]));
        assert_eq!(r.locate(&[3, 4]), (vec![1, 1], vec![3]));
    }

    /// A scalar's one chunk (grid index [0], no dimensions) is inner
    /// chunk 0 of shard `c`.
    #[test]
    fn scalar_shards() {
        let r =
            ShardReader::new(Shards { levels: vec![level(vec![], true, true), level(vec![], true, false)] }).unwrap();
        assert_eq!(r.locate(&[0]), (vec![], vec![0, 0]));
    }

    /// Shards of 2x1 inner shards of 1x2 chunks: 2x2 chunks per shard.
    #[test]
    fn nested_paths() {
        let r = ShardReader::new(Shards { levels: vec![level(vec![2, 1], true, true), level(vec![1, 2], true, true)] })
            .unwrap();
        assert_eq!(r.locate(&[0, 0]), (vec![0, 0], vec![0, 0]));
        assert_eq!(r.locate(&[0, 1]), (vec![0, 0], vec![0, 1]));
        assert_eq!(r.locate(&[1, 0]), (vec![0, 0], vec![1, 0]));
        assert_eq!(r.locate(&[3, 5]), (vec![1, 2], vec![1, 1]));
    }

    /// A shard as zarr-python lays one out: the chunks in order, then (or
    /// before them) the index with its CRC.
    fn pack(chunks: &[Option<&[u8]>], at_end: bool, crc: bool) -> Vec<u8> {
        let size = chunks.len() * 16 + if crc { 4 } else { 0 };
        let mut data = Vec::new();
        let mut index = Vec::new();
        for chunk in chunks {
            let (offset, len) = match chunk {
                Some(c) => ((data.len() + if at_end { 0 } else { size }) as u64, c.len() as u64),
                None => (EMPTY, EMPTY),
            };
            index.extend(offset.to_le_bytes().into_iter().chain(len.to_le_bytes()));
            data.extend_from_slice(chunk.unwrap_or_default());
        }
        if crc {
            index.extend(crc32c::crc32c(&index).to_le_bytes());
        }
        if at_end { [data, index].concat() } else { [index, data].concat() }
    }

    fn shard_bytes() -> Vec<u8> {
        pack(&[Some(&[1, 0, 0, 0, 2, 0, 0, 0]), None], true, true)
    }

    fn memory(objects: &[(&str, Vec<u8>)]) -> MemoryMap {
        MemoryMap::from_objects(objects.iter().map(|(k, v)| (k.to_string(), v.clone()))).unwrap()
    }

    fn at(offset: u64, len: usize) -> InnerChunk {
        InnerChunk::At { offset, len }
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
        assert_eq!(shard, shard_bytes());
        let store = memory(&[("c/0", shard.clone())]);
        let r = reader(vec![2], true, true);
        assert_eq!(r.find(&store, "c/0", &[0]).unwrap(), at(0, 8));
        assert_eq!(r.find(&store, "c/0", &[1]).unwrap(), InnerChunk::Missing);
        assert_eq!(r.find(&store, "c/1", &[0]).unwrap(), InnerChunk::Missing, "no shard");
        // A damaged index fails its CRC.
        let mut bad = shard;
        bad[12] ^= 1;
        let store = memory(&[("c/0", bad)]);
        assert_eq!(reader(vec![2], true, true).find(&store, "c/0", &[0]), Err(NcError::ENCZARR));
        // Rewritten: the slot filled, the other kept, the index where
        // it belongs; zarr-python's bytes exactly when the same is written.
        let store = memory(&[("c/0", shard_bytes())]);
        let r = reader(vec![2], true, true);
        r.rewrite(&store, "c/0", vec![(vec![0], [1i32, 2].iter().flat_map(|v| v.to_le_bytes()).collect())]).unwrap();
        assert_eq!(store.get("c/0").unwrap().unwrap(), shard_bytes());
        r.rewrite(&store, "c/0", vec![(vec![1], vec![9; 8])]).unwrap();
        assert_eq!(r.find(&store, "c/0", &[0]).unwrap(), at(0, 8));
        assert_eq!(r.find(&store, "c/0", &[1]).unwrap(), at(8, 8));
        let start = reader(vec![2], false, true);
        start.rewrite(&store, "s", vec![(vec![1], vec![7; 4])]).unwrap();
        assert_eq!(start.find(&store, "s", &[1]).unwrap(), at(36, 4));
        assert_eq!(start.find(&store, "s", &[0]).unwrap(), InnerChunk::Missing);
        // A damaged shard is not rewritten over.
        store.put("bad", &[0; 5]).unwrap();
        assert_eq!(r.rewrite(&store, "bad", vec![(vec![0], vec![1])]), Err(NcError::ENCZARR));
        // An object shorter than its index.
        let store = memory(&[("c/0", vec![0; 10])]);
        assert_eq!(reader(vec![2], false, false).find(&store, "c/0", &[0]), Err(NcError::ENCZARR));
    }

    fn two_levels() -> ShardReader {
        ShardReader::new(Shards { levels: vec![level(vec![2], true, true), level(vec![2], false, false)] }).unwrap()
    }

    /// Inner shards (index at their start, no CRC) inside a shard (index
    /// at the end): offsets count from each inner shard's first byte.
    #[test]
    fn reads_nested_shards() {
        let inner0 = pack(&[Some(b"ab"), Some(b"cde")], false, false);
        let inner1 = pack(&[None, Some(b"f")], false, false);
        let store = memory(&[("k", pack(&[Some(&inner0), Some(&inner1)], true, true))]);
        let r = two_levels();
        let paths = [vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]];
        let places = r.find_all(&store, "k", &paths).unwrap();
        assert_eq!(places, [at(32, 2), at(34, 3), InnerChunk::Missing, at(37 + 32, 1)]);
        let bytes = |p: InnerChunk| match p {
            InnerChunk::At { offset, len } => store.get_range("k", offset, len).unwrap().unwrap(),
            InnerChunk::Missing => Vec::new(),
        };
        assert_eq!(
            places.into_iter().map(bytes).collect::<Vec<_>>(),
            [b"ab".to_vec(), b"cde".to_vec(), vec![], b"f".to_vec()]
        );
        // An empty inner shard: its chunks are all missing, no index read.
        let store = memory(&[("k", pack(&[Some(&inner0), None], true, true))]);
        assert_eq!(two_levels().find(&store, "k", &[1, 1]).unwrap(), InnerChunk::Missing);
    }

    /// Damaged nested shards are errors, never bytes from elsewhere.
    #[test]
    fn damaged_nested_shards() {
        // A reader per store: it keeps the indexes it has read.
        let find = |shard: Vec<u8>, path: &[usize]| two_levels().find(&memory(&[("k", shard)]), "k", path);
        // An inner chunk reaching past its inner shard (into the next).
        let mut inner = pack(&[Some(b"ab"), Some(b"cd")], false, false);
        inner[24..32].copy_from_slice(&3u64.to_le_bytes());
        let next = pack(&[Some(b"zz"), None], false, false);
        assert_eq!(find(pack(&[Some(&inner), Some(&next)], true, true), &[0, 1]), Err(NcError::ENCZARR));
        // An inner shard too short to hold its index.
        assert_eq!(find(pack(&[Some(b"short"), None], true, true), &[0, 0]), Err(NcError::ENCZARR));
        // An inner shard said to be past the object's end.
        let mut outer = pack(&[Some(&pack(&[Some(b"ab"), None], false, false)), None], true, true);
        let n = outer.len();
        outer[n - 36..n - 28].copy_from_slice(&1000u64.to_le_bytes());
        let body = outer[n - 36..n - 4].to_vec();
        outer[n - 4..].copy_from_slice(&crc32c::crc32c(&body).to_le_bytes());
        assert_eq!(find(outer, &[0, 0]), Err(NcError::ENCZARR));
        // An offset whose end overflows.
        let mut inner = pack(&[Some(b"ab"), None], false, false);
        inner[0..8].copy_from_slice(&(u64::MAX - 1).to_le_bytes());
        assert_eq!(find(pack(&[Some(&inner), None], true, true), &[0, 0]), Err(NcError::ENCZARR));
        // A damaged CRC of an inner index (inner shards with CRCs).
        let crc =
            ShardReader::new(Shards { levels: vec![level(vec![2], true, true), level(vec![2], true, true)] }).unwrap();
        let mut inner = pack(&[Some(b"ab"), None], true, true);
        inner[3] ^= 1;
        let store = memory(&[("k", pack(&[Some(&inner), None], true, true))]);
        assert_eq!(crc.find(&store, "k", &[0, 0]), Err(NcError::ENCZARR));
        // Not rewritten over either (a write into that inner shard reads
        // its index; the others are kept as they are, unread).
        assert_eq!(crc.rewrite(&store, "k", vec![(vec![0, 1], b"x".to_vec())]), Err(NcError::ENCZARR));
    }

    #[test]
    fn impossible_layouts() {
        let new = |levels: Vec<ShardLevel>| ShardReader::new(Shards { levels }).map(|_| ());
        assert_eq!(new(vec![]), Err(NcError::ENCZARR));
        assert_eq!(new(vec![level(vec![2], true, true); MAX_LEVELS + 1]), Err(NcError::ENCZARR), "too deep");
        assert!(new(vec![level(vec![2], true, true); MAX_LEVELS]).is_ok());
        assert_eq!(new(vec![level(vec![2], true, true), level(vec![2, 2], true, true)]), Err(NcError::ENCZARR));
        assert_eq!(new(vec![level(vec![1 << 40, 1 << 40], true, true)]), Err(NcError::ENCZARR), "count overflows");
        assert_eq!(new(vec![level(vec![1 << 60], true, true)]), Err(NcError::ENCZARR), "index size overflows");
        assert_eq!(
            new(vec![level(vec![1 << 32], true, true), level(vec![1 << 32], true, true)]),
            Err(NcError::ENCZARR),
            "chunks per shard overflow"
        );
        let bad_order = ShardLevel { order: Some(vec![0, 0]), ..level(vec![2, 2], true, true) };
        assert_eq!(new(vec![bad_order]), Err(NcError::ENCZARR));
        assert_eq!(new(vec![level(vec![2, 0], true, true)]), Err(NcError::ENCZARR), "no chunk per shard");
    }

    /// Rewriting inner chunks of nested shards: the inner shards rebuilt,
    /// what was not written kept, an emptied inner shard left out.
    #[test]
    fn rewrites_nested_shards() {
        let r = two_levels();
        let store = MemoryMap::new();
        r.rewrite(&store, "k", vec![(vec![1, 1], b"xy".to_vec()), (vec![0, 0], b"a".to_vec())]).unwrap();
        let expected = pack(
            &[Some(&pack(&[Some(b"a"), None], false, false)), Some(&pack(&[None, Some(b"xy")], false, false))],
            true,
            true,
        );
        assert_eq!(store.get("k").unwrap().unwrap(), expected);
        r.rewrite(&store, "k", vec![(vec![0, 1], b"bcd".to_vec())]).unwrap();
        let all = r.find_all(&store, "k", &[vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]).unwrap();
        let bytes: Vec<Vec<u8>> = all
            .iter()
            .map(|p| match *p {
                InnerChunk::At { offset, len } => store.get_range("k", offset, len).unwrap().unwrap(),
                InnerChunk::Missing => Vec::new(),
            })
            .collect();
        assert_eq!(bytes, [b"a".to_vec(), b"bcd".to_vec(), vec![], b"xy".to_vec()]);
        // Paths of the wrong depth are the caller's bug, not the data's.
        assert_eq!(r.rewrite(&store, "k", vec![(vec![0], b"a".to_vec())]), Err(NcError::EINTERNAL));
    }
}
