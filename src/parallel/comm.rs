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
        #[cfg(test)]
        pub fn nczrs_mpi_dup_world() -> *mut c_void;
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
        Comm { handle, rank: rank.max(0) as usize, size: size.max(1) as usize, owner_pid: crate::gate::process_id() }
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
        if buf.is_empty() {
            // As in all_gather: nothing to do on any rank.
            return Ok(());
        }
        // SAFETY: a live handle; `buf` is valid for its length.
        status(unsafe { nczrs_mpi_bcast(self.handle, buf.as_mut_ptr().cast(), buf.len(), root as c_int) })
    }

    /// Root's status code, the same on every rank.
    pub fn broadcast_status(&self, local: NcResult<()>, root: usize) -> NcResult<()> {
        let mut code = local.err().map_or(0, |e| e.0).to_ne_bytes();
        self.broadcast(&mut code, root)?;
        status(c_int::from_ne_bytes(code))
    }

    /// Every rank's outcome, the same on every rank: the lowest failing
    /// rank's error, or success.
    pub fn agree(&self, local: NcResult<()>) -> NcResult<()> {
        let code = local.err().map_or(0, |e| e.0);
        let all = self.all_gather(&code.to_le_bytes())?;
        match all.iter().map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).find(|&c| c != 0) {
            Some(code) => Err(NcError(code)),
            None => Ok(()),
        }
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
        if send.is_empty() {
            // Nothing to send anywhere (the length is the same on every
            // rank); and an empty slice's pointer could pass for
            // MPI_IN_PLACE.
            return Ok(vec![Vec::new(); self.size]);
        }
        let mut recv = vec![0u8; send.len() * self.size];
        // SAFETY: a live handle; `recv` holds `size` blocks of `send.len()`.
        status(unsafe {
            nczrs_mpi_allgather(self.handle, send.as_ptr().cast(), send.len(), recv.as_mut_ptr().cast())
        })?;
        Ok(recv.chunks(send.len()).map(<[u8]>::to_vec).collect())
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
        // Never an empty Vec's dangling pointer: 0x1 is OpenMPI's
        // MPI_IN_PLACE, which a buffer with nothing in it would pass for.
        let mut send: Vec<u8> = to.concat();
        send.push(0);
        let sendcounts: Vec<usize> = to.iter().map(Vec::len).collect();
        let sdispls = offsets(&sendcounts);
        let rdispls = offsets(&from_each);
        let mut recv = vec![0u8; from_each.iter().sum::<usize>() + 1];
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
        if crate::gate::process_id() != self.owner_pid {
            // A forked child closing an inherited dataset: MPI is its
            // parent's; the handle is left to the parent.
            return;
        }
        // SAFETY: the handle is ours and freed once.
        unsafe { nczrs_mpi_free(self.handle) }
    }
}

/// Run under `mpirun -np N` (ctests/mpi/run.sh runs this module's tests on
/// 4 ranks), or alone (a singleton MPI job of one rank): each collective
/// with values that tell the ranks apart.
#[cfg(test)]
mod tests {
    use std::ffi::{c_char, c_int};

    use super::*;

    unsafe extern "C" {
        fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int;
        fn MPI_Initialized(flag: *mut c_int) -> c_int;
        fn MPI_Finalize() -> c_int;
    }

    /// MPI_COMM_WORLD's duplicate, MPI started first if need be.
    fn world() -> Comm {
        let mut done = 0;
        // SAFETY: MPI's own functions, NULL arguments as MPI allows.
        unsafe {
            MPI_Initialized(&mut done);
            if done == 0 {
                assert_eq!(MPI_Init(std::ptr::null_mut(), std::ptr::null_mut()), 0);
            }
        }
        // SAFETY: a fresh handle from the shim, owned by the Comm.
        let handle = unsafe { nczrs_mpi_dup_world() };
        assert!(!handle.is_null());
        // SAFETY: as above.
        unsafe { Comm::from_raw(handle) }
    }

    /// One test, so the collectives run in the same order on every rank
    /// (the test harness may order separate tests differently).
    #[test]
    fn collectives() {
        let comm = world();
        let (rank, size) = (comm.rank(), comm.size());
        assert!(rank < size);
        comm.barrier().unwrap();

        let mut buf = if rank == 0 { b"from root".to_vec() } else { vec![0; 9] };
        comm.broadcast(&mut buf, 0).unwrap();
        assert_eq!(buf, b"from root");
        let last = size - 1;
        assert_eq!(
            comm.broadcast_status(if rank == last { Err(NcError::EINVAL) } else { Ok(()) }, last),
            Err(NcError::EINVAL)
        );

        let mut max = vec![rank as u64, 10 - rank as u64];
        comm.all_reduce_u64(&mut max, Reduce::Max).unwrap();
        assert_eq!(max, vec![last as u64, 10]);
        let mut min = vec![-(rank as i64), rank as i64 + 5];
        comm.all_reduce_i64(&mut min, Reduce::Min).unwrap();
        assert_eq!(min, vec![-(last as i64), 5]);

        let all = comm.all_gather(&[rank as u8, 7]).unwrap();
        assert_eq!(all, (0..size).map(|r| vec![r as u8, 7]).collect::<Vec<_>>());

        // Rank r sends r+1 copies of (r*16 + d) to rank d, nothing to itself.
        let to: Vec<Vec<u8>> =
            (0..size).map(|d| if d == rank { Vec::new() } else { vec![(rank * 16 + d) as u8; rank + 1] }).collect();
        let from = comm.all_to_all(&to).unwrap();
        for (s, got) in from.iter().enumerate() {
            let want = if s == rank { Vec::new() } else { vec![(s * 16 + rank) as u8; s + 1] };
            assert_eq!(got, &want, "from rank {s}");
        }
        assert_eq!(comm.all_to_all(&[]), Err(NcError::EINVAL));
        comm.barrier().unwrap();
        drop(comm);
        // mpirun requires every rank to finalize; nothing else in this
        // test binary uses MPI.
        // SAFETY: MPI's own function, after its last use here.
        assert_eq!(unsafe { MPI_Finalize() }, 0);
    }
}
