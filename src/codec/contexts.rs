//! Codec contexts kept per thread and reused from chunk to chunk: making
//! a zstd or libdeflate context allocates and clears tables that cost
//! more than coding a small chunk.
//!
//! Thread-local, so never locked: a `fork` copies only the forking
//! thread's contexts, and nothing else was using them. Worker threads'
//! contexts go with the workers at the end of each call.

use std::cell::RefCell;

use crate::error::{NcError, NcResult};

thread_local! {
    static ZSTD_DECODER: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
    static ZSTD_ENCODER: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> = const { RefCell::new(None) };
    static INFLATER: RefCell<Option<libdeflater::Decompressor>> = const { RefCell::new(None) };
    static DEFLATER: RefCell<Option<(i32, libdeflater::Compressor)>> = const { RefCell::new(None) };
    static FAST_DEFLATER: RefCell<Option<Box<miniz_oxide::deflate::core::CompressorOxide>>> =
        const { RefCell::new(None) };
}

/// Run `f` with this thread's context from `slot`, made by `make` when
/// there is none yet (or when it is in use further up the stack, which
/// no codec does today; a fresh one is made then).
fn with_context<C: 'static, R>(
    slot: &'static std::thread::LocalKey<RefCell<Option<C>>>,
    make: impl FnOnce() -> NcResult<C>,
    f: impl FnOnce(&mut C) -> NcResult<R>,
) -> NcResult<R> {
    slot.with(|cell| match cell.try_borrow_mut() {
        Ok(mut held) => {
            if held.is_none() {
                *held = Some(make()?);
            }
            f(held.as_mut().ok_or(NcError::EINTERNAL)?)
        }
        Err(_) => f(&mut make()?),
    })
}

/// Decode zstd frames into `out`'s spare capacity (its length becomes
/// what they hold); NC_EFILTER if they are corrupt or hold more than fits.
pub fn zstd_decode(src: &[u8], out: &mut Vec<u8>) -> NcResult<()> {
    with_context(
        &ZSTD_DECODER,
        || zstd::bulk::Decompressor::new().map_err(|_| NcError::ENOMEM),
        |d| d.decompress_to_buffer(src, out).map(drop).map_err(|_| NcError::EFILTER),
    )
}

/// Decode zstd frames into exactly `out`.
pub fn zstd_decode_exact(src: &[u8], out: &mut [u8]) -> NcResult<()> {
    with_context(
        &ZSTD_DECODER,
        || zstd::bulk::Decompressor::new().map_err(|_| NcError::ENOMEM),
        |d| match d.decompress_to_buffer(src, out) {
            Ok(n) if n == out.len() => Ok(()),
            _ => Err(NcError::EFILTER),
        },
    )
}

/// One zstd frame of `data` at `level`.
pub fn zstd_encode(data: &[u8], level: i32) -> NcResult<Vec<u8>> {
    let make = || zstd::bulk::Compressor::new(level).map(|c| (level, c)).map_err(|_| NcError::EFILTER);
    with_context(&ZSTD_ENCODER, make, |(at, c)| {
        if *at != level {
            c.set_compression_level(level).map_err(|_| NcError::EFILTER)?;
            *at = level;
        }
        // Into a spare buffer rather than a fresh one (the crate's
        // `compress`): a storer's encoded chunks then take turns in one
        // buffer each, instead of every chunk's sitting among the spares.
        let mut out = crate::buffers::with_capacity(zstd::zstd_safe::compress_bound(data.len()))?;
        c.compress_to_buffer(data, &mut out).map_err(|_| NcError::EFILTER)?;
        Ok(out)
    })
}

/// The wrappers around a deflate stream libdeflate decodes.
#[derive(Clone, Copy)]
pub enum Wrapper {
    Zlib,
    Gzip,
}

/// Decode one whole zlib or gzip stream into `out` with libdeflate:
/// the number of bytes it holds, or None when libdeflate refuses it
/// (corrupt, more than `out` holds, or a form it does not take, such as
/// several gzip members; the caller decides).
pub fn inflate(wrapper: Wrapper, src: &[u8], out: &mut [u8]) -> NcResult<Option<usize>> {
    with_context(
        &INFLATER,
        || Ok(libdeflater::Decompressor::new()),
        |d| {
            Ok(match wrapper {
                Wrapper::Zlib => d.zlib_decompress(src, out),
                Wrapper::Gzip => d.gzip_decompress(src, out),
            }
            .ok())
        },
    )
}

