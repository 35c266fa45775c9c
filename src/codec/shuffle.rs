//! Byte shuffle, shared by the `shuffle` codec and blosc: all first bytes
//! of the elements, then all second bytes, and so on. Trailing bytes that
//! do not fill an element stay where they are.
//!
//! Elements of 2, 4 and 8 bytes (nearly all real data) go 16 at a time
//! through SSE2, which every x86-64 has: unshuffling interleaves the
//! byte planes pairwise, one byte from each, log2(size) times over (the
//! planes of bytes j and j + size/2 first), and shuffling undoes it,
//! splitting even from odd bytes the same number of times. Other sizes,
//! the last elements of a block and other machines take the plain loop.

/// Split `data` into byte planes of elements `size` bytes wide.
pub fn shuffle(data: &[u8], size: usize) -> Vec<u8> {
    let mut out = vec![0u8; data.len()];
    shuffle_into(data, size, &mut out);
    out
}

/// Undo [`shuffle`].
#[cfg(test)]
pub fn unshuffle(data: &[u8], size: usize) -> Vec<u8> {
    let mut out = vec![0u8; data.len()];
    unshuffle_into(data, size, &mut out);
    out
}

/// [`shuffle`] into `out`, which must be as long as `data`.
pub fn shuffle_into(data: &[u8], size: usize, out: &mut [u8]) {
    assert_eq!(data.len(), out.len(), "shuffle_into: lengths differ");
    let n = data.len() / size.max(1);
    if size <= 1 || n == 0 {
        out.copy_from_slice(data);
        return;
    }
    let done = simd::shuffle(data, size, n, out);
    for i in done..n {
        for b in 0..size {
            out[b * n + i] = data[i * size + b];
        }
    }
    out[n * size..].copy_from_slice(&data[n * size..]);
}

/// [`unshuffle`] into `out`, which must be as long as `data`.
pub fn unshuffle_into(data: &[u8], size: usize, out: &mut [u8]) {
    assert_eq!(data.len(), out.len(), "unshuffle_into: lengths differ");
    let n = data.len() / size.max(1);
    if size <= 1 || n == 0 {
        out.copy_from_slice(data);
        return;
    }
    unshuffle_span(data, n, 0, size, &mut out[..n * size]);
    out[n * size..].copy_from_slice(&data[n * size..]);
}

