//! Hostile stores: whatever a dataset holds, the C API answers with a
//! netCDF error code. Never a crash, a hang, a huge allocation or wrong
//! bytes.
//!
//! Each test builds small stores on disk (pure Zarr v2 and every NCZarr
//! layout), breaks them in one way, and checks the exact code returned
//! and, for data, that the caller's buffer holds no wrong bytes.
//!
//! The test binary's allocator refuses any single allocation above
//! [`MAX_ALLOC`]: an unchecked huge allocation aborts the run (a failure),
//! a checked one becomes NC_ENOMEM.

#![allow(dead_code, unused_imports)] // helpers for the tests still to come

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{CString, c_char, c_int, c_void};
use std::io::Write;
use std::path::{Path, PathBuf};

use netcdf::capi::att::{nc_get_att_text, nc_inq_att, nc_inq_attname};
use netcdf::capi::data_typed::{
    nc_get_vara, nc_get_vara_double, nc_get_vara_float, nc_get_vara_int, nc_get_vars_float, nc_put_vara_float,
};
use netcdf::capi::dim::{nc_inq_dimid, nc_inq_dimlen};
use netcdf::capi::file::{nc_close, nc_inq_natts, nc_inq_nvars, nc_open};
use netcdf::capi::group::{nc_inq_grp_ncid, nc_inq_grps};
use netcdf::capi::var::{nc_copy_var, nc_inq_var_chunking, nc_inq_var_fill, nc_inq_varid, nc_inq_varnatts};
use serde_json::{Value, json};

// ----- the allocator ---------------------------------------------------

/// Largest single allocation the library may make in these tests.
const MAX_ALLOC: usize = 1 << 30;

struct Capped;

// SAFETY: forwards to the system allocator, refusing big requests (a null
// return is the allocator's documented way to fail).
unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX_ALLOC { std::ptr::null_mut() } else { unsafe { System.alloc(layout) } }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX_ALLOC { std::ptr::null_mut() } else { unsafe { System.alloc_zeroed(layout) } }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > MAX_ALLOC { std::ptr::null_mut() } else { unsafe { System.realloc(ptr, layout, new_size) } }
    }
}

#[global_allocator]
static ALLOCATOR: Capped = Capped;

// ----- error codes -----------------------------------------------------

const NC_NOERR: i32 = 0;
const NC_EINVAL: i32 = -36;
const NC_EPERM: i32 = -37;
const NC_EINVALCOORDS: i32 = -40;
const NC_ENOTATT: i32 = -43;
const NC_EBADTYPE: i32 = -45;
const NC_ENOTVAR: i32 = -49;
const NC_ENOTNC: i32 = -51;
const NC_EEDGE: i32 = -57;
const NC_ERANGE: i32 = -60;
const NC_ENOMEM: i32 = -61;
const NC_EURL: i32 = -74;
const NC_EAUTH: i32 = -78;
const NC_ENOTBUILT: i32 = -128;
const NC_EFILTER: i32 = -132;
const NC_ENOFILTER: i32 = -136;
const NC_ENCZARR: i32 = -137;
const NC_ENOOBJECT: i32 = -141;

const NC_WRITE: i32 = 1;
const NC_GLOBAL: i32 = -1;
const NC_FLOAT: i32 = 5;

// ----- stores ----------------------------------------------------------

/// A scratch store directory, removed when dropped.
struct Store {
    root: PathBuf,
}

fn scratch_base() -> PathBuf {
    std::env::temp_dir().join(format!("nczarr-rs-hostile-{}", std::process::id()))
}

impl Store {
    fn new(name: &str) -> Store {
        let root = scratch_base().join(name);
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        Store { root }
    }

