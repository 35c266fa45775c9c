//! The NCZarr layout of netcdf-c 4.9.3 and later: plain Zarr v2 objects
//! with the netCDF extras kept as attributes in `.zattrs`
//! (`_nczarr_superblock`, `_nczarr_group`, `_nczarr_array`,
//! `_nczarr_attr`), plus `_ARRAY_DIMENSIONS` for xarray.

use serde_json::{Map, Value, json};

use super::attrs::{JSON_DTYPE, decode_inferred, decode_typed, encode};
use super::dtype::{dtype_for, parse_dtype};
use super::json;
use crate::error::{NcError, NcResult};
use crate::model::attrs::FILL_VALUE;
use crate::model::{Attr, Model, Values, Var};
use crate::types::*;
use crate::zmap::{Zmap, join};

pub const NCZARR_FORMAT_VERSION: &str = "2.0.0";
const SUPERBLOCK: &str = "_nczarr_superblock";
const GROUP: &str = "_nczarr_group";
const ARRAY: &str = "_nczarr_array";
const ATTR: &str = "_nczarr_attr";
const XARRAY_DIMS: &str = "_ARRAY_DIMENSIONS";
const NCPROPERTIES: &str = "_NCProperties";
const MAXSTRLEN: &str = "_nczarr_maxstrlen";
const DEFAULT_MAXSTRLEN: &str = "_nczarr_default_maxstrlen";
/// Width of NC_STRING values when no attribute sets one (netcdf-c's).
pub const DEFAULT_STRING_WIDTH: usize = 128;

/// Keys in `.zattrs` that are the format's, not the user's.
fn is_format_key(key: &str) -> bool {
    matches!(key, SUPERBLOCK | GROUP | ARRAY | ATTR | XARRAY_DIMS | NCPROPERTIES)
}

pub struct WriteOptions {
    /// `mode=zarr`: leave out the `_nczarr_*` attributes.
    pub pure_zarr: bool,
    /// Write `_ARRAY_DIMENSIONS` (xarray's dimension names).
    pub xarray_dims: bool,
    /// The `_NCProperties` text for the root group.
    pub ncproperties: String,
}

// ---------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------

/// Write every group's and variable's metadata. (Objects of renamed
/// variables and groups were moved when they were renamed.)
pub fn write_dataset(model: &mut Model, store: &dyn Zmap, opts: &WriteOptions) -> NcResult<()> {
    for g in 0..model.groups.len() {
        write_group(model, store, g, opts)?;
        for v in 0..model.groups[g].vars.len() {
            write_var(model, store, g, v, opts)?;
        }
    }
    for g in 0..model.groups.len() {
        model.groups[g].stored_path = Some(model.group_key(g));
        let gkey = model.group_key(g);
        for var in &mut model.groups[g].vars {
            var.stored_path = Some(join(&gkey, &var.name));
        }
    }
    model.dirty = false;
    Ok(())
}

/// User attributes as a JSON map, with their recorded types.
fn encode_attrs(atts: &[Attr]) -> (Map<String, Value>, Map<String, Value>) {
    let mut values = Map::new();
    let mut types = Map::new();
    for att in atts {
        let (value, dtype) = encode(&att.values);
        values.insert(att.name.clone(), value);
        types.insert(att.name.clone(), Value::String(dtype));
    }
    (values, types)
}

fn write_json(store: &dyn Zmap, key: &str, value: &Value) -> NcResult<()> {
    store.put(key, &json::to_bytes(value))
}

