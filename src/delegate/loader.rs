//! Finding and loading the netcdf-c that serves what is not Zarr.
//!
//! It is loaded with `dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)`
//! (Debian's parallel netcdf-c without deep binding: see [`deep_bound`]):
//! local, so its symbols (the same `nc_*` names as ours) never become the
//! program's; deep-bound, so its own calls (`nc_inq_varid` inside its
//! `nc_copy_var`, HDF5's calls to HDF5) find its own definitions before
//! ours. Unlike `dlmopen(LM_ID_NEWLM)` it shares the process's one libc, so
//! the memory it hands out (strings, vlens, `nc_close_memio`'s image) is
//! memory the program's `free`, `nc_free_string` or `nc_reclaim_data` can
//! free, and threads, stdio and locale are the process's own. The price:
//! AddressSanitizer refuses `RTLD_DEEPBIND` (it aborts the process), so
//! under ASan no delegate is loaded.
//!
//! Where it is looked for, first found wins (the README's "Every format"):
//! `NCZARR_RS_NETCDF_C` (a library file; empty or `none`: no delegate),
//! then (in the parallel build) Debian's parallel `libnetcdf_mpi.so.19`,
//! then `libnetcdf.so.19` and other `libnetcdf.so.*` in the multiarch
//! directory, `/usr/lib64`, `/usr/lib`, `/usr/local/lib`, the library
//! directory `pkg-config netcdf` reported when we were built, and
//! `$CONDA_PREFIX/lib`. Never this library itself: a candidate that is our
//! own file, or that answers with our functions, is skipped.

use std::ffi::{CStr, CString, c_void};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The environment variable naming the netcdf-c library to load.
pub const ENV: &str = "NCZARR_RS_NETCDF_C";

/// A loaded library, never unloaded (its functions may be in use on other
/// threads, and libraries with HDF5 inside do not unload cleanly).
pub struct Handle(*mut c_void);

// SAFETY: a dlopen handle is a process-wide token; dlsym may be called
// with it from any thread.
unsafe impl Send for Handle {}
// SAFETY: as above; the handle is never freed.
unsafe impl Sync for Handle {}

impl Handle {
    /// The library's function `name` as a typed pointer, or None.
    ///
    /// `F` must be the `unsafe extern "C" fn` type of that function (the
    /// generated table's field types are netcdf-c's prototypes).
    pub fn function<F: Copy>(&self, name: &CStr) -> Option<F> {
        assert_eq!(size_of::<F>(), size_of::<*mut c_void>(), "not a function pointer type");
        // SAFETY: a live handle and a C string.
        let p = unsafe { libc::dlsym(self.0, name.as_ptr()) };
        if p.is_null() {
            return None;
        }
        // SAFETY: F is a function pointer type of the same size (checked),
        // and the symbol is that function (the caller's contract).
        Some(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
    }

    /// Any symbol of the library or its dependencies (HDF5's).
    pub fn symbol(&self, name: &CStr) -> *mut c_void {
        // SAFETY: a live handle and a C string.
        unsafe { libc::dlsym(self.0, name.as_ptr()) }
    }
}

/// The places to look, in order, when `NCZARR_RS_NETCDF_C` is not set.
fn search_dirs() -> Vec<PathBuf> {
    let multiarch = format!("/usr/lib/{}-linux-gnu", std::env::consts::ARCH);
    let mut dirs: Vec<PathBuf> =
        [multiarch.as_str(), "/usr/lib64", "/usr/lib", "/usr/local/lib"].iter().map(PathBuf::from).collect();
    if let Some(dir) = option_env!("NCZARR_RS_BUILD_NETCDF_LIBDIR").filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(dir));
    }
    if let Some(conda) = std::env::var_os("CONDA_PREFIX") {
        dirs.push(Path::new(&conda).join("lib"));
    }
    dirs
}

/// The netcdf-c library files of a directory: `libnetcdf.so.19` first,
/// then other versions, newest name last.
fn libraries_in(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let preferred = dir.join("libnetcdf.so.19");
    if preferred.is_file() {
        found.push(preferred);
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return found };
    let mut others: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            name.starts_with("libnetcdf.so.") && name != "libnetcdf.so.19" && p.is_file()
        })
        .collect();
    others.sort();
    found.extend(others);
    found
}

