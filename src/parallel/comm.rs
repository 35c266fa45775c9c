//! A safe wrapper over the MPI communicator csrc/parallel.c duplicated
//! for a parallel dataset. MPI's own types never reach Rust: the shim
//! keeps them behind an opaque handle and offers the few collectives the
//! library needs with plain C types.

use std::ffi::{c_int, c_void};

use crate::error::{NcError, NcResult};

/// csrc/parallel.c's collectives (private to the library, so not in the
/// headers the ABI check compares).
///
/// cbindgen:ignore
mod ffi {
    use std::ffi::{c_int, c_void};

    unsafe extern "C" {
        pub fn nczrs_mpi_free(h: *mut c_void);
        pub fn nczrs_mpi_rank(h: *mut c_void) -> c_int;
        pub fn nczrs_mpi_size(h: *mut c_void) -> c_int;
        pub fn nczrs_mpi_world_rank() -> c_int;
        pub fn nczrs_mpi_barrier(h: *mut c_void) -> c_int;
        pub fn nczrs_mpi_bcast(h: *mut c_void, buf: *mut c_void, len: usize, root: c_int) -> c_int;
        pub fn nczrs_mpi_allreduce_u64(h: *mut c_void, inout: *mut u64, n: usize, op: c_int) -> c_int;
        pub fn nczrs_mpi_allreduce_i64(h: *mut c_void, inout: *mut i64, n: usize, op: c_int) -> c_int;
        pub fn nczrs_mpi_allgather(h: *mut c_void, send: *const c_void, len: usize, recv: *mut c_void) -> c_int;
        pub fn nczrs_mpi_alltoallv(
            h: *mut c_void,
            send: *const c_void,
            sendcounts: *const usize,
            sdispls: *const usize,
            recv: *mut c_void,
            recvcounts: *const usize,
            rdispls: *const usize,
        ) -> c_int;
    }
}
use ffi::*;

/// This process's rank in `MPI_COMM_WORLD` (local).
pub fn world_rank() -> i32 {
    // SAFETY: no arguments; the shim checks MPI is running.
    unsafe { nczrs_mpi_world_rank() }
}

/// Which reduction an all-reduce applies.
#[derive(Clone, Copy, Debug)]
pub enum Reduce {
    Max = 0,
    Min = 1,
}

fn status(code: c_int) -> NcResult<()> {
    if code == 0 { Ok(()) } else { Err(NcError(code)) }
}

/// A dataset's private communicator (a duplicate of the program's), freed
/// with the dataset. Every method is collective unless it says otherwise:
/// every rank must call it, in the same order.
pub struct Comm {
    handle: *mut c_void,
    rank: usize,
    size: usize,
    /// The process that made it: a forked child must not call MPI.
    owner_pid: u32,
}

// SAFETY: the handle is used only by whoever holds the dataset (under its
// lock), one call at a time; MPI is called from the program's thread that
// makes the netCDF call, as with netcdf-c.
unsafe impl Send for Comm {}

impl Comm {
    /// Take ownership of a handle made by csrc/parallel.c.
    ///
    /// # Safety
    /// `handle` comes from the shim's `dup_comm` and is owned by no one else.
    pub unsafe fn from_raw(handle: *mut c_void) -> Comm {
        // SAFETY: a live handle, per this function's contract.
        let (rank, size) = unsafe { (nczrs_mpi_rank(handle), nczrs_mpi_size(handle)) };
        Comm { handle, rank: rank.max(0) as usize, size: size.max(1) as usize, owner_pid: std::process::id() }
    }

    /// This process's rank (local).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks (local).
    pub fn size(&self) -> usize {
        self.size
    }

    pub fn barrier(&self) -> NcResult<()> {
        // SAFETY: a live handle.
        status(unsafe { nczrs_mpi_barrier(self.handle) })
    }

    /// Root's `buf` into every rank's `buf` (the same length everywhere).
    pub fn broadcast(&self, buf: &mut [u8], root: usize) -> NcResult<()> {
        // SAFETY: a live handle; `buf` is valid for its length.
        status(unsafe { nczrs_mpi_bcast(self.handle, buf.as_mut_ptr().cast(), buf.len(), root as c_int) })
    }