fn write_group(model: &Model, store: &dyn Zmap, g: usize, opts: &WriteOptions) -> NcResult<()> {
    let group = &model.groups[g];
    let gkey = model.group_key(g);
    write_json(store, &join(&gkey, ".zgroup"), &json!({"zarr_format": 2}))?;

    let mut zattrs = Map::new();
    let (user, mut types) = encode_attrs(&group.atts);
    if g == 0 {
        zattrs.insert(NCPROPERTIES.into(), Value::String(opts.ncproperties.clone()));
        types.insert(NCPROPERTIES.into(), json!(">S1"));
    }
    zattrs.extend(user);
    if !opts.pure_zarr {
        let mut dims = Map::new();
        for &d in &group.dims {
            let dim = &model.dims[d];
            let spec = if dim.unlimited { json!({"size": dim.len, "unlimited": 1}) } else { json!(dim.len) };
            dims.insert(dim.name.clone(), spec);
        }
        let arrays: Vec<&str> = group.vars.iter().map(|v| v.name.as_str()).collect();
        let groups: Vec<&str> = group.children.iter().map(|&c| model.groups[c].name.as_str()).collect();
        zattrs.insert(GROUP.into(), json!({"dimensions": dims, "arrays": arrays, "groups": groups}));
        types.insert(GROUP.into(), json!(JSON_DTYPE));
        if g == 0 {
            zattrs.insert(SUPERBLOCK.into(), json!({"version": NCZARR_FORMAT_VERSION}));
            types.insert(SUPERBLOCK.into(), json!(JSON_DTYPE));
        }
        types.insert(ATTR.into(), json!(JSON_DTYPE));
        zattrs.insert(ATTR.into(), json!({"types": types}));
    }
    write_json(store, &join(&gkey, ".zattrs"), &Value::Object(zattrs))
}

/// The fixed width NC_STRING values are stored with.
pub fn string_width(model: &Model, var: &Var) -> usize {
    let int_att = |atts: &[Attr], name: &str| {
        atts.iter().find(|a| a.name == name).and_then(|a| match a.values.convert_to(NC_INT64) {
            Ok((Values::Int64(v), _)) => v.first().copied().filter(|&n| n > 0).map(|n| n as usize),
            _ => None,
        })
    };
    var.string_width
        .or_else(|| int_att(&var.atts, MAXSTRLEN))
        .or_else(|| int_att(&model.groups[0].atts, DEFAULT_MAXSTRLEN))
        .unwrap_or(DEFAULT_STRING_WIDTH)
}

/// A fill value as `.zarray` writes it.
fn fill_json(fill: &Values) -> Value {
    match fill {
        Values::Char(c) => {
            let c = c.first().copied().unwrap_or(0);
            Value::String(if c == 0 { String::new() } else { String::from_utf8_lossy(&[c]).into_owned() })
        }
        other => encode(other).0,
    }
}

