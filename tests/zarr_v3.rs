//! Zarr v3 stores read over an in-memory store: the documents as
//! zarr-python 3 writes them, written here by hand so that each rule
//! (consolidated metadata, dimension names, chunk keys, fill values,
//! codecs, unknown extensions) and each kind of bad input is one case.
//! (tests/v3/ reads what zarr-python and xarray really write.)

use netcdf::dataset::Dataset;
use netcdf::error::NcError;
use netcdf::io::{Access, Selection, engine};
use netcdf::model::Values;
use netcdf::types::*;
use netcdf::zmap::{MemoryMap, Zmap};
use serde_json::{Value, json};

fn store(objects: &[(&str, Vec<u8>)]) -> MemoryMap {
    MemoryMap::from_objects(objects.iter().map(|(k, v)| (k.to_string(), v.clone()))).unwrap()
}

fn doc(v: Value) -> Vec<u8> {
    serde_json::to_vec(&v).unwrap()
}

fn root(attrs: Value) -> Vec<u8> {
    doc(json!({"attributes": attrs, "zarr_format": 3, "node_type": "group"}))
}

/// An array document as zarr-python writes it, with overrides.
fn array(shape: &[usize], chunks: &[usize], data_type: &str, fill: Value, extra: Value) -> Value {
    let mut a = json!({
        "shape": shape, "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "attributes": {}, "zarr_format": 3, "node_type": "array", "storage_transformers": []
    });
    for (k, v) in extra.as_object().unwrap() {
        a[k] = v.clone();
    }
    a
}

fn le_i32(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn open(objects: &[(&str, Vec<u8>)]) -> Result<Dataset, NcError> {
    Dataset::open_store("mem.zarr#mode=zarr", Box::new(store(objects)), 0)
}

/// The whole variable `varid` of the root group as ints.
fn ints(ds: Dataset, varid: i32) -> Result<Vec<i32>, NcError> {
    let var = &ds.model.groups[0].vars[varid as usize];
    let shape: Vec<usize> = var.dimids.iter().map(|&d| ds.model.dims[d].len).collect();
    let dims: Vec<_> = shape.iter().map(|&len| netcdf::io::selection::Extent { len, unlimited: false }).collect();
    let zeros = vec![0; shape.len()];
    let sel = Selection::check(&dims, Some(&zeros), None, None, None, Access::Read).unwrap();
    let mut out = vec![0i32; sel.len()];
    let shared = std::sync::Mutex::new(ds);
    let select = |_: &Dataset| Ok(sel.clone());
    // SAFETY: `out` holds the whole selection as ints.
    unsafe { engine::read(&shared, 0, varid, NC_INT, out.as_mut_ptr() as *mut u8, select) }?;
    Ok(out)
}

#[test]
fn arrays_dimensions_and_chunk_keys() {
    let t = array(&[5, 4], &[2, 3], "int32", json!(-1), json!({"dimension_names": ["y", "x"]}));
    let v2keys = array(
        &[2, 3],
        &[1, 3],
        "int32",
        json!(0),
        json!({"chunk_key_encoding": {"name": "v2", "configuration": {"separator": "."}},
               "dimension_names": [null, "x3"]}),
    );
    // zarr-python pads edge chunks to full size; chunk c/2/1 is missing.
    let mut objects = vec![
        ("zarr.json", root(json!({"title": "t"}))),
        ("t/zarr.json", doc(t)),
        ("k/zarr.json", doc(v2keys)),
        ("k/0.0", le_i32(&[1, 2, 3])),
        ("k/1.0", le_i32(&[4, 5, 6])),
    ];
    for (i, j) in [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)] {
        let chunk: Vec<i32> = (0..6).map(|e| (i * 2 + e / 3) * 4 + j * 3 + e % 3).collect();
        objects.push((Box::leak(format!("t/c/{i}/{j}").into_boxed_str()), le_i32(&chunk)));
    }
    let ds = open(&objects).unwrap();
    let m = &ds.model;
    let names: Vec<&str> = m.groups[0].vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["k", "t"]);
    let dim_names: Vec<&str> = m.dims.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(dim_names, ["_Anonymous_Dim_2", "x3", "y", "x"]);
    let values = ints(ds, 1).unwrap();
    // Element (4, 3) is in the missing chunk c/2/1: fill.
    let mut want: Vec<i32> = (0..20).collect();
    want[19] = -1;
    assert_eq!(values, want);
    assert_eq!(ints(open(&objects).unwrap(), 0).unwrap(), [1, 2, 3, 4, 5, 6]);
}

