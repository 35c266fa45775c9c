//! A bounded chunk cache per variable, with write-back of dirty chunks.
//!
//! Bounds are netcdf-c's settings: a byte size and a chunk count
//! (`nc_set_var_chunk_cache`). Unlike netcdf-c's NCZarr cache (issue #2733
//! there), the bounds are enforced: the least recently used chunks are
//! evicted, dirty ones handed back to be written.

use std::collections::HashMap;
use std::sync::Mutex;

use super::unfilled::Unfilled;
use crate::error::{NcError, NcResult};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CacheSettings {
    pub size: usize,
    pub nelems: usize,
    pub preemption: f32,
}

/// netcdf-c's defaults: 64 MiB, 1000 chunks, preemption 0.75.
pub const DEFAULT_SETTINGS: CacheSettings = CacheSettings { size: 64 << 20, nelems: 1000, preemption: 0.75 };

/// The settings new variable caches start with (`nc_set_chunk_cache`).
static DEFAULTS: Mutex<CacheSettings> = Mutex::new(DEFAULT_SETTINGS);

pub fn default_settings() -> CacheSettings {
    // Inside the call gate: no `fork` while the lock is held.
    let _inside = crate::gate::enter();
    DEFAULTS.lock().map(|s| *s).unwrap_or(DEFAULT_SETTINGS)
}

pub fn set_default_settings(settings: CacheSettings) -> NcResult<()> {
    check(&settings)?;
    let _inside = crate::gate::enter();
    *DEFAULTS.lock().map_err(|_| NcError::EINTERNAL)? = settings;
    Ok(())
}

pub fn check(settings: &CacheSettings) -> NcResult<()> {
    if !(0.0..=1.0).contains(&settings.preemption) {
        return Err(NcError::EINVAL);
    }
    Ok(())
}

struct Entry {
    data: Vec<u8>,
    dirty: bool,
    last_use: u64,
    /// Rows a write has not set yet (see `unfilled.rs`): filled before
    /// the chunk leaves the cache or is read.
    unfilled: Option<Unfilled>,
}

impl Entry {
    /// The chunk made whole.
    fn complete(&mut self) -> &mut Vec<u8> {
        if let Some(unfilled) = self.unfilled.take() {
            unfilled.complete(&mut self.data);
        }
        &mut self.data
    }
}

/// A chunk handed back by the cache that must be written to storage.
pub type DirtyChunk = (Vec<usize>, Vec<u8>);

pub struct ChunkCache {
    pub settings: CacheSettings,
    entries: HashMap<Vec<usize>, Entry>,
    bytes: usize,
    clock: u64,
    /// Every chunk this handle has written to, cached or stored (`None`
    /// once there were too many to remember): of a variable it defined,
    /// the only chunks storage can hold.
    written: Option<std::collections::HashSet<Vec<usize>>>,
}

/// Most chunks [`ChunkCache::note_written`] remembers (about 100 MB of
/// indexes at rank 3); past it a write reads chunks it may not need to.
const MOST_REMEMBERED: usize = 1 << 20;

impl ChunkCache {
    pub fn new(settings: CacheSettings) -> ChunkCache {
        ChunkCache { settings, entries: HashMap::new(), bytes: 0, clock: 0, written: Some(Default::default()) }
    }

    /// Would a chunk of this size fit at all?
    pub fn can_hold(&self, chunk_bytes: usize) -> bool {
        self.settings.nelems > 0 && chunk_bytes <= self.settings.size
    }

    pub fn contains(&self, idx: &[usize]) -> bool {
        self.entries.contains_key(idx)
    }