/// Every candidate, in order (the variable's alone when it is set).
pub fn candidates() -> Vec<PathBuf> {
    if let Some(named) = std::env::var_os(ENV) {
        if named.is_empty() || named == "none" {
            return Vec::new();
        }
        return vec![PathBuf::from(named)];
    }
    let dirs = search_dirs();
    let mut found = Vec::new();
    // The parallel build serves `nc_create_par`/`nc_open_par` of `.nc`
    // files through the delegate: a parallel netcdf-c (Debian's
    // libnetcdf-mpi-19) first, wherever it is.
    if cfg!(feature = "mpi") {
        found.extend(dirs.iter().map(|d| d.join("libnetcdf_mpi.so.19")).filter(|p| p.is_file()));
    }
    found.extend(dirs.iter().flat_map(|d| libraries_in(d)));
    found
}

/// (device, inode) of a file, to tell two names of one file apart.
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// What the loader knows of the object holding `address`.
fn object_of(address: *const c_void) -> Option<libc::Dl_info> {
    let mut info: libc::Dl_info = empty_dl_info();
    // SAFETY: any address, and a writable Dl_info.
    let found = unsafe { libc::dladdr(address, &mut info) };
    (found != 0 && !info.dli_fname.is_null()).then_some(info)
}

/// The file this library was loaded from.
fn our_file() -> Option<PathBuf> {
    let info = object_of(our_file as *const c_void)?;
    // SAFETY: dladdr gives a C string that lives as long as the library.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes())))
}

fn empty_dl_info() -> libc::Dl_info {
    libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    }
}

/// Is AddressSanitizer in this process? It aborts on RTLD_DEEPBIND.
fn under_asan() -> bool {
    // SAFETY: a lookup by name in the global scope.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__asan_init".as_ptr()) }.is_null()
}

/// Is this candidate loaded with RTLD_DEEPBIND? Every netcdf-c is, but
/// Debian's parallel one in the parallel build. That one's calls to its
/// own functions name its symbol versions (`NETCDF_MPI_*`), and the
/// parallel build's exports carry a version of their own (build.rs), so
/// they never bind to ours anyway; and deep binding would bind it and its
/// HDF5 to MPI's predefined objects (`MPI_INT`, `MPI_INFO_NULL`) as libmpi
/// defines them, where the program and libmpi use the program's copies
/// of them (OpenMPI's handles are their addresses; a program naming one
/// gets a copy by a copy relocation), and MPI would crash on a handle it
/// does not know.
fn deep_bound(path: &Path) -> bool {
    !(cfg!(feature = "mpi") && path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("libnetcdf_mpi.")))
}

/// Load the first candidate that is a netcdf-c other than us; the
/// message says why none was, for the log and tracing.
pub fn load() -> Result<(Handle, PathBuf), String> {
    if under_asan() {
        return Err("AddressSanitizer cannot load a library with RTLD_DEEPBIND".into());
    }
    let candidates = candidates();
    if candidates.is_empty() {
        return Err(match std::env::var_os(ENV) {
            Some(_) => format!("{ENV} is set to none"),
            None => "no libnetcdf.so.* found (install Debian's libnetcdf19, or set NCZARR_RS_NETCDF_C)".into(),
        });
    }
    let me = our_file().and_then(|p| identity(&p));
    let mut why = Vec::new();
    for path in candidates {
        match identity(&path) {
            None => {
                why.push(format!("{}: not found", path.display()));
                continue;
            }
            Some(id) if Some(id) == me => {
                why.push(format!("{}: this library", path.display()));
                continue;
            }
            Some(_) => {}
        }
        let Ok(cpath) = CString::new(path.as_os_str().as_bytes()) else { continue };
        let flags = libc::RTLD_NOW | libc::RTLD_LOCAL | if deep_bound(&path) { libc::RTLD_DEEPBIND } else { 0 };
        // SAFETY: a C string; the library's initialisers are netcdf-c's.
        let handle = unsafe { libc::dlopen(cpath.as_ptr(), flags) };
        if handle.is_null() {
            // SAFETY: dlerror's message, read right after the failure.
            let err = unsafe { libc::dlerror() };
            let msg = if err.is_null() {
                "dlopen failed".to_string()
            } else {
                // SAFETY: dlerror returns a C string.
                unsafe { CStr::from_ptr(err) }.to_string_lossy().into_owned()
            };
            why.push(format!("{}: {msg}", path.display()));
            continue;
        }
        let handle = Handle(handle);
        // Its nc_open must be its own, not ours (a copy of this library
        // under another name, or one that would bind to us).
        let open = handle.symbol(c"nc_open");
        let ours = object_of(our_file as *const c_void).map(|i| i.dli_fbase);
        if open.is_null() || object_of(open).map(|i| i.dli_fbase) == ours {
            why.push(format!("{}: not a netcdf-c beside us", path.display()));
            continue;
        }
        return Ok((handle, path));
    }
    Err(why.join("; "))
}
