//! Merging a commit with what other writers stored since this handle
//! last looked, so that processes writing one store at the same time
//! (without MPI: xarray's `region=` writes, job arrays) never undo each
//! other's work.
//!
//! A commit used to write the handle's whole view of the metadata: a
//! process that appended fewer records, or added no attribute, and
//! committed last shrank the unlimited dimension another had grown and
//! dropped the other's attribute, though every chunk was on disk.
//!
//! Each metadata object is now merged three ways. The handle keeps two
//! bases from its open or last commit ([`Base`]): the objects as it
//! renders them, which tell what it changed since, and the objects as
//! they were stored, which tell what other writers changed (the two
//! differ when another library wrote the store):
//!
//! * objects this handle did not change are left as stored (not written;
//!   consolidated metadata carries the stored version);
//! * objects only this handle changed are written as it has them;
//! * objects both changed are merged member by member: a member changed
//!   on one side only takes that side's value; sizes (`shape`, the
//!   lengths of NCZarr's dimensions) take the larger; lists of a group's
//!   arrays and subgroups take both sides' additions; anything else
//!   changed differently on both sides is a conflict, `NC_EINVAL`, and
//!   nothing is written.
//!
//! What is stored now comes from the stored consolidated metadata when
//! the dataset keeps it (one read: `.zmetadata`, or in v3 the root's
//! `zarr.json`; every writer of this library keeps it current), else from
//! reading the objects this handle changed. The reads and the writes that
//! follow are one critical section where the store can lock
//! ([`crate::zmap::Zmap::lock_commits`]).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::json;
use super::options::{PENDING, WriteOptions, ZMETADATA};
use super::v3;
use crate::error::{NcError, NcResult};
use crate::zmap::Zmap;

/// One object of a merged commit.
pub struct Merged {
    pub key: String,
    pub value: Value,
    /// The store does not hold `value` yet.
    pub write: bool,
    /// `value` holds other writers' changes this handle's view lacks.
    pub foreign: bool,
}

/// This handle's two views of the dataset at its open or last commit.
pub struct Base<'a> {
    /// The objects as this handle rendered them.
    pub ours: &'a Map<String, Value>,
    /// The objects as they were stored (read at the open, written at the
    /// commit). zarr-python's lack NCZarr's attributes, for one.
    pub stored: &'a Map<String, Value>,
    /// Keys whose stored objects hold other writers' changes that this
    /// handle's view lacks (taken in by an earlier merge).
    pub merged: &'a std::collections::HashSet<String>,
}

