//! Buffers whose size comes from a dataset's metadata (a chunk's size, a
//! decoded size a codec header claims), allocated fallibly: a size no
//! memory can hold is NC_ENOMEM, never an abort of the whole process.

use crate::error::{NcError, NcResult};

/// An empty vector with room for `n` bytes.
pub fn with_capacity(n: usize) -> NcResult<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| NcError::ENOMEM)?;
    Ok(v)
}

/// `n` zero bytes.
pub fn zeroed(n: usize) -> NcResult<Vec<u8>> {
    let mut v = with_capacity(n)?;
    v.resize(n, 0);
    Ok(v)
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
}
