//! The library's only way to run work on several threads: scoped workers
//! that are all gone, joined, when the call returns.
//!
//! No worker may outlive its call (a `fork` between calls must find no
//! library thread half-done: see `gate.rs`; the one thread that outlives
//! a call, a write's storer, starts through `gate::spawn_outliving`,
//! which a fork waits for and joins). `thread::scope` alone waits only
//! for the workers' closures to return and then detaches them, so they
//! could still be exiting (running TLS destructors, freeing their
//! bookkeeping) when the call returned, and a fork just then copied them
//! half-gone into the child. Joining each waits until the thread is gone.
//!
//! **One budget per call.** The outermost [`run`] or [`map`] of a call
//! sets how many threads the whole call may use (its `threads`, for
//! storage work a store's [`concurrency`](crate::zmap::Zmap::concurrency)).
//! Runs nested inside its workers (a chunk worker whose store fetches
//! several byte ranges, a chunk write that uploads parts) take what is
//! left of that budget instead of multiplying it. Each thread has at most
//! one storage request in flight, so `s3.concurrency` bounds a call's
//! requests and connections, whatever mix of objects and ranges it makes
//! (nested maps once multiplied it: 64 chunk workers each fetching 64
//! ranges at once).
//!
//! **CPU work takes a core's turn.** Storage work may use many threads
//! (a remote store's requests in flight), but on a machine of N cores,
//! more than N threads encoding or decoding at once only take turns
//! badly. Work wrapped in [`cpu_bound`] waits for one of the call's N
//! turns (the machine's cores), so a call with 64 uploads in flight
//! encodes on as many threads as there are cores, and the others wait
//! for a turn or for their requests.
//!
//! **A failed call stops.** After an item of a [`map`] fails, no further
//! item of it (or of maps nested in it) starts, and work under it can ask
//! [`cancelled`] (the S3 driver does, before each retry): a call that has
//! failed returns once its requests in flight have, however many items
//! were left.
//!
//! The bookkeeping is a thread-local raw pointer (no destructor, no lock),
//! so a fork at any moment leaves nothing half-held.

use std::cell::Cell;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use crate::error::{NcError, NcResult};

/// One `run`: what its workers (and runs nested in them) share.
struct Scope {
    /// Threads the call may still add, beyond those running: lives in
    /// the outermost run's frame, which outlives every nested one.
    spare: *const AtomicUsize,
    /// An item of this run's map failed: start no more.
    failed: AtomicBool,
    /// The run this one is nested in (null at the top of a call).
    parent: *const Scope,
    /// The call's turns for CPU work ([`cpu_bound`]): in the outermost
    /// run's frame, like `spare`.
    cpu: *const Turns,
}

/// Turns for CPU work, one per core, shared by a call's threads.
struct Turns {
    free: Mutex<usize>,
    freed: Condvar,
}

// SAFETY: the pointers lead to a `Scope` and an `AtomicUsize` in the
// frames of runs that are still executing (a nested run ends before the
// one around it, and every thread using a scope is joined before its run
// returns); only atomics are reached through them.
unsafe impl Sync for Scope {}

impl Scope {
    /// Has this run, or one it is nested in, failed?
    fn cancelled(&self) -> bool {
        let mut at: *const Scope = self;
        while !at.is_null() {
            // SAFETY: see `impl Sync for Scope`: every scope up the chain
            // belongs to a run still executing.
            let scope = unsafe { &*at };
            if scope.failed.load(Ordering::Relaxed) {
                return true;
            }
            at = scope.parent;
        }
        false
    }
}

thread_local! {
    /// The run whose worker this thread is now executing (null: none).
    static CURRENT: Cell<*const Scope> = const { Cell::new(std::ptr::null()) };
    /// This thread holds one of its call's CPU turns.
    static HOLDS_TURN: Cell<bool> = const { Cell::new(false) };
}

/// Run CPU work (encoding, decoding) in one of the call's turns, waiting
/// for one if every core is busy with such work (see the module's
/// notes). Outside a run, or inside another turn, it just runs.
pub fn cpu_bound<R>(f: impl FnOnce() -> R) -> R {
    let at = CURRENT.get();
    if at.is_null() || HOLDS_TURN.get() {
        return f();
    }
    // SAFETY: CURRENT is set only while its run executes on this thread,
    // and the turns live in the outermost run's frame, which outlives it.
    let turns = unsafe { &*(*at).cpu };
    {
        let Ok(mut free) = turns.free.lock() else { return f() };
        while *free == 0 {
            free = match turns.freed.wait(free) {
                Ok(guard) => guard,
                Err(_) => return f(),
            };
        }
        *free -= 1;
    }
    /// Gives the turn back, also when `f` panics.
    struct Release<'a>(&'a Turns);
    impl Drop for Release<'_> {
        fn drop(&mut self) {
            HOLDS_TURN.set(false);
            if let Ok(mut free) = self.0.free.lock() {
                *free += 1;
            }
            self.0.freed.notify_one();
        }
    }
    HOLDS_TURN.set(true);
    let _release = Release(turns);
    f()
}

