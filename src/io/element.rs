//! Moving runs of elements between a chunk buffer (the variable's type,
//! native byte order) and the caller's memory (the call's type), with
//! netcdf-c's conversion rules, and the byte swapping of stored chunks.

use std::ffi::c_char;

use super::float16;
use super::layout::TextEncoding;
use crate::capi::cmem::malloc_cstring;
use crate::convert::{Element, convert_one};
use crate::error::{NcError, NcResult};
use crate::types::*;

/// Run `$body` with `$T` bound to the Rust type of numeric nc_type `$t`.
macro_rules! with_numeric_type {
    ($t:expr, $T:ident => $body:expr) => {
        match $t {
            NC_BYTE => {
                type $T = i8;
                $body
            }
            NC_UBYTE => {
                type $T = u8;
                $body
            }
            NC_SHORT => {
                type $T = i16;
                $body
            }
            NC_USHORT => {
                type $T = u16;
                $body
            }
            NC_INT => {
                type $T = i32;
                $body
            }
            NC_UINT => {
                type $T = u32;
                $body
            }
            NC_INT64 => {
                type $T = i64;
                $body
            }
            NC_UINT64 => {
                type $T = u64;
                $body
            }
            NC_FLOAT => {
                type $T = f32;
                $body
            }
            NC_DOUBLE => {
                type $T = f64;
                $body
            }
            _ => return Err(NcError::EBADTYPE),
        }
    };
}

/// Convert `n` elements between strided buffers (steps in bytes).
///
/// # Safety
/// Both buffers must hold `n` elements of their types at the given steps.
unsafe fn convert_strided<S: Element, D: Element>(
    src: *const u8,
    src_step: isize,
    dst: *mut u8,
    dst_step: isize,
    n: usize,
) -> bool {
    let mut range_error = false;
    for k in 0..n as isize {
        // SAFETY: element k < n of each buffer, as the caller promises;
        // unaligned accesses, since nothing aligns the caller's buffers.
        unsafe {
            let s = (src.offset(k * src_step) as *const S).read_unaligned();
            let (d, bad) = convert_one::<S, D>(s);
            (dst.offset(k * dst_step) as *mut D).write_unaligned(d);
            range_error |= bad;
        }
    }
    range_error
}

/// Can values of memory type `mem` be exchanged with a variable of type
/// `var`? Text converts only to text, strings only to strings.
pub fn check_types(mem: NcType, var: NcType) -> NcResult<()> {
    if mem == var {
        return Ok(());
    }
    if mem == NC_CHAR || var == NC_CHAR {
        return Err(NcError::ECHAR);
    }
    if mem == NC_STRING || var == NC_STRING || !is_atomic(mem) {
        return Err(NcError::EBADTYPE);
    }
    Ok(())
}

/// Copy `n` elements of `S` bytes between strided places.
///
/// # Safety
/// `src` and `dst` must hold `n` elements at their steps, not overlapping.
unsafe fn copy_strided<const S: usize>(src: *const u8, src_step: isize, dst: *mut u8, dst_step: isize, n: usize) {
    for k in 0..n as isize {
        // SAFETY: element k < n of each buffer (our contract); unaligned
        // reads and writes of S bytes.
        unsafe {
            let v = (src.offset(k * src_step) as *const [u8; S]).read_unaligned();
            (dst.offset(k * dst_step) as *mut [u8; S]).write_unaligned(v);
        }
    }
}

/// Copy or convert `n` numeric or text elements. Steps are in bytes.
/// Returns whether any value was out of range for the destination.
///
/// # Safety
/// Both buffers must hold `n` elements of their types at the given steps;
/// `check_types(from, to)` must have passed, and neither may be NC_STRING.
pub unsafe fn convert_run(
    from: NcType,
    src: *const u8,
    src_step: isize,
    to: NcType,
    dst: *mut u8,
    dst_step: isize,
    n: usize,
) -> NcResult<bool> {
    if from == to {
        let size = type_size(from)?;
        if src_step == size as isize && dst_step == size as isize {
            // SAFETY: both buffers hold n contiguous elements; a chunk
            // buffer and a caller's buffer never overlap.
            unsafe { std::ptr::copy_nonoverlapping(src, dst, n * size) };
        } else {
            // SAFETY: as above, element by element.
            unsafe {
                match size {
                    // A fixed-size copy per element for the common sizes
                    // (a strided read's inner loop).
                    1 => copy_strided::<1>(src, src_step, dst, dst_step, n),
                    2 => copy_strided::<2>(src, src_step, dst, dst_step, n),
                    4 => copy_strided::<4>(src, src_step, dst, dst_step, n),
                    8 => copy_strided::<8>(src, src_step, dst, dst_step, n),
                    _ => {
                        for k in 0..n as isize {
                            std::ptr::copy_nonoverlapping(src.offset(k * src_step), dst.offset(k * dst_step), size);
                        }
                    }
                }
            }
        }
        return Ok(false);
    }
    // SAFETY: our contract, with S and D the buffers' element types.
    Ok(with_numeric_type!(from, S => with_numeric_type!(to, D => unsafe {
        convert_strided::<S, D>(src, src_step, dst, dst_step, n)
    })))
}

