//! Reading a Zarr v3 hierarchy (every node a `zarr.json`) into the model,
//! as zarr-python 3 and xarray write it: groups by listing or from the
//! root's inline consolidated metadata, dimensions from
//! `dimension_names` (or `_ARRAY_DIMENSIONS`, which `zarr migrate v3`
//! keeps), attributes inline.
//!
//! NCZarr on v3 (`format::v3::write`, netcdf-c's draft names): the root
//! says `_nczarr_superblock`; then `_nczarr_group` gives each group's
//! dimensions (with their unlimited flag) and the order of its members,
//! `_nczarr_array` an array's dimensions by full name, char versus
//! string and NOFILL, and `_nczarr_attrs` the attributes' types.

use serde_json::{Map, Value};

use super::codecs::{self, V3Codecs};
use super::dtype::{self, FixedText, V3Type};
use super::fill;
use super::write::{ARRAY, ATTRS, GROUP, SUPERBLOCK};
use crate::error::{NcError, NcResult};
use crate::format::attrs::{decode_cf_float_fill, decode_inferred, decode_typed};
use crate::format::build::{
    add_group, add_nczarr_dims, check_stored_name, mark_appendable, name_list, pure_dims, referenced_dims, usize_list,
};
use crate::format::dtype::dtype_for;
use crate::format::options::{Consolidation, MAX_GROUP_DEPTH, ReadOptions, ReadResult};
use crate::format::source::Source;
use crate::model::attrs::FILL_VALUE;
use crate::model::chunking::{ShardLevel, Shards, V3Chunks};
use crate::model::names::NC_MAX_NAME;
use crate::model::quantize::Setting;
use crate::model::{Attr, Model, Values, Var};
use crate::types::*;
use crate::zmap::{Zmap, join};

/// The document of every node.
pub const ZARR_JSON: &str = "zarr.json";

/// Keys an array document may hold; anything else must be an object
/// saying `"must_understand": false`.
const ARRAY_KEYS: &[&str] = &[
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "attributes",
    "dimension_names",
    "storage_transformers",
];

/// Attributes that are metadata of other writers, never shown.
fn is_reserved(name: &str) -> bool {
    name == "_ARRAY_DIMENSIONS" || name == "_NCProperties" || name.starts_with("_nczarr_")
}

fn object(v: Option<&Value>) -> NcResult<Map<String, Value>> {
    match v {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(NcError::ENCZARR),
    }
}

/// A document of the right format: zarr_format 3 and the node type.
fn node_type(doc: &Map<String, Value>) -> NcResult<&str> {
    if doc.get("zarr_format").and_then(Value::as_u64) != Some(3) {
        return Err(NcError::ENCZARR);
    }
    doc.get("node_type").and_then(Value::as_str).ok_or(NcError::ENCZARR)
}

/// The root's inline consolidated metadata as a key → document map
/// (`g/a/zarr.json` → the array's document, `zarr.json` → the root).
fn consolidated(root: &Map<String, Value>) -> NcResult<Option<Map<String, Value>>> {
    let Some(meta) = root.get("consolidated_metadata") else { return Ok(None) };
    let meta = match meta {
        Value::Null => return Ok(None),
        Value::Object(m) => m,
        _ => return Err(NcError::ENCZARR),
    };
    if meta.get("kind").and_then(Value::as_str) != Some("inline") {
        return Ok(None);
    }
    let mut out = Map::new();
    for (path, doc) in object(meta.get("metadata"))? {
        if path.is_empty() || path.starts_with('/') {
            return Err(NcError::ENCZARR);
        }
        out.insert(join(&path, ZARR_JSON), doc);
    }
    let mut root = root.clone();
    root.shift_remove("consolidated_metadata");
    out.insert(ZARR_JSON.to_string(), Value::Object(root));
    Ok(Some(out))
}

