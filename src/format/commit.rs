//! The commit protocol: how a model's metadata objects, rendered by the
//! writer of its Zarr version (`v2::write`, `v3::write`), reach storage
//! so that a crash at any moment leaves the old state or the new one.

use serde_json::{Map, Value, json};

use super::json;
use super::merge::{self, Merged};
use super::options::{PENDING, WriteOptions, ZMETADATA};
use super::{v2, v3};
use crate::error::NcResult;
use crate::model::Model;
use crate::zmap::{Zmap, join};

// ---------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------
//
// A commit (enddef, sync, close) must leave a store that a crash at any
// moment cannot make unreadable or inconsistent. The order:
//
// 1. chunks: dirty chunks are written and made durable first (the
//    caller, `Dataset::flush_metadata`), so no metadata ever names a shape
//    whose data is not stored yet;
// 2. the new metadata is *published*: `.zmetadata` holding all of it, plus
//    a `nczarr_rs_pending` marker recording the root objects as they are
//    on disk now. From here a reader uses this `.zmetadata` as long as
//    each root object is its old or its new version, so the new state is
//    seen whole while the objects are rewritten one by one;
// 3. new groups and variables start from an empty key prefix (leftovers
//    of a crash cannot become their data);
// 4. the objects, children before the groups that list them, the root
//    last (what readers of the objects alone, netcdf-c's default, need
//    most);
// 5. `.zmetadata` without the marker (or, without consolidation, none).
//
// Steps 2-5 run under the store's commit lock (`zmap::lock_commits`), and
// the objects they write are this handle's merged with what other writers
// committed since its open or last commit (`format::merge`).
//
// For a process that dies, the order of its writes is the order they
// reach the store (the kernel has them all). For a power failure, a
// durable commit (`WriteOptions::durable`, see `zmap::Durability`) makes
// steps 1, 2 and 4 durable (`Zmap::sync`) before the next one starts;
// step 5 need not be, as the pending `.zmetadata` reads the same once the
// objects are durable. Without the marker, a `.zmetadata` is
// trusted only while the root objects equal its copies, which tells a
// stale one from a current one after any writer that ignores it
// (netcdf-c before 4.10) changed the store.

/// What a handle remembers between commits.
#[derive(Default)]
pub struct CommitState {
    /// Every metadata object as stored when this handle opened the
    /// dataset (as read) or completed its last commit (as written): what
    /// other writers changed since differs from these. `None` (an open
    /// that found a commit unfinished): every object is rewritten.
    written: Option<Map<String, Value>>,
    /// Every metadata object as this handle saw the dataset at its open
    /// or last commit (its own view, before any merge): what it changed
    /// since is what differs from these (`format::merge`). `None` after
    /// an open that found a commit unfinished, which the next commit
    /// completes by rewriting every object.
    base: Option<Map<String, Value>>,
    /// Keys whose stored objects hold other writers' changes that `base`
    /// lacks (see `merge::Base::merged`).
    merged: std::collections::HashSet<String>,
    /// The published object (`.zmetadata`; v3: the root's `zarr.json`)
    /// as it was before this handle first published since its last
    /// commit (`None` inside: there was none), for `nc_abort`.
    before_publish: Option<(&'static str, Option<Vec<u8>>)>,
    /// Renames (from, to) done since the last commit, for `nc_abort`.
    moves: Vec<(String, String)>,
    /// A commit started rewriting objects and did not finish: `nc_abort`
    /// cannot go back.
    objects_touched: bool,
    /// The store was created empty by this handle, and these are the key
    /// prefixes it has given groups and variables (stored, or moved from
    /// or to) since: no other prefix can hold anything, so a new one need
    /// not be emptied (on S3, a listing each).
    fresh: Option<std::collections::HashSet<String>>,
}

/// Record key prefixes a fresh store's handle used.
fn note_used<'a>(state: &mut CommitState, prefixes: impl IntoIterator<Item = &'a str>) {
    if let Some(used) = &mut state.fresh {
        used.extend(prefixes.into_iter().map(str::to_string));
    }
}

/// Could anything be stored under `prefix`?
fn maybe_holds(state: &CommitState, prefix: &str) -> bool {
    let Some(used) = &state.fresh else { return true };
    let under = |a: &str, b: &str| a.strip_prefix(b).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    used.iter().any(|u| under(u, prefix) || under(prefix, u))
}

/// Every metadata object of the model, children before the groups that
/// list them and the root group last.
pub(crate) fn render(model: &Model, opts: &WriteOptions) -> NcResult<Vec<(String, Value)>> {
    let mut out = Vec::new();
    let mut stack = vec![(0usize, false)];
    while let Some((g, children_done)) = stack.pop() {
        if !children_done {
            stack.push((g, true));
            stack.extend(model.groups[g].children.iter().rev().map(|&c| (c, false)));
            continue;
        }
        for v in 0..model.groups[g].vars.len() {
            if opts.zarr_v3 {
                out.push(v3::write::array_doc(model, g, v, opts)?);
            } else {
                v2::write::write_var(model, &mut out, g, v, opts)?;
            }
        }
        if opts.zarr_v3 {
            out.push(v3::write::group_doc(model, g, opts));
        } else {
            v2::write::write_group(model, &mut out, g, opts)?;
        }
    }
    if opts.zarr_v3 && opts.consolidated {
        v3::write::consolidate(&mut out);
    }
    Ok(out)
}

/// `.zmetadata` for a set of objects, with the pending marker if given.
///
/// Serialised from the objects where they are: they are the whole
/// dataset's metadata, written twice a commit, and cloning them into one
/// `Value` first was a seventh of defining 500 variables.
fn zmetadata(objects: &[(String, Value)], pending: Option<Value>) -> Vec<u8> {
    serde_json::to_vec(&Consolidated { objects, pending }).unwrap_or_default()
}

/// `{"metadata": {key: object, ...}, "zarr_consolidated_format": 1}`,
/// then the pending marker if any. The keys are distinct ([`render`]
/// makes one object per key).
struct Consolidated<'a> {
    objects: &'a [(String, Value)],
    pending: Option<Value>,
}