    /// A cached chunk, marked as just used.
    pub fn get(&mut self, idx: &[usize]) -> Option<&[u8]> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(idx).map(|e| {
            e.last_use = clock;
            e.complete().as_slice()
        })
    }

    /// A cached chunk to modify; it becomes dirty.
    pub fn get_dirty(&mut self, idx: &[usize]) -> Option<&mut Vec<u8>> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(idx).map(|e| {
            e.last_use = clock;
            e.dirty = true;
            e.complete()
        })
    }

    /// Remember that this handle wrote to a chunk.
    pub fn note_written(&mut self, idx: &[usize]) {
        if let Some(written) = &mut self.written {
            if written.len() >= MOST_REMEMBERED {
                self.written = None;
            } else if !written.contains(idx) {
                written.insert(idx.to_vec());
            }
        }
    }

    /// Has this handle certainly never written to this chunk?
    pub fn never_written(&self, idx: &[usize]) -> bool {
        self.written.as_ref().is_some_and(|w| !w.contains(idx))
    }

    /// Take a chunk out (to change it off the dataset's lock, or because
    /// a write replaces it whole); `insert` puts it back.
    pub fn take(&mut self, idx: &[usize]) -> Option<Vec<u8>> {
        let (mut data, unfilled) = self.take_unfilled(idx)?;
        if let Some(unfilled) = unfilled {
            unfilled.complete(&mut data);
        }
        Some(data)
    }

    /// [`Self::take`] without making the chunk whole: its rows not
    /// written yet, if any, come with it; `insert_unfilled` puts it back.
    pub fn take_unfilled(&mut self, idx: &[usize]) -> Option<(Vec<u8>, Option<Unfilled>)> {
        let e = self.entries.remove(idx)?;
        self.bytes -= e.data.len();
        Some((e.data, e.unfilled))
    }

    /// Add a chunk; returns the dirty chunks evicted to make room.
    pub fn insert(&mut self, idx: Vec<usize>, data: Vec<u8>, dirty: bool) -> Vec<DirtyChunk> {
        self.insert_unfilled(idx, data, None, dirty)
    }

    /// [`Self::insert`] of a chunk some rows of which are still to be
    /// filled (`unfilled`).
    pub fn insert_unfilled(
        &mut self,
        idx: Vec<usize>,
        data: Vec<u8>,
        unfilled: Option<Unfilled>,
        dirty: bool,
    ) -> Vec<DirtyChunk> {
        self.clock += 1;
        self.bytes += data.len();
        let entry = Entry { data, dirty: dirty || unfilled.is_some(), last_use: self.clock, unfilled };
        if let Some(old) = self.entries.insert(idx, entry) {
            self.bytes -= old.data.len();
            crate::buffers::recycle(old.data);
        }
        self.evict_to_fit()
    }

    /// Change the bounds, evicting what no longer fits.
    pub fn resize(&mut self, settings: CacheSettings) -> Vec<DirtyChunk> {
        self.settings = settings;
        self.evict_to_fit()
    }

    /// Evict what must go for `chunks` more chunks of `bytes` in all to
    /// fit, before they are made (so the cache and the new chunks are
    /// never in memory at once beyond the cache's bounds); returns the
    /// dirty chunks evicted.
    pub fn make_room(&mut self, chunks: usize, bytes: usize) -> Vec<DirtyChunk> {
        self.evict_until(self.settings.size.saturating_sub(bytes), self.settings.nelems.saturating_sub(chunks))
    }

    fn evict_to_fit(&mut self) -> Vec<DirtyChunk> {
        self.evict_until(self.settings.size, self.settings.nelems)
    }

    fn evict_until(&mut self, size: usize, nelems: usize) -> Vec<DirtyChunk> {
        let mut out = Vec::new();
        while !self.entries.is_empty() && (self.bytes > size || self.entries.len() > nelems) {
            let Some(oldest) = self.entries.iter().min_by_key(|(_, e)| e.last_use).map(|(k, _)| k.clone()) else {
                break;
            };
            if let Some(mut e) = self.entries.remove(&oldest) {
                self.bytes -= e.data.len();
                if e.dirty {
                    e.complete();
                    out.push((oldest, e.data));
                } else {
                    // The next chunk loaded reuses it, instead of fresh
                    // memory that faults page by page.
                    crate::buffers::recycle(e.data);
                }
            }
        }
        out
    }

    /// The dirty chunks, made whole and borrowed (to be written; then
    /// [`Self::mark_clean`]).
    pub fn dirty(&mut self) -> Vec<(&[usize], &[u8])> {
        for e in self.entries.values_mut() {
            e.complete();
        }
        self.entries.iter().filter(|(_, e)| e.dirty).map(|(k, e)| (k.as_slice(), e.data.as_slice())).collect()
    }

    /// Every cached chunk now matches storage.
    pub fn mark_clean(&mut self) {
        self.entries.values_mut().for_each(|e| e.dirty = false);
    }

    /// Forget everything (dirty chunks are lost: `nc_abort`).
    pub fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_and_returns_dirty() {
        let mut c = ChunkCache::new(CacheSettings { size: 10, nelems: 100, preemption: 0.75 });
        assert!(c.insert(vec![0], vec![0; 4], true).is_empty());
        assert!(c.insert(vec![1], vec![1; 4], false).is_empty());
        c.get(&[0]);
        let evicted = c.insert(vec![2], vec![2; 4], false);
        assert!(evicted.is_empty(), "chunk 1 was clean");
        assert!(c.contains(&[0]) && !c.contains(&[1]));
        let evicted = c.insert(vec![3], vec![3; 8], false);
        assert_eq!(evicted, vec![(vec![0], vec![0; 4])]);
        assert!(!c.can_hold(11));
    }

    #[test]
    fn taken_chunks_leave_and_come_back() {
        let mut c = ChunkCache::new(CacheSettings { size: 8, nelems: 100, preemption: 0.75 });
        c.insert(vec![0], vec![0; 4], true);
        c.insert(vec![1], vec![1; 4], false);
        assert_eq!(c.take(&[0]), Some(vec![0; 4]));
        assert_eq!(c.take(&[0]), None);
        assert!(c.insert(vec![2], vec![2; 4], false).is_empty(), "room was made");
        assert!(c.dirty().is_empty());
        let evicted = c.insert(vec![0], vec![9; 4], true);
        assert!(evicted.is_empty(), "the clean chunk 1 made room");
        assert_eq!(c.dirty(), vec![(&[0usize][..], &[9u8; 4][..])]);
    }

    #[test]
    fn count_bound_and_take_dirty() {
        let mut c = ChunkCache::new(CacheSettings { size: 1000, nelems: 2, preemption: 0.5 });
        c.insert(vec![0], vec![0], true);
        c.insert(vec![1], vec![1], true);
        assert_eq!(c.dirty().len(), 2);
        c.mark_clean();
        assert!(c.dirty().is_empty());
        let evicted = c.insert(vec![2], vec![2], false);
        assert!(evicted.is_empty(), "clean after mark_clean");
        assert!(!c.contains(&[0]));
        assert_eq!(check(&CacheSettings { size: 1, nelems: 1, preemption: 1.5 }), Err(NcError::EINVAL));
    }
}
