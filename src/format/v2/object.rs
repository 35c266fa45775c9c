//! Zarr v2 numpy object arrays (`dtype: "|O"` with a `vlen-utf8` or
//! `vlen-bytes` codec): what zarr-python 2 and 3 and xarray write for
//! string variables. They read as variable-length NC_STRING; their
//! `.zarray` is kept as read (`model::ObjectArray`) and written back as it
//! was, with the variable's current shape, so that an edit of the dataset
//! leaves them readable by zarr-python: its `dtype`, its codecs in their
//! places (the object codec among the filters, the compressor) and every
//! key the model has no place for.

use serde_json::{Map, Value};

use crate::model::{ObjectArray, Values, Var};

/// Keys of a `.zarray` a writer sets itself, by layout.
fn is_nczarr_key(key: &str) -> bool {
    key.starts_with("_nczarr") || key.starts_with("_NCZARR")
}

/// Keep an object array's `.zarray`, as read, with the fill it was read as.
pub fn object_array(zarray: &Map<String, Value>, no_fill: bool, fill: &Values) -> Box<ObjectArray> {
    let kept: Map<String, Value> =
        zarray.iter().filter(|(k, _)| !is_nczarr_key(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    // The object codec is the first vlen one (the reader's choice too).
    let utf8 = codec_ids(&kept).find(|id| matches!(*id, "vlen-utf8" | "vlen-bytes")) == Some("vlen-utf8");
    Box::new(ObjectArray { zarray: kept, fill_as_read: (no_fill, Some(fill.clone())), utf8 })
}

/// The `id`s of the codecs a `.zarray` names (filters and compressor).
fn codec_ids(zarray: &Map<String, Value>) -> impl Iterator<Item = &str> {
    let filters = zarray.get("filters").and_then(Value::as_array).into_iter().flatten();
    filters.chain(zarray.get("compressor")).filter_map(|c| c.get("id").and_then(Value::as_str))
}

/// The `.zarray` of an object array: as read, with the variable's shape
/// (in its place; a scalar keeps its `[]` or `[1]`) and, if the fill was
/// changed since, the new fill.
pub fn zarray(object: &ObjectArray, var: &Var, shape: &[usize], fill: &Values) -> Value {
    let mut zarray = object.zarray.clone();
    if !var.dimids.is_empty() {
        zarray.insert("shape".into(), Value::from(shape.to_vec()));
    }
    if (var.no_fill, var.fill.clone()) != object.fill_as_read {
        let fill = match fill {
            _ if var.no_fill => Value::Null,
            Values::String(s) => Value::String(String::from_utf8_lossy(s.first().map_or(&[][..], |s| s)).into_owned()),
            _ => Value::Null,
        };
        zarray.insert("fill_value".into(), fill);
    }
    Value::Object(zarray)
}

#[cfg(test)]
mod tests {
    use std::ffi::{CString, c_char};
    use std::sync::Mutex;

    use serde_json::json;

    use crate::dataset::{Dataset, NC_WRITE};
    use crate::error::NcError;
    use crate::format::json;
    use crate::io::engine::{self, read};
    use crate::io::selection::{Access, Extent, Selection};
    use crate::model::Values;
    use crate::types::NC_STRING;
    use crate::zmap::{MemoryMap, Zmap};

    const NAME: &str = "memory.zarr#mode=zarr";

    /// numcodecs' vlen encoding of `items`: a u32 LE count, then per item
    /// a u32 LE length and its bytes.
    fn numcodecs(items: &[&[u8]]) -> Vec<u8> {
        let mut out = (items.len() as u32).to_le_bytes().to_vec();
        for item in items {
            out.extend_from_slice(&(item.len() as u32).to_le_bytes());
            out.extend_from_slice(item);
        }
        out
    }

    /// A store as zarr-python 2 writes `s` (`dtype=str`, 5 elements in
    /// chunks of 2, no compressor), with elements 0-1 stored.
    fn zarr_python_store(zarray: serde_json::Value) -> MemoryMap {
        let map = MemoryMap::new();
        map.put(".zgroup", br#"{"zarr_format": 2}"#).unwrap();
        map.put("s/.zarray", &json::to_bytes(&zarray)).unwrap();
        map.put("s/.zattrs", br#"{"_ARRAY_DIMENSIONS": ["n"]}"#).unwrap();
        map.put("s/0", &numcodecs(&[b"a", "\u{e9}".as_bytes()])).unwrap();
        map
    }

    fn zarray_of(filters: serde_json::Value, fill: serde_json::Value) -> serde_json::Value {
        // Keys in zarr-python 2's (sorted) order, and one the model has no
        // place for.
        json!({"chunks": [2], "compressor": null, "dtype": "|O", "fill_value": fill, "filters": filters,
               "order": "C", "shape": [5], "zarr_format": 2, "x_extra": {"kept": true}})
    }

    fn vlen_utf8() -> serde_json::Value {
        json!([{"id": "vlen-utf8"}])
    }

    fn stored_zarray(map: &MemoryMap) -> serde_json::Value {
        json::parse(&map.get("s/.zarray").unwrap().unwrap()).unwrap()
    }

    /// Write C strings at `start` of the 1-D variable 0.
    fn put(ds: &mut Dataset, start: usize, items: &[&[u8]]) -> Result<bool, NcError> {
        let owned: Vec<CString> = items.iter().map(|s| CString::new(*s).unwrap()).collect();
        let ptrs: Vec<*const c_char> = owned.iter().map(|s| s.as_ptr()).collect();
        let dims = [Extent { len: 5, unlimited: false }];
        let sel = Selection::check(&dims, Some(&[start]), Some(&[items.len()]), None, None, Access::Write)?;
        // SAFETY: `ptrs` holds the selection's C strings, alive across the call.
        unsafe { engine::write(ds, 0, 0, &sel, NC_STRING, ptrs.as_ptr() as *const u8) }
    }

    /// Every value of variable 0, through the engine.
    fn values(ds: Dataset) -> Result<Vec<Vec<u8>>, NcError> {
        let shared = Mutex::new(ds);
        let mut ptrs = vec![std::ptr::null_mut::<c_char>(); 5];
        let dims = [Extent { len: 5, unlimited: false }];
        let sel = Selection::check(&dims, Some(&[0]), None, None, None, Access::Read)?;
        // SAFETY: room for the selection's 5 string pointers.
        unsafe { read(&shared, 0, 0, NC_STRING, ptrs.as_mut_ptr() as *mut u8, |_| Ok(sel)) }?;
        Ok(ptrs
            .into_iter()
            .map(|p| {
                // SAFETY: a C string the library handed out.
                let s = unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes().to_vec();
                // SAFETY: it was malloc'd for us to free, and is freed once.
                unsafe { libc::free(p as *mut libc::c_void) };
                s
            })
            .collect())
    }

    #[test]
    fn written_as_zarr_python_writes_them() {
        let original = zarray_of(vlen_utf8(), json!("0"));
        let map = zarr_python_store(original.clone());
        let mut ds = Dataset::open_store(NAME, Box::new(map.clone()), NC_WRITE).unwrap();
        assert!(ds.model.writable);
        // Into the stored chunk (in part), the next whole, a new one in part.
        put(&mut ds, 1, &[b"", "\u{f1}x".as_bytes(), b"long ".repeat(20).as_slice()]).unwrap();
        put(&mut ds, 4, &[b"end"]).unwrap();
        ds.close().unwrap();
        assert_eq!(stored_zarray(&map), original, "the .zarray as it was, its keys in their order");
        assert_eq!(serde_json::to_string(&stored_zarray(&map)).unwrap(), serde_json::to_string(&original).unwrap());
        let long = b"long ".repeat(20);
        assert_eq!(map.get("s/0").unwrap().unwrap(), numcodecs(&[b"a", b""]));
        assert_eq!(map.get("s/1").unwrap().unwrap(), numcodecs(&["\u{f1}x".as_bytes(), &long]));
        // The last chunk's element past the shape holds the fill, as
        // zarr-python stores it.
        assert_eq!(map.get("s/2").unwrap().unwrap(), numcodecs(&[b"end", b"0"]));
        let ds = Dataset::open_store(NAME, Box::new(map.clone()), 0).unwrap();
        let want: Vec<Vec<u8>> = vec![b"a".to_vec(), vec![], "\u{f1}x".into(), long, b"end".to_vec()];
        assert_eq!(values(ds).unwrap(), want);
    }

    #[test]
    fn nczarr_mode_keeps_the_zarray_too() {
        let original = zarray_of(vlen_utf8(), json!(null));
        let map = zarr_python_store(original.clone());
        let mut ds = Dataset::open_store("memory.zarr#mode=nczarr", Box::new(map.clone()), NC_WRITE).unwrap();
        put(&mut ds, 2, &[b"b"]).unwrap();
        ds.close().unwrap();
        assert_eq!(stored_zarray(&map), original);
        // A null fill: no fill value; never-written elements are empty.
        assert_eq!(map.get("s/1").unwrap().unwrap(), numcodecs(&[b"b", b""]));
        let ds = Dataset::open_store("memory.zarr#mode=nczarr", Box::new(map.clone()), NC_WRITE).unwrap();
        assert!(ds.model.var(0, 0).unwrap().object.is_some(), "still an object array");
        assert!(ds.model.var(0, 0).unwrap().no_fill);
    }

    #[test]
    fn utf8_only_where_the_codec_decodes_it() {
        let map = zarr_python_store(zarray_of(vlen_utf8(), json!("")));
        let mut ds = Dataset::open_store(NAME, Box::new(map.clone()), NC_WRITE).unwrap();
        assert_eq!(put(&mut ds, 2, &[b"ok", b"\xff"]), Err(NcError::EINVAL));
        ds.close().unwrap();
        assert!(map.get("s/1").unwrap().is_none(), "nothing of a refused write is stored");

        let map = zarr_python_store(zarray_of(json!([{"id": "vlen-bytes"}]), json!(0)));
        let mut ds = Dataset::open_store(NAME, Box::new(map.clone()), NC_WRITE).unwrap();
        put(&mut ds, 2, &[b"\xff"]).unwrap();
        ds.close().unwrap();
        assert_eq!(map.get("s/1").unwrap().unwrap(), numcodecs(&[b"\xff", b""]));
        // zarr-python 2's fill 0 (numcodecs' empty element) is kept.
        assert_eq!(stored_zarray(&map)["fill_value"], json!(0));
    }

    #[test]
    fn fill_zero_reads_as_empty() {
        let map = zarr_python_store(zarray_of(json!([{"id": "vlen-bytes"}]), json!(0)));
        let ds = Dataset::open_store(NAME, Box::new(map), 0).unwrap();
        let var = ds.model.var(0, 0).unwrap();
        assert_eq!((var.data_error, &var.fill), (None, &Some(Values::String(vec![vec![]]))));
        assert_eq!(values(ds).unwrap(), vec![b"a".to_vec(), "\u{e9}".into(), vec![], vec![], vec![]]);
        // Other numbers are no fill of a string.
        let map = zarr_python_store(zarray_of(vlen_utf8(), json!(5)));
        let ds = Dataset::open_store(NAME, Box::new(map), 0).unwrap();
        assert_eq!(ds.model.var(0, 0).unwrap().data_error, Some(NcError::ENCZARR));
    }

    #[test]
    fn a_changed_fill_is_written() {
        let map = zarr_python_store(zarray_of(vlen_utf8(), json!("0")));
        let mut ds = Dataset::open_store(NAME, Box::new(map.clone()), NC_WRITE).unwrap();
        crate::model::attrs::put_att(&mut ds.model, 0, 0, b"_FillValue", Values::String(vec![b"new".to_vec()]))
            .unwrap();
        ds.close().unwrap();
        assert_eq!(stored_zarray(&map)["fill_value"], json!("new"));
        assert_eq!(stored_zarray(&map)["filters"], vlen_utf8());
    }

    #[test]
    fn a_codec_before_the_object_codec_is_refused() {
        // It would take numpy objects; the chain here takes bytes.
        let filters = json!([{"id": "zlib", "level": 1}, {"id": "vlen-utf8"}]);
        let map = zarr_python_store(zarray_of(filters, json!("")));
        let mut ds = Dataset::open_store(NAME, Box::new(map.clone()), NC_WRITE).unwrap();
        assert_eq!(ds.model.var(0, 0).unwrap().data_error, Some(NcError::ENOFILTER));
        assert_eq!(put(&mut ds, 0, &[b"x"]), Err(NcError::ENOFILTER));
        ds.close().unwrap();
        assert_eq!(values(Dataset::open_store(NAME, Box::new(map), 0).unwrap()), Err(NcError::ENOFILTER));
    }

    #[test]
    fn a_scalar_keeps_its_shape() {
        let map = MemoryMap::new();
        map.put(".zgroup", br#"{"zarr_format": 2}"#).unwrap();
        let zarray = json!({"chunks": [], "compressor": null, "dtype": "|O", "fill_value": "",
                            "filters": [{"id": "vlen-utf8"}], "order": "C", "shape": [], "zarr_format": 2});
        map.put("z/.zarray", &json::to_bytes(&zarray)).unwrap();
        let mut ds = Dataset::open_store(NAME, Box::new(map.clone()), NC_WRITE).unwrap();
        let owned = CString::new("only").unwrap();
        let ptrs = [owned.as_ptr()];
        let sel = Selection::check(&[], None, None, None, None, Access::Write).unwrap();
        // SAFETY: one C string pointer, alive across the call.
        unsafe { engine::write(&mut ds, 0, 0, &sel, NC_STRING, ptrs.as_ptr() as *const u8) }.unwrap();
        ds.close().unwrap();
        assert_eq!(json::parse(&map.get("z/.zarray").unwrap().unwrap()).unwrap(), zarray);
        assert_eq!(map.get("z/0").unwrap().unwrap(), numcodecs(&[b"only"]));
    }
}
