//! Filter plugins loaded from `HDF5_PLUGIN_PATH`, under netcdf-c's
//! contract (FACTS.md sections 3.2-3.6): every shared library in the
//! listed directories is opened (RTLD_NOW | RTLD_GLOBAL, never closed);
//! `H5PLget_plugin_type`/`H5PLget_plugin_info` give the HDF5 half
//! (`H5Z_class2_t`), `NCZ_get_codec_info` the codec half (`NCZ_codec_t`),
//! `NCZ_codec_info_defaults` codec halves for several ids. Halves pair by
//! HDF5 id; the first library to register an id wins; only complete pairs
//! are usable. Scanning happens once, on first need.
//!
//! Built-in codecs win over plugins for the same filter unless
//! `NCZARR_RS_PREFER_PLUGINS=1` is set in the environment.

use std::collections::HashMap;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::sync::Mutex;

use crate::error::{NcError, NcResult};

type FilterFn = unsafe extern "C" fn(c_uint, usize, *const c_uint, usize, *mut usize, *mut *mut c_void) -> usize;

/// `H5Z_class2_t` (LP64 layout, 48 bytes).
#[repr(C)]
pub struct H5ZClass2 {
    version: c_int,
    id: c_int,
    encoder_present: c_uint,
    decoder_present: c_uint,
    name: *const c_char,
    can_apply: *const c_void,
    set_local: *const c_void,
    filter: Option<FilterFn>,
}

/// `NCZ_codec_t` (LP64 layout, 64 bytes).
#[repr(C)]
pub struct NczCodec {
    version: c_int,
    sort: c_int,
    codecid: *const c_char,
    hdf5id: c_uint,
    initialize: Option<unsafe extern "C" fn()>,
    finalize: Option<unsafe extern "C" fn()>,
    codec_to_hdf5: Option<unsafe extern "C" fn(*const c_char, *mut usize, *mut *mut c_uint) -> c_int>,
    hdf5_to_codec: Option<unsafe extern "C" fn(usize, *const c_uint, *mut *mut c_char) -> c_int>,
    modify_parameters:
        Option<unsafe extern "C" fn(c_int, c_int, *mut usize, *mut *mut c_uint, *mut usize, *mut *mut c_uint) -> c_int>,
}

const H5Z_CLASS_T_VERS: c_int = 1;
const NCZ_CODEC_CLASS_VER: c_int = 1;
const NCZ_CODEC_HDF5: c_int = 1;
const H5PL_TYPE_FILTER: c_int = 0;
pub const H5Z_FLAG_REVERSE: c_uint = 0x0100;

/// A complete plugin: both halves, pointing into a library kept loaded.
#[derive(Clone, Copy)]
pub struct Plugin {
    h5: *const H5ZClass2,
    codec: *const NczCodec,
}

// SAFETY: the pointers are to immutable static data in libraries that are
// never unloaded; plugins' functions are called as netcdf-c calls them.
unsafe impl Send for Plugin {}
// SAFETY: as for Send: nothing behind the pointers is ever written.
unsafe impl Sync for Plugin {}

pub struct Registry {
    complete: HashMap<u32, Plugin>,
    /// Ids with only one half: known but unusable (NC_ENOFILTER).
    incomplete: Vec<u32>,
    _libraries: Vec<libloading::os::unix::Library>,
}

/// The plugin search path and what a scan of it found.
struct Plugins {
    /// The directories to search; `None` until `nc_plugin_path_set` or the
    /// first need, which takes them from the environment.
    dirs: Option<Vec<String>>,
    /// The scan of the directories as they are now; `None` until needed,
    /// and again after the path changes (the next need rescans).
    scanned: Option<&'static Registry>,
    /// Every registry made: callers hold `&'static` ones while a rescan
    /// replaces them, so none is ever freed (they are tiny, and point into
    /// libraries that are never unloaded anyway).
    all: Vec<&'static Registry>,
    /// Codec halves whose `NCZ_codec_initialize` has run: once per
    /// process, however many scans find them.
    initialized: Vec<usize>,
}

static PLUGINS: Mutex<Plugins> =
    Mutex::new(Plugins { dirs: None, scanned: None, all: Vec::new(), initialized: Vec::new() });

/// Use the plugin state, inside the call gate so that a `fork` never
/// copies a scan half done or its lock held ([`crate::gate`]).
fn with_plugins<R>(f: impl FnOnce(&mut Plugins) -> R) -> R {
    let _inside = crate::gate::enter();
    let mut plugins = PLUGINS.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut plugins)
}

/// The plugins, scanned on first use (and after the path changes).
pub fn registry() -> &'static Registry {
    with_plugins(|p| {
        if let Some(reg) = p.scanned {
            return reg;
        }
        let dirs = p.dirs.get_or_insert_with(dirs_from_environment).clone();
        let reg: &'static Registry = Box::leak(Box::new(scan(&dirs, &mut p.initialized)));
        p.scanned = Some(reg);
        p.all.push(reg);
        reg
    })
}