/// Merge the handle's rendered objects (`ours`, in `commit::render`'s
/// order) with what is stored. The result keeps `ours`'s order, preceded
/// by objects only other writers have (never written, but consolidated).
///
/// `published`: this handle published its view as consolidated metadata
/// since its last commit (a rename does), which then describes this
/// handle's view, not the stored objects.
pub fn with_stored(
    store: &dyn Zmap,
    base: &Base,
    ours: &[(String, Value)],
    opts: &WriteOptions,
    published: bool,
) -> NcResult<Vec<Merged>> {
    let root_key = if opts.zarr_v3 { Some(v3::read::ZARR_JSON) } else { None };
    // A v3 root's consolidated metadata changes with every other object:
    // it is left out of every comparison and rebuilt at the end.
    let plain = |key: &str, value: Option<&Value>| -> Option<Value> {
        let mut value = value.cloned()?;
        if Some(key) == root_key
            && let Some(doc) = value.as_object_mut()
        {
            doc.shift_remove("consolidated_metadata");
        }
        Some(value)
    };
    // Only the v3 root needs its copy trimmed to compare; every other
    // object is compared where it is (cloning a dataset's every document
    // to compare it was a tenth of defining 500 variables).
    let differs = |key: &str, value: &Value| {
        let before = base.ours.get(key);
        if Some(key) == root_key { plain(key, before) != plain(key, Some(value)) } else { before != Some(value) }
    };
    let changed: Vec<&str> =
        ours.iter().filter(|(key, value)| differs(key, value)).map(|(key, _)| key.as_str()).collect();
    let stored = stored_objects(store, &changed, opts, !published)?;
    let changed: std::collections::HashSet<&str> = changed.into_iter().collect();
    let rendered: std::collections::HashSet<&str> = ours.iter().map(|(key, _)| key.as_str()).collect();
    let mut merged = Vec::with_capacity(ours.len());
    // Objects other writers added (a variable or group this handle has
    // not seen): kept in the consolidated metadata, never rewritten.
    if let Some(all) = &stored.all {
        for (key, value) in all {
            let known = base.ours.contains_key(key) || rendered.contains(key.as_str());
            if !known && Some(key.as_str()) != root_key {
                merged.push(Merged { key: key.clone(), value: value.clone(), write: false, foreign: false });
            }
        }
    }
    for (key, value) in ours {
        let now = stored.get(key);
        if !changed.contains(key.as_str()) {
            let was_stored = plain(key, base.stored.get(key));
            if !base.merged.contains(key)
                && was_stored != plain(key, base.ours.get(key))
                && now.is_none_or(|now| plain(key, Some(now)) == was_stored)
            {
                // Stored in another form than this library's, or not at
                // all (another library wrote the store; not an earlier
                // merge's result), and not changed since: written in
                // this library's form, as every object of a store is at
                // its first commit here, so that its objects agree.
                merged.push(Merged { key: key.clone(), value: value.clone(), write: true, foreign: false });
                continue;
            }
            // Not changed here: as stored, when known.
            let foreign = now.is_some_and(|now| plain(key, Some(now)) != plain(key, Some(value)));
            let value = now.cloned().unwrap_or_else(|| value.clone());
            merged.push(Merged { key: key.clone(), value, write: false, foreign });
            continue;
        }
        let (now, mine, was_stored) = (plain(key, now), plain(key, Some(value)), plain(key, base.stored.get(key)));
        let theirs_changed = now.is_some() && now != was_stored;
        // This handle's view lacks what earlier merges took from other
        // writers: once a key was merged, its members are always merged.
        let value = if (theirs_changed || base.merged.contains(key)) && now != mine {
            let was_ours = plain(key, base.ours.get(key));
            let merged = merge_object(key, was_ours.as_ref(), mine.as_ref(), was_stored.as_ref(), now.as_ref())?;
            merged.unwrap_or(Value::Null)
        } else {
            // Only this handle changed it: as it has it (which also
            // gives a store another library wrote this library's form).
            value.clone()
        };
        let write = now.as_ref() != Some(&value) || Some(key.as_str()) == root_key;
        let foreign = mine != plain(key, Some(&value));
        merged.push(Merged { key: key.clone(), value, write, foreign });
    }
    if opts.zarr_v3 && opts.consolidated {
        // The root's inline consolidated metadata describes the merged
        // objects, not either side's.
        let mut objects: Vec<(String, Value)> = merged.iter().map(|m| (m.key.clone(), m.value.clone())).collect();
        v3::write::consolidate(&mut objects);
        if let (Some(last), Some((_, root))) = (merged.last_mut(), objects.pop()) {
            last.value = root;
        }
    }
    Ok(merged)
}

/// Merge one metadata object (stored under `key`) member by member:
/// `ours` descended from `base_ours`, `stored` from `base_stored`
/// (`None`: absent). Public for the fuzz target `merge`.
pub fn merge_object(
    key: &str,
    base_ours: Option<&Value>,
    ours: Option<&Value>,
    base_stored: Option<&Value>,
    stored: Option<&Value>,
) -> NcResult<Option<Value>> {
    merge3(base_ours, ours, base_stored, stored, &mut vec![key.to_string()])
}

