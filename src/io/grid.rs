//! Splitting a selection into the chunks it touches, and each chunk's part
//! into runs along the last dimension.

use super::selection::{Selection, c_order};

/// The part of a selection that falls in one chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkPart {
    /// Chunk index along each dimension.
    pub idx: Vec<usize>,
    /// First and last selection index (inclusive) inside this chunk.
    pub lo: Vec<usize>,
    pub hi: Vec<usize>,
    /// Every element of the chunk inside `shape` is selected, so a write
    /// need not read the chunk first.
    pub covers_chunk: bool,
}

/// Per dimension: (chunk index, first selection index, last selection index).
fn per_dim_parts(start: usize, count: usize, stride: usize, chunk: usize) -> Vec<(usize, usize, usize)> {
    let mut parts = Vec::new();
    if count == 0 {
        return parts;
    }
    let first = start / chunk;
    let last = (start + stride * (count - 1)) / chunk;
    for c in first..=last {
        let c_begin = c * chunk;
        let c_end = c_begin + chunk - 1;
        let lo = if c_begin <= start { 0 } else { (c_begin - start).div_ceil(stride) };
        if lo >= count || start + lo * stride > c_end {
            continue; // the stride steps over this chunk
        }
        let hi = ((c_end - start) / stride).min(count - 1);
        parts.push((c, lo, hi));
    }
    parts
}

/// Every chunk the selection touches, in C order of chunk index.
pub fn chunk_parts(sel: &Selection, chunks: &[usize], shape: &[usize]) -> Vec<ChunkPart> {
    let dims: Vec<Vec<(usize, usize, usize)>> =
        (0..chunks.len()).map(|d| per_dim_parts(sel.start[d], sel.count[d], sel.stride[d], chunks[d])).collect();
    if dims.iter().any(Vec::is_empty) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut pos = vec![0usize; dims.len()];
    loop {
        let mut part = ChunkPart { idx: Vec::new(), lo: Vec::new(), hi: Vec::new(), covers_chunk: true };
        for (d, parts) in dims.iter().enumerate() {
            let (c, lo, hi) = parts[pos[d]];
            let first = sel.start[d] + lo * sel.stride[d];
            let last = sel.start[d] + hi * sel.stride[d];
            let chunk_last = ((c + 1) * chunks[d]).min(shape[d].max(last + 1)) - 1;
            part.covers_chunk &= sel.stride[d] == 1 && first == c * chunks[d] && last == chunk_last;
            part.idx.push(c);
            part.lo.push(lo);
            part.hi.push(hi);
        }
        out.push(part);
        // Odometer over the per-dimension part lists.
        let mut d = dims.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            pos[d] += 1;
            if pos[d] < dims[d].len() {
                break;
            }
            pos[d] = 0;
        }
    }
}

/// Chunk element offsets of a part's first and last selected elements: in
/// C order every selected element lies between them.
pub fn part_span(sel: &Selection, chunks: &[usize], part: &ChunkPart) -> (usize, usize) {
    let cstrides = c_order(chunks);
    let offset = |i: &[usize]| -> usize {
        (0..chunks.len())
            .map(|d| (sel.start[d] + i[d] * sel.stride[d] - part.idx[d] * chunks[d]) * cstrides[d] as usize)
            .sum()
    };
    (offset(&part.lo), offset(&part.hi))
}

/// One run: `n` elements starting at `chunk_off` (stepping `chunk_step`)
/// in the chunk and at `mem_off` (stepping `mem_step`) in memory; all in
/// elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub chunk_off: usize,
    pub chunk_step: usize,
    pub mem_off: isize,
    pub mem_step: isize,
    pub n: usize,
}

/// Call `f` for each run of a chunk part.
pub fn for_each_run(
    sel: &Selection,
    chunks: &[usize],
    part: &ChunkPart,
    mut f: impl FnMut(Run) -> crate::error::NcResult<()>,
) -> crate::error::NcResult<()> {
    let nd = chunks.len();
    let cstrides = c_order(chunks);
    let last = nd - 1;
    let mut i = part.lo.clone();
    loop {
        let mut chunk_off = 0isize;
        let mut mem_off = 0isize;
        for d in 0..nd {
            let global = sel.start[d] + i[d] * sel.stride[d];
            chunk_off += (global - part.idx[d] * chunks[d]) as isize * cstrides[d];
            mem_off += i[d] as isize * sel.imap[d];
        }
        f(Run {
            chunk_off: chunk_off as usize,
            chunk_step: sel.stride[last] * cstrides[last] as usize,
            mem_off,
            mem_step: sel.imap[last],
            n: part.hi[last] - part.lo[last] + 1,
        })?;
        // Advance every dimension but the last.
        let mut d = last;
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            i[d] += 1;
            if i[d] <= part.hi[d] {
                break;
            }
            i[d] = part.lo[d];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(start: &[usize], count: &[usize], stride: &[usize]) -> Selection {
        Selection { start: start.to_vec(), count: count.to_vec(), stride: stride.to_vec(), imap: c_order(count) }
    }

    #[test]
    fn per_dimension_split() {
        assert_eq!(per_dim_parts(0, 10, 1, 4), vec![(0, 0, 3), (1, 4, 7), (2, 8, 9)]);
        assert_eq!(per_dim_parts(3, 2, 1, 4), vec![(0, 0, 0), (1, 1, 1)]);
        // Stride 5 over chunks of 2: indices 0, 5, 10 fall in chunks 0, 2, 5.
        assert_eq!(per_dim_parts(0, 3, 5, 2), vec![(0, 0, 0), (2, 1, 1), (5, 2, 2)]);
    }

    #[test]
    fn parts_and_coverage() {
        let parts = chunk_parts(&sel(&[0, 0], &[4, 6], &[1, 1]), &[2, 4], &[4, 6]);
        assert_eq!(parts.len(), 4);
        assert!(parts.iter().all(|p| p.covers_chunk), "edge chunks are covered up to the shape");
        let parts = chunk_parts(&sel(&[1, 0], &[2, 4], &[1, 1]), &[2, 4], &[4, 6]);
        assert_eq!(parts.iter().filter(|p| p.covers_chunk).count(), 0);
    }

    #[test]
    fn spans() {
        let s = sel(&[1, 2], &[2, 3], &[1, 1]);
        let parts = chunk_parts(&s, &[4, 4], &[4, 8]);
        assert_eq!(part_span(&s, &[4, 4], &parts[0]), (6, 11));
        assert_eq!(part_span(&s, &[4, 4], &parts[1]), (4, 8));
    }

    #[test]
    fn runs_map_chunk_to_memory() {
        let s = sel(&[1, 2], &[2, 3], &[1, 1]);
        let parts = chunk_parts(&s, &[4, 4], &[4, 8]);
        let mut runs = Vec::new();
        for p in &parts {
            for_each_run(&s, &[4, 4], p, |r| {
                runs.push((p.idx.clone(), r));
                Ok(())
            })
            .unwrap();
        }
        // Row 1, cols 2..3 in chunk (0,0); col 4 in chunk (0,1); same for row 2.
        assert_eq!(runs.len(), 4);
        let (idx, r) = &runs[0];
        assert_eq!(idx, &vec![0, 0]);
        assert_eq!((r.chunk_off, r.mem_off, r.n), (6, 0, 2));
        let (idx, r) = &runs[2];
        assert_eq!(idx, &vec![0, 1]);
        assert_eq!((r.chunk_off, r.mem_off, r.n), (4, 2, 1));
    }
}
