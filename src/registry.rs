//! The table of open datasets, keyed by the netcdf-c id scheme: a
//! dataset's external id in the high 16 bits of an ncid, a group id in the
//! low 16 bits.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use crate::dataset::Dataset;
use crate::error::{NcError, NcResult};

const GROUP_BITS: u32 = 16;
const GROUP_MASK: i32 = 0xFFFF;
/// Dataset slots 1..=MAX_SLOT keep every ncid positive.
const MAX_SLOT: i32 = 0x7FFF;

type Shared = Arc<Mutex<Dataset>>;

static OPEN: LazyLock<Mutex<BTreeMap<i32, Shared>>> = LazyLock::new(|| Mutex::new(BTreeMap::new()));

fn table() -> NcResult<MutexGuard<'static, BTreeMap<i32, Shared>>> {
    OPEN.lock().map_err(|_| NcError::EINTERNAL)
}

/// Register a dataset and return the ncid of its root group. Freed slots
/// are reused, lowest first, as netcdf-c does.
pub fn insert(mut ds: Dataset) -> NcResult<i32> {
    let mut t = table()?;
    let slot = (1..=MAX_SLOT).find(|s| !t.contains_key(s)).ok_or(NcError::ENFILE)?;
    ds.model.ext_ncid = slot << GROUP_BITS;
    t.insert(slot, Arc::new(Mutex::new(ds)));
    Ok(slot << GROUP_BITS)
}

pub fn ncid_of(slot_ncid: i32, group: usize) -> i32 {
    (slot_ncid & !GROUP_MASK) | group as i32
}

fn lookup(ncid: i32) -> NcResult<(Shared, usize)> {
    let t = table()?;
    let ds = t.get(&(ncid >> GROUP_BITS)).ok_or(NcError::EBADID)?;
    Ok((Arc::clone(ds), (ncid & GROUP_MASK) as usize))
}

/// Run `f` on the dataset and group an ncid names.
pub fn with<R>(ncid: i32, f: impl FnOnce(&mut Dataset, usize) -> NcResult<R>) -> NcResult<R> {
    let (ds, grp) = lookup(ncid)?;
    // A poisoned lock means an earlier call panicked half-way; its state
    // cannot be trusted.
    let mut guard = ds.lock().map_err(|_| NcError::EINTERNAL)?;
    if grp >= guard.model.groups.len() {
        return Err(NcError::EBADID);
    }
    f(&mut guard, grp)
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
    let (ds, grp) = lookup(ncid)?;
    let result = match ds.lock() {
        Ok(guard) if grp >= guard.model.groups.len() => return Err(NcError::EBADID),
        Ok(mut guard) => finish(&mut guard),
        Err(_) => Err(NcError::EINTERNAL),
    };
    if result.is_ok() || always_remove {
        table()?.remove(&(ncid >> GROUP_BITS));
    }
    result
}
