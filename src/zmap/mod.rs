//! The storage interface ("zmap" in the NCZarr documents): a flat key-value
//! store whose keys are `/`-separated paths relative to the dataset root.
//! Everything above this layer is storage-blind.

mod beneath;
mod durability;
mod file;
mod key;
mod local;
mod memory;
pub mod ranges;
mod reference;
mod s3;
pub mod trace;
#[cfg(target_os = "linux")]
mod tree;
mod zip;

pub use durability::Durability;
pub use file::FileMap;
pub use key::{join, validate_key};
pub use memory::MemoryMap;
pub use reference::{
    MAX_PARQUET_RECORD_SIZE, MAX_REFERENCE_RANGE, ParquetRow, ReferenceMap, ReferenceRef, References,
    decode_parquet_record, parse_references,
};
pub use s3::S3Map;
pub use zip::{ZipLayout, ZipMap};

use crate::error::NcResult;

pub trait Zmap: Send + Sync {
    /// The object stored under `key`, or `None` when there is none.
    fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>>;
    /// `len` bytes of the object under `key` from byte `offset`; `None`
    /// when there is no object. Reading past its end is NC_ENCZARR (a
    /// truncated chunk). Drivers that can read a range directly override
    /// this whole-object default.
    fn get_range(&self, key: &str, offset: u64, len: usize) -> NcResult<Option<Vec<u8>>> {
        let Some(data) = self.get(key)? else { return Ok(None) };
        let start = usize::try_from(offset).map_err(|_| crate::error::NcError::ENCZARR)?;
        data.get(start..start + len).map(|s| Some(s.to_vec())).ok_or(crate::error::NcError::ENCZARR)
    }
    /// The last `len` bytes of the object under `key` (a shard's index);
    /// `None` when there is no object, NC_ENCZARR when it is shorter.
    /// Drivers that know an object's size without reading it override
    /// this whole-object default.
    fn get_suffix(&self, key: &str, len: usize) -> NcResult<Option<Vec<u8>>> {
        let Some(mut data) = self.get(key)? else { return Ok(None) };
        let start = data.len().checked_sub(len).ok_or(crate::error::NcError::ENCZARR)?;
        data.drain(..start);
        Ok(Some(data))
    }

