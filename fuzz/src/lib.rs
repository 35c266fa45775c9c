//! The fuzz harness of nczarr-rs: one function per fuzz target, each
//! taking the fuzzer's bytes. Every function returns normally for any
//! input the library handles correctly and panics (a fuzzer crash) when
//! it does not: a panic inside the library, or a result that breaks an
//! invariant the harness checks (a partial read that disagrees with a
//! whole read, a round trip that changes values, ...).
//!
//! Everything goes through the library's Rust API (the `netcdf` rlib),
//! on an in-memory store; no file is touched but the `zip` target's
//! scratch archive. The same functions replay
//! the seeds and the regression inputs in the main crate's `cargo test`
//! (`tests/fuzz_inputs.rs`), which includes this file by path.

pub mod archive;
mod codecs;
mod merges;
mod refs;
mod stores;
mod text;
mod values;
mod vlens;
mod wire;
mod zips;

pub use codecs::codec;
pub use merges::merge;
pub use refs::{parquet, references};
pub use stores::{metadata, rewrite, store};
pub use text::{cdtime, filterspec, ncuri, url};
pub use values::attrs;
pub use vlens::vlen;
pub use wire::pieces;
pub use zips::zip;

/// A target: it takes the fuzzer's bytes.
pub type Target = fn(&[u8]);

/// Every target, by name (the names of the fuzz binaries and of the
/// directories under `seeds/` and `regressions/`).
pub const TARGETS: &[(&str, Target)] = &[
    ("url", url),
    ("ncuri", ncuri),
    ("cdtime", cdtime),
    ("filterspec", filterspec),
    ("attrs", attrs),
    ("codec", codec),
    ("vlen", vlen),
    ("metadata", metadata),
    ("store", store),
    ("rewrite", rewrite),
    ("zip", zip),
    ("merge", merge),
    ("pieces", pieces),
    ("references", references),
    ("parquet", parquet),
];

/// A small deterministic generator, seeded from the input, for choices
/// that need not be mutated byte by byte (which slabs to read).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform-ish in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}
