//! Blosc 1 (numcodecs `blosc`, HDF5 filter 32001), the default compressor
//! of zarr-python. Written here from the format:
//!
//! * a 16-byte header: version, format version, flags, type size, then
//!   little-endian u32 decoded size, block size and encoded size;
//! * flags: 0x01 byte shuffle, 0x02 stored uncompressed ("memcpyed"),
//!   0x04 bit shuffle, 0x10 blocks not split into per-byte streams, and
//!   bits 5-7 the inner codec (0 blosclz, 1 lz4/lz4hc, 2 snappy, 3 zlib,
//!   4 zstd);
//! * unless memcpyed, one u32 offset per block, then each block as one
//!   stream (or `typesize` streams when split), each a u32 length and
//!   that many bytes (stored raw when the length equals the stream's size).
//!
//! Decoding supports blosclz, lz4, zlib and zstd inner codecs with byte,
//! bit or no shuffle; snappy is NC_ENOFILTER. Encoding
//! writes c-blosc's blocks with lz4 (liblz4, also for lz4hc), blosclz,
//! zlib or zstd; bit shuffle as one unsplit block.

mod lz4_prefix;
mod partial;

use std::io::Read;
use std::ops::Range;

use super::contexts::{Wrapper, inflate, lz4_decode_exact, zstd_decode_exact};
use super::{Codec, shuffle};
use crate::error::{NcError, NcResult};

const HEADER: usize = 16;
const DOSHUFFLE: u8 = 0x01;
const MEMCPYED: u8 = 0x02;
const DOBITSHUFFLE: u8 = 0x04;
const DONT_SPLIT: u8 = 0x10;
const MAX_SPLITS: usize = 16;
const MIN_BUFFERSIZE: usize = 128;

/// Inner codec ids in the flags (`compformat`).
const FORMAT_BLOSCLZ: u8 = 0;
const FORMAT_LZ4: u8 = 1;
const FORMAT_ZLIB: u8 = 3;
const FORMAT_ZSTD: u8 = 4;

pub struct Blosc {
    /// Inner codec for encoding: numcodecs `cname`.
    pub cname: String,
    pub clevel: i32,
    /// 0 none, 1 byte shuffle, 2 bit shuffle.
    pub shuffle: u32,
    pub typesize: usize,
    /// Bytes per block when encoding (numcodecs `blocksize`); 0: as
    /// c-blosc chooses.
    pub blocksize: usize,
}

