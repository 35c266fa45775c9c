//! Byte shuffle, shared by the `shuffle` codec and blosc: all first bytes
//! of the elements, then all second bytes, and so on. Trailing bytes that
//! do not fill an element stay where they are.
//!
//! Each pass writes (or reads) one contiguous byte plane, so the memory
//! walked with a stride is only ever read, never written.

/// Split `data` into byte planes of elements `size` bytes wide.
pub fn shuffle(data: &[u8], size: usize) -> Vec<u8> {
    let mut out = data.to_vec();
    let n = data.len() / size.max(1);
    if size <= 1 || n == 0 {
        return out;
    }
    let elems = data.chunks_exact(size);
    for (b, plane) in out[..n * size].chunks_exact_mut(n).enumerate() {
        for (dst, elem) in plane.iter_mut().zip(elems.clone()) {
            *dst = elem[b];
        }
    }
    out
}

/// Undo [`shuffle`].
pub fn unshuffle(data: &[u8], size: usize) -> Vec<u8> {
    let mut out = data.to_vec();
    let n = data.len() / size.max(1);
    if size <= 1 || n == 0 {
        return out;
    }
    for (b, plane) in data[..n * size].chunks_exact(n).enumerate() {
        for (elem, &byte) in out[..n * size].chunks_exact_mut(size).zip(plane) {
            elem[b] = byte;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_and_trailing_bytes() {
        assert_eq!(shuffle(&[1, 2, 3, 4, 5, 6, 7], 3), vec![1, 4, 2, 5, 3, 6, 7]);
        assert_eq!(unshuffle(&[1, 4, 2, 5, 3, 6, 7], 3), vec![1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(shuffle(&[9, 8], 4), vec![9, 8]);
        let data: Vec<u8> = (0..1001u32).map(|i| (i * 37) as u8).collect();
        for size in [1, 2, 4, 8, 16] {
            assert_eq!(unshuffle(&shuffle(&data, size), size), data);
        }
    }
}