/// The plugin directories (`nc_plugin_path_get`).
pub fn plugin_dirs() -> Vec<String> {
    with_plugins(|p| p.dirs.get_or_insert_with(dirs_from_environment).clone())
}

/// Replace the plugin directories (`nc_plugin_path_set`). Libraries
/// already loaded stay loaded; the next filter question scans the new
/// directories (netcdf-c scans once, so there a change after the first
/// use has no effect).
pub fn set_plugin_dirs(dirs: Vec<String>) {
    with_plugins(|p| {
        p.dirs = Some(dirs);
        p.scanned = None;
    });
}

/// Do plugins take precedence over built-in codecs?
pub fn prefer_plugins() -> bool {
    std::env::var("NCZARR_RS_PREFER_PLUGINS").is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))
}

/// The plugin directories the environment names: `HDF5_PLUGIN_PATH`
/// (`:`-separated), else netcdf-c's default.
fn dirs_from_environment() -> Vec<String> {
    match std::env::var("HDF5_PLUGIN_PATH") {
        Ok(p) if !p.is_empty() => p.split(':').filter(|d| !d.is_empty()).map(str::to_string).collect(),
        _ => vec!["/usr/local/hdf5/lib/plugin".to_string()],
    }
}

fn scan(dirs: &[String], initialized: &mut Vec<usize>) -> Registry {
    let mut h5: HashMap<u32, *const H5ZClass2> = HashMap::new();
    let mut codecs: HashMap<u32, *const NczCodec> = HashMap::new();
    let mut defaults: HashMap<u32, *const NczCodec> = HashMap::new();
    let mut libraries = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let is_library = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains(".so"));
            if !is_library {
                continue;
            }
            let flags = libc::RTLD_NOW | libc::RTLD_GLOBAL;
            // SAFETY: loading a library runs its initialisers; plugin
            // directories are trusted as they are by HDF5 and netcdf-c.
            let Ok(lib) = (unsafe { libloading::os::unix::Library::open(Some(&path), flags) }) else { continue };
            // SAFETY: a library just loaded, kept loaded if it registers.
            if unsafe { register(&lib, &mut h5, &mut codecs, &mut defaults) } {
                libraries.push(lib);
            }
        }
    }
    let mut complete = HashMap::new();
    let mut incomplete = Vec::new();
    for (&id, &class) in &h5 {
        match codecs.get(&id).or_else(|| defaults.get(&id)) {
            Some(&codec) => {
                complete.insert(id, Plugin { h5: class, codec });
            }
            None => incomplete.push(id),
        }
    }
    incomplete.extend(codecs.keys().filter(|id| !h5.contains_key(id)));
    for plugin in complete.values() {
        if initialized.contains(&(plugin.codec as usize)) {
            continue;
        }
        initialized.push(plugin.codec as usize);
        // SAFETY: a version-checked NCZ_codec_t from a loaded library.
        if let Some(init) = unsafe { (*plugin.codec).initialize } {
            // SAFETY: the plugin's initializer, called once, as netcdf-c does.
            unsafe { init() };
        }
    }
    Registry { complete, incomplete, _libraries: libraries }
}

