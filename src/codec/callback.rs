//! What a plugin may ask about the variable it is being set up for.
//!
//! A plugin's `NCZ_modify_parameters` calls back into `nc_inq_var`,
//! `nc_inq_type`, `nc_inq_var_chunking`, `nc_inq_dimlen` and
//! `nc_inq_var_endian` (netcdf-c's szip plugin sizes its scanlines by the
//! dimensions and asks the byte order) while the library
//! holds that dataset's lock (it is building the variable's filter
//! chain). Those calls are answered on the same thread from a snapshot of
//! the variable set here, so they neither deadlock nor alias the locked
//! dataset; any other call about that dataset is refused
//! ([`setting_up`]) rather than wait for a lock its own thread
//! holds.

use std::cell::RefCell;

#[derive(Debug, Clone, Default)]
pub struct VarInfo {
    pub ncid: i32,
    pub varid: i32,
    pub name: String,
    pub xtype: i32,
    pub dimids: Vec<i32>,
    pub natts: i32,
    pub chunks: Vec<usize>,
    /// The variable's dimensions: id, name and length.
    pub dims: Vec<(i32, String, usize)>,
    /// As `nc_inq_var_endian` tells it (the szip plugin asks).
    pub endianness: i32,
}

thread_local! {
    static CURRENT: RefCell<Option<VarInfo>> = const { RefCell::new(None) };
}

/// Run `f` with `info` answerable to callbacks on this thread.
pub fn with_var<R>(info: VarInfo, f: impl FnOnce() -> R) -> R {
    let previous = CURRENT.with(|c| c.replace(Some(info)));
    let result = f();
    CURRENT.with(|c| *c.borrow_mut() = previous);
    result
}

/// The snapshot, if this thread is inside a plugin call about that variable.
pub fn lookup(ncid: i32, varid: i32) -> Option<VarInfo> {
    CURRENT.with(|c| c.borrow().as_ref().filter(|i| i.ncid == ncid && i.varid == varid).cloned())
}

/// Name and length of dimension `dimid`, if this thread is inside a
/// plugin call about a variable of group `ncid` that has it.
pub fn lookup_dim(ncid: i32, dimid: i32) -> Option<(String, usize)> {
    CURRENT.with(|c| {
        let info = c.borrow();
        let info = info.as_ref().filter(|i| i.ncid == ncid)?;
        info.dims.iter().find(|d| d.0 == dimid).map(|(_, name, len)| (name.clone(), *len))
    })
}

/// The group ncid of the variable this thread is inside a plugin call
/// about (its dataset's lock is held meanwhile), if any.
pub fn setting_up() -> Option<i32> {
    CURRENT.with(|c| c.borrow().as_ref().map(|i| i.ncid))
}
