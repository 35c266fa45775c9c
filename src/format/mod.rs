//! Dataset metadata in storage: how the in-memory model is written as Zarr
//! objects and read back.
//!
//! Layers, each using only those below it:
//! - `open` (which version a store is) and `commit` (the protocol that
//!   writes a model's objects crash-safely);
//! - `v2` and `v3`, siblings: each version's reader and writer;
//! - the shared parts: `options`, `attrs`, `build`, `dtype`, `json`,
//!   `base64`, `source`, `width`, `foreign`.

pub mod attrs;
pub mod base64;
pub mod build;
pub mod commit;
pub mod dtype;
pub mod foreign;
// JSON as stores hold it: below every layer that reads it (zmap's
// Parquet references do too).
pub use crate::json;
pub mod merge;
pub mod open;
pub mod options;
pub mod source;
pub mod v2;
pub mod v3;
pub mod width;

pub use commit::write_dataset;
pub use open::{read_dataset, read_dataset_with};
pub use options::{Consolidation, ReadOptions, ReadResult, WriteOptions};
