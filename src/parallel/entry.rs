//! The public parallel entry points of the parallel build. csrc/parallel.c
//! defines them with their MPI types and calls `nczrs_par_create` /
//! `nczrs_par_open` here with a duplicated communicator; the exported
//! names are trampolines to it (a Rust cdylib exports only symbols
//! defined in Rust).

use std::ffi::{c_char, c_int, c_void};

use super::Parallel;
use super::collective::ROOT;
use super::comm::Comm;
use crate::capi::{c_str, guard, put};
use crate::dataset::{Dataset, NC_MPIIO, NC_WRITE};
use crate::error::{NcError, NcResult};
use crate::registry;
use crate::url::{self, Storage};

unsafe extern "C" {
    fn nczrs_c_create_par();
    fn nczrs_c_open_par();
    fn nczrs_c_create_par_fortran();
    fn nczrs_c_open_par_fortran();
}

crate::capi::variadic::trampoline!(
    /// `int nc_create_par(const char *path, int cmode, MPI_Comm comm,
    /// MPI_Info info, int *ncidp)` (netcdf_par.h).
    nc_create_par => nczrs_c_create_par
);
crate::capi::variadic::trampoline!(
    /// `int nc_open_par(const char *path, int mode, MPI_Comm comm,
    /// MPI_Info info, int *ncidp)` (netcdf_par.h).
    nc_open_par => nczrs_c_open_par
);
crate::capi::variadic::trampoline!(
    /// `nc_create_par` with Fortran communicator and info handles.
    nc_create_par_fortran => nczrs_c_create_par_fortran
);
crate::capi::variadic::trampoline!(
    /// `nc_open_par` with Fortran communicator and info handles.
    nc_open_par_fortran => nczrs_c_open_par_fortran
);

/// NC_DISKLESS, NC_INMEMORY, NC_MMAP: netcdf-c refuses them with parallel
/// I/O (NC_EINVAL) before anything else.
const NOT_PARALLEL: c_int = 0x0008 | 0x8000 | 0x0010;

/// Create a dataset on every rank: rank 0 creates the store (honouring
/// NC_CLOBBER/NC_NOCLOBBER), then the others attach to it.
///
/// # Safety
/// `path` a C string or NULL; `ncidp` NULL or writable; `comm` a handle
/// from csrc/parallel.c, owned by this function from here on.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nczrs_par_create(
    path: *const c_char,
    cmode: c_int,
    comm: *mut c_void,
    ncidp: *mut c_int,
) -> c_int {
    // SAFETY: the shim's handle, handed over.
    let comm = unsafe { Comm::from_raw(comm) };
    crate::zmap::trace::set_rank(super::comm::world_rank());
    guard(|| {
        // SAFETY: per this function's contract.
        let path = unsafe { c_str(path, NcError::EINVAL) }?;
        check_arguments(path, cmode, true)?;
        // NC_MPIIO (NC_MPIPOSIX) names the parallel access netcdf-c once
        // chose by flag: accepted and reported back as given, as netcdf-c.
        let serial_mode = cmode & !NC_MPIIO;
        let ds = attach(
            &comm,
            || Dataset::create(path, serial_mode),
            |_| {
                // The store exists now. Not made aside: a FileMap store is
                // built in a hidden sibling directory and renamed into place
                // when it is created, so the other ranks must not create one
                // of their own (each would replace the last); they open the
                // one rank 0 installed, where every rank writes its chunks.
                let mut ds = Dataset::open_locking(path, NC_WRITE | serial_mode, false)?;
                ds.model.define_mode = true;
                ds.created = true;
                // As rank 0's created dataset reports it.
                ds.mode = serial_mode | crate::dataset::NC_NETCDF4;
                Ok(ds)
            },
        )?;
        finish(ds, comm, cmode, ncidp)
    })
}

