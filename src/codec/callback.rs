//! What a plugin may ask about the variable it is being set up for.
//!
//! A plugin's `NCZ_modify_parameters` calls back into `nc_inq_var`,
//! `nc_inq_type` and `nc_inq_var_chunking` while the library holds that
//! dataset's lock (it is building the variable's filter chain). Those
//! calls are answered on the same thread from a snapshot of the variable
//! set here, so they neither deadlock nor alias the locked dataset.

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