impl serde::Serialize for Consolidated<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Metadata<'a>(&'a [(String, Value)]);
        impl serde::Serialize for Metadata<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_map(self.0.iter().map(|(key, object)| (key, object)))
            }
        }
        let mut top = serializer.serialize_map(None)?;
        top.serialize_entry("metadata", &Metadata(self.objects))?;
        top.serialize_entry("zarr_consolidated_format", &1)?;
        if let Some(marker) = &self.pending {
            top.serialize_entry(PENDING, marker)?;
        }
        top.end()
    }
}

/// Write `.zmetadata` for `objects` with the pending marker, durably.
///
/// In v3 what readers use whole is the root's document (its inline
/// consolidated metadata; the last of `objects`): it is written alone.
fn publish_objects(
    store: &dyn Zmap,
    objects: &[(String, Value)],
    state: &mut CommitState,
    opts: &WriteOptions,
) -> NcResult<()> {
    let key = if opts.zarr_v3 { v3::read::ZARR_JSON } else { ZMETADATA };
    if state.before_publish.is_none() {
        state.before_publish = Some((key, store.get(key)?));
    }
    if opts.zarr_v3 {
        // With consolidated metadata whether or not the dataset keeps it:
        // readers that use it (ours, zarr-python's and xarray's by
        // default) see the new state whole while the documents below are
        // rewritten; the commit's last write gives the root its final form.
        let mut staged = objects.to_vec();
        if !opts.consolidated {
            v3::write::consolidate(&mut staged);
        }
        let (_, root) = staged.last().ok_or(crate::error::NcError::EINTERNAL)?;
        store.put(key, &json::to_bytes(root))?;
        return barrier(store, opts);
    }
    let mut root = Map::new();
    for key in [".zgroup", ".zattrs"] {
        let on_disk = store.get(key)?.and_then(|b| json::parse(&b).ok()).unwrap_or(Value::Null);
        root.insert(key.to_string(), on_disk);
    }
    store.put(ZMETADATA, &zmetadata(objects, Some(json!({"root": root}))))?;
    barrier(store, opts)
}

/// Between the steps of a durable commit: what was written reaches the
/// disk before what follows.
fn barrier(store: &dyn Zmap, opts: &WriteOptions) -> NcResult<()> {
    if opts.durable { store.sync() } else { Ok(()) }
}

/// Make the model's current state what readers see, without rewriting the
/// objects (after a rename moved stored objects): a pending `.zmetadata`
/// that the next commit completes, or `nc_abort` takes back.
pub fn publish(model: &Model, store: &dyn Zmap, opts: &WriteOptions, state: &mut CommitState) -> NcResult<()> {
    let objects = render(model, opts)?;
    publish_objects(store, &objects, state, opts)?;
    clear_new(model, store, state)
}

/// A metadata object to write: its key and content.
type MetadataObject<'a> = &'a (String, Value);

/// Write metadata objects (in [`render`]'s order) as step 4 of a commit
/// needs them: every variable's objects first, all at once (a remote store
/// has them in flight together), then the groups' one after another,
/// children before the groups that list them and the root last.
fn put_in_order(store: &dyn Zmap, objects: &[&(String, Value)]) -> NcResult<()> {
    let array_prefixes: std::collections::HashSet<&str> =
        objects.iter().filter_map(|(key, _)| key.strip_suffix(".zarray")).collect();
    let of_array = |key: &str, value: &Value| {
        key.rfind('/').is_some_and(|i| array_prefixes.contains(&key[..=i]))
            || value.get("node_type").and_then(Value::as_str) == Some("array")
    };
    let (arrays, groups): (Vec<MetadataObject>, Vec<MetadataObject>) =
        objects.iter().copied().partition(|(key, value)| of_array(key, value));
    // One work item per variable, its objects one after another: a new
    // variable's directory is then made once, by its first object's put,
    // instead of by two workers racing to find it missing.
    let mut by_var: Vec<Vec<MetadataObject>> = Vec::new();
    for object in arrays {
        let prefix = |key: &str| key.rfind('/').map_or(String::new(), |i| key[..i].to_string());
        match by_var.last_mut() {
            Some(last) if prefix(&last[0].0) == prefix(&object.0) => last.push(object),
            _ => by_var.push(vec![object]),
        }
    }
    crate::workers::map(&by_var, store.concurrency(), |objects| {
        objects.iter().try_for_each(|(key, value)| store.put(key, &json::to_bytes(value)))
    })?;
    groups.iter().try_for_each(|(key, value)| store.put(key, &json::to_bytes(value)))
}

/// Empty the key prefixes of groups and variables never stored, which
/// can hold only leftovers (of a crash, or of a name used before), all at
/// once.
fn clear_new(model: &Model, store: &dyn Zmap, state: &mut CommitState) -> NcResult<()> {
    let mut prefixes = Vec::new();
    for g in 0..model.groups.len() {
        let gkey = model.group_key(g);
        if g > 0 && model.groups[g].stored_path.is_none() {
            prefixes.push(gkey);
            continue;
        }
        prefixes.extend(model.groups[g].vars.iter().filter(|v| v.stored_path.is_none()).map(|v| join(&gkey, &v.name)));
    }
    // A new group's prefix covers its variables: one deletion does. (A
    // prefix is covered when one of its ancestors is listed: looked up,
    // not compared with every other prefix, which was quadratic.)
    let listed: std::collections::HashSet<&str> = prefixes.iter().map(String::as_str).collect();
    let covered = |p: &str| p.match_indices('/').any(|(at, _)| listed.contains(&p[..at]));
    let prefixes: Vec<String> = prefixes.iter().filter(|p| !covered(p) && maybe_holds(state, p)).cloned().collect();
    crate::workers::map(&prefixes, store.concurrency(), |p| store.delete_prefix(p))?;
    prefixes.iter().for_each(|p| forget(state, p));
    Ok(())
}

