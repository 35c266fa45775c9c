//! The page headers of a Parquet column chunk, checked before the
//! `parquet` crate reads it: that reader allocates whatever decoded size
//! a page header claims (up to 2 GiB) before it decompresses, so a
//! hostile record file could make it ask for memory out of all
//! proportion, and an allocation refused aborts the process.
//!
//! A page header is a Thrift compact-protocol struct (`PageHeader` in
//! parquet.thrift): field 2 the decoded size, field 3 the stored size; the
//! stored bytes follow it, then the next page. Only those two fields are
//! read; the rest (nested statistics and page descriptions) is skipped,
//! with bounded nesting.

use crate::error::{NcError, NcResult};

/// Most bytes one page may decode to.
pub const MAX_PAGE_BYTES: u64 = 256 << 20;

/// Deepest nesting of structs and lists skipped.
const MAX_DEPTH: usize = 16;

/// Walk the pages of the column chunk `bytes[start..start + len]`: every
/// header must parse, every page lie inside the chunk and decode to at
/// most [`MAX_PAGE_BYTES`]. Returns the chunk's decoded bytes in all.
pub fn check_column_chunk(bytes: &[u8], start: usize, len: usize) -> NcResult<u64> {
    let end = start.checked_add(len).filter(|&e| e <= bytes.len()).ok_or(NcError::ENCZARR)?;
    let mut at = start;
    let mut decoded = 0u64;
    while at < end {
        let mut reader = Reader { bytes: &bytes[at..end], pos: 0 };
        let (plain, stored) = reader.page_header()?;
        if plain > MAX_PAGE_BYTES {
            return Err(NcError::ENCZARR);
        }
        decoded += plain;
        at = at.checked_add(reader.pos).and_then(|a| a.checked_add(stored as usize)).ok_or(NcError::ENCZARR)?;
        if at > end {
            return Err(NcError::ENCZARR);
        }
    }
    Ok(decoded)
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> NcResult<u8> {
        let b = *self.bytes.get(self.pos).ok_or(NcError::ENCZARR)?;
        self.pos += 1;
        Ok(b)
    }

    fn varint(&mut self) -> NcResult<u64> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err(NcError::ENCZARR);
            }
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(NcError::ENCZARR)
    }

    /// A zigzag-encoded integer.
    fn int(&mut self) -> NcResult<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn skip(&mut self, n: usize) -> NcResult<()> {
        self.pos = self.pos.checked_add(n).filter(|&p| p <= self.bytes.len()).ok_or(NcError::ENCZARR)?;
        Ok(())
    }

    /// The (decoded size, stored size) of a page header, the reader left
    /// just after it.
    fn page_header(&mut self) -> NcResult<(u64, u64)> {
        let (mut plain, mut stored) = (None, None);
        let mut field = 0i64;
        loop {
            let head = self.byte()?;
            let kind = head & 0x0f;
            if kind == 0 {
                break;
            }
            field = match head >> 4 {
                0 => self.int()?,
                delta => field + i64::from(delta),
            };
            match (field, kind) {
                // i32 fields: sizes are never negative.
                (2, 5) => plain = Some(u64::try_from(self.int()?).map_err(|_| NcError::ENCZARR)?),
                (3, 5) => stored = Some(u64::try_from(self.int()?).map_err(|_| NcError::ENCZARR)?),
                (2 | 3, _) => return Err(NcError::ENCZARR),
                _ => self.skip_value(kind, 0)?,
            }
        }
        Ok((plain.ok_or(NcError::ENCZARR)?, stored.ok_or(NcError::ENCZARR)?))
    }

    /// Skip a value of compact type `kind`.
    fn skip_value(&mut self, kind: u8, depth: usize) -> NcResult<()> {
        if depth > MAX_DEPTH {
            return Err(NcError::ENCZARR);
        }
        match kind {
            // true, false (in the field header itself)
            1 | 2 => Ok(()),
            3 => self.skip(1),
            4..=6 => self.varint().map(drop),
            7 => self.skip(8),
            8 => {
                let n = usize::try_from(self.varint()?).map_err(|_| NcError::ENCZARR)?;
                self.skip(n)
            }
            // list, set
            9 | 10 => {
                let head = self.byte()?;
                let n = match head >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                let elem = head & 0x0f;
                // Booleans in lists take a byte each.
                let elem = if elem == 1 || elem == 2 { 3 } else { elem };
                for _ in 0..n {
                    self.skip_value(elem, depth + 1)?;
                }
                Ok(())
            }
            11 => {
                let n = self.varint()?;
                if n == 0 {
                    return Ok(());
                }
                let types = self.byte()?;
                let fix = |t: u8| if t == 1 || t == 2 { 3 } else { t };
                for _ in 0..n {
                    self.skip_value(fix(types >> 4), depth + 1)?;
                    self.skip_value(fix(types & 0x0f), depth + 1)?;
                }
                Ok(())
            }
            12 => {
                let mut field = 0i64;
                loop {
                    let head = self.byte()?;
                    let kind = head & 0x0f;
                    if kind == 0 {
                        return Ok(());
                    }
                    field = match head >> 4 {
                        0 => self.int()?,
                        delta => field + i64::from(delta),
                    };
                    let _ = field;
                    self.skip_value(kind, depth + 1)?;
                }
            }
            _ => Err(NcError::ENCZARR),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page header: type 0, the sizes, then a data page header struct
    /// (num_values 3, encoding 0, def/rep encodings 3, statistics with a
    /// binary max), then `stored` bytes of page.
    fn page(plain: i32, stored: i32) -> Vec<u8> {
        let zigzag = |v: i32| -> Vec<u8> {
            let mut z = ((v << 1) ^ (v >> 31)) as u32;
            let mut out = Vec::new();
            loop {
                if z < 0x80 {
                    out.push(z as u8);
                    return out;
                }
                out.push((z as u8 & 0x7f) | 0x80);
                z >>= 7;
            }
        };
        let mut h = vec![0x15];
        h.extend(zigzag(0));
        h.push(0x15);
        h.extend(zigzag(plain));
        h.push(0x15);
        h.extend(zigzag(stored));
        // field 5 (delta 2), a struct
        h.push(0x2c);
        h.extend([0x15, 6, 0x15, 0, 0x15, 6, 0x15, 6]);
        // statistics (field 5, delta 1): a struct with a binary (field 1)
        h.extend([0x1c, 0x18, 2, b'a', b'b', 0x00]);
        h.push(0x00);
        h.push(0x00);
        h.extend(std::iter::repeat_n(0xee, stored as usize));
        h
    }

    #[test]
    fn pages_are_walked_and_their_sizes_checked() {
        let mut chunk = page(100, 10);
        chunk.extend(page(50, 4));
        assert_eq!(check_column_chunk(&chunk, 0, chunk.len()), Ok(150));
        // A page past the chunk, or claiming too much, or cut short.
        assert_eq!(check_column_chunk(&chunk, 0, chunk.len() - 1), Err(NcError::ENCZARR));
        let huge = page(1 << 30, 4);
        assert_eq!(check_column_chunk(&huge, 0, huge.len()), Err(NcError::ENCZARR));
        let negative = page(-5, 4);
        assert_eq!(check_column_chunk(&negative, 0, negative.len()), Err(NcError::ENCZARR));
        assert_eq!(check_column_chunk(&chunk[..6], 0, 6), Err(NcError::ENCZARR));
        assert_eq!(check_column_chunk(&chunk, 5, chunk.len()), Err(NcError::ENCZARR));
    }

    #[test]
    fn nesting_is_bounded() {
        // Field 5 a struct holding a struct holding ... (no end).
        let mut deep = vec![0x15, 0, 0x15, 2, 0x15, 2, 0x2c];
        deep.extend(std::iter::repeat_n(0x1c, 100));
        assert_eq!(check_column_chunk(&deep, 0, deep.len()), Err(NcError::ENCZARR));
    }
}
