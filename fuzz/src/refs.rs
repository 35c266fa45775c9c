//! Kerchunk reference files (`zmap::parse_references`): any bytes give a
//! table or NC_ENCZARR, never a panic or a hang, and the table keeps the
//! parser's promises (keys inside the dataset, ranges of known targets
//! and bounded length).

use netcdf::zmap::{ReferenceRef, parse_references};

pub fn references(data: &[u8]) {
    let Ok(refs) = parse_references(data) else { return };
    for (key, reference) in &refs.refs {
        assert!(!key.is_empty() && !key.starts_with('/'), "key {key:?}");
        assert!(key.split('/').all(|s| !s.is_empty() && s != "." && s != ".."), "key {key:?}");
        if let ReferenceRef::Range { target, offset, len } = reference {
            assert!(*target < refs.targets.len(), "target {target} of {}", refs.targets.len());
            if let Some(len) = len {
                assert!(*len <= netcdf::zmap::MAX_REFERENCE_RANGE && offset.checked_add(*len).is_some());
            }
        }
    }
    assert!(refs.targets.iter().all(|t| !t.is_empty()));
}