/// Forget what is known of the objects below `prefix` (cleared).
fn forget(state: &mut CommitState, prefix: &str) {
    let below = format!("{prefix}/");
    for known in [&mut state.written, &mut state.base].into_iter().flatten() {
        known.retain(|k, _| !k.starts_with(&below));
    }
    state.merged.retain(|k| !k.starts_with(&below));
}

/// What is known of the objects below `from` is now known of them below
/// `to` (moved there): a merge then sees only what this handle changed
/// in them, not a move.
fn rebase(state: &mut CommitState, from: &str, to: &str) {
    let below = format!("{from}/");
    forget(state, to);
    for known in [&mut state.written, &mut state.base].into_iter().flatten() {
        let moved: Vec<(String, Value)> = known
            .iter()
            .filter_map(|(k, v)| k.strip_prefix(&below).map(|rest| (format!("{to}/{rest}"), v.clone())))
            .collect();
        known.retain(|k, _| !k.starts_with(&below));
        known.extend(moved);
    }
    let moved: Vec<String> =
        state.merged.iter().filter_map(|k| k.strip_prefix(&below)).map(|rest| format!("{to}/{rest}")).collect();
    state.merged.retain(|k| !k.starts_with(&below));
    state.merged.extend(moved);
}

/// Record a rename done on storage (for `nc_abort` and the next commit).
pub fn note_move(state: &mut CommitState, from: &str, to: &str) {
    rebase(state, from, to);
    note_used(state, [from, to]);
    state.moves.push((from.to_string(), to.to_string()));
}

/// `nc_abort` of an opened dataset: undo the renames of this session and
/// put back the `.zmetadata` they replaced, unless a commit got as far as
/// rewriting objects (then the newest complete state stays).
pub fn undo(store: &dyn Zmap, state: &mut CommitState, durable: bool) -> NcResult<()> {
    if state.objects_touched {
        return Ok(());
    }
    for (from, to) in state.moves.iter().rev() {
        store.move_prefix(to, from)?;
    }
    if let Some((key, before)) = state.before_publish.take() {
        if durable {
            store.sync()?;
        }
        match before {
            Some(bytes) => store.put(key, &bytes)?,
            None => store.delete(key)?,
        }
    }
    for (_, to) in state.moves.drain(..).rev() {
        store.drop_alias(&to)?;
    }
    if durable { store.sync() } else { Ok(()) }
}

/// Does the store's `.zmetadata` carry the marker of an unfinished commit?
pub fn commit_pending(store: &dyn Zmap) -> NcResult<bool> {
    Ok(match store.get(ZMETADATA)? {
        Some(bytes) => json::parse(&bytes).ok().is_some_and(|v| v.get(PENDING).is_some()),
        None => false,
    })
}

/// Write the metadata of a brand-new dataset into an empty store (being
/// built aside, so no ordering is needed).
pub fn write_new(model: &mut Model, store: &dyn Zmap, opts: &WriteOptions, state: &mut CommitState) -> NcResult<()> {
    let objects = render(model, opts)?;
    let all: Vec<&(String, Value)> = objects.iter().collect();
    crate::workers::map(&all, store.concurrency(), |(key, value)| store.put(key, &json::to_bytes(value)))?;
    if opts.consolidated && !opts.zarr_v3 {
        store.put(ZMETADATA, &zmetadata(&objects, None))?;
    }
    state.fresh = Some(Default::default());
    let base = objects.iter().cloned().collect();
    finish(model, state, base, objects);
    Ok(())
}

/// Remember the dataset as an open found it (`stored`: the objects it
/// read), so that its commits merge with other writers' (see
/// `format::merge`).
pub fn remember_opened(
    model: &Model,
    opts: &WriteOptions,
    stored: Map<String, Value>,
    state: &mut CommitState,
) -> NcResult<()> {
    state.base = Some(render(model, opts)?.into_iter().collect());
    state.written = Some(stored);
    Ok(())
}

/// After a commit: the model's objects are all stored; `base` is this
/// handle's view, `objects` what the store now holds.
fn finish(model: &mut Model, state: &mut CommitState, base: Map<String, Value>, objects: Vec<(String, Value)>) {
    for g in 0..model.groups.len() {
        model.groups[g].stored_path = Some(model.group_key(g));
        let gkey = model.group_key(g);
        for var in &mut model.groups[g].vars {
            var.stored_path = Some(join(&gkey, &var.name));
        }
    }
    model.dirty = false;
    let fresh = state.fresh.take();
    *state =
        CommitState { written: Some(objects.into_iter().collect()), base: Some(base), fresh, ..CommitState::default() };
    let stored = model.groups.iter().flat_map(|g| {
        g.stored_path.as_deref().into_iter().chain(g.vars.iter().filter_map(|v| v.stored_path.as_deref()))
    });
    let stored: Vec<String> = stored.map(str::to_string).collect();
    note_used(state, stored.iter().map(String::as_str));
}

