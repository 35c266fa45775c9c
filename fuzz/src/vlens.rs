//! The chunk format of variable-length strings (numcodecs' `vlen-utf8`
//! and `vlen-bytes`: a `u32` LE count, then per element a `u32` LE length
//! and its bytes), which the engine decodes and encodes itself after (or
//! before) any compressor.
//!
//! ```text
//! input := mode data
//! mode  := 1 byte: bit 0 round trip (else decode); bit 1 (round trip)
//!          the elements' text in reverse order in memory
//! data  := the stored chunk (decode), or the elements separated by NUL
//!          bytes (round trip)
//! ```
//! Decoding, with the count the chunk states or one next to it (the
//! metadata's chunk shape may disagree with the chunk), gives elements
//! that tile the text in order and encode back to the same bytes, or
//! NC_ENCZARR (never a panic, wrong bytes or a table sized by a count the
//! chunk cannot hold). A round trip gives the elements back.

use netcdf::error::NcError;
use netcdf::io::chunk_io::{decode_vlen, encode_vlen};
use netcdf::io::layout::VLEN_ELEM;

pub fn vlen(data: &[u8]) {
    let Some((&mode, payload)) = data.split_first() else { return };
    if mode & 1 == 0 {
        decode(payload);
    } else {
        round_trip(payload, mode & 2 != 0);
    }
}

/// An element of a decoded chunk: its offset and length in the text.
fn element(table: &[u8], k: usize) -> (usize, usize) {
    let e = &table[k * VLEN_ELEM..(k + 1) * VLEN_ELEM];
    let word = |w: &[u8]| u64::from_ne_bytes(w.try_into().expect("8 bytes")) as usize;
    (word(&e[..8]), word(&e[8..]))
}

fn decode(chunk: &[u8]) {
    let stated = chunk.get(..4).map_or(0, |b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize);
    for elems in [stated, stated.saturating_sub(1), stated + 1] {
        let decoded = match decode_vlen(chunk, elems) {
            Ok(decoded) => decoded,
            Err(e) => {
                assert_eq!(e, NcError::ENCZARR, "{elems} elements: the wrong error");
                continue;
            }
        };
        assert_eq!(elems, stated, "decoded with a count the chunk does not state");
        let (table, text) = decoded.split_at(elems * VLEN_ELEM);
        let mut next = 0;
        for k in 0..elems {
            let (offset, len) = element(table, k);
            assert_eq!(offset, next, "element {k} is not where the one before it ends");
            next += len;
        }
        assert_eq!(next, text.len(), "text no element points at");
        let again = encode_vlen(table, text).unwrap_or_else(|e| panic!("what decoded does not encode: {e:?}"));
        assert!(again == chunk, "decoded and encoded again, the chunk changed");
    }
}

fn round_trip(payload: &[u8], reversed: bool) {
    let items: Vec<&[u8]> = payload.split(|&b| b == 0).collect();
    // The table in element order, the text in either order: an encoding
    // follows the table.
    let mut text = Vec::new();
    let mut places = vec![(0u64, 0u64); items.len()];
    let order: Vec<usize> = if reversed { (0..items.len()).rev().collect() } else { (0..items.len()).collect() };
    for k in order {
        places[k] = (text.len() as u64, items[k].len() as u64);
        text.extend_from_slice(items[k]);
    }
    let table: Vec<u8> = places.iter().flat_map(|&(o, l)| [o.to_ne_bytes(), l.to_ne_bytes()].concat()).collect();
    let encoded = encode_vlen(&table, &text).unwrap_or_else(|e| panic!("cannot encode: {e:?}"));
    let decoded = decode_vlen(&encoded, items.len()).unwrap_or_else(|e| panic!("cannot decode what it encoded: {e:?}"));
    let (table, text) = decoded.split_at(items.len() * VLEN_ELEM);
    for (k, item) in items.iter().enumerate() {
        let (offset, len) = element(table, k);
        assert!(&text[offset..offset + len] == *item, "element {k} changed in a round trip");
    }
}
