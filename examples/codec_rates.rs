//! Single-core encode and decode rates of this library's own codec
//! backends, on the benchmark's data (bench/run's machine limits).
//!
//! ```sh
//! cargo run --release --example codec_rates [ct cy cx]
//! ```
//!
//! The chunks are 8 chunks (default 16 x 128 x 256 float32, 2 MiB) of
//! ncz_bench.c's analytic field taken across its 256 x 512 x 1024 cube, as
//! bench/codec_limits.py takes them for numcodecs. Each codec is built from
//! the Zarr v2 codec JSON the benchmark's stores hold (zarr-python writes
//! them; the C API writes the same codecs) through the library's codec
//! chain, the path reads and writes take, and timed on this thread only.
//! Prints `ours_codec_<name> <decode GB/s> <encode GB/s> <ratio>`, GB/s
//! counting decoded bytes (1e9 per second), ratio = raw / encoded; the best
//! of 3 runs of at least 0.5 s each.
//!
//! `--numcodecs DIR` (the chunks `bench/codec_limits.py --save DIR` wrote:
//! the same chunks as numcodecs encodes them, which is what the full
//! suite's read stores hold) also prints `ours_decode_numcodecs_<name>
//! <decode GB/s>`: our backends decoding what the reads decode. Encoders
//! differ (ours is not zlib at level 1, for one), and so does the speed of
//! decoding their output.

use std::time::Instant;

use netcdf::codec::Chain;
use netcdf::codec::callback::VarInfo;
use serde_json::{Value, json};

/// ncz_bench.c's `field()`, bit for bit.
fn field(t: u32, y: u32, x: u32) -> f32 {
    let mut h = t.wrapping_mul(73856093) ^ y.wrapping_mul(19349663) ^ x.wrapping_mul(83492791);
    h ^= h >> 13;
    h = h.wrapping_mul(0x5bd1e995);
    h ^= h >> 15;
    let base = (y.wrapping_mul(y) >> 6).wrapping_add(x >> 2).wrapping_add(t);
    base as f32 * 0.25 + (h & 0xff) as f32 * (1.0 / 1024.0)
}

fn chunk(origin: (u32, u32, u32), shape: (u32, u32, u32)) -> Vec<u8> {
    let mut out = Vec::with_capacity((shape.0 * shape.1 * shape.2 * 4) as usize);
    for t in 0..shape.0 {
        for y in 0..shape.1 {
            for x in 0..shape.2 {
                out.extend_from_slice(&field(origin.0 + t, origin.1 + y, origin.2 + x).to_le_bytes());
            }
        }
    }
    out
}

/// GB/s of `f` over all items, repeated for at least `min_seconds`; best of 3.
fn rate<T>(items: &[T], nbytes: usize, mut f: impl FnMut(&T)) -> f64 {
    let mut best: f64 = 0.0;
    for _ in 0..3 {
        let (mut n, t0) = (0usize, Instant::now());
        loop {
            items.iter().for_each(&mut f);
            n += 1;
            let sec = t0.elapsed().as_secs_f64();
            if sec >= 0.5 {
                best = best.max((n * nbytes) as f64 / sec / 1e9);
                break;
            }
        }
    }
    best
}

fn main() {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let numcodecs_dir = all.iter().position(|a| a == "--numcodecs").and_then(|at| all.get(at + 1)).cloned();
    let args: Vec<u32> = all.iter().filter_map(|a| a.parse().ok()).collect();
    let shape = if args.len() >= 3 { (args[0], args[1], args[2]) } else { (16, 128, 256) };
    // 8 chunks spread over ncz_bench's cube (256 x 512 x 1024), as codec_limits.py.
    let mut chunks = Vec::new();
    for t in [0, 128] {
        for y in [0, 256] {
            for x in [0, 512] {
                chunks.push(chunk((t, y, x), shape));
            }
        }
    }
    let chunk_bytes = chunks[0].len();
    let raw_bytes = chunk_bytes * chunks.len();
    // The codec JSON of the benchmark's stores: filters first, then the compressor.
    let codecs: [(&str, Vec<Value>); 4] = [
        ("zlib1_shuffle", vec![json!({"id": "shuffle", "elementsize": 4}), json!({"id": "zlib", "level": 1})]),
        ("zstd3", vec![json!({"id": "zstd", "level": 3})]),
        ("blosc_lz4", vec![json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0})]),
        ("blosc_zstd", vec![json!({"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 1, "blocksize": 0})]),
    ];
    let var =
        VarInfo { xtype: 5, chunks: vec![shape.0 as usize, shape.1 as usize, shape.2 as usize], ..Default::default() };
    for (name, spec) in codecs {
        let chain = match Chain::from_json(&spec, 4, &var) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{name}: cannot build the codec chain: {e:?}");
                std::process::exit(1);
            }
        };
        let encoded: Vec<Vec<u8>> = chunks.iter().map(|c| chain.encode(c).expect("encode")).collect();
        // A codec that does not round-trip is no limit.
        for (c, e) in chunks.iter().zip(&encoded) {
            assert!(chain.decode(e, chunk_bytes).expect("decode") == *c, "{name} does not round-trip");
        }
        let dec = rate(&encoded, raw_bytes, |e| {
            std::hint::black_box(chain.decode(e, chunk_bytes).expect("decode"));
        });
        let enc = rate(&chunks, raw_bytes, |c| {
            std::hint::black_box(chain.encode(c).expect("encode"));
        });
        let ratio = raw_bytes as f64 / encoded.iter().map(Vec::len).sum::<usize>() as f64;
        println!("ours_codec_{name} {dec:.2} {enc:.2} {ratio:.2}");
        if let Some(dir) = &numcodecs_dir {
            let theirs: Vec<Vec<u8>> = (0..chunks.len())
                .map_while(|i| std::fs::read(std::path::Path::new(dir).join(format!("{name}.{i}"))).ok())
                .collect();
            if theirs.len() == chunks.len() {
                for (c, e) in chunks.iter().zip(&theirs) {
                    assert!(chain.decode(e, chunk_bytes).expect("decode") == *c, "{name}: numcodecs' chunk");
                }
                let dec = rate(&theirs, raw_bytes, |e| {
                    std::hint::black_box(chain.decode(e, chunk_bytes).expect("decode"));
                });
                println!("ours_decode_numcodecs_{name} {dec:.2}");
            }
        }
    }
}
