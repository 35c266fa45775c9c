//! Hyperslab arguments (start, count, stride, imap) checked with netcdf-c's
//! rules and error codes.

use crate::error::{NcError, NcResult};

/// Whether a request reads or writes: writes may extend unlimited
/// dimensions, reads stay within their current length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// A checked hyperslab over a variable's index space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub start: Vec<usize>,
    pub count: Vec<usize>,
    pub stride: Vec<usize>,
    /// Distance, in memory elements, between neighbours along each
    /// dimension of the caller's buffer.
    pub imap: Vec<isize>,
}

/// The dimensions of a variable as the checks see them.
#[derive(Debug, Clone, Copy)]
pub struct Extent {
    pub len: usize,
    pub unlimited: bool,
}

/// The largest stride netcdf-c accepts (exclusive).
const MAX_STRIDE: isize = i32::MAX as isize;

impl Selection {
    /// Check a request. `None` arguments take netcdf-c's defaults: count
    /// is the whole extent from start, stride 1, imap the C order of count.
    /// A scalar (no dimensions) is a one-element, one-dimensional request.
    pub fn check(
        dims: &[Extent],
        start: Option<&[usize]>,
        count: Option<&[usize]>,
        stride: Option<&[isize]>,
        imap: Option<&[isize]>,
        access: Access,
    ) -> NcResult<Selection> {
        if dims.is_empty() {
            return Ok(Selection { start: vec![0], count: vec![1], stride: vec![1], imap: vec![1] });
        }
        let start = start.ok_or(NcError::EINVALCOORDS)?;
        let mut sel = Selection {
            start: start.to_vec(),
            count: Vec::with_capacity(dims.len()),
            stride: Vec::with_capacity(dims.len()),
            imap: Vec::new(),
        };
        for (d, dim) in dims.iter().enumerate() {
            let s = start[d];
            let c = count.map_or(dim.len.saturating_sub(s), |c| c[d]);
            let st = stride.map_or(1, |st| st[d]);
            if st <= 0 || st >= MAX_STRIDE {
                return Err(NcError::ESTRIDE);
            }
            let st = st as usize;
            // Writes may go past the end of an unlimited dimension.
            if !(dim.unlimited && access == Access::Write) {
                if s > dim.len || (s == dim.len && c > 0) {
                    return Err(NcError::EINVALCOORDS);
                }
                let last = if c == 0 { Some(s) } else { st.checked_mul(c - 1).and_then(|x| x.checked_add(s)) };
                if s.checked_add(c).is_none_or(|end| end > dim.len) || (c > 0 && last.is_none_or(|l| l >= dim.len)) {
                    return Err(NcError::EEDGE);
                }
            } else if c > 0 && st.checked_mul(c - 1).and_then(|x| x.checked_add(s)).is_none() {
                return Err(NcError::EEDGE);
            }
            sel.count.push(c);
            sel.stride.push(st);
        }
        if sel.is_empty() {
            let default = || c_order_checked(&sel.count).unwrap_or_else(|| vec![0; sel.count.len()]);
            sel.imap = imap.map_or_else(default, <[isize]>::to_vec);
            return Ok(sel);
        }
        // The caller's buffer: every element's offset, in bytes of the
        // widest memory type, must be addressable. A request past that
        // (its element count or a map overflowing) is NC_EINVAL, before
        // anything is read, written or allocated.
        sel.imap = match imap {
            Some(m) => m.to_vec(),
            None => c_order_checked(&sel.count).ok_or(NcError::EINVAL)?,
        };
        let last_offset = sel.count.iter().zip(&sel.imap).try_fold(0isize, |sum, (&c, &m)| {
            let c = isize::try_from(c - 1).ok()?;
            sum.checked_add(c.checked_mul(m.checked_abs()?)?)
        });
        let bytes = |n: usize| n.checked_mul(MAX_ELEMENT_SIZE as usize).filter(|&b| b <= isize::MAX as usize);
        let len = sel.count.iter().try_fold(1usize, |p, &c| p.checked_mul(c)).and_then(bytes);
        let span = last_offset.and_then(|o| usize::try_from(o).ok()?.checked_add(1)).and_then(bytes);
        if len.is_none() || span.is_none() {
            return Err(NcError::EINVAL);
        }
        Ok(sel)
    }

    /// Number of elements selected.
    pub fn len(&self) -> usize {
        self.count.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.count.contains(&0)
    }

