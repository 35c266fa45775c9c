//! Reading dataset metadata, whichever writer made it:
//!
//! | layout | netCDF info lives in | written by |
//! | --- | --- | --- |
//! | `Current` | `_nczarr_*` attributes in `.zattrs` | netcdf-c 4.9.3+, us |
//! | `Lower` | `_nczarr_*` keys in `.zgroup`/`.zarray` | netcdf-c 4.9.1–4.9.2 |
//! | `Upper` | `_NCZARR_*` keys in `.zgroup`/`.zarray` | netcdf-c 4.8.1–4.9.0 |
//! | `V1` | separate `.nczarr`, `.nczgroup`, `.nczarray`, `.nczattrs` objects | netcdf-c 4.8.0 |
//! | `Pure` | nowhere: groups by listing, dimensions from `_ARRAY_DIMENSIONS` | zarr-python, xarray |
//!
//! Metadata comes from consolidated `.zmetadata` when there is one (one
//! read opens the whole tree), else object by object. Older NCZarr layouts
//! open read-only, as in netcdf-c.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::error::{NcError, NcResult};
use crate::format::attrs::{decode_cf_float_fill, decode_fill_number, decode_inferred, decode_typed};
use crate::format::build::{
    add_group, add_nczarr_dims, check_stored_name, mark_appendable, name_list, pure_dims, referenced_dims, usize_list,
};
use crate::format::dtype::{Dtype, dtype_for, parse_dtype};
use crate::format::json;
use crate::format::options::{Consolidation, MAX_GROUP_DEPTH, PENDING, ReadOptions, ReadResult};
use crate::format::source::Source;
use crate::model::attrs::FILL_VALUE;
use crate::model::quantize::Setting;
use crate::model::{Attr, Model, Values, Var};
use crate::types::*;
use crate::zmap::{Zmap, join, validate_key};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Current,
    Lower,
    Upper,
    V1,
    Pure,
}

impl Layout {
    /// The key (in `.zgroup`/`.zarray`/`.zattrs`) of a piece of NCZarr info.
    fn key(self, what: &str) -> String {
        match self {
            Layout::Upper => format!("_NCZARR_{}", what.to_uppercase()),
            _ => format!("_nczarr_{what}"),
        }
    }
}

/// Keys of `.zattrs` that are metadata, never user attributes.
fn is_reserved_key(key: &str) -> bool {
    key.starts_with("_nczarr_") && key != "_nczarr_maxstrlen" && key != "_nczarr_default_maxstrlen"
        || key.starts_with("_NCZARR_")
        || key == "_ARRAY_DIMENSIONS"
        || key == "_NCProperties"
}

/// The `metadata` map of `.zmetadata` and the root objects recorded by the
/// pending marker of an unfinished commit (see `nczarr.rs`), if any.
type Consolidated = (Map<String, Value>, Option<Map<String, Value>>);

fn consolidated(bytes: Option<Vec<u8>>) -> NcResult<Option<Consolidated>> {
    let Some(bytes) = bytes else { return Ok(None) };
    // A malformed .zmetadata is ignored: the objects themselves are the truth.
    Ok(json::parse(&bytes).ok().and_then(|v| match v {
        Value::Object(mut m) if m.get("zarr_consolidated_format").and_then(Value::as_u64) == Some(1) => {
            let pending = match m.remove(PENDING) {
                Some(Value::Object(mut p)) => match p.remove("root") {
                    Some(Value::Object(root)) => Some(root),
                    _ => Some(Map::new()),
                },
                _ => None,
            };
            match m.remove("metadata") {
                // Every key must be one of the store's (nothing leaving it).
                Some(Value::Object(meta)) if meta.keys().all(|k| !k.is_empty() && validate_key(k).is_ok()) => {
                    Some((meta, pending))
                }
                _ => None,
            }
        }
        _ => None,
    }))
}

