//! The collective steps of a parallel dataset's life: commits and aborts.
//!
//! A commit (`nc_enddef`, `nc_sync`, `nc_close`), on every rank:
//! 1. store this rank's dirty chunks; send the parts of chunks it wrote
//!    in part to their owners, which assemble and store them
//!    (`io::shared`);
//! 2. all-gather each rank's status and a digest of its metadata (the
//!    rendered metadata objects, lengths of growable dimensions left
//!    out): any failure, or any two digests differing (a rank that defined
//!    something the others did not), fails the commit on every rank with
//!    the same code (NC_EINVAL for a mismatch) and no metadata is written,
//!    so the store keeps its last agreed state;
//! 3. unlimited (and pure Zarr appendable) dimensions take the largest
//!    length any rank has (an all-reduce): each rank saw only its own
//!    writes;
//! 4. a barrier: every rank's chunks are stored, so the metadata written
//!    next never names data that is not there;
//! 5. rank 0 writes the metadata (the serial commit, `format::commit`),
//!    and its result is broadcast: every rank returns the same code.

use crate::dataset::Dataset;
use crate::error::{NcError, NcResult};
use crate::io::engine;
use crate::io::shared::{self, Piece};

use super::Parallel;
use super::comm::{Comm, Reduce};

/// The rank that writes metadata and creates, deletes or repairs stores.
pub const ROOT: usize = 0;

/// Run `f` with the dataset's parallel state taken out (so the dataset's
/// own methods take their serial paths), and put it back whatever happens.
fn without_parallel<R>(ds: &mut Dataset, f: impl FnOnce(&mut Dataset, &Parallel) -> R) -> R {
    let par = ds.parallel.take().expect("called for parallel datasets only");
    let result = f(ds, &par);
    ds.parallel = Some(par);
    result
}

/// Commit collectively (see the module's notes); `explicit` as for the
/// serial commit (an `nc_sync`).
pub fn commit(ds: &mut Dataset, explicit: bool) -> NcResult<()> {
    let pending = take_pending(ds);
    without_parallel(ds, |ds, par| commit_with(ds, &par.comm, pending, explicit))
}

/// After a write: a variable in collective access has its pieces sent to
/// their owners now (every rank makes the call), each rank returning the
/// same code, and its unlimited dimensions agreed.
pub fn after_write(ds: &mut Dataset, grp: usize, varid: i32) -> NcResult<()> {
    match &ds.parallel {
        Some(par) if par.access(grp, varid) == super::NC_COLLECTIVE => {}
        _ => return Ok(()),
    }
    let pending = take_pending(ds);
    without_parallel(ds, |ds, par| {
        let exchanged = exchange(ds, &par.comm, pending);
        par.comm.agree(exchanged)?;
        // As after netcdf-c's collective writes: every rank sees the
        // records any rank wrote.
        agree_lengths(ds, &par.comm)
    })
}

fn take_pending(ds: &mut Dataset) -> Vec<Piece> {
    ds.parallel.as_mut().map(|par| std::mem::take(&mut par.pending)).unwrap_or_default()
}

/// Two-phase I/O's exchange (`io::shared`): every rank sends each pending
/// piece to its chunk's owner (an all-to-all, made whatever this rank
/// has), then assembles and stores the chunks it owns.
fn exchange(ds: &Dataset, comm: &Comm, pending: Vec<Piece>) -> NcResult<()> {
    let ranks = comm.size();
    let mut outgoing: Vec<Vec<&Piece>> = vec![Vec::new(); ranks];
    for piece in &pending {
        outgoing[shared::owner(piece, ranks)].push(piece);
    }
    let sent: Vec<Vec<u8>> = outgoing.iter().map(|pieces| shared::encode(pieces)).collect();
    drop(outgoing);
    let received = comm.all_to_all(&sent)?;
    drop((sent, pending));
    let mut pieces = Vec::new();
    for from in &received {
        pieces.extend(shared::decode(from)?);
    }
    drop(received);
    shared::assemble(&ds.model, ds.store.as_ref(), pieces)
}

