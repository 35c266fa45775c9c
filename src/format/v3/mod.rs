//! Zarr v3: a sibling of the v2 code (`format::read`, `format::nczarr`),
//! sharing the model builders (`format::build`) and the metadata source.

pub mod codecs;
pub mod dtype;
pub mod fill;
pub mod read;
pub mod write;

pub use read::{ZARR_JSON, read_dataset, read_dataset_from};