/// Consolidated metadata, when it is to be used instead of the objects.
///
/// `Trust` (remote stores): as zarr-python and netcdf-c's `consolidated`
/// mode use it, unless one of our commits is unfinished.
///
/// `Verify` (local stores): only while one of our commits is unfinished
/// (the pending marker), when `.zmetadata` holds the new state whole and
/// the objects may be half old, half new. Otherwise the objects are the
/// truth: anyone may have edited one without rewriting `.zmetadata`
/// (netcdf-c's own tests edit a `.zarray` with `sed`; netcdf-c before 4.10,
/// and 4.10 by default, ignore it), and neither times (a copy gives every
/// file nearly the same) nor the root objects can tell. Reading the
/// objects of a local store costs little more than reading `.zmetadata`.
/// Even a pending marker is believed only while the root objects are
/// either its old or its new version, so a later writer's change wins.
fn current_consolidated(
    store: &dyn Zmap,
    how: Consolidation,
    zmetadata: Option<Vec<u8>>,
) -> NcResult<Option<Map<String, Value>>> {
    if how == Consolidation::Ignore {
        return Ok(None);
    }
    // Locally only an unfinished commit's `.zmetadata` is used: one
    // without the marker's key is not worth parsing.
    let has_marker = |b: &[u8]| b.windows(PENDING.len()).any(|w| w == PENDING.as_bytes());
    if how == Consolidation::Verify && !zmetadata.as_deref().is_some_and(has_marker) {
        return Ok(None);
    }
    let Some((meta, pending)) = consolidated(zmetadata)? else { return Ok(None) };
    let Some(pending) = pending else {
        return Ok((how == Consolidation::Trust).then_some(meta));
    };
    let direct = Source { store, consolidated: None, fetched: Default::default(), seen: None };
    for key in [".zgroup", ".zattrs"] {
        let real = direct.json(key)?;
        let old = pending.get(key).filter(|v| !v.is_null());
        if meta.get(key) != real.as_ref() && old != real.as_ref() {
            return Ok(None);
        }
    }
    Ok(Some(meta))
}

/// The root objects an open fetched before it knew the version (see
/// `format::open`): `.zmetadata`, or (without consolidated metadata)
/// `.zgroup` and `.zattrs` under their keys.
pub struct Probed {
    pub zmetadata: Option<Vec<u8>>,
    pub root: Vec<(String, Option<Vec<u8>>)>,
}

/// Read a Zarr v2 dataset's metadata into a model; `None` when the store
/// has no v2 root (Zarr v3, or not a dataset).
pub fn read_dataset(store: &dyn Zmap, opts: ReadOptions, probed: Probed) -> NcResult<Option<ReadResult>> {
    let writable = opts.writable;
    let Probed { zmetadata, root } = probed;
    let fetched = root.into_iter().collect();
    let src = Source {
        store,
        consolidated: current_consolidated(store, opts.consolidation, zmetadata)?,
        fetched: std::cell::RefCell::new(fetched),
        seen: writable.then(Default::default),
    };
    // The root objects together; `.nczarr` (netcdf-c 4.8.0) is read only
    // when they name no newer layout.
    src.prefetch(vec![".zgroup".to_string(), ".zattrs".to_string()])?;
    // netcdf-c 4.8.0's superblock object: only its presence matters, but
    // it must be an object like every other. Read only when the root
    // names no newer layout.
    let v1_superblock = || match src.json(".nczarr")? {
        None => Ok(false),
        Some(Value::Object(_)) => Ok(true),
        Some(_) => Err(NcError::ENCZARR),
    };
    let (zgroup, root_attrs, v1) = match src.json(".zgroup")? {
        Some(Value::Object(zgroup)) => {
            let root_attrs = src.object(".zattrs")?;
            let newer = root_attrs.contains_key("_nczarr_superblock")
                || zgroup.contains_key("_nczarr_superblock")
                || zgroup.contains_key("_NCZARR_SUPERBLOCK");
            let v1 = !newer && v1_superblock()?;
            (zgroup, root_attrs, v1)
        }
        Some(_) => return Err(NcError::ENCZARR),
        None if v1_superblock()? => (Map::new(), src.object(".zattrs")?, true),
        // Pure Zarr written with no root group object (netcdf-c's
        // ref_power_901_constants: arrays straight under the root), which
        // netcdf-c opens with `mode=zarr`: a root group if arrays or
        // groups are there.
        None if opts.pure_zarr && has_zarr_children(&src)? => (Map::new(), src.object(".zattrs")?, false),
        // No v2 root: Zarr v3, or not a dataset. (Probed last, so that v2
        // opens make no extra request.)
        None => return Ok(None),
    };
    check_zarr_format(&zgroup)?;
    let layout = if opts.pure_zarr {
        Layout::Pure
    } else if root_attrs.contains_key("_nczarr_superblock") {
        Layout::Current
    } else if zgroup.contains_key("_nczarr_superblock") {
        Layout::Lower
    } else if zgroup.contains_key("_NCZARR_SUPERBLOCK") {
        Layout::Upper
    } else if v1 {
        Layout::V1
    } else {
        Layout::Pure
    };
    let ncproperties = root_attrs.get("_NCProperties").and_then(Value::as_str).map(str::to_string);
    let mut reader = Reader { src, layout, model: Model::new(writable), pending: Vec::new() };
    reader.read_group(0, root_attrs, zgroup, 0)?;
    for (g, name) in std::mem::take(&mut reader.pending) {
        reader.read_var(g, &name)?;
    }
    let objects = reader.src.seen.take().map(std::cell::RefCell::into_inner);
    let mut model = reader.model;
    for g in 0..model.groups.len() {
        model.groups[g].stored_path = Some(model.group_key(g));
    }
    // Older layouts are written back as they are read, so that an edit
    // does not lock their readers out: netcdf-c 4.9.0's (still Debian's
    // and Ubuntu's) in its own layout, which 4.9.0 reads and later
    // versions read too. The layouts of 4.8 and of 4.9.1-4.9.2, which
    // no maintained distribution ships, are upgraded to the current one
    // at the first commit, as netcdf-c 4.10 does when it writes one.
    model.layout_490 = layout == Layout::Upper;
    if layout == Layout::Pure {
        mark_appendable(&mut model);
    }
    Ok(Some(ReadResult { model, ncproperties, objects }))
}

