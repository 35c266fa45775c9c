//! Datasets opened over an in-memory store (`Dataset::open_store` with a
//! `MemoryMap`), and regressions found by the fuzz targets that are
//! clearer as plain tests.

use netcdf::dataset::{Dataset, NC_WRITE};
use netcdf::io::{Access, Selection, engine};
use netcdf::types::*;
use netcdf::zmap::{MemoryMap, Zmap};

fn store(objects: &[(&str, &[u8])]) -> MemoryMap {
    MemoryMap::from_objects(objects.iter().map(|(k, v)| (k.to_string(), v.to_vec()))).unwrap()
}

fn read_all_i32(ds: &mut Dataset, varid: i32, shape: &[usize]) -> Vec<i32> {
    let dims: Vec<_> = shape.iter().map(|&len| netcdf::io::selection::Extent { len, unlimited: false }).collect();
    let zeros = vec![0; shape.len()];
    let sel = Selection::check(&dims, Some(&zeros), None, None, None, Access::Read).unwrap();
    let mut out = vec![0i32; sel.len()];
    unsafe { engine::read(ds, 0, varid, &sel, NC_INT, out.as_mut_ptr() as *mut u8) }.unwrap();
    out
}

/// A 2x3 array in one chunk stored in Fortran order: 0 3 1 4 2 5.
fn fortran_store() -> MemoryMap {
    let chunk: Vec<u8> = [0i32, 3, 1, 4, 2, 5].iter().flat_map(|v| v.to_le_bytes()).collect();
    store(&[
        (".zgroup", br#"{"zarr_format": 2}"#),
        (
            "f/.zarray",
            br#"{"zarr_format": 2, "shape": [2, 3], "chunks": [2, 3], "dtype": "<i4", "fill_value": 0,
                 "order": "F", "compressor": null, "filters": null}"#,
        ),
        ("f/0.0", &chunk),
    ])
}

#[test]
fn a_store_in_memory_opens_and_reads() {
    let map = fortran_store();
    let mut ds = Dataset::open_store("mem.zarr#mode=zarr", Box::new(map), 0).unwrap();
    assert_eq!(ds.model.groups[0].vars[0].name, "f");
    assert_eq!(read_all_i32(&mut ds, 0, &[2, 3]), vec![0, 1, 2, 3, 4, 5]);
    assert!(Dataset::open_store("mem.zarr#mode=zarr", Box::new(MemoryMap::new()), 0).is_err());
}

/// Found by the `rewrite` fuzz target: rewriting the metadata of an
/// `order: "F"` array (any change to a dataset opened for writing) wrote
/// `order: "C"`, so its stored chunks then read transposed.
#[test]
fn fortran_order_survives_a_metadata_rewrite() {
    let map = fortran_store();
    let mut ds = Dataset::open_store("mem.zarr#mode=zarr", Box::new(map.clone()), NC_WRITE).unwrap();
    ds.model.dirty = true;
    ds.close().unwrap();
    let zarray = String::from_utf8(map.get("f/.zarray").unwrap().unwrap()).unwrap();
    assert!(zarray.contains(r#""order":"F""#), "{zarray}");
    let mut again = Dataset::open_store("mem.zarr#mode=zarr", Box::new(map), 0).unwrap();
    assert_eq!(read_all_i32(&mut again, 0, &[2, 3]), vec![0, 1, 2, 3, 4, 5]);
}