pub fn read_dataset(store: &dyn Zmap, opts: ReadOptions) -> NcResult<ReadResult> {
    read_dataset_from(store, opts, store.get(ZARR_JSON)?)
}

/// [`read_dataset`] with the root's `zarr.json` already fetched (`None`:
/// there is none).
pub fn read_dataset_from(store: &dyn Zmap, opts: ReadOptions, root: Option<Vec<u8>>) -> NcResult<ReadResult> {
    let root = match root {
        Some(bytes) => match crate::format::json::parse(&bytes)? {
            Value::Object(m) => m,
            _ => return Err(NcError::ENCZARR),
        },
        None => return Err(NcError::ENOTNC),
    };
    if node_type(&root)? != "group" {
        // A root array has no place in netCDF's model (a dataset is a
        // group).
        return Err(NcError::ENOTNC);
    }
    let consolidated = if opts.consolidation == Consolidation::Ignore { None } else { consolidated(&root)? };
    let attrs = object(root.get("attributes"))?;
    let ncproperties = attrs.get("_NCProperties").and_then(Value::as_str).map(str::to_string);
    let seen = opts.writable.then(|| {
        let mut root = root.clone();
        root.shift_remove("consolidated_metadata");
        std::cell::RefCell::new(Map::from_iter([(ZARR_JSON.to_string(), Value::Object(root))]))
    });
    let src = Source { store, consolidated, fetched: Default::default(), seen };
    let nczarr = attrs.contains_key(SUPERBLOCK) && !opts.pure_zarr;
    let mut model = Model::new(opts.writable);
    model.zarr_v3 = true;
    let mut reader = Reader { src, model, pending: Vec::new(), nczarr };
    reader.read_group(0, &root, 0)?;
    for (g, name, doc) in std::mem::take(&mut reader.pending) {
        reader.read_var(g, &name, &doc)?;
    }
    let pure = !reader.nczarr;
    let objects = reader.src.seen.take().map(std::cell::RefCell::into_inner);
    let mut model = reader.model;
    for g in 0..model.groups.len() {
        model.groups[g].stored_path = Some(model.group_key(g));
    }
    if pure {
        mark_appendable(&mut model);
    }
    Ok(ReadResult { model, ncproperties, objects })
}

struct Reader<'a> {
    src: Source<'a>,
    model: Model,
    /// Arrays to read once every group (and so every dimension) is known.
    pending: Vec<(usize, String, Map<String, Value>)>,
    /// The root says `_nczarr_superblock`: NCZarr attributes are read.
    nczarr: bool,
}

/// An NCZarr attribute holding an object (absent: empty).
fn nczarr_info<'a>(attrs: &'a Map<String, Value>, name: &str) -> NcResult<Option<&'a Map<String, Value>>> {
    match attrs.get(name) {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err(NcError::ENCZARR),
    }
}

