//! The merge of a commit with other writers' (`format::merge`): four
//! versions of one metadata object, as two bases and two descendants.

use netcdf::format::{json, merge};
use serde_json::Value;

/// Keys whose members the merge treats specially (sizes of arrays, the
/// lengths of NCZarr's dimensions) or not at all (attributes).
const KEYS: &[&str] = &[".zattrs", "v/.zarray", "v/zarr.json", "zarr.json", ".zgroup"];

/// Input: a key selector byte, then four JSON texts separated by 0xff
/// (an absent or unparsable one is an absent object).
pub fn merge(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    let key = KEYS[usize::from(selector) % KEYS.len()];
    let mut parts = rest.split(|&b| b == 0xff).map(|text| json::parse(text).ok());
    let mut next = || parts.next().flatten();
    let (base_ours, ours, base_stored, stored): (Option<Value>, _, _, _) = (next(), next(), next(), next());
    let merged = merge::merge_object(key, base_ours.as_ref(), ours.as_ref(), base_stored.as_ref(), stored.as_ref());
    // Nothing changed on this side: the stored object, whatever it is.
    if ours == base_ours {
        assert_eq!(merged.as_ref().ok(), Some(&stored), "unchanged here, yet not the stored object");
    }
    // The same change on both sides: that change.
    if ours == stored {
        assert_eq!(merged.as_ref().ok(), Some(&stored), "both sides agree, yet the merge differs");
    }
}
