//! The table of open datasets, keyed by the netcdf-c id scheme: a
//! dataset's external id in the high 16 bits of an ncid, a group id in the
//! low 16 bits.
//!
//! A dataset is served by this library (an NCZarr/Zarr store) or by the
//! delegate (src/delegate: a netcdf-c beside us), whose own ncid for it
//! the table keeps; [`route`] says which, for the generated router. One
//! id space: a program cannot tell the two apart.
//!
//! Locks: the table's, held only to find or change an entry, and one per
//! dataset, held while a call works on it. Every function here enters the
//! call gate first ([`crate::gate`]), so neither is ever held across a
//! `fork`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::dataset::{Dataset, lock};
use crate::delegate::remote::Remote;
use crate::error::{NcError, NcResult};
use crate::gate;

const GROUP_BITS: u32 = 16;
const GROUP_MASK: i32 = 0xFFFF;
/// Dataset slots 1..=MAX_SLOT keep every ncid positive.
const MAX_SLOT: i32 = 0x7FFF;

/// An open dataset, shared by the calls that use it.
pub type Shared = Arc<Mutex<Dataset>>;

/// Who serves an open dataset.
enum Entry {
    Ours(Shared),
    /// The delegate, under its own root ncid; a file on S3 or a web server
    /// also keeps where it came from (and the image the delegate reads).
    Theirs(i32, Option<Box<Remote>>),
}

static OPEN: Mutex<BTreeMap<i32, Entry>> = Mutex::new(BTreeMap::new());
/// Datasets the delegate serves now: while there are none, routing is one
/// atomic load.
static THEIRS_OPEN: AtomicUsize = AtomicUsize::new(0);

fn table(_inside: &gate::Inside) -> NcResult<MutexGuard<'static, BTreeMap<i32, Entry>>> {
    OPEN.lock().map_err(|_| NcError::EINTERNAL)
}

/// Take the lowest free slot (netcdf-c reuses freed ids lowest first).
fn free_slot(t: &BTreeMap<i32, Entry>) -> NcResult<i32> {
    (1..=MAX_SLOT).find(|s| !t.contains_key(s)).ok_or(NcError::ENFILE)
}

/// Register a dataset and return the ncid of its root group.
pub fn insert(mut ds: Dataset) -> NcResult<i32> {
    let inside = gate::enter();
    let mut t = table(&inside)?;
    let slot = free_slot(&t)?;
    ds.model.ext_ncid = slot << GROUP_BITS;
    t.insert(slot, Entry::Ours(Arc::new(Mutex::new(ds))));
    Ok(slot << GROUP_BITS)
}

/// Register a dataset the delegate opened under its root ncid `theirs`
/// (from `remote`, for a file on S3 or a web server); return our ncid.
pub fn insert_theirs(theirs: i32, remote: Option<Remote>) -> NcResult<i32> {
    let inside = gate::enter();
    let mut t = table(&inside)?;
    let slot = free_slot(&t)?;
    t.insert(slot, Entry::Theirs(theirs & !GROUP_MASK, remote.map(Box::new)));
    THEIRS_OPEN.fetch_add(1, SeqCst);
    Ok(slot << GROUP_BITS)
}

/// Forget a dataset the delegate closed, giving back its remote file.
pub fn forget_theirs(ncid: i32) -> Option<Box<Remote>> {
    let inside = gate::enter();
    let mut t = table(&inside).ok()?;
    match t.remove(&(ncid >> GROUP_BITS)) {
        Some(Entry::Theirs(_, remote)) => {
            THEIRS_OPEN.fetch_sub(1, SeqCst);
            remote
        }
        Some(ours) => {
            t.insert(ncid >> GROUP_BITS, ours);
            None
        }
        None => None,
    }
}

/// The URL a dataset the delegate serves from S3 or a web server was
/// opened by (the delegate knows it by a plain name).
pub fn remote_url(ncid: i32) -> Option<String> {
    let inside = gate::enter();
    let t = table(&inside).ok()?;
    match t.get(&(ncid >> GROUP_BITS)) {
        Some(Entry::Theirs(_, Some(remote))) => Some(remote.url.clone()),
        _ => None,
    }
}

/// Which library serves an ncid.
pub enum Route {
    /// This library (also for ids that name nothing: ours answers
    /// NC_EBADID as netcdf-c does).
    Ours,
    Theirs(Delegated),
}

/// A group of a dataset the delegate serves.
#[derive(Clone, Copy)]
pub struct Delegated {
    pub lib: &'static crate::delegate::Delegate,
    /// The delegate's ncid for the group.
    pub ncid: i32,
    /// Ours for the dataset's root group.
    pub our_root: i32,
    /// A remote file whose final image is uploaded at close.
    pub write_back: bool,
}

impl Delegated {
    /// Run `f` on the delegate's functions (see [`crate::delegate::Delegate::call`]).
    pub fn call(&self, f: impl FnOnce(&crate::delegate::Table) -> Option<i32>) -> i32 {
        self.lib.call(f)
    }

