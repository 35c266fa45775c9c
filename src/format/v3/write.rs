//! The model as Zarr v3 documents (ZARR_V3.md): one `zarr.json` per group
//! and array, as zarr-python 3 writes them, so that zarr-python and
//! xarray read what we write; with `mode=nczarr`, the netCDF model they
//! cannot hold (dimensions with their unlimited flag, attribute types,
//! char versus string, NOFILL) in the attributes of netcdf-c's draft
//! (`_nczarr_superblock` 3.0.0, `_nczarr_group`, `_nczarr_array`,
//! `_nczarr_attrs`).
//!
//! Where the draft and zarr-python/xarray disagree, they win: strings are
//! `string` (vlen-utf8), not `r<bits>`; NOFILL writes a zero fill value
//! (zarr-python refuses `null`) and says so in `_nczarr_array.no_fill`;
//! a float `_FillValue` attribute is the base64 xarray requires;
//! consolidated metadata is zarr-python's (inline in the root's
//! document). The commit order is `format::commit`'s.
//!
//! A variable asked for shards (`_Shards`, `Model::def_var_shards`) gets
//! a grid of shards and one `sharding_indexed` codec holding its own.

use serde_json::{Map, Value, json};

use super::codecs::to_v3;
use super::dtype::{attribute_type_name, for_new_var};
use super::fill;
use super::read::ZARR_JSON;
use crate::error::{NcError, NcResult};
use crate::format::attrs::encode_as;
use crate::format::options::WriteOptions;
use crate::model::attrs::FILL_VALUE;
use crate::model::quantize::Setting;
use crate::model::{Attr, Model, Values, Var};
use crate::types::*;
use crate::zmap::join;

/// The NCZarr format version our v3 datasets say they are (the draft's).
pub const NCZARR_V3_VERSION: &str = "3.0.0";
pub const SUPERBLOCK: &str = "_nczarr_superblock";
pub const GROUP: &str = "_nczarr_group";
pub const ARRAY: &str = "_nczarr_array";
pub const ATTRS: &str = "_nczarr_attrs";
const NCPROPERTIES: &str = "_NCProperties";

/// Array document keys in the order zarr-python writes them.
const ARRAY_ORDER: &[&str] = &["shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value", "codecs"];

/// User attributes as JSON, with their `attribute_types` names. A float
/// `_FillValue` is xarray's base64 of the little-endian double.
fn attributes(atts: &[Attr], pure_zarr: bool) -> (Map<String, Value>, Map<String, Value>) {
    let mut values = Map::new();
    let mut types = Map::new();
    for att in atts {
        let value = match &att.values {
            Values::Float(v) if att.name == FILL_VALUE && v.len() == 1 => cf_float(v[0] as f64),
            Values::Double(v) if att.name == FILL_VALUE && v.len() == 1 => cf_float(v[0]),
            other => encode_as(other, !pure_zarr).0,
        };
        values.insert(att.name.clone(), value);
        types.insert(att.name.clone(), json!(attribute_type_name(att.values.nc_type())));
    }
    (values, types)
}

/// xarray's `_FillValue` for floats: base64 of the 8 little-endian bytes.
fn cf_float(x: f64) -> Value {
    Value::String(fill::to_base64(&x.to_le_bytes()))
}

/// Add the NCZarr attribute-type record (listing itself and the other
/// `_nczarr_*` attributes as `json`, as the draft does).
fn add_types(attrs: &mut Map<String, Value>, mut types: Map<String, Value>) {
    for name in attrs.keys().filter(|k| k.starts_with("_nczarr_")) {
        types.insert(name.clone(), json!("json"));
    }
    types.insert(ATTRS.into(), json!("json"));
    attrs.insert(ATTRS.into(), json!({"attribute_types": types}));
}

