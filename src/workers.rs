//! The library's only way to run work on several threads: scoped workers
//! that are all gone, joined, when the call returns.
//!
//! No library thread may outlive a call (a `fork` between calls must find
//! none: see `gate.rs`). `thread::scope` alone waits only for the workers'
//! closures to return and then detaches them, so they could still be
//! exiting (running TLS destructors, freeing their bookkeeping) when the
//! call returned, and a fork just then copied them half-gone into the
//! child. Joining each waits until the thread is gone.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{NcError, NcResult};

/// Run `worker` on `threads` threads at once and wait until every one has
/// exited. A worker that panics has its panic reported by the panic hook
/// and is otherwise ignored: callers detect the work it left undone.
pub fn run(threads: usize, worker: impl Fn() + Sync) {
    if threads <= 1 {
        worker();
        return;
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(&worker)).collect();
        for handle in handles {
            let _ = handle.join();
        }
    });
}

/// Apply `f` to every item, on up to `threads` workers (for storage work,
/// a store's [`concurrency`](crate::zmap::Zmap::concurrency)). Results
/// keep the items' order; the first error wins. A worker that panicked
/// leaves its item's result unset: that item reads as NC_EINTERNAL (the
/// panic went to the hook).
pub fn map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> NcResult<R> + Sync) -> NcResult<Vec<R>> {
    let threads = threads.min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<NcResult<R>>>> = items.iter().map(|_| Mutex::new(None)).collect();
    run(threads, || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let r = f(item);
            if let Ok(mut slot) = results[i].lock() {
                *slot = Some(r);
            }
        }
    });
    results.into_iter().map(|slot| slot.into_inner().ok().flatten().unwrap_or(Err(NcError::EINTERNAL))).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_worker_runs() {
        let count = std::sync::atomic::AtomicUsize::new(0);
        super::run(4, || {
            count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(count.into_inner(), 4);
    }

    #[test]
    fn map_keeps_order_and_reports_errors() {
        let items: Vec<usize> = (0..100).collect();
        assert_eq!(super::map(&items, 7, |&i| Ok(i * 2)).unwrap(), items.iter().map(|i| i * 2).collect::<Vec<_>>());
        let failed = super::map(&items, 7, |&i| if i == 50 { Err(crate::error::NcError::EIO) } else { Ok(i) });
        assert!(matches!(failed, Err(crate::error::NcError::EIO)));
    }
}
