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

fn read_all_i32(ds: Dataset, varid: i32, shape: &[usize]) -> Vec<i32> {
    let dims: Vec<_> = shape.iter().map(|&len| netcdf::io::selection::Extent { len, unlimited: false }).collect();
    let zeros = vec![0; shape.len()];
    let sel = Selection::check(&dims, Some(&zeros), None, None, None, Access::Read).unwrap();
    let mut out = vec![0i32; sel.len()];
    let shared = std::sync::Mutex::new(ds);
    let select = |_: &Dataset| Ok(sel.clone());
    // SAFETY: `out` holds the whole selection as ints.
    unsafe { engine::read(&shared, 0, varid, NC_INT, out.as_mut_ptr() as *mut u8, select) }.unwrap();
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
    let ds = Dataset::open_store("mem.zarr#mode=zarr", Box::new(map), 0).unwrap();
    assert_eq!(ds.model.groups[0].vars[0].name, "f");
    assert_eq!(read_all_i32(ds, 0, &[2, 3]), vec![0, 1, 2, 3, 4, 5]);
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
    // Left as stored when nothing about it changed, or rewritten: "F"
    // either way.
    let zarray: serde_json::Value = serde_json::from_slice(&map.get("f/.zarray").unwrap().unwrap()).unwrap();
    assert_eq!(zarray["order"], "F", "{zarray}");
    let again = Dataset::open_store("mem.zarr#mode=zarr", Box::new(map), 0).unwrap();
    assert_eq!(read_all_i32(again, 0, &[2, 3]), vec![0, 1, 2, 3, 4, 5]);
}

/// Found while fuzzing (`fuzz/regressions/store/chunk-bytes-overflow`):
/// chunks whose size in bytes overflows a usize panicked (with overflow
/// checks) or wrapped (release) on the first data access.
/// Such a variable is listed; its data is NC_ENCZARR.
#[test]
fn chunks_too_big_to_address_are_an_error() {
    for (dtype, chunks, attrs) in [
        ("<i4", "[4611686018427387904]", "{}"),
        ("<f8", "[4294967296, 4294967296]", "{}"),
        ("<U4611686018427387905", "[1]", "{}"),
    ] {
        let zarray = format!(
            r#"{{"zarr_format": 2, "shape": [10], "chunks": {chunks}, "dtype": "{dtype}", "fill_value": null,
                 "order": "C", "compressor": null, "filters": null}}"#
        )
        .replace("[10]", if chunks.contains(',') { "[10, 10]" } else { "[10]" });
        let map = store(&[
            (".zgroup", br#"{"zarr_format": 2}"#),
            ("v/.zarray", zarray.as_bytes()),
            ("v/.zattrs", attrs.as_bytes()),
        ]);
        let ds = Dataset::open_store("mem.zarr#mode=zarr", Box::new(map), 0).unwrap();
        let rank = ds.model.groups[0].vars[0].dimids.len();
        let dims = vec![netcdf::io::selection::Extent { len: 10, unlimited: false }; rank];
        let sel =
            Selection::check(&dims, Some(&vec![0; rank]), Some(&vec![1; rank]), None, None, Access::Read).unwrap();
        let mut out = [0u64; 4];
        let shared = std::sync::Mutex::new(ds);
        let select = |_: &Dataset| Ok(sel.clone());
        // SAFETY: `out` has room for one element of any type.
        let got = unsafe { engine::read(&shared, 0, 0, NC_NAT, out.as_mut_ptr() as *mut u8, select) };
        assert_eq!(got.err(), Some(netcdf::error::NcError::ENCZARR), "{dtype} {chunks} {attrs}");
    }
}