/// Open an existing dataset on every rank (rank 0 first: it completes a
/// commit a crashed writer left, which the others then read).
///
/// # Safety
/// As [`nczrs_par_create`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nczrs_par_open(
    path: *const c_char,
    mode: c_int,
    comm: *mut c_void,
    ncidp: *mut c_int,
) -> c_int {
    // SAFETY: the shim's handle, handed over.
    let comm = unsafe { Comm::from_raw(comm) };
    crate::zmap::trace::set_rank(super::comm::world_rank());
    guard(|| {
        // SAFETY: per this function's contract.
        let path = unsafe { c_str(path, NcError::EINVAL) }?;
        check_arguments(path, mode, mode & NC_WRITE != 0)?;
        let serial_mode = mode & !NC_MPIIO;
        // Rank 0 reads under the commit lock; the others, which never
        // commit themselves, read after it without queueing for it.
        let rest = |_: &Comm| Dataset::open_locking(path, serial_mode, false);
        let ds = attach(&comm, || Dataset::open(path, serial_mode), rest)?;
        finish(ds, comm, mode, ncidp)
    })
}

/// What every rank can check alone, and so answers alike: modes parallel
/// I/O cannot have, and stores several processes cannot write (a zip
/// archive is rewritten whole by its one writer).
fn check_arguments(path: &str, mode: c_int, writing: bool) -> NcResult<()> {
    if mode & NOT_PARALLEL != 0 {
        return Err(NcError::EINVAL);
    }
    let url = url::parse(path)?;
    if writing && matches!(url.storage, Storage::Zip(_)) {
        crate::zmap::trace::log(
            1,
            format_args!("{path}: a zip store cannot be written by several processes; use a directory or S3"),
        );
        return Err(NcError::EINVAL);
    }
    Ok(())
}

/// Rank 0 runs `first`; if it succeeds the others run `rest`; every rank
/// learns every rank's outcome and fails with the first failure (the
/// lowest rank's), so no rank is left holding a dataset the others lack.
fn attach(
    comm: &Comm,
    first: impl FnOnce() -> NcResult<Dataset>,
    rest: impl FnOnce(&Comm) -> NcResult<Dataset>,
) -> NcResult<Dataset> {
    let mine = if comm.rank() == ROOT { first() } else { Err(NcError::EINTERNAL) };
    comm.broadcast_status(mine.as_ref().map(|_| ()).map_err(|e| *e), ROOT)?;
    let mine = if comm.rank() == ROOT { mine } else { rest(comm) };
    comm.agree(mine.as_ref().map(|_| ()).map_err(|e| *e))?;
    mine
}

/// Register an attached dataset as parallel.
fn finish(mut ds: Dataset, comm: Comm, mode: c_int, ncidp: *mut c_int) -> NcResult<()> {
    ds.mode |= mode & NC_MPIIO;
    ds.parallel = Some(Box::new(Parallel { comm, access: Default::default(), pending: Vec::new() }));
    let ncid = registry::insert(ds)?;
    // SAFETY: `ncidp` NULL or writable, per the callers' contracts.
    unsafe { put(ncidp, ncid) };
    Ok(())
}

/// `nc_var_par_access` in the parallel build, checked in netcdf-c's order
/// (libhdf5's, as its NCZarr dispatch accepts anything): the id, the
/// mode, a dataset not opened for parallel I/O (NC_ENOPAR), the variable.
pub fn var_par_access(ncid: c_int, varid: c_int, par_access: c_int) -> NcResult<()> {
    // A `.nc` file: the netcdf-c beside us answers (NC_ENOPAR if it has
    // no parallel I/O or opened the file serially).
    if let Some(result) = super::delegated::var_par_access(ncid, varid, par_access) {
        return result;
    }
    registry::with(ncid, |ds, grp| {
        if par_access != super::NC_INDEPENDENT && par_access != super::NC_COLLECTIVE {
            return Err(NcError::EINVAL);
        }
        let nvars = ds.model.groups[grp].vars.len();
        let Some(par) = ds.parallel.as_mut() else { return Err(NcError(crate::error::code::NC_ENOPAR)) };
        if varid < 0 || varid as usize >= nvars {
            return Err(NcError::ENOTVAR);
        }
        par.access.insert((grp, varid), par_access);
        Ok(())
    })
}