    /// Our ncid for a group id the delegate gave for this dataset.
    pub fn ours(&self, theirs: i32) -> i32 {
        self.our_root | (theirs & GROUP_MASK)
    }
}

/// Which library serves `ncid`.
pub fn route(ncid: i32) -> Route {
    if THEIRS_OPEN.load(SeqCst) == 0 {
        return Route::Ours;
    }
    let inside = gate::enter();
    let Ok(t) = table(&inside) else { return Route::Ours };
    match (t.get(&(ncid >> GROUP_BITS)), crate::delegate::loaded()) {
        (Some(Entry::Theirs(root, remote)), Some(lib)) => Route::Theirs(Delegated {
            lib,
            ncid: root | (ncid & GROUP_MASK),
            our_root: ncid & !GROUP_MASK,
            write_back: remote.as_ref().is_some_and(|r| r.write_back),
        }),
        _ => Route::Ours,
    }
}

pub fn ncid_of(slot_ncid: i32, group: usize) -> i32 {
    (slot_ncid & !GROUP_MASK) | group as i32
}

fn lookup(inside: &gate::Inside, ncid: i32) -> NcResult<(Shared, usize)> {
    // A filter plugin being set up for a variable of this dataset, asking
    // what its snapshot (codec/callback.rs) does not hold: this thread
    // holds the dataset's lock, so waiting for it would never end.
    if crate::codec::callback::setting_up().is_some_and(|held| held >> GROUP_BITS == ncid >> GROUP_BITS) {
        return Err(NcError::EINVAL);
    }
    let t = table(inside)?;
    match t.get(&(ncid >> GROUP_BITS)) {
        Some(Entry::Ours(ds)) => Ok((Arc::clone(ds), (ncid & GROUP_MASK) as usize)),
        // Reached only by calls not routed (an internal one that should
        // have gone through src/capi/route.rs).
        Some(Entry::Theirs(..)) | None => Err(NcError::EBADID),
    }
}

/// Run `f` on the dataset and group an ncid names.
pub fn with<R>(ncid: i32, f: impl FnOnce(&mut Dataset, usize) -> NcResult<R>) -> NcResult<R> {
    with_locked(ncid, lock, f)
}

/// [`with`] for a data write: chunks an earlier write handed on may still
/// be in flight (`io::write_behind`); the write waits for those it
/// touches.
pub fn with_writing<R>(ncid: i32, f: impl FnOnce(&mut Dataset, usize) -> NcResult<R>) -> NcResult<R> {
    with_locked(ncid, crate::dataset::lock_for_write, f)
}

fn with_locked<R>(
    ncid: i32,
    lock: for<'a> fn(&'a Mutex<Dataset>) -> NcResult<MutexGuard<'a, Dataset>>,
    f: impl FnOnce(&mut Dataset, usize) -> NcResult<R>,
) -> NcResult<R> {
    let inside = gate::enter();
    let (ds, grp) = lookup(&inside, ncid)?;
    let mut guard = lock(&ds)?;
    if grp >= guard.model.groups.len() {
        return Err(NcError::EBADID);
    }
    f(&mut guard, grp)
}

/// The dataset and group an ncid names, for calls that lock the dataset
/// only for parts of their work (reads decode chunks unlocked). Call
/// inside the gate (a C entry point's `guard`) and lock with
/// [`crate::dataset::lock`].
pub fn shared(ncid: i32) -> NcResult<(Shared, usize)> {
    let inside = gate::enter();
    let (ds, grp) = lookup(&inside, ncid)?;
    if grp >= lock(&ds)?.model.groups.len() {
        return Err(NcError::EBADID);
    }
    Ok((ds, grp))
}

/// NC_NOERR if `ncid` names an open dataset's group, else NC_EBADID: the
/// first check of netcdf-c's dispatch layer (`NC_check_id`), for calls
/// whose answer does not depend on the dataset.
pub fn check(ncid: i32) -> NcResult<()> {
    with(ncid, |_, _| Ok(()))
}

/// Finish and forget a dataset (`nc_close`, `nc_abort`); any group ncid
/// of it will do. As in netcdf-c, a dataset whose `finish` fails stays
/// open unless `always_remove` is set, so the caller may retry or abort.
pub fn remove(ncid: i32, always_remove: bool, finish: impl FnOnce(&mut Dataset) -> NcResult<()>) -> NcResult<()> {
    let inside = gate::enter();
    let (ds, grp) = lookup(&inside, ncid)?;
    let result = {
        let mut guard = lock(&ds)?;
        if grp >= guard.model.groups.len() {
            return Err(NcError::EBADID);
        }
        finish(&mut guard)
    };
    if result.is_ok() || always_remove {
        table(&inside)?.remove(&(ncid >> GROUP_BITS));
    }
    result
}
