//! Decoding only some bytes of a blosc 1 frame, as c-blosc's
//! `blosc_getitem` does: a frame's blocks are compressed (and shuffled)
//! each on its own and the block table says where each starts, so a read
//! that needs a few bytes of a chunk decodes only the blocks holding
//! them, and of those only what it needs:
//!
//! * unshuffled streams: the streams holding the bytes, each only up to
//!   the last byte wanted (LZ4 and blosclz can stop there);
//! * byte-shuffled blocks split into one stream per byte of the
//!   elements: each stream up to the last element wanted;
//! * other blocks (bit shuffle, shuffled but unsplit) whole.
//!
//! The header, the block table and every stream header of the blocks
//! read are checked as a whole decode checks them, and the streams
//! decoded are checked as far as they are decoded; damage beyond that
//! (in blocks or stream tails not read) is found by the reads that need
//! those bytes. Whatever succeeds gives the bytes a whole decode gives.

use std::ops::Range;

use super::lz4_prefix::lz4_decode_prefix;
use super::{
    DOBITSHUFFLE, DOSHUFFLE, FORMAT_BLOSCLZ, FORMAT_LZ4, FrameHeader, HEADER, MEMCPYED, bit_unshuffle,
    blosclz_decode_prefix, inner_decode, splits, u32_at,
};
use crate::codec::shuffle;
use crate::error::{NcError, NcResult};

/// How a block's stored bytes map to its decoded bytes.
#[derive(Clone, Copy, PartialEq)]
enum BlockForm {
    /// Stored bytes are the decoded bytes (streams one after another).
    Plain,
    /// One stream per byte of the elements (byte shuffle, split).
    Planes,
    /// Anything else: decoded whole, then unshuffled.
    Whole,
}

/// One block a read needs: which, and the span of it (block-local
/// bytes) its ranges cover.
struct Needed {
    block: usize,
    lo: usize,
    hi: usize,
}

/// The bytes `ranges` (sorted, disjoint, inside the chunk) of the chunk
/// the frame `data` holds, one after another; `Ok(None)` when that would
/// decode more than `budget` bytes (the caller decodes the whole frame
/// instead). A frame that does not hold `chunk_len` bytes is NC_EFILTER.
pub fn decode_ranges(
    data: &[u8],
    chunk_len: usize,
    ranges: &[Range<usize>],
    budget: usize,
) -> NcResult<Option<Vec<u8>>> {
    let FrameHeader { flags, typesize, nbytes, blocksize } = FrameHeader::parse(data)?;
    if nbytes != chunk_len {
        return Err(NcError::EFILTER);
    }
    check_ranges(ranges, chunk_len)?;
    let wanted: usize = ranges.iter().map(|r| r.len()).sum();
    let mut out = crate::buffers::with_capacity(wanted)?;
    if flags & MEMCPYED != 0 {
        // Stored as is: no decoding at all.
        let raw = data.get(HEADER..HEADER + nbytes).ok_or(NcError::EFILTER)?;
        ranges.iter().for_each(|r| out.extend_from_slice(&raw[r.clone()]));
        return Ok(Some(out));
    }
    if blocksize == 0 {
        return Err(NcError::EFILTER);
    }
    // As the whole decode: a table claiming more blocks than the frame
    // can hold offsets for is refused.
    if nbytes.div_ceil(blocksize) > (data.len() - HEADER) / 4 {
        return Err(NcError::EFILTER);
    }
    let frame = Frame { data, flags, typesize, blocksize, nbytes };
    let needed = needed_blocks(ranges, blocksize);
    let cost: usize = needed.iter().map(|n| frame.cost(n)).sum();
    if cost > budget {
        return Ok(None);
    }
    let mut scratch = crate::buffers::zeroed(blocksize.min(nbytes))?;
    let mut plain = Vec::new();
    let mut next_range = 0;
    for n in &needed {
        let start = n.block * blocksize;
        let bsize = blocksize.min(nbytes - start);
        let (form, neblock) = frame.decode_block(n, &mut scratch[..bsize])?;
        // The block's decoded bytes lo..hi, from `base` in `view`.
        let (view, base): (&[u8], usize) = match form {
            BlockForm::Plain => (&scratch[..bsize], 0),
            BlockForm::Planes => {
                let (first, last) = (n.lo / typesize, n.hi.div_ceil(typesize));
                plain.clear();
                plain.resize((last - first) * typesize, 0);
                shuffle::unshuffle_span(&scratch[..bsize], neblock, first, typesize, &mut plain);
                (&plain[..], first * typesize)
            }
            BlockForm::Whole => {
                plain = if flags & DOBITSHUFFLE != 0 {
                    bit_unshuffle(&scratch[..bsize], typesize, data[0])
                } else {
                    let mut unshuffled = vec![0; bsize];
                    shuffle::unshuffle_into(&scratch[..bsize], typesize, &mut unshuffled);
                    unshuffled
                };
                (&plain[..], 0)
            }
        };
        // Every range (or its part) inside this block.
        while let Some(r) = ranges.get(next_range) {
            let (a, z) = (r.start.max(start), r.end.min(start + bsize));
            if a < z {
                out.extend_from_slice(&view[a - start - base..z - start - base]);
            }
            if r.end > start + bsize {
                break; // continues in the next block
            }
            next_range += 1;
        }
    }
    Ok(Some(out))
}

