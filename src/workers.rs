//! The library's only way to run work on several threads: scoped workers
//! that are all gone, joined, when the call returns.
//!
//! No library thread may outlive a call (a `fork` between calls must find
//! none: see `gate.rs`). `thread::scope` alone waits only for the workers'
//! closures to return and then detaches them, so they could still be
//! exiting (running TLS destructors, freeing their bookkeeping) when the
//! call returned, and a fork just then copied them half-gone into the
//! child. Joining each waits until the thread is gone.

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
}
