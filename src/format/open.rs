//! Opening a store: which Zarr version it is, then that version's reader.

use super::options::{Consolidation, ReadOptions, ReadResult, ZMETADATA};
use super::{v2, v3};
use crate::error::NcResult;
use crate::zmap::Zmap;

/// Read a dataset's metadata into a model, using consolidated metadata
/// where it is current.
pub fn read_dataset(store: &dyn Zmap, writable: bool) -> NcResult<ReadResult> {
    read_dataset_with(store, ReadOptions { writable, consolidation: Consolidation::Verify, pure_zarr: false })
}

/// Read a dataset's metadata into a model.
pub fn read_dataset_with(store: &dyn Zmap, opts: ReadOptions) -> NcResult<ReadResult> {
    // Both versions' root objects in one batch: on S3 an open is then one
    // round trip whether the store is v2 with `.zmetadata` or v3, instead
    // of v3 costing four misses first. Without consolidated metadata the
    // batch takes v2's root objects instead.
    let ignore = opts.consolidation == Consolidation::Ignore;
    let first: &[&str] = if ignore { &[".zgroup", ".zattrs"] } else { &[ZMETADATA] };
    let keys: Vec<String> = first.iter().chain(&[v3::ZARR_JSON]).map(|k| k.to_string()).collect();
    let mut probe = store.get_many(&keys)?;
    let zarr_json = probe.pop().flatten();
    let zmetadata = if ignore { None } else { probe.pop().flatten() };
    if zarr_json.is_some() && zmetadata.is_none() && (!ignore || probe.iter().all(Option::is_none)) {
        return v3::read_dataset_from(store, opts, zarr_json);
    }
    let root = if ignore { keys.into_iter().zip(probe).collect() } else { Vec::new() };
    match v2::read::read_dataset(store, opts, v2::read::Probed { zmetadata, root })? {
        Some(read) => Ok(read),
        None => v3::read_dataset_from(store, opts, zarr_json),
    }
}
