//! The first bytes of one LZ4 block, decoded by the format's rules and
//! no further: liblz4's own partial decoder is lenient where a stream is
//! damaged (it takes literals running past the input, and what it gives
//! then depends on how far it was asked to go), so a part of a chunk it
//! decoded could differ from the same part of the whole chunk. This one
//! reads sequences exactly as the whole decode does and refuses what the
//! format forbids (offset 0, a match before the start, output past the
//! block), so what it returns is what a successful whole decode holds.

use crate::error::{NcError, NcResult};

/// Decode at least the first `want` bytes of the LZ4 block `src`, whose
/// whole output is `out.len()` bytes, into `out`.
pub fn lz4_decode_prefix(src: &[u8], out: &mut [u8], want: usize) -> NcResult<()> {
    let byte = |ip: &mut usize| -> NcResult<usize> {
        let b = *src.get(*ip).ok_or(NcError::EFILTER)?;
        *ip += 1;
        Ok(b as usize)
    };
    // A length of 15 goes on in bytes while they are 255.
    let length = |ip: &mut usize, mut n: usize| -> NcResult<usize> {
        if n == 15 {
            loop {
                let b = byte(ip)?;
                n = n.checked_add(b).ok_or(NcError::EFILTER)?;
                if b != 255 {
                    break;
                }
            }
        }
        Ok(n)
    };
    let (mut ip, mut op) = (0, 0);
    while op < want {
        let token = byte(&mut ip)?;
        let literals = length(&mut ip, token >> 4)?;
        let end = op.checked_add(literals).filter(|&e| e <= out.len()).ok_or(NcError::EFILTER)?;
        let from = src.get(ip..ip + literals).ok_or(NcError::EFILTER)?;
        out[op..end].copy_from_slice(from);
        (ip, op) = (ip + literals, end);
        if op >= want {
            break;
        }
        // The last sequence is literals only: a block ending here holds
        // fewer bytes than it must.
        let offset = byte(&mut ip)? | byte(&mut ip)? << 8;
        if offset == 0 || offset > op {
            return Err(NcError::EFILTER);
        }
        let len = length(&mut ip, token & 15)? + 4;
        let end = op.checked_add(len).filter(|&e| e <= out.len()).ok_or(NcError::EFILTER)?;
        // The match repeats the `offset` bytes before it: copied in
        // pieces that never overlap what they copy from, each twice as
        // long as the one before (a distance of 1 is a fill).
        let from = op - offset;
        let mut at = op;
        while at < end {
            let n = (at - from).min(end - at);
            out.copy_within(from..from + n, at);
            at += n;
        }
        op = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_agree_with_the_whole_block() {
        let data: Vec<u8> = (0..50_000u32).map(|i| ((i / 300) ^ (i % 7)) as u8).collect();
        let block = lz4_flex::block::compress(&data);
        for want in [0, 1, 100, 4097, 49_999, 50_000] {
            let mut out = vec![0; data.len()];
            lz4_decode_prefix(&block, &mut out, want).unwrap();
            assert!(out[..want] == data[..want], "want {want}");
        }
    }

    #[test]
    fn damaged_blocks_are_errors() {
        let mut out = vec![0; 64];
        // "abcd", then a match at offset 0, 5 past the start, past the end.
        for bad in [
            &[0x40, b'a', b'b', b'c', b'd', 0, 0][..],
            &[0x40, b'a', b'b', b'c', b'd', 5, 0],
            &[0x4f, 1, 2, 3, 4, 1, 0, 200],
        ] {
            assert_eq!(lz4_decode_prefix(bad, &mut out, 64), Err(NcError::EFILTER), "{bad:?}");
        }
        // Literals past the input or the output; a block ending early.
        assert_eq!(lz4_decode_prefix(&[0x50, 1, 2], &mut out, 4), Err(NcError::EFILTER));
        assert_eq!(lz4_decode_prefix(&[0xf0, 255, 255, 255], &mut out, 4), Err(NcError::EFILTER));
        assert_eq!(lz4_decode_prefix(&[0x20, 1, 2], &mut out, 4), Err(NcError::EFILTER));
        // A run: "ab" then 6 more at offset 2.
        let mut run = vec![0; 8];
        lz4_decode_prefix(&[0x22, b'a', b'b', 2, 0], &mut run, 8).unwrap();
        assert_eq!(run, b"abababab");
    }
}
