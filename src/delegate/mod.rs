//! The delegate: an installed netcdf-c, loaded beside us on the first
//! dataset that is not Zarr (`.nc` files of every netcdf-c format, DAP
//! URLs, in-memory datasets), which then serves every call about that
//! dataset. It is a sibling of the NCZarr engine: the registry records
//! which of the two serves an ncid, and the generated router
//! (src/capi/route.rs) sends each call there.
//!
//! netcdf-c is not thread-safe, so calls into it are serialised by one
//! lock, taken inside the call gate (so never held across a `fork`), and
//! re-entrant (a delegate call that comes back into our entry points on
//! the same thread does not wait for itself).

mod hdf5_globals;
mod loader;
pub mod remote;
mod table;

use std::cell::Cell;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, Ordering};

pub use loader::ENV;
pub use table::Table;

use crate::error::{NcError, NcResult};
use crate::gate;
use crate::zmap::trace;

/// NC_ENOTBUILT: what a call the delegate lacks answers.
const ENOTBUILT: c_int = -128;

/// This thread holds [`CALLS`] while one lives (cleared however the call
/// ends).
struct Holding;

impl Holding {
    fn set() -> Holding {
        HOLDING.set(true);
        Holding
    }
}

impl Drop for Holding {
    fn drop(&mut self) {
        HOLDING.set(false);
    }
}

/// The loaded netcdf-c.
pub struct Delegate {
    pub table: Table,
    /// The file it was loaded from.
    pub path: PathBuf,
    handle: loader::Handle,
    /// HDF5's `H5Eset_auto2`, when the delegate has HDF5 (see
    /// [`Delegate::with`]).
    hdf5_set_auto: Option<SetAuto>,
}

/// `herr_t H5Eset_auto2(hid_t estack, H5E_auto2_t func, void *data)`.
type SetAuto = unsafe extern "C" fn(i64, *const c_void, *mut c_void) -> c_int;

/// Where the search stands: done at most once per process.
enum State {
    NotTried,
    Missing(String),
    Loaded(&'static Delegate),
}

static STATE: Mutex<State> = Mutex::new(State::NotTried);
/// The delegate once loaded (never unloaded): read on every routed call
/// while a dataset of its is open, so an atomic, not [`STATE`]'s lock.
static LOADED: AtomicPtr<Delegate> = AtomicPtr::new(std::ptr::null_mut());
/// Serialises calls into the delegate (see the module's comment).
static CALLS: Mutex<()> = Mutex::new(());

thread_local! {
    /// This thread holds [`CALLS`] (a plain `Cell`: no destructor).
    static HOLDING: Cell<bool> = const { Cell::new(false) };
    /// HDF5's error printing is off on this thread.
    static HDF5_QUIET: Cell<bool> = const { Cell::new(false) };
}

/// The delegate, loading it on first use; NC_ENOTBUILT, with the reason
/// in the log and trace, when there is none.
pub fn get() -> NcResult<&'static Delegate> {
    let _inside = gate::enter();
    let mut state = STATE.lock().map_err(|_| NcError::EINTERNAL)?;
    if let State::NotTried = *state {
        *state = match loader::load() {
            Ok((handle, path)) => {
                let table = Table::load(&handle);
                let synced = hdf5_globals::sync(&handle);
                if synced > 0 {
                    trace::log(1, format_args!("HDF5 ids the program holds copies of, shared: {synced}"));
                }
                let hdf5_set_auto = handle.function(c"H5Eset_auto2");
                let delegate: &'static Delegate = Box::leak(Box::new(Delegate { table, path, handle, hdf5_set_auto }));
                trace::log(1, format_args!("netcdf-c for other formats: {}", delegate.path.display()));
                settings::replay(delegate);
                LOADED.store(delegate as *const Delegate as *mut Delegate, Ordering::Release);
                State::Loaded(delegate)
            }
            Err(why) => {
                // Said once, on the log channel (nclog: NCLOGGING, or
                // `ncdump -L`), as nc_strerror cannot carry it.
                let message = format!("no netcdf-c to serve datasets that are not Zarr: {why}");
                if let Some(line) = crate::compat::nclog::log_line(crate::compat::nclog::NCLOGWARN, message.as_bytes())
                {
                    eprint!("{}", String::from_utf8_lossy(&line));
                }
                State::Missing(why)
            }
        };
    }
    match &*state {
        State::Loaded(d) => Ok(d),
        State::Missing(why) => {
            trace::log(1, format_args!("no netcdf-c to serve this dataset: {why}"));
            Err(NcError::ENOTBUILT)
        }
        State::NotTried => Err(NcError::EINTERNAL),
    }
}