fn write_var(model: &Model, store: &dyn Zmap, g: usize, v: usize, opts: &WriteOptions) -> NcResult<()> {
    let var = &model.groups[g].vars[v];
    let vkey = join(&model.group_key(g), &var.name);
    let scalar = var.dimids.is_empty();
    let shape: Vec<usize> = if scalar { vec![1] } else { var.dimids.iter().map(|&d| model.dims[d].len).collect() };
    let chunks: Vec<usize> = if scalar { vec![1] } else { var.chunks.clone() };
    let width = if var.xtype == NC_STRING { string_width(model, var) } else { 1 };
    let fill = if var.no_fill { Value::Null } else { fill_json(&model.effective_fill(var)?) };
    // Codecs we read are written back as they were: the chunks on disk
    // are still encoded with them.
    let (compressor, filters) = match var.codecs.split_last() {
        None => (Value::Null, Value::Null),
        Some((last, [])) => (last.clone(), Value::Null),
        Some((last, rest)) => (last.clone(), Value::Array(rest.to_vec())),
    };
    let mut zarray = json!({
        "zarr_format": 2,
        "shape": shape,
        "dtype": dtype_for(var.xtype, var.endianness, width)?,
        "chunks": chunks,
        "fill_value": fill,
        "order": "C",
        "compressor": compressor,
        "filters": filters,
    });
    if var.dim_separator != '.' {
        zarray["dimension_separator"] = json!(var.dim_separator.to_string());
    }
    write_json(store, &join(&vkey, ".zarray"), &zarray)?;

    let (mut zattrs, mut types) = encode_attrs(&var.atts);
    let all_dims_in_root = var.dimids.iter().all(|&d| model.dims[d].group == 0);
    if opts.xarray_dims && g == 0 && all_dims_in_root {
        let names: Vec<&str> =
            if scalar { vec!["_scalar_"] } else { var.dimids.iter().map(|&d| model.dims[d].name.as_str()).collect() };
        zattrs.insert(XARRAY_DIMS.into(), json!(names));
    }
    if !opts.pure_zarr {
        let refs: Vec<String> = var.dimids.iter().map(|&d| model.dim_full_name(d)).collect();
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
    write_json(store, &join(&vkey, ".zattrs"), &Value::Object(zattrs))
}

// ---------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------

pub struct ReadResult {
    pub model: Model,
    /// The root group's `_NCProperties`, if present.
    pub ncproperties: Option<String>,
}

fn read_json(store: &dyn Zmap, key: &str) -> NcResult<Option<Value>> {
    match store.get(key)? {
        Some(bytes) => json::parse(&bytes).map(Some),
        None => Ok(None),
    }
}

fn read_object(store: &dyn Zmap, key: &str) -> NcResult<Map<String, Value>> {
    match read_json(store, key)? {
        None => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(NcError::ENCZARR),
    }
}

/// `key` or its older spelling.
fn field<'a>(m: &'a Map<String, Value>, key: &str, alias: &str) -> Option<&'a Value> {
    m.get(key).or_else(|| m.get(alias))
}

fn as_usize(v: &Value) -> NcResult<usize> {
    v.as_u64().map(|n| n as usize).ok_or(NcError::ENCZARR)
}

fn usize_list(v: Option<&Value>) -> NcResult<Vec<usize>> {
    match v {
        Some(Value::Array(items)) => items.iter().map(as_usize).collect(),
        _ => Err(NcError::ENCZARR),
    }
}

fn name_list(v: Option<&Value>) -> NcResult<Vec<String>> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => {
            items.iter().map(|i| i.as_str().map(str::to_string).ok_or(NcError::ENCZARR)).collect()
        }
        Some(_) => Err(NcError::ENCZARR),
    }
}

/// Read a dataset written in the current NCZarr layout.
pub fn read_dataset(store: &dyn Zmap, writable: bool) -> NcResult<ReadResult> {
    if store.get(".zgroup")?.is_none() {
        return Err(NcError::ENOTNC);
    }
    let root_attrs = read_object(store, ".zattrs")?;
    if !root_attrs.contains_key(SUPERBLOCK) {
        // Older NCZarr layouts and pure Zarr are read by the interop
        // readers; this reader knows only the current layout.
        return Err(NcError::ENOTNC);
    }
    let ncproperties = root_attrs.get(NCPROPERTIES).and_then(|v| v.as_str()).map(str::to_string);
    let mut model = Model::new(writable);
    let mut pending_vars = Vec::new();
    read_group(store, &mut model, 0, root_attrs, &mut pending_vars)?;
    for (g, name) in pending_vars {
        read_var(store, &mut model, g, &name)?;
    }
    for g in 0..model.groups.len() {
        model.groups[g].stored_path = Some(model.group_key(g));
    }
    Ok(ReadResult { model, ncproperties })
}

/// Decode the user attributes of a `.zattrs` map.
fn user_attrs(zattrs: &Map<String, Value>, fill_type: Option<NcType>) -> NcResult<Vec<Attr>> {
    let types = zattrs.get(ATTR).and_then(|a| a.get("types")).and_then(|t| t.as_object());
    let mut out = Vec::new();
    for (name, value) in zattrs {
        if is_format_key(name) {
            continue;
        }
        let values = match (name.as_str(), fill_type, types.and_then(|t| t.get(name)).and_then(|t| t.as_str())) {
            (FILL_VALUE, Some(t), _) => decode_typed(value, &dtype_for(t, NC_ENDIAN_NATIVE, 1)?)?,
            (_, _, Some(dtype)) => decode_typed(value, dtype)?,
            _ => decode_inferred(value)?,
        };
        out.push(Attr { name: name.clone(), values });
    }
    Ok(out)
}

