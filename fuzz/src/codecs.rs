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
//! trip must give the data back.

use netcdf::codec::Chain;
use netcdf::codec::callback::VarInfo;
use serde_json::{Value, json};

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
        if let Ok(out) = chain.decode(payload, expected) {
            assert_eq!(out.len(), expected, "{codecs:?} decoded to the wrong size");
        }
    } else {
        let Ok(encoded) = chain.encode(payload) else { return };
        match chain.decode(&encoded, payload.len()) {
            Ok(back) => assert!(back == payload, "{codecs:?} changed the data in a round trip"),
            Err(e) => panic!("{codecs:?} cannot decode what it encoded: {e:?}"),
        }
    }
}
