//! Chunks a write makes without filling them first.
//!
//! A chunk written one slab at a time (one time step per call: every call
//! sets whole rows, rows being the chunk's slabs along its first
//! dimension) is made of fill and then overwritten row by row, so the
//! fill is written once for nothing: about a quarter of such a write's
//! time. Instead the chunk starts as a buffer of no particular contents
//! and an [`Unfilled`] naming its rows not yet written; the fill goes into
//! those rows only when the chunk must be whole: before it is read,
//! stored, or changed by a write that is not of whole rows (the chunk
//! cache and `io::write` see to that).

use super::grid::ChunkPart;
use super::layout::VarLayout;
use super::selection::Selection;

/// The rows of a chunk not written yet, and what fills them.
#[derive(Debug)]
pub struct Unfilled {
    missing: Vec<bool>,
    row_bytes: usize,
    /// One element's fill value.
    fill: Vec<u8>,
}

impl Unfilled {
    /// Every row of a chunk of `layout` missing; None for chunks that are
    /// not plain arrays of fixed-size elements.
    pub fn all_rows(layout: &VarLayout) -> Option<Unfilled> {
        if layout.text.is_vlen()
            || layout.chunks.is_empty()
            || layout.fill.len() != layout.elem_size
            || layout.elem_size == 0
        {
            return None;
        }
        let rows = layout.chunks[0];
        let row_bytes = layout.chunk_bytes() / rows.max(1);
        (rows > 0 && row_bytes * rows == layout.chunk_bytes()).then(|| Unfilled {
            missing: vec![true; rows],
            row_bytes,
            fill: layout.fill.clone(),
        })
    }

    /// Rows `rows` are now written. Returns None once every row is.
    pub fn written(mut self, rows: std::ops::RangeInclusive<usize>) -> Option<Unfilled> {
        for row in rows {
            if let Some(m) = self.missing.get_mut(row) {
                *m = false;
            }
        }
        self.missing.contains(&true).then_some(self)
    }

    /// Fill the rows not written, making `chunk` whole.
    pub fn complete(self, chunk: &mut [u8]) {
        let es = self.fill.len();
        for (row, _) in self.missing.iter().enumerate().filter(|(_, m)| **m) {
            let Some(bytes) = chunk.get_mut(row * self.row_bytes..(row + 1) * self.row_bytes) else { continue };
            bytes.chunks_exact_mut(es).for_each(|e| e.copy_from_slice(&self.fill));
        }
    }
}

/// The rows (along the chunk's first dimension) a part of a write sets
/// whole, if it sets nothing but whole rows: every other dimension
/// covered end to end, no stride.
pub fn whole_rows(layout: &VarLayout, sel: &Selection, part: &ChunkPart) -> Option<std::ops::RangeInclusive<usize>> {
    let mut rows = 0..=0;
    for d in 0..layout.chunks.len() {
        let chunk = layout.chunks[d];
        let origin = part.idx[d] * chunk;
        let first = (sel.start[d] + part.lo[d] * sel.stride[d]).checked_sub(origin)?;
        let last = (sel.start[d] + part.hi[d] * sel.stride[d]).checked_sub(origin)?;
        if sel.stride[d] != 1 && part.lo[d] != part.hi[d] {
            return None;
        }
        if d == 0 {
            rows = first..=last;
        } else if first != 0 || last + 1 != chunk {
            return None;
        }
    }
    Some(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unfilled(rows: usize, row_bytes: usize) -> Unfilled {
        Unfilled { missing: vec![true; rows], row_bytes, fill: vec![7, 9] }
    }

    #[test]
    fn completing_fills_only_the_rows_not_written() {
        let u = unfilled(3, 4).written(1..=1).unwrap();
        let mut chunk = vec![1u8; 12];
        u.complete(&mut chunk);
        assert_eq!(chunk, [7, 9, 7, 9, 1, 1, 1, 1, 7, 9, 7, 9]);
        assert!(unfilled(3, 4).written(0..=1).and_then(|u| u.written(2..=2)).is_none());
    }
}