/// Elements `first..first + out.len() / size` of byte planes `stride`
/// bytes apart (plane j's byte of element i at `planes[j * stride + i]`),
/// interleaved into `out`: part of an unshuffle, for a read that wants
/// only some elements of a shuffled block.
pub fn unshuffle_span(planes: &[u8], stride: usize, first: usize, size: usize, out: &mut [u8]) {
    let count = out.len() / size.max(1);
    assert!(
        size >= 1
            && count * size == out.len()
            && first + count <= stride
            && planes.len() >= (size - 1) * stride + first + count,
        "unshuffle_span: planes too short"
    );
    let done = simd::unshuffle(planes, stride, first, size, count, out);
    for i in done..count {
        for b in 0..size {
            out[i * size + b] = planes[b * stride + first + i];
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    /// Elements per step: one 16-byte vector per byte plane.
    const STEP: usize = 16;

    /// Shuffle the first elements of `data` (n elements of `size` bytes)
    /// 16 at a time; returns how many elements were done (0 for sizes
    /// this does not handle).
    pub fn shuffle(data: &[u8], size: usize, n: usize, out: &mut [u8]) -> usize {
        match size {
            // SAFETY: SSE2 is part of x86-64, so every x86-64 CPU has
            // the target feature.
            2 => unsafe { shuffle_n::<2>(data, n, out) },
            // SAFETY: as above.
            4 => unsafe { shuffle_n::<4>(data, n, out) },
            // SAFETY: as above.
            8 => unsafe { shuffle_n::<8>(data, n, out) },
            _ => 0,
        }
    }

    /// Undo [`shuffle`] for the first of `n` elements, as it does them,
    /// taking them from element `first` of planes `stride` bytes apart.
    pub fn unshuffle(data: &[u8], stride: usize, first: usize, size: usize, n: usize, out: &mut [u8]) -> usize {
        match size {
            // SAFETY: as in `shuffle`.
            2 => unsafe { unshuffle_n::<2>(data, stride, first, n, out) },
            // SAFETY: as in `shuffle`.
            4 => unsafe { unshuffle_n::<4>(data, stride, first, n, out) },
            // SAFETY: as in `shuffle`.
            8 => unsafe { unshuffle_n::<8>(data, stride, first, n, out) },
            _ => 0,
        }
    }

    /// Unshuffle the first `n / 16 * 16` of `n` elements, from element
    /// `first` of planes `stride` bytes apart (checked: the planes hold
    /// them, `out` holds `n * S` bytes).
    #[target_feature(enable = "sse2")]
    fn unshuffle_n<const S: usize>(data: &[u8], stride: usize, first: usize, n: usize, out: &mut [u8]) -> usize {
        assert!(first + n <= stride && data.len() >= (S - 1) * stride + first + n && out.len() >= n * S);
        let blocks = n / STEP;
        for k in 0..blocks {
            let i = first + k * STEP;
            // SAFETY: plane j's bytes i..i+16 lie in
            // data[j*stride..j*stride + first + n] (i + 16 <= first + n,
            // checked above); unaligned loads.
            let mut v: [__m128i; S] = std::array::from_fn(|j| unsafe {
                _mm_loadu_si128(data.as_ptr().add(j * stride + i) as *const __m128i)
            });
            // S planes (streams of one vector) become one stream of S
            // vectors: each round interleaves stream j with stream j + m/2.
            let mut m = S;
            while m > 1 {
                let len = S / m; // vectors per stream now
                let mut next = v;
                for j in 0..m / 2 {
                    for t in 0..len {
                        let (a, b) = (v[j * len + t], v[(j + m / 2) * len + t]);
                        next[j * 2 * len + 2 * t] = _mm_unpacklo_epi8(a, b);
                        next[j * 2 * len + 2 * t + 1] = _mm_unpackhi_epi8(a, b);
                    }
                }
                v = next;
                m /= 2;
            }
            for (t, vec) in v.iter().enumerate() {
                // SAFETY: the step's elements are out[k*16*S..(k+1)*16*S].
                unsafe { _mm_storeu_si128(out.as_mut_ptr().add(k * STEP * S + t * 16) as *mut __m128i, *vec) };
            }
        }
        blocks * STEP
    }

    /// Shuffle as [`unshuffle_n`] unshuffles.
    #[target_feature(enable = "sse2")]
    fn shuffle_n<const S: usize>(data: &[u8], n: usize, out: &mut [u8]) -> usize {
        assert!(data.len() >= n * S && out.len() >= n * S);
        let blocks = n / STEP;
        let low = _mm_set1_epi16(0x00ff);
        for k in 0..blocks {
            let i = k * STEP;
            // SAFETY: elements i..i+16 are data[i*S..(i+16)*S].
            let mut v: [__m128i; S] = std::array::from_fn(|t| unsafe {
                _mm_loadu_si128(data.as_ptr().add(i * S + t * 16) as *const __m128i)
            });
            // One stream of S vectors becomes S planes: each round splits
            // every stream into its even bytes (kept as stream j) and odd
            // bytes (stream j + m), undoing one round of `unshuffle_n`.
            let mut m = 1;
            while m < S {
                let len = S / m;
                let mut next = v;
                for j in 0..m {
                    for t in 0..len / 2 {
                        let (x, y) = (v[j * len + 2 * t], v[j * len + 2 * t + 1]);
                        let even = _mm_packus_epi16(_mm_and_si128(x, low), _mm_and_si128(y, low));
                        let odd = _mm_packus_epi16(_mm_srli_epi16(x, 8), _mm_srli_epi16(y, 8));
                        next[j * (len / 2) + t] = even;
                        next[(j + m) * (len / 2) + t] = odd;
                    }
                }
                v = next;
                m *= 2;
            }
            for (j, vec) in v.iter().enumerate() {
                // SAFETY: plane j's bytes i..i+16 lie in out[j*n..(j+1)*n].
                unsafe { _mm_storeu_si128(out.as_mut_ptr().add(j * n + i) as *mut __m128i, *vec) };
            }
        }
        blocks * STEP
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod simd {
    pub fn shuffle(_: &[u8], _: usize, _: usize, _: &mut [u8]) -> usize {
        0
    }
    pub fn unshuffle(_: &[u8], _: usize, _: usize, _: usize, _: usize, _: &mut [u8]) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, one byte at a time.
    fn reference(data: &[u8], size: usize) -> Vec<u8> {
        let n = data.len() / size;
        let mut out = data.to_vec();
        for i in 0..n {
            for b in 0..size {
                out[b * n + i] = data[i * size + b];
            }
        }
        out
    }

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

    #[test]
    fn vector_paths_match_the_definition() {
        // Every length around the 16-element steps, for every size the
        // vector code takes and some it does not.
        for size in [2, 3, 4, 8, 12] {
            for len in (0..size * 40 + 7).chain([size * 1000 + 3]) {
                let data: Vec<u8> = (0..len as u32).map(|i| (i.wrapping_mul(2654435761) >> 11) as u8).collect();
                let shuffled = shuffle(&data, size);
                assert_eq!(shuffled, reference(&data, size), "size {size} len {len}");
                assert_eq!(unshuffle(&shuffled, size), data, "size {size} len {len}");
            }
        }
    }

    #[test]
    fn spans_of_planes_are_the_same_elements_of_the_whole_unshuffle() {
        for size in [1, 2, 3, 4, 8] {
            let n = 100;
            let data: Vec<u8> = (0..(n * size) as u32).map(|i| (i.wrapping_mul(2654435761) >> 9) as u8).collect();
            let planes = shuffle(&data, size);
            for first in [0, 1, 15, 16, 17, 50] {
                for count in [0, 1, 15, 16, 17, 33, n - first] {
                    let count = count.min(n - first);
                    let mut out = vec![0u8; count * size];
                    unshuffle_span(&planes, n, first, size, &mut out);
                    assert_eq!(
                        out,
                        data[first * size..(first + count) * size],
                        "size {size} first {first} count {count}"
                    );
                }
            }
        }
    }
}