/// A group's document (without consolidated metadata).
pub fn group_doc(model: &Model, g: usize, opts: &WriteOptions) -> (String, Value) {
    let group = &model.groups[g];
    let (mut attrs, mut types) = attributes(&group.atts, opts.pure_zarr);
    if g == 0 {
        attrs.insert(NCPROPERTIES.into(), Value::String(opts.ncproperties.clone()));
        types.insert(NCPROPERTIES.into(), json!("char"));
    }
    if !opts.pure_zarr {
        if g == 0 {
            attrs.insert(SUPERBLOCK.into(), json!({"version": NCZARR_V3_VERSION}));
        }
        let mut dims = Map::new();
        for &d in &group.dims {
            let dim = &model.dims[d];
            dims.insert(dim.name.clone(), json!({"size": dim.len, "unlimited": u8::from(dim.unlimited)}));
        }
        let arrays: Vec<&str> = group.vars.iter().map(|v| v.name.as_str()).collect();
        let groups: Vec<&str> = group.children.iter().map(|&c| model.groups[c].name.as_str()).collect();
        attrs.insert(GROUP.into(), json!({"dimensions": dims, "arrays": arrays, "groups": groups}));
        add_types(&mut attrs, types);
    }
    let doc = json!({"attributes": attrs, "zarr_format": 3, "node_type": "group"});
    (join(&model.group_key(g), ZARR_JSON), doc)
}

/// What a new array's document says of its chunks (`data_type` through
/// `codecs`): the regular grid (of shards, if asked for), `default` keys
/// with `/`, `bytes` (or `vlen-utf8` for strings) then the variable's
/// filters.
fn new_array_chunks(model: &Model, var: &Var) -> NcResult<Map<String, Value>> {
    let scalar = var.dimids.is_empty();
    let elem_size = if var.xtype == NC_STRING { 1 } else { type_size(var.xtype)? };
    let chunk_shape: Vec<usize> = if scalar { Vec::new() } else { var.chunks.clone() };
    let fill = match model.effective_fill(var)? {
        // zarr-python refuses `null`; a NOFILL variable's unwritten
        // chunks read as zeros here, so zero is what they hold.
        _ if var.no_fill => match var.xtype {
            NC_CHAR | NC_STRING => json!(""),
            NC_FLOAT | NC_DOUBLE => json!(0.0),
            _ => json!(0),
        },
        f => fill::encode(&f),
    };
    let big = var.stored_big_endian();
    let serializer = match var.xtype {
        NC_STRING => json!({"name": "vlen-utf8", "configuration": {}}),
        _ if elem_size == 1 => json!({"name": "bytes"}),
        _ => json!({"name": "bytes", "configuration": {"endian": if big { "big" } else { "little" }}}),
    };
    let mut codecs = vec![serializer];
    codecs.extend(var.codecs.iter().map(|c| to_v3(c, elem_size)));
    let shards = var.v3.as_ref().and_then(|v3| v3.shard.as_ref()).filter(|_| !scalar);
    let grid_shape: Vec<usize> = match shards {
        // The grid's chunks are the shards; ours are inside them,
        // encoded by the inner codecs; the index is zarr-python's.
        Some(shards) => {
            let inner = json!({"name": "sharding_indexed", "configuration": {
                "chunk_shape": chunk_shape,
                "codecs": codecs,
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
                "index_location": if shards.levels.first().is_none_or(|l| l.index_at_end) { "end" } else { "start" },
            }});
            codecs = vec![inner];
            // A new array's shards are one level (`Shards::new_array`).
            let per_shard = shards.chunks_per_shard().ok_or(NcError::EINVAL)?;
            let shard = chunk_shape.iter().zip(&per_shard).map(|(c, n)| c.checked_mul(*n));
            shard.collect::<Option<_>>().ok_or(NcError::EINVAL)?
        }
        None => chunk_shape,
    };
    let mut doc = Map::new();
    doc.insert("data_type".into(), for_new_var(var.xtype)?);
    doc.insert("chunk_grid".into(), json!({"name": "regular", "configuration": {"chunk_shape": grid_shape}}));
    doc.insert("chunk_key_encoding".into(), json!({"name": "default", "configuration": {"separator": "/"}}));
    doc.insert("fill_value".into(), fill);
    doc.insert("codecs".into(), json!(codecs));
    Ok(doc)
}

