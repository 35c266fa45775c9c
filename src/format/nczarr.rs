//! The NCZarr layout of netcdf-c 4.9.3 and later: plain Zarr v2 objects
//! with the netCDF extras kept as attributes in `.zattrs`
//! (`_nczarr_superblock`, `_nczarr_group`, `_nczarr_array`,
//! `_nczarr_attr`), plus `_ARRAY_DIMENSIONS` for xarray.

use serde_json::{Map, Value, json};

use super::attrs::{JSON_DTYPE, encode};
use super::dtype::dtype_for;
use super::json;
use super::read::ZMETADATA;
use crate::error::NcResult;
use crate::model::quantize::Setting;
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

pub struct WriteOptions {
    /// `mode=zarr`: leave out the `_nczarr_*` attributes.
    pub pure_zarr: bool,
    /// Write `_ARRAY_DIMENSIONS` (xarray's dimension names).
    pub xarray_dims: bool,
    /// The `_NCProperties` text for the root group.
    pub ncproperties: String,
    /// Also write consolidated metadata (`.zmetadata`), so readers open
    /// the whole tree in one read. When off, a stale one is removed.
    pub consolidated: bool,
    /// Write netcdf-c 4.9.0's layout (`_NCZARR_*` keys in `.zgroup` and
    /// `.zarray`, NC_CHAR as `<U1`) for readers that old.
    pub layout_490: bool,
}

// ---------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------

/// Write every group's and variable's metadata. (Objects of renamed
/// variables and groups were moved when they were renamed.)
pub fn write_dataset(model: &mut Model, store: &dyn Zmap, opts: &WriteOptions) -> NcResult<()> {
    let mut out = Writer { store, consolidated: Map::new() };
    for g in 0..model.groups.len() {
        write_group(model, &mut out, g, opts)?;
        for v in 0..model.groups[g].vars.len() {
            write_var(model, &mut out, g, v, opts)?;
        }
    }
    if opts.consolidated {
        let zmetadata = json!({"metadata": out.consolidated, "zarr_consolidated_format": 1});
        store.put(ZMETADATA, &json::to_bytes(&zmetadata))?;
    } else {
        store.delete(ZMETADATA)?;
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

/// Writes metadata objects and remembers them for `.zmetadata`.
struct Writer<'a> {
    store: &'a dyn Zmap,
    consolidated: Map<String, Value>,
}

impl Writer<'_> {
    fn put(&mut self, key: &str, value: Value) -> NcResult<()> {
        self.store.put(key, &json::to_bytes(&value))?;
        self.consolidated.insert(key.to_string(), value);
        Ok(())
    }
}

/// netcdf-c 4.9.0 typed text as `<U1` where later versions write `>S1`.
fn types_for_490(types: &mut Map<String, Value>) {
    for t in types.values_mut() {
        if t == ">S1" {
            *t = json!("<U1");
        }
    }
}

fn write_group(model: &Model, out: &mut Writer, g: usize, opts: &WriteOptions) -> NcResult<()> {
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
    out.put(&join(&gkey, ".zgroup"), zgroup)?;

    let mut zattrs = Map::new();
    let (user, mut types) = encode_attrs(&group.atts);
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
    out.put(&join(&gkey, ".zattrs"), Value::Object(zattrs))
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

fn write_var(model: &Model, out: &mut Writer, g: usize, v: usize, opts: &WriteOptions) -> NcResult<()> {
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
    let refs: Vec<String> = var.dimids.iter().map(|&d| model.dim_full_name(d)).collect();
    if opts.layout_490 {
        let storage = if scalar { "scalar" } else { "chunked" };
        zarray["_NCZARR_ARRAY"] = json!({"dimrefs": refs, "storage": storage});
    }
    out.put(&join(&vkey, ".zarray"), zarray)?;

    let (mut zattrs, mut types) = encode_attrs(&var.atts);
    let all_dims_in_root = var.dimids.iter().all(|&d| model.dims[d].group == 0);
    if opts.xarray_dims && g == 0 && all_dims_in_root {
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
    out.put(&join(&vkey, ".zattrs"), Value::Object(zattrs))
}

// ---------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::NcError;
    use crate::format::read::read_dataset;
    use crate::model::attrs::put_att;
    use crate::zmap::FileMap;

    fn scratch(name: &str) -> FileMap {
        let dir = std::env::temp_dir().join(format!("nczarr-rs-fmt-{}-{name}", std::process::id()));
        FileMap::create(&dir, true).unwrap()
    }

    fn options() -> WriteOptions {
        WriteOptions {
            pure_zarr: false,
            xarray_dims: true,
            ncproperties: "version=2".into(),
            consolidated: true,
            layout_490: false,
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
    fn quantize_setting_is_an_untyped_attribute() {
        use crate::model::quantize::{NC_QUANTIZE_BITROUND, Quantize};
        let store = scratch("quantize");
        let mut m = sample_model();
        m.def_var_quantize(0, 0, NC_QUANTIZE_BITROUND, 9).unwrap();
        let name = "_QuantizeBitRoundNumberOfSignificantBits";
        assert!(m.var(0, 0).unwrap().atts.iter().all(|a| a.name != name), "not listed in this session");
        write_dataset(&mut m, &store, &options()).unwrap();
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
        };
        write_dataset(&mut m, &store, &opts).unwrap();
        let root = json::parse(&store.get(".zattrs").unwrap().unwrap()).unwrap();
        assert!(root.get(SUPERBLOCK).is_none() && root.get(GROUP).is_none());
        let v = json::parse(&store.get("v/.zattrs").unwrap().unwrap()).unwrap();
        assert_eq!(v[XARRAY_DIMS], json!(["t", "x"]));
        assert!(v.get(ARRAY).is_none() && v.get(ATTR).is_none());
        store.destroy().unwrap();
    }

    #[test]
    fn consolidated_metadata_is_used_while_current() {
        let store = scratch("consolidated");
        let mut m = sample_model();
        write_dataset(&mut m, &store, &options()).unwrap();
        assert!(store.get(ZMETADATA).unwrap().is_some());
        // Proof that .zmetadata is what is read: the object can go.
        store.delete("v/.zarray").unwrap();
        assert_eq!(read_dataset(&store, false).unwrap().model.var(0, 0).unwrap().name, "v");
        // A root changed behind its back makes it stale: ignored.
        store
            .put(".zattrs", br#"{"_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"arrays": ["v"]}}"#)
            .unwrap();
        assert_eq!(read_dataset(&store, false).err(), Some(NcError::ENCZARR), "v/.zarray is gone");
        // Writing without consolidation removes a stale .zmetadata.
        let opts = WriteOptions { consolidated: false, ..options() };
        write_dataset(&mut m, &store, &opts).unwrap();
        assert!(store.get(ZMETADATA).unwrap().is_none());
        store.destroy().unwrap();
    }

    #[test]
    fn malformed_metadata_is_an_error() {
        let store = scratch("bad");
        let mut m = sample_model();
        let opts = WriteOptions { consolidated: false, ..options() };
        write_dataset(&mut m, &store, &opts).unwrap();
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
}
