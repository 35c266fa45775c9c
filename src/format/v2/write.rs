//! The NCZarr layout of netcdf-c 4.9.3 and later: plain Zarr v2 objects
//! with the netCDF extras kept as attributes in `.zattrs`
//! (`_nczarr_superblock`, `_nczarr_group`, `_nczarr_array`,
//! `_nczarr_attr`), plus `_ARRAY_DIMENSIONS` for xarray.

use serde_json::{Map, Value, json};

use super::super::attrs::{JSON_DTYPE, encode_as};
use super::super::dtype::dtype_for;
use super::super::options::WriteOptions;
use super::super::width::string_width;
use super::NCZARR_FORMAT_VERSION;
use crate::error::NcResult;
use crate::format::base64;
use crate::model::quantize::Setting;
use crate::model::{Attr, Model, Values};
use crate::types::*;
use crate::zmap::join;

pub const SUPERBLOCK: &str = "_nczarr_superblock";
pub const GROUP: &str = "_nczarr_group";
pub const ARRAY: &str = "_nczarr_array";
pub const ATTR: &str = "_nczarr_attr";
pub const XARRAY_DIMS: &str = "_ARRAY_DIMENSIONS";
const NCPROPERTIES: &str = "_NCProperties";

/// User attributes as a JSON map, with their types (recorded unless
/// `pure_zarr`).
fn encode_attrs(atts: &[Attr], pure_zarr: bool) -> (Map<String, Value>, Map<String, Value>) {
    let mut values = Map::new();
    let mut types = Map::new();
    for att in atts {
        let (value, dtype) = encode_as(&att.values, !pure_zarr);
        values.insert(att.name.clone(), value);
        types.insert(att.name.clone(), Value::String(dtype));
    }
    (values, types)
}

/// netcdf-c 4.9.0 typed text as `<U1` where later versions write `>S1`.
fn types_for_490(types: &mut Map<String, Value>) {
    for t in types.values_mut() {
        if t == ">S1" {
            *t = json!("<U1");
        }
    }
}

pub fn write_group(model: &Model, out: &mut Vec<(String, Value)>, g: usize, opts: &WriteOptions) -> NcResult<()> {
    let group = &model.groups[g];
    let gkey = model.group_key(g);
    let mut dims = Map::new();
    for &d in &group.dims {
        let dim = &model.dims[d];
        let spec = if dim.unlimited { json!({"size": dim.len, "unlimited": 1}) } else { json!(dim.len) };
        dims.insert(dim.name.clone(), spec);
    }
    let arrays: Vec<&str> = group.vars.iter().map(|v| v.name.as_str()).collect();
    let groups: Vec<&str> = group.children.iter().map(|&c| model.groups[c].name.as_str()).collect();

    let mut zgroup = json!({"zarr_format": 2});
    if opts.layout_490 {
        if g == 0 {
            zgroup["_NCZARR_SUPERBLOCK"] = json!({"version": NCZARR_FORMAT_VERSION});
        }
        zgroup["_NCZARR_GROUP"] = json!({"dims": dims, "vars": arrays, "groups": groups});
    }
    out.push((join(&gkey, ".zgroup"), zgroup));

    let mut zattrs = Map::new();
    let (user, mut types) = encode_attrs(&group.atts, opts.pure_zarr);
    if g == 0 {
        zattrs.insert(NCPROPERTIES.into(), Value::String(opts.ncproperties.clone()));
        types.insert(NCPROPERTIES.into(), json!(">S1"));
    }
    zattrs.extend(user);
    if opts.layout_490 {
        types_for_490(&mut types);
        zattrs.insert("_NCZARR_ATTR".into(), json!({"types": types}));
    } else if !opts.pure_zarr {
        zattrs.insert(GROUP.into(), json!({"dimensions": dims, "arrays": arrays, "groups": groups}));
        types.insert(GROUP.into(), json!(JSON_DTYPE));
        if g == 0 {
            zattrs.insert(SUPERBLOCK.into(), json!({"version": NCZARR_FORMAT_VERSION}));
            types.insert(SUPERBLOCK.into(), json!(JSON_DTYPE));
        }
        types.insert(ATTR.into(), json!(JSON_DTYPE));
        zattrs.insert(ATTR.into(), json!({"types": types}));
    }
    out.push((join(&gkey, ".zattrs"), Value::Object(zattrs)));
    Ok(())
}

/// A fill value as `.zarray` writes it.
fn fill_json(fill: &Values) -> Value {
    match fill {
        Values::Char(c) => {
            let c = c.first().copied().unwrap_or(0);
            Value::String(if c == 0 { String::new() } else { String::from_utf8_lossy(&[c]).into_owned() })
        }
        other => encode_as(other, true).0,
    }
}