/// Is there a Zarr v2 array or group directly below the root?
fn has_zarr_children(src: &Source) -> NcResult<bool> {
    for name in src.children("")? {
        if src.json(&join(&name, ".zarray"))?.is_some() || src.json(&join(&name, ".zgroup"))?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

struct Reader<'a> {
    src: Source<'a>,
    layout: Layout,
    model: Model,
    /// Variables to read once every group (and so every dimension) is known.
    pending: Vec<(usize, String)>,
}

/// `zarr_format`, when given, must be 2 (netcdf-c: NC_ENCZARR otherwise).
fn check_zarr_format(obj: &Map<String, Value>) -> NcResult<()> {
    match obj.get("zarr_format") {
        None => Ok(()),
        Some(v) if v.as_u64() == Some(2) || v.as_str() == Some("2") => Ok(()),
        Some(_) => Err(NcError::ENCZARR),
    }
}

/// `key` or its older spelling.
fn field<'m>(m: &'m Map<String, Value>, key: &str, alias: &str) -> Option<&'m Value> {
    m.get(key).or_else(|| m.get(alias))
}

impl Reader<'_> {
    /// The NCZarr group info (dims, arrays, groups) of a group, if any.
    fn group_info(
        &self,
        gkey: &str,
        zattrs: &Map<String, Value>,
        zgroup: &Map<String, Value>,
    ) -> NcResult<Option<Map<String, Value>>> {
        let info = match self.layout {
            Layout::Current => zattrs.get(&self.layout.key("group")).cloned(),
            Layout::Lower | Layout::Upper => zgroup.get(&self.layout.key("group")).cloned(),
            Layout::V1 => self.src.json(&join(gkey, ".nczgroup"))?,
            Layout::Pure => return Ok(None),
        };
        match info {
            Some(Value::Object(m)) => Ok(Some(m)),
            None if self.layout == Layout::V1 => Ok(Some(Map::new())),
            _ => Err(NcError::ENCZARR),
        }
    }

    /// Recorded attribute types of an object: name -> dtype string.
    fn attr_types(&self, key: &str, zattrs: &Map<String, Value>) -> NcResult<Map<String, Value>> {
        let types = match self.layout {
            Layout::V1 => {
                let obj = match self.src.json(&join(key, ".nczattrs"))? {
                    Some(v) => Some(v),
                    None => self.src.json(&join(key, ".nczattr"))?,
                };
                // Format 1 records nc_type numbers as strings ("4" = NC_INT).
                let numeric = match obj {
                    None => None,
                    Some(Value::Object(o)) => match o.get("types") {
                        None => None,
                        Some(Value::Object(t)) => Some(t.clone()),
                        Some(_) => return Err(NcError::ENCZARR),
                    },
                    Some(_) => return Err(NcError::ENCZARR),
                };
                let mut out = Map::new();
                for (name, t) in numeric.unwrap_or_default() {
                    let code = t.as_str().and_then(|s| s.parse::<i32>().ok()).or(t.as_i64().map(|n| n as i32));
                    if let Some(dtype) = code.and_then(|c| dtype_for(c, NC_ENDIAN_NATIVE, 1).ok()) {
                        out.insert(name, Value::String(dtype));
                    }
                }
                return Ok(out);
            }
            // netcdf-c's pure Zarr mode still writes (and reads) the types.
            Layout::Upper => zattrs.get("_NCZARR_ATTR"),
            Layout::Pure => zattrs.get("_nczarr_attr").or_else(|| zattrs.get("_NCZARR_ATTR")),
            _ => zattrs.get("_nczarr_attr"),
        };
        // netcdf-c 4.9.0 wrote `{}` (no "types") when there was nothing
        // to record; anything present must have the right shape.
        let types = match types {
            None => return Ok(Map::new()),
            Some(Value::Object(t)) => match t.get("types") {
                None => return Ok(Map::new()),
                Some(Value::Object(types)) => types.clone(),
                Some(_) => return Err(NcError::ENCZARR),
            },
            Some(_) => return Err(NcError::ENCZARR),
        };
        if types.values().any(|t| !t.is_string()) {
            return Err(NcError::ENCZARR);
        }
        Ok(types)
    }

    /// Decode the user attributes of an object. For a variable
    /// (`fill_type` given) a float `_FillValue` may be xarray's base64 of
    /// a little-endian f64 (VirtualiZarr writes it so), and one that does
    /// not decode in the variable's type is kept as its text: the
    /// variable's data does not depend on it (its fill is `.zarray`'s
    /// `fill_value`).
    fn user_attrs(&self, key: &str, zattrs: &Map<String, Value>, fill_type: Option<NcType>) -> NcResult<Vec<Attr>> {
        let types = self.attr_types(key, zattrs)?;
        let mut out = Vec::new();
        for (name, value) in zattrs {
            if is_reserved_key(name) {
                continue;
            }
            // Callers hold attribute names in NC_MAX_NAME + 1 bytes, as C
            // strings.
            if name.len() > crate::model::names::NC_MAX_NAME || name.contains('\0') {
                return Err(NcError::ENCZARR);
            }
            let values = match (name.as_str(), fill_type, types.get(name).and_then(Value::as_str)) {
                (FILL_VALUE, Some(t), None) if decode_cf_float_fill(value, t).is_some() => {
                    decode_cf_float_fill(value, t).unwrap_or(Err(NcError::EINTERNAL))
                }
                (FILL_VALUE, Some(t), _) if t != NC_STRING => decode_typed(value, &dtype_for(t, NC_ENDIAN_NATIVE, 1)?),
                // Zarr has no char type: read as pure Zarr, netcdf-c 4.10
                // gives the text NCZarr typed `>S1` as a string.
                (_, _, Some(dtype)) if self.layout == Layout::Pure && is_char_dtype(dtype) => {
                    decode_typed(value, "|S1")
                }
                (_, _, Some(dtype)) => decode_typed(value, dtype),
                // A string variable's untyped `_FillValue` is a string (the
                // variable's type, as netcdf-c types it), not char text.
                (FILL_VALUE, Some(NC_STRING), None) => decode_typed(value, "|S1"),
                _ => decode_inferred(value),
            };
            match values {
                Ok(values) => out.push(Attr { name: name.clone(), values }),
                Err(_) if name == FILL_VALUE && fill_type.is_some() => {
                    let text = match value {
                        Value::String(s) => s.clone().into_bytes(),
                        other => other.to_string().into_bytes(),
                    };
                    out.push(Attr { name: name.clone(), values: Values::Char(text) });
                }
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    fn read_group(
        &mut self,
        g: usize,
        zattrs: Map<String, Value>,
        zgroup: Map<String, Value>,
        depth: usize,
    ) -> NcResult<()> {
        let gkey = self.model.group_key(g);
        self.model.groups[g].atts = self.user_attrs(&gkey, &zattrs, None)?;
        let (arrays, groups) = match self.group_info(&gkey, &zattrs, &zgroup)? {
            Some(info) => {
                if let Some(dims) = field(&info, "dimensions", "dims") {
                    add_nczarr_dims(&mut self.model, g, dims)?;
                }
                (name_list(field(&info, "arrays", "vars"))?, name_list(info.get("groups"))?)
            }
            None => self.list_children(&gkey)?,
        };
        // Names are unique among a group's variables and subgroups.
        let mut seen = BTreeSet::new();
        if !arrays.iter().chain(&groups).all(|n| seen.insert(n.as_str())) {
            return Err(NcError::ENCZARR);
        }
        if !groups.is_empty() && depth >= MAX_GROUP_DEPTH {
            return Err(NcError::ENCZARR);
        }
        self.prefetch_members(&gkey, &arrays, &groups)?;
        self.pending.extend(arrays.into_iter().map(|a| (g, a)));
        for name in groups {
            let child = add_group(&mut self.model, g, &name)?;
            let key = self.model.group_key(child);
            let child_attrs = self.src.object(&join(&key, ".zattrs"))?;
            let child_zgroup = self.src.object(&join(&key, ".zgroup"))?;
            self.read_group(child, child_attrs, child_zgroup, depth + 1)?;
        }
        Ok(())
    }

    /// Fetch the metadata objects of a group's arrays and subgroups all
    /// at once, before they are read one by one. Names that are no key
    /// segment are left to the reads, which refuse them.
    fn prefetch_members(&self, gkey: &str, arrays: &[String], groups: &[String]) -> NcResult<()> {
        if self.layout == Layout::V1 {
            return Ok(());
        }
        let valid = |names: &[String]| -> Vec<String> {
            names.iter().filter(|n| check_stored_name(n).is_ok()).map(|n| join(gkey, n)).collect()
        };
        let mut keys = Vec::new();
        for key in valid(arrays) {
            keys.extend([join(&key, ".zarray"), join(&key, ".zattrs")]);
        }
        for key in valid(groups) {
            keys.extend([join(&key, ".zgroup"), join(&key, ".zattrs")]);
        }
        self.src.prefetch(keys)
    }

    /// Pure Zarr: the arrays and groups directly below a group, by listing.
    fn list_children(&self, gkey: &str) -> NcResult<(Vec<String>, Vec<String>)> {
        let (mut arrays, mut groups) = (Vec::new(), Vec::new());
        let names = self.src.children(gkey)?;
        // Whether each is an array or a group is not known yet: ask for
        // both, and its attributes, in one go.
        let mut keys = Vec::new();
        for name in names.iter().filter(|n| check_stored_name(n).is_ok()) {
            let key = join(gkey, name);
            keys.extend([join(&key, ".zarray"), join(&key, ".zgroup"), join(&key, ".zattrs")]);
        }
        self.src.prefetch(keys)?;
        for name in names {
            // A name that is no single key segment is bad metadata (not a
            // reason to probe the store for it).
            check_stored_name(&name)?;
            let key = join(gkey, &name);
            if self.src.json(&join(&key, ".zarray"))?.is_some() {
                arrays.push(name);
            } else if self.src.json(&join(&key, ".zgroup"))?.is_some() {
                groups.push(name);
            }
        }
        Ok((arrays, groups))
    }

    fn read_var(&mut self, g: usize, name: &str) -> NcResult<()> {
        check_stored_name(name)?;
        let vkey = join(&self.model.group_key(g), name);
        let zarray = self.src.object(&join(&vkey, ".zarray"))?;
        check_zarr_format(&zarray)?;
        let zattrs = self.src.object(&join(&vkey, ".zattrs"))?;
        // A structured dtype, a list of [name, dtype(, shape)] fields, is
        // unsupported like any other dtype; other lists are malformed.
        let is_field = |f: &Value| f.as_array().is_some_and(|p| (2..=3).contains(&p.len()) && p[0].is_string());
        let dtype_text = match zarray.get("dtype") {
            Some(Value::String(s)) => s.as_str(),
            Some(Value::Array(fields)) if !fields.is_empty() && fields.iter().all(is_field) => "structured",
            _ => return Err(NcError::ENCZARR),
        };
        // An unsupported dtype leaves the variable listed (as ubyte) with
        // its attributes; only its data is refused.
        // numpy object arrays of strings or bytes: zarr-python (and xarray)
        // encode them with a `vlen-utf8`/`vlen-bytes` filter, which the
        // engine decodes itself (variable-length NC_STRING).
        let mut codecs = read_codecs(&zarray)?;
        let vlen_filter =
            codecs.iter().position(|c| matches!(c.get("id").and_then(Value::as_str), Some("vlen-utf8" | "vlen-bytes")));
        let vlen = matches!(dtype_text, "|O" | "O") && vlen_filter.is_some();
        if let (true, Some(i)) = (vlen, vlen_filter) {
            codecs.remove(i);
        }
        let parsed = if vlen {
            Ok(Dtype { xtype: NC_STRING, endianness: NC_ENDIAN_NATIVE, width: 0, utf32: false })
        } else {
            parse_dtype(dtype_text)
        };
        let (mut dtype, mut data_error) = match parsed {
            Ok(d) => (d, None),
            Err(_) => (
                Dtype { xtype: NC_UBYTE, endianness: NC_ENDIAN_NATIVE, width: 1, utf32: false },
                Some(NcError::EBADTYPE),
            ),
        };
        if vlen && vlen_filter != Some(0) {
            // A codec before the object codec takes numpy objects: none is ours.
            data_error = Some(NcError::ENOFILTER);
        }
        if dtype.utf32 && dtype.width == 1 && matches!(self.layout, Layout::Upper | Layout::V1) {
            // netcdf-c 4.9.0 and earlier: "<U1" is NC_CHAR, one byte each.
            dtype = Dtype { xtype: NC_CHAR, endianness: NC_ENDIAN_NATIVE, width: 1, utf32: false };
        }
        let shape = usize_list(zarray.get("shape"))?;
        let chunks = usize_list(zarray.get("chunks"))?;
        if shape.len() > crate::model::NC_MAX_VAR_DIMS {
            // Callers size their dimension id arrays by NC_MAX_VAR_DIMS.
            return Err(NcError::EMAXDIMS);
        }
        if chunks.len() != shape.len() || chunks.contains(&0) {
            return Err(NcError::ENCZARR);
        }
        let info = match self.layout {
            Layout::Current => zattrs.get(&self.layout.key("array")).cloned(),
            Layout::Lower | Layout::Upper => zarray.get(&self.layout.key("array")).cloned(),
            Layout::V1 => match self.src.json(&join(&vkey, ".nczarray"))? {
                Some(v) => Some(v),
                None => self.src.json(&join(&vkey, ".nczvar"))?,
            },
            Layout::Pure => None,
        };
        let xarray_names = match zattrs.get("_ARRAY_DIMENSIONS") {
            Some(v) => Some(name_list(Some(v))?),
            None => None,
        };
        let (dimids, scalar) = match &info {
            Some(Value::Object(info)) => {
                let refs = name_list(field(info, "dimension_references", "dimrefs"))?;
                let scalar = refs.is_empty();
                if scalar && shape.iter().try_fold(1usize, |p, &n| p.checked_mul(n)) != Some(1) {
                    return Err(NcError::ENCZARR);
                }
                let dimids = if scalar { Vec::new() } else { referenced_dims(&mut self.model, &refs, &shape)? };
                (dimids, scalar)
            }
            Some(_) => return Err(NcError::ENCZARR),
            None if self.layout != Layout::Pure => return Err(NcError::ENCZARR),
            None => {
                // Zero-dimensional arrays, and the [1]-shaped "_scalar_"
                // arrays netcdf-c writes for scalars, are scalars.
                let scalar_marker = xarray_names.as_ref().is_some_and(|n| n.len() == 1 && n[0] == "_scalar_");
                if shape.is_empty() || (scalar_marker && shape == [1]) {
                    (Vec::new(), true)
                } else {
                    (pure_dims(&mut self.model, g, xarray_names.as_ref(), &shape)?, false)
                }
            }
        };
        let (no_fill, fill) = match zarray.get("fill_value") {
            // netcdf-c reports zeros as the fill value of a NOFILL variable.
            None | Some(Value::Null) => (true, zero_of(dtype.xtype)?),
            Some(v) => match decode_fill(v, dtype_text, dtype.xtype, self.layout) {
                Ok(fill) => (false, fill),
                // An unsupported dtype is refused anyway; its stand-in type
                // reports what it can (the first of a complex [re, im]).
                Err(_) if data_error.is_some() => {
                    let first = v.as_array().and_then(|items| items.first());
                    let lenient = first.and_then(|f| decode_fill(f, dtype_text, dtype.xtype, Layout::Current).ok());
                    (false, lenient.map_or_else(|| Values::default_fill(dtype.xtype), Ok)?)
                }
                // A fill value that is not one of the variable's type: the
                // variable stays listed, its data (and fill) are refused.
                Err(e) => {
                    data_error = Some(e);
                    (false, Values::default_fill(dtype.xtype)?)
                }
            },
        };
        let atts = self.user_attrs(&vkey, &zattrs, Some(dtype.xtype))?;
        if data_error.is_none() && chunk_bytes(&dtype, if scalar { &[] } else { &chunks }).is_none() {
            // No object can be that big.
            data_error = Some(NcError::ENCZARR);
        }
        // A pure Zarr `fill_value` is the variable's fill (nc_inq_var_fill,
        // missing chunks) but not a `_FillValue` attribute: netcdf-c 4.10
        // shows none (its ref_purezarr.cdl), so ncdump prints the values.
        let order_f = match zarray.get("order") {
            None | Some(Value::Null) => false,
            Some(Value::String(o)) if o == "C" => false,
            Some(Value::String(o)) if o == "F" => true,
            Some(_) => return Err(NcError::ENCZARR),
        };
        let object = vlen.then(|| super::object::object_array(&zarray, no_fill, &fill));
        let var = Var {
            name: name.to_string(),
            xtype: dtype.xtype,
            dimids,
            atts,
            chunks: if scalar { Vec::new() } else { chunks },
            no_fill,
            fill: Some(fill),
            // Characters and strings have no byte order (netcdf-c reports
            // NATIVE even for its own `>S1`); a UTF-32 string's order is
            // kept in `utf32` for decoding.
            endianness: if matches!(dtype.xtype, NC_CHAR | NC_STRING) { NC_ENDIAN_NATIVE } else { dtype.endianness },
            created: true,
            written: false,
            fresh: false,
            stored_path: Some(vkey),
            string_width: (dtype.xtype == NC_STRING && !vlen).then_some(dtype.width),
            utf32: dtype.utf32.then_some(dtype.endianness == NC_ENDIAN_BIG),
            vlen,
            object,
            codecs,
            dim_separator: read_separator(&zarray)?,
            order_f,
            data_error,
            v3: None,
            quantize: Setting::Stored,
        };
        self.model.groups[g].vars.push(var);
        Ok(())
    }
}

/// Does a recorded attribute type say NC_CHAR (`>S1`, 4.9.0's `<U1`)?
fn is_char_dtype(dtype: &str) -> bool {
    parse_dtype(dtype).is_ok_and(|d| d.xtype == NC_CHAR || d.utf32)
}

/// The codec chain of an array: its `filters`, then its `compressor`.
/// Anything but a list of objects (or null) is NC_EFILTER, as in netcdf-c;
/// an object naming no codec we have is NC_ENOFILTER at data access.
fn read_codecs(zarray: &Map<String, Value>) -> NcResult<Vec<Value>> {
    let mut chain = match zarray.get("filters") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) if items.iter().all(Value::is_object) => items.clone(),
        Some(_) => return Err(NcError::EFILTER),
    };
    match zarray.get("compressor") {
        None | Some(Value::Null) => {}
        Some(c @ Value::Object(_)) => chain.push(c.clone()),
        Some(_) => return Err(NcError::EFILTER),
    }
    Ok(chain)
}

