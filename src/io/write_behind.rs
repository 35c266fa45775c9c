//! Write-behind: the chunks a write completed, stored on a thread of their
//! own while the caller goes on.
//!
//! A program writing one time step per call completes a band of chunks
//! every so many calls, and storing the band (encoding it, writing it to
//! the page cache or a server) is most of what those calls cost. Stored
//! in the call, the caller waits for it; handed to a storer thread, it
//! runs on another core while the caller makes its next values.
//!
//! The rules that keep this invisible to the caller:
//! - **The caller keeps a core.** On local storage the storer works on
//!   one thread fewer than the machine has cores, so that the caller's
//!   own work (making its next values, copying them in) goes on beside
//!   it; on a remote store it keeps the store's requests in flight.
//! - **One hand-off in flight per dataset.** Handing on a batch first
//!   waits for the one before, so what is in flight is one batch of a
//!   write (no more than the variable's cache holds). A call that waits
//!   for the storer on local storage helps it: it stores what the storer
//!   has not begun, so that the work has every core.
//! - **Settled before anything else looks.** Every call on the dataset
//!   other than a write waits for the storer first (`dataset::lock`), and
//!   a write waits when it touches a chunk in flight. A read, a commit,
//!   `nc_sync`, `nc_close`, `nc_redef` all find the chunks stored, and
//!   no two writers ever store one chunk at once.
//! - **Nothing lost.** When storing fails, the chunks go back into the
//!   variable's cache, dirty: the next eviction, `nc_sync` or `nc_close`
//!   stores them again and reports what fails then, as for any chunk.
//! - **fork.** The storer counts as inside the call gate until its work
//!   is done, so a fork waits for it as for a call, and then joins it
//!   (`gate::spawn_outliving`). A forked child never waits for its
//!   parent's storer: it takes the chunks that were in flight into its
//!   caches, clean, and reads them as its parent had them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

use super::cache::DirtyChunk;
use super::chunk_io::{store_all, store_chunk};
use super::engine::cache_for;
use super::layout::VarLayout;
use crate::dataset::Dataset;
use crate::error::NcResult;
use crate::zmap::Zmap;

/// A batch of chunks being stored by a storer thread.
pub struct InFlight {
    /// The variable's (group, variable id).
    var: (usize, usize),
    job: Arc<Job>,
    /// The storer (`gate::join_outliving`).
    storer: u64,
    /// The process that started it: a forked child has no such thread.
    owner_pid: u32,
}

/// What a storer works on: chunks that no one changes until it is joined,
/// each stored by whichever thread claims it first. No lock, so a fork
/// copies nothing half-held (it waits for the work anyway).
struct Job {
    store: Arc<dyn Zmap>,
    layout: VarLayout,
    chunks: Vec<DirtyChunk>,
    /// Chunk k has been taken by a thread to store.
    claimed: Vec<AtomicBool>,
    /// Chunk k is not known to be stored: set when it is claimed, cleared
    /// once stored (a store that failed, or panicked, leaves it set).
    unstored: Vec<AtomicBool>,
    /// A store failed: the chunks not begun are left unstored (the next
    /// commit stores them and reports what fails then).
    gave_up: AtomicBool,
}

impl Job {
    /// Store every chunk no thread has claimed yet, on up to `threads`.
    fn work(&self, threads: usize) {
        let all: Vec<usize> = (0..self.chunks.len()).collect();
        // Items never fail (failures are kept in `unstored`), so the map
        // never stops early; a panic it catches leaves its chunk unstored.
        let _ = crate::workers::map(&all, threads, |&k| {
            if self.claimed[k].swap(true, SeqCst) {
                return Ok(());
            }
            self.unstored[k].store(true, SeqCst);
            if self.gave_up.load(SeqCst) {
                return Ok(());
            }
            let (idx, data) = &self.chunks[k];
            match store_chunk(self.store.as_ref(), &self.layout, idx, data) {
                Ok(()) => self.unstored[k].store(false, SeqCst),
                Err(_) => self.gave_up.store(true, SeqCst),
            }
            Ok(())
        });
    }
}

impl InFlight {
    /// Is one of these chunks of this variable in flight?
    pub fn holds_any<'a>(&self, var: (usize, usize), mut idxs: impl Iterator<Item = &'a [usize]>) -> bool {
        var == self.var && idxs.any(|idx| self.job.chunks.iter().any(|(held, _)| held == idx))
    }
}

/// Can chunks of this layout be handed on? Not a shard's inner chunks (a
/// shard is rewritten whole, read first: two writers of one shard would
/// lose each other's chunks) nor variable-length strings.
pub fn can_hand_on(layout: &VarLayout) -> bool {
    layout.shards.is_none() && !layout.text.is_vlen()
}