/// One whole zlib or gzip stream of `data` at zlib's `level` (0-9).
///
/// Which encoder is chosen by measurement (bench/run's field, shuffled
/// float32, one core): at level 1, the level netCDF users mostly ask for,
/// miniz_oxide's fast compressor codes 0.43-0.48 GB/s at ratio 2.62,
/// where zlib-rs's (zlib-ng's "quick" strategy, fixed Huffman codes) codes
/// 0.28 GB/s at 2.13 and libdeflate 0.25 at 2.67; at levels 2-9
/// libdeflate is faster than zlib-rs, zlib-ng and miniz_oxide at every
/// level (1.3-6x zlib-rs), with as good a ratio. Any valid stream is
/// fine: every inflater reads them all, and the bytes were never the same
/// as netcdf-c's (its zlib is yet another encoder).
pub fn deflate(wrapper: Wrapper, data: &[u8], level: u32) -> NcResult<Vec<u8>> {
    let level = level.min(9);
    if level == 1 {
        return match wrapper {
            Wrapper::Zlib => fast_deflate(data, miniz_oxide::DataFormat::Zlib),
            Wrapper::Gzip => {
                let raw = fast_deflate(data, miniz_oxide::DataFormat::Raw)?;
                let member = gzip_member(data, &raw);
                crate::buffers::recycle(raw);
                Ok(member)
            }
        };
    }
    let level = level as i32;
    let compressor = || -> NcResult<libdeflater::Compressor> {
        let lvl = libdeflater::CompressionLvl::new(level).map_err(|_| NcError::EFILTER)?;
        Ok(libdeflater::Compressor::new(lvl))
    };
    with_context(
        &DEFLATER,
        || Ok((level, compressor()?)),
        |(at, c)| {
            if *at != level {
                *c = compressor()?;
                *at = level;
            }
            let bound = match wrapper {
                Wrapper::Zlib => c.zlib_compress_bound(data.len()),
                Wrapper::Gzip => c.gzip_compress_bound(data.len()),
            };
            // Truncated to what the encoder writes.
            let mut out = crate::buffers::overwritable(bound)?;
            let n = match wrapper {
                Wrapper::Zlib => c.zlib_compress(data, &mut out),
                Wrapper::Gzip => c.gzip_compress(data, &mut out),
            }
            .map_err(|_| NcError::EFILTER)?;
            out.truncate(n);
            Ok(out)
        },
    )
}

/// miniz_oxide's level-1 stream of `data` (zlib or raw), with this
/// thread's compressor, appended to a spare buffer: only the bytes it
/// writes are touched, and a storer's chunks take turns in one buffer.
fn fast_deflate(data: &[u8], format: miniz_oxide::DataFormat) -> NcResult<Vec<u8>> {
    use miniz_oxide::deflate::core::{CompressorOxide, TDEFLFlush, TDEFLStatus, compress_to_output};
    // Room for incompressible data: stored blocks add 5 bytes each (a
    // block holds up to 65535; the margin allows blocks of 16000). The
    // buffer grows should it be short.
    let bound = data.len() + data.len() / 16_000 * 5 + 64;
    let mut out = crate::buffers::with_capacity(bound)?;
    with_context(
        &FAST_DEFLATER,
        || Ok(Box::default()),
        |c: &mut Box<CompressorOxide>| {
            c.reset();
            c.set_format_and_level(format, 1);
            let (status, _) = compress_to_output(c, data, TDEFLFlush::Finish, |bytes| {
                out.extend_from_slice(bytes);
                true
            });
            match status {
                TDEFLStatus::Done => Ok(()),
                _ => Err(NcError::EFILTER),
            }
        },
    )?;
    Ok(out)
}