/// Bytes of one decoded chunk, if that fits in memory at all (at most
/// `isize::MAX`, Rust's and C's limit for one object).
fn chunk_bytes(dtype: &Dtype, chunks: &[usize]) -> Option<usize> {
    let elem = match dtype.xtype {
        NC_STRING if dtype.utf32 => dtype.width.checked_mul(4)?,
        NC_STRING => dtype.width,
        t => crate::types::type_size(t).ok()?,
    };
    let bytes = chunks.iter().try_fold(elem, |p, &n| p.checked_mul(n))?;
    (bytes <= isize::MAX as usize).then_some(bytes)
}

fn read_separator(zarray: &Map<String, Value>) -> NcResult<char> {
    match zarray.get("dimension_separator") {
        None | Some(Value::Null) => Ok('.'),
        Some(Value::String(s)) if s == "." || s == "/" => Ok(s.chars().next().unwrap_or('.')),
        Some(_) => Err(NcError::ENCZARR),
    }
}

/// One zero value of type `t`.
fn zero_of(t: NcType) -> NcResult<Values> {
    match t {
        NC_CHAR => Ok(Values::Char(vec![0])),
        NC_STRING => Ok(Values::String(vec![Vec::new()])),
        _ => Ok(Values::from_numeric_vec(t, vec![0i8])?.0),
    }
}