#[test]
fn consolidated_metadata_is_used() {
    let a = array(&[2], &[2], "int32", json!(7), json!({"dimension_names": ["n"]}));
    let mut rootdoc: Value = serde_json::from_slice(&root(json!({}))).unwrap();
    rootdoc["consolidated_metadata"] = json!({"kind": "inline", "must_understand": false, "metadata": {
        "g": {"attributes": {"a": 1}, "zarr_format": 3, "node_type": "group",
              "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {}}},
        "g/a": a}});
    // Only the root document is in the store: every node comes from it.
    let ds = open(&[("zarr.json", doc(rootdoc)), ("g/a/c/0", le_i32(&[3, 4]))]).unwrap();
    assert_eq!(ds.model.groups.len(), 2);
    assert_eq!(ds.model.groups[1].vars[0].name, "a");
    let ds =
        Dataset::open_store("mem.zarr#mode=zarr,noconsolidated", Box::new(store(&[("zarr.json", root(json!({})))])), 0)
            .unwrap();
    assert_eq!(ds.model.groups.len(), 1, "noconsolidated reads the (empty) store itself");
}

#[test]
fn codecs_fill_values_and_attributes() {
    let crc = |data: &[u8]| {
        let mut out = data.to_vec();
        out.extend_from_slice(&crc32c(data).to_le_bytes());
        out
    };
    let checked = array(
        &[3],
        &[3],
        "int32",
        json!(0),
        json!({"codecs": [{"name": "bytes", "configuration": {"endian": "big"}}, {"name": "crc32c"}],
               "dimension_names": ["n"],
               "attributes": {"_FillValue": 0, "units": "m", "_ARRAY_DIMENSIONS": ["n"]}}),
    );
    let be: Vec<u8> = [1i32, -2, 3].iter().flat_map(|x| x.to_be_bytes()).collect();
    let objects = vec![
        ("zarr.json", root(json!({"nan": "NaN", "big": 9223372036854775807i64}))),
        ("c/zarr.json", doc(checked.clone())),
        ("c/c/0", crc(&be)),
    ];
    let ds = open(&objects).unwrap();
    let var = &ds.model.groups[0].vars[0];
    assert_eq!(var.endianness, NC_ENDIAN_BIG);
    let atts: Vec<&str> = var.atts.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(atts, ["_FillValue", "units"], "_ARRAY_DIMENSIONS hidden");
    assert_eq!(ints(ds, 0).unwrap(), [1, -2, 3]);
    // A flipped byte: the checksum refuses the chunk.
    let mut bad = crc(&be);
    bad[2] ^= 1;
    let objects = vec![("zarr.json", root(json!({}))), ("c/zarr.json", doc(checked)), ("c/c/0", bad)];
    assert_eq!(ints(open(&objects).unwrap(), 0), Err(NcError::EFILTER));
    // xarray's float _FillValue, and hex NaN payloads.
    let f = array(
        &[1],
        &[1],
        "float64",
        json!("0x7ff8000000000001"),
        json!({"attributes": {"_FillValue": "AAAAAAAA+H8="}}),
    );
    let ds = open(&[("zarr.json", root(json!({}))), ("f/zarr.json", doc(f))]).unwrap();
    let var = &ds.model.groups[0].vars[0];
    let Some(Values::Double(fill)) = &var.fill else { panic!("{:?}", var.fill) };
    assert_eq!(fill[0].to_bits(), 0x7ff8_0000_0000_0001);
    let Values::Double(cf) = &var.atts[0].values else { panic!() };
    assert!(cf[0].is_nan());
}

/// A CRC-32C, bit by bit (the library's comes from a crate).
fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0x82f6_3b78 } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn what_cannot_be_read_costs_only_its_data() {
    let cases = [
        ("complex", array(&[2], &[2], "complex64", json!([0, 0]), json!({})), NcError::EBADTYPE),
        (
            "big-endian shard index",
            array(
                &[2],
                &[2],
                "int32",
                json!(0),
                json!({"codecs": [{"name": "sharding_indexed", "configuration": {
                    "chunk_shape": [1], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                    "index_codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]}}]}),
            ),
            NcError::ENOFILTER,
        ),
        ("extension", array(&[2], &[2], "int32", json!(0), json!({"future": {"x": 1}})), NcError::ENOFILTER),
        (
            "transformers",
            array(&[2], &[2], "int32", json!(0), json!({"storage_transformers": [{"name": "t"}]})),
            NcError::ENOFILTER,
        ),
        (
            "unknown-codec",
            array(
                &[2],
                &[2],
                "int32",
                json!(0),
                json!({"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "mystery"}]}),
            ),
            NcError::ENOFILTER,
        ),
    ];
    for (name, a, code) in cases {
        let ds = open(&[("zarr.json", root(json!({}))), ("a/zarr.json", doc(a)), ("a/c/0", vec![0; 8])])
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(ds.model.groups[0].vars.len(), 1, "{name}");
        assert_eq!(ints(ds, 0), Err(code), "{name}");
    }
    // A must_understand: false extension is ignored.
    let fine = array(&[2], &[2], "int32", json!(5), json!({"future": {"must_understand": false}}));
    assert_eq!(ints(open(&[("zarr.json", root(json!({}))), ("a/zarr.json", doc(fine))]).unwrap(), 0).unwrap(), [5, 5]);
}

#[test]
fn bad_documents() {
    let good = array(&[2], &[2], "int32", json!(0), json!({}));
    let edit = |f: &dyn Fn(&mut Value)| {
        let mut a = good.clone();
        f(&mut a);
        a
    };
    let arrays = [
        edit(&|a| a["zarr_format"] = json!(2)),
        edit(&|a| a["node_type"] = json!("table")),
        edit(&|a| a["shape"] = json!([-1])),
        edit(&|a| a["chunk_grid"]["configuration"]["chunk_shape"] = json!([0])),
        edit(&|a| a["chunk_grid"]["configuration"]["chunk_shape"] = json!([1, 1])),
        edit(&|a| a["chunk_grid"]["name"] = json!("rectilinear")),
        edit(&|a| a["chunk_key_encoding"] = json!({"name": "v9"})),
        edit(&|a| a["chunk_key_encoding"]["configuration"]["separator"] = json!("-")),
        edit(&|a| a["codecs"] = json!([])),
        edit(&|a| a["codecs"] = json!([{"name": "zstd"}])),
        edit(&|a| a["data_type"] = json!(7)),
        edit(&|a| a["dimension_names"] = json!("x")),
        edit(&|a| {
            a.as_object_mut().unwrap().remove("fill_value");
        }),
    ];
    for (i, a) in arrays.into_iter().enumerate() {
        let got = open(&[("zarr.json", root(json!({}))), ("a/zarr.json", doc(a.clone()))]);
        assert_eq!(got.err(), Some(NcError::ENCZARR), "case {i}: {a}");
    }
    let roots: [(&[u8], NcError); 5] = [
        (b"{not json", NcError::ENCZARR),
        (br#"{"zarr_format": 3}"#, NcError::ENCZARR),
        (br#"{"zarr_format": 4, "node_type": "group"}"#, NcError::ENCZARR),
        (br#"[1, 2]"#, NcError::ENCZARR),
        // A root array: a netCDF dataset is a group.
        (br#"{"zarr_format": 3, "node_type": "array"}"#, NcError::ENOTNC),
    ];
    for (bytes, code) in roots {
        assert_eq!(open(&[("zarr.json", bytes.to_vec())]).err(), Some(code), "{}", String::from_utf8_lossy(bytes));
    }
    let mut bad_consolidated: Value = serde_json::from_slice(&root(json!({}))).unwrap();
    bad_consolidated["consolidated_metadata"] = json!({"kind": "inline", "metadata": {"/abs": {}}});
    assert_eq!(open(&[("zarr.json", doc(bad_consolidated))]).err(), Some(NcError::ENCZARR));
    // A child name that is no netCDF name (or could leave the root).
    let mut escaping: Value = serde_json::from_slice(&root(json!({}))).unwrap();
    escaping["consolidated_metadata"] =
        json!({"kind": "inline", "metadata": {"a/../../b": array(&[1], &[1], "int8", json!(0), json!({}))}});
    assert!(open(&[("zarr.json", doc(escaping))]).is_ok_and(|ds| ds.model.groups[0].vars.is_empty()));
}

#[test]
fn half_floats_read_as_floats() {
    // 1.0, -2.0, 65504.0 as big-endian halves.
    let h = array(
        &[3],
        &[3],
        "float16",
        json!("NaN"),
        json!({"codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]}),
    );
    let chunk = vec![0x3c, 0x00, 0xc0, 0x00, 0x7b, 0xff];
    let ds = open(&[("zarr.json", root(json!({}))), ("h/zarr.json", doc(h.clone())), ("h/c/0", chunk)]).unwrap();
    assert_eq!(ds.model.groups[0].vars[0].xtype, NC_FLOAT);
    assert_eq!(ints(ds, 0).unwrap(), [1, -2, 65504]);
    // A chunk of the size of floats, not halves, is refused.
    let ds = open(&[("zarr.json", root(json!({}))), ("h/zarr.json", doc(h)), ("h/c/0", vec![0; 12])]).unwrap();
    assert_eq!(ints(ds, 0), Err(NcError::ENCZARR));
}

/// A sharded array (index at the end, with its CRC-32C): inner chunks read
/// by range, empty slots and missing shards as fill; a damaged index or a
/// slot past the shard's end is an error, never values.
#[test]
fn shards() {
    let a = array(
        &[6],
        &[4],
        "int32",
        json!(-1),
        json!({"codecs": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            "index_location": "end"}}]}),
    );
    // Shard 0: inner chunk 1 (values 3, 4) first, chunk 0 empty.
    let shard = |slots: [u64; 4]| {
        let mut out = le_i32(&[3, 4]);
        let index: Vec<u8> = slots.iter().flat_map(|v| v.to_le_bytes()).collect();
        out.extend_from_slice(&index);
        out.extend_from_slice(&crc32c(&index).to_le_bytes());
        out
    };
    let e = u64::MAX;
    let objects = |s0: Vec<u8>| vec![("zarr.json", root(json!({}))), ("a/zarr.json", doc(a.clone())), ("a/c/0", s0)];
    assert_eq!(ints(open(&objects(shard([e, e, 0, 8]))).unwrap(), 0).unwrap(), [-1, -1, 3, 4, -1, -1]);
    let mut bad_crc = shard([e, e, 0, 8]);
    bad_crc[10] ^= 1;
    assert_eq!(ints(open(&objects(bad_crc)).unwrap(), 0), Err(NcError::ENCZARR));
    for slots in [[e, e, 0, 1 << 40], [e, e, 100, 8], [e, e, 0, 4]] {
        assert!(ints(open(&objects(shard(slots))).unwrap(), 0).is_err(), "{slots:?}");
    }
    assert_eq!(ints(open(&objects(vec![1, 2, 3])).unwrap(), 0), Err(NcError::ENCZARR), "shorter than its index");
}

#[test]
fn ncproperties_names_the_nczarr_format_version_written() {
    let dir = std::env::temp_dir().join(format!("nczarr-rs-ncprops-{}", std::process::id()));
    for (mode, object, version) in [("nczarr,v3", "zarr.json", "nczarr=3.0.0"), ("nczarr", ".zattrs", "nczarr=2.0.0")] {
        let path = dir.join(mode.replace(',', "-"));
        let mut ds = Dataset::create(&format!("file://{}#mode={mode},file", path.display()), 0).unwrap();
        ds.close().unwrap();
        let doc: Value = serde_json::from_slice(&std::fs::read(path.join(object)).unwrap()).unwrap();
        let attrs = if object == "zarr.json" { &doc["attributes"] } else { &doc };
        let props = attrs["_NCProperties"].as_str().unwrap();
        assert!(props.contains(version), "{mode}: {props}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A shard laid out as zarr-python lays one out: the inner chunks in
/// order, the index (with its CRC-32C, if `crc`) after them or before.
fn pack(chunks: &[Option<Vec<u8>>], at_end: bool, crc: bool) -> Vec<u8> {
    let size = chunks.len() * 16 + if crc { 4 } else { 0 };
    let (mut data, mut index) = (Vec::new(), Vec::new());
    for chunk in chunks {
        let (offset, len) = match chunk {
            Some(c) => ((data.len() + if at_end { 0 } else { size }) as u64, c.len() as u64),
            None => (u64::MAX, u64::MAX),
        };
        index.extend(offset.to_le_bytes().into_iter().chain(len.to_le_bytes()));
        data.extend_from_slice(chunk.as_deref().unwrap_or_default());
    }
    if crc {
        index.extend(crc32c(&index).to_le_bytes());
    }
    if at_end { [data, index].concat() } else { [index, data].concat() }
}

fn sharding(chunk_shape: Value, codecs: Value, at_end: bool, crc: bool) -> Value {
    let mut index_codecs = vec![json!({"name": "bytes", "configuration": {"endian": "little"}})];
    if crc {
        index_codecs.push(json!({"name": "crc32c"}));
    }
    json!({"name": "sharding_indexed", "configuration": {"chunk_shape": chunk_shape, "codecs": codecs,
        "index_codecs": index_codecs, "index_location": if at_end { "end" } else { "start" }}})
}

fn le_bytes() -> Value {
    json!([{"name": "bytes", "configuration": {"endian": "little"}}])
}

/// Shards of shards: a 2x4 shard of two 1x4 inner shards (index at
/// their start, no CRC) of 1x2 chunks. Each level's offsets count from
/// its own first byte; a chunk placed outside its inner shard is an
/// error, never the bytes found there.
#[test]
fn shards_inside_shards() {
    let inner = sharding(json!([1, 2]), le_bytes(), false, false);
    let a = array(
        &[2, 4],
        &[2, 4],
        "int32",
        json!(-1),
        json!({"codecs": [sharding(json!([1, 4]), json!([inner]), true, true)]}),
    );
    let row0 = pack(&[Some(le_i32(&[0, 1])), Some(le_i32(&[2, 3]))], false, false);
    let row1 = pack(&[None, Some(le_i32(&[6, 7]))], false, false);
    let objects =
        |shard: Vec<u8>| vec![("zarr.json", root(json!({}))), ("a/zarr.json", doc(a.clone())), ("a/c/0/0", shard)];
    let shard = pack(&[Some(row0.clone()), Some(row1.clone())], true, true);
    assert_eq!(ints(open(&objects(shard)).unwrap(), 0).unwrap(), [0, 1, 2, 3, -1, -1, 6, 7]);
    // An empty inner shard reads as fill.
    let shard = pack(&[Some(row0.clone()), None], true, true);
    assert_eq!(ints(open(&objects(shard)).unwrap(), 0).unwrap(), [0, 1, 2, 3, -1, -1, -1, -1]);
    // Row 0's second chunk said to run 8 bytes past its inner shard,
    // into row 1's: an error.
    let mut long = row0.clone();
    long[24..32].copy_from_slice(&16u64.to_le_bytes());
    let shard = pack(&[Some(long), Some(row1.clone())], true, true);
    assert_eq!(ints(open(&objects(shard)).unwrap(), 0), Err(NcError::ENCZARR));
    // An inner shard shorter than its index.
    let shard = pack(&[Some(vec![0; 20]), Some(row1)], true, true);
    assert_eq!(ints(open(&objects(shard)).unwrap(), 0), Err(NcError::ENCZARR));
}

/// Shards nested past what is read (8 levels): the array is listed, its
/// data NC_ENOFILTER; 8 levels read. Nested past what the JSON parser
/// takes (its depth limit), the document is NC_ENCZARR, as any
/// unreadable document is: never a stack overflow.
#[test]
fn absurdly_nested_shards() {
    let nest = |levels: usize| {
        let mut codecs = le_bytes();
        let mut shard = le_i32(&[5]);
        for _ in 0..levels {
            codecs = json!([sharding(json!([1]), codecs, true, true)]);
            shard = pack(&[Some(shard)], true, true);
        }
        let a = array(&[1], &[1], "int32", json!(-1), json!({"codecs": codecs}));
        open(&[("zarr.json", root(json!({}))), ("a/zarr.json", doc(a)), ("a/c/0", shard)])
    };
    assert_eq!(ints(nest(8).unwrap(), 0).unwrap(), [5]);
    assert_eq!(ints(nest(9).unwrap(), 0), Err(NcError::ENOFILTER));
    assert_eq!(ints(nest(25).unwrap(), 0), Err(NcError::ENOFILTER));
    assert_eq!(nest(100).err(), Some(NcError::ENCZARR));
    // Far deeper, as text (a `Value` that deep would overflow this test's
    // own stack when serialized).
    let level = r#"{"name": "sharding_indexed", "configuration": {"chunk_shape": [1], "index_codecs": [], "codecs": ["#;
    let codecs = format!("[{}{{\"name\": \"bytes\"}}{}]", level.repeat(5000), "]}}".repeat(5000));
    let a = array(&[1], &[1], "int32", json!(-1), json!({}));
    let text = doc(a).to_vec();
    let text =
        String::from_utf8(text).unwrap().replace(r#"[{"name":"bytes","configuration":{"endian":"little"}}]"#, &codecs);
    assert!(text.len() > 400_000);
    let deep = open(&[("zarr.json", root(json!({}))), ("a/zarr.json", text.into_bytes())]);
    assert_eq!(deep.err(), Some(NcError::ENCZARR));
}

/// A transpose before the shards: the shard the codec sees is
/// transposed, so its chunk shape and its index are in that order. Here
/// the 2x3 array's shard is seen as 3x2, in 1x2 chunks: each a column of
/// the array, listed by column.
#[test]
fn transposed_shards() {
    let a = array(
        &[2, 3],
        &[2, 3],
        "int32",
        json!(-1),
        json!({"codecs": [{"name": "transpose", "configuration": {"order": [1, 0]}},
                          sharding(json!([1, 2]), le_bytes(), true, true)]}),
    );
    // [[1, 2, 3], [4, 5, 6]]: columns (1, 4), (2, 5), (3, 6); the last
    // stored first, the middle one empty.
    let shard = {
        let mut data = le_i32(&[3, 6]);
        data.extend(le_i32(&[1, 4]));
        let index: Vec<u8> = [8u64, 8, u64::MAX, u64::MAX, 0, 8].iter().flat_map(|v| v.to_le_bytes()).collect();
        data.extend(&index);
        data.extend(crc32c(&index).to_le_bytes());
        data
    };
    let ds = open(&[("zarr.json", root(json!({}))), ("a/zarr.json", doc(a)), ("a/c/0/0", shard)]).unwrap();
    assert_eq!(ds.model.groups[0].vars[0].chunks, [2, 1], "a column, the inner chunk in the array's order");
    assert_eq!(ints(ds, 0).unwrap(), [1, -1, 3, 4, -1, 6]);
}

/// float16 arrays are written: values rounded to the nearest half, a
/// value beyond the largest half a range error (written all the same,
/// as the infinity it rounds to), then read back as stored.
#[test]
fn half_floats_written() {
    let h = array(
        &[4],
        &[4],
        "float16",
        json!(0.0),
        json!({"codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]}),
    );
    let map = store(&[("zarr.json", root(json!({}))), ("h/zarr.json", doc(h))]);
    let mut ds = Dataset::open_store("mem.zarr#mode=zarr", Box::new(map.clone()), netcdf::dataset::NC_WRITE).unwrap();
    let dims = [netcdf::io::selection::Extent { len: 4, unlimited: false }];
    let sel = Selection::check(&dims, Some(&[0]), Some(&[4]), None, None, Access::Write).unwrap();
    let values = [0.1f64, 70000.0, -2049.0, f64::NAN];
    // SAFETY: `values` holds the selection as doubles.
    let range_error = unsafe { engine::write(&mut ds, 0, 0, &sel, NC_DOUBLE, values.as_ptr() as *const u8) }.unwrap();
    assert!(range_error, "70000 is beyond the largest half");
    ds.close().unwrap();
    // 0.1 -> 0x2e66, 70000 -> inf, -2049 -> -2048 (tie to even), NaN.
    assert_eq!(map.get("h/c/0").unwrap().unwrap(), [0x2e, 0x66, 0x7c, 0x00, 0xe8, 0x00, 0x7e, 0x00]);
    let again = std::sync::Mutex::new(Dataset::open_store("mem.zarr#mode=zarr", Box::new(map), 0).unwrap());
    let mut out = [0f32; 4];
    let select = |_: &Dataset| Ok(sel.clone());
    // SAFETY: `out` holds the selection as floats.
    unsafe { engine::read(&again, 0, 0, NC_FLOAT, out.as_mut_ptr() as *mut u8, select) }.unwrap();
    assert_eq!(out[..3], [0.099975586, f32::INFINITY, -2048.0]);
    assert!(out[3].is_nan());
}