impl Reader<'_> {
    /// The user attributes of a node, typed by NCZarr's `attribute_types`
    /// where it names a type (a `_FillValue` is the caller's to decode).
    fn user_attrs(&self, attrs: &Map<String, Value>) -> NcResult<Vec<Attr>> {
        let types = match (self.nczarr, nczarr_info(attrs, ATTRS)?) {
            (true, Some(info)) => object(info.get("attribute_types"))?,
            _ => Map::new(),
        };
        let mut out = Vec::new();
        for (name, value) in attrs {
            if is_reserved(name) {
                continue;
            }
            if name.len() > NC_MAX_NAME || name.contains('\0') {
                return Err(NcError::ENCZARR);
            }
            let dtype = types.get(name).and_then(Value::as_str).and_then(dtype::attribute_dtype);
            let values = match dtype {
                Some(dtype) if name != FILL_VALUE => decode_typed(value, &dtype)?,
                _ => decode_inferred(value)?,
            };
            out.push(Attr { name: name.clone(), values });
        }
        Ok(out)
    }

    fn read_group(&mut self, g: usize, doc: &Map<String, Value>, depth: usize) -> NcResult<()> {
        let gkey = self.model.group_key(g);
        let attrs = object(doc.get("attributes"))?;
        self.model.groups[g].atts = self.user_attrs(&attrs)?;
        let info = if self.nczarr { nczarr_info(&attrs, GROUP)? } else { None };
        let names: Vec<String> = match info {
            // NCZarr names the members, in their netCDF order.
            Some(info) => {
                if let Some(dims) = info.get("dimensions") {
                    add_nczarr_dims(&mut self.model, g, dims)?;
                }
                let mut names = name_list(info.get("arrays"))?;
                names.extend(name_list(info.get("groups"))?);
                names
            }
            None => self.src.children(&gkey)?.into_iter().filter(|n| n != ZARR_JSON && !n.starts_with("__")).collect(),
        };
        let mut seen = std::collections::BTreeSet::new();
        if !names.iter().all(|n| seen.insert(n.as_str())) {
            return Err(NcError::ENCZARR);
        }
        // Each child's document, all fetched at once.
        let valid: Vec<&String> = names.iter().filter(|n| check_stored_name(n).is_ok()).collect();
        self.src.prefetch(valid.iter().map(|n| join(&join(&gkey, n), ZARR_JSON)).collect())?;
        let mut groups = Vec::new();
        for name in valid {
            // A name with no document is no node (implicit groups were
            // removed from the spec; zarr-python does not list them); one
            // NCZarr names must be there.
            let Some(child) = self.src.json(&join(&join(&gkey, name), ZARR_JSON))? else {
                if info.is_some() {
                    return Err(NcError::ENCZARR);
                }
                continue;
            };
            let Value::Object(child) = child else { return Err(NcError::ENCZARR) };
            match node_type(&child)? {
                "group" => groups.push((name.clone(), child)),
                "array" => self.pending.push((g, name.clone(), child)),
                _ => return Err(NcError::ENCZARR),
            }
        }
        if !groups.is_empty() && depth >= MAX_GROUP_DEPTH {
            return Err(NcError::ENCZARR);
        }
        for (name, child) in groups {
            let id = add_group(&mut self.model, g, &name)?;
            self.read_group(id, &child, depth + 1)?;
        }
        Ok(())
    }

    fn read_var(&mut self, g: usize, name: &str, doc: &Map<String, Value>) -> NcResult<()> {
        check_stored_name(name)?;
        let vkey = join(&self.model.group_key(g), name);
        let shape = usize_list(doc.get("shape"))?;
        if shape.len() > crate::model::NC_MAX_VAR_DIMS {
            return Err(NcError::EMAXDIMS);
        }
        let scalar = shape.is_empty();
        let mut data_error = None;
        // An unknown extension the reader must understand: the array is
        // listed, its data refused.
        let unknown = doc.iter().any(|(k, v)| {
            !ARRAY_KEYS.contains(&k.as_str()) && v.get("must_understand").and_then(Value::as_bool) != Some(false)
        });
        if unknown || doc.get("storage_transformers").and_then(Value::as_array).is_some_and(|t| !t.is_empty()) {
            data_error = Some(NcError::ENOFILTER);
        }
        let ty = match dtype::parse(doc.get("data_type").ok_or(NcError::ENCZARR)?) {
            Ok(t) => t,
            Err(NcError::EBADTYPE) => {
                data_error = Some(NcError::EBADTYPE);
                V3Type { xtype: NC_UBYTE, size: 1, text: None, bool: false, half: false, vlen: false, binary: false }
            }
            Err(e) => return Err(e),
        };
        let outer_chunks = chunk_shape(doc.get("chunk_grid"), shape.len())?;
        let (default_keys, separator) = chunk_keys(doc.get("chunk_key_encoding"))?;
        let codecs = codecs::parse(doc.get("codecs").ok_or(NcError::ENCZARR)?, shape.len())?;
        let fill = match fill::decode(doc.get("fill_value").ok_or(NcError::ENCZARR)?, &ty) {
            Ok(f) => f,
            Err(_) if data_error.is_some() => Some(Values::default_fill(ty.xtype)?),
            Err(e) => {
                data_error = Some(e);
                Some(Values::default_fill(ty.xtype)?)
            }
        };
        let attrs = object(doc.get("attributes"))?;
        // What the model does not hold, kept to be written back (in its
        // order: a rewrite of a rewrite changes nothing).
        let mut stored = doc.clone();
        for key in ["shape", "attributes", "dimension_names"] {
            stored.shift_remove(key);
        }
        // `null` entries are unnamed: "" is no netCDF name, so anonymous.
        let names = match doc.get("dimension_names") {
            None | Some(Value::Null) => attrs.get("_ARRAY_DIMENSIONS").and_then(Value::as_array),
            Some(Value::Array(items)) => Some(items),
            Some(_) => return Err(NcError::ENCZARR),
        };
        let names: Option<Vec<String>> =
            names.map(|items| items.iter().map(|v| v.as_str().unwrap_or("").to_string()).collect());
        let info = if self.nczarr { nczarr_info(&attrs, ARRAY)? } else { None };
        let refs = info.and_then(|i| i.get("dimension_references"));
        let dimids = match refs {
            _ if scalar => Vec::new(),
            Some(refs) => referenced_dims(&mut self.model, &name_list(Some(refs))?, &shape)?,
            None => pure_dims(&mut self.model, g, names.as_ref(), &shape)?,
        };
        // netCDF's char: one-byte text (what we write for NC_CHAR in every
        // mode, and numpy's `S1` that zarr-python writes), or uint8 that
        // NCZarr marks as char (netcdf-c's draft).
        let nczarr_char = info.and_then(|i| i.get("nczarr_type")).and_then(Value::as_str) == Some("char");
        let char_type = ty.text == Some(FixedText::Bytes(1)) || (nczarr_char && ty.xtype == NC_UBYTE && !ty.bool);
        let ty = if char_type { V3Type { xtype: NC_CHAR, text: None, ..ty } } else { ty };
        let fill = match fill {
            Some(Values::String(s)) if char_type => {
                Some(Values::Char(vec![s.first().and_then(|s| s.first()).copied().unwrap_or(0)]))
            }
            Some(Values::UByte(b)) if char_type => Some(Values::Char(b)),
            other => other,
        };
        let no_fill =
            fill.is_none() || info.and_then(|i| i.get("no_fill")).and_then(Value::as_u64).is_some_and(|n| n != 0);
        let mut atts = self.user_attrs(&attrs)?;
        // xarray keeps the CF fill value as an attribute (a float as the
        // base64 of its little-endian f64): decode it to the variable's
        // type. Unlike v2's, a v3 `fill_value` is not shown as one: xarray
        // writes 0 for every integer array and does not mask with it, so
        // showing `_FillValue = 0` would hide real zeros from netCDF
        // clients. (It is still what `nc_inq_var_fill` reports and what
        // missing chunks read as.)
        if let Some(i) = atts.iter().position(|a| a.name == FILL_VALUE) {
            match cf_fill_value(&attrs[FILL_VALUE], ty.xtype) {
                Ok(v) => atts[i].values = v,
                Err(_) => {
                    atts.remove(i);
                }
            }
        }
        let endianness = match codecs.big_endian {
            Some(true) => NC_ENDIAN_BIG,
            Some(false) => NC_ENDIAN_LITTLE,
            None => NC_ENDIAN_NATIVE,
        };
        if ty.vlen != codecs.vlen && data_error.is_none() {
            // Variable-length strings need their serializer, and only
            // they have it.
            data_error = Some(NcError::EBADTYPE);
        }
        let V3Codecs { transpose, chain, shards, .. } = codecs;
        // A sharded array's chunks, for netCDF and the engine, are its
        // innermost chunks; the grid's are its shards, each level's
        // chunks dividing those of the level above.
        let mut chunks = outer_chunks;
        let mut levels = Vec::with_capacity(shards.len());
        for spec in shards {
            if !chunks.iter().zip(&spec.chunk_shape).all(|(s, c)| s % c == 0) {
                return Err(NcError::ENCZARR);
            }
            let per_shard = chunks.iter().zip(&spec.chunk_shape).map(|(s, c)| s / c).collect();
            let (order, index_at_end, index_crc) = (spec.order, spec.index_at_end, spec.index_crc);
            levels.push(ShardLevel { per_shard, order, index_at_end, index_crc });
            chunks = spec.chunk_shape;
        }
        let shard = (!levels.is_empty()).then_some(Shards { levels });
        let var = Var {
            name: name.to_string(),
            xtype: ty.xtype,
            dimids,
            atts,
            chunks: if scalar { Vec::new() } else { chunks },
            no_fill,
            fill: Some(fill.unwrap_or(Values::default_fill(ty.xtype)?)),
            endianness: if matches!(ty.xtype, NC_CHAR | NC_STRING) { NC_ENDIAN_NATIVE } else { endianness },
            created: true,
            written: false,
            fresh: false,
            stored_path: Some(vkey),
            string_width: match ty.text {
                Some(FixedText::Utf32(n) | FixedText::Bytes(n)) => Some(n),
                None => None,
            },
            utf32: matches!(ty.text, Some(FixedText::Utf32(_))).then_some(endianness == NC_ENDIAN_BIG),
            vlen: ty.vlen,
            object: None,
            codecs: chain,
            dim_separator: separator,
            order_f: false,
            data_error,
            v3: Some(V3Chunks { default_keys, separator, transpose, half: ty.half, shard, stored: Some(stored) }),
            quantize: Setting::Stored,
        };
        self.model.groups[g].vars.push(var);
        Ok(())
    }
}