/// Record what one library provides; true if it provided anything.
///
/// # Safety
/// `lib` must stay loaded while the recorded pointers are used; its
/// exported symbols must have the types netcdf-c's plugin contract gives
/// them (a plugin directory is trusted, as by HDF5 and netcdf-c).
unsafe fn register(
    lib: &libloading::os::unix::Library,
    h5: &mut HashMap<u32, *const H5ZClass2>,
    codecs: &mut HashMap<u32, *const NczCodec>,
    defaults: &mut HashMap<u32, *const NczCodec>,
) -> bool {
    type InfoFn = unsafe extern "C" fn() -> *const c_void;
    type TypeFn = unsafe extern "C" fn() -> c_int;
    let valid_codec = |c: *const NczCodec| {
        // SAFETY: a non-NULL NCZ_codec_t from the plugin; its first two
        // fields are read to check its version before anything else.
        !c.is_null() && unsafe { (*c).version == NCZ_CODEC_CLASS_VER && (*c).sort == NCZ_CODEC_HDF5 }
    };
    let mut found = false;
    // The symbols have the types of netcdf-c's plugin contract (this
    // function's contract); what they return is NULL or static data in
    // `lib`. That is the "contract" of the SAFETY comments below.
    // SAFETY: contract.
    if let Ok(list) = unsafe { lib.get::<InfoFn>(b"NCZ_codec_info_defaults\0") } {
        // A defaults library: its other symbols are ignored.
        // SAFETY: contract; the list is NULL-terminated.
        let mut p = unsafe { list() } as *const *const NczCodec;
        // SAFETY: `p` walks the list up to its NULL entry.
        while !p.is_null() && !unsafe { *p }.is_null() {
            // SAFETY: as the loop condition.
            let c = unsafe { *p };
            if valid_codec(c) {
                // SAFETY: a version-checked NCZ_codec_t.
                defaults.entry(unsafe { (*c).hdf5id }).or_insert(c);
                found = true;
            }
            // SAFETY: not yet past the terminating NULL.
            p = unsafe { p.add(1) };
        }
        return found;
    }
    if let (Ok(kind), Ok(info)) =
        // SAFETY: contract.
        unsafe { (lib.get::<TypeFn>(b"H5PLget_plugin_type\0"), lib.get::<InfoFn>(b"H5PLget_plugin_info\0")) }
    {
        // SAFETY: contract.
        if unsafe { kind() } == H5PL_TYPE_FILTER {
            // SAFETY: contract.
            let class = unsafe { info() } as *const H5ZClass2;
            // SAFETY: a non-NULL H5Z_class2_t, version checked first.
            if !class.is_null() && unsafe { (*class).version == H5Z_CLASS_T_VERS && (*class).filter.is_some() } {
                // SAFETY: as just checked.
                h5.entry(unsafe { (*class).id } as u32).or_insert(class);
                found = true;
            }
        }
    }
    // SAFETY: contract.
    if let Ok(info) = unsafe { lib.get::<InfoFn>(b"NCZ_get_codec_info\0") } {
        // SAFETY: contract.
        let c = unsafe { info() } as *const NczCodec;
        if valid_codec(c) {
            // SAFETY: a version-checked NCZ_codec_t.
            codecs.entry(unsafe { (*c).hdf5id }).or_insert(c);
            found = true;
        }
    }
    found
}

/// `nc_finalize`: tell loaded plugins we are done with them (their
/// libraries stay loaded; netCDF calls after this still work).
pub fn finalize() {
    let Some(reg) = with_plugins(|p| p.scanned) else { return };
    for plugin in reg.complete.values() {
        // SAFETY: a version-checked NCZ_codec_t from a loaded library.
        if let Some(fini) = unsafe { (*plugin.codec).finalize } {
            // SAFETY: the plugin's finalizer, as netcdf-c calls it.
            unsafe { fini() };
        }
    }
}

impl Registry {
    pub fn get(&self, id: u32) -> Option<Plugin> {
        self.complete.get(&id).copied()
    }

    pub fn is_incomplete(&self, id: u32) -> bool {
        self.incomplete.contains(&id)
    }

    /// The plugin whose codec half names this numcodecs id.
    pub fn by_codec_id(&self, name: &str) -> Option<(u32, Plugin)> {
        self.complete.iter().find(|(_, p)| p.codec_id() == Some(name)).map(|(&id, &p)| (id, p))
    }
}

/// Take a malloc'ed array of `n` unsigned ints and free it.
///
/// # Safety
/// `p` must be NULL or a malloc'ed array of at least `n` unsigned ints,
/// not used afterwards.
unsafe fn take_params(p: *mut c_uint, n: usize) -> Vec<u32> {
    if p.is_null() {
        return Vec::new();
    }
    // SAFETY: `n` initialised, aligned unsigned ints (malloc aligns).
    let v = unsafe { std::slice::from_raw_parts(p, n) }.to_vec();
    // SAFETY: malloc'ed, and ours to free.
    unsafe { libc::free(p as *mut c_void) };
    v
}

/// A parameter vector as netcdf-c hands it to plugins: NULL when empty
/// (plugins check it: netcdf-c's `H5Zunknown` refuses a non-NULL pointer
/// with no parameters).
fn params_ptr(params: &[u32]) -> *const c_uint {
    if params.is_empty() { std::ptr::null() } else { params.as_ptr() }
}

/// A malloc'ed copy of a parameter vector (plugins may free or replace it).
/// NULL for none, as netcdf-c passes them.
fn malloc_params(params: &[u32]) -> NcResult<*mut c_uint> {
    if params.is_empty() {
        return Ok(std::ptr::null_mut());
    }
    let size = std::mem::size_of_val(params);
    // SAFETY: malloc of `size` bytes, filled below.
    let p = unsafe { libc::malloc(size) } as *mut c_uint;
    if p.is_null() {
        return Err(NcError::ENOMEM);
    }
    // SAFETY: `p` has room for every parameter and is not `params`.
    unsafe { std::ptr::copy_nonoverlapping(params.as_ptr(), p, params.len()) };
    Ok(p)
}