pub fn write_var(
    model: &Model,
    out: &mut Vec<(String, Value)>,
    g: usize,
    v: usize,
    opts: &WriteOptions,
) -> NcResult<()> {
    let var = &model.groups[g].vars[v];
    let vkey = join(&model.group_key(g), &var.name);
    let scalar = var.dimids.is_empty();
    let shape: Vec<usize> = if scalar { vec![1] } else { var.dimids.iter().map(|&d| model.dims[d].len).collect() };
    let chunks: Vec<usize> = if scalar { vec![1] } else { var.chunks.clone() };
    let width = if var.xtype == NC_STRING { string_width(model, var) } else { 1 };
    let fill = match model.effective_fill(var)? {
        _ if var.no_fill => Value::Null,
        // Pure Zarr byte strings (`|S<n>`, NC_CHAR's `|S1` too) follow the
        // Zarr v2 spec, as zarr-python reads them: base64. (netcdf-c, and
        // so NCZarr, writes the text itself.)
        Values::String(s) if opts.pure_zarr && var.utf32.is_none() => {
            json!(base64::encode(s.first().map_or(&[][..], |s| s)))
        }
        // NC_CHAR's one byte, up to a NUL.
        Values::Char(c) if opts.pure_zarr => {
            json!(base64::encode(&c[..c.iter().position(|&b| b == 0).unwrap_or(c.len())]))
        }
        fill => fill_json(&fill),
    };
    // Codecs we read are written back as they were: the chunks on disk
    // are still encoded with them.
    let (compressor, filters) = match var.codecs.split_last() {
        None => (Value::Null, Value::Null),
        Some((last, [])) => (last.clone(), Value::Null),
        Some((last, rest)) => (last.clone(), Value::Array(rest.to_vec())),
    };
    // NC_CHAR is `>S1`, netcdf-c's marker; zarr-python 3 rejects that
    // spelling, so pure Zarr (which has no char type anyway) gets `|S1`.
    let dtype = match (var.xtype, var.utf32) {
        (NC_CHAR, _) if opts.pure_zarr => "|S1".to_string(),
        (NC_CHAR, _) if opts.layout_490 => "<U1".to_string(),
        (NC_BYTE, _) if opts.layout_490 => "<i1".to_string(),
        (NC_UBYTE, _) if opts.layout_490 => "<u1".to_string(),
        (NC_STRING, Some(big)) => format!("{}U{width}", if big { '>' } else { '<' }),
        (t, _) => dtype_for(t, var.endianness, width)?,
    };
    let mut zarray = json!({
        "zarr_format": 2,
        "shape": shape,
        "dtype": dtype,
        "chunks": chunks,
        "fill_value": fill,
        // Chunks already stored keep their element order.
        "order": if var.order_f { "F" } else { "C" },
        "compressor": compressor,
        "filters": filters,
    });
    if var.dim_separator != '.' {
        zarray["dimension_separator"] = json!(var.dim_separator.to_string());
    }
    if let Some(object) = &var.object {
        // Kept as read: see `format::object`.
        zarray = super::object::zarray(object, var, &shape, &model.effective_fill(var)?);
    }
    let refs: Vec<String> = var.dimids.iter().map(|&d| model.dim_full_name(d)).collect();
    if opts.layout_490 {
        let storage = if scalar { "scalar" } else { "chunked" };
        zarray["_NCZARR_ARRAY"] = json!({"dimrefs": refs, "storage": storage});
    }
    out.push((join(&vkey, ".zarray"), zarray));

    let (mut zattrs, mut types) = encode_attrs(&var.atts, opts.pure_zarr);
    // Every variable's dimension names, wherever the dimensions live, as
    // netcdf-c 4.10 writes them (a reader makes them dimensions of the
    // variable's group); not when two have the same name, which xarray
    // refuses.
    let names_distinct = var
        .dimids
        .iter()
        .enumerate()
        .all(|(i, &d)| var.dimids[..i].iter().all(|&e| model.dims[e].name != model.dims[d].name));
    if opts.xarray_dims && names_distinct {
        // netcdf-c 4.9.0 named a scalar's dimensions [], later ones ["_scalar_"].
        let names: Vec<&str> = match (scalar, opts.layout_490) {
            (true, true) => vec![],
            (true, false) => vec!["_scalar_"],
            _ => var.dimids.iter().map(|&d| model.dims[d].name.as_str()).collect(),
        };
        zattrs.insert(XARRAY_DIMS.into(), json!(names));
    }
    if let Setting::Defined(q) = var.quantize {
        // As netcdf-c (every layout, pure Zarr too): an int with no
        // recorded type, replacing the value of a user attribute of the
        // same name. (A stored variable's is among its attributes.)
        zattrs.insert(q.algorithm.att_name().into(), json!(q.nsd));
    }
    if opts.layout_490 {
        types_for_490(&mut types);
        zattrs.insert("_NCZARR_ATTR".into(), json!({"types": types}));
    } else if !opts.pure_zarr {
        let mut array = Map::new();
        array.insert("dimension_references".into(), json!(refs));
        if scalar {
            array.insert("scalar".into(), json!(1));
        }
        array.insert("storage".into(), json!("chunked"));
        zattrs.insert(ARRAY.into(), Value::Object(array));
        types.insert(ARRAY.into(), json!(JSON_DTYPE));
        types.insert(ATTR.into(), json!(JSON_DTYPE));
        zattrs.insert(ATTR.into(), json!({"types": types}));
    }
    out.push((join(&vkey, ".zattrs"), Value::Object(zattrs)));
    Ok(())
}