/// Is the member at `path` (the object's key, then its members) a size,
/// merged by taking the larger? The `shape` of an array document (v2
/// `.zarray`, v3 `zarr.json`) and NCZarr's dimension lengths
/// (`dimensions` of `_nczarr_group`, `dims` of 4.9.0's `_NCZARR_GROUP`),
/// alone or as a `size` member. Attributes are never sizes, whatever
/// their names.
fn is_size(path: &[String]) -> bool {
    let array_doc = path.first().is_some_and(|key| key.ends_with(".zarray") || key.ends_with("zarr.json"));
    (array_doc && path.get(1).is_some_and(|m| m == "shape"))
        || group_member(path).is_some_and(|(member, _)| member == "dimensions" || member == "dims")
}

/// Does `path` list a group's children by name (NCZarr's `arrays` and
/// `groups`, 4.9.0's `vars`)? Merged as sets.
fn is_name_list(path: &[String]) -> bool {
    group_member(path).is_some_and(|(member, rest)| rest.is_empty() && ["arrays", "groups", "vars"].contains(&member))
}

/// The member of NCZarr's group attribute that `path` is in, and the path
/// below it.
fn group_member(path: &[String]) -> Option<(&str, &[String])> {
    let at = path.iter().position(|m| m == "_nczarr_group" || m == "_NCZARR_GROUP")?;
    let member = path.get(at + 1)?;
    Some((member.as_str(), &path[at + 2..]))
}

/// Merge `ours` and `stored`, descended from `base_ours` (this handle's
/// view) and `base_stored` (what was stored then) respectively; `None`:
/// the member is absent. `path` names the member, for the rules above.
fn merge3(
    base_ours: Option<&Value>,
    ours: Option<&Value>,
    base_stored: Option<&Value>,
    stored: Option<&Value>,
    path: &mut Vec<String>,
) -> NcResult<Option<Value>> {
    if ours == base_ours || ours == stored {
        return Ok(stored.cloned());
    }
    let in_sizes = is_size(path);
    match (ours, stored) {
        // Members one by one, even when the other side has not changed
        // the object since: this side's view may lack members an earlier
        // merge took in.
        (Some(Value::Object(o)), Some(Value::Object(s))) => {
            let empty = Map::new();
            let bo = base_ours.and_then(Value::as_object).unwrap_or(&empty);
            let bs = base_stored.and_then(Value::as_object).unwrap_or(&empty);
            let mut out = Map::new();
            // Stored order first (what the other writer wrote), then
            // members only this handle has.
            for key in s.keys().chain(o.keys().filter(|k| !s.contains_key(*k))) {
                path.push(key.clone());
                let value = merge3(bo.get(key), o.get(key), bs.get(key), s.get(key), path)?;
                path.pop();
                if let Some(value) = value {
                    out.insert(key.clone(), value);
                }
            }
            Ok(Some(Value::Object(out)))
        }
        // Sizes only grow.
        (Some(Value::Number(o)), Some(Value::Number(s))) if in_sizes => match (o.as_u64(), s.as_u64()) {
            (Some(o), Some(s)) => Ok(Some(Value::from(o.max(s)))),
            _ => Err(NcError::EINVAL),
        },
        (Some(Value::Array(o)), Some(Value::Array(s))) if is_name_list(path) => {
            let empty = Vec::new();
            let bo = base_ours.and_then(Value::as_array).unwrap_or(&empty);
            // Theirs, less what this handle removed, plus what it added.
            let mut out: Vec<Value> = s.iter().filter(|v| !bo.contains(v) || o.contains(v)).cloned().collect();
            out.extend(o.iter().filter(|v| !bo.contains(v) && !s.contains(v)).cloned());
            Ok(Some(Value::Array(out)))
        }
        (Some(Value::Array(o)), Some(Value::Array(s))) if o.len() == s.len() && in_sizes => {
            let bo = base_ours.and_then(Value::as_array).filter(|b| b.len() == o.len());
            let bs = base_stored.and_then(Value::as_array).filter(|b| b.len() == s.len());
            let mut out = Vec::with_capacity(o.len());
            for i in 0..o.len() {
                path.push(i.to_string());
                let value = merge3(bo.map(|b| &b[i]), Some(&o[i]), bs.map(|b| &b[i]), Some(&s[i]), path)?;
                path.pop();
                out.push(value.unwrap_or(Value::Null));
            }
            Ok(Some(Value::Array(out)))
        }
        // Changed here only.
        _ if stored == base_stored => Ok(ours.cloned()),
        // Changed differently on both sides and not mergeable: two values
        // of one attribute, a member this side removed and the other
        // changed, a length and an object (NCZarr dimensions in two
        // layouts).
        _ => Err(NcError::EINVAL),
    }
}