impl Plugin {
    pub fn codec_id(&self) -> Option<&'static str> {
        // SAFETY: a static C string in a loaded library, or NULL.
        let id = unsafe { (*self.codec).codecid };
        // SAFETY: not NULL, so that static C string.
        if id.is_null() { None } else { unsafe { CStr::from_ptr(id) }.to_str().ok() }
    }

    /// Codec JSON text -> visible HDF5 parameters.
    pub fn codec_to_params(&self, json: &str) -> NcResult<Vec<u32>> {
        // SAFETY: a version-checked NCZ_codec_t in a loaded library.
        let f = unsafe { (*self.codec).codec_to_hdf5 }.ok_or(NcError::ENOFILTER)?;
        let text = std::ffi::CString::new(json).map_err(|_| NcError::EFILTER)?;
        let (mut n, mut p) = (0usize, std::ptr::null_mut());
        // SAFETY: the codec contract: a C string in, a count and a
        // malloc'ed array (ours to free) out.
        if unsafe { f(text.as_ptr(), &mut n, &mut p) } != 0 {
            return Err(NcError::EFILTER);
        }
        // SAFETY: as just said.
        Ok(unsafe { take_params(p, n) })
    }

    /// Visible HDF5 parameters -> codec JSON text.
    pub fn params_to_codec(&self, params: &[u32]) -> NcResult<String> {
        // SAFETY: a version-checked NCZ_codec_t in a loaded library.
        let f = unsafe { (*self.codec).hdf5_to_codec }.ok_or(NcError::ENOFILTER)?;
        let mut out = std::ptr::null_mut();
        // SAFETY: the codec contract: the parameters in, a malloc'ed C
        // string (ours to free) out.
        if unsafe { f(params.len(), params_ptr(params), &mut out) } != 0 || out.is_null() {
            return Err(NcError::EFILTER);
        }
        // SAFETY: as just said, and not NULL.
        let text = unsafe { CStr::from_ptr(out) }.to_string_lossy().into_owned();
        // SAFETY: as just said; not used again.
        unsafe { libc::free(out as *mut c_void) };
        Ok(text)
    }

    /// Working parameters for one variable (the plugin may call back into
    /// the netCDF API about `ncid`/`varid`; see [`super::callback`]).
    pub fn working_params(&self, ncid: c_int, varid: c_int, visible: &[u32]) -> NcResult<Vec<u32>> {
        // SAFETY: a version-checked NCZ_codec_t in a loaded library.
        let Some(f) = (unsafe { (*self.codec).modify_parameters }) else { return Ok(visible.to_vec()) };
        let (mut vn, mut vp) = (visible.len(), malloc_params(visible)?);
        let (mut wn, mut wp) = (0usize, std::ptr::null_mut());
        // SAFETY: the codec contract: counts and malloc'ed arrays in and
        // out; the plugin may replace (and free) the visible array.
        let status = unsafe { f(ncid, varid, &mut vn, &mut vp, &mut wn, &mut wp) };
        // SAFETY: whatever arrays the plugin left are malloc'ed and ours.
        let _visible = unsafe { take_params(vp, vn) };
        // SAFETY: as above.
        let working = unsafe { take_params(wp, wn) };
        if status != 0 {
            return Err(NcError(status));
        }
        Ok(working)
    }

    /// Run the HDF5 filter function over a malloc'ed copy of `data`.
    pub fn run(&self, flags: c_uint, params: &[u32], data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        // SAFETY: a version-checked H5Z_class2_t in a loaded library.
        let filter = unsafe { (*self.h5).filter }.ok_or(NcError::ENOFILTER)?;
        let mut size = data.len().max(1);
        // SAFETY: the buffer is malloc'ed as the plugin contract requires;
        // the plugin may free it and hand back another.
        let mut buf = unsafe { libc::malloc(size) };
        if buf.is_null() {
            return Err(NcError::ENOMEM);
        }
        // SAFETY: `buf` has room for `data` (size >= data.len()).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), buf as *mut u8, data.len()) };
        // SAFETY: the HDF5 filter contract: `buf` is malloc'ed with `size`
        // bytes, `data.len()` of them valid; the filter may free it and
        // leave another malloc'ed buffer, and returns its valid length
        // (0 on failure).
        let n = unsafe { filter(flags, params.len(), params_ptr(params), data.len(), &mut size, &mut buf) };
        // The returned length is trusted, as HDF5 and netcdf-c trust it;
        // it is not compared with `size`.
        let result = if n == 0 || buf.is_null() || n > max_len {
            Err(NcError::EFILTER)
        } else {
            // SAFETY: `n` valid bytes at `buf`, by that contract.
            Ok(unsafe { std::slice::from_raw_parts(buf as *const u8, n) }.to_vec())
        };
        if !buf.is_null() {
            // SAFETY: malloc'ed (ours or the filter's), and ours to free.
            unsafe { libc::free(buf) };
        }
        result
    }
}