/// Ranges must be sorted, disjoint and inside the chunk (the engine's
/// runs are): anything else is a caller's mistake.
fn check_ranges(ranges: &[Range<usize>], chunk_len: usize) -> NcResult<()> {
    let mut end = 0;
    for r in ranges {
        if r.start < end || r.end < r.start || r.end > chunk_len {
            return Err(NcError::EINTERNAL);
        }
        end = r.end;
    }
    Ok(())
}

/// The blocks `ranges` touch, in order, each with the span they cover.
fn needed_blocks(ranges: &[Range<usize>], blocksize: usize) -> Vec<Needed> {
    let mut needed: Vec<Needed> = Vec::new();
    for r in ranges.iter().filter(|r| !r.is_empty()) {
        for block in r.start / blocksize..r.end.div_ceil(blocksize) {
            let start = block * blocksize;
            let (lo, hi) = (r.start.max(start) - start, r.end.min(start + blocksize) - start);
            match needed.last_mut() {
                Some(n) if n.block == block => n.hi = hi,
                _ => needed.push(Needed { block, lo, hi }),
            }
        }
    }
    needed
}

/// A frame's header, checked.
struct Frame<'a> {
    data: &'a [u8],
    flags: u8,
    typesize: usize,
    blocksize: usize,
    nbytes: usize,
}

impl Frame<'_> {
    /// How block `block` is stored: its form and bytes per stream.
    fn form(&self, bsize: usize) -> NcResult<(BlockForm, usize, usize)> {
        let nsplits = if splits(self.flags, self.typesize, self.blocksize, bsize) { self.typesize } else { 1 };
        let neblock = bsize / nsplits;
        // As the whole decode: a split leaving bytes over is no block.
        if neblock * nsplits != bsize {
            return Err(NcError::EFILTER);
        }
        let form = if self.flags & DOBITSHUFFLE != 0 {
            BlockForm::Whole
        } else if self.flags & DOSHUFFLE != 0 && self.typesize > 1 {
            if nsplits == self.typesize { BlockForm::Planes } else { BlockForm::Whole }
        } else {
            BlockForm::Plain
        };
        Ok((form, nsplits, neblock))
    }

    fn block_len(&self, block: usize) -> usize {
        self.blocksize.min(self.nbytes - block * self.blocksize)
    }

    /// Bytes of stream `k` a read of `n` decodes (0: none).
    fn want(&self, form: BlockForm, neblock: usize, k: usize, n: &Needed) -> usize {
        match form {
            BlockForm::Plain if k * neblock < n.hi && (k + 1) * neblock > n.lo => (n.hi - k * neblock).min(neblock),
            BlockForm::Plain => 0,
            BlockForm::Planes => n.hi.div_ceil(self.typesize),
            BlockForm::Whole => neblock,
        }
    }

    /// Bytes decoded to read `n` (a malformed block costs nothing here:
    /// decoding it fails).
    fn cost(&self, n: &Needed) -> usize {
        let Ok((form, nsplits, neblock)) = self.form(self.block_len(n.block)) else { return 0 };
        (0..nsplits).map(|k| self.want(form, neblock, k, n)).sum()
    }

    /// Decode what `n` needs of its block into `block` (stored form:
    /// still shuffled); returns the form and bytes per stream.
    fn decode_block(&self, n: &Needed, block: &mut [u8]) -> NcResult<(BlockForm, usize)> {
        let (form, _, neblock) = self.form(block.len())?;
        let format = self.flags >> 5;
        let mut pos = u32_at(self.data, HEADER + 4 * n.block)?;
        for (k, stream) in block.chunks_mut(neblock).enumerate() {
            let cbytes = u32_at(self.data, pos)?;
            pos += 4;
            let src = self.data.get(pos..pos + cbytes).ok_or(NcError::EFILTER)?;
            pos += cbytes;
            let want = self.want(form, neblock, k, n);
            if want == 0 {
                continue;
            }
            if cbytes == neblock {
                stream[..want].copy_from_slice(&src[..want]);
            } else {
                decode_prefix(format, src, stream, want)?;
            }
        }
        Ok((form, neblock))
    }
}