    fn path(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    fn put(&self, key: &str, bytes: impl AsRef<[u8]>) {
        let path = self.path(key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    fn put_json(&self, key: &str, v: &Value) {
        self.put(key, serde_json::to_vec(v).unwrap());
    }

    fn get(&self, key: &str) -> Vec<u8> {
        std::fs::read(self.path(key)).unwrap()
    }

    fn json(&self, key: &str) -> Value {
        serde_json::from_slice(&self.get(key)).unwrap()
    }

    /// Change one JSON object in place.
    fn edit(&self, key: &str, f: impl FnOnce(&mut Value)) {
        let mut v = self.json(key);
        f(&mut v);
        self.put_json(key, &v);
    }

    fn remove(&self, key: &str) {
        let _ = std::fs::remove_file(self.path(key));
    }

    /// Every metadata object (a file whose name starts with a dot).
    fn metadata_keys(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut pending = vec![self.root.clone()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.file_name().unwrap().to_string_lossy().starts_with('.') {
                    out.push(path.strip_prefix(&self.root).unwrap().to_string_lossy().into_owned());
                }
            }
        }
        out.sort();
        out
    }

    fn url(&self, mode: &str) -> String {
        format!("file://{}#mode={mode},file", self.root.display())
    }

    fn open(&self) -> Result<Nc, i32> {
        open_url(&self.url("nczarr"))
    }

    fn open_code(&self) -> i32 {
        self.open().err().unwrap_or(NC_NOERR)
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// An open dataset, closed when dropped.
struct Nc(i32);

impl Drop for Nc {
    fn drop(&mut self) {
        nc_close(self.0);
    }
}

fn open_url_mode(url: &str, mode: i32) -> Result<Nc, i32> {
    let c = CString::new(url).unwrap();
    let mut ncid = -1;
    match unsafe { nc_open(c.as_ptr(), mode, &mut ncid) } {
        NC_NOERR => Ok(Nc(ncid)),
        code => Err(code),
    }
}

fn open_url(url: &str) -> Result<Nc, i32> {
    open_url_mode(url, 0)
}

fn open_bytes(path: &[u8]) -> i32 {
    let c = CString::new(path).unwrap();
    let mut ncid = -1;
    let code = unsafe { nc_open(c.as_ptr(), 0, &mut ncid) };
    if code == NC_NOERR {
        nc_close(ncid);
    }
    code
}

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

impl Nc {
    fn varid(&self, name: &str) -> i32 {
        let mut v = -1;
        assert_eq!(unsafe { nc_inq_varid(self.0, cstr(name).as_ptr(), &mut v) }, NC_NOERR, "no variable {name}");
        v
    }

    fn nvars(&self) -> i32 {
        let mut n = -1;
        assert_eq!(unsafe { nc_inq_nvars(self.0, &mut n) }, NC_NOERR);
        n
    }

    fn dimlen(&self, name: &str) -> usize {
        let (mut d, mut len) = (-1, 0usize);
        assert_eq!(unsafe { nc_inq_dimid(self.0, cstr(name).as_ptr(), &mut d) }, NC_NOERR, "no dimension {name}");
        assert_eq!(unsafe { nc_inq_dimlen(self.0, d, &mut len) }, NC_NOERR);
        len
    }

    /// Read floats; on error the buffer must still hold only the sentinel.
    fn floats(&self, var: &str, start: &[usize], count: &[usize]) -> Result<Vec<f32>, i32> {
        let v = self.varid(var);
        let n: usize = count.iter().product();
        let mut buf = vec![SENTINEL; n];
        let code = unsafe { nc_get_vara_float(self.0, v, start.as_ptr(), count.as_ptr(), buf.as_mut_ptr()) };
        if code == NC_NOERR {
            Ok(buf)
        } else {
            assert!(buf.iter().all(|x| x.to_bits() == SENTINEL.to_bits()), "{var}: wrong bytes delivered with {code}");
            Err(code)
        }
    }

    fn all_floats(&self, var: &str, len: usize) -> Result<Vec<f32>, i32> {
        self.floats(var, &[0], &[len])
    }

    fn ints(&self, var: &str, start: &[usize], count: &[usize]) -> Result<Vec<i32>, i32> {
        let v = self.varid(var);
        let n: usize = count.iter().product();
        let mut buf = vec![i32::MIN + 7; n];
        let code = unsafe { nc_get_vara_int(self.0, v, start.as_ptr(), count.as_ptr(), buf.as_mut_ptr()) };
        if code == NC_NOERR {
            Ok(buf)
        } else {
            assert!(buf.iter().all(|&x| x == i32::MIN + 7), "{var}: wrong bytes delivered with {code}");
            Err(code)
        }
    }

    fn fill(&self, var: &str) -> Result<(i32, f64), i32> {
        let v = self.varid(var);
        let mut no_fill = -1;
        let mut value = [0u8; 16];
        match unsafe { nc_inq_var_fill(self.0, v, &mut no_fill, value.as_mut_ptr() as *mut c_void) } {
            NC_NOERR => Ok((no_fill, f32::from_ne_bytes(value[..4].try_into().unwrap()) as f64)),
            code => Err(code),
        }
    }

    fn att_text(&self, varid: i32, name: &str) -> Result<String, i32> {
        let (mut t, mut len) = (0, 0usize);
        let code = unsafe { nc_inq_att(self.0, varid, cstr(name).as_ptr(), &mut t, &mut len) };
        if code != NC_NOERR {
            return Err(code);
        }
        let mut buf = vec![0u8; len + 1];
        let code = unsafe { nc_get_att_text(self.0, varid, cstr(name).as_ptr(), buf.as_mut_ptr() as *mut c_char) };
        if code != NC_NOERR {
            return Err(code);
        }
        buf.truncate(len);
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }
}

const SENTINEL: f32 = -12345.5;

fn le_floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

// ----- a small dataset in every layout -----------------------------------

/// Where the netCDF information of a store lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// zarr-python / xarray: no NCZarr metadata.
    Pure,
    /// netcdf-c 4.9.3+: `_nczarr_*` attributes in `.zattrs`.
    Current,
    /// netcdf-c 4.9.1-4.9.2: `_nczarr_*` keys in `.zgroup`/`.zarray`.
    Lower,
    /// netcdf-c 4.8.1-4.9.0: `_NCZARR_*` keys.
    Upper,
    /// netcdf-c 4.8.0: separate `.nczarr`, `.nczgroup`, `.nczarray`, `.nczattrs`.
    V1,
}

const KINDS: [Kind; 5] = [Kind::Pure, Kind::Current, Kind::Lower, Kind::Upper, Kind::V1];

/// The `.zarray` of a 1-d variable.
fn zarray(dtype: &str, shape: &[u64], chunks: &[u64], fill: Value) -> Value {
    json!({"zarr_format": 2, "shape": shape, "dtype": dtype, "chunks": chunks, "fill_value": fill,
           "order": "C", "compressor": null, "filters": null})
}

/// The reference dataset: dimension `x` = 4 in the root; float `v(x)` in
/// chunks of 2 holding 1 2 3 4 with fill 9; int `w(x)`, one chunk, 10 20
/// 30 40; a group `g` holding float `u(x)` (one chunk, 5 6 7 8). Global
/// attribute `title` = "t", `v` has `units` = "K".
fn dataset(name: &str, kind: Kind) -> Store {
    let s = Store::new(name);
    let v = zarray("<f4", &[4], &[2], json!(9.0));
    let w = zarray("<i4", &[4], &[4], json!(-1));
    let u = zarray("<f4", &[4], &[4], json!(0.0));
    let dims = ["x"];
    let root_group = |k: &str| json!({k: {"x": 4}, "arrays": ["v", "w"], "groups": ["g"]});
    let g_group = json!({"dimensions": {}, "arrays": ["u"], "groups": []});
    let array_info = json!({"dimension_references": ["/x"], "storage": "chunked"});
    match kind {
        Kind::Pure => {
            s.put_json(".zgroup", &json!({"zarr_format": 2}));
            s.put_json(".zattrs", &json!({"title": "t"}));
            s.put_json("g/.zgroup", &json!({"zarr_format": 2}));
            for (key, arr, atts) in [
                ("v", &v, json!({"units": "K", "_ARRAY_DIMENSIONS": dims})),
                ("w", &w, json!({"_ARRAY_DIMENSIONS": dims})),
                ("g/u", &u, json!({"_ARRAY_DIMENSIONS": dims})),
            ] {
                s.put_json(&format!("{key}/.zarray"), arr);
                s.put_json(&format!("{key}/.zattrs"), &atts);
            }
        }
        Kind::Current => {
            s.put_json(".zgroup", &json!({"zarr_format": 2}));
            s.put_json(
                ".zattrs",
                &json!({"title": "t", "_nczarr_group": root_group("dimensions"),
                        "_nczarr_superblock": {"version": "2.0.0"},
                        "_nczarr_attr": {"types": {"title": ">S1"}}}),
            );
            s.put_json("g/.zgroup", &json!({"zarr_format": 2}));
            s.put_json("g/.zattrs", &json!({"_nczarr_group": g_group}));
            for (key, arr, atts) in [
                (
                    "v",
                    &v,
                    json!({"units": "K", "_nczarr_array": array_info, "_nczarr_attr": {"types": {"units": ">S1"}}}),
                ),
                ("w", &w, json!({"_nczarr_array": array_info})),
                ("g/u", &u, json!({"_nczarr_array": array_info})),
            ] {
                s.put_json(&format!("{key}/.zarray"), arr);
                s.put_json(&format!("{key}/.zattrs"), &atts);
            }
        }
        Kind::Lower | Kind::Upper => {
            let k = |what: &str| {
                if kind == Kind::Upper { format!("_NCZARR_{}", what.to_uppercase()) } else { format!("_nczarr_{what}") }
            };
            let with = |mut obj: Value, key: String, val: Value| {
                obj[key] = val;
                obj
            };
            let group = json!({"dims": {"x": 4}, "vars": ["v", "w"], "groups": ["g"]});
            let old_info = json!({"dimrefs": ["/x"], "storage": "chunked"});
            s.put_json(".zgroup", &json!({"zarr_format": 2, k("superblock"): {"version": "2.0.0"}, k("group"): group}));
            s.put_json(".zattrs", &json!({"title": "t", k("attr"): {"types": {"title": ">S1"}}}));
            s.put_json("g/.zgroup", &json!({"zarr_format": 2, k("group"): {"dims": {}, "vars": ["u"], "groups": []}}));
            for (key, arr, atts) in [
                ("v", &v, json!({"units": "K", k("attr"): {"types": {"units": ">S1"}}})),
                ("w", &w, json!({})),
                ("g/u", &u, json!({})),
            ] {
                s.put_json(&format!("{key}/.zarray"), &with(arr.clone(), k("array"), old_info.clone()));
                s.put_json(&format!("{key}/.zattrs"), &atts);
            }
        }
        Kind::V1 => {
            s.put_json(".nczarr", &json!({"zarr_format": 2, "nczarr_version": "1.0.0"}));
            s.put_json(".zgroup", &json!({"zarr_format": 2}));
            s.put_json(".nczgroup", &json!({"dims": {"x": 4}, "vars": ["v", "w"], "groups": ["g"]}));
            s.put_json(".zattrs", &json!({"title": "t"}));
            s.put_json(".nczattrs", &json!({"types": {"title": "2"}}));
            s.put_json("g/.zgroup", &json!({"zarr_format": 2}));
            s.put_json("g/.nczgroup", &json!({"dims": {}, "vars": ["u"], "groups": []}));
            for (key, arr, atts) in [("v", &v, json!({"units": "K"})), ("w", &w, json!({})), ("g/u", &u, json!({}))] {
                s.put_json(&format!("{key}/.zarray"), arr);
                s.put_json(&format!("{key}/.zattrs"), &atts);
                s.put_json(&format!("{key}/.nczarray"), &json!({"dimrefs": ["/x"], "storage": "chunked"}));
            }
            s.put_json("v/.nczattrs", &json!({"types": {"units": "2"}}));
        }
    }
    s.put("v/0", le_floats(&[1.0, 2.0]));
    s.put("v/1", le_floats(&[3.0, 4.0]));
    s.put("w/0", [10i32, 20, 30, 40].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>());
    s.put("g/u/0", le_floats(&[5.0, 6.0, 7.0, 8.0]));
    s
}

/// The `.zarray` key of variable `v` for this layout, and the key its
/// NCZarr array info sits under (object and JSON key).
fn check_reference(nc: &Nc) {
    assert_eq!(nc.all_floats("v", 4), Ok(vec![1.0, 2.0, 3.0, 4.0]));
    assert_eq!(nc.ints("w", &[0], &[4]), Ok(vec![10, 20, 30, 40]));
    let mut g = -1;
    assert_eq!(unsafe { nc_inq_grp_ncid(nc.0, cstr("g").as_ptr(), &mut g) }, NC_NOERR);
    let sub = Nc(g);
    assert_eq!(sub.all_floats("u", 4), Ok(vec![5.0, 6.0, 7.0, 8.0]));
    std::mem::forget(sub); // a group id: closing it would close the dataset
}

#[test]
fn reference_dataset_reads_in_every_layout() {
    for kind in KINDS {
        let s = dataset(&format!("reference-{kind:?}"), kind);
        let nc = s.open().unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        check_reference(&nc);
        assert_eq!(nc.att_text(NC_GLOBAL, "title"), Ok("t".to_string()), "{kind:?}");
        assert_eq!(nc.att_text(nc.varid("v"), "units"), Ok("K".to_string()), "{kind:?}");
        assert_eq!(nc.dimlen("x"), 4);
    }
}

/// Open and expect exactly `code` (NC_NOERR: open and close).
#[track_caller]
fn expect_open(s: &Store, code: i32, what: &str) {
    assert_eq!(s.open_code(), code, "{what}");
}

/// The `.zarray` and `.zattrs` keys of variable `v`, and where (object,
/// JSON key) its NCZarr array info lives, for a layout.
fn array_info_place(kind: Kind) -> Option<(&'static str, &'static str)> {
    match kind {
        Kind::Pure => None,
        Kind::Current => Some(("v/.zattrs", "_nczarr_array")),
        Kind::Lower => Some(("v/.zarray", "_nczarr_array")),
        Kind::Upper => Some(("v/.zarray", "_NCZARR_ARRAY")),
        Kind::V1 => Some(("v/.nczarray", "")),
    }
}

/// Where the root group's NCZarr info lives (object, JSON key).
fn group_info_place(kind: Kind) -> Option<(&'static str, &'static str)> {
    match kind {
        Kind::Pure => None,
        Kind::Current => Some((".zattrs", "_nczarr_group")),
        Kind::Lower => Some((".zgroup", "_nczarr_group")),
        Kind::Upper => Some((".zgroup", "_NCZARR_GROUP")),
        Kind::V1 => Some((".nczgroup", "")),
    }
}

/// Apply `f` to the JSON at (object, key); an empty key is the whole object.
fn edit_at(s: &Store, (object, key): (&str, &str), f: impl FnOnce(&mut Value)) {
    s.edit(object, |v| if key.is_empty() { f(v) } else { f(&mut v[key]) });
}

#[test]
fn invalid_or_truncated_json_in_every_metadata_object() {
    for kind in KINDS {
        let s = dataset(&format!("badjson-{kind:?}"), kind);
        let keys = s.metadata_keys();
        assert!(keys.len() >= 8, "{keys:?}");
        for key in &keys {
            let good = s.get(key);
            let half = good[..good.len() / 2].to_vec();
            let corrupt: [&[u8]; 8] =
                [&half, b"{bad", b"", b"\xff\xfe{}", br#"{"a": 1,}"#, b"[1, 2", b"{\"a\" 1}", b"\0\0\0\0"];
            for bad in corrupt {
                s.put(key, bad);
                expect_open(&s, NC_ENCZARR, &format!("{kind:?} {key} = {:?}", String::from_utf8_lossy(bad)));
            }
            s.put(key, &good);
        }
        check_reference(&s.open().unwrap());
    }
}

#[test]
fn metadata_objects_of_the_wrong_json_type() {
    for kind in KINDS {
        let s = dataset(&format!("wrongtype-{kind:?}"), kind);
        for key in s.metadata_keys() {
            let good = s.get(&key);
            for bad in ["[]", "[{}]", "\"x\"", "42", "null", "true"] {
                s.put(&key, bad);
                expect_open(&s, NC_ENCZARR, &format!("{kind:?} {key} = {bad}"));
            }
            s.put(&key, &good);
        }
    }
}

/// Each edit of `v/.zarray` and the code opening must then give.
fn zarray_edits() -> Vec<(&'static str, Value, i32)> {
    vec![
        // shape
        ("shape", Value::Null, NC_ENCZARR),
        ("shape", json!("4"), NC_ENCZARR),
        ("shape", json!(["4"]), NC_ENCZARR),
        ("shape", json!([-4]), NC_ENCZARR),
        ("shape", json!([4.5]), NC_ENCZARR),
        ("shape", json!([4.0]), NC_ENCZARR),
        ("shape", json!({"0": 4}), NC_ENCZARR),
        ("shape", json!([[4]]), NC_ENCZARR),
        ("shape", json!([4, 4]), NC_ENCZARR),
        ("shape", json!([1e30]), NC_ENCZARR),
        ("shape", serde_json::from_str("[100000000000000000000]").unwrap(), NC_ENCZARR),
        // chunks
        ("chunks", Value::Null, NC_ENCZARR),
        ("chunks", json!([]), NC_ENCZARR),
        ("chunks", json!(["2"]), NC_ENCZARR),
        ("chunks", json!([0]), NC_ENCZARR),
        ("chunks", json!([-2]), NC_ENCZARR),
        ("chunks", json!([2, 2]), NC_ENCZARR),
        ("chunks", json!(2), NC_ENCZARR),
        // dtype
        ("dtype", Value::Null, NC_ENCZARR),
        ("dtype", json!(5), NC_ENCZARR),
        ("dtype", json!(["<f4"]), NC_ENCZARR),
        // order, separator, format
        ("order", json!(5), NC_ENCZARR),
        ("order", json!("X"), NC_ENCZARR),
        ("dimension_separator", json!("x"), NC_ENCZARR),
        ("dimension_separator", json!(""), NC_ENCZARR),
        ("dimension_separator", json!(46), NC_ENCZARR),
        ("zarr_format", json!(3), NC_ENCZARR),
        ("zarr_format", json!("two"), NC_ENCZARR),
        // codecs: netcdf-c's code for a chain that is not a list of objects
        ("compressor", json!("zlib"), NC_EFILTER),
        ("compressor", json!([{"id": "zlib"}]), NC_EFILTER),
        ("compressor", json!(1), NC_EFILTER),
        ("filters", json!({"id": "zlib"}), NC_EFILTER),
        ("filters", json!("zlib"), NC_EFILTER),
        ("filters", json!([5]), NC_EFILTER),
        ("filters", json!([null]), NC_EFILTER),
        ("filters", json!([[{"id": "zlib"}]]), NC_EFILTER),
        // extra keys are ignored
        ("extra", json!({"deep": [1, {"x": null}]}), NC_NOERR),
        ("_private", json!("x"), NC_NOERR),
    ]
}

#[test]
fn zarray_keys_of_the_wrong_shape() {
    for kind in KINDS {
        let s = dataset(&format!("zarray-{kind:?}"), kind);
        let good = s.get("v/.zarray");
        for (key, value, code) in zarray_edits() {
            s.edit("v/.zarray", |v| {
                if value.is_null() {
                    v.as_object_mut().unwrap().remove(key)
                } else {
                    v[key] = value.clone();
                    None
                };
            });
            expect_open(&s, code, &format!("{kind:?} {key} = {value}"));
            if code == NC_NOERR {
                check_reference(&s.open().unwrap());
            }
            s.put("v/.zarray", &good);
        }
    }
}

#[test]
fn shape_disagreeing_with_the_dimension() {
    // NCZarr: the referenced dimension is 4 long; pure Zarr: `x` of
    // another length cannot be shared, so v gets an anonymous dimension.
    for kind in KINDS {
        let s = dataset(&format!("shape5-{kind:?}"), kind);
        s.edit("v/.zarray", |v| v["shape"] = json!([5]));
        if kind == Kind::Pure {
            let nc = s.open().unwrap();
            assert_eq!(nc.all_floats("v", 5), Ok(vec![1.0, 2.0, 3.0, 4.0, 9.0]));
            assert_eq!(nc.dimlen("x"), 5);
            assert_eq!(nc.dimlen("_Anonymous_Dim_4"), 4);
        } else {
            expect_open(&s, NC_ENCZARR, &format!("{kind:?}"));
        }
    }
}

#[test]
fn codecs_of_the_wrong_shape_fail_at_data_access() {
    for kind in [Kind::Pure, Kind::Current] {
        let s = dataset(&format!("codecs-{kind:?}"), kind);
        for (key, value) in [
            ("compressor", json!({})),
            ("compressor", json!({"id": 5})),
            ("compressor", json!({"id": "no-such-codec"})),
            ("compressor", json!({"id": "zlib\u{0}"})),
            ("filters", json!([{}])),
            ("filters", json!([{"id": ["shuffle"]}])),
        ] {
            s.edit("v/.zarray", |v| v[key] = value.clone());
            let nc = s.open().unwrap_or_else(|e| panic!("{kind:?} {key} = {value}: {e}"));
            assert_eq!(nc.all_floats("v", 4), Err(NC_ENOFILTER), "{kind:?} {key} = {value}");
            assert_eq!(nc.ints("w", &[0], &[4]), Ok(vec![10, 20, 30, 40]));
            drop(nc);
            s.edit("v/.zarray", |v| v[key] = Value::Null);
        }
    }
}

#[test]
fn unknown_dtypes_are_listed_with_data_refused() {
    for kind in KINDS {
        let s = dataset(&format!("dtype-{kind:?}"), kind);
        for dtype in
            ["<q9", "<f2", "|O", "<é4", "", "<", "<i", "<i99999999999999999999", "<U0", "|V8", "<M8[ns]", "\u{0}"]
        {
            s.edit("v/.zarray", |v| v["dtype"] = json!(dtype));
            let nc = s.open().unwrap_or_else(|e| panic!("{kind:?} dtype {dtype:?}: {e}"));
            assert_eq!(nc.all_floats("v", 4), Err(NC_EBADTYPE), "{kind:?} dtype {dtype:?}");
            assert_eq!(nc.att_text(nc.varid("v"), "units"), Ok("K".into()));
            assert_eq!(nc.ints("w", &[0], &[4]), Ok(vec![10, 20, 30, 40]));
        }
    }
}

/// What reading variable `var` must give after its fill value was set.
#[track_caller]
fn expect_fill(s: &Store, kind: Kind, var: &str, fill: &Value, want: Result<f64, i32>) {
    let what = format!("{kind:?} {var} fill_value {fill}");
    let nc = s.open().unwrap_or_else(|e| panic!("{what}: open {e}"));
    assert_eq!(nc.nvars(), 2, "{what}");
    match want {
        Ok(x) => {
            if var == "v" {
                let (no_fill, value) = nc.fill("v").unwrap();
                assert_eq!(no_fill, 0, "{what}");
                assert!(value == x || (value.is_nan() && x.is_nan()), "{what}: fill {value}");
                assert_eq!(nc.all_floats("v", 4), Ok(vec![1.0, 2.0, 3.0, 4.0]), "{what}");
            } else {
                let mut value = 0i32;
                let code = unsafe {
                    nc_inq_var_fill(nc.0, nc.varid("w"), std::ptr::null_mut(), &mut value as *mut i32 as *mut c_void)
                };
                assert_eq!((code, value as f64), (NC_NOERR, x), "{what}");
            }
        }
        Err(code) => {
            assert_eq!(nc.fill(var).err(), Some(code), "{what}: nc_inq_var_fill");
            if var == "v" {
                assert_eq!(nc.all_floats("v", 4), Err(code), "{what}: data");
                assert_eq!(nc.floats("v", &[1], &[1]), Err(code), "{what}: data");
                assert_eq!(nc.att_text(nc.varid("v"), "units"), Ok("K".into()), "{what}: attributes");
                assert_eq!(nc.ints("w", &[0], &[4]), Ok(vec![10, 20, 30, 40]), "{what}: other variable");
            } else {
                assert_eq!(nc.ints("w", &[0], &[4]), Err(code), "{what}: data");
                assert_eq!(nc.all_floats("v", 4), Ok(vec![1.0, 2.0, 3.0, 4.0]), "{what}: other variable");
            }
            drop(nc);
            // Writing is refused too (legacy layouts are read-only anyway).
            let nc = open_url_mode(&s.url("nczarr"), NC_WRITE).unwrap();
            let varid = nc.varid(var);
            let data = [0f32; 1];
            let code_put =
                unsafe { nc_put_vara_float(nc.0, varid, [0usize].as_ptr(), [1usize].as_ptr(), data.as_ptr()) };
            let legacy = matches!(kind, Kind::Lower | Kind::Upper | Kind::V1);
            assert_eq!(code_put, if legacy { NC_EPERM } else { code }, "{what}: write");
        }
    }
}

#[test]
fn fill_values_that_are_not_of_the_variables_type() {
    for kind in KINDS {
        let s = dataset(&format!("fill-{kind:?}"), kind);
        let cases: Vec<(&str, Value, Result<f64, i32>)> = vec![
            ("v", json!("abc"), Err(NC_ENCZARR)),
            ("v", json!({}), Err(NC_ENCZARR)),
            ("v", json!({"value": 1}), Err(NC_ENCZARR)),
            // netcdf-c 4.8.0 wrote a one-element list (its bug #2008).
            ("v", json!([1]), if kind == Kind::V1 { Ok(1.0) } else { Err(NC_ENCZARR) }),
            ("v", json!([1, 2]), Err(NC_ENCZARR)),
            ("v", json!([]), Err(NC_ENCZARR)),
            ("v", json!(true), Err(NC_ENCZARR)),
            ("v", json!(""), Err(NC_ENCZARR)),
            ("v", json!("1.5.2"), Err(NC_ENCZARR)),
            ("v", json!("NaN"), Ok(f64::NAN)),
            ("v", json!("-Infinity"), Ok(f64::NEG_INFINITY)),
            ("v", json!("2.5"), Ok(2.5)),
            ("v", json!(1e39), Ok(f64::INFINITY)),
            ("w", json!(3e9), Err(NC_ERANGE)),
            ("w", json!(4294967296u64), Err(NC_ERANGE)),
            ("w", json!(u64::MAX), Err(NC_ERANGE)),
            ("w", json!("NaN"), Err(NC_ERANGE)),
            ("w", json!("abc"), Err(NC_ENCZARR)),
            ("w", json!(false), Err(NC_ENCZARR)),
            ("w", json!([[7]]), Err(NC_ENCZARR)),
            ("w", json!(-7), Ok(-7.0)),
            ("w", json!("-7"), Ok(-7.0)),
        ];
        for (var, fill, want) in cases {
            let good = s.get(&format!("{var}/.zarray"));
            s.edit(&format!("{var}/.zarray"), |v| v["fill_value"] = fill.clone());
            expect_fill(&s, kind, var, &fill, want);
            s.put(&format!("{var}/.zarray"), &good);
        }
    }
}

#[test]
fn bad_fill_value_attribute_refuses_only_that_variables_data() {
    // `_FillValue` in `.zattrs` is decoded with the variable's type.
    for kind in [Kind::Pure, Kind::Current] {
        let s = dataset(&format!("fillatt-{kind:?}"), kind);
        for bad in [json!("abc"), json!({"a": 1}), json!([[1]])] {
            s.edit("v/.zattrs", |v| v["_FillValue"] = bad.clone());
            let nc = s.open().unwrap();
            assert_eq!(nc.all_floats("v", 4), Err(NC_ENCZARR), "{kind:?} {bad}");
            assert_eq!(nc.fill("v").err(), Some(NC_ENCZARR));
            assert_eq!(nc.att_text(nc.varid("v"), "_FillValue").err(), Some(NC_ENOTATT));
            assert_eq!(nc.att_text(nc.varid("v"), "units"), Ok("K".into()));
            assert_eq!(nc.ints("w", &[0], &[4]), Ok(vec![10, 20, 30, 40]));
        }
    }
}

#[test]
fn bool_fill_of_a_bool_dtype_is_fine() {
    let s = dataset("fill-bool", Kind::Pure);
    s.put_json("w/.zarray", &zarray("|b1", &[4], &[4], json!(true)));
    s.put("w/0", [1u8, 0, 1, 1]);
    let nc = s.open().unwrap();
    assert_eq!(nc.ints("w", &[0], &[4]), Ok(vec![1, 0, 1, 1]));
}
