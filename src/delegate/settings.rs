//! Process-wide settings reach both libraries: each setter of ours tells
//! [`changed`] the value it accepted; it is passed on at once when the
//! delegate is loaded, and remembered so that a delegate loaded later
//! starts with the program's settings (the latest value of each kind, in
//! the order they were first made).

use std::ffi::{CString, c_int};
use std::sync::Mutex;

use super::{Delegate, loaded};
use crate::gate;

/// A setting a program makes for the whole process.
#[derive(Clone, Debug, PartialEq)]
pub enum Setting {
    DefaultFormat(c_int),
    ChunkCache {
        size: usize,
        nelems: usize,
        preemption: f32,
    },
    Alignment {
        threshold: c_int,
        alignment: c_int,
    },
    LogLevel(c_int),
    /// `nc_rc_set(key, value)`.
    Rc {
        key: String,
        value: String,
    },
}

impl Setting {
    /// Settings of one kind replace each other (rc entries per key).
    fn same_kind(&self, other: &Setting) -> bool {
        match (self, other) {
            (Setting::Rc { key: a, .. }, Setting::Rc { key: b, .. }) => a == b,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }

    /// Apply it in the delegate (inside its lock). A delegate that lacks
    /// the call, or refuses the value, keeps its own.
    fn apply(&self, d: &Delegate) {
        d.with(|t| {
            match self {
                Setting::DefaultFormat(f) => {
                    // SAFETY: plain values (C strings that outlive the call); a NULL
                    // out-pointer, which netcdf-c allows.
                    t.nc_set_default_format.map(|set| unsafe { set(*f, std::ptr::null_mut()) });
                }
                Setting::ChunkCache { size, nelems, preemption } => {
                    // SAFETY: plain values (C strings that outlive the call); a NULL
                    // out-pointer, which netcdf-c allows.
                    t.nc_set_chunk_cache.map(|set| unsafe { set(*size, *nelems, *preemption) });
                }
                Setting::Alignment { threshold, alignment } => {
                    // SAFETY: plain values (C strings that outlive the call); a NULL
                    // out-pointer, which netcdf-c allows.
                    t.nc_set_alignment.map(|set| unsafe { set(*threshold, *alignment) });
                }
                Setting::LogLevel(level) => {
                    // SAFETY: plain values (C strings that outlive the call); a NULL
                    // out-pointer, which netcdf-c allows.
                    t.nc_set_log_level.map(|set| unsafe { set(*level) });
                }
                Setting::Rc { key, value } => {
                    if let (Ok(k), Ok(v)) = (CString::new(key.as_str()), CString::new(value.as_str())) {
                        // SAFETY: plain values (C strings that outlive the call); a NULL
                        // out-pointer, which netcdf-c allows.
                        t.nc_rc_set.map(|set| unsafe { set(k.as_ptr(), v.as_ptr()) });
                    }
                }
            }
        });
    }
}

static MADE: Mutex<Vec<Setting>> = Mutex::new(Vec::new());

impl Setting {
    /// A setting of ours changed: remember it, and pass it on now if the
    /// delegate is loaded.
    pub fn tell_delegate(self) {
        changed(self)
    }
}

fn changed(setting: Setting) {
    {
        let _inside = gate::enter();
        let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
        match made.iter_mut().find(|s| s.same_kind(&setting)) {
            Some(s) => *s = setting.clone(),
            None => made.push(setting.clone()),
        }
    }
    if let Some(d) = loaded() {
        setting.apply(d);
    }
}

/// Give a newly loaded delegate every setting made so far.
pub(super) fn replay(d: &Delegate) {
    let made = {
        let _inside = gate::enter();
        MADE.lock().unwrap_or_else(|e| e.into_inner()).clone()
    };
    for s in made {
        s.apply(d);
    }
}