    /// Whether distinct selected elements land on distinct memory
    /// elements. Not always so: netcdf-c takes any imap, 0 included, and
    /// then several elements go to one place (the last one written stays).
    /// A sufficient test: ordered by |imap|, each dimension's step clears
    /// the span of the ones inside it.
    pub fn maps_disjoint(&self) -> bool {
        let mut dims: Vec<(usize, usize)> =
            self.imap.iter().zip(&self.count).filter(|&(_, &c)| c > 1).map(|(&m, &c)| (m.unsigned_abs(), c)).collect();
        dims.sort_unstable();
        let mut span = 1usize;
        for (step, count) in dims {
            match step.checked_mul(count - 1).and_then(|s| s.checked_add(span)) {
                Some(next) if step >= span => span = next,
                _ => return false,
            }
        }
        true
    }

    /// One past the last index touched along dimension `d`.
    pub fn end(&self, d: usize) -> usize {
        if self.count[d] == 0 { self.start[d] } else { self.start[d] + self.stride[d] * (self.count[d] - 1) + 1 }
    }
}

/// Bytes of the widest element a caller's buffer holds (a double, a
/// 64-bit integer or a string pointer).
const MAX_ELEMENT_SIZE: isize = 8;

/// [`c_order`], or `None` when a stride does not fit an `isize`.
fn c_order_checked(shape: &[usize]) -> Option<Vec<isize>> {
    let mut strides = vec![1isize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].checked_mul(isize::try_from(shape[d + 1]).ok()?)?;
    }
    Some(strides)
}

/// Element strides of a C-ordered array of this shape.
pub fn c_order(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![1isize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1] as isize;
    }
    strides
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(len: usize) -> Extent {
        Extent { len, unlimited: false }
    }

    #[test]
    fn defaults() {
        let s = Selection::check(&[fixed(4), fixed(5)], Some(&[1, 0]), None, None, None, Access::Read).unwrap();
        assert_eq!((s.count.clone(), s.stride.clone(), s.imap.clone()), (vec![3, 5], vec![1, 1], vec![5, 1]));
        assert_eq!(s.len(), 15);
        let scalar = Selection::check(&[], None, None, None, None, Access::Read).unwrap();
        assert_eq!(scalar.len(), 1);
    }

    #[test]
    fn netcdf_error_codes() {
        let d = [fixed(10)];
        let check = |s: usize, c: usize, st: isize| {
            Selection::check(&d, Some(&[s]), Some(&[c]), Some(&[st]), None, Access::Read)
        };
        assert_eq!(check(11, 0, 1).err(), Some(NcError::EINVALCOORDS));
        assert_eq!(check(10, 1, 1).err(), Some(NcError::EINVALCOORDS));
        assert!(check(10, 0, 1).is_ok());
        assert_eq!(check(5, 6, 1).err(), Some(NcError::EEDGE));
        assert_eq!(check(0, 6, 2).err(), Some(NcError::EEDGE));
        assert!(check(0, 5, 2).is_ok());
        assert_eq!(check(0, 1, 0).err(), Some(NcError::ESTRIDE));
        assert_eq!(check(0, 1, -1).err(), Some(NcError::ESTRIDE));
        assert_eq!(Selection::check(&d, None, None, None, None, Access::Read).err(), Some(NcError::EINVALCOORDS));
    }

    #[test]
    fn disjoint_maps() {
        let with_map = |count: &[usize], imap: &[isize]| Selection {
            start: vec![0; count.len()],
            count: count.to_vec(),
            stride: vec![1; count.len()],
            imap: imap.to_vec(),
        };
        assert!(with_map(&[2, 4], &[4, 1]).maps_disjoint(), "C order");
        assert!(with_map(&[2, 4], &[10, 1]).maps_disjoint(), "padded rows");
        assert!(with_map(&[2, 4], &[1, 2]).maps_disjoint(), "transposed");
        assert!(with_map(&[2, 4], &[-4, 1]).maps_disjoint(), "rows backwards");
        assert!(with_map(&[1, 4], &[0, 1]).maps_disjoint(), "one row");
        assert!(!with_map(&[2, 4], &[0, 1]).maps_disjoint(), "rows on top of each other");
        assert!(!with_map(&[2, 4], &[3, 1]).maps_disjoint(), "rows overlapping");
        assert!(!with_map(&[2, 4], &[isize::MAX, isize::MAX]).maps_disjoint(), "overflow");
    }

    #[test]
    fn writes_may_extend_unlimited_dimensions() {
        let d = [Extent { len: 2, unlimited: true }];
        assert!(Selection::check(&d, Some(&[5]), Some(&[3]), None, None, Access::Write).is_ok());
        assert_eq!(
            Selection::check(&d, Some(&[5]), Some(&[3]), None, None, Access::Read).err(),
            Some(NcError::EINVALCOORDS)
        );
        let s = Selection::check(&d, Some(&[5]), Some(&[3]), Some(&[2]), None, Access::Write).unwrap();
        assert_eq!(s.end(0), 10);
    }
}
