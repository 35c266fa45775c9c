//! Process-wide settings reach both libraries: each setter of ours tells
//! [`changed`] the value it accepted; it is passed on at once when the
//! delegate is loaded, and remembered so that a delegate loaded later
//! starts with the program's settings (the latest value of each kind, in
//! the order they were first made).

use std::ffi::{CString, c_char, c_int, c_void};
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
    /// `nc_def_user_format`: the program's dispatch table (an address)
    /// and magic number (NUL-padded).
    UserFormat {
        flag: c_int,
        table: usize,
        magic: Option<[u8; 8]>,
    },
}

impl Setting {
    /// Settings of one kind replace each other (rc entries per key).
    fn same_kind(&self, other: &Setting) -> bool {
        match (self, other) {
            (Setting::Rc { key: a, .. }, Setting::Rc { key: b, .. }) => a == b,
            (Setting::UserFormat { flag: a, .. }, Setting::UserFormat { flag: b, .. }) => a == b,
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
                Setting::UserFormat { flag, table, magic } => {
                    // NUL-terminated for netcdf-c's strncpy.
                    let mut text = [0 as c_char; 9];
                    if let Some(m) = magic {
                        text.iter_mut().zip(m).for_each(|(t, b)| *t = *b as c_char);
                    }
                    let magic_ptr = if magic.is_some() { text.as_mut_ptr() } else { std::ptr::null_mut() };
                    // SAFETY: the program's dispatch table, which lives as
                    // long as it uses the format, and a magic number that
                    // outlives the call.
                    t.nc_def_user_format.map(|def| unsafe { def(*flag, *table as *mut c_void, magic_ptr) });
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