/// Is the work this thread is doing part of a call that has already
/// failed? (Retrying a request then only delays the error.)
pub fn cancelled() -> bool {
    let at = CURRENT.get();
    // SAFETY: CURRENT is set only while its run is executing on this thread.
    !at.is_null() && unsafe { &*at }.cancelled()
}

/// Take up to `want` threads from the budget; returns how many.
fn take(spare: &AtomicUsize, want: usize) -> usize {
    let mut now = spare.load(Ordering::Relaxed);
    loop {
        let got = now.min(want);
        match spare.compare_exchange_weak(now, now - got, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => return got,
            Err(seen) => now = seen,
        }
    }
}

/// Put the thread-local back and the borrowed threads into the budget,
/// also when a worker on the calling thread panics.
struct Restore<'a> {
    previous: *const Scope,
    spare: &'a AtomicUsize,
    extra: usize,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        CURRENT.set(self.previous);
        self.spare.fetch_add(self.extra, Ordering::AcqRel);
    }
}

/// Run `worker` on up to `wanted` threads, with `limit` as the call's
/// budget when this is its outermost run. `worker` receives its run's
/// scope.
///
/// The outermost run's calling thread is the application's: it waits
/// while up to `limit` threads of ours work (or works alone when one
/// would do), so the call's threads are `limit` of ours whatever thread
/// calls. A nested run's calling thread is already one of those: it
/// works beside the threads the budget has left.
fn run_scoped(limit: usize, wanted: usize, worker: &(dyn Fn(&Scope) + Sync)) {
    let parent = CURRENT.get();
    let top_budget;
    let top_turns;
    let cpu: *const Turns = if parent.is_null() {
        top_turns = Turns { free: Mutex::new(crate::zmap::cpus()), freed: Condvar::new() };
        &top_turns
    } else {
        // SAFETY: the parent run is executing (it is this thread's).
        unsafe { (*parent).cpu }
    };
    let (spare, spawned, caller_works) = if parent.is_null() {
        top_budget = AtomicUsize::new(limit);
        let threads = take(&top_budget, wanted);
        if threads <= 1 { (&top_budget, 0, true) } else { (&top_budget, threads, false) }
    } else {
        // SAFETY: the parent run is executing (it is this thread's).
        let spare = unsafe { &*(*parent).spare };
        (spare, take(spare, wanted.saturating_sub(1)), true)
    };
    let scope = Scope { spare, failed: AtomicBool::new(false), parent, cpu };
    let _restore = Restore { previous: parent, spare, extra: spawned };
    CURRENT.set(&scope);
    let scope_ref = &scope;
    let body = move || {
        CURRENT.set(scope_ref);
        // The call is inside the gate (on the thread that started the
        // outermost run) until every worker is joined.
        let _lent = crate::gate::lend();
        worker(scope_ref);
    };
    if spawned == 0 {
        let _ = std::panic::catch_unwind(AssertUnwindSafe(&body));
        return;
    }
    std::thread::scope(|threads| {
        let handles: Vec<_> = (0..spawned).map(|_| threads.spawn(body)).collect();
        if caller_works {
            // A panic here, like one in a spawned worker, went to the
            // hook and leaves its work undone.
            let _ = std::panic::catch_unwind(AssertUnwindSafe(&body));
        }
        for handle in handles {
            let _ = handle.join();
        }
    });
}

/// Run `worker` on up to `threads` threads at once (fewer when this runs
/// inside another run whose call has used its budget) and wait until
/// every one has exited. A worker that panics has its panic reported by
/// the panic hook and is otherwise ignored: callers detect the work it
/// left undone.
pub fn run(threads: usize, worker: impl Fn() + Sync) {
    let threads = threads.max(1);
    run_scoped(threads, threads, &|_| worker());
}

/// Apply `f` to every item, on up to `threads` workers (for storage work,
/// a store's [`concurrency`](crate::zmap::Zmap::concurrency)). Results
/// keep the items' order. The first error (in time) wins, and once there
/// is one no further item starts. A worker that panicked leaves its item's
/// result unset: that item reads as NC_EINTERNAL (the panic went to the
/// hook).
pub fn map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> NcResult<R> + Sync) -> NcResult<Vec<R>> {
    map_with(items, threads, || (), |(), item| f(item))
}