    /// Several byte ranges of one object (`None` when there is none).
    /// Each driver fetches them as its storage does best: local ones
    /// range by range, remote ones merged into as few requests as pay
    /// (`ranges.rs`); callers hand over every range of an object they
    /// need at once and need not know which.
    fn get_ranges(&self, key: &str, ranges: &[(u64, usize)]) -> NcResult<Option<Vec<Vec<u8>>>> {
        let mut out = Vec::with_capacity(ranges.len());
        for &(offset, len) in ranges {
            match self.get_range(key, offset, len)? {
                Some(bytes) => out.push(bytes),
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    /// Read byte ranges of one object straight into the given buffers
    /// (offset, destination). Returns false, touching nothing, when there
    /// is no object.
    fn read_into(&self, key: &str, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let ranges: Vec<(u64, usize)> = segments.iter().map(|(o, b)| (*o, b.len())).collect();
        let Some(parts) = self.get_ranges(key, &ranges)? else { return Ok(false) };
        for ((_, dst), src) in segments.iter_mut().zip(parts) {
            dst.copy_from_slice(&src);
        }
        Ok(true)
    }

    /// A raw chunk: the object under `key`, which must be exactly `size`
    /// bytes long (one of any other length is NC_ENCZARR, and is not
    /// read); `None` when there is none. Drivers that can read into
    /// memory nobody initialised first override this default.
    fn get_exact(&self, key: &str, size: usize) -> NcResult<Option<Vec<u8>>> {
        let mut data = crate::buffers::zeroed(size)?;
        let found = self.read_into_exact(key, size as u64, &mut [(0, &mut data[..])])?;
        Ok(found.then_some(data))
    }

    /// [`Zmap::read_into`] for an object that must be exactly `size` bytes
    /// long (a raw chunk): one of any other length is NC_ENCZARR, and then
    /// nothing is read into the buffers. Drivers that can learn an
    /// object's length without reading it override this default.
    fn read_into_exact(&self, key: &str, size: u64, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let Some(data) = self.get(key)? else { return Ok(false) };
        if data.len() as u64 != size {
            return Err(crate::error::NcError::ENCZARR);
        }
        for (offset, dst) in segments.iter() {
            let start = usize::try_from(*offset).map_err(|_| crate::error::NcError::ENCZARR)?;
            if start.checked_add(dst.len()).is_none_or(|end| end > data.len()) {
                return Err(crate::error::NcError::ENCZARR);
            }
        }
        for (offset, dst) in segments.iter_mut() {
            let start = *offset as usize;
            dst.copy_from_slice(&data[start..start + dst.len()]);
        }
        Ok(true)
    }

    /// Store `data` under `key`, replacing any previous object atomically.
    fn put(&self, key: &str, data: &[u8]) -> NcResult<()>;
    /// Remove the object under `key`; a missing object is not an error.
    fn delete(&self, key: &str) -> NcResult<()>;
    /// The names of the immediate children of `prefix` ("" is the root):
    /// objects and intermediate path segments alike, sorted.
    fn list(&self, prefix: &str) -> NcResult<Vec<String>>;
    /// Remove every object at or below `prefix` ("" empties the store).
    fn delete_prefix(&self, prefix: &str) -> NcResult<()>;
    /// Remove the whole store, root included (used by `nc_abort` of a new
    /// dataset).
    fn destroy(&self) -> NcResult<()>;

    /// Is there an object (not just a path segment) under `key`?
    fn exists(&self, key: &str) -> NcResult<bool> {
        Ok(self.get(key)?.is_some())
    }

    /// Every object key at or below `prefix`, depth first.
    fn list_recursive(&self, prefix: &str) -> NcResult<Vec<String>> {
        let mut out = Vec::new();
        let mut pending = vec![prefix.to_string()];
        while let Some(p) = pending.pop() {
            for child in self.list(&p)? {
                let key = join(&p, &child);
                if self.exists(&key)? {
                    out.push(key.clone());
                }
                pending.push(key);
            }
        }
        Ok(out)
    }

    /// Move every object below `from` to the same relative key below `to`,
    /// replacing whatever was below `to`. Until [`Self::drop_alias`]`(from)`
    /// the objects may still be reachable under `from` too (drivers that
    /// can alias cheaply do so; this default copies), so metadata naming
    /// either place finds them.
    fn move_prefix(&self, from: &str, to: &str) -> NcResult<()> {
        self.delete_prefix(to)?;
        for key in self.list_recursive(from)? {
            let suffix = &key[from.len()..];
            if let Some(data) = self.get(&key)? {
                self.put(&format!("{to}{suffix}"), &data)?;
            }
        }
        Ok(())
    }

    /// Stop `from` reaching what [`Self::move_prefix`] moved from it.
    fn drop_alias(&self, from: &str) -> NcResult<()> {
        self.delete_prefix(from)
    }

    /// How many requests this store serves well at once: what fetching or
    /// writing many objects (chunks, metadata) in parallel should use. A
    /// local disk gains little beyond the CPUs; a remote store needs many
    /// requests in flight to hide their latency.
    fn concurrency(&self) -> usize {
        cpus().min(8)
    }

    /// Whether reading an object again costs about a copy of its bytes
    /// (the system's page cache holds them): then a raw chunk read in
    /// part is better read again than kept, since keeping it costs fresh
    /// memory, faulted in page by page, and the bytes are held twice.
    fn rereads_are_cheap(&self) -> bool {
        false
    }

    /// Several objects at once (`None` for each that is missing), fetched
    /// [`Self::concurrency`] at a time, on threads gone when it returns.
    fn get_many(&self, keys: &[String]) -> NcResult<Vec<Option<Vec<u8>>>> {
        crate::workers::map(keys, self.concurrency(), |key| self.get(key))
    }

    /// Make everything written or deleted so far durable (a barrier: the
    /// writes after it reach storage after the writes before it).
    fn sync(&self) -> NcResult<()> {
        Ok(())
    }

    /// Publish everything written so far, at the end of a commit of the
    /// dataset's metadata (end of define mode, `nc_sync`, `nc_close`).
    /// Drivers whose writes are visible as they are made need nothing;
    /// the zip driver writes its new archive here.
    fn commit(&self) -> NcResult<()> {
        Ok(())
    }

    /// Keep other processes' commits out while this one merges with the
    /// stored metadata and rewrites it (`format::merge`), until
    /// [`Self::unlock_commits`]; use it through [`lock_commits`]. False
    /// where the store cannot lock: a commit racing another's can then
    /// still lose the other's change.
    fn lock_commits(&self) -> NcResult<bool> {
        Ok(false)
    }

    /// Let the next commit in (after a [`Self::lock_commits`] that
    /// returned true).
    fn unlock_commits(&self) {}

    /// `nc_abort` of an opened dataset: forget every change not yet
    /// published, if the driver can (true); otherwise (false) the caller
    /// undoes what the dataset wrote.
    fn discard(&self) -> NcResult<bool> {
        Ok(false)
    }

    /// Remove what writers killed earlier left behind (temporary objects
    /// of processes that are gone). Drivers whose writes leave none need
    /// nothing.
    fn clean_stray_temps(&self) -> NcResult<()> {
        Ok(())
    }

    /// Make `prefix` hold its objects itself again if an interrupted
    /// [`Self::move_prefix`] left it an alias of another prefix.
    fn materialize(&self, _prefix: &str) -> NcResult<()> {
        Ok(())
    }
}

/// Held while a commit has the store to itself ([`Zmap::lock_commits`]);
/// dropping it lets the next commit in.
#[must_use]
pub struct CommitLock<'a> {
    store: &'a dyn Zmap,
    held: bool,
}

/// Take the store's commit lock (where it has one) for as long as the
/// returned guard lives.
pub fn lock_commits(store: &dyn Zmap) -> NcResult<CommitLock<'_>> {
    Ok(CommitLock { store, held: store.lock_commits()? })
}

impl Drop for CommitLock<'_> {
    fn drop(&mut self) {
        if self.held {
            self.store.unlock_commits();
        }
    }
}

/// The CPUs this process may use, looked up once: the lookup reads the
/// cgroup's quota files, which cost more than a small read or write
/// (it was a seventh of writing a dataset a time step per call). A plain
/// atomic, not a lazy lock, so a fork at any moment leaves it usable:
/// two threads that both look it up store the same number.
pub fn cpus() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CPUS: AtomicUsize = AtomicUsize::new(0);
    match CPUS.load(Ordering::Relaxed) {
        0 => {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            CPUS.store(n, Ordering::Relaxed);
            n
        }
        n => n,
    }
}
