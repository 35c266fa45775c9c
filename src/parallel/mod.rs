//! Parallel I/O over MPI (`nc_create_par`, `nc_open_par`): several
//! processes, the ranks of an MPI communicator, write one NCZarr or Zarr
//! store.
//!
//! Every rank holds the whole metadata and repeats every
//! define-mode and metadata call (netcdf-c's rule: they are collective);
//! data calls are independent and each rank stores the chunks of its own
//! region. At each commit (`nc_enddef`, `nc_sync`, `nc_close`) the ranks
//! agree before one of them, rank 0, writes the metadata (see
//! [`collective`]). Chunks written by several ranks are assembled by one
//! of them (two-phase I/O at chunk granularity, `io::shared`): a rank
//! stores the chunks it writes whole, and sends its parts of the others
//! to their owners at the next collective call (a commit, or a write to a
//! variable in collective access).
//!
//! Only the parallel build (Cargo feature `mpi`) has the MPI side; the
//! default build keeps [`Parallel`] as a type no dataset ever holds, and
//! answers NC_ENOPAR (src/capi/parallel.rs).

use std::collections::HashMap;

#[cfg(feature = "mpi")]
pub mod collective;
#[cfg(feature = "mpi")]
pub mod comm;
#[cfg(feature = "mpi")]
pub mod delegated;
pub mod digest;
#[cfg(feature = "mpi")]
pub mod entry;

/// `nc_var_par_access` modes (netcdf_par.h).
pub const NC_INDEPENDENT: i32 = 0;
pub const NC_COLLECTIVE: i32 = 1;

/// What a dataset opened for parallel I/O keeps.
pub struct Parallel {
    /// The dataset's communicator.
    #[cfg(feature = "mpi")]
    pub comm: comm::Comm,
    /// Access modes set by `nc_var_par_access`, per (group, varid);
    /// independent when absent, as netcdf-c's default.
    pub access: HashMap<(usize, i32), i32>,
    /// Parts of chunks this rank wrote since the last collective call,
    /// for their owners (`io::shared`).
    #[cfg(feature = "mpi")]
    pub pending: Vec<crate::io::shared::Piece>,
}

impl Parallel {
    /// A variable's access mode.
    pub fn access(&self, grp: usize, varid: i32) -> i32 {
        self.access.get(&(grp, varid)).copied().unwrap_or(NC_INDEPENDENT)
    }
}
