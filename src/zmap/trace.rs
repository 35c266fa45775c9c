//! `NCTRACING=<level>`: every storage request on stderr, so a user can see
//! why an open or a read is slow. netcdf-c traces its storage layer at
//! level 5 (file) and 6 (S3); ours does the same, one line per request:
//!
//! ```text
//! nczarr-rs (6) s3 get .zmetadata bytes=5123 ms=12.4 retries=0
//! ```
//!
//! Drivers that retry call [`note_retry`] for each retry, so the line of the
//! request says how many it took; their own per-attempt lines (status,
//! attempt) go at [`ATTEMPT_LEVEL`]. Nothing secret is ever traced: keys
//! and sizes only, never URLs with signatures or headers.

use std::cell::Cell;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Instant;

use super::Zmap;
use crate::error::NcResult;

/// Level of each HTTP attempt a remote driver makes (retries, statuses).
pub const ATTEMPT_LEVEL: i32 = 7;

/// The level from `NCTRACING` (`i32::MIN` until read; -1 when unset).
/// An atomic, not a lock: nothing here can be held across a fork.
static LEVEL: AtomicI32 = AtomicI32::new(i32::MIN);

thread_local! {
    /// Retries the driver made for the request under way on this thread.
    static RETRIES: Cell<u32> = const { Cell::new(0) };
}

/// The trace level (`NCTRACING`, read once; -1 when unset or not a number).
pub fn level() -> i32 {
    let level = LEVEL.load(Ordering::Relaxed);
    if level != i32::MIN {
        return level;
    }
    let read = std::env::var("NCTRACING").ok().and_then(|v| v.trim().parse::<i32>().ok()).unwrap_or(-1).max(-1);
    LEVEL.store(read, Ordering::Relaxed);
    read
}

/// Is a message of `at` level shown?
pub fn enabled(at: i32) -> bool {
    at <= level()
}

/// This process's rank in `MPI_COMM_WORLD` once it opened a dataset for
/// parallel I/O (-1 before): the ranks' lines interleave on one stderr.
static RANK: AtomicI32 = AtomicI32::new(-1);

/// Say this process's MPI rank in every trace line from now on.
pub fn set_rank(rank: i32) {
    RANK.store(rank, Ordering::Relaxed);
}

