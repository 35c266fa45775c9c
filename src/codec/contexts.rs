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
        c.compress(data).map_err(|_| NcError::EFILTER)
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