fn commit_with(ds: &mut Dataset, comm: &Comm, pending: Vec<Piece>, explicit: bool) -> NcResult<()> {
    // The same on every rank: the open mode is collective.
    if !ds.model.writable {
        return Ok(());
    }
    // 1. This rank's chunks, then the chunks several ranks wrote parts of,
    // each by its owner (a collective step, made whatever went before).
    let durable = ds.durability.commit_is_durable(explicit);
    let flushed = engine::flush(ds);
    let exchanged = exchange(ds, comm, pending);
    let stored = flushed.and(exchanged).and_then(|()| if durable { ds.store.sync() } else { Ok(()) });
    // 2. Statuses and digests.
    let digest = stored.and_then(|()| super::digest::metadata(&ds.model, &ds.write_options()));
    let mut mine = [0u8; 12];
    mine[..4].copy_from_slice(&digest.as_ref().err().map_or(0, |e| e.0).to_le_bytes());
    mine[4..].copy_from_slice(&digest.as_ref().map_or(0, |d| *d).to_le_bytes());
    let all = comm.all_gather(&mine)?;
    if let Some(code) = all.iter().map(|r| i32::from_le_bytes([r[0], r[1], r[2], r[3]])).find(|&c| c != 0) {
        return Err(NcError(code));
    }
    if all.iter().any(|r| r[4..] != mine[4..]) {
        crate::zmap::trace::log(
            1,
            format_args!(
                "parallel commit of {}: rank {} finds the ranks' metadata differ (a define-mode or attribute call \
                 not made alike on every rank): nothing written",
                ds.path,
                comm.rank()
            ),
        );
        return Err(NcError::EINVAL);
    }
    // 3. Growable dimensions: the longest any rank has.
    agree_lengths(ds, comm)?;
    // 4. Every rank's chunks are stored.
    comm.barrier()?;
    // 5. Rank 0 writes the metadata, in the serial commit's order.
    let written = if comm.rank() == ROOT { ds.flush_metadata(explicit) } else { Ok(()) };
    let result = comm.broadcast_status(written, ROOT);
    if result.is_ok() && comm.rank() != ROOT {
        mark_committed(ds);
    }
    // A chunk of a variable this rank defined may have been stored by
    // another rank: it must be read before a partial write, never assumed
    // to be fill (the serial shortcut for variables a handle defined).
    ds.model.groups.iter_mut().flat_map(|g| g.vars.iter_mut()).for_each(|v| v.fresh = false);
    if result.is_ok() {
        // Every chunk cached here is clean now (stored at step 1), but may
        // be older than what another rank stored since this rank read it:
        // after a commit every rank sees every rank's writes, as netCDF's
        // parallel rules promise after nc_sync.
        ds.caches.values_mut().for_each(crate::io::ChunkCache::clear);
    }
    result
}

/// Growable (unlimited, and pure Zarr's appendable) dimensions take the
/// longest length any rank has (an all-reduce): each rank saw only its
/// own writes. The dataset is dirty on every rank if it is on any.
fn agree_lengths(ds: &mut Dataset, comm: &Comm) -> NcResult<()> {
    let growable: Vec<usize> = (0..ds.model.dims.len()).filter(|&d| super::digest::grows(&ds.model.dims[d])).collect();
    let mut lengths: Vec<u64> = std::iter::once(u64::from(ds.model.dirty))
        .chain(growable.iter().map(|&d| ds.model.dims[d].len as u64))
        .collect();
    comm.all_reduce_u64(&mut lengths, Reduce::Max)?;
    let mut changed = lengths[0] != 0;
    for (&d, &len) in growable.iter().zip(&lengths[1..]) {
        let len = usize::try_from(len).map_err(|_| NcError::EINTERNAL)?;
        if ds.model.dims[d].len != len {
            ds.model.dims[d].len = len;
            changed = true;
        }
    }
    ds.model.dirty |= changed;
    Ok(())
}

/// What rank 0's commit did to its model, on a rank that did not write:
/// every group and variable is now stored where its name says, and
/// nothing is left to write.
fn mark_committed(ds: &mut Dataset) {
    let model = &mut ds.model;
    for g in 0..model.groups.len() {
        let gkey = model.group_key(g);
        let group = &mut model.groups[g];
        group.stored_path = Some(gkey.clone());
        for var in &mut group.vars {
            var.stored_path = Some(crate::zmap::join(&gkey, &var.name));
        }
    }
    model.dirty = false;
}

/// A renamed variable's or group's stored objects move once, by rank 0,
/// after every rank's earlier chunk writes are done (the barrier: no rank
/// is writing below `old` while it moves); the others then only follow
/// the new names.
pub fn move_stored(ds: &mut Dataset, old: &str, new: &str) -> NcResult<()> {
    without_parallel(ds, |ds, par| {
        par.comm.barrier()?;
        let moved = if par.comm.rank() == ROOT { ds.move_stored(old, new) } else { Ok(()) };
        par.comm.broadcast_status(moved, ROOT)?;
        if par.comm.rank() != ROOT {
            ds.rebase_stored_paths(old, new);
        }
        Ok(())
    })
}

/// `nc_abort` collectively: unwritten chunks are dropped on every rank;
/// rank 0 alone deletes a created store or takes back an unfinished
/// commit (several ranks deleting one store would race); its result is
/// every rank's.
pub fn abort(ds: &mut Dataset) -> NcResult<()> {
    without_parallel(ds, |ds, par| {
        ds.caches.clear();
        if !ds.model.writable && !ds.created {
            // Nothing to undo: opened read only on every rank (the open
            // mode is collective), or inherited by a forked child, which
            // must not wait for the ranks.
            return Ok(());
        }
        par.comm.barrier()?;
        let done = if par.comm.rank() == ROOT { ds.abort() } else { Ok(()) };
        par.comm.broadcast_status(done, ROOT)
    })
}