/// An array's document. One read from storage keeps what it said about
/// its chunks (they are encoded so); a new one gets ours
/// ([`new_array_chunks`]).
pub fn array_doc(model: &Model, g: usize, v: usize, opts: &WriteOptions) -> NcResult<(String, Value)> {
    let var = &model.groups[g].vars[v];
    let scalar = var.dimids.is_empty();
    let shape: Vec<usize> = var.dimids.iter().map(|&d| model.dims[d].len).collect();
    let stored = var.v3.as_ref().and_then(|v3| v3.stored.as_ref());
    let mut doc = Map::new();
    doc.insert("shape".into(), json!(shape));
    match stored {
        Some(stored) => {
            for &key in &ARRAY_ORDER[1..] {
                if let Some(value) = stored.get(key) {
                    doc.insert(key.into(), value.clone());
                }
            }
        }
        None => doc.extend(new_array_chunks(model, var)?),
    }

    let (mut attrs, types) = attributes(&var.atts, opts.pure_zarr);
    if let Setting::Defined(q) = var.quantize {
        // As netcdf-c: an int naming the significant digits.
        attrs.insert(q.algorithm.att_name().into(), json!(q.nsd));
    }
    if !opts.pure_zarr {
        let mut array = Map::new();
        let refs: Vec<String> = var.dimids.iter().map(|&d| model.dim_full_name(d)).collect();
        array.insert("dimension_references".into(), json!(refs));
        array.insert("storage".into(), json!("chunked"));
        if scalar {
            array.insert("scalar".into(), json!(1));
        }
        if var.xtype == NC_CHAR {
            array.insert("nczarr_type".into(), json!("char"));
        }
        if var.no_fill {
            // Ours: v3 has no way to say "no fill value".
            array.insert("no_fill".into(), json!(1));
        }
        attrs.insert(ARRAY.into(), Value::Object(array));
        add_types(&mut attrs, types);
    }
    let names: Vec<&str> = var.dimids.iter().map(|&d| model.dims[d].name.as_str()).collect();
    doc.insert("attributes".into(), Value::Object(attrs));
    doc.insert("dimension_names".into(), json!(names));
    doc.insert("zarr_format".into(), json!(3));
    doc.insert("node_type".into(), json!("array"));
    match stored {
        Some(stored) => {
            // Extensions (`must_understand: false`) and transformers stay.
            for (key, value) in stored {
                doc.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
        None => {
            doc.insert("storage_transformers".into(), json!([]));
        }
    }
    let key = join(&join(&model.group_key(g), &var.name), ZARR_JSON);
    Ok((key, Value::Object(doc)))
}

/// Put every other node's document into the root's, as zarr-python's
/// `consolidate_metadata` does: `consolidated_metadata` of kind `inline`,
/// keyed by path, sorted by depth then case-folded name, each group's
/// carrying an empty one of its own. `objects` ends with the root's.
pub fn consolidate(objects: &mut [(String, Value)]) {
    let Some(((_, root), others)) = objects.split_last_mut() else { return };
    let mut entries: Vec<(String, Value)> = others
        .iter()
        .filter_map(|(key, doc)| {
            let path = key.strip_suffix(ZARR_JSON)?.trim_end_matches('/').to_string();
            let mut doc = doc.clone();
            if doc.get("node_type").and_then(Value::as_str) == Some("group") {
                doc = with_consolidated(doc, Map::new());
            }
            Some((path, doc))
        })
        .collect();
    entries.sort_by_cached_key(|(path, _)| (path.matches('/').count(), path.to_lowercase()));
    *root = with_consolidated(root.clone(), entries.into_iter().collect());
}

/// A group document with `consolidated_metadata` between `zarr_format`
/// and `node_type`, where zarr-python puts it.
fn with_consolidated(doc: Value, metadata: Map<String, Value>) -> Value {
    let Value::Object(doc) = doc else { return doc };
    let mut out = Map::new();
    for (key, value) in doc {
        if key == "node_type" {
            out.insert(
                "consolidated_metadata".into(),
                json!({"kind": "inline", "must_understand": false, "metadata": metadata}),
            );
        }
        out.insert(key, value);
    }
    Value::Object(out)
}