/// The delegate if it is loaded; never loads it.
pub fn loaded() -> Option<&'static Delegate> {
    // SAFETY: LOADED is null or a leaked Box that is never freed.
    unsafe { LOADED.load(Ordering::Acquire).as_ref() }
}

impl Delegate {
    /// Run `f` on the delegate's functions, inside the gate and the
    /// delegate's lock; a function it lacks (`None`) is NC_ENOTBUILT, and
    /// a panic on our side NC_EINTERNAL (none crosses the C boundary).
    pub fn call(&self, f: impl FnOnce(&Table) -> Option<c_int>) -> c_int {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.with(|t| f(t).unwrap_or(ENOTBUILT))))
            .unwrap_or(crate::error::code::NC_EINTERNAL)
    }

    /// Run `f` inside the gate and the delegate's lock.
    pub fn with<R>(&self, f: impl FnOnce(&Table) -> R) -> R {
        let _inside = gate::enter();
        if HOLDING.get() {
            return f(&self.table);
        }
        // A poisoned lock only means a panic on our side of a call; the
        // lock guards no data of ours.
        let _held = CALLS.lock().unwrap_or_else(|e| e.into_inner());
        let _holding = Holding::set();
        // netcdf-c turns HDF5's error printing off when it starts, but a
        // thread-safe HDF5 keeps that setting per thread: without this,
        // calls from the program's other threads print HDF5's error stack
        // for every attribute netcdf-c probes for.
        if let Some(set_auto) = self.hdf5_set_auto
            && !HDF5_QUIET.replace(true)
        {
            // SAFETY: HDF5's prototype; H5E_DEFAULT (0) and no handler.
            unsafe { set_auto(0, std::ptr::null(), std::ptr::null_mut()) };
        }
        f(&self.table)
    }

    /// The delegate's `nc_inq_libvers`.
    pub fn version(&self) -> String {
        // SAFETY: nc_inq_libvers takes nothing and returns a static string.
        let text = self.with(|t| t.nc_inq_libvers.map(|f| c_text(unsafe { f() })));
        text.unwrap_or_default()
    }

    /// A symbol of the delegate or of a library it depends on (HDF5's).
    pub fn symbol(&self, name: &CStr) -> *mut c_void {
        self.handle.symbol(name)
    }
}

/// Copy a C string the delegate returned (NULL is "").
fn c_text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: netcdf-c returns NUL-terminated static strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

pub mod settings;

/// Mode flags only netcdf-c's own formats honour (user formats, diskless
/// and in-memory files, the classic variants).
const NETCDF_C_FLAGS: c_int = 0x0040 | 0x0080 | 0x0008 | 0x8000 | 0x0010 | 0x0200 | 0x0020;

/// Does the delegate serve the dataset named `path`? Names that are not
/// Zarr: plain paths to files (every format netcdf-c detects), plain
/// paths given to create (netcdf-c creates a classic or netCDF-4 file
/// there), and URLs with no Zarr mode (DAP, `file://` without a mode),
/// which our parser reports as not built. Directories and Zarr URLs are
/// ours. A dataset in memory is named as if created (the name is only a
/// name).
pub fn claims(path: &str, mode: c_int, creating: bool) -> bool {
    match crate::url::parse(path) {
        Ok(url) if url.bare_path => {
            creating || mode & NETCDF_C_FLAGS != 0 || std::fs::metadata(path).is_ok_and(|m| m.is_file())
        }
        Ok(_) => false,
        Err(e) => e == NcError::ENOTBUILT,
    }
}

/// The version of the HDF5 library the delegate uses, loading the
/// delegate if need be; None without one (or one built without HDF5).
pub fn hdf5_version() -> Option<(u32, u32, u32)> {
    type GetVersion = unsafe extern "C" fn(*mut u32, *mut u32, *mut u32) -> c_int;
    let d = get().ok()?;
    let f: GetVersion = d.handle.function(c"H5get_libversion")?;
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: HDF5's prototype; three writable unsigneds.
    let status = d.with(|_| unsafe { f(&mut a, &mut b, &mut c) });
    (status >= 0).then_some((a, b, c))
}
