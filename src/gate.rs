//! The call gate: how the library stays usable in a process that forks.
//!
//! `fork()` copies only the calling thread. A lock another thread held at
//! that instant stays locked forever in the child, and a lazy
//! initialisation another thread was running never finishes there. This
//! library runs inside Python with multiprocessing, Dask workers and MPI
//! jobs, so it must not leave such traps. The rule that prevents them:
//!
//! * every library call (each C entry point's [`guard`](crate::capi)) and
//!   every accessor of process-wide state (the dataset table, the plugin
//!   registry, the `.ncrc` table, the log switch, the cache defaults)
//!   runs while its thread holds the gate shared, re-entrantly; a
//!   call's worker threads run on its hold ([`lend`]), since the call
//!   waits for them before it leaves;
//! * `fork()` takes the gate exclusively first (a `pthread_atfork`
//!   handler registered when the library is loaded). It therefore waits
//!   until no other thread is inside the library and keeps new calls out
//!   until the fork is done, so the child starts with every library lock
//!   free and every lazy initialisation either done or not begun.
//!
//! A fork waits at most for the calls in flight to return. A thread that
//! forks from inside a library call (a filter plugin calling `fork`) cannot
//! wait for itself; the gate is then not taken, as no lock can be.
//!
//! Datasets a child inherits are its parent's: see
//! [`Dataset::adopt_if_inherited`](crate::dataset::Dataset).
//!
//! One kind of library thread outlives the call that starts it: a
//! dataset's write-behind storer (`io::write_behind`), started by
//! [`spawn_outliving`]. It counts as inside the gate from before it starts
//! until its work is done, so a fork waits for its work as for a call's;
//! and the fork then joins it (it can only be ending by then), so no
//! library thread is ever copied into a child half-exited.

use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize};
use std::thread::JoinHandle;
use std::time::Duration;

/// Threads inside the library now.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
/// A fork is waiting for, or holding, the gate.
static FORKING: AtomicBool = AtomicBool::new(false);

/// How long a waiting thread sleeps between looks: forks are rare and
/// calls short, so a plain poll costs nothing in the common case and needs
/// no lock of its own (which a fork could copy held).
const POLL: Duration = Duration::from_micros(100);

thread_local! {
    /// How many gated calls this thread is inside (calls re-enter: a
    /// plugin asks `nc_inq_var` during a read). A plain `Cell`, so the
    /// thread-local needs no destructor.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Whether the fork in progress on this thread closed the gate.
    static CLOSED_BY_ME: Cell<bool> = const { Cell::new(false) };
}

/// Proof that this thread is inside the gate; leaving it when dropped.
#[must_use]
pub struct Inside(());

/// Enter the gate (waiting while a fork is in progress); cheap when this
/// thread is already inside.
pub fn enter() -> Inside {
    let depth = DEPTH.get();
    if depth == 0 {
        loop {
            // Announce, then look: a fork that closed the gate meanwhile
            // sees us and waits, or we see it and step back.
            ACTIVE.fetch_add(1, SeqCst);
            if !FORKING.load(SeqCst) {
                break;
            }
            ACTIVE.fetch_sub(1, SeqCst);
            while FORKING.load(SeqCst) {
                std::thread::sleep(POLL);
            }
        }
    }
    DEPTH.set(depth + 1);
    Inside(())
}

impl Drop for Inside {
    fn drop(&mut self) {
        let depth = DEPTH.get() - 1;
        DEPTH.set(depth);
        if depth == 0 {
            ACTIVE.fetch_sub(1, SeqCst);
        }
    }
}

/// Proof that this thread works for a call in progress on another thread
/// (a worker of [`crate::workers`]); leaving it when dropped.
#[must_use]
pub struct Lent(());

/// Let this thread in on behalf of a call that is inside the gate on
/// another thread and waits for this one before it leaves (its workers):
/// never waits. The call already counts as inside, so a fork waits for
/// it, and so for this thread's work; were the worker to wait for the
/// fork too, the three would wait for each other for ever.
pub fn lend() -> Lent {
    DEPTH.set(DEPTH.get() + 1);
    Lent(())
}

impl Drop for Lent {
    fn drop(&mut self) {
        DEPTH.set(DEPTH.get() - 1);
    }
}

/// Threads started by [`spawn_outliving`] and not joined yet: (id, the
/// process that started it, its handle). Locked only inside the gate, or
/// by a fork that has closed it.
static OUTLIVING: Mutex<Vec<(u64, u32, JoinHandle<()>)>> = Mutex::new(Vec::new());
static NEXT_OUTLIVING: AtomicU64 = AtomicU64::new(1);

fn outliving() -> std::sync::MutexGuard<'static, Vec<(u64, u32, JoinHandle<()>)>> {
    OUTLIVING.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Start a thread whose `work` may go on after the calling call returns