/// What the store holds now: every object, from its consolidated
/// metadata, or the objects named, read one by one.
struct Stored {
    /// Every object (consolidated metadata), when the dataset keeps it.
    all: Option<HashMap<String, Value>>,
    /// Objects read one by one.
    read: HashMap<String, Value>,
}

impl Stored {
    fn get(&self, key: &str) -> Option<&Value> {
        match &self.all {
            Some(all) => all.get(key),
            None => self.read.get(key),
        }
    }
}

fn stored_objects(store: &dyn Zmap, changed: &[&str], opts: &WriteOptions, use_consolidated: bool) -> NcResult<Stored> {
    if changed.is_empty() {
        return Ok(Stored { all: None, read: HashMap::new() });
    }
    if opts.consolidated
        && use_consolidated
        && let Some(all) = consolidated(store, opts)?
    {
        return Ok(Stored { all: Some(all), read: HashMap::new() });
    }
    let keys: Vec<String> = changed.iter().map(|k| k.to_string()).collect();
    let found = store.get_many(&keys)?;
    let read = keys.into_iter().zip(found).filter_map(|(key, bytes)| Some((key, json::parse(&bytes?).ok()?))).collect();
    Ok(Stored { all: None, read })
}

/// Every object of the stored consolidated metadata, by key; `None` when
/// there is none (or it cannot be read: the objects are read instead).
fn consolidated(store: &dyn Zmap, opts: &WriteOptions) -> NcResult<Option<HashMap<String, Value>>> {
    if opts.zarr_v3 {
        let Some(bytes) = store.get(v3::read::ZARR_JSON)? else { return Ok(None) };
        let Ok(root) = json::parse(&bytes) else { return Ok(None) };
        let Some(metadata) = root.pointer("/consolidated_metadata/metadata").and_then(Value::as_object) else {
            return Ok(None);
        };
        let mut all: HashMap<String, Value> =
            metadata.iter().map(|(path, doc)| (format!("{path}/{}", v3::read::ZARR_JSON), doc.clone())).collect();
        all.insert(v3::read::ZARR_JSON.to_string(), root);
        return Ok(Some(all));
    }
    let Some(bytes) = store.get(ZMETADATA)? else { return Ok(None) };
    let Ok(top) = json::parse(&bytes) else { return Ok(None) };
    if top.get(PENDING).is_some() {
        // Another writer's commit under way: its objects are being
        // rewritten, and what they are now is what counts.
        return Ok(None);
    }
    let Some(metadata) = top.get("metadata").and_then(Value::as_object) else { return Ok(None) };
    Ok(Some(metadata.iter().map(|(k, v)| (k.clone(), v.clone())).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Merge an object stored under `key` with one base for both sides
    /// (a store this library wrote).
    fn merge_in(key: &str, b: Value, o: Value, s: Value) -> NcResult<Value> {
        Ok(merge3(Some(&b), Some(&o), Some(&b), Some(&s), &mut vec![key.to_string()])?.unwrap_or(Value::Null))
    }

    fn merge(b: Value, o: Value, s: Value) -> NcResult<Value> {
        merge_in(".zattrs", b, o, s)
    }

    #[test]
    fn sizes_take_the_larger() {
        let b = json!({"shape": [3, 4], "chunks": [1, 4]});
        let o = json!({"shape": [6, 4], "chunks": [1, 4]});
        let s = json!({"shape": [12, 4], "chunks": [1, 4]});
        assert_eq!(merge_in("v/.zarray", b.clone(), o.clone(), s.clone()).unwrap()["shape"], json!([12, 4]));
        assert_eq!(merge_in("v/zarr.json", b, s, o).unwrap()["shape"], json!([12, 4]));
        let b = json!({"_nczarr_group": {"dimensions": {"t": {"size": 3, "unlimited": 1}, "x": 4}}});
        let o = json!({"_nczarr_group": {"dimensions": {"t": {"size": 9, "unlimited": 1}, "x": 4}}});
        let s = json!({"_nczarr_group": {"dimensions": {"t": {"size": 6, "unlimited": 1}, "x": 4}}});
        assert_eq!(merge(b, o, s).unwrap().pointer("/_nczarr_group/dimensions/t/size"), Some(&json!(9)));
    }

    #[test]
    fn members_changed_on_one_side_take_that_side() {
        let merged = merge(json!({"a": 1}), json!({"a": 1, "mine": 2}), json!({"a": 1, "theirs": 3})).unwrap();
        assert_eq!(merged, json!({"a": 1, "theirs": 3, "mine": 2}));
        // A member this side removed stays removed, unless the other
        // side changed it.
        let merged = merge(json!({"a": 1, "b": 2}), json!({"b": 2}), json!({"a": 1, "b": 2, "c": 3})).unwrap();
        assert_eq!(merged, json!({"b": 2, "c": 3}));
    }

    #[test]
    fn each_side_is_compared_with_its_own_base() {
        // Stored by zarr-python (no NCZarr attribute), rendered by us
        // with one; another writer added `theirs`, this handle `mine`.
        let base_ours = json!({"_nczarr_attr": {"types": {}}, "a": 1});
        let base_stored = json!({"a": 1});
        let ours = json!({"_nczarr_attr": {"types": {"mine": "<i4"}}, "a": 1, "mine": 2});
        let stored = json!({"a": 1, "theirs": 3});
        let path = &mut vec![".zattrs".to_string()];
        let merged = merge3(Some(&base_ours), Some(&ours), Some(&base_stored), Some(&stored), path);
        let merged = merged.unwrap().unwrap();
        assert_eq!(merged, json!({"a": 1, "theirs": 3, "_nczarr_attr": {"types": {"mine": "<i4"}}, "mine": 2}));
    }

    #[test]
    fn children_lists_merge_as_sets() {
        let b = json!({"_nczarr_group": {"arrays": ["a"], "groups": []}});
        let o = json!({"_nczarr_group": {"arrays": ["a", "mine"], "groups": []}});
        let s = json!({"_nczarr_group": {"arrays": ["a", "theirs"], "groups": ["g"]}});
        let merged = merge(b, o, s).unwrap();
        assert_eq!(merged.pointer("/_nczarr_group/arrays"), Some(&json!(["a", "theirs", "mine"])));
        assert_eq!(merged.pointer("/_nczarr_group/groups"), Some(&json!(["g"])));
    }

    #[test]
    fn the_same_value_changed_differently_is_a_conflict() {
        let b = json!({"units": "m"});
        assert_eq!(merge(b.clone(), json!({"units": "km"}), json!({"units": "cm"})), Err(NcError::EINVAL));
        // Attribute values are not sizes, whatever their names.
        assert_eq!(merge(json!({"shape": [1]}), json!({"shape": [2]}), json!({"shape": [3]})), Err(NcError::EINVAL));
        assert_eq!(merge(json!({"size": 1}), json!({"size": 2}), json!({"size": 3})), Err(NcError::EINVAL));
        assert_eq!(merge(json!({"n": 1}), json!({"n": 2}), json!({"n": 3})), Err(NcError::EINVAL));
        // Both made the same change: no conflict.
        assert_eq!(merge(b, json!({"units": "km"}), json!({"units": "km"})), Ok(json!({"units": "km"})));
    }
}