fn read_group(
    store: &dyn Zmap,
    model: &mut Model,
    g: usize,
    zattrs: Map<String, Value>,
    pending_vars: &mut Vec<(usize, String)>,
) -> NcResult<()> {
    let info = zattrs.get(GROUP).and_then(|v| v.as_object()).ok_or(NcError::ENCZARR)?;
    if let Some(dims) = field(info, "dimensions", "dims") {
        let dims = dims.as_object().ok_or(NcError::ENCZARR)?;
        for (name, spec) in dims {
            let (len, unlimited) = match spec {
                Value::Object(o) => (
                    o.get("size").map(as_usize).transpose()?.unwrap_or(0),
                    o.get("unlimited").and_then(|u| u.as_u64()).unwrap_or(0) != 0,
                ),
                other => (as_usize(other)?, false),
            };
            let dimid = model.dims.len();
            model.dims.push(crate::model::Dim { name: name.clone(), len, unlimited, group: g });
            model.groups[g].dims.push(dimid);
        }
    }
    model.groups[g].atts = user_attrs(&zattrs, None)?;
    for name in name_list(field(info, "arrays", "vars"))? {
        pending_vars.push((g, name));
    }
    for name in name_list(info.get("groups"))? {
        crate::model::names::check_name(name.as_bytes()).map_err(|_| NcError::ENCZARR)?;
        let child = model.groups.len();
        model.groups.push(crate::model::Group {
            name: name.clone(),
            parent: Some(g),
            children: Vec::new(),
            dims: Vec::new(),
            vars: Vec::new(),
            atts: Vec::new(),
            stored_path: None,
        });
        model.groups[g].children.push(child);
        let key = model.group_key(child);
        let child_attrs = read_object(store, &join(&key, ".zattrs"))?;
        read_group(store, model, child, child_attrs, pending_vars)?;
    }
    Ok(())
}

fn read_var(store: &dyn Zmap, model: &mut Model, g: usize, name: &str) -> NcResult<()> {
    crate::model::names::check_name(name.as_bytes()).map_err(|_| NcError::ENCZARR)?;
    let vkey = join(&model.group_key(g), name);
    let zarray = read_object(store, &join(&vkey, ".zarray"))?;
    let zattrs = read_object(store, &join(&vkey, ".zattrs"))?;
    let dtype = parse_dtype(zarray.get("dtype").and_then(|d| d.as_str()).ok_or(NcError::ENCZARR)?)?;
    let shape = usize_list(zarray.get("shape"))?;
    let chunks = usize_list(zarray.get("chunks"))?;
    let info = zattrs.get(ARRAY).and_then(|v| v.as_object()).ok_or(NcError::ENCZARR)?;
    let refs = name_list(field(info, "dimension_references", "dimrefs"))?;
    let scalar = refs.is_empty();
    if chunks.len() != shape.len() || (!scalar && refs.len() != shape.len()) {
        return Err(NcError::ENCZARR);
    }
    let mut dimids = Vec::with_capacity(refs.len());
    for (i, r) in refs.iter().enumerate() {
        let d = model.find_dim(0, r).map_err(|_| NcError::ENCZARR)?;
        let dim = &mut model.dims[d];
        if dim.unlimited {
            dim.len = dim.len.max(shape[i]);
        } else if dim.len != shape[i] {
            return Err(NcError::ENCZARR);
        }
        dimids.push(d);
    }
    let (no_fill, fill) = match zarray.get("fill_value") {
        // netcdf-c reports zeros as the fill value of a NOFILL variable it
        // opened (and reads zeros where nothing was written).
        None | Some(Value::Null) => (true, zero_of(dtype.xtype)?),
        Some(v) => (false, decode_fill(v, dtype.xtype)?),
    };
    let var = Var {
        name: name.to_string(),
        xtype: dtype.xtype,
        dimids,
        atts: user_attrs(&zattrs, Some(dtype.xtype))?,
        chunks: if scalar { Vec::new() } else { chunks },
        no_fill,
        fill: Some(fill),
        endianness: dtype.endianness,
        created: true,
        written: false,
        stored_path: Some(vkey),
        string_width: (dtype.xtype == NC_STRING).then_some(dtype.width),
        codecs: read_codecs(&zarray)?,
        dim_separator: read_separator(&zarray)?,
    };
    model.groups[g].vars.push(var);
    Ok(())
}

