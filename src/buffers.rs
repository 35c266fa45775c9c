//! Buffers whose size comes from a dataset's metadata (a chunk's size, a
//! decoded size a codec header claims), allocated fallibly: a size no
//! memory can hold is NC_ENOMEM, never an abort of the whole process.
//!
//! Chunk-sized buffers that are done with (a stored chunk once decoded,
//! a codec stage's output once the next stage read it, a chunk once
//! copied out or stored) can be handed back with [`recycle`] and are then
//! reused by the next buffer of about their size, on any thread. A big
//! buffer freed and allocated anew costs a page fault and a page clearing
//! per 4 KiB, since the allocator gives it back to the system in between:
//! that was a quarter of the time of reading compressed data, and of
//! reading unaligned blocks of raw chunks.
//!
//! The spares are the process's, not a thread's: most buffers are used by
//! a call's workers, which are gone when it returns, and their spares
//! with them. The pool's lock is taken only inside library calls, whose
//! workers are joined before the call leaves the call gate, so a `fork`
//! (which waits at the gate) never copies it held.

use std::sync::Mutex;

use crate::error::{NcError, NcResult};

/// The spare buffers kept, and the sizes worth keeping: at most
/// [`SPARE_TOTAL`] bytes in all stay allocated between calls.
const SPARES: usize = 16;
const SPARE_MIN: usize = 64 << 10;
const SPARE_MAX: usize = 16 << 20;
const SPARE_TOTAL: usize = 32 << 20;

static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// Hand back a buffer that is done with, for reuse.
pub fn recycle(buf: Vec<u8>) {
    if !(SPARE_MIN..=SPARE_MAX).contains(&buf.capacity()) {
        return;
    }
    let _inside = crate::gate::enter();
    let mut evicted = Vec::new();
    if let Ok(mut spare) = SPARE.lock() {
        // The oldest make room (freed once the lock is let go).
        let mut held: usize = spare.iter().map(Vec::capacity).sum();
        while !spare.is_empty() && (spare.len() == SPARES || held + buf.capacity() > SPARE_TOTAL) {
            let oldest = spare.remove(0);
            held -= oldest.capacity();
            evicted.push(oldest);
        }
        spare.push(buf);
    }
    drop(evicted);
}

/// A spare buffer with room for `n` bytes, not much more, emptied.
fn spare(n: usize) -> Option<Vec<u8>> {
    if n < SPARE_MIN {
        return None;
    }
    let _inside = crate::gate::enter();
    let mut spare = SPARE.lock().ok()?;
    let at = spare.iter().rposition(|b| b.capacity() >= n && b.capacity() / 2 <= n)?;
    let mut buf = spare.swap_remove(at);
    buf.clear();
    Some(buf)
}

/// An empty vector with room for `n` bytes.
pub fn with_capacity(n: usize) -> NcResult<Vec<u8>> {
    if let Some(buf) = spare(n) {
        return Ok(buf);
    }
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| NcError::ENOMEM)?;
    Ok(v)
}

/// `n` zero bytes, asked of the allocator as zeroed memory: fresh pages
/// from the system are zero already, so big buffers cost no clearing
/// pass (`calloc`).
pub fn zeroed(n: usize) -> NcResult<Vec<u8>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if let Some(mut buf) = spare(n) {
        buf.resize(n, 0);
        return Ok(buf);
    }
    let layout = std::alloc::Layout::array::<u8>(n).map_err(|_| NcError::ENOMEM)?;
    // SAFETY: the layout's size is not zero (checked above).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(NcError::ENOMEM);
    }
    // SAFETY: `ptr` came from the global allocator with this layout (u8,
    // size n, so capacity n), and its n bytes are initialized (zero).
    Ok(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

/// `n` bytes of no particular value (a spare buffer's old contents, else
/// zeros), for a buffer every byte of which is set before it is read:
/// neither cleared nor faulted in fresh when a spare will do.
pub fn overwritable(n: usize) -> NcResult<Vec<u8>> {
    if n >= SPARE_MIN {
        let _inside = crate::gate::enter();
        if let Ok(mut spare) = SPARE.lock()
            && let Some(at) = spare.iter().rposition(|b| b.len() >= n && b.capacity() / 2 <= n)
        {
            let mut buf = spare.swap_remove(at);
            // Its bytes up to its old length were all written: still so.
            buf.truncate(n);
            return Ok(buf);
        }
    }
    zeroed(n)
}

/// `pattern` repeated `times` times.
pub fn repeat(pattern: &[u8], times: usize) -> NcResult<Vec<u8>> {
    if pattern.iter().all(|&b| b == 0) {
        return zeroed(pattern.len().checked_mul(times).ok_or(NcError::ENOMEM)?);
    }
    let total = pattern.len().checked_mul(times).ok_or(NcError::ENOMEM)?;
    let mut v = with_capacity(total)?;
    if total == 0 {
        return Ok(v);
    }
    v.extend_from_slice(pattern);
    // Doubling copies, as `[T]::repeat` does.
    while v.len() * 2 <= total {
        v.extend_from_within(..);
    }
    let rest = total - v.len();
    v.extend_from_within(..rest);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_sizes_are_enomem() {
        assert_eq!(zeroed(usize::MAX).err(), Some(NcError::ENOMEM));
        assert_eq!(repeat(&[1, 2], usize::MAX / 2 + 1).err(), Some(NcError::ENOMEM));
        assert_eq!(with_capacity(isize::MAX as usize + 1).err(), Some(NcError::ENOMEM));
        assert_eq!(repeat(&[1, 2], 3).unwrap(), vec![1, 2, 1, 2, 1, 2]);
        assert_eq!(zeroed(3).unwrap(), vec![0, 0, 0]);
    }

    #[test]
    fn recycled_buffers_come_back_cleared() {
        // Sizes no other test uses (the spares are the process's, and
        // tests run at once).
        let mut used = zeroed(12_345_677).unwrap();
        used.fill(7);
        let at = used.as_ptr();
        recycle(used);
        let again = zeroed(12_345_000).unwrap();
        assert_eq!(again.as_ptr(), at, "reused");
        assert!(again.len() == 12_345_000 && again.iter().all(|&b| b == 0));
        recycle(again);
        assert!(with_capacity(40_000).unwrap().capacity() < 12_345_000, "too small to be kept");
        assert!(with_capacity(12_345_600).unwrap().is_empty());

        // Bounded (in the same test: it empties the spares).
        for _ in 0..3 * SPARES {
            recycle(Vec::with_capacity(SPARE_MAX));
        }
        let spare = SPARE.lock().unwrap();
        assert!(spare.len() <= SPARES);
        assert!(spare.iter().map(Vec::capacity).sum::<usize>() <= SPARE_TOTAL);
    }
}