/// Threads a storer uses: on local storage one fewer than the cores (the
/// caller keeps one), on a remote store its requests in flight.
fn storer_threads(store: &dyn Zmap) -> usize {
    let cpus = crate::zmap::cpus();
    if store.concurrency() > cpus { store.concurrency() } else { cpus.saturating_sub(1).max(1) }
}

/// Store `chunks` (whole chunks of the variable `var`, out of its cache)
/// on a storer thread, after waiting for the dataset's previous one;
/// stored in the call instead when no thread can be started.
pub fn hand_on(ds: &mut Dataset, var: (usize, usize), layout: &VarLayout, chunks: Vec<DirtyChunk>) -> NcResult<()> {
    if chunks.is_empty() {
        return Ok(());
    }
    settle(ds)?;
    let flags = || chunks.iter().map(|_| AtomicBool::new(false)).collect();
    let job = Arc::new(Job {
        store: Arc::clone(&ds.store),
        layout: layout.clone(),
        claimed: flags(),
        unstored: flags(),
        gave_up: AtomicBool::new(false),
        chunks,
    });
    let work = Arc::clone(&job);
    let threads = storer_threads(ds.store.as_ref());
    match crate::gate::spawn_outliving("nczarr-rs store", move || work.work(threads)) {
        Ok(storer) => {
            ds.in_flight = Some(InFlight { var, job, storer, owner_pid: crate::gate::process_id() });
            Ok(())
        }
        Err(_) => {
            let chunks = Arc::try_unwrap(job).map(|job| job.chunks).unwrap_or_default();
            store_all(ds.store.as_ref(), layout, chunks)
        }
    }
}

/// Wait for the dataset's storer, if it has one, storing beside it what
/// it has not begun: then its chunks are stored, or back in the
/// variable's cache, dirty, where storing them failed (the error comes
/// from storing them again later). Fails only when making room for them
/// in the cache fails to store what it evicts.
pub fn settle(ds: &mut Dataset) -> NcResult<()> {
    let Some(flight) = ds.in_flight.take() else { return Ok(()) };
    // With the storer's threads, as many as the store's concurrency (on
    // a remote store, the storer has them all: its requests stay bounded).
    let helpers = ds.store.concurrency().saturating_sub(storer_threads(ds.store.as_ref()));
    if helpers > 0 {
        flight.job.work(helpers);
    }
    crate::gate::join_outliving(flight.storer);
    let (var, job) = (flight.var, Arc::clone(&flight.job));
    drop(flight);
    let mut unstored = Vec::new();
    match Arc::try_unwrap(job) {
        // The storer's reference went with it: the chunks are ours again.
        Ok(job) => {
            for ((idx, data), failed) in job.chunks.into_iter().zip(&job.unstored) {
                if failed.load(SeqCst) {
                    unstored.push((idx, data));
                } else {
                    crate::buffers::recycle(data);
                }
            }
        }
        // Should another reference remain, what was not stored is kept
        // all the same, copied.
        Err(job) => unstored.extend(
            job.chunks.iter().zip(&job.unstored).filter(|(_, failed)| failed.load(SeqCst)).map(|(c, _)| c.clone()),
        ),
    }
    if unstored.is_empty() {
        return Ok(());
    }
    let (grp, varid) = var;
    let layout = VarLayout::of(&ds.model, grp, varid as i32)?;
    let cache = cache_for(ds, grp, varid as i32);
    let mut evicted = Vec::new();
    for (idx, data) in unstored {
        evicted.extend(cache.insert(idx, data, true));
    }
    store_all(ds.store.as_ref(), &layout, evicted)
}

/// In a forked child: the chunks its parent had in flight, into the
/// caches as clean copies (the child never writes them; its parent
/// does), so that the child reads them as its parent had them.
pub fn inherit(ds: &mut Dataset) {
    let Some(flight) = ds.in_flight.take() else { return };
    if flight.owner_pid == crate::gate::process_id() {
        ds.in_flight = Some(flight);
        return;
    }
    let (grp, varid) = flight.var;
    let cache = cache_for(ds, grp, varid as i32);
    for (idx, data) in &flight.job.chunks {
        drop(cache.insert(idx.clone(), data.clone(), false));
    }
}

impl Drop for InFlight {
    /// Waits for the storer (at once when `settle` has): a dataset
    /// dropped without being settled leaves no thread working after it.
    fn drop(&mut self) {
        if self.owner_pid == crate::gate::process_id() {
            let _inside = crate::gate::enter();
            crate::gate::join_outliving(self.storer);
        }
    }
}