/// Convert `n` numeric elements of type `from` into a chunk of half
/// floats, which the engine holds as floats (Zarr v3 `float16`, see
/// `float16`): each value becomes the half nearest it, NaNs and
/// infinities kept. A value beyond the largest half is a range error, as
/// netcdf-c's double to float is for values beyond a float's (infinities
/// included), and, as there, is still written: as the half it rounds to
/// (an infinity, or the largest half itself for values just above it).
///
/// # Safety
/// As [`convert_run`], with `dst` holding floats; `from` must be numeric.
pub unsafe fn convert_run_to_half(
    from: NcType,
    src: *const u8,
    src_step: isize,
    dst: *mut u8,
    dst_step: isize,
    n: usize,
) -> NcResult<bool> {
    let put = |k: isize, h: u16| {
        // SAFETY: float k < n of `dst` (our contract), unaligned.
        unsafe { (dst.offset(k * dst_step) as *mut f32).write_unaligned(float16::widen(h)) }
    };
    let mut range_error = false;
    if from == NC_FLOAT {
        // Narrowed from the float's bits, so a NaN keeps all of its own.
        for k in 0..n as isize {
            // SAFETY: element k < n of `src` (our contract), unaligned.
            let x = unsafe { (src.offset(k * src_step) as *const f32).read_unaligned() };
            range_error |= float16::out_of_range(f64::from(x));
            put(k, float16::narrow_f32(x));
        }
        return Ok(range_error);
    }
    with_numeric_type!(from, S => {
        for k in 0..n as isize {
            // SAFETY: element k < n of `src` (our contract), unaligned.
            let x = unsafe { (src.offset(k * src_step) as *const S).read_unaligned() }.to_f64();
            range_error |= float16::out_of_range(x);
            put(k, float16::narrow(x));
        }
    });
    Ok(range_error)
}

/// Store `n` C strings (memory step in pointers) as fixed-width chunk
/// elements of `width` bytes (chunk step in bytes), NUL-padded. A string
/// longer than the width is cut to it, as netcdf-c does (its
/// `_nczarr_maxstrlen` test expects "0123456789" stored in 4 bytes as
/// "0123"); text that cannot be stored at all (not UTF-8, for UTF-32
/// elements) is NC_EINVAL, and [`strings_fit`] lets callers refuse it
/// before writing anything.
///
/// # Safety
/// `src` must hold `n` pointers (NULL or C strings) at its step and `dst`
/// room for `n` elements at its step.
pub unsafe fn put_strings(
    src: *const *const c_char,
    src_step: isize,
    dst: *mut u8,
    dst_step: usize,
    width: usize,
    text: TextEncoding,
    n: usize,
) -> NcResult<()> {
    for k in 0..n {
        // SAFETY: pointer k < n of `src`, as the caller promises.
        let p = unsafe { src.offset(k as isize * src_step).read_unaligned() };
        // SAFETY: not NULL, so a C string, as the caller promises.
        let bytes = if p.is_null() { &[][..] } else { unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes() };
        let encoded = encode_text(bytes, width, text).ok_or(NcError::EINVAL)?;
        // SAFETY: element k < n of `dst` (width bytes, in a chunk buffer
        // nothing else borrows meanwhile).
        let elem = unsafe { std::slice::from_raw_parts_mut(dst.add(k * dst_step), width) };
        elem[..encoded.len()].copy_from_slice(&encoded);
        elem[encoded.len()..].fill(0);
    }
    Ok(())
}