/// A gzip member (RFC 1952) around the raw deflate stream `deflated` of
/// `data`: the fixed 10-byte header (no name, no time, OS unknown), the
/// stream, then the CRC-32 and the length mod 2^32 of `data`.
fn gzip_member(data: &[u8], deflated: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(deflated.len() + 18);
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
    out.extend_from_slice(deflated);
    out.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// Decode one LZ4 block into exactly `out` (liblz4's bounds-checked
/// decoder: damaged input is an error, never a read or write outside
/// the buffers).
pub fn lz4_decode_exact(src: &[u8], out: &mut [u8]) -> NcResult<()> {
    let (Ok(src_len), Ok(out_len)) = (i32::try_from(src.len()), i32::try_from(out.len())) else {
        return Err(NcError::EFILTER);
    };
    // SAFETY: both pointers name live buffers of the lengths passed; the
    // safe decoder writes at most `out_len` bytes and reads at most
    // `src_len`.
    let n = unsafe { lz4_sys::LZ4_decompress_safe(src.as_ptr().cast(), out.as_mut_ptr().cast(), src_len, out_len) };
    if n == out_len { Ok(()) } else { Err(NcError::EFILTER) }
}

/// Append one LZ4 block of `src` to `out` (liblz4's `LZ4_compress_fast`
/// at acceleration `accel`, written straight into `out`'s spare room)
/// when it takes at most `max` bytes: its length, or None, with nothing
/// appended, when it does not fit (or `src` is beyond what LZ4 takes).
pub fn lz4_encode_append(src: &[u8], out: &mut Vec<u8>, max: usize, accel: i32) -> NcResult<Option<usize>> {
    let Ok(src_len) = i32::try_from(src.len()) else { return Ok(None) };
    let max = max.min(i32::MAX as usize);
    out.try_reserve(max).map_err(|_| NcError::ENOMEM)?;
    let len = out.len();
    // SAFETY: `src` is live for `src_len` bytes and `out` has room for
    // `max` bytes past its length (reserved above); liblz4 writes at
    // most `max` bytes there (0 when the block would not fit).
    let n = unsafe {
        lz4_sys::LZ4_compress_fast(
            src.as_ptr().cast(),
            out.as_mut_ptr().add(len).cast(),
            src_len,
            max as i32,
            accel.max(1),
        )
    };
    if n <= 0 {
        return Ok(None);
    }
    // SAFETY: liblz4 initialised the n <= max bytes after the length.
    unsafe { out.set_len(len + n as usize) };
    Ok(Some(n as usize))
}

/// The most bytes an LZ4 block of `n` bytes takes (`LZ4_COMPRESSBOUND`).
pub fn lz4_bound(n: usize) -> usize {
    n + n / 255 + 16
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    /// Shuffled float32 planes with some noise, as compressed chunks are.
    fn sample() -> Vec<u8> {
        let n = 70_000usize;
        let values: Vec<f32> = (0..n).map(|i| (i as f32 * 0.01).sin() * 100.0 + (i % 7) as f32 * 0.001).collect();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        (0..4).flat_map(|b| (0..n).map(move |i| (i, b))).map(|(i, b)| bytes[i * 4 + b]).collect()
    }

    #[test]
    fn every_level_and_wrapper_is_a_stream_both_inflaters_read() {
        let data = sample();
        for wrapper in [Wrapper::Zlib, Wrapper::Gzip] {
            for level in 0..=10 {
                let coded = deflate(wrapper, &data, level).unwrap();
                if level > 0 {
                    assert!(coded.len() < data.len() * 9 / 10, "level {level} compresses");
                }
                let mut out = vec![0u8; data.len()];
                assert_eq!(inflate(wrapper, &coded, &mut out).unwrap(), Some(data.len()), "libdeflate, level {level}");
                assert!(out == data);
                // The streaming decoder (zlib-rs), which also checks the
                // trailer's checksum and length.
                let mut streamed = Vec::new();
                match wrapper {
                    Wrapper::Zlib => flate2::read::ZlibDecoder::new(&coded[..]).read_to_end(&mut streamed),
                    Wrapper::Gzip => flate2::read::GzDecoder::new(&coded[..]).read_to_end(&mut streamed),
                }
                .unwrap();
                assert!(streamed == data, "flate2, level {level}");
            }
        }
    }

    #[test]
    fn the_fast_level_codes_incompressible_bytes_and_reuses_its_compressor() {
        // Noise (stored blocks: the stream is longer than the data).
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let noise: Vec<u8> = (0..300_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let first = deflate(Wrapper::Zlib, &noise, 1).unwrap();
        assert!(first.len() >= noise.len());
        // The thread's compressor, used by another format in between,
        // makes the same stream again.
        deflate(Wrapper::Gzip, &sample(), 1).unwrap();
        assert!(deflate(Wrapper::Zlib, &noise, 1).unwrap() == first);
        let mut out = Vec::new();
        flate2::read::ZlibDecoder::new(&first[..]).read_to_end(&mut out).unwrap();
        assert!(out == noise);
    }

    #[test]
    fn zstd_frames_from_one_thread_in_turn_decode() {
        let data = sample();
        for level in [1, 3, 19, 3] {
            let coded = zstd_encode(&data, level).unwrap();
            assert!(coded.len() < data.len());
            let mut out = vec![0u8; data.len()];
            zstd_decode_exact(&coded, &mut out).unwrap();
            assert!(out == data, "level {level}");
        }
    }

    #[test]
    fn a_gzip_member_has_rfc_1952s_header_and_trailer() {
        let data = b"netcdf".repeat(100);
        let coded = deflate(Wrapper::Gzip, &data, 1).unwrap();
        assert_eq!(coded[..4], [0x1f, 0x8b, 8, 0]);
        let tail = &coded[coded.len() - 8..];
        assert_eq!(tail[..4], crc32fast::hash(&data).to_le_bytes());
        assert_eq!(tail[4..], (data.len() as u32).to_le_bytes());
    }
}