/// The regular grid's chunk shape (one size per dimension, none zero).
fn chunk_shape(grid: Option<&Value>, rank: usize) -> NcResult<Vec<usize>> {
    let grid = grid.and_then(Value::as_object).ok_or(NcError::ENCZARR)?;
    if grid.get("name").and_then(Value::as_str) != Some("regular") {
        // `rectilinear` and other grids are not read.
        return Err(NcError::ENCZARR);
    }
    let shape = usize_list(grid.get("configuration").and_then(|c| c.get("chunk_shape")))?;
    if shape.len() != rank || shape.contains(&0) {
        return Err(NcError::ENCZARR);
    }
    Ok(shape)
}

/// `(default encoding?, separator)` of a `chunk_key_encoding`.
fn chunk_keys(encoding: Option<&Value>) -> NcResult<(bool, char)> {
    let encoding = encoding.and_then(Value::as_object).ok_or(NcError::ENCZARR)?;
    let default = match encoding.get("name").and_then(Value::as_str) {
        Some("default") => true,
        Some("v2") => false,
        _ => return Err(NcError::ENCZARR),
    };
    let separator = match encoding.get("configuration").and_then(|c| c.get("separator")) {
        None => {
            if default {
                '/'
            } else {
                '.'
            }
        }
        Some(Value::String(s)) if s == "/" || s == "." => s.chars().next().unwrap_or('/'),
        Some(_) => return Err(NcError::ENCZARR),
    };
    Ok((default, separator))
}

/// An array's `_FillValue` attribute in its type: xarray's base64 of a
/// little-endian f64 for floats, else a plain JSON value.
fn cf_fill_value(v: &Value, xtype: NcType) -> NcResult<Values> {
    if let Some(decoded) = decode_cf_float_fill(v, xtype) {
        return decoded;
    }
    match xtype {
        NC_STRING => decode_inferred(v),
        _ => decode_typed(v, &dtype_for(xtype, NC_ENDIAN_NATIVE, 1)?),
    }
}
