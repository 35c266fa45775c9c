//! Copying a chunk part between a chunk buffer and the caller's memory,
//! run by run, converting types as it goes.

use std::ffi::c_char;

use super::element::{convert_run, convert_run_to_half, get_strings, put_strings, strings_fit};
use super::grid::{ChunkPart, Run, for_each_run};
use super::layout::{TextEncoding, VLEN_ELEM, VarLayout};
use super::selection::Selection;
use crate::error::{NcError, NcResult};
use crate::types::*;

/// Copy one run from chunk bytes starting at the run's first element.
///
/// # Safety
/// `buf` must hold the run's elements in `mem_type` at its offsets.
pub unsafe fn copy_run_out(
    layout: &VarLayout,
    run: Run,
    src: &[u8],
    arena: &[u8],
    mem_type: NcType,
    buf: *mut u8,
) -> NcResult<bool> {
    let es = layout.elem_size;
    let ms = type_size(mem_type)? as isize;
    let step = run.chunk_step * es;
    if src.len() < ((run.n - 1) * run.chunk_step + 1) * es {
        return Err(NcError::EINTERNAL);
    }
    // SAFETY: the run's first element is in the caller's buffer.
    let dst = unsafe { buf.offset(run.mem_off * ms) };
    if layout.xtype == NC_STRING {
        // SAFETY: `src` holds the run's elements (checked above), `dst`
        // has room for as many string pointers at the run's memory step.
        unsafe {
            get_strings(src.as_ptr(), step, es, layout.text, arena, dst as *mut *mut c_char, run.mem_step, run.n)
        }?;
        Ok(false)
    } else {
        // SAFETY: `src` holds the run's elements (checked above), `dst`
        // has room for them at the run's memory step; the types passed
        // `check_types` in `prepare`.
        unsafe { convert_run(layout.xtype, src.as_ptr(), step as isize, mem_type, dst, run.mem_step * ms, run.n) }
    }
}

/// Copy the selected elements of one chunk to the caller's memory;
/// `chunk` holds the chunk's elements from element `base` on.
///
/// # Safety
/// `buf` must hold the whole selection in `mem_type` at the selection's imap.
pub unsafe fn copy_out(
    layout: &VarLayout,
    sel: &Selection,
    part: &ChunkPart,
    chunk: &[u8],
    base: usize,
    mem_type: NcType,
    buf: *mut u8,
) -> NcResult<bool> {
    let es = layout.elem_size;
    // A variable-length string chunk (always whole) is its element table,
    // then the text its elements point into.
    let (chunk, arena) = if layout.text.is_vlen() && layout.xtype == NC_STRING {
        if base != 0 {
            return Err(NcError::EINTERNAL);
        }
        chunk.split_at(layout.chunk_bytes().min(chunk.len()))
    } else {
        (chunk, &[][..])
    };
    let mut range_error = false;
    for_each_run(sel, &layout.chunks, part, |run| {
        let src = chunk.get((run.chunk_off - base) * es..).ok_or(NcError::EINTERNAL)?;
        // SAFETY: `buf` holds the whole selection, so every run of it.
        range_error |= unsafe { copy_run_out(layout, run, src, arena, mem_type, buf) }?;
        Ok(())
    })?;
    Ok(range_error)
}

/// Copy the caller's values for one chunk part into the chunk.
///
/// # Safety
/// `buf` must hold the whole selection in `mem_type` at the selection's imap.
pub unsafe fn copy_in(
    layout: &VarLayout,
    sel: &Selection,
    part: &ChunkPart,
    chunk: &mut Vec<u8>,
    mem_type: NcType,
    buf: *const u8,
) -> NcResult<bool> {
    if layout.text.is_vlen() && layout.xtype == NC_STRING {
        // SAFETY: as ours (a string variable's memory is C string pointers).
        unsafe { copy_in_vlen(layout, sel, part, chunk, buf as *const *const c_char) }?;
        return Ok(false);
    }
    let es = layout.elem_size;
    let ms = type_size(mem_type)? as isize;
    let mut range_error = false;
    for_each_run(sel, &layout.chunks, part, |run| {
        // The run must lie inside the chunk (it does, by construction of
        // the grid; checked, as copy_run_out checks its source).
        if chunk.len() < (run.chunk_off + (run.n - 1) * run.chunk_step + 1) * es {
            return Err(NcError::EINTERNAL);
        }
        let dst = chunk[run.chunk_off * es..].as_mut_ptr();
        let dst_step = run.chunk_step * es;
        // SAFETY: the run's first element is in the caller's buffer.
        let src = unsafe { buf.offset(run.mem_off * ms) };
        if layout.xtype == NC_STRING {
            // SAFETY: `src` holds the run's string pointers at its memory
            // step; `dst` has room for the run (checked above).
            unsafe { put_strings(src as *const *const c_char, run.mem_step, dst, dst_step, es, layout.text, run.n) }
        } else {
            let (src_step, dst_step) = (run.mem_step * ms, dst_step as isize);
            // SAFETY: as for strings, with values of `mem_type`; the types
            // passed `check_types` in `prepare`.
            let bad = unsafe {
                if layout.half {
                    // Rounded to halves here, so the chunk holds what is
                    // stored, whether it is read back cached or not.
                    convert_run_to_half(mem_type, src, src_step, dst, dst_step, run.n)
                } else {
                    convert_run(mem_type, src, src_step, layout.xtype, dst, dst_step, run.n)
                }
            }?;
            range_error |= bad;
            Ok(())
        }
    })?;
    Ok(range_error)
}

