//! The table of open datasets, keyed by the netcdf-c id scheme: a
//! dataset's external id in the high 16 bits of an ncid, a group id in the
//! low 16 bits.
//!
//! Locks: the table's, held only to find or change an entry, and one per
//! dataset, held while a call works on it. Every function here enters the
//! call gate first ([`crate::gate`]), so neither is ever held across a
//! `fork`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::dataset::{Dataset, lock};
use crate::error::{NcError, NcResult};
use crate::gate;

const GROUP_BITS: u32 = 16;
const GROUP_MASK: i32 = 0xFFFF;
/// Dataset slots 1..=MAX_SLOT keep every ncid positive.
const MAX_SLOT: i32 = 0x7FFF;

/// An open dataset, shared by the calls that use it.
pub type Shared = Arc<Mutex<Dataset>>;

static OPEN: Mutex<BTreeMap<i32, Shared>> = Mutex::new(BTreeMap::new());

fn table(_inside: &gate::Inside) -> NcResult<MutexGuard<'static, BTreeMap<i32, Shared>>> {
    OPEN.lock().map_err(|_| NcError::EINTERNAL)
}

/// Register a dataset and return the ncid of its root group. Freed slots
/// are reused, lowest first, as netcdf-c does.
pub fn insert(mut ds: Dataset) -> NcResult<i32> {
    let inside = gate::enter();
    let mut t = table(&inside)?;
    let slot = (1..=MAX_SLOT).find(|s| !t.contains_key(s)).ok_or(NcError::ENFILE)?;
    ds.model.ext_ncid = slot << GROUP_BITS;
    t.insert(slot, Arc::new(Mutex::new(ds)));
    Ok(slot << GROUP_BITS)
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
    let ds = t.get(&(ncid >> GROUP_BITS)).ok_or(NcError::EBADID)?;
    Ok((Arc::clone(ds), (ncid & GROUP_MASK) as usize))
}

/// Run `f` on the dataset and group an ncid names.
pub fn with<R>(ncid: i32, f: impl FnOnce(&mut Dataset, usize) -> NcResult<R>) -> NcResult<R> {
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