fn u32_at(data: &[u8], at: usize) -> NcResult<usize> {
    let b = data.get(at..at + 4).ok_or(NcError::EFILTER)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

/// The fields of a frame's header that decoding needs; read by the whole
/// and the partial decoder alike.
struct FrameHeader {
    flags: u8,
    /// At least 1.
    typesize: usize,
    /// Decoded bytes.
    nbytes: usize,
    blocksize: usize,
}

impl FrameHeader {
    /// A frame shorter than its header is NC_EFILTER.
    fn parse(data: &[u8]) -> NcResult<FrameHeader> {
        if data.len() < HEADER {
            return Err(NcError::EFILTER);
        }
        Ok(FrameHeader {
            flags: data[2],
            typesize: (data[3] as usize).max(1),
            nbytes: u32_at(data, 4)?,
            blocksize: u32_at(data, 8)?,
        })
    }
}

/// Decode blosclz (blosc's own LZ77, derived from FastLZ): a control byte
/// below 32 introduces `ctrl + 1` literal bytes; above, a match of length
/// `(ctrl >> 5) + 2` (longer ones extended by bytes while they are 255) at
/// a distance of `((ctrl & 31) << 8) + next byte + 1`, or, for distance
/// code 31/255, a 16-bit distance beyond 8191.
fn blosclz_decode(src: &[u8], size: usize) -> NcResult<Vec<u8>> {
    blosclz_decode_prefix(src, size, size)
}

/// [`blosclz_decode`] that stops once `want` (< `size`) bytes are out:
/// the rest of the stream is neither decoded nor checked. Returns at
/// least `want` bytes, or all the stream holds.
fn blosclz_decode_prefix(src: &[u8], size: usize, want: usize) -> NcResult<Vec<u8>> {
    const MAX_DISTANCE: usize = 8191;
    let mut out: Vec<u8> = crate::buffers::with_capacity(size)?;
    let mut ip = 0;
    let next = |ip: &mut usize| -> NcResult<usize> {
        let b = *src.get(*ip).ok_or(NcError::EFILTER)?;
        *ip += 1;
        Ok(b as usize)
    };
    let mut ctrl = next(&mut ip)? & 31;
    loop {
        if ctrl >= 32 {
            let mut len = (ctrl >> 5) - 1;
            let mut ofs = (ctrl & 31) << 8;
            if len == 6 {
                loop {
                    let code = next(&mut ip)?;
                    len += code;
                    if code != 255 {
                        break;
                    }
                }
            }
            let code = next(&mut ip)?;
            ofs += code;
            if code == 255 && ofs == (31 << 8) + 255 {
                let far = (next(&mut ip)? << 8) + next(&mut ip)?;
                ofs = far + MAX_DISTANCE;
            }
            // As c-blosc: a stream never ends with a match (one that does
            // is cut there, so the size check below fails).
            if ip >= src.len() {
                break;
            }
            // The match starts ofs + 1 bytes back and is len + 3 long; it
            // may overlap what it produces (runs).
            let start = out.len().checked_sub(ofs + 1).ok_or(NcError::EFILTER)?;
            if out.len() + len + 3 > size {
                return Err(NcError::EFILTER);
            }
            for k in 0..len + 3 {
                let b = out[start + k];
                out.push(b);
            }
        } else {
            let n = ctrl + 1;
            let lit = src.get(ip..ip + n).ok_or(NcError::EFILTER)?;
            if out.len() + n > size {
                return Err(NcError::EFILTER);
            }
            out.extend_from_slice(lit);
            ip += n;
        }
        if want < size && out.len() >= want {
            break;
        }
        if ip >= src.len() {
            break;
        }
        ctrl = next(&mut ip)?;
    }
    Ok(out)
}

/// Undo bitshuffle on one block: the shuffled block holds, for each bit
/// of an element (byte-major, least significant bit first), that bit of
/// every element packed 8 to a byte. Only whole groups of 8 elements are
/// shuffled; with blosc format 2 a block of any other size is stored as
/// is, later formats shuffle the groups and copy the rest.
fn bit_unshuffle(block: &[u8], typesize: usize, format_version: u8) -> Vec<u8> {
    let n = block.len() / typesize;
    let shuffled = if format_version <= 2 && !n.is_multiple_of(8) { 0 } else { n - n % 8 };
    let mut out = block.to_vec();
    if shuffled == 0 {
        return out;
    }
    let row = shuffled / 8;
    out[..shuffled * typesize].fill(0);
    for j in 0..typesize {
        for k in 0..8 {
            let plane = &block[(j * 8 + k) * row..(j * 8 + k + 1) * row];
            for i in 0..shuffled {
                let bit = (plane[i / 8] >> (i % 8)) & 1;
                out[i * typesize + j] |= bit << k;
            }
        }
    }
    out
}

/// Encode blosclz: greedy LZ77 over a hash of the next 3 bytes, emitting
/// the literal runs and matches `blosclz_decode` reads.
fn blosclz_encode(data: &[u8]) -> Vec<u8> {
    const NEAR: usize = 8191; // distances up to this fit the short form
    const FAR: usize = NEAR + 65535;
    const HASH_BITS: u32 = 14;
    let mut out = Vec::with_capacity(data.len() + data.len() / 32 + 16);
    let flush = |out: &mut Vec<u8>, lit: &[u8]| {
        for run in lit.chunks(32) {
            out.push((run.len() - 1) as u8);
            out.extend_from_slice(run);
        }
    };
    let mut table = vec![usize::MAX; 1 << HASH_BITS];
    let hash = |b: &[u8]| {
        let v = u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16;
        (v.wrapping_mul(2654435761) >> (32 - HASH_BITS)) as usize
    };
    // c-blosc's decoder needs every match followed by more input: the last
    // bytes always go out as literals.
    let limit = data.len().saturating_sub(4);
    let (mut i, mut literal_start) = (0, 0);
    while i + 3 <= limit {
        let h = hash(&data[i..i + 3]);
        let candidate = table[h];
        table[h] = i;
        let usable = candidate != usize::MAX
            && i > 0
            && i - candidate <= FAR
            && data[candidate..candidate + 3] == data[i..i + 3];
        if !usable {
            i += 1;
            continue;
        }
        let mut len = 3;
        while i + len < limit && data[candidate + len] == data[i + len] {
            len += 1;
        }
        flush(&mut out, &data[literal_start..i]);
        let ofs = i - candidate - 1;
        let extra = len - 2; // (ctrl >> 5) for short matches
        let short_len = extra.min(7) as u8;
        let (hi, code) = if ofs < NEAR { ((ofs >> 8) as u8, (ofs & 255) as u8) } else { (31, 255) };
        out.push(short_len << 5 | hi);
        if extra >= 7 {
            let mut rest = len - 9;
            while rest >= 255 {
                out.push(255);
                rest -= 255;
            }
            out.push(rest as u8);
        }
        out.push(code);
        if ofs >= NEAR {
            let far = ofs - NEAR;
            out.extend_from_slice(&[(far >> 8) as u8, (far & 255) as u8]);
        }
        i += len;
        literal_start = i;
    }
    flush(&mut out, &data[literal_start..]);
    out
}

/// Bitshuffle one block (blosc format 2: only when the element count is a
/// multiple of 8, else the block stays as is).
fn bit_shuffle(block: &[u8], typesize: usize) -> Vec<u8> {
    let n = block.len() / typesize;
    if !n.is_multiple_of(8) {
        return block.to_vec();
    }
    let row = n / 8;
    // Bytes past the last whole element are copied, as `bit_unshuffle`
    // (and c-blosc) expect.
    let mut out = block.to_vec();
    out[..n * typesize].fill(0);
    for j in 0..typesize {
        for k in 0..8 {
            let plane = &mut out[(j * 8 + k) * row..(j * 8 + k + 1) * row];
            for i in 0..n {
                plane[i / 8] |= ((block[i * typesize + j] >> k) & 1) << (i % 8);
            }
        }
    }
    out
}

/// A size in a frame's header: blosc 1 frames hold at most 2 GiB.
fn frame_u32(n: usize) -> NcResult<[u8; 4]> {
    u32::try_from(n).ok().filter(|&n| n <= i32::MAX as u32).map(u32::to_le_bytes).ok_or(NcError::EFILTER)
}

/// Whether a block is stored as one stream per byte of its elements, as
/// c-blosc decides it when reading: not when the flags say so, nor for
/// elements over 16 bytes, blocks of under 128 elements or the last,
/// shorter block of a frame.
fn splits(flags: u8, typesize: usize, blocksize: usize, bsize: usize) -> bool {
    flags & DONT_SPLIT == 0 && typesize <= MAX_SPLITS && blocksize / typesize >= MIN_BUFFERSIZE && bsize == blocksize
}

/// c-blosc's automatic block size (the facts of its `compute_blocksize`):
/// 32 KiB (64 KiB for the slower codecs) scaled by the level, then, for
/// codecs that split, times the element size within 64 KiB..1 MiB; at
/// most the buffer, and a whole number of elements.
fn block_size(clevel: i32, typesize: usize, nbytes: usize, splittable: bool) -> usize {
    const L1: usize = 32 << 10;
    if nbytes < typesize {
        return nbytes.max(1);
    }
    let mut size = nbytes;
    if nbytes >= L1 {
        let base = if splittable { L1 } else { 2 * L1 };
        size = match clevel {
            ..=0 => base / 4,
            1 => base / 2,
            2 => base,
            3 => base * 2,
            4 | 5 => base * 4,
            6..=8 => base * 8,
            _ => base * if splittable { 8 } else { 16 },
        };
    }
    if clevel > 0 && splittable && typesize <= MAX_SPLITS && size / typesize >= MIN_BUFFERSIZE {
        size = (size.min(1 << 18) * typesize).clamp(1 << 16, 1 << 20);
    }
    size = size.min(nbytes);
    if size > typesize { size / typesize * typesize } else { size }
}

/// Decode one inner stream into exactly `out`.
fn inner_decode(format: u8, src: &[u8], out: &mut [u8]) -> NcResult<()> {
    let size = out.len();
    match format {
        FORMAT_BLOSCLZ => out.copy_from_slice(&blosclz_decode(src, size).and_then(exactly(size))?),
        FORMAT_LZ4 => {
            // At most 255 times expansion: refuse a bigger claim up front.
            if size > src.len().saturating_mul(255).saturating_add(16) {
                return Err(NcError::EFILTER);
            }
            lz4_decode_exact(src, out)?;
        }
        FORMAT_ZLIB => match inflate(Wrapper::Zlib, src, out)? {
            Some(n) if n == size => {}
            Some(_) => return Err(NcError::EFILTER),
            // Not a form libdeflate takes: the stream decoder's turn.
            None => {
                let mut decoded = Vec::new();
                flate2::read::ZlibDecoder::new(src)
                    .take(size as u64 + 1)
                    .read_to_end(&mut decoded)
                    .map_err(|_| NcError::EFILTER)?;
                out.copy_from_slice(&exactly(size)(decoded)?);
            }
        },
        FORMAT_ZSTD => zstd_decode_exact(src, out)?,
        _ => return Err(NcError::ENOFILTER),
    }
    Ok(())
}

/// A check that a decoded buffer has exactly `size` bytes.
fn exactly(size: usize) -> impl Fn(Vec<u8>) -> NcResult<Vec<u8>> {
    move |v| if v.len() == size { Ok(v) } else { Err(NcError::EFILTER) }
}

impl Blosc {
    /// The inner codec's id in the flags.
    fn inner_format(&self) -> NcResult<u8> {
        Ok(match self.cname.as_str() {
            "blosclz" => FORMAT_BLOSCLZ,
            "lz4" | "lz4hc" => FORMAT_LZ4,
            "zstd" => FORMAT_ZSTD,
            "zlib" => FORMAT_ZLIB,
            _ => return Err(NcError::ENOFILTER),
        })
    }

    /// The whole buffer as one unsplit block (bit shuffle is only ever
    /// written so), or stored as it is when that does not shrink it.
    fn encode_one_block(&self, data: &[u8], typesize: usize) -> NcResult<Vec<u8>> {
        let (shuffled, shuffle_flag) = match self.shuffle {
            1 if typesize > 1 => (shuffle::shuffle(data, typesize), DOSHUFFLE),
            2 => (bit_shuffle(data, typesize), DOBITSHUFFLE),
            _ => (data.to_vec(), 0),
        };
        let (format, stream) = self.inner_encode(&shuffled)?;
        let flags = DONT_SPLIT | (format << 5) | shuffle_flag;
        let nbytes = frame_u32(data.len())?;
        let mut out = vec![2, 1, 0, typesize as u8];
        out.extend_from_slice(&nbytes);
        out.extend_from_slice(&nbytes); // one block
        if stream.len() + 8 >= data.len() || data.is_empty() {
            // Stored as is: the original bytes, never shuffled.
            out[2] = (flags & !(DOSHUFFLE | DOBITSHUFFLE)) | MEMCPYED;
            out.extend_from_slice(&frame_u32(HEADER + data.len())?);
            out.extend_from_slice(data);
            return Ok(out);
        }
        out[2] = flags;
        out.extend_from_slice(&frame_u32(HEADER + 4 + 4 + stream.len())?);
        out.extend_from_slice(&frame_u32(HEADER + 4)?); // block start
        out.extend_from_slice(&frame_u32(stream.len())?);
        out.extend_from_slice(&stream);
        Ok(out)
    }

    /// LZ4's acceleration for the level, as c-blosc sets it (`10 -
    /// clevel`; 1 for lz4hc, which c-blosc codes with LZ4-HC and this
    /// encoder with plain LZ4 at its best).
    fn lz4_acceleration(&self) -> i32 {
        if self.cname == "lz4hc" { 1 } else { (10 - self.clevel).max(1) }
    }

    fn inner_encode(&self, data: &[u8]) -> NcResult<(u8, Vec<u8>)> {
        Ok(match self.cname.as_str() {
            "blosclz" => (FORMAT_BLOSCLZ, blosclz_encode(data)),
            "lz4" | "lz4hc" => {
                let mut out = Vec::new();
                let bound = super::contexts::lz4_bound(data.len());
                super::contexts::lz4_encode_append(data, &mut out, bound, self.lz4_acceleration())?;
                (FORMAT_LZ4, out)
            }
            "zstd" => (FORMAT_ZSTD, super::contexts::zstd_encode(data, self.clevel)?),
            "zlib" => {
                let level = self.clevel.clamp(0, 9) as u32;
                (FORMAT_ZLIB, super::contexts::deflate(super::contexts::Wrapper::Zlib, data, level)?)
            }
            _ => return Err(NcError::ENOFILTER),
        })
    }
}

impl Codec for Blosc {
    fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>> {
        let typesize = self.typesize.clamp(1, 255);
        if self.shuffle == 2 || data.is_empty() {
            return self.encode_one_block(data, typesize);
        }
        let format = self.inner_format()?;
        let byte_shuffle = self.shuffle == 1 && typesize > 1;
        // As c-blosc: LZ-class codecs compress each byte plane of a
        // shuffled block on its own, and the others whole blocks.
        let splittable = matches!(format, FORMAT_BLOSCLZ | FORMAT_LZ4);
        let blocksize = match self.blocksize {
            0 => block_size(self.clevel, typesize, data.len(), splittable),
            // As c-blosc takes a forced size: at least 128 bytes, at most
            // the buffer, a whole number of elements.
            forced => {
                let size = forced.max(MIN_BUFFERSIZE).min(data.len());
                if size > typesize { size / typesize * typesize } else { size }
            }
        };
        let nblocks = data.len().div_ceil(blocksize);
        // Room for the worst case before the frame is given up as
        // incompressible (the data, one block more and every stream's
        // length), so LZ4 streams are written in place, never moved.
        let room = HEADER + 4 * nblocks + data.len() + blocksize + 4 * MAX_SPLITS;
        let mut out = crate::buffers::with_capacity(room)?;
        let flags = (format << 5) | if byte_shuffle { DOSHUFFLE } else { 0 } | if splittable { 0 } else { DONT_SPLIT };
        out.extend_from_slice(&[2, 1, flags, typesize as u8]);
        out.extend_from_slice(&frame_u32(data.len())?);
        out.extend_from_slice(&frame_u32(blocksize)?);
        out.extend_from_slice(&[0; 4]); // the frame's size, once known
        out.resize(HEADER + 4 * nblocks, 0); // where each block starts
        let accel = self.lz4_acceleration();
        let mut shuffled = if byte_shuffle { crate::buffers::zeroed(blocksize)? } else { Vec::new() };
        for (b, block) in data.chunks(blocksize).enumerate() {
            let start = frame_u32(out.len())?;
            out[HEADER + 4 * b..HEADER + 4 * b + 4].copy_from_slice(&start);
            let block = if byte_shuffle {
                shuffle::shuffle_into(block, typesize, &mut shuffled[..block.len()]);
                &shuffled[..block.len()]
            } else {
                block
            };
            let nsplits = if splits(flags, typesize, blocksize, block.len()) { typesize } else { 1 };
            for stream in block.chunks(block.len() / nsplits) {
                if format == FORMAT_LZ4 {
                    // Straight into the frame, after its length; a stream
                    // that does not shrink is stored as it is.
                    let at = out.len();
                    out.extend_from_slice(&[0; 4]);
                    let max = stream.len() - 1;
                    let n = match super::contexts::lz4_encode_append(stream, &mut out, max, accel)? {
                        Some(n) => n,
                        None => {
                            out.extend_from_slice(stream);
                            stream.len()
                        }
                    };
                    out[at..at + 4].copy_from_slice(&frame_u32(n)?);
                    continue;
                }
                let packed = self.inner_encode(stream)?.1;
                // A stream that does not shrink is stored as it is: its
                // length then equals the stream's, which says so.
                let stored = if packed.is_empty() || packed.len() >= stream.len() { stream } else { &packed[..] };
                out.extend_from_slice(&frame_u32(stored.len())?);
                out.extend_from_slice(stored);
            }
            if out.len() >= data.len() + HEADER {
                // Incompressible: the whole buffer is stored instead.
                return self.encode_one_block(data, typesize);
            }
        }
        let total = frame_u32(out.len())?;
        out[12..16].copy_from_slice(&total);
        crate::buffers::recycle(shuffled);
        Ok(out)
    }

    fn decode(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        let FrameHeader { flags, typesize, nbytes, blocksize } = FrameHeader::parse(data)?;
        if nbytes > max_len {
            return Err(NcError::EFILTER);
        }
        if flags & MEMCPYED != 0 {
            let raw = data.get(HEADER..HEADER + nbytes).ok_or(NcError::EFILTER)?;
            // A memcpyed buffer holds the data already shuffled or not, as
            // flagged; encoders that skip compression keep it unshuffled.
            return Ok(raw.to_vec());
        }
        if blocksize == 0 {
            return Err(NcError::EFILTER);
        }
        let nblocks = nbytes.div_ceil(blocksize);
        // Every block needs a 4-byte offset: a claim of more blocks than
        // the frame can hold is a lie, refused before allocating for it.
        if nblocks > (data.len() - HEADER) / 4 {
            return Err(NcError::EFILTER);
        }
        let byte_shuffled = flags & DOSHUFFLE != 0 && typesize > 1;
        let bit_shuffled = flags & DOBITSHUFFLE != 0;
        // Every byte is set below (each block's streams are decoded to
        // exactly their length, or the decode fails and `out` is dropped):
        // clearing it first was a tenth of reading blocks of blosc chunks.
        let mut out = crate::buffers::overwritable(nbytes)?;
        let scratch_len = blocksize.min(nbytes);
        if (byte_shuffled || bit_shuffled) && scratch_len <= MAX_SCRATCH {
            // Shuffled blocks are decoded into this thread's scratch
            // buffer, then unshuffled into place.
            SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
                Ok(mut scratch) => decode_blocks(data, flags, blocksize, Some(&mut scratch), &mut out),
                Err(_) => decode_blocks(data, flags, blocksize, Some(&mut Vec::new()), &mut out),
            })?;
        } else if byte_shuffled || bit_shuffled {
            decode_blocks(data, flags, blocksize, Some(&mut Vec::new()), &mut out)?;
        } else {
            decode_blocks(data, flags, blocksize, None, &mut out)?;
        }
        Ok(out)
    }

    fn decodes_ranges(&self) -> bool {
        true
    }

    fn decode_ranges(
        &self,
        data: &[u8],
        chunk_len: usize,
        ranges: &[Range<usize>],
        budget: usize,
    ) -> NcResult<Option<Vec<u8>>> {
        partial::decode_ranges(data, chunk_len, ranges, budget)
    }
}