/// The codec chain of an array: its `filters`, then its `compressor`.
fn read_codecs(zarray: &Map<String, Value>) -> NcResult<Vec<Value>> {
    let mut chain = match zarray.get("filters") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.clone(),
        Some(_) => return Err(NcError::ENCZARR),
    };
    match zarray.get("compressor") {
        None | Some(Value::Null) => {}
        Some(c @ Value::Object(_)) => chain.push(c.clone()),
        Some(_) => return Err(NcError::ENCZARR),
    }
    Ok(chain)
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
fn decode_fill(v: &Value, xtype: NcType) -> NcResult<Values> {
    match xtype {
        NC_CHAR => {
            let s = v.as_str().ok_or(NcError::ENCZARR)?;
            Ok(Values::Char(vec![s.as_bytes().first().copied().unwrap_or(0)]))
        }
        NC_STRING => Ok(Values::String(vec![v.as_str().unwrap_or("").as_bytes().to_vec()])),
        t => decode_typed(v, &dtype_for(t, NC_ENDIAN_NATIVE, 1)?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::attrs::put_att;
    use crate::zmap::FileMap;

    fn scratch(name: &str) -> FileMap {
        let dir = std::env::temp_dir().join(format!("nczarr-rs-fmt-{}-{name}", std::process::id()));
        FileMap::create(&dir, true).unwrap()
    }

    fn options() -> WriteOptions {
        WriteOptions { pure_zarr: false, xarray_dims: true, ncproperties: "version=2".into() }
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

    #[test]
    fn write_then_read_gives_the_same_model() {
        let store = scratch("roundtrip");
        let mut written = sample_model();
        write_dataset(&mut written, &store, &options()).unwrap();
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
    fn pure_zarr_leaves_out_nczarr_keys() {
        let store = scratch("pure");
        let mut m = sample_model();
        let opts = WriteOptions { pure_zarr: true, xarray_dims: true, ncproperties: "p".into() };
        write_dataset(&mut m, &store, &opts).unwrap();
        let root = json::parse(&store.get(".zattrs").unwrap().unwrap()).unwrap();
        assert!(root.get(SUPERBLOCK).is_none() && root.get(GROUP).is_none());
        let v = json::parse(&store.get("v/.zattrs").unwrap().unwrap()).unwrap();
        assert_eq!(v[XARRAY_DIMS], json!(["t", "x"]));
        assert!(v.get(ARRAY).is_none() && v.get(ATTR).is_none());
        store.destroy().unwrap();
    }

    #[test]
    fn malformed_metadata_is_an_error() {
        let store = scratch("bad");
        let mut m = sample_model();
        write_dataset(&mut m, &store, &options()).unwrap();
        store.put("v/.zarray", br#"{"shape": [0, 5], "dtype": "<f8", "chunks": [1, 4]}"#).unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::ENCZARR), "shape disagrees with x");
        store.put("v/.zarray", br#"{"shape": [0, 4], "dtype": "<c16", "chunks": [1, 4]}"#).unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::EBADTYPE));
        store.put("v/.zarray", b"[1, 2").unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::ENCZARR));
        store.delete(".zgroup").unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::ENOTNC));
        store.destroy().unwrap();
    }
}