/// Decode a `.zarray` fill value into the variable's type.
///
/// Byte strings (`S<n>`): the Zarr v2 spec, and so zarr-python, write them
/// as base64; netcdf-c writes them as they are. So pure Zarr takes base64
/// (text that is not base64, as netcdf-c's pure Zarr writes, as written)
/// and NCZarr layouts take the text. numpy `U<n>` fills are plain text.
///
/// A numeric type takes one number (or a number written as a string, or
/// `"NaN"`/`"Infinity"`/`"-Infinity"`); booleans only for numpy's bool
/// dtype; netcdf-c 4.8.0 (`V1`) wrote a one-element list. Anything else is
/// NC_ENCZARR, and an integer out of the type's range NC_ERANGE (netcdf-c's
/// code; it does not check floats).
fn decode_fill(v: &Value, dtype_text: &str, xtype: NcType, layout: Layout) -> NcResult<Values> {
    let kind = dtype_text.trim_start_matches(['<', '>', '|']);
    let bool_dtype = kind.starts_with('b');
    let v1 = layout == Layout::V1;
    match (xtype, v) {
        (NC_CHAR, Value::String(s)) => Ok(Values::Char(vec![s.as_bytes().first().copied().unwrap_or(0)])),
        (NC_STRING, Value::String(s)) if layout == Layout::Pure && kind.starts_with('S') => {
            let bytes = crate::format::base64::decode(s).unwrap_or_else(|_| s.as_bytes().to_vec());
            Ok(Values::String(vec![bytes]))
        }
        (NC_STRING, Value::String(s)) => Ok(Values::String(vec![s.as_bytes().to_vec()])),
        // zarr-python 2's default for object arrays, which numcodecs stores
        // as an empty element.
        (NC_STRING, Value::Number(n)) if kind == "O" && n.as_f64() == Some(0.0) => Ok(Values::String(vec![vec![]])),
        (NC_CHAR | NC_STRING, _) => Err(NcError::ENCZARR),
        (t, Value::Bool(b)) if bool_dtype => Ok(Values::from_numeric_vec(t, vec![*b as u8])?.0),
        (t, Value::Array(items)) if v1 && items.len() == 1 => decode_fill(&items[0], dtype_text, t, Layout::Current),
        (t, Value::Number(_) | Value::String(_)) => decode_fill_number(v, t),
        _ => Err(NcError::ENCZARR),
    }
}