/// Decode at least the first `want` bytes of one inner stream whose
/// whole output is `out.len()` bytes: LZ4 and blosclz stop there, the
/// other codecs decode the whole stream.
fn decode_prefix(format: u8, src: &[u8], out: &mut [u8], want: usize) -> NcResult<()> {
    if want == out.len() {
        return inner_decode(format, src, out);
    }
    match format {
        FORMAT_LZ4 => lz4_decode_prefix(src, out, want),
        FORMAT_BLOSCLZ => {
            let got = blosclz_decode_prefix(src, out.len(), want)?;
            let head = got.get(..want).ok_or(NcError::EFILTER)?;
            out[..want].copy_from_slice(head);
            Ok(())
        }
        _ => inner_decode(format, src, out),
    }
}

#[cfg(test)]
// Lists of one byte range are what the decoder takes.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;
    use crate::codec::Codec;
    use crate::codec::blosc::Blosc;

    /// Range sets to try on a chunk of `len` bytes of `es`-byte elements:
    /// single elements spread out (a time series), one run (a slab), runs
    /// across block edges, strided runs, the whole chunk, and none.
    fn range_sets(len: usize, es: usize) -> Vec<Vec<Range<usize>>> {
        let elems = len / es;
        let e = |i: usize| i * es;
        let mut sets = vec![
            vec![],
            vec![0..len],
            vec![0..es.min(len)],
            vec![len - es..len],
            (0..8).map(|k| e(k * elems / 8)..e(k * elems / 8) + es).collect(),
            vec![e(elems / 3)..e(elems / 2)],
        ];
        // Runs of 100 elements every 1000 (crossing blocks of any size).
        sets.push((0..elems / 1000).map(|k| e(k * 1000 + 3)..e(k * 1000 + 103).min(len)).collect());
        // Odd byte ranges: the decoder takes any, not only elements.
        if len > 8200 {
            sets.push(vec![1..2, 5..4099, len / 2 + 1..len / 2 + 7, len - 3..len - 1]);
        }
        sets
    }

    fn pick(whole: &[u8], ranges: &[Range<usize>]) -> Vec<u8> {
        ranges.iter().flat_map(|r| whole[r.clone()].iter().copied()).collect()
    }

    /// Every range set decodes to what the whole decode holds there.
    fn agrees(frame: &[u8], whole: &[u8], es: usize, what: &str) {
        for ranges in range_sets(whole.len(), es) {
            let got = decode_ranges(frame, whole.len(), &ranges, usize::MAX);
            let ok = matches!(&got, Ok(Some(bytes)) if *bytes == pick(whole, &ranges));
            assert!(ok, "{what} {:?}: {:?}", &ranges[..ranges.len().min(4)], got.map(|b| b.map(|b| b.len())));
        }
    }

    fn data(len: usize) -> Vec<u8> {
        (0..len as u32)
            .map(|i| if i % 64 == 0 { (i.wrapping_mul(2654435761) >> 9) as u8 } else { (i / 4096) as u8 })
            .collect()
    }

    #[test]
    fn our_frames_agree_with_the_whole_decode() {
        for len in [4000, 200_000, 300_001] {
            let d = data(len);
            for cname in ["blosclz", "lz4", "zstd", "zlib"] {
                for shuffle in [0, 1, 2] {
                    for typesize in [1, 2, 4, 8] {
                        for blocksize in [0, 256, 4096, 65_536] {
                            let b = Blosc { cname: cname.into(), clevel: 5, shuffle, typesize, blocksize };
                            let frame = b.encode(&d).unwrap();
                            let what = format!("{cname} shuffle {shuffle} typesize {typesize} blocks {blocksize}");
                            assert_eq!(b.decode(&frame, len).unwrap(), d, "{what}");
                            agrees(&frame, &d, typesize, &what);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn numcodecs_frames_agree_with_the_whole_decode() {
        // testdata/gen_blosc_frames.py: numcodecs 0.16 (c-blosc 1.21.7).
        let file = include_bytes!("../testdata/blosc-numcodecs-frames.bin");
        let expect: Vec<u8> = (0..20_000u32)
            .flat_map(|i| {
                ((i / 7) | (((i.wrapping_mul(2654435761) >> 24) & 0xff) * u32::from(i % 16 == 0))).to_le_bytes()
            })
            .collect();
        let (mut at, mut frames) = (0, 0);
        let mut blocksizes = std::collections::BTreeSet::new();
        while at < file.len() {
            let len = u32_at(file, at).unwrap();
            let frame = &file[at + 4..at + 4 + len];
            at += 4 + len;
            let b = Blosc { cname: "lz4".into(), clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 };
            assert_eq!(b.decode(frame, expect.len()).unwrap(), expect, "frame {frames}");
            agrees(frame, &expect, 4, &format!("numcodecs frame {frames} (flags {:#x})", frame[2]));
            blocksizes.insert(u32_at(frame, 8).unwrap());
            frames += 1;
        }
        assert_eq!(frames, 24);
        // Whole-buffer blocks, 64 KiB split blocks with a shorter last
        // one, and zstd's 4 KiB blocks.
        assert_eq!(blocksizes.into_iter().collect::<Vec<_>>(), [4096, 65_536, 80_000]);
    }

    #[test]
    fn decodes_only_what_the_ranges_need() {
        // 64 KiB of u32s in 4 KiB blocks, each block 4 byte planes.
        let d = data(1 << 16);
        let b = Blosc { cname: "lz4".into(), clevel: 5, shuffle: 1, typesize: 4, blocksize: 4096 };
        let frame = b.encode(&d).unwrap();
        let parsed = Frame { data: &frame, flags: frame[2], typesize: 4, blocksize: 4096, nbytes: 1 << 16 };
        let cost =
            |ranges: &[Range<usize>]| -> usize { needed_blocks(ranges, 4096).iter().map(|n| parsed.cost(n)).sum() };
        assert_eq!(cost(&[0..4]), 4, "one element: the first byte of each plane");
        assert_eq!(cost(&[4092..4096]), 4096, "the last element of a block: all of it");
        assert_eq!(cost(&[8192..8196, 40_000..40_004]), 4 + 4 * 785);
        assert_eq!(cost(&[0..1 << 16]), 1 << 16);
        // Over budget: the caller decodes the whole chunk.
        assert_eq!(decode_ranges(&frame, 1 << 16, &[0..1 << 16], 1000).unwrap(), None);
        assert_eq!(decode_ranges(&frame, 1 << 16, &[0..4], 1000).unwrap(), Some(d[..4].to_vec()));
        // Blocks not read may be damaged: a read of other blocks does
        // not see it, a read of them does.
        let mut damaged = frame.clone();
        let last_block = u32_at(&frame, HEADER + 4 * 15).unwrap();
        damaged[last_block + 4..].fill(0xff);
        assert_eq!(decode_ranges(&damaged, 1 << 16, &[0..4], usize::MAX).unwrap(), Some(d[..4].to_vec()));
        assert_eq!(decode_ranges(&damaged, 1 << 16, &[65_000..65_004], usize::MAX), Err(NcError::EFILTER));
    }

    #[test]
    fn bad_frames_are_errors() {
        let d = data(100_000);
        let b = Blosc { cname: "lz4".into(), clevel: 5, shuffle: 1, typesize: 4, blocksize: 8192 };
        let frame = b.encode(&d).unwrap();
        let all = [0..100_000];
        let ok = |f: &[u8], ranges: &[Range<usize>]| decode_ranges(f, 100_000, ranges, usize::MAX);
        assert_eq!(ok(&frame[..10], &all), Err(NcError::EFILTER), "no header");
        assert_eq!(decode_ranges(&frame, 99_996, &[0..4], usize::MAX), Err(NcError::EFILTER), "another size");
        assert_eq!(ok(&frame[..frame.len() / 2], &all), Err(NcError::EFILTER), "cut short");
        assert_eq!(ok(&frame[..40], &[0..4]), Err(NcError::EFILTER), "no room for the block table");
        let mut zero_blocks = frame.clone();
        zero_blocks[8..12].fill(0);
        assert_eq!(ok(&zero_blocks, &[0..4]), Err(NcError::EFILTER), "blocks of no bytes");
        let mut bad_start = frame.clone();
        bad_start[HEADER..HEADER + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(ok(&bad_start, &[0..4]), Err(NcError::EFILTER), "a block past the end");
        let mut bad_stream = frame.clone();
        let first = u32_at(&frame, HEADER).unwrap();
        bad_stream[first..first + 4].copy_from_slice(&(frame.len() as u32).to_le_bytes());
        assert_eq!(ok(&bad_stream, &[0..4]), Err(NcError::EFILTER), "a stream past the end");
        let mut odd_split = frame.clone();
        odd_split[8..12].copy_from_slice(&8191u32.to_le_bytes());
        assert_eq!(ok(&odd_split, &[0..4]), Err(NcError::EFILTER), "a split leaving bytes over");
        let mut memcpyed = frame.clone();
        memcpyed[2] |= MEMCPYED;
        assert_eq!(ok(&memcpyed, &[0..4]), Err(NcError::EFILTER), "stored, but too short");
        // The caller's own mistakes.
        assert_eq!(ok(&frame, &[4..8, 0..4]), Err(NcError::EINTERNAL), "unsorted");
        assert_eq!(ok(&frame, &[99_999..100_001]), Err(NcError::EINTERNAL), "past the chunk");
        // Any byte damaged anywhere: an error or the whole decode's bytes,
        // never a panic.
        let mut rng = 0x9e3779b97f4a7c15u64;
        for _ in 0..2000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mut f = frame.clone();
            let at = (rng >> 8) as usize % f.len();
            f[at] = (rng >> 40) as u8;
            let whole = b.decode(&f, 100_000);
            for ranges in range_sets(100_000, 4) {
                if let (Ok(Some(part)), Ok(whole)) = (ok(&f, &ranges), &whole) {
                    let first = part.iter().zip(pick(whole, &ranges)).position(|(a, b)| *a != b);
                    assert!(
                        first.is_none(),
                        "damage at {at} ({:#x}): {:?} differs at {first:?}",
                        f[at],
                        &ranges[..ranges.len().min(3)]
                    );
                }
            }
        }
    }

    #[test]
    fn stored_frames_copy_the_ranges() {
        let mut rng = 0x2545f4914f6cdd1du64;
        let d: Vec<u8> = (0..1000)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                (rng >> 32) as u8
            })
            .collect();
        let b = Blosc { cname: "lz4".into(), clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 };
        let frame = b.encode(&d).unwrap();
        assert_eq!(frame[2] & MEMCPYED, MEMCPYED);
        agrees(&frame, &d, 4, "memcpyed");
        assert_eq!(decode_ranges(&frame, 1000, &[0..1000], 0).unwrap(), Some(d), "costs nothing to decode");
    }
}
