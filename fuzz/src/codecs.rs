//! The codec decoders built into the library (zlib, gzip, shuffle,
//! fletcher32, bz2, zstd, lz4, blosc) through the chain the data engine
//! uses, with the bound on their output.
//!
//! ```text
//! input := codec flags size level expected data
//! codec    := 1 byte: which codec or chain (see CODECS)
//! flags    := 1 byte: bit 0 round trip (else decode); bits 1-2 blosc
//!             shuffle; bits 3-5 blosc inner codec (see CNAMES); bit 6
//!             shuffle "elementsize": 0 (netcdf-c's spelling)
//! size     := 1 byte: element size 1 + size % 16
//! level    := 1 byte (signed: zstd takes negative levels)
//! expected := u32 little-endian: the chunk size decoding expects, at
//!             most 1 MiB
//! data     := the rest: the stored chunk (decode) or the chunk (round trip)
//! ```
//! Decoding must give exactly the expected size or an error; a round
//! trip must give the data back. A chain that decodes parts of chunks
//! (blosc alone) also decodes byte ranges drawn from the input (of the
//! stored chunk, and of the encoded one in a round trip): an error, or
//! the bytes the whole decode holds there whenever it succeeds.

use netcdf::codec::Chain;
use netcdf::codec::callback::VarInfo;
use serde_json::{Value, json};
use std::ops::Range;

const CNAMES: &[&str] = &["lz4", "lz4hc", "zlib", "zstd", "blosclz", "snappy", "lz5"];
const MAX_EXPECTED: usize = 1 << 20;

fn codecs(which: u8, flags: u8, size: usize, level: i8) -> Vec<Value> {
    let elementsize = if flags & 0x40 != 0 { 0 } else { size };
    let blosc = json!({
        "id": "blosc",
        "cname": CNAMES[usize::from(flags >> 3 & 7) % CNAMES.len()],
        "clevel": level,
        "shuffle": (flags >> 1 & 3),
        "typesize": size,
        "blocksize": 0,
    });
    let shuffle = json!({"id": "shuffle", "elementsize": elementsize});
    match which % 12 {
        0 => vec![json!({"id": "zlib", "level": level})],
        1 => vec![json!({"id": "gzip", "level": level})],
        2 => vec![shuffle],
        3 => vec![json!({"id": "fletcher32"})],
        4 => vec![json!({"id": "bz2", "level": level})],
        5 => vec![json!({"id": "zstd", "level": level})],
        6 => vec![json!({"id": "lz4", "acceleration": level})],
        7 => vec![blosc],
        8 => vec![shuffle, json!({"id": "zlib", "level": level})],
        9 => vec![json!({"id": "fletcher32"}), json!({"id": "zstd", "level": level})],
        10 => vec![shuffle, blosc],
        _ => vec![json!({"id": "szip", "mask": 4, "pixels-per-block": 32})],
    }
}

pub fn codec(data: &[u8]) {
    let Some((head, payload)) = data.split_first_chunk::<8>() else { return };
    let [which, flags, size, level, e0, e1, e2, e3] = *head;
    let size = 1 + usize::from(size % 16);
    let expected = (u32::from_le_bytes([e0, e1, e2, e3]) as usize).min(MAX_EXPECTED);
    let codecs = codecs(which, flags, size, level as i8);
    let Ok(chain) = Chain::from_json(&codecs, size, &VarInfo::default()) else { return };
    if flags & 1 == 0 {
        let whole = chain.decode(payload, expected);
        if let Ok(out) = &whole {
            assert_eq!(out.len(), expected, "{codecs:?} decoded to the wrong size");
        }
        parts_agree(&chain, payload, expected, whole.ok().as_deref(), false, &codecs);
    } else {
        let Ok(encoded) = chain.encode(payload) else { return };
        match chain.decode(&encoded, payload.len()) {
            Ok(back) => assert!(back == payload, "{codecs:?} changed the data in a round trip"),
            Err(e) => panic!("{codecs:?} cannot decode what it encoded: {e:?}"),
        }
        parts_agree(&chain, &encoded, payload.len(), Some(payload), true, &codecs);
    }
}

/// Sorted, disjoint byte ranges of a chunk of `len` bytes, drawn from
/// `seed`: a few runs of varied lengths and gaps.
fn ranges(seed: &[u8], len: usize) -> Vec<Range<usize>> {
    let mut rng = super::Rng::new(seed.iter().fold(len as u64, |h, &b| h.wrapping_mul(31).wrapping_add(u64::from(b))));
    let mut out = Vec::new();
    let mut at = 0;
    for _ in 0..1 + rng.below(12) {
        let start = at + rng.below(len.saturating_sub(at) / 2 + 1);
        let end = start + rng.below(len.saturating_sub(start).min(1 << 14) + 1);
        if end > len {
            break;
        }
        out.push(start..end);
        at = end;
    }
    out
}

/// Decoding only some ranges is an error (never for what we encoded:
/// `ours`) or agrees with `whole` there (with no whole decode to compare,
/// it must only not panic). A damaged stream the whole decode takes may
/// still be refused: the part decoder refuses LZ4's offset 0, which
/// liblz4 takes.
fn parts_agree(chain: &Chain, stored: &[u8], len: usize, whole: Option<&[u8]>, ours: bool, codecs: &[Value]) {
    if !chain.decodes_ranges() {
        return;
    }
    let wanted = ranges(&stored[..stored.len().min(64)], len);
    let Ok(Some(part)) = chain.decode_ranges(stored, len, &wanted, usize::MAX) else {
        assert!(!ours, "{codecs:?} cannot decode {wanted:?} of what it encoded");
        return;
    };
    if let Some(whole) = whole {
        let expect: Vec<u8> = wanted.iter().flat_map(|r| whole[r.clone()].iter().copied()).collect();
        assert!(part == expect, "{codecs:?} decodes {wanted:?} otherwise than whole");
    }
}