/// One string as element bytes, cut to `width` bytes (UTF-32: whole
/// characters), or `None` if it cannot be stored (not UTF-8, for UTF-32
/// elements; longer than a `u32` counts, for variable-length ones).
fn encode_text(bytes: &[u8], width: usize, text: TextEncoding) -> Option<Vec<u8>> {
    match text {
        TextEncoding::Bytes => Some(bytes[..bytes.len().min(width)].to_vec()),
        // Any length a `u32` counts (vlen-utf8 stores lengths so); only
        // UTF-8 where readers decode it (numcodecs' vlen-utf8 fails on
        // anything else, losing the whole chunk).
        TextEncoding::Vlen { utf8 } => {
            let fits = u32::try_from(bytes.len()).is_ok() && (!utf8 || std::str::from_utf8(bytes).is_ok());
            fits.then(|| bytes.to_vec())
        }
        TextEncoding::Utf32 { big_endian } => {
            let s = std::str::from_utf8(bytes).ok()?;
            let out: Vec<u8> = s
                .chars()
                .take(width / 4)
                .flat_map(|c| if big_endian { (c as u32).to_be_bytes() } else { (c as u32).to_le_bytes() })
                .collect();
            Some(out)
        }
    }
}

/// One element's text as UTF-8 bytes, up to the first NUL; a
/// variable-length element's bytes are in `arena` (the text after the
/// chunk's table), where its offset and length say.
fn decode_text(elem: &[u8], text: TextEncoding, arena: &[u8]) -> NcResult<Vec<u8>> {
    Ok(match text {
        TextEncoding::Vlen { .. } => {
            let word = |i: usize| u64::from_ne_bytes(elem[i..i + 8].try_into().unwrap_or([0; 8]));
            let (offset, len) = (usize::try_from(word(0)), usize::try_from(word(8)));
            let (Ok(offset), Ok(len)) = (offset, len) else { return Err(NcError::EINTERNAL) };
            arena.get(offset..offset.saturating_add(len)).ok_or(NcError::EINTERNAL)?.to_vec()
        }
        TextEncoding::Bytes => elem[..elem.iter().position(|&b| b == 0).unwrap_or(elem.len())].to_vec(),
        TextEncoding::Utf32 { big_endian } => elem
            .chunks_exact(4)
            .map(|u| {
                let u = [u[0], u[1], u[2], u[3]];
                if big_endian { u32::from_be_bytes(u) } else { u32::from_le_bytes(u) }
            })
            .take_while(|&u| u != 0)
            .map(|u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect::<String>()
            .into_bytes(),
    })
}

/// Can all `n` C strings be stored (see [`encode_text`])?
///
/// # Safety
/// As [`put_strings`] for the source.
pub unsafe fn strings_fit(
    src: *const *const c_char,
    src_step: isize,
    n: usize,
    width: usize,
    text: TextEncoding,
) -> bool {
    (0..n).all(|k| {
        // SAFETY: pointer k < n of `src`, as the caller promises.
        let p = unsafe { src.offset(k as isize * src_step).read_unaligned() };
        // SAFETY: not NULL, so a C string, as the caller promises.
        p.is_null() || encode_text(unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes(), width, text).is_some()
    })
}

/// Hand out `n` fixed-width chunk elements (chunk step in bytes) as new C
/// strings, each up to its first NUL; the caller frees them with
/// `nc_free_string`.
///
/// # Safety
/// `src` must hold `n` elements at its step; `dst` room for `n` pointers.
#[allow(clippy::too_many_arguments)]
pub unsafe fn get_strings(
    src: *const u8,
    src_step: usize,
    width: usize,
    text: TextEncoding,
    arena: &[u8],
    dst: *mut *mut c_char,
    dst_step: isize,
    n: usize,
) -> NcResult<()> {
    for k in 0..n {
        // SAFETY: element k < n of `src` (width bytes of a chunk buffer).
        let elem = unsafe { std::slice::from_raw_parts(src.add(k * src_step), width) };
        let p = malloc_cstring(&decode_text(elem, text, arena)?)?;
        // SAFETY: pointer slot k < n of `dst`, as the caller promises.
        unsafe { dst.offset(k as isize * dst_step).write_unaligned(p) };
    }
    Ok(())
}

/// Reverse the bytes of every element (stored byte order <-> native).
pub fn swap_bytes(data: &mut [u8], elem_size: usize) {
    if elem_size > 1 {
        data.chunks_exact_mut(elem_size).for_each(|e| e.reverse());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_with_range_errors() {
        let src: [i32; 3] = [1, 300, -2];
        let mut dst = [0u8; 3];
        // SAFETY: three elements each side, at their sizes.
        let bad =
            unsafe { convert_run(NC_INT, src.as_ptr() as *const u8, 4, NC_UBYTE, dst.as_mut_ptr(), 1, 3) }.unwrap();
        assert!(bad);
        assert_eq!(dst, [1, 44, 254]);
    }

    #[test]
    fn strided_copy() {
        let src: [f64; 4] = [1.0, 2.0, 3.0, 4.0];
        let mut dst = [0f32; 2];
        // SAFETY: two elements each side: every other one of `src`.
        let bad = unsafe {
            convert_run(NC_DOUBLE, src.as_ptr() as *const u8, 16, NC_FLOAT, dst.as_mut_ptr() as *mut u8, 4, 2)
        }
        .unwrap();
        assert!(!bad);
        assert_eq!(dst, [1.0, 3.0]);
    }

    #[test]
    fn type_rules() {
        assert_eq!(check_types(NC_INT, NC_CHAR), Err(NcError::ECHAR));
        assert_eq!(check_types(NC_CHAR, NC_BYTE), Err(NcError::ECHAR));
        assert_eq!(check_types(NC_STRING, NC_INT), Err(NcError::EBADTYPE));
        assert!(check_types(NC_DOUBLE, NC_UBYTE).is_ok());
    }

    #[test]
    fn utf32_text() {
        let le = TextEncoding::Utf32 { big_endian: false };
        let encoded = encode_text("aé".as_bytes(), 12, le).unwrap();
        assert_eq!(encoded, vec![b'a', 0, 0, 0, 0xe9, 0, 0, 0]);
        assert_eq!(decode_text(&[b'a', 0, 0, 0, 0xe9, 0, 0, 0, 0, 0, 0, 0], le, &[]).unwrap(), "aé".as_bytes());
        assert_eq!(encode_text(b"abcd", 12, le).unwrap(), b"a\0\0\0b\0\0\0c\0\0\0", "U3 keeps 3 characters");
        assert_eq!(encode_text(b"\xff", 12, le), None, "not UTF-8");
        let be = TextEncoding::Utf32 { big_endian: true };
        assert_eq!(decode_text(&[0, 0, 0, b'z'], be, &[]).unwrap(), b"z");
    }

    #[test]
    fn strings_round_trip() {
        let a = c"ab";
        let b = c"";
        let ptrs = [a.as_ptr(), b.as_ptr()];
        let mut chunk = vec![0xffu8; 8];
        let bytes = TextEncoding::Bytes;
        // SAFETY: two C strings in, two 4-byte elements out.
        unsafe { put_strings(ptrs.as_ptr(), 1, chunk.as_mut_ptr(), 4, 4, bytes, 2) }.unwrap();
        assert_eq!(chunk, b"ab\0\0\0\0\0\0");
        // Too long: cut to the width, as netcdf-c does.
        let long = [c"abcde".as_ptr()];
        // SAFETY: one C string.
        assert!(unsafe { strings_fit(long.as_ptr(), 1, 1, 4, bytes) });
        let mut cut = [0xffu8; 4];
        // SAFETY: one C string in, one 4-byte element out.
        unsafe { put_strings(long.as_ptr(), 1, cut.as_mut_ptr(), 4, 4, bytes, 1) }.unwrap();
        assert_eq!(&cut, b"abcd");
        // UTF-32 keeps whole characters; text that is not UTF-8 is refused.
        let utf32 = TextEncoding::Utf32 { big_endian: false };
        let wide = [c"h\u{e9}llo".as_ptr()];
        let mut two = [0xffu8; 8];
        // SAFETY: one C string in, one 8-byte element out.
        unsafe { put_strings(wide.as_ptr(), 1, two.as_mut_ptr(), 8, 8, utf32, 1) }.unwrap();
        assert_eq!(&two, b"h\0\0\0\xe9\0\0\0");
        let bad = [c"\xff".as_ptr()];
        // SAFETY: one C string.
        assert!(!unsafe { strings_fit(bad.as_ptr(), 1, 1, 8, utf32) });
        assert_eq!(
            // SAFETY: one C string in, one 8-byte element out.
            unsafe { put_strings(bad.as_ptr(), 1, [0u8; 8].as_mut_ptr(), 8, 8, utf32, 1) },
            Err(NcError::EINVAL)
        );
        let mut out = [std::ptr::null_mut::<c_char>(); 2];
        // SAFETY: two 4-byte elements in, two pointer slots out.
        unsafe { get_strings(chunk.as_ptr(), 4, 4, bytes, &[], out.as_mut_ptr(), 1, 2) }.unwrap();
        // SAFETY: the two malloc'ed C strings get_strings made, freed once.
        unsafe {
            assert_eq!(std::ffi::CStr::from_ptr(out[0]).to_bytes(), b"ab");
            assert_eq!(std::ffi::CStr::from_ptr(out[1]).to_bytes(), b"");
            libc::free(out[0] as *mut libc::c_void);
            libc::free(out[1] as *mut libc::c_void);
        }
    }
}