/// Write a trace line at `at` level, if shown.
pub fn log(at: i32, message: std::fmt::Arguments) {
    if enabled(at) {
        let line = match RANK.load(Ordering::Relaxed) {
            -1 => format!("nczarr-rs ({at}) {message}\n"),
            rank => format!("nczarr-rs ({at}) [rank {rank}] {message}\n"),
        };
        // One write for the whole line: lines of other threads, and of the
        // other ranks sharing this stderr, never cut into it (eprintln!
        // writes a line in pieces).
        use std::io::Write;
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

/// A driver retried the request under way on this thread.
pub fn note_retry() {
    RETRIES.with(|r| r.set(r.get() + 1));
}

/// A store that traces each request of the store it wraps. [`wrap`] puts
/// it around a driver only when tracing is on at the driver's level, so
/// untraced stores pay nothing.
pub struct Traced {
    inner: Box<dyn Zmap>,
    driver: &'static str,
    at: i32,
}

/// `store` traced as `driver` at level `at` when that level is shown,
/// else `store` itself.
pub fn wrap(store: Box<dyn Zmap>, driver: &'static str, at: i32) -> Box<dyn Zmap> {
    if enabled(at) { Box::new(Traced { inner: store, driver, at }) } else { store }
}

impl Traced {
    /// Run one request and trace it: `what` names it, `bytes` says how
    /// many bytes its result moved.
    fn traced<T>(
        &self,
        what: std::fmt::Arguments,
        call: impl FnOnce() -> NcResult<T>,
        bytes: impl Fn(&T) -> usize,
    ) -> NcResult<T> {
        RETRIES.with(|r| r.set(0));
        let start = Instant::now();
        let result = call();
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let retries = RETRIES.with(Cell::get);
        match &result {
            Ok(value) => {
                log(self.at, format_args!("{} {what} bytes={} ms={ms:.1} retries={retries}", self.driver, bytes(value)))
            }
            Err(e) => log(self.at, format_args!("{} {what} ms={ms:.1} retries={retries} error={}", self.driver, e.0)),
        }
        result
    }
}

fn object_len(v: &Option<Vec<u8>>) -> usize {
    v.as_ref().map_or(0, Vec::len)
}

fn nothing<T>(_: &T) -> usize {
    0
}

impl Zmap for Traced {
    fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
        self.traced(format_args!("get {key}"), || self.inner.get(key), object_len)
    }

    fn get_range(&self, key: &str, offset: u64, len: usize) -> NcResult<Option<Vec<u8>>> {
        self.traced(
            format_args!("get {key} range={offset}+{len}"),
            || self.inner.get_range(key, offset, len),
            object_len,
        )
    }

    fn get_suffix(&self, key: &str, len: usize) -> NcResult<Option<Vec<u8>>> {
        self.traced(format_args!("get_suffix {key} {len}"), || self.inner.get_suffix(key, len), object_len)
    }

    fn get_ranges(&self, key: &str, ranges: &[(u64, usize)]) -> NcResult<Option<Vec<Vec<u8>>>> {
        self.traced(
            format_args!("get {key} ranges={}", ranges.len()),
            || self.inner.get_ranges(key, ranges),
            |parts| parts.as_ref().map_or(0, |p| p.iter().map(Vec::len).sum()),
        )
    }

    fn read_into(&self, key: &str, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let total: usize = segments.iter().map(|(_, b)| b.len()).sum();
        self.traced(
            format_args!("get {key} ranges={}", segments.len()),
            || self.inner.read_into(key, segments),
            |found| if *found { total } else { 0 },
        )
    }

    fn read_into_exact(&self, key: &str, size: u64, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let total: usize = segments.iter().map(|(_, b)| b.len()).sum();
        self.traced(
            format_args!("get {key} ranges={}", segments.len()),
            || self.inner.read_into_exact(key, size, segments),
            |found| if *found { total } else { 0 },
        )
    }

    fn get_exact(&self, key: &str, size: usize) -> NcResult<Option<Vec<u8>>> {
        self.traced(
            format_args!("get {key}"),
            || self.inner.get_exact(key, size),
            |found| found.as_ref().map_or(0, Vec::len),
        )
    }

    fn put(&self, key: &str, data: &[u8]) -> NcResult<()> {
        self.traced(format_args!("put {key}"), || self.inner.put(key, data), |_| data.len())
    }

    fn delete(&self, key: &str) -> NcResult<()> {
        self.traced(format_args!("delete {key}"), || self.inner.delete(key), nothing)
    }

    fn list(&self, prefix: &str) -> NcResult<Vec<String>> {
        self.traced(format_args!("list {prefix:?}"), || self.inner.list(prefix), |names| names.len())
    }

    fn delete_prefix(&self, prefix: &str) -> NcResult<()> {
        self.traced(format_args!("delete-prefix {prefix:?}"), || self.inner.delete_prefix(prefix), nothing)
    }

    fn destroy(&self) -> NcResult<()> {
        self.traced(format_args!("destroy"), || self.inner.destroy(), nothing)
    }

    fn exists(&self, key: &str) -> NcResult<bool> {
        self.traced(format_args!("exists {key}"), || self.inner.exists(key), nothing)
    }

    fn list_recursive(&self, prefix: &str) -> NcResult<Vec<String>> {
        self.traced(format_args!("list-recursive {prefix:?}"), || self.inner.list_recursive(prefix), |keys| keys.len())
    }

    fn move_prefix(&self, from: &str, to: &str) -> NcResult<()> {
        self.traced(format_args!("move {from:?} {to:?}"), || self.inner.move_prefix(from, to), nothing)
    }

    fn drop_alias(&self, from: &str) -> NcResult<()> {
        self.traced(format_args!("drop-alias {from:?}"), || self.inner.drop_alias(from), nothing)
    }

    fn concurrency(&self) -> usize {
        self.inner.concurrency()
    }

    fn rereads_are_cheap(&self) -> bool {
        self.inner.rereads_are_cheap()
    }

    // get_many: the default, so each fetch is traced on its own thread.

    fn sync(&self) -> NcResult<()> {
        self.traced(format_args!("sync"), || self.inner.sync(), nothing)
    }

    fn commit(&self) -> NcResult<()> {
        self.traced(format_args!("commit"), || self.inner.commit(), nothing)
    }

    fn discard(&self) -> NcResult<bool> {
        self.traced(format_args!("discard"), || self.inner.discard(), nothing)
    }

    fn clean_stray_temps(&self) -> NcResult<()> {
        self.inner.clean_stray_temps()
    }

    fn materialize(&self, prefix: &str) -> NcResult<()> {
        self.inner.materialize(prefix)
    }

    fn lock_commits(&self) -> NcResult<bool> {
        self.traced(format_args!("lock-commits"), || self.inner.lock_commits(), nothing)
    }

    fn unlock_commits(&self) {
        self.inner.unlock_commits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zmap::MemoryMap;

    #[test]
    fn traced_store_forwards_everything() {
        let store = Traced { inner: Box::new(MemoryMap::new()), driver: "memory", at: 99 };
        store.put("a/b", b"xyz").unwrap();
        assert_eq!(store.get("a/b").unwrap().unwrap(), b"xyz");
        assert_eq!(store.get_range("a/b", 1, 2).unwrap().unwrap(), b"yz");
        assert_eq!(store.get_suffix("a/b", 2).unwrap().unwrap(), b"yz");
        assert_eq!(store.get_suffix("a/b", 4), Err(crate::error::NcError::ENCZARR));
        assert_eq!(store.get_suffix("nope", 1).unwrap(), None);
        assert_eq!(store.list("a").unwrap(), vec!["b".to_string()]);
        assert_eq!(
            store.get_many(&["a/b".to_string(), "nope".to_string()]).unwrap(),
            vec![Some(b"xyz".to_vec()), None]
        );
        store.delete_prefix("a").unwrap();
        assert_eq!(store.get("a/b").unwrap(), None);
    }

    #[test]
    fn retries_are_counted_per_thread() {
        RETRIES.with(|r| r.set(0));
        note_retry();
        note_retry();
        assert_eq!(RETRIES.with(Cell::get), 2);
        std::thread::spawn(|| assert_eq!(RETRIES.with(Cell::get), 0)).join().unwrap();
    }
}