/// (call inside the gate). The thread counts as inside the gate from now
/// until `work` returns: a fork waits for it, and `work` runs as a call's
/// worker does (gated accessors never wait for the fork). Returns its id
/// for [`join_outliving`].
pub fn spawn_outliving(name: &str, work: impl FnOnce() + Send + 'static) -> std::io::Result<u64> {
    debug_assert!(DEPTH.get() > 0, "spawn_outliving outside the gate");
    /// The thread's place inside the gate, taken by the starting call.
    struct Held;
    impl Drop for Held {
        fn drop(&mut self) {
            ACTIVE.fetch_sub(1, SeqCst);
        }
    }
    // The caller is inside, so no fork has closed the gate: one that is
    // waiting now waits for this thread's work too.
    ACTIVE.fetch_add(1, SeqCst);
    let held = Held;
    let handle = std::thread::Builder::new().name(name.to_string()).spawn(move || {
        let lent = lend();
        work();
        drop(lent);
        drop(held);
    })?;
    let id = NEXT_OUTLIVING.fetch_add(1, Relaxed);
    let mut threads = outliving();
    forget_inherited(&mut threads);
    threads.push((id, process_id(), handle));
    Ok(id)
}

/// Wait until the thread [`spawn_outliving`] named `id` is gone (call
/// inside the gate); at once if a fork has joined it already.
pub fn join_outliving(id: u64) {
    let found = {
        let mut threads = outliving();
        forget_inherited(&mut threads);
        threads.iter().position(|(i, _, _)| *i == id).map(|k| threads.swap_remove(k))
    };
    if let Some((_, _, handle)) = found {
        // Its work is wrapped by its owner: a panic cannot reach here.
        let _ = handle.join();
    }
}

/// In a forked child, the parent's threads (listed when a fork came from
/// inside a call, which joins nothing) do not exist: never join them.
fn forget_inherited(threads: &mut Vec<(u64, u32, JoinHandle<()>)>) {
    let me = process_id();
    if threads.iter().all(|(_, pid, _)| *pid == me) {
        return;
    }
    let (mine, theirs): (Vec<_>, Vec<_>) = std::mem::take(threads).into_iter().partition(|(_, pid, _)| *pid == me);
    // Dropping a handle detaches its thread: not one that is not here.
    std::mem::forget(theirs);
    *threads = mine;
}

/// A page the kernel clears in every forked child (`MADV_WIPEONFORK`),
/// holding this process's id once asked (0: not yet, or forked since).
/// Null where the kernel cannot (before Linux 4.14): then every ask is a
/// system call.
static PID_PAGE: AtomicPtr<AtomicU32> = AtomicPtr::new(std::ptr::null_mut());

/// This process's id (`getpid`), without a system call each time.
///
/// Every access to a dataset compares it with the dataset's owner (a
/// forked child's inherited datasets are read-only views): a `getpid`
/// each, 150 ns on the VMs this library is measured on, was a fifth of
/// opening 500 variables and reading their attributes. The id is kept in
/// a page the kernel clears in a forked child whichever way it was forked
/// (with the `pthread_atfork` handlers or not: `_Fork`, a raw `clone`),
/// so a child finds 0 and asks the kernel once.
pub fn process_id() -> u32 {
    // SAFETY: set once, as the library is loaded, to a page never unmapped.
    let Some(kept) = (unsafe { PID_PAGE.load(Relaxed).as_ref() }) else {
        return std::process::id();
    };
    match kept.load(Relaxed) {
        0 => {
            let pid = std::process::id();
            kept.store(pid, Relaxed);
            pid
        }
        pid => pid,
    }
}