    /// Root's status code, the same on every rank.
    pub fn broadcast_status(&self, local: NcResult<()>, root: usize) -> NcResult<()> {
        let mut code = local.err().map_or(0, |e| e.0).to_ne_bytes();
        self.broadcast(&mut code, root)?;
        status(c_int::from_ne_bytes(code))
    }

    /// Element by element over the ranks, in place.
    pub fn all_reduce_u64(&self, values: &mut [u64], op: Reduce) -> NcResult<()> {
        // SAFETY: a live handle; `values` is valid for its length.
        status(unsafe { nczrs_mpi_allreduce_u64(self.handle, values.as_mut_ptr(), values.len(), op as c_int) })
    }

    /// [`Comm::all_reduce_u64`] for signed values.
    pub fn all_reduce_i64(&self, values: &mut [i64], op: Reduce) -> NcResult<()> {
        // SAFETY: a live handle; `values` is valid for its length.
        status(unsafe { nczrs_mpi_allreduce_i64(self.handle, values.as_mut_ptr(), values.len(), op as c_int) })
    }

    /// Every rank's `send` (the same length everywhere), in rank order.
    pub fn all_gather(&self, send: &[u8]) -> NcResult<Vec<Vec<u8>>> {
        let mut recv = vec![0u8; send.len() * self.size];
        // SAFETY: a live handle; `recv` holds `size` blocks of `send.len()`.
        status(unsafe {
            nczrs_mpi_allgather(self.handle, send.as_ptr().cast(), send.len(), recv.as_mut_ptr().cast())
        })?;
        Ok(if send.is_empty() {
            vec![Vec::new(); self.size]
        } else {
            recv.chunks(send.len()).map(<[u8]>::to_vec).collect()
        })
    }

    /// Personalised exchange: `to[r]` goes to rank `r`; returns what each
    /// rank sent here. Every rank first learns how much comes from each
    /// (an all-to-all of the sizes, done here as an all-gather).
    pub fn all_to_all(&self, to: &[Vec<u8>]) -> NcResult<Vec<Vec<u8>>> {
        if to.len() != self.size {
            return Err(NcError::EINVAL);
        }
        let sizes: Vec<u8> = to.iter().flat_map(|b| (b.len() as u64).to_le_bytes()).collect();
        let all = self.all_gather(&sizes)?;
        let from_each: Vec<usize> = all
            .iter()
            .map(|row| {
                let at = self.rank * 8;
                u64::from_le_bytes(row[at..at + 8].try_into().unwrap_or_default()) as usize
            })
            .collect();
        let send: Vec<u8> = to.concat();
        let sendcounts: Vec<usize> = to.iter().map(Vec::len).collect();
        let sdispls = offsets(&sendcounts);
        let rdispls = offsets(&from_each);
        let mut recv = vec![0u8; from_each.iter().sum()];
        // SAFETY: a live handle; every count and displacement lies within
        // `send` and `recv`, and each array has `size` entries.
        status(unsafe {
            nczrs_mpi_alltoallv(
                self.handle,
                send.as_ptr().cast(),
                sendcounts.as_ptr(),
                sdispls.as_ptr(),
                recv.as_mut_ptr().cast(),
                from_each.as_ptr(),
                rdispls.as_ptr(),
            )
        })?;
        Ok(from_each.iter().zip(&rdispls).map(|(&n, &at)| recv[at..at + n].to_vec()).collect())
    }
}

/// Where each block starts when blocks of these lengths are laid end to end.
fn offsets(lengths: &[usize]) -> Vec<usize> {
    lengths.iter().scan(0, |at, &n| Some(std::mem::replace(at, *at + n))).collect()
}

impl Drop for Comm {
    fn drop(&mut self) {
        if std::process::id() != self.owner_pid {
            // A forked child closing an inherited dataset: MPI is its
            // parent's; the handle is left to the parent.
            return;
        }
        // SAFETY: the handle is ours and freed once.
        unsafe { nczrs_mpi_free(self.handle) }
    }
}