/// Copy the caller's strings for one chunk part into a variable-length
/// string chunk (its table, then its text; see `TextEncoding::Vlen`):
/// each new string is appended to the text and its element pointed at
/// it. Text no element points at any more is never stored
/// (`chunk_io::encode_vlen`) and is dropped from memory when it outgrows
/// the live text.
///
/// # Safety
/// `buf` must hold the whole selection as C string pointers (or NULL, an
/// empty string) at the selection's imap.
unsafe fn copy_in_vlen(
    layout: &VarLayout,
    sel: &Selection,
    part: &ChunkPart,
    chunk: &mut Vec<u8>,
    buf: *const *const c_char,
) -> NcResult<()> {
    let table = layout.chunk_bytes();
    if chunk.len() < table {
        return Err(NcError::EINTERNAL);
    }
    let text_before = chunk.len() - table;
    for_each_run(sel, &layout.chunks, part, |run| {
        if table < (run.chunk_off + (run.n - 1) * run.chunk_step + 1) * VLEN_ELEM {
            return Err(NcError::EINTERNAL);
        }
        for k in 0..run.n {
            // SAFETY: pointer k of the run, in the caller's buffer.
            let p = unsafe { buf.offset(run.mem_off + k as isize * run.mem_step).read_unaligned() };
            // SAFETY: not NULL, so a C string, as the caller promises.
            let bytes = if p.is_null() { &[][..] } else { unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes() };
            let offset = (chunk.len() - table) as u64;
            chunk.extend_from_slice(bytes);
            let at = (run.chunk_off + k * run.chunk_step) * VLEN_ELEM;
            chunk[at..at + 8].copy_from_slice(&offset.to_ne_bytes());
            chunk[at + 8..at + VLEN_ELEM].copy_from_slice(&(bytes.len() as u64).to_ne_bytes());
        }
        Ok(())
    })?;
    // The live text is counted (a walk of the whole table) only when the
    // text crosses a power of two, so many small writes into one chunk
    // pay for it once per doubling, not each time.
    let text_after = chunk.len() - table;
    if text_after > (64 << 10) && text_before.next_power_of_two() != text_after.next_power_of_two() {
        let live: usize = chunk[..table].chunks_exact(VLEN_ELEM).map(vlen_element_len).sum();
        if text_after > 2 * live + (64 << 10) {
            *chunk = compact_vlen(chunk, table)?;
        }
    }
    Ok(())
}

/// The length of a variable-length element's text.
fn vlen_element_len(elem: &[u8]) -> usize {
    u64::from_ne_bytes(elem[8..16].try_into().unwrap_or([0; 8])) as usize
}

/// A variable-length chunk holding only the text its elements point at.
pub fn compact_vlen(chunk: &[u8], table: usize) -> NcResult<Vec<u8>> {
    let (elems, text) = chunk.split_at(table);
    let mut out = elems.to_vec();
    for (k, elem) in elems.chunks_exact(VLEN_ELEM).enumerate() {
        let offset = u64::from_ne_bytes(elem[..8].try_into().unwrap_or([0; 8])) as usize;
        let bytes = text.get(offset..offset.saturating_add(vlen_element_len(elem))).ok_or(NcError::EINTERNAL)?;
        let new_offset = (out.len() - table) as u64;
        out.extend_from_slice(bytes);
        out[k * VLEN_ELEM..k * VLEN_ELEM + 8].copy_from_slice(&new_offset.to_ne_bytes());
    }
    Ok(out)
}