/// The biggest block [`SCRATCH`] keeps between chunks (a thread keeps it
/// for its life: the caller's thread, too).
const MAX_SCRATCH: usize = 8 << 20;

thread_local! {
    /// A block-sized buffer each thread reuses for shuffled blocks
    /// (a fresh one per chunk costs the system's page faults each time).
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Decode every block of a (compressed) blosc frame into `out`, through
/// `scratch` when they are shuffled.
fn decode_blocks(
    data: &[u8],
    flags: u8,
    blocksize: usize,
    scratch: Option<&mut Vec<u8>>,
    out: &mut [u8],
) -> NcResult<()> {
    let typesize = (data[3] as usize).max(1);
    let format = flags >> 5;
    let format_version = data[0];
    let bit_shuffled = flags & DOBITSHUFFLE != 0;
    let mut shuffled = match scratch {
        Some(buf) => {
            let len = blocksize.min(out.len());
            if buf.len() < len {
                *buf = crate::buffers::zeroed(len)?;
            }
            Some(buf)
        }
        None => None,
    };
    for (b, block_out) in out.chunks_mut(blocksize).enumerate() {
        let bsize = block_out.len();
        let mut pos = u32_at(data, HEADER + 4 * b)?;
        let nsplits = if splits(flags, typesize, blocksize, bsize) { typesize } else { 1 };
        let neblock = bsize / nsplits;
        // A split leaving bytes over (bsize not a multiple of
        // typesize) does not make a whole block.
        if neblock * nsplits != bsize {
            return Err(NcError::EFILTER);
        }
        let block = match shuffled.as_deref_mut() {
            Some(buf) => &mut buf[..bsize],
            None => &mut *block_out,
        };
        for stream in block.chunks_mut(neblock) {
            let cbytes = u32_at(data, pos)?;
            pos += 4;
            let src = data.get(pos..pos + cbytes).ok_or(NcError::EFILTER)?;
            if cbytes == neblock {
                stream.copy_from_slice(src);
            } else {
                inner_decode(format, src, stream)?;
            }
            pos += cbytes;
        }
        match shuffled.as_deref() {
            Some(buf) if bit_shuffled => {
                block_out.copy_from_slice(&bit_unshuffle(&buf[..bsize], typesize, format_version))
            }
            Some(buf) => shuffle::unshuffle_into(&buf[..bsize], typesize, block_out),
            None => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> Vec<u8> {
        (0..5000u32).flat_map(|i| (i / 3).to_le_bytes()).collect()
    }

    #[test]
    fn round_trips_for_each_inner_codec_and_shuffle() {
        let d = data();
        for cname in ["blosclz", "lz4", "lz4hc", "zstd", "zlib"] {
            for shuffle in [0, 1, 2] {
                let b = Blosc { cname: cname.into(), clevel: 5, shuffle, typesize: 4, blocksize: 0 };
                let enc = b.encode(&d).unwrap();
                assert!(enc.len() < d.len(), "{cname} compresses");
                assert_eq!(b.decode(&enc, d.len()).unwrap(), d, "{cname} {shuffle}");
            }
        }
    }

    /// Decodes write into buffers handed back by earlier ones
    /// (`buffers::overwritable`): every byte must be the frame's, none
    /// left from what the buffer held.
    #[test]
    fn decodes_into_reused_buffers_set_every_byte() {
        let d: Vec<u8> = (0..100_000u32).flat_map(|i| (i / 3).to_le_bytes()).collect();
        for cname in ["blosclz", "lz4", "zstd", "zlib"] {
            for shuffle in [0, 1, 2] {
                let b = Blosc { cname: cname.into(), clevel: 5, shuffle, typesize: 4, blocksize: 0 };
                let enc = b.encode(&d).unwrap();
                (0..4).for_each(|_| crate::buffers::recycle(vec![0xAB; d.len()]));
                assert!(b.decode(&enc, d.len()).unwrap() == d, "{cname} {shuffle}");
            }
        }
    }

    #[test]
    fn reads_c_blosc_frames_with_a_shorter_last_block() {
        // numcodecs 0.16 (c-blosc 1.21): Blosc(lz4, clevel 5, shuffle) of
        // the u32s i / 7 for i < 250000: three blocks of 256 KiB, each in
        // four byte-plane streams, and a last, shorter one in a single
        // stream, which c-blosc never splits.
        let frame = include_bytes!("testdata/blosc-lz4-leftover.bin");
        let expect: Vec<u8> = (0..250_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        assert_eq!(u32_at(frame, 8).unwrap(), 262_144);
        let b = Blosc { cname: "lz4".into(), clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 };
        assert_eq!(b.decode(frame, expect.len()).unwrap(), expect);
    }

    #[test]
    fn frames_of_several_blocks_round_trip() {
        // Sizes around c-blosc's block sizes, so frames end in shorter
        // blocks; data of which part does not compress (stored streams).
        for len in [1000, 65_536, 300_001, 1 << 20, (1 << 20) + 44] {
            let d: Vec<u8> = (0..len as u32)
                .map(|i| if i % 4 == 0 { (i.wrapping_mul(2654435761) >> 9) as u8 } else { (i / 4096) as u8 })
                .collect();
            for cname in ["blosclz", "lz4", "zstd", "zlib"] {
                for (shuffle, typesize) in [(0, 4), (1, 4), (1, 8), (1, 2), (1, 3), (1, 1)] {
                    let b = Blosc { cname: cname.into(), clevel: 5, shuffle, typesize, blocksize: 0 };
                    let enc = b.encode(&d).unwrap();
                    assert_eq!(u32_at(&enc, 12).unwrap(), enc.len(), "frame size");
                    assert_eq!(
                        b.decode(&enc, d.len()).unwrap(),
                        d,
                        "{cname} shuffle {shuffle} typesize {typesize} len {len}"
                    );
                }
            }
        }
        // As c-blosc sizes blocks: 512 KiB for lz4 with 4-byte elements
        // at level 5, 256 KiB for zstd.
        assert_eq!(block_size(5, 4, 4 << 20, true), 512 << 10);
        assert_eq!(block_size(5, 4, 4 << 20, false), 256 << 10);
        assert_eq!(block_size(9, 8, 100, true), 96);
    }

    #[test]
    fn blosclz_encoder_round_trips() {
        let mut samples: Vec<Vec<u8>> = vec![b"a".to_vec(), b"abcabcabcabc".to_vec(), vec![7; 100_000]];
        samples.push((0..200_000u32).map(|i| ((i * 2654435761) >> 20) as u8).collect());
        samples.push((0..100_000u32).flat_map(|i| (i / 100).to_le_bytes()).collect());
        // Repeats further apart than the short distance form reaches.
        let block: Vec<u8> = (0..20_000u32).map(|i| (i.wrapping_mul(40503) >> 7) as u8).collect();
        samples.push([block.clone(), block].concat());
        for data in samples {
            let enc = blosclz_encode(&data);
            assert_eq!(blosclz_decode(&enc, data.len()).unwrap(), data);
        }
    }

    #[test]
    fn blosclz_streams() {
        // 3 literals "abc", a match of 4 at distance 3, a literal "!".
        let stream = [2, b'a', b'b', b'c', (2 << 5), 2, 0, b'!'];
        assert_eq!(blosclz_decode(&stream, 8).unwrap(), b"abcabca!");
        // A run: one literal, a distance-1 match of 5, a literal.
        assert_eq!(blosclz_decode(&[0, b'z', (3 << 5), 0, 0, b'.'], 7).unwrap(), b"zzzzzz.");
        // A stream ending in a match is cut before it, as in c-blosc.
        assert_eq!(blosclz_decode(&[0, b'z', (3 << 5), 0], 6).unwrap(), b"z");
        // Malformed: a match reaching before the start, output past the size.
        assert_eq!(blosclz_decode(&[0, b'a', (2 << 5), 9, 0, b'x'], 10).err(), Some(NcError::EFILTER));
        assert_eq!(blosclz_decode(&[2, b'a', b'b', b'c'], 2).err(), Some(NcError::EFILTER));
        assert_eq!(blosclz_decode(&[5, b'a'], 10).err(), Some(NcError::EFILTER));
    }

    #[test]
    fn bitshuffle_with_a_partial_element_round_trips() {
        // Found by fuzzing (fuzz/regressions/codec): 8 whole elements and
        // 9 bytes more were written unshuffled but read back unshuffled.
        let d: Vec<u8> = (0..137u32).map(|i| (i % 5) as u8).collect();
        for typesize in [1, 2, 4, 16] {
            let b = Blosc { cname: "lz4".into(), clevel: 5, shuffle: 2, typesize, blocksize: 0 };
            let enc = b.encode(&d).unwrap();
            assert_eq!(b.decode(&enc, d.len()).unwrap(), d, "typesize {typesize}");
        }
    }

    #[test]
    fn incompressible_data_is_stored() {
        let d: Vec<u8> = (0..100u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        let b = Blosc { cname: "lz4".into(), clevel: 5, shuffle: 1, typesize: 4, blocksize: 0 };
        let enc = b.encode(&d).unwrap();
        assert_eq!(enc[2] & MEMCPYED, MEMCPYED);
        assert_eq!(b.decode(&enc, 100).unwrap(), d);
        assert_eq!(b.decode(&enc, 50).err(), Some(NcError::EFILTER), "bigger than the chunk");
        assert_eq!(b.decode(&enc[..10], 100).err(), Some(NcError::EFILTER));
    }
}