/// Commit the model's metadata (steps 2-5 above; the caller wrote and
/// synced the chunks), merged with what other writers stored since this
/// handle's open or last commit (`format::merge`), with other commits
/// kept out meanwhile where the store can lock. Objects of renamed
/// variables and groups were moved when they were renamed.
pub fn write_dataset(
    model: &mut Model,
    store: &dyn Zmap,
    opts: &WriteOptions,
    state: &mut CommitState,
) -> NcResult<()> {
    let ours = render(model, opts)?;
    let _lock = crate::zmap::lock_commits(store)?;
    let merged = match &state.base {
        Some(base) => {
            let empty = Map::new();
            let stored = state.written.as_ref().unwrap_or(&empty);
            let base = merge::Base { ours: base, stored, merged: &state.merged };
            merge::with_stored(store, &base, &ours, opts, state.before_publish.is_some())?
        }
        None => {
            let written = state.written.as_ref();
            let unchanged = |key: &String, value: &Value| written.and_then(|w| w.get(key)) == Some(value);
            let merged = ours.iter().map(|(key, value)| Merged {
                key: key.clone(),
                value: value.clone(),
                write: !unchanged(key, value),
                foreign: false,
            });
            merged.collect()
        }
    };
    let objects: Vec<(String, Value)> = merged.iter().map(|m| (m.key.clone(), m.value.clone())).collect();
    publish_objects(store, &objects, state, opts)?;
    state.objects_touched = true;
    clear_new(model, store, state)?;
    // A v3 root published with consolidated metadata the dataset does not
    // keep is rewritten whatever changed, to drop it again.
    let republished = |key: &str| opts.zarr_v3 && !opts.consolidated && key == v3::read::ZARR_JSON;
    let changed: Vec<&(String, Value)> =
        merged.iter().zip(&objects).filter(|(m, (key, _))| m.write || republished(key)).map(|(_, o)| o).collect();
    put_in_order(store, &changed)?;
    barrier(store, opts)?;
    // No barrier after this: should it not reach the disk, the durable
    // pending `.zmetadata` with the durable new objects reads the same.
    if opts.zarr_v3 {
        // v3 keeps its consolidated metadata in the root's document.
    } else if opts.consolidated {
        store.put(ZMETADATA, &zmetadata(&objects, None))?;
    } else {
        store.delete(ZMETADATA)?;
    }
    let mut foreign = std::mem::take(&mut state.merged);
    foreign.extend(merged.into_iter().filter(|m| m.foreign).map(|m| m.key));
    finish(model, state, ours.into_iter().collect(), objects);
    state.merged = foreign;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::NcError;
    use crate::format::open::read_dataset;
    use crate::format::v2::write::{ARRAY, ATTR, GROUP, SUPERBLOCK, XARRAY_DIMS};
    use crate::format::width::DEFAULT_STRING_WIDTH;
    use crate::model::Values;
    use crate::model::attrs::put_att;
    use crate::types::*;
    use crate::zmap::FileMap;

    /// `.zmetadata` serialised in place is the document a `Value` built
    /// from clones of the objects serialises to, numbers spelled as read.
    #[test]
    fn zmetadata_is_the_document_of_the_objects() {
        let objects: Vec<(String, Value)> = vec![
            (".zgroup".into(), json!({"zarr_format": 2})),
            ("v/.zarray".into(), json::parse(br#"{"shape": [3], "fill_value": 1e300, "x": 0.1}"#).unwrap()),
            ("v/.zattrs".into(), json!({"a": [1, "b", null], "nested": {"k": true}})),
        ];
        for pending in [None, Some(json!({"root": {".zgroup": null}}))] {
            let metadata: Map<String, Value> = objects.iter().cloned().collect();
            let mut expect = json!({"metadata": metadata, "zarr_consolidated_format": 1});
            if let Some(marker) = &pending {
                expect[PENDING] = marker.clone();
            }
            assert_eq!(String::from_utf8(zmetadata(&objects, pending)).unwrap(), expect.to_string());
        }
    }

    fn scratch_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("nczarr-rs-fmt-{}-{name}", std::process::id()))
    }

    fn scratch(name: &str) -> FileMap {
        FileMap::create(&scratch_path(name), true).unwrap().without_fsync()
    }

    fn options() -> WriteOptions {
        WriteOptions {
            pure_zarr: false,
            xarray_dims: true,
            ncproperties: "version=2".into(),
            consolidated: true,
            layout_490: false,
            zarr_v3: false,
            durable: true,
        }
    }

    fn sample_model() -> Model {
        let mut m = Model::new(true);
        m.define_mode = true;
        let t = m.def_dim(0, b"t", 0).unwrap() as i32;
        let x = m.def_dim(0, b"x", 4).unwrap() as i32;
        let g = m.def_grp(0, b"g").unwrap();
        let y = m.def_dim(g, b"y", 2).unwrap() as i32;
        let v = m.def_var(0, b"v", NC_DOUBLE, &[t, x]).unwrap() as i32;
        put_att(&mut m, 0, v, b"units", Values::Char(b"m".to_vec())).unwrap();
        put_att(&mut m, 0, v, b"_FillValue", Values::Double(vec![f64::NAN])).unwrap();
        m.def_var(g, b"w", NC_STRING, &[y, x]).unwrap();
        m.def_var(g, b"s", NC_INT64, &[]).unwrap();
        put_att(&mut m, g, NC_GLOBAL_ID, b"ints", Values::UShort(vec![1, 2])).unwrap();
        m
    }

    const NC_GLOBAL_ID: i32 = crate::model::NC_GLOBAL;

    /// A store that records the prefixes emptied.
    struct CountingDeletes {
        inner: crate::zmap::MemoryMap,
        emptied: std::sync::Mutex<Vec<String>>,
    }

    impl Zmap for CountingDeletes {
        fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
            self.inner.get(key)
        }
        fn put(&self, key: &str, data: &[u8]) -> NcResult<()> {
            self.inner.put(key, data)
        }
        fn delete(&self, key: &str) -> NcResult<()> {
            self.inner.delete(key)
        }
        fn list(&self, prefix: &str) -> NcResult<Vec<String>> {
            self.inner.list(prefix)
        }
        fn delete_prefix(&self, prefix: &str) -> NcResult<()> {
            self.emptied.lock().unwrap().push(prefix.to_string());
            self.inner.delete_prefix(prefix)
        }
        fn destroy(&self) -> NcResult<()> {
            self.inner.destroy()
        }
    }

    fn emptied(store: &CountingDeletes) -> Vec<String> {
        let mut e = std::mem::take(&mut *store.emptied.lock().unwrap());
        e.sort();
        e
    }

    #[test]
    fn a_fresh_store_empties_only_prefixes_its_handle_used() {
        let store = CountingDeletes { inner: crate::zmap::MemoryMap::new(), emptied: Default::default() };
        let mut m = Model::new(true);
        let mut state = CommitState::default();
        write_new(&mut m, &store, &options(), &mut state).unwrap();
        m.define_mode = true;
        let x = m.def_dim(0, b"x", 4).unwrap() as i32;
        m.def_var(0, b"a", NC_INT, &[x]).unwrap();
        let g = m.def_grp(0, b"g").unwrap();
        m.def_var(g, b"b", NC_INT, &[x]).unwrap();
        write_dataset(&mut m, &store, &options(), &mut state).unwrap();
        assert_eq!(emptied(&store), Vec::<String>::new(), "nothing could be there");

        // `a` renamed to `c` (its objects moved), then a new `a`: the old
        // name was used, so its prefix is emptied; a new `d` is not.
        note_move(&mut state, "a", "c");
        m.define_mode = true;
        m.rename_var(0, 0, b"c").unwrap();
        m.def_var(0, b"a", NC_INT, &[x]).unwrap();
        m.def_var(0, b"d", NC_INT, &[x]).unwrap();
        write_dataset(&mut m, &store, &options(), &mut state).unwrap();
        assert_eq!(emptied(&store), vec!["a".to_string()]);

        // A store this handle did not create: every new prefix is emptied.
        let mut state = CommitState::default();
        m.define_mode = true;
        m.def_var(0, b"e", NC_INT, &[x]).unwrap();
        m.def_var(g, b"f", NC_INT, &[x]).unwrap();
        write_dataset(&mut m, &store, &options(), &mut state).unwrap();
        assert_eq!(emptied(&store), vec!["e".to_string(), "g/f".to_string()]);
    }

    #[test]
    fn commits_of_two_handles_merge_and_conflicts_fail() {
        let store = crate::zmap::MemoryMap::new();
        let mut first = sample_model();
        write_new(&mut first, &store, &options(), &mut CommitState::default()).unwrap();
        let open = || {
            let read = read_dataset(&store, true).unwrap();
            let mut state = CommitState::default();
            remember_opened(&read.model, &options(), read.objects.unwrap(), &mut state).unwrap();
            let model = read.model;
            (model, state)
        };
        let (mut a, mut state_a) = open();
        let (mut b, mut state_b) = open();
        a.define_mode = true;
        b.define_mode = true;
        put_att(&mut a, 0, NC_GLOBAL_ID, b"from_a", Values::Int(vec![1])).unwrap();
        put_att(&mut b, 0, NC_GLOBAL_ID, b"from_b", Values::Int(vec![2])).unwrap();
        write_dataset(&mut a, &store, &options(), &mut state_a).unwrap();
        write_dataset(&mut b, &store, &options(), &mut state_b).unwrap();
        let stored = read_dataset(&store, false).unwrap().model;
        let att =
            |m: &Model, name: &str| crate::model::attrs::get_att(m, 0, NC_GLOBAL_ID, name, NC_INT).map(|(v, _)| v);
        assert_eq!(att(&stored, "from_a"), Ok(Values::Int(vec![1])));
        assert_eq!(att(&stored, "from_b"), Ok(Values::Int(vec![2])), "b's commit kept a's attribute");

        // b's view still lacks a's attribute: its next commit keeps it
        // all the same.
        put_att(&mut b, 0, NC_GLOBAL_ID, b"again_b", Values::Int(vec![3])).unwrap();
        write_dataset(&mut b, &store, &options(), &mut state_b).unwrap();
        let stored = read_dataset(&store, false).unwrap().model;
        assert_eq!(att(&stored, "from_a"), Ok(Values::Int(vec![1])), "b's second commit kept a's attribute");
        assert_eq!(att(&stored, "again_b"), Ok(Values::Int(vec![3])));

        // The same attribute changed differently by both: the second
        // commit fails and the first one's value stays.
        put_att(&mut a, 0, NC_GLOBAL_ID, b"shared", Values::Int(vec![10])).unwrap();
        put_att(&mut b, 0, NC_GLOBAL_ID, b"shared", Values::Int(vec![20])).unwrap();
        write_dataset(&mut a, &store, &options(), &mut state_a).unwrap();
        assert_eq!(write_dataset(&mut b, &store, &options(), &mut state_b), Err(NcError::EINVAL));
        let stored = read_dataset(&store, false).unwrap().model;
        assert_eq!(att(&stored, "shared"), Ok(Values::Int(vec![10])));
        assert_eq!(att(&stored, "from_b"), Ok(Values::Int(vec![2])));
    }

    #[test]
    fn write_then_read_gives_the_same_model() {
        let store = scratch("roundtrip");
        let mut written = sample_model();
        write_dataset(&mut written, &store, &options(), &mut CommitState::default()).unwrap();
        let read = read_dataset(&store, false).unwrap();
        assert_eq!(read.ncproperties.as_deref(), Some("version=2"));
        let m = read.model;
        assert_eq!(m.dims.len(), 3);
        assert!(m.dims[0].unlimited && !m.dims[1].unlimited);
        assert_eq!(m.dim_full_name(2), "/g/y");
        let v = m.var(0, 0).unwrap();
        assert_eq!((v.name.as_str(), v.xtype, v.dimids.clone()), ("v", NC_DOUBLE, vec![0, 1]));
        assert_eq!(v.atts[0], written.groups[0].vars[0].atts[0]);
        match &v.fill {
            Some(Values::Double(f)) => assert!(f[0].is_nan()),
            other => panic!("{other:?}"),
        }
        let g = m.find_group_by_path("/g").unwrap();
        let w = m.var(g, 0).unwrap();
        assert_eq!((w.xtype, w.string_width), (NC_STRING, Some(DEFAULT_STRING_WIDTH)));
        assert_eq!(m.var(g, 1).unwrap().dimids, Vec::<usize>::new());
        assert_eq!(m.groups[g].atts, written.groups[g].atts);
        store.destroy().unwrap();
    }

    #[test]
    fn quantize_setting_is_an_untyped_attribute() {
        use crate::model::quantize::{NC_QUANTIZE_BITROUND, Quantize};
        let store = scratch("quantize");
        let mut m = sample_model();
        m.def_var_quantize(0, 0, NC_QUANTIZE_BITROUND, 9).unwrap();
        let name = "_QuantizeBitRoundNumberOfSignificantBits";
        assert!(m.var(0, 0).unwrap().atts.iter().all(|a| a.name != name), "not listed in this session");
        write_dataset(&mut m, &store, &options(), &mut CommitState::default()).unwrap();
        let zattrs = json::parse(&store.get("v/.zattrs").unwrap().unwrap()).unwrap();
        assert_eq!(zattrs[name], json!(9));
        assert!(zattrs[ATTR]["types"].get(name).is_none());
        let read = read_dataset(&store, false).unwrap().model;
        let v = read.var(0, 0).unwrap();
        assert_eq!(v.atts.iter().find(|a| a.name == name).unwrap().values, Values::Int(vec![9]));
        assert_eq!(Quantize::of(v).map(|q| q.nsd), Some(9));
        assert_eq!(read.var_quantize(0, 0).unwrap(), (NC_QUANTIZE_BITROUND, 9));
        store.destroy().unwrap();
    }

    #[test]
    fn pure_zarr_leaves_out_nczarr_keys() {
        let store = scratch("pure");
        let mut m = sample_model();
        let opts = WriteOptions {
            pure_zarr: true,
            xarray_dims: true,
            ncproperties: "p".into(),
            consolidated: false,
            layout_490: false,
            zarr_v3: false,
            durable: true,
        };
        write_dataset(&mut m, &store, &opts, &mut CommitState::default()).unwrap();
        let root = json::parse(&store.get(".zattrs").unwrap().unwrap()).unwrap();
        assert!(root.get(SUPERBLOCK).is_none() && root.get(GROUP).is_none());
        let v = json::parse(&store.get("v/.zattrs").unwrap().unwrap()).unwrap();
        assert_eq!(v[XARRAY_DIMS], json!(["t", "x"]));
        assert!(v.get(ARRAY).is_none() && v.get(ATTR).is_none());
        store.destroy().unwrap();
    }

    /// A v3 commit publishes the root with consolidated metadata; without
    /// consolidation, every commit ends with it gone, also when the root
    /// itself did not change.
    #[test]
    fn unconsolidated_v3_root_stays_unconsolidated() {
        let store = scratch("v3-noconsolidated");
        let opts = WriteOptions { zarr_v3: true, consolidated: false, ..options() };
        let mut m = sample_model();
        let mut state = CommitState::default();
        write_dataset(&mut m, &store, &opts, &mut state).unwrap();
        let root = || json::parse(&store.get("zarr.json").unwrap().unwrap()).unwrap();
        assert!(root().get("consolidated_metadata").is_none());
        put_att(&mut m, 0, 0, b"late", Values::Int(vec![1])).unwrap();
        write_dataset(&mut m, &store, &opts, &mut state).unwrap();
        assert!(root().get("consolidated_metadata").is_none(), "the published root was put back");
        let v = json::parse(&store.get("v/zarr.json").unwrap().unwrap()).unwrap();
        assert_eq!(v["attributes"]["late"], json!(1));
        // With consolidation it holds the new state.
        let opts = WriteOptions { consolidated: true, ..opts };
        write_dataset(&mut m, &store, &opts, &mut state).unwrap();
        assert_eq!(root()["consolidated_metadata"]["metadata"]["v"], v);
        store.destroy().unwrap();
    }

    #[test]
    fn local_reads_take_objects_remote_reads_take_zmetadata() {
        use crate::format::{Consolidation, ReadOptions, read_dataset_with};
        let store = scratch("consolidated");
        let mut m = sample_model();
        write_dataset(&mut m, &store, &options(), &mut CommitState::default()).unwrap();
        assert!(store.get(ZMETADATA).unwrap().is_some());
        store.delete("v/.zarray").unwrap();
        // A local store is read object by object: the object is missed.
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::ENCZARR), "v/.zarray is gone");
        // A remote one trusts .zmetadata, as zarr-python does: one read.
        let trusted = ReadOptions { writable: false, consolidation: Consolidation::Trust, pure_zarr: false };
        assert_eq!(read_dataset_with(&store, trusted).unwrap().model.var(0, 0).unwrap().name, "v");
        // Writing without consolidation removes a stale .zmetadata.
        let opts = WriteOptions { consolidated: false, ..options() };
        write_dataset(&mut m, &store, &opts, &mut CommitState::default()).unwrap();
        assert!(store.get(ZMETADATA).unwrap().is_none());
        store.destroy().unwrap();
    }

    /// A store that performs the first `budget` changes and then fails
    /// every change, as if the writer were killed there.
    struct Crashing {
        inner: FileMap,
        budget: std::sync::atomic::AtomicUsize,
    }

    impl Crashing {
        fn spend(&self) -> NcResult<()> {
            use std::sync::atomic::Ordering::SeqCst;
            self.budget.fetch_update(SeqCst, SeqCst, |b| b.checked_sub(1)).map(|_| ()).map_err(|_| NcError::EIO)
        }
    }

    impl Zmap for Crashing {
        fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
            self.inner.get(key)
        }
        fn put(&self, key: &str, data: &[u8]) -> NcResult<()> {
            self.spend()?;
            self.inner.put(key, data)
        }
        fn delete(&self, key: &str) -> NcResult<()> {
            self.spend()?;
            self.inner.delete(key)
        }
        fn list(&self, prefix: &str) -> NcResult<Vec<String>> {
            self.inner.list(prefix)
        }
        fn delete_prefix(&self, prefix: &str) -> NcResult<()> {
            self.spend()?;
            self.inner.delete_prefix(prefix)
        }
        fn destroy(&self) -> NcResult<()> {
            self.inner.destroy()
        }
        fn move_prefix(&self, from: &str, to: &str) -> NcResult<()> {
            self.spend()?;
            self.inner.move_prefix(from, to)
        }
        fn drop_alias(&self, from: &str) -> NcResult<()> {
            self.spend()?;
            self.inner.drop_alias(from)
        }
    }

    /// A commit stopped after each of its changes in turn: the store reads
    /// as the old model or the new one, never anything else.
    #[test]
    fn a_commit_stopped_anywhere_reads_as_old_or_new() {
        let variants = [
            options(),
            WriteOptions { consolidated: false, ..options() },
            WriteOptions { pure_zarr: true, ..options() },
            WriteOptions { pure_zarr: true, consolidated: false, ..options() },
            WriteOptions { zarr_v3: true, ..options() },
            WriteOptions { zarr_v3: true, consolidated: false, ..options() },
            WriteOptions { zarr_v3: true, pure_zarr: true, ..options() },
        ];
        for (i, opts) in variants.iter().enumerate() {
            let mut old = sample_model();
            let mut new = sample_model();
            // The new state: a record more, a new dimension used by a new
            // variable in a new group below another, attribute changes.
            new.dims[0].len = 3;
            let z = new.def_dim(0, b"z", 3).unwrap() as i32;
            let h = new.def_grp(1, b"h").unwrap();
            new.def_var(h, b"late", NC_INT, &[z]).unwrap();
            put_att(&mut new, 0, NC_GLOBAL_ID, b"history", Values::Char(b"h".to_vec())).unwrap();
            crate::model::attrs::del_att(&mut new, 0, 0, b"units").unwrap();
            let as_map = |o: Vec<(String, Value)>| o.into_iter().collect::<Map<String, Value>>();
            // What readers make of each state (pure Zarr does not keep
            // everything a model holds, so compare what is read back).
            let seen = |m: &Model| {
                let store = scratch(&format!("crash-{i}-ref"));
                write_dataset(&mut m.clone(), &store, opts, &mut CommitState::default()).unwrap();
                let read = read_dataset(&store, false).unwrap();
                store.destroy().unwrap();
                as_map(render(&read.model, opts).unwrap())
            };
            let (old_map, new_map) = (seen(&old), seen(&new));
            assert!(old_map != new_map);
            let mut completed = false;
            for budget in 0..200 {
                let store = scratch(&format!("crash-{i}-{budget}"));
                let mut state = CommitState::default();
                write_dataset(&mut old, &store, opts, &mut state).unwrap();
                // The new model as the handle holds it: old objects stored.
                let mut model = new.clone();
                for g in 0..old.groups.len() {
                    model.groups[g].stored_path = old.groups[g].stored_path.clone();
                    for (v, var) in old.groups[g].vars.iter().enumerate() {
                        model.groups[g].vars[v].stored_path = var.stored_path.clone();
                    }
                }
                let inner = FileMap::open(&scratch_path(&format!("crash-{i}-{budget}"))).unwrap().without_fsync();
                let crashing = Crashing { inner, budget: budget.into() };
                let result = write_dataset(&mut model, &crashing, opts, &mut state);
                let read = read_dataset(&store, false).unwrap_or_else(|e| panic!("variant {i}, stop {budget}: {e:?}"));
                let seen = as_map(render(&read.model, opts).unwrap());
                assert!(seen == old_map || seen == new_map, "variant {i}, stop {budget}: a mix");
                if result.is_ok() {
                    assert!(seen == new_map, "variant {i}: complete commit reads new");
                    assert!(!commit_pending(&store).unwrap());
                    completed = true;
                }
                store.destroy().unwrap();
                if completed {
                    break;
                }
            }
            assert!(completed, "variant {i}: the commit never completed");
        }
    }

    /// Renames (which move stored objects) and the close after them,
    /// stopped after each change in turn: the store opens, under the old
    /// names or the new ones, with the data reachable.
    #[test]
    fn renames_stopped_anywhere_keep_the_data() {
        renames_stopped_anywhere("nczarr,file", "0");
        renames_stopped_anywhere("nczarr,file,v3", "c/0");
        renames_stopped_anywhere("zarr,file,v3,noconsolidated", "c/0");
    }

    fn renames_stopped_anywhere(mode: &str, chunk0: &str) {
        use crate::capi::{data_typed::*, dim::*, file::*, group::*, var::*};
        use std::ffi::CString;
        let c = |s: &str| CString::new(s).unwrap();
        let mut completed = false;
        for budget in 0..100 {
            let path = scratch_path(&format!("ren-{}-{budget}", mode.replace(',', "-")));
            let url = c(&format!("file://{}#mode={mode}", path.display()));
            let (mut nc, mut x, mut v, mut g, mut w) = (0, 0, 0, 0, 0);
            // SAFETY: C API calls with CStrings and arrays that live across them.
            unsafe {
                assert_eq!(nc_create(url.as_ptr(), 0, &mut nc), 0);
                assert_eq!(nc_def_dim(nc, c("x").as_ptr(), 4, &mut x), 0);
                assert_eq!(nc_def_var(nc, c("v").as_ptr(), NC_INT, 1, &x, &mut v), 0);
                assert_eq!(nc_def_grp(nc, c("g").as_ptr(), &mut g), 0);
                assert_eq!(nc_def_var(g, c("w").as_ptr(), NC_INT, 1, &x, &mut w), 0);
                assert_eq!(nc_put_var_int(nc, v, [1, 2, 3, 4].as_ptr()), 0);
                assert_eq!(nc_put_var_int(g, w, [5, 6, 7, 8].as_ptr()), 0);
                assert_eq!(nc_close(nc), 0);
                assert_eq!(nc_open(url.as_ptr(), 1, &mut nc), 0);
                crate::registry::with(nc, |ds, _| {
                    let inner = FileMap::open(&path)?.without_fsync();
                    ds.store = std::sync::Arc::new(Crashing { inner, budget: budget.into() });
                    Ok(())
                })
                .unwrap();
                let g = nc + 1;
                let ok = nc_rename_var(nc, v, c("v2").as_ptr()) == 0
                    && nc_rename_grp(g, c("g2").as_ptr()) == 0
                    && nc_put_var_int(g, w, [9, 9, 9, 9].as_ptr()) == 0
                    && nc_close(nc) == 0;
                if !ok {
                    // Killed: the handle goes without another write.
                    crate::registry::remove(nc, true, |_| Ok(())).unwrap();
                }
                completed = ok;
            }
            let store = FileMap::open(&path).unwrap();
            let m = read_dataset(&store, false).unwrap_or_else(|e| panic!("stop {budget}: {e:?}")).model;
            let vname = &m.groups[0].vars[0].name;
            let gname = &m.groups[1].name;
            assert!(vname == "v" || vname == "v2", "{mode}, stop {budget}: {vname}");
            assert!(gname == "g" || gname == "g2", "stop {budget}: {gname}");
            let ints = |key: &str| {
                let b = store.get(key).unwrap().unwrap_or_else(|| panic!("stop {budget}: no {key}"));
                b.chunks(4).map(|q| i32::from_le_bytes(q.try_into().unwrap())).collect::<Vec<_>>()
            };
            assert_eq!(ints(&format!("{vname}/{chunk0}")), [1, 2, 3, 4], "stop {budget}");
            let wdata = ints(&format!("{gname}/w/{chunk0}"));
            assert!(wdata == [5, 6, 7, 8] || wdata == [9, 9, 9, 9], "stop {budget}");
            if completed {
                assert_eq!((vname.as_str(), gname.as_str(), wdata), ("v2", "g2", vec![9, 9, 9, 9]));
            }
            store.destroy().unwrap();
            if completed {
                break;
            }
        }
        assert!(completed, "{mode}");
    }

    #[test]
    fn an_edited_object_wins_over_zmetadata_locally() {
        // What netcdf-c's run_filter_errors does: edit an object below the
        // root, leave the root and .zmetadata alone, at nearly the same time.
        let store = scratch("older");
        let mut m = sample_model();
        write_dataset(&mut m, &store, &options(), &mut CommitState::default()).unwrap();
        let mut zattrs = json::parse(&store.get("v/.zattrs").unwrap().unwrap()).unwrap();
        zattrs["added"] = json!(1);
        store.put("v/.zattrs", &json::to_bytes(&zattrs)).unwrap();
        let read = read_dataset(&store, false).unwrap().model;
        assert!(read.var(0, 0).unwrap().atts.iter().any(|a| a.name == "added"));
        store.destroy().unwrap();
    }

    #[test]
    fn malformed_metadata_is_an_error() {
        let store = scratch("bad");
        let mut m = sample_model();
        let opts = WriteOptions { consolidated: false, ..options() };
        write_dataset(&mut m, &store, &opts, &mut CommitState::default()).unwrap();
        store.put("v/.zarray", br#"{"shape": [0, 5], "dtype": "<f8", "chunks": [1, 4]}"#).unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::ENCZARR), "shape disagrees with x");
        // An unsupported dtype costs only that variable its data.
        store.put("v/.zarray", br#"{"shape": [0, 4], "dtype": "<c16", "chunks": [1, 4]}"#).unwrap();
        let read = read_dataset(&store, false).unwrap();
        let v = read.model.var(0, 0).unwrap();
        assert_eq!((v.xtype, v.data_error), (NC_UBYTE, Some(NcError::EBADTYPE)));
        assert_eq!(v.atts[0].name, "units");
        store.put("v/.zarray", b"[1, 2").unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::ENCZARR));
        store.delete(".zgroup").unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::ENOTNC));
        store.destroy().unwrap();
    }

    /// What C callers size by constants must fit: names in NC_MAX_NAME + 1
    /// bytes, dimension ids in NC_MAX_VAR_DIMS ints, a fill value in one
    /// value. Larger ones would overflow their buffers (ctests/t_cbuffers.c
    /// checks that through the C API under AddressSanitizer).
    #[test]
    fn metadata_fits_c_buffers() {
        let store = scratch("cbuffers");
        let array = |shape: &str, fill: &str| {
            format!(
                r#"{{"zarr_format": 2, "shape": {shape}, "chunks": {shape}, "dtype": "<i4", "compressor": null, "fill_value": {fill}, "filters": null, "order": "C"}}"#
            )
        };
        store.put(".zgroup", br#"{"zarr_format": 2}"#).unwrap();
        store.put("v/.zarray", array("[4]", "7").as_bytes()).unwrap();
        let long = "a".repeat(257);
        store.put(".zattrs", format!(r#"{{"{}": 1}}"#, &long[1..]).as_bytes()).unwrap();
        assert!(read_dataset(&store, false).is_ok(), "256 bytes fit");
        store.put(".zattrs", format!(r#"{{"{long}": 1}}"#).as_bytes()).unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::ENCZARR), "attribute name");
        store.put(".zattrs", b"{}").unwrap();
        let ones = |n: usize| format!("[{}]", vec!["1"; n].join(","));
        store.put("v/.zarray", array(&ones(1024), "7").as_bytes()).unwrap();
        assert!(read_dataset(&store, false).is_ok(), "NC_MAX_VAR_DIMS dimensions fit");
        store.put("v/.zarray", array(&ones(1025), "7").as_bytes()).unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::EMAXDIMS), "rank");
        // A fill value is one value. A list is not a fill value of an int
        // variable: its data is refused, and the fill it reports is the
        // type's default, still one value.
        for (fill, want, error) in [
            ("7", 7, None),
            ("[8]", -2147483647, Some(NcError::ENCZARR)),
            ("[1, 2, 3]", -2147483647, Some(NcError::ENCZARR)),
            ("[]", -2147483647, Some(NcError::ENCZARR)),
        ] {
            store.put("v/.zarray", array("[4]", fill).as_bytes()).unwrap();
            let model = read_dataset(&store, false).unwrap().model;
            let var = model.var(0, 0).unwrap();
            assert_eq!(var.fill, Some(Values::Int(vec![want])), "{fill}");
            assert_eq!(var.data_error, error, "{fill}");
        }
        // NCZarr dimension names.
        store
            .put(".zattrs", format!(r#"{{"_nczarr_superblock": {{"version": "2.0.0"}}, "_nczarr_group": {{"dimensions": {{"{long}": 4}}, "arrays": [], "groups": []}}}}"#).as_bytes())
            .unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::ENCZARR), "dimension name");
        store.destroy().unwrap();
    }
}