/// Convert a whole selection from the caller's memory (`from`, at the
/// selection's imap) into `dst`, C-ordered and of type `to`, as netcdf-c
/// converts a request before writing it. Returns whether a value was out
/// of range for `to`.
///
/// # Safety
/// `buf` must hold the selection in `from` at its imap, `dst` room for
/// `sel.len()` elements of `to`; neither type may be NC_STRING, and
/// `check_types(from, to)` must have passed.
pub unsafe fn gather(sel: &Selection, from: NcType, buf: *const u8, to: NcType, dst: *mut u8) -> NcResult<bool> {
    let (ms, ts) = (type_size(from)? as isize, type_size(to)?);
    let last = sel.count.len() - 1;
    let row = sel.count[last];
    let mut range_error = false;
    for r in 0..sel.len() / row.max(1) {
        // The memory offset of the row's first element.
        let (mut rest, mut off) = (r, 0isize);
        for d in (0..last).rev() {
            off += (rest % sel.count[d]) as isize * sel.imap[d];
            rest /= sel.count[d];
        }
        // SAFETY: the row's first element is in the caller's buffer.
        let src = unsafe { buf.offset(off * ms) };
        // SAFETY: row r of `dst`, which has room for every row.
        let out = unsafe { dst.add(r * row * ts) };
        // SAFETY: a row of the selection on each side, at its step; the
        // types are as this function requires.
        range_error |= unsafe { convert_run(from, src, sel.imap[last] * ms, to, out, ts as isize, row) }?;
    }
    Ok(range_error)
}

/// Do all the strings of a selection fit the variable's width?
///
/// # Safety
/// `buf` must hold one C string pointer (or NULL) per selected element at
/// the selection's imap.
pub unsafe fn all_strings_fit(sel: &Selection, buf: *const *const c_char, width: usize, text: TextEncoding) -> bool {
    let nd = sel.count.len();
    let mut i = vec![0usize; nd];
    loop {
        let off: isize = (0..nd - 1).map(|d| i[d] as isize * sel.imap[d]).sum();
        // SAFETY: the row's first pointer is in the caller's buffer.
        let row = unsafe { buf.offset(off) };
        // SAFETY: the row's pointers, at the selection's last step.
        if !unsafe { strings_fit(row, sel.imap[nd - 1], sel.count[nd - 1], width, text) } {
            return false;
        }
        let mut d = nd - 1;
        loop {
            if d == 0 {
                return true;
            }
            d -= 1;
            i[d] += 1;
            if i[d] < sel.count[d] {
                break;
            }
            i[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_keeps_only_the_text_elements_use() {
        let elem = |offset: u64, len: u64| [offset.to_ne_bytes(), len.to_ne_bytes()].concat();
        // Two elements, "bc" and "ef", amid text nothing points at.
        let mut chunk = [elem(1, 2), elem(4, 2)].concat();
        chunk.extend_from_slice(b"abcdefg");
        let compact = compact_vlen(&chunk, 2 * VLEN_ELEM).unwrap();
        assert_eq!(compact, [elem(0, 2), elem(2, 2), b"bcef".to_vec()].concat());
        let bad = [elem(6, 9), b"abc".to_vec()].concat();
        assert_eq!(compact_vlen(&bad, VLEN_ELEM), Err(NcError::EINTERNAL), "points past the text");
    }

    #[test]
    fn gather_follows_the_map_and_converts() {
        // A 2x3 request from column-major doubles into C-ordered floats.
        let sel = Selection { start: vec![0, 0], count: vec![2, 3], stride: vec![1, 1], imap: vec![1, 2] };
        let mem: [f64; 6] = [0.0, 10.0, 1.0, 11.0, 2.0, 1e39];
        let mut out = [0f32; 6];
        // SAFETY: `mem` holds the selection at its imap, `out` has room for it.
        let bad = unsafe { gather(&sel, NC_DOUBLE, mem.as_ptr() as *const u8, NC_FLOAT, out.as_mut_ptr() as *mut u8) };
        assert_eq!(bad, Ok(true), "1e39 is out of float range");
        assert_eq!(out, [0.0, 1.0, 2.0, 10.0, 11.0, f32::INFINITY]);
    }
}
