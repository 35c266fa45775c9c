//! Zarr v3: a sibling of `format::v2` (neither uses the other),
//! sharing the model builders (`format::build`) and the metadata source.

pub mod codecs;
pub mod dtype;
pub mod fill;
pub mod read;
pub mod write;

pub use read::{ZARR_JSON, read_dataset, read_dataset_from};