/// [`map`] with state of each worker's own, made by `init` when the
/// worker starts and handed to each item it takes (a buffer reused from
/// one item to the next, instead of one allocated and faulted in per
/// item).
pub fn map_with<T: Sync, S, R: Send>(
    items: &[T],
    threads: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> NcResult<R> + Sync,
) -> NcResult<Vec<R>> {
    let threads = threads.max(1);
    let next = AtomicUsize::new(0);
    let first_error: Mutex<Option<NcError>> = Mutex::new(None);
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    run_scoped(threads, threads.min(items.len()), &|scope| {
        let mut state = init();
        while !scope.cancelled() {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            match f(&mut state, item) {
                Ok(r) => {
                    if let Ok(mut slot) = results[i].lock() {
                        *slot = Some(r);
                    }
                }
                Err(e) => {
                    // Recorded before the flag is raised, so an item
                    // that stops because of the flag never gets its
                    // own error in first.
                    if let Ok(mut first) = first_error.lock() {
                        first.get_or_insert(e);
                    }
                    scope.failed.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    if let Some(e) = first_error.into_inner().ok().flatten() {
        return Err(e);
    }
    // Without an error of its own, a map stops early only when the run
    // around it failed, which reports its own error.
    results.into_iter().map(|slot| slot.into_inner().ok().flatten().ok_or(NcError::EINTERNAL)).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use crate::error::NcError;

    #[test]
    fn every_worker_runs() {
        let count = AtomicUsize::new(0);
        super::run(4, || {
            count.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(count.into_inner(), 4);
    }

    #[test]
    fn map_keeps_order_and_reports_errors() {
        let items: Vec<usize> = (0..100).collect();
        assert_eq!(super::map(&items, 7, |&i| Ok(i * 2)).unwrap(), items.iter().map(|i| i * 2).collect::<Vec<_>>());
        let failed = super::map(&items, 7, |&i| if i == 50 { Err(NcError::EIO) } else { Ok(i) });
        assert!(matches!(failed, Err(NcError::EIO)));
    }

    /// Threads running at once, and the most seen.
    struct Gauge {
        now: AtomicUsize,
        peak: AtomicUsize,
    }

    impl Gauge {
        fn new() -> Gauge {
            Gauge { now: AtomicUsize::new(0), peak: AtomicUsize::new(0) }
        }
        fn hold(&self) {
            let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.peak.fetch_max(n, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(5));
            self.now.fetch_sub(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn cpu_work_takes_turns_of_the_cores() {
        // 16 items on 8 threads: their CPU work never more than the
        // cores at once, and a turn inside a turn runs at once.
        let gauge = Gauge::new();
        let items: Vec<usize> = (0..16).collect();
        super::map(&items, 8, |_| {
            super::cpu_bound(|| super::cpu_bound(|| gauge.hold()));
            Ok(())
        })
        .unwrap();
        assert!(gauge.peak.load(Ordering::SeqCst) <= crate::zmap::cpus());
        assert_eq!(super::cpu_bound(|| 7), 7, "outside a run");
    }

    #[test]
    fn nested_maps_share_the_outer_budget() {
        // 8 outer items on 4 threads, each mapping 8 inner items on 8:
        // never more than 4 at once (not 32).
        let gauge = Gauge::new();
        let outer: Vec<usize> = (0..8).collect();
        super::map(&outer, 4, |_| {
            super::map(&outer, 8, |_| {
                gauge.hold();
                Ok(())
            })
        })
        .unwrap();
        assert!(gauge.peak.load(Ordering::SeqCst) <= 4, "{:?}", gauge.peak);
        // One outer item leaves the rest of the budget to the inner map.
        let gauge = Gauge::new();
        super::map(&[0], 6, |_| {
            super::map(&outer, 8, |_| {
                gauge.hold();
                std::thread::sleep(Duration::from_millis(20));
                Ok(())
            })
        })
        .unwrap();
        let peak = gauge.peak.load(Ordering::SeqCst);
        assert!((2..=6).contains(&peak), "{peak}");
        // The budget is whole again after each call.
        let gauge = Gauge::new();
        super::map(&outer, 3, |_| {
            gauge.hold();
            std::thread::sleep(Duration::from_millis(20));
            Ok(())
        })
        .unwrap();
        assert!(gauge.peak.load(Ordering::SeqCst) <= 3);
    }

    #[test]
    fn a_failure_stops_the_call() {
        // The first item fails at once; the others would each take long.
        let started = AtomicUsize::new(0);
        let items: Vec<usize> = (0..1000).collect();
        let result = super::map(&items, 4, |&i| {
            started.fetch_add(1, Ordering::SeqCst);
            if i == 0 {
                return Err(NcError::ES3);
            }
            std::thread::sleep(Duration::from_millis(10));
            Ok(i)
        });
        assert_eq!(result, Err(NcError::ES3));
        assert!(started.load(Ordering::SeqCst) < 20, "{:?}", started);
        // Nested work sees the failure: the inner map stops too, and its
        // "stopped" is not the error reported.
        let seen_cancelled = AtomicUsize::new(0);
        let result = super::map(&[0, 1], 2, |&i| {
            if i == 0 {
                std::thread::sleep(Duration::from_millis(20));
                return Err(NcError::EIO);
            }
            super::map(&items, 2, |_| {
                if super::cancelled() {
                    seen_cancelled.fetch_add(1, Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(5));
                Ok(())
            })
        });
        assert_eq!(result, Err(NcError::EIO));
        assert!(seen_cancelled.load(Ordering::SeqCst) <= 2);
        assert!(!super::cancelled(), "nothing left behind on this thread");
    }
}