/// Map [`PID_PAGE`] (as the library is loaded, before any call).
fn map_pid_page() {
    const LEN: usize = 4096;
    // SAFETY: a fresh anonymous mapping, advised and published whole, or
    // unmapped again untouched.
    unsafe {
        let page = libc::mmap(
            std::ptr::null_mut(),
            LEN,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if page == libc::MAP_FAILED {
            return;
        }
        if libc::madvise(page, LEN, libc::MADV_WIPEONFORK) != 0 {
            libc::munmap(page, LEN);
            return;
        }
        PID_PAGE.store(page.cast(), Relaxed);
    }
}

/// `pthread_atfork` prepare handler: wait for every other thread to leave
/// the library, and keep them out.
extern "C" fn before_fork() {
    if DEPTH.get() > 0 {
        // Forking from inside a call: we cannot wait for ourselves.
        return;
    }
    // One fork at a time closes the gate; another forking thread waits.
    while FORKING.compare_exchange(false, true, SeqCst, SeqCst).is_err() {
        std::thread::sleep(POLL);
    }
    CLOSED_BY_ME.set(true);
    while ACTIVE.load(SeqCst) > 0 {
        std::thread::sleep(POLL);
    }
    // Every thread that outlived its call has done its work (it counted
    // as inside): it is ending, or gone. Wait until it is gone.
    let ending: Vec<_> = {
        let mut threads = outliving();
        forget_inherited(&mut threads);
        std::mem::take(&mut *threads)
    };
    for (_, _, handle) in ending {
        let _ = handle.join();
    }
}

/// Parent handler: open the gate again.
extern "C" fn after_fork_in_parent() {
    if CLOSED_BY_ME.replace(false) {
        FORKING.store(false, SeqCst);
    }
}

/// Child handler: only the forking thread exists; the count is its own.
extern "C" fn after_fork_in_child() {
    ACTIVE.store(usize::from(DEPTH.get() > 0), SeqCst);
    CLOSED_BY_ME.set(false);
    FORKING.store(false, SeqCst);
}

/// Map the process id's page and register the fork handlers as the
/// library is loaded (before any thread can be inside it), from the ELF
/// initialiser list.
extern "C" fn register_fork_handlers() {
    map_pid_page();
    // SAFETY: pthread_atfork stores three function pointers; ours are
    // `extern "C"` functions that live as long as the library.
    unsafe { libc::pthread_atfork(Some(before_fork), Some(after_fork_in_parent), Some(after_fork_in_child)) };
}

#[used]
#[unsafe(link_section = ".init_array")]
static REGISTER_FORK_HANDLERS: extern "C" fn() = register_fork_handlers;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn re_entry_holds_once_and_releases_at_the_outermost_exit() {
        let outer = enter();
        let inner = enter();
        assert_eq!(DEPTH.get(), 2);
        drop(inner);
        assert_eq!(DEPTH.get(), 1);
        drop(outer);
        assert_eq!(DEPTH.get(), 0);
    }

    /// Every file that declares a process-wide lock or lazily initialised
    /// static must use it inside the gate; a new one that does not fails
    /// here, instead of hanging some forked child one day.
    #[test]
    fn every_process_wide_lock_is_behind_the_gate() {
        let kinds = ["Mutex<", "RwLock<", "OnceLock<", "LazyLock<", "Once ", "Once="];
        let mut unguarded = Vec::new();
        let mut pending = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") || path.ends_with("gate.rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let declares = text.lines().any(|l| {
                    let l = l.trim_start();
                    (l.starts_with("static ") || l.starts_with("pub static ") || l.starts_with("pub(crate) static "))
                        && kinds.iter().any(|k| l.contains(k))
                });
                if declares && !text.contains("gate::enter()") {
                    unguarded.push(path.display().to_string());
                }
            }
        }
        assert!(unguarded.is_empty(), "process-wide locks used outside the call gate in {unguarded:?}");
    }

    #[test]
    fn the_kept_process_id_is_asked_again_in_a_child_forked_without_handlers() {
        let parent = std::process::id();
        assert_eq!(process_id(), parent);
        assert!(!PID_PAGE.load(Relaxed).is_null(), "no MADV_WIPEONFORK page: every call asks the kernel");
        // A raw clone, as `_Fork` makes: no pthread_atfork handler runs,
        // so only the kernel's clearing of the page can tell the child.
        // SAFETY: the child only reads memory, makes system calls and
        // leaves with `_exit`.
        let child = unsafe { libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_long, 0, 0, 0, 0) };
        if child == 0 {
            // SAFETY: getpid and _exit are async-signal-safe.
            let own = unsafe { libc::getpid() } as u32;
            let right = process_id() == own && own != parent && process_id() == own;
            // SAFETY: leaving at once, running nothing of the parent's.
            unsafe { libc::_exit(if right { 0 } else { 1 }) };
        }
        assert!(child > 0, "clone failed");
        let mut status = 0;
        // SAFETY: waiting for our own child.
        assert_eq!(unsafe { libc::waitpid(child as libc::pid_t, &mut status, 0) }, child as libc::pid_t);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "the child saw its parent's id: {status:#x}"
        );
        assert_eq!(process_id(), parent, "the parent's is kept");
    }

    /// A call's worker threads reach process-wide state (the spare
    /// buffers) through the gate. A fork that closed the gate meanwhile
    /// waits for the call, and the call for its workers: they must get
    /// in, or all three wait for ever.
    #[test]
    fn a_calls_workers_get_in_while_a_fork_waits_for_the_call() {
        let (done, finished) = std::sync::mpsc::channel();
        let call = std::thread::spawn(move || {
            let _call = enter();
            crate::workers::run(2, || {
                while !FORKING.load(SeqCst) {
                    std::thread::sleep(POLL);
                }
                let _inside = enter();
            });
            done.send(()).unwrap();
        });
        let forker = std::thread::spawn(|| {
            before_fork();
            after_fork_in_parent();
        });
        if finished.recv_timeout(std::time::Duration::from_secs(20)).is_err() {
            // The gate stays closed: every other test would hang.
            eprintln!("a call's workers were kept out by the fork waiting for the call");
            std::process::abort();
        }
        call.join().unwrap();
        forker.join().unwrap();
    }

    #[test]
    fn forking_waits_for_calls_in_flight() {
        let inside = enter();
        let (tx, rx) = std::sync::mpsc::channel();
        let forker = std::thread::spawn(move || {
            before_fork();
            tx.send(()).unwrap();
            after_fork_in_parent();
        });
        assert!(rx.recv_timeout(std::time::Duration::from_millis(100)).is_err(), "the fork did not wait");
        drop(inside);
        rx.recv_timeout(std::time::Duration::from_secs(10)).expect("the fork never proceeded");
        forker.join().unwrap();
    }
}
