//! Dataset metadata in storage: how the in-memory model is written as Zarr
//! objects (`.zgroup`, `.zarray`, `.zattrs`) and read back.

pub mod attrs;
pub mod build;
pub mod dtype;
pub mod foreign;
pub mod json;
pub mod nczarr;
pub mod object;
pub mod read;
pub mod source;
pub mod v3;

pub use nczarr::{WriteOptions, write_dataset};
pub use read::{Consolidation, ReadOptions, ReadResult, read_dataset, read_dataset_with};
