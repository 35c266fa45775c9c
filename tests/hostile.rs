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

// The unsafe blocks here call the C API with CStrings and buffers this file
// owns, sized for what each call writes; the allocator's forward to System.
#![allow(clippy::undocumented_unsafe_blocks, reason = "C API calls on this file's own buffers")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{CString, c_char, c_void};
use std::io::Write;
use std::path::PathBuf;

use netcdf::capi::att::{nc_get_att_text, nc_inq_att, nc_inq_attname};
use netcdf::capi::data_typed::{
    nc_get_vara, nc_get_vara_double, nc_get_vara_float, nc_get_vara_int, nc_get_vars_float, nc_put_vara_float,
};
use netcdf::capi::dim::{nc_inq_dimid, nc_inq_dimlen};
use netcdf::capi::file::{nc_close, nc_inq_nvars, nc_open};
use netcdf::capi::group::{nc_inq_grp_ncid, nc_inq_grps};
use netcdf::capi::var::{nc_copy_var, nc_inq_var_chunking, nc_inq_var_fill, nc_inq_varid, nc_inq_varnatts};
use serde_json::{Value, json};

// ----- the allocator ---------------------------------------------------

/// Largest single allocation the library may make in these tests.
const MAX_ALLOC: usize = 1 << 30;

struct Capped;

thread_local! {
    /// The largest single allocation this thread made since [`peak_alloc`]
    /// reset it.
    static PEAK: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether an allocation of `size` bytes may go ahead (and note it).
fn allowed(size: usize) -> bool {
    let _ = PEAK.try_with(|p| p.set(p.get().max(size)));
    size <= MAX_ALLOC
}

/// Run `f`; return its result and the largest single allocation made
/// on this thread meanwhile.
fn peak_alloc<R>(f: impl FnOnce() -> R) -> (R, usize) {
    PEAK.with(|p| p.set(0));
    let r = f();
    (r, PEAK.with(|p| p.get()))
}

// SAFETY: forwards to the system allocator, refusing big requests (a null
// return is the allocator's documented way to fail).
unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, passed on unchanged.
        if allowed(layout.size()) { unsafe { System.alloc(layout) } } else { std::ptr::null_mut() }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in alloc.
        if allowed(layout.size()) { unsafe { System.alloc_zeroed(layout) } } else { std::ptr::null_mut() }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from System through this allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as in dealloc.
        if allowed(new_size) { unsafe { System.realloc(ptr, layout, new_size) } } else { std::ptr::null_mut() }
    }
}

#[global_allocator]
static ALLOCATOR: Capped = Capped;

// ----- error codes -----------------------------------------------------

const NC_NOERR: i32 = 0;
const NC_EINVAL: i32 = -36;
const NC_EINVALCOORDS: i32 = -40;
const NC_EMAXDIMS: i32 = -41;
const NC_EBADTYPE: i32 = -45;
const NC_ENOTNC: i32 = -51;
const NC_EEDGE: i32 = -57;
const NC_ERANGE: i32 = -60;
const NC_ENOMEM: i32 = -61;
const NC_EURL: i32 = -74;
const NC_EACCESS: i32 = -77;
const NC_ENOTBUILT: i32 = -128;
const NC_EFILTER: i32 = -132;
const NC_ENOFILTER: i32 = -136;
const NC_ENCZARR: i32 = -137;

const NC_WRITE: i32 = 1;
const NC_GLOBAL: i32 = -1;

// ----- stores ----------------------------------------------------------

/// A scratch store directory, removed when dropped.
struct Store {
    root: PathBuf,
}

/// A scratch path of this test run (nothing is left there afterwards).
fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("nczarr-rs-hostile-{}-{name}", std::process::id()))
}

impl Store {
    fn new(name: &str) -> Store {
        let root = scratch(name);
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

    /// Open trusting `.zmetadata` (`mode=consolidated`, as remote stores
    /// are opened): a local open reads the objects themselves.
    fn open_consolidated(&self) -> Result<Nc, i32> {
        open_url(&self.url("nczarr,consolidated"))
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
    /// (A request bigger than 2^20 values must fail: it gets a small buffer.)
    fn floats(&self, var: &str, start: &[usize], count: &[usize]) -> Result<Vec<f32>, i32> {
        let v = self.varid(var);
        let n = count.iter().try_fold(1usize, |p, &c| p.checked_mul(c)).unwrap_or(usize::MAX);
        let mut buf = vec![SENTINEL; n.min(1 << 20)];
        let code = unsafe { nc_get_vara_float(self.0, v, start.as_ptr(), count.as_ptr(), buf.as_mut_ptr()) };
        if code == NC_NOERR {
            Ok(buf)
        } else {
            assert!(buf.iter().all(|x| x.to_bits() == SENTINEL.to_bits()), "{var}: wrong bytes delivered with {code}");
            Err(code)
        }
    }

    /// Read floats across chunks: on error only the code is asserted, as
    /// parts from intact chunks (read concurrently) may have been delivered.
    fn floats_spanning(&self, var: &str, start: &[usize], count: &[usize]) -> Result<Vec<f32>, i32> {
        let v = self.varid(var);
        let mut buf = vec![SENTINEL; count.iter().product()];
        match unsafe { nc_get_vara_float(self.0, v, start.as_ptr(), count.as_ptr(), buf.as_mut_ptr()) } {
            NC_NOERR => Ok(buf),
            code => Err(code),
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
            // The 4.8.0 release's own spellings for the root and for `w`,
            // the 4.8.1-dev ones (`.nczattrs`, `.nczarray`) elsewhere.
            s.put_json(".nczattr", &json!({"types": {"title": "2"}}));
            s.put_json("g/.zgroup", &json!({"zarr_format": 2}));
            s.put_json("g/.nczgroup", &json!({"dims": {}, "vars": ["u"], "groups": []}));
            for (key, arr, atts) in [("v", &v, json!({"units": "K"})), ("w", &w, json!({})), ("g/u", &u, json!({}))] {
                s.put_json(&format!("{key}/.zarray"), arr);
                s.put_json(&format!("{key}/.zattrs"), &atts);
                let object = if key == "w" { ".nczvar" } else { ".nczarray" };
                s.put_json(&format!("{key}/{object}"), &json!({"dimrefs": ["/x"], "storage": "chunked"}));
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

/// The reference dataset's data, as [`dataset`] stores it.
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
        ("dtype", json!([["a", "<f4", 2, 3]]), NC_ENCZARR),
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
            // Writing is refused too, in every layout.
            let nc = open_url_mode(&s.url("nczarr"), NC_WRITE).unwrap();
            let varid = nc.varid(var);
            let data = [0f32; 1];
            let code_put =
                unsafe { nc_put_vara_float(nc.0, varid, [0usize].as_ptr(), [1usize].as_ptr(), data.as_ptr()) };
            assert_eq!(code_put, code, "{what}: write");
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
fn a_fill_value_attribute_that_does_not_decode_is_kept_as_text() {
    // `_FillValue` in `.zattrs` is decoded with the variable's type; one
    // that is not of it is shown as its text, and the variable's data
    // (whose fill is `.zarray`'s) reads as ever.
    for kind in [Kind::Pure, Kind::Current] {
        let s = dataset(&format!("fillatt-{kind:?}"), kind);
        let good = s.open().unwrap().all_floats("v", 4);
        assert!(good.is_ok());
        for (bad, text) in [(json!("abc"), "abc"), (json!({"a": 1}), r#"{"a":1}"#), (json!([[1]]), "[[1]]")] {
            s.edit("v/.zattrs", |v| v["_FillValue"] = bad.clone());
            let nc = s.open().unwrap();
            assert_eq!(nc.all_floats("v", 4), good, "{kind:?} {bad}");
            assert_eq!(nc.att_text(nc.varid("v"), "_FillValue"), Ok(text.into()));
            assert_eq!(nc.att_text(nc.varid("v"), "units"), Ok("K".into()));
            assert_eq!(nc.ints("w", &[0], &[4]), Ok(vec![10, 20, 30, 40]));
        }
    }
}

#[test]
fn xarrays_base64_float_fill_value_decodes() {
    // xarray (and VirtualiZarr's references) write a float `_FillValue`
    // as the base64 of its little-endian f64.
    let s = dataset("fillatt-base64", Kind::Pure);
    for (text, want) in [("AAAAAAAA+H8=", f64::NAN), ("AAAAAAAA8L8=", -1.0), ("AAAAAAAAWUA=", 100.0)] {
        s.edit("v/.zattrs", |v| v["_FillValue"] = json!(text));
        let nc = s.open().unwrap();
        let mut got = [0f32; 1];
        let code = unsafe {
            netcdf::capi::att::nc_get_att_float(nc.0, nc.varid("v"), c"_FillValue".as_ptr(), got.as_mut_ptr())
        };
        assert_eq!(code, NC_NOERR, "{text}");
        assert!(got[0] == want as f32 || (want.is_nan() && got[0].is_nan()), "{text}: {}", got[0]);
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

// ----- chunks -------------------------------------------------------------

/// Reads of variable `v` (chunks of 2 floats) that take each of the read
/// paths for its chunk 0: straight into the buffer, one byte range, a
/// range per run, the whole chunk.
fn read_v_chunk0(nc: &Nc) -> Vec<(&'static str, Result<Vec<f64>, i32>)> {
    let v = nc.varid("v");
    let doubles = |start: usize, count: usize| {
        let mut buf = vec![SENTINEL as f64; count];
        let code = unsafe { nc_get_vara_double(nc.0, v, [start].as_ptr(), [count].as_ptr(), buf.as_mut_ptr()) };
        if code == NC_NOERR {
            Ok(buf)
        } else {
            assert!(buf.iter().all(|&x| x == SENTINEL as f64), "wrong bytes delivered with {code}");
            Err(code)
        }
    };
    let strided = || {
        let mut buf = [SENTINEL; 1];
        let code = unsafe { nc_get_vars_float(nc.0, v, [0].as_ptr(), [1].as_ptr(), [2].as_ptr(), buf.as_mut_ptr()) };
        if code == NC_NOERR {
            Ok(vec![buf[0] as f64])
        } else {
            assert_eq!(buf[0].to_bits(), SENTINEL.to_bits(), "wrong bytes delivered with {code}");
            Err(code)
        }
    };
    let floats = |start, count| nc.floats("v", &[start], &[count]).map(|v| v.iter().map(|&x| x as f64).collect());
    vec![
        ("direct, whole chunk", floats(0, 2)),
        ("direct, one element", floats(1, 1)),
        ("converted, one element (range)", doubles(1, 1)),
        ("converted, whole chunk", doubles(0, 2)),
        ("strided", strided()),
    ]
}

/// The 2-d float variable `m` (8 x 8 in chunks of 4 x 4) holding 0..64,
/// and reads of its chunk (0, 0) by each path.
fn add_m(s: &Store, kind: Kind) {
    s.put_json("m/.zarray", &zarray("<f4", &[8, 8], &[4, 4], json!(-1.0)));
    match kind {
        Kind::Pure => s.put_json("m/.zattrs", &json!({"_ARRAY_DIMENSIONS": ["y", "z"]})),
        _ => {
            s.put_json(
                "m/.zattrs",
                &json!({"_nczarr_array": {"dimension_references": ["/y", "/z"], "storage": "chunked"}}),
            );
            s.edit(".zattrs", |a| {
                a["_nczarr_group"]["dimensions"]["y"] = json!(8);
                a["_nczarr_group"]["dimensions"]["z"] = json!(8);
                a["_nczarr_group"]["arrays"] = json!(["v", "w", "m"]);
            });
        }
    }
    for (ci, cj) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let vals: Vec<f32> = (0..16).map(|k| ((ci * 4 + k / 4) * 8 + cj * 4 + k % 4) as f32).collect();
        s.put(&format!("m/{ci}.{cj}"), le_floats(&vals));
    }
}

fn read_m_chunk00(nc: &Nc) -> Vec<(&'static str, Result<Vec<f32>, i32>)> {
    let m = nc.varid("m");
    let vars = |start: [usize; 2], count: [usize; 2], stride: [isize; 2]| {
        let n = count[0] * count[1];
        let mut buf = vec![SENTINEL; n];
        let code =
            unsafe { nc_get_vars_float(nc.0, m, start.as_ptr(), count.as_ptr(), stride.as_ptr(), buf.as_mut_ptr()) };
        if code == NC_NOERR {
            Ok(buf)
        } else {
            assert!(buf.iter().all(|x| x.to_bits() == SENTINEL.to_bits()), "wrong bytes delivered with {code}");
            Err(code)
        }
    };
    let mut doubles = [SENTINEL as f64; 1];
    let code = unsafe { nc_get_vara_double(nc.0, m, [1, 1].as_ptr(), [1, 1].as_ptr(), doubles.as_mut_ptr()) };
    let converted = if code == NC_NOERR { Ok(vec![doubles[0] as f32]) } else { Err(code) };
    assert!(code == NC_NOERR || doubles[0] == SENTINEL as f64);
    vec![
        ("direct rows", nc.floats("m", &[1, 0], &[2, 4])),
        ("one element, converted (range)", converted),
        ("runs", vars([0, 1], [2, 1], [3, 1])),
        ("whole chunk, strided", vars([0, 0], [4, 2], [1, 2])),
        // The intact chunks' parts may be delivered beside the error.
        ("spanning chunks", nc.floats_spanning("m", &[3, 3], &[2, 2])),
    ]
}

#[test]
fn raw_chunks_of_the_wrong_size() {
    for kind in [Kind::Pure, Kind::Current] {
        let s = dataset(&format!("rawsize-{kind:?}"), kind);
        add_m(&s, kind);
        {
            let nc = s.open().unwrap();
            for (what, r) in read_v_chunk0(&nc) {
                assert!(r.is_ok(), "{what}: {r:?}");
            }
            for (what, r) in read_m_chunk00(&nc) {
                assert!(r.is_ok(), "{what}: {r:?}");
            }
            assert_eq!(nc.floats("m", &[0, 1], &[4, 1]), Ok(vec![1.0, 9.0, 17.0, 25.0]));
        }
        let good_v = s.get("v/0");
        let good_m = s.get("m/0.0");
        for size in [0usize, 1, 7, 9, 12, 16, 63, 65, 128, 100_000] {
            let bytes: Vec<u8> = (0..size).map(|i| i as u8).collect();
            s.put("v/0", &bytes);
            s.put("m/0.0", &bytes);
            let nc = s.open().unwrap();
            for (what, r) in read_v_chunk0(&nc) {
                assert_eq!(r, Err(NC_ENCZARR), "{kind:?} v/0 of {size} bytes, {what}");
            }
            for (what, r) in read_m_chunk00(&nc) {
                assert_eq!(r, Err(NC_ENCZARR), "{kind:?} m/0.0 of {size} bytes, {what}");
            }
            // The other chunks still read.
            assert_eq!(nc.floats("v", &[2], &[2]), Ok(vec![3.0, 4.0]));
            drop(nc);
            // A write into the chunk must read it first: refused, chunk untouched.
            let nc = open_url_mode(&s.url("nczarr"), NC_WRITE).unwrap();
            let code = unsafe { nc_put_vara_float(nc.0, nc.varid("v"), [1].as_ptr(), [1].as_ptr(), [5.0f32].as_ptr()) };
            assert_eq!(code, NC_ENCZARR, "{kind:?} write into v/0 of {size} bytes");
            drop(nc);
            assert_eq!(s.get("v/0"), bytes);
        }
        s.put("v/0", &good_v);
        s.put("m/0.0", &good_m);
    }
}

/// numcodecs' LZ4 framing: the decoded size (u32, little-endian), then
/// one LZ4 block.
fn lz4_frame(data: &[u8]) -> Vec<u8> {
    lz4_flex::block::compress_prepend_size(data)
}

/// A blosc 1 frame holding `data` uncompressed ("memcpyed"), claiming
/// `nbytes` decoded bytes.
fn blosc_memcpy(data: &[u8], nbytes: u32) -> Vec<u8> {
    let mut out = vec![2u8, 1, 0x02 | 0x10, 4];
    out.extend_from_slice(&nbytes.to_le_bytes());
    out.extend_from_slice(&nbytes.to_le_bytes());
    out.extend_from_slice(&((16 + data.len()) as u32).to_le_bytes());
    out.extend_from_slice(data);
    out
}

/// A blosc 1 frame: one unsplit block of `nbytes` claimed bytes whose
/// stream is `stream` in inner format `format` (1 lz4, 3 zlib, 4 zstd).
fn blosc_block(stream: &[u8], nbytes: u32, format: u8) -> Vec<u8> {
    let mut out = vec![2u8, 1, 0x10 | (format << 5), 4];
    out.extend_from_slice(&nbytes.to_le_bytes());
    out.extend_from_slice(&nbytes.to_le_bytes());
    out.extend_from_slice(&((16 + 4 + 4 + stream.len()) as u32).to_le_bytes());
    out.extend_from_slice(&20u32.to_le_bytes());
    out.extend_from_slice(&(stream.len() as u32).to_le_bytes());
    out.extend_from_slice(stream);
    out
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn bz2(data: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(9));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn fletcher32_of(data: &[u8]) -> u32 {
    // HDF5's Fletcher-32 over 16-bit big-endian words (odd byte padded).
    let (mut a, mut b) = (0u32, 0u32);
    let mut words: Vec<u16> = data.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])).collect();
    if data.len() % 2 == 1 {
        let last = words.len() - 1;
        words[last] = (data[data.len() - 1] as u16) << 8;
    }
    for chunk in words.chunks(360) {
        for &w in chunk {
            a += w as u32;
            b += a;
        }
        a = (a & 0xffff) + (a >> 16);
        b = (b & 0xffff) + (b >> 16);
    }
    a = (a & 0xffff) + (a >> 16);
    b = (b & 0xffff) + (b >> 16);
    (b << 16) | a
}

type Encoder = Box<dyn Fn(&[u8]) -> Vec<u8>>;

/// Each codec: its `.zarray` entry and an encoder (numcodecs formats).
fn codecs() -> Vec<(&'static str, Value, Encoder)> {
    vec![
        ("zlib", json!({"id": "zlib", "level": 1}), Box::new(zlib)),
        ("gzip", json!({"id": "gzip", "level": 1}), Box::new(gzip)),
        ("bz2", json!({"id": "bz2", "level": 9}), Box::new(bz2)),
        ("zstd", json!({"id": "zstd", "level": 3}), Box::new(|d: &[u8]| zstd::bulk::compress(d, 3).unwrap())),
        ("lz4", json!({"id": "lz4", "acceleration": 1}), Box::new(lz4_frame)),
        (
            "blosc memcpyed",
            json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 0}),
            Box::new(|d: &[u8]| blosc_memcpy(d, d.len() as u32)),
        ),
        (
            "blosc lz4",
            json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 0}),
            Box::new(|d: &[u8]| blosc_block(&lz4_flex::block::compress(d), d.len() as u32, 1)),
        ),
        (
            "blosc zstd",
            json!({"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 0}),
            Box::new(|d: &[u8]| blosc_block(&zstd::bulk::compress(d, 3).unwrap(), d.len() as u32, 4)),
        ),
        (
            "blosc zlib",
            json!({"id": "blosc", "cname": "zlib", "clevel": 5, "shuffle": 0}),
            Box::new(|d: &[u8]| blosc_block(&zlib(d), d.len() as u32, 3)),
        ),
        (
            "blosc blosclz",
            json!({"id": "blosc", "cname": "blosclz", "clevel": 5, "shuffle": 0}),
            Box::new(|d: &[u8]| blosc_block(&blosclz_literals(d), d.len() as u32, 0)),
        ),
        ("shuffle", json!({"id": "shuffle", "elementsize": 4}), Box::new(|d: &[u8]| shuffle4(d))),
        (
            "fletcher32",
            json!({"id": "fletcher32"}),
            Box::new(|d: &[u8]| [d, &fletcher32_of(d).to_le_bytes()[..]].concat()),
        ),
    ]
}

/// A blosclz stream of literal runs only (a control byte below 32 is
/// followed by that many plus one literal bytes).
fn blosclz_literals(d: &[u8]) -> Vec<u8> {
    d.chunks(32).flat_map(|run| [&[(run.len() - 1) as u8][..], run].concat()).collect()
}

fn shuffle4(d: &[u8]) -> Vec<u8> {
    let n = d.len() / 4;
    let mut out = d.to_vec();
    for i in 0..n {
        for b in 0..4 {
            out[b * n + i] = d[i * 4 + b];
        }
    }
    out
}

/// `v` with one codec, its chunks encoded.
fn with_codec(s: &Store, codec: &Value, encode: &dyn Fn(&[u8]) -> Vec<u8>) {
    s.edit("v/.zarray", |v| {
        if codec["id"] == "shuffle" || codec["id"] == "fletcher32" {
            v["filters"] = json!([codec]);
            v["compressor"] = Value::Null;
        } else {
            v["compressor"] = codec.clone();
            v["filters"] = Value::Null;
        }
    });
    s.put("v/0", encode(&le_floats(&[1.0, 2.0])));
    s.put("v/1", encode(&le_floats(&[3.0, 4.0])));
}

#[test]
fn compressed_chunks_that_decode_to_the_wrong_size() {
    for kind in [Kind::Pure, Kind::Current] {
        let s = dataset(&format!("codecsize-{kind:?}"), kind);
        for (name, codec, encode) in codecs() {
            with_codec(&s, &codec, &*encode);
            {
                let nc = s.open().unwrap();
                for (what, r) in read_v_chunk0(&nc) {
                    assert!(r.is_ok(), "{name} {what}: {r:?}");
                }
                assert_eq!(nc.all_floats("v", 4), Ok(vec![1.0, 2.0, 3.0, 4.0]), "{name}");
            }
            let wrong: Vec<Vec<u8>> = [0usize, 1, 4, 7, 9, 12, 16, 24, 25, 4096]
                .iter()
                .map(|&n| encode(&(0..n).map(|i| i as u8).collect::<Vec<u8>>()))
                .chain([Vec::new(), b"garbage, not a stream".to_vec(), vec![0xff; 64]])
                .collect();
            for bytes in wrong {
                s.put("v/0", &bytes);
                let nc = s.open().unwrap();
                for (what, r) in read_v_chunk0(&nc) {
                    assert_eq!(r, Err(NC_EFILTER), "{kind:?} {name} chunk of {} stored bytes, {what}", bytes.len());
                }
                assert_eq!(nc.floats("v", &[2], &[2]), Ok(vec![3.0, 4.0]), "{name}");
                drop(nc);
                // A write into part of the chunk must decode it first.
                let nc = open_url_mode(&s.url("nczarr"), NC_WRITE).unwrap();
                let code =
                    unsafe { nc_put_vara_float(nc.0, nc.varid("v"), [1].as_ptr(), [1].as_ptr(), [5.0f32].as_ptr()) };
                assert_eq!(code, NC_EFILTER, "{kind:?} {name} write");
                drop(nc);
                assert_eq!(s.get("v/0"), bytes, "{name}: the chunk is left as it was");
            }
        }
    }
}

// ----- decompression bombs -----------------------------------------------

/// LSB-first bit writer for deflate.
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn new() -> Bits {
        Bits { out: Vec::new(), acc: 0, n: 0 }
    }
    /// `len` bits of `value`, least significant first.
    fn put(&mut self, value: u64, len: u32) {
        self.acc |= value << self.n;
        self.n += len;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
    /// A Huffman code: most significant bit first.
    fn code(&mut self, code: u64, len: u32) {
        let reversed = (0..len).fold(0, |r, i| r | ((code >> i) & 1) << (len - 1 - i));
        self.put(reversed, len);
    }
    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// A raw deflate stream that expands to about `size` zero bytes: one
/// fixed-Huffman block, a literal 0, then matches of 258 at distance 1
/// (13 bits each: deflate's best ratio, about 1:1000).
fn deflate_bomb(size: u64) -> Vec<u8> {
    let mut b = Bits::new();
    b.put(1, 1); // last block
    b.put(1, 2); // fixed Huffman codes
    b.code(0b0011_0000, 8); // literal 0
    for _ in 0..size / 258 {
        b.code(0b1100_0101, 8); // length 258 (code 285)
        b.code(0, 5); // distance 1
    }
    b.code(0, 7); // end of block
    b.finish()
}

fn zlib_bomb(size: u64) -> Vec<u8> {
    [&[0x78u8, 0x01][..], &deflate_bomb(size)].concat()
}

fn gzip_bomb(size: u64) -> Vec<u8> {
    [&[0x1fu8, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff][..], &deflate_bomb(size)].concat()
}

/// A zstd frame of RLE blocks (4 bytes each for 128 KiB of zeros), with
/// no content size: about `size` bytes, from size / 32768 stored bytes.
fn zstd_bomb(size: u64) -> Vec<u8> {
    let mut out = vec![0x28, 0xb5, 0x2f, 0xfd];
    out.push(0x00); // no content size, not single segment
    out.push(7 << 3); // window 2^(10+7) = 128 KiB
    let blocks = size.div_ceil(128 << 10);
    for i in 0..blocks {
        let last = (i + 1 == blocks) as u32;
        let header = last | (1 << 1) | ((128 << 10) << 3); // RLE block of 128 KiB
        out.extend_from_slice(&header.to_le_bytes()[..3]);
        out.push(0);
    }
    out
}

/// A zstd frame that says it holds `size` bytes but stops short.
fn zstd_claim(size: u64) -> Vec<u8> {
    let mut out = vec![0x28, 0xb5, 0x2f, 0xfd];
    out.push(0b1100_0000); // 8-byte content size, not single segment
    out.push(7 << 3);
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&[1 << 1 | (16 << 3), 0, 0, 0]); // one RLE block of 16, not last
    out
}

fn bz2_zeros(size: usize) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(9));
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..size >> 20 {
        e.write_all(&zeros).unwrap();
    }
    e.finish().unwrap()
}

/// An LZ4 block that expands to about `size` zeros: a literal 0, then
/// one long match at offset 1, then the 5 literals a block must end with.
fn lz4_block_bomb(size: usize) -> Vec<u8> {
    let mut out = vec![0x1f, 0]; // 1 literal, match length 15+...
    out.extend_from_slice(&1u16.to_le_bytes());
    let mut rest = size - 4 - 15 - 5;
    while rest >= 255 {
        out.push(255);
        rest -= 255;
    }
    out.push(rest as u8);
    out.push(0x50); // 5 final literals
    out.extend_from_slice(&[0; 5]);
    out
}

#[test]
fn bombs_stop_at_the_chunk_size() {
    const GIB: u64 = 1 << 30;
    let s = dataset("bombs", Kind::Pure);
    // Each: codec, stored chunk, what it would expand to.
    let bz2 = bz2_zeros(64 << 20);
    let cases: Vec<(&str, Value, Vec<u8>)> = vec![
        ("zlib 1 GiB", json!({"id": "zlib"}), zlib_bomb(GIB)),
        ("gzip 1 GiB", json!({"id": "gzip"}), gzip_bomb(GIB)),
        ("zstd 16 GiB", json!({"id": "zstd"}), zstd_bomb(16 * GIB)),
        ("zstd claiming 2^60", json!({"id": "zstd"}), zstd_claim(1 << 60)),
        ("bz2 64 MiB", json!({"id": "bz2"}), bz2),
        ("lz4 claiming 4 GiB", json!({"id": "lz4"}), [&u32::MAX.to_le_bytes()[..], &lz4_block_bomb(1 << 16)].concat()),
        (
            "lz4 claiming 8, holding 64 KiB",
            json!({"id": "lz4"}),
            [&8u32.to_le_bytes()[..], &lz4_block_bomb(1 << 16)].concat(),
        ),
        ("blosc claiming 4 GiB", json!({"id": "blosc"}), blosc_memcpy(&[0; 8], u32::MAX)),
        ("blosc lz4 holding 64 KiB", json!({"id": "blosc"}), blosc_block(&lz4_block_bomb(1 << 16), 8, 1)),
        ("blosc zstd 16 GiB", json!({"id": "blosc"}), blosc_block(&zstd_bomb(16 * GIB), 8, 4)),
        ("blosc zlib 1 GiB", json!({"id": "blosc"}), blosc_block(&zlib_bomb(GIB), 8, 3)),
        ("blosc 4 GiB in 1-byte blocks", json!({"id": "blosc"}), {
            let mut f = blosc_block(&[0], 8, 1);
            f[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
            f[8..12].copy_from_slice(&1u32.to_le_bytes());
            f
        }),
    ];
    for (what, codec, stored) in cases {
        assert!(stored.len() < 8 << 20, "{what}: {} bytes", stored.len());
        s.edit("v/.zarray", |v| v["compressor"] = codec.clone());
        s.put("v/0", &stored);
        let nc = s.open().unwrap();
        let (r, peak) = peak_alloc(|| nc.floats("v", &[0], &[2]));
        assert_eq!(r, Err(NC_EFILTER), "{what}");
        // Nothing much bigger than the stored chunk itself was allocated
        // (bzip2 needs 3.6 MB for its block, whatever the chunk).
        assert!(peak < stored.len() + (4 << 20), "{what}: allocated {peak} bytes");
    }
}

// ----- absurd sizes ------------------------------------------------------

/// A store holding one variable `a` with this `.zarray`; for NCZarr its
/// dimensions are `d0`, `d1`, ... of the shape's lengths.
fn one_var(name: &str, kind: Kind, zarray: Value) -> Store {
    let s = Store::new(name);
    let shape: Vec<u64> =
        zarray["shape"].as_array().map(|a| a.iter().filter_map(Value::as_u64).collect()).unwrap_or_default();
    let dims: Vec<String> = (0..shape.len()).map(|i| format!("d{i}")).collect();
    s.put_json(".zgroup", &json!({"zarr_format": 2}));
    s.put_json("a/.zarray", &zarray);
    match kind {
        Kind::Pure => {
            s.put_json(".zattrs", &json!({}));
            s.put_json("a/.zattrs", &json!({"_ARRAY_DIMENSIONS": dims}));
        }
        _ => {
            let dim_map: serde_json::Map<String, Value> =
                dims.iter().zip(&shape).map(|(d, &n)| (d.clone(), json!(n))).collect();
            s.put_json(
                ".zattrs",
                &json!({"_nczarr_group": {"dimensions": dim_map, "arrays": ["a"], "groups": []},
                        "_nczarr_superblock": {"version": "2.0.0"}}),
            );
            let refs: Vec<String> = dims.iter().map(|d| format!("/{d}")).collect();
            s.put_json("a/.zattrs", &json!({"_nczarr_array": {"dimension_references": refs, "storage": "chunked"}}));
        }
    }
    s
}

const HUGE: u64 = 1 << 62;

#[test]
fn a_2_to_the_62_element_variable_opens_and_reads_small_parts() {
    for kind in [Kind::Pure, Kind::Current] {
        for compressor in [Value::Null, json!({"id": "zlib"})] {
            let mut za = zarray("<f4", &[HUGE], &[1000], json!(9.5));
            za["compressor"] = compressor.clone();
            let s = one_var(&format!("huge-{kind:?}-{}", compressor.is_null()), kind, za);
            let what = format!("{kind:?} compressor {compressor}");
            let (nc, peak) = peak_alloc(|| s.open());
            let nc = nc.unwrap();
            assert!(peak < 1 << 20, "{what}: open allocated {peak} bytes");
            assert_eq!(nc.dimlen("d0"), HUGE as usize);
            let n = HUGE as usize;
            assert_eq!(nc.floats("a", &[0], &[3]), Ok(vec![9.5; 3]), "{what}");
            assert_eq!(nc.floats("a", &[n - 3], &[3]), Ok(vec![9.5; 3]), "{what}");
            assert_eq!(nc.floats("a", &[n], &[0]), Ok(vec![]), "{what}");
            assert_eq!(nc.floats("a", &[n], &[1]), Err(NC_EINVALCOORDS), "{what}");
            assert_eq!(nc.floats("a", &[n - 1], &[2]), Err(NC_EEDGE), "{what}");
            assert_eq!(nc.floats("a", &[usize::MAX], &[1]), Err(NC_EINVALCOORDS), "{what}");
            assert_eq!(nc.floats("a", &[n - 1], &[usize::MAX]), Err(NC_EEDGE), "{what}");
            // The whole variable cannot be read (no buffer holds it), nor
            // copied (no memory does): errors, before touching anything.
            let mut small = [SENTINEL; 4];
            assert_eq!(
                unsafe { netcdf::capi::data_typed::nc_get_var_float(nc.0, nc.varid("a"), small.as_mut_ptr()) },
                NC_EINVAL
            );
            assert!(small.iter().all(|x| x.to_bits() == SENTINEL.to_bits()));
            let out = Store::new(&format!("huge-copy-{kind:?}-{}", compressor.is_null()));
            let mut out_id = -1;
            assert_eq!(
                unsafe { netcdf::capi::file::nc_create(cstr(&out.url("nczarr")).as_ptr(), 0, &mut out_id) },
                NC_NOERR
            );
            let mut d = -1;
            assert_eq!(unsafe { netcdf::capi::dim::nc_def_dim(out_id, cstr("d0").as_ptr(), n, &mut d) }, NC_NOERR);
            assert_eq!(nc_copy_var(nc.0, nc.varid("a"), out_id), NC_ENOMEM, "{what}");
            nc_close(out_id);
            drop(nc);
            // Writing near the end and reading back.
            let nc = open_url_mode(&s.url("nczarr"), NC_WRITE).unwrap();
            let vals = [1.5f32, 2.5];
            let code = unsafe { nc_put_vara_float(nc.0, nc.varid("a"), [n - 2].as_ptr(), [2].as_ptr(), vals.as_ptr()) };
            assert_eq!(code, NC_NOERR, "{what}");
            drop(nc);
            let nc = s.open().unwrap();
            assert_eq!(nc.floats("a", &[n - 3], &[3]), Ok(vec![9.5, 1.5, 2.5]), "{what}");
        }
    }
}

#[test]
fn requests_whose_size_overflows_are_errors() {
    let big = 1u64 << 40;
    for kind in [Kind::Pure, Kind::Current] {
        let s = one_var(&format!("overflow-{kind:?}"), kind, zarray("<f4", &[big, big], &[1, 1024], json!(0.0)));
        let nc = s.open().unwrap();
        let a = nc.varid("a");
        let mut small = [SENTINEL; 4];
        assert_eq!(unsafe { netcdf::capi::data_typed::nc_get_var_float(nc.0, a, small.as_mut_ptr()) }, NC_EINVAL);
        let count = [big as usize, big as usize];
        assert_eq!(
            unsafe { nc_get_vara_float(nc.0, a, [0, 0].as_ptr(), count.as_ptr(), small.as_mut_ptr()) },
            NC_EINVAL
        );
        // A mapped read whose memory offsets overflow.
        let imap = [isize::MAX / 2, 1];
        assert_eq!(
            unsafe {
                netcdf::capi::data_typed::nc_get_varm_float(
                    nc.0,
                    a,
                    [0, 0].as_ptr(),
                    [2, 1].as_ptr(),
                    std::ptr::null(),
                    imap.as_ptr(),
                    small.as_mut_ptr(),
                )
            },
            NC_EINVAL
        );
        assert!(small.iter().all(|x| x.to_bits() == SENTINEL.to_bits()));
        assert_eq!(nc.floats("a", &[big as usize - 1, big as usize - 2], &[1, 2]), Ok(vec![0.0, 0.0]));
    }
}

#[test]
fn absurd_chunk_sizes() {
    for kind in [Kind::Pure, Kind::Current] {
        // 2^62 one-byte elements in one chunk: a size that exists, that no
        // memory holds. Small reads of a raw chunk need none of it.
        let s = one_var(&format!("bigchunk-{kind:?}"), kind, zarray("|u1", &[HUGE], &[HUGE], json!(7)));
        let nc = s.open().unwrap();
        assert_eq!(nc.floats("a", &[0], &[4]), Ok(vec![7.0; 4]));
        assert_eq!(nc.floats("a", &[HUGE as usize - 4], &[4]), Ok(vec![7.0; 4]));
        let v = nc.varid("a");
        let mut bytes = [0u8; 3];
        let code = unsafe {
            netcdf::capi::data_typed::nc_get_vara_uchar(nc.0, v, [5].as_ptr(), [3].as_ptr(), bytes.as_mut_ptr())
        };
        assert_eq!((code, bytes), (NC_NOERR, [7, 7, 7]));
        drop(nc);
        s.put("a/0", [1u8, 2, 3, 4]);
        assert_eq!(s.open().unwrap().floats("a", &[0], &[4]), Err(NC_ENCZARR), "a 4-byte chunk of 2^62");
        // Compressed, a chunk must be decoded whole: no memory for it.
        s.remove("a/0");
        s.edit("a/.zarray", |z| z["compressor"] = json!({"id": "zlib"}));
        assert_eq!(s.open().unwrap().floats("a", &[0], &[4]), Err(NC_ENOMEM), "missing compressed chunk");
        s.put("a/0", zlib(&[1, 2, 3, 4]));
        assert_eq!(s.open().unwrap().floats("a", &[0], &[4]), Err(NC_EFILTER), "short compressed chunk");
        for (codec, stored) in [
            (json!({"id": "lz4"}), [&(1u32 << 31).to_le_bytes()[..], &lz4_block_bomb(1 << 16)].concat()),
            (json!({"id": "blosc"}), blosc_memcpy(&[0; 8], u32::MAX)),
            (json!({"id": "blosc"}), blosc_block(&lz4_block_bomb(1 << 16), u32::MAX, 1)),
            (json!({"id": "blosc"}), blosc_block(&zstd_bomb(1 << 32), u32::MAX, 4)),
            (json!({"id": "zstd"}), zstd_claim(1 << 61)),
        ] {
            s.edit("a/.zarray", |z| z["compressor"] = codec.clone());
            s.put("a/0", &stored);
            // Allocation is bounded by the chunk size (here: no memory
            // holds it, so a claim to fill it is NC_ENOMEM).
            let r = s.open().unwrap().floats("a", &[0], &[4]);
            assert!(r == Err(NC_EFILTER) || r == Err(NC_ENOMEM), "{codec}: {r:?}");
        }
    }
}

#[test]
fn chunks_bigger_than_memory_can_address() {
    for kind in [Kind::Pure, Kind::Current] {
        for (dtype, shape, chunks) in [
            ("<f8", vec![1u64 << 32, 1 << 32], vec![1u64 << 32, 1 << 32]),
            ("<f4", vec![HUGE, 4], vec![HUGE, 4]),
            ("<f4", vec![HUGE, HUGE], vec![HUGE, HUGE]),
            ("<U4611686018427387904", vec![4], vec![4]),
            ("|S9223372036854775807", vec![4], vec![4]),
        ] {
            let what = format!("{kind:?} {dtype} {chunks:?}");
            let s = one_var(&format!("hugechunk-{kind:?}"), kind, zarray(dtype, &shape, &chunks, Value::Null));
            let nc = s.open().unwrap_or_else(|e| panic!("{what}: {e}"));
            let a = nc.varid("a");
            let mut got = [0usize; 2];
            let mut storage = -1;
            assert_eq!(unsafe { nc_inq_var_chunking(nc.0, a, &mut storage, got.as_mut_ptr()) }, NC_NOERR);
            assert_eq!(got[0] as u64, chunks[0], "{what}");
            let mut buf = [0u8; 64];
            let start = [0usize; 2];
            let count = [1usize; 2];
            let code = unsafe { nc_get_vara(nc.0, a, start.as_ptr(), count.as_ptr(), buf.as_mut_ptr() as *mut c_void) };
            assert_eq!(code, NC_ENCZARR, "{what}");
        }
    }
}

#[test]
fn zero_and_empty_shapes() {
    for kind in [Kind::Pure, Kind::Current] {
        let s = one_var(&format!("zero-{kind:?}"), kind, zarray("<f4", &[0], &[1], json!(1.0)));
        let nc = s.open().unwrap();
        assert_eq!(nc.dimlen("d0"), 0);
        assert_eq!(nc.floats("a", &[0], &[0]), Ok(vec![]));
        assert_eq!(nc.floats("a", &[0], &[1]), Err(NC_EINVALCOORDS));
        let mut x = SENTINEL;
        assert_eq!(unsafe { netcdf::capi::data_typed::nc_get_var_float(nc.0, nc.varid("a"), &mut x) }, NC_NOERR);
        assert_eq!(x.to_bits(), SENTINEL.to_bits());
    }
    // A 0-d Zarr array is a scalar; its chunks must then be [] too.
    let s = one_var("zero-d", Kind::Pure, zarray("<f4", &[], &[], json!(1.0)));
    s.put("a/0", le_floats(&[4.5]));
    assert_eq!(s.open().unwrap().floats("a", &[], &[]), Ok(vec![4.5]));
    s.edit("a/.zarray", |z| z["chunks"] = json!([1]));
    expect_open(&s, NC_ENCZARR, "0-d array with 1-d chunks");
}

#[test]
fn too_many_dimensions() {
    // NC_MAX_VAR_DIMS (1024): callers size their dimension id arrays by it.
    for kind in [Kind::Pure, Kind::Current] {
        let s = one_var(&format!("rank-{kind:?}"), kind, zarray("<f4", &[1; 1025], &[1; 1025], json!(0.0)));
        expect_open(&s, NC_EMAXDIMS, &format!("{kind:?} rank 1025"));
        // (With "/" the chunk key is 1024 short path segments; with "." it
        // would be one file name longer than the system allows.)
        let mut za = zarray("<f4", &[1; 1024], &[1; 1024], json!(0.0));
        za["dimension_separator"] = json!("/");
        let s = one_var(&format!("rank1024-{kind:?}"), kind, za);
        let nc = s.open().unwrap();
        assert_eq!(nc.floats("a", &[0; 1024], &[1; 1024]), Ok(vec![0.0]));
    }
}

// ----- nesting -------------------------------------------------------------

/// `depth` nested arrays: `[[[...]]]`.
fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

#[test]
fn json_nested_100000_deep() {
    let deep = nested(100_000);
    for kind in KINDS {
        let s = dataset(&format!("deep-{kind:?}"), kind);
        // As a whole object, and as a value inside one.
        for key in s.metadata_keys() {
            let good = s.get(&key);
            s.put(&key, &deep);
            expect_open(&s, NC_ENCZARR, &format!("{kind:?} {key} = [[[...]]]"));
            let text = String::from_utf8(good.clone()).unwrap();
            s.put(&key, text.replacen('{', &format!("{{\"deep\": {deep}, "), 1));
            expect_open(&s, NC_ENCZARR, &format!("{kind:?} {key} holding [[[...]]]"));
            s.put(&key, &good);
        }
        // An attribute value nested deep, but within what JSON readers
        // take (serde_json's 128 levels), reads back as JSON text.
        s.edit("v/.zattrs", |a| a["nest"] = serde_json::from_str(&nested(100)).unwrap());
        let nc = s.open().unwrap();
        assert_eq!(nc.att_text(nc.varid("v"), "nest"), Ok(nested(100)), "{kind:?}");
        drop(nc);
        let text = String::from_utf8(s.get("v/.zattrs")).unwrap();
        s.put("v/.zattrs", text.replace(&nested(100), &deep));
        expect_open(&s, NC_ENCZARR, &format!("{kind:?} attribute [[[...]]]"));
    }
}

/// The consolidated metadata of a store, as zarr-python writes it.
fn consolidate(s: &Store) -> Value {
    let mut meta = serde_json::Map::new();
    for key in s.metadata_keys() {
        if key.ends_with(".zgroup") || key.ends_with(".zarray") || key.ends_with(".zattrs") {
            meta.insert(key.clone(), s.json(&key));
        }
    }
    let z = json!({"zarr_consolidated_format": 1, "metadata": meta});
    s.put_json(".zmetadata", &z);
    z
}

#[test]
fn groups_nested_too_deep() {
    // netCDF has no depth limit; we stop at 1000 (deep nesting in
    // consolidated metadata costs no file system path). (Keys grow with
    // the depth: 3000 levels is already 18 MB of keys.)
    for (depth, code) in [(900usize, NC_NOERR), (1001, NC_ENCZARR), (3000, NC_ENCZARR)] {
        for kind in [Kind::Pure, Kind::Current] {
            let s = Store::new(&format!("depth-{kind:?}"));
            let mut meta = serde_json::Map::new();
            let mut key = String::new();
            for level in 0..=depth {
                let group = if level < depth {
                    json!({"dimensions": {}, "arrays": [], "groups": ["g"]})
                } else {
                    json!({"dimensions": {}, "arrays": [], "groups": []})
                };
                let mut attrs = json!({"_nczarr_group": group});
                if level == 0 {
                    attrs["_nczarr_superblock"] = json!({"version": "2.0.0"});
                }
                if kind == Kind::Pure {
                    attrs = json!({});
                }
                let prefix = if key.is_empty() { String::new() } else { format!("{key}/") };
                meta.insert(format!("{prefix}.zgroup"), json!({"zarr_format": 2}));
                meta.insert(format!("{prefix}.zattrs"), attrs.clone());
                if level == 0 {
                    s.put_json(".zgroup", &json!({"zarr_format": 2}));
                    s.put_json(".zattrs", &attrs);
                }
                key = if key.is_empty() { "g".to_string() } else { format!("{key}/g") };
            }
            s.put_json(".zmetadata", &json!({"zarr_consolidated_format": 1, "metadata": meta}));
            let got = s.open_consolidated().err().unwrap_or(NC_NOERR);
            assert_eq!(got, code, "{kind:?} {depth} deep");
        }
    }
}

// ----- names that try to leave the dataset --------------------------------

const BAD_NAMES: [&str; 14] =
    ["..", ".", "../v", "/v", "v/", "a/b", "a//b", "a\\b", "..\\..\\v", "a\u{0}b", "", " v", "v\n", "\u{7f}"];

#[test]
fn bad_names_in_nczarr_metadata() {
    let long = "x".repeat(300);
    let names: Vec<&str> = BAD_NAMES.iter().copied().chain([long.as_str()]).collect();
    for kind in [Kind::Current, Kind::Lower, Kind::Upper, Kind::V1] {
        let s = dataset(&format!("names-{kind:?}"), kind);
        let place = group_info_place(kind).unwrap();
        let (arrays, dims) = match kind {
            Kind::Current => ("arrays", "dimensions"),
            _ => ("vars", "dims"),
        };
        let good = s.get(place.0);
        for name in &names {
            for what in ["array", "group", "dimension"] {
                if what == "dimension" && *name == "a\\b" {
                    continue; // a valid dimension name: dimensions are no keys
                }
                edit_at(&s, place, |info| match what {
                    "array" => info[arrays] = json!(["v", "w", name]),
                    "group" => info["groups"] = json!(["g", name]),
                    _ => info[dims] = json!({"x": 4, *name: 3}),
                });
                expect_open(&s, NC_ENCZARR, &format!("{kind:?} {what} named {name:?}"));
                s.put(place.0, &good);
            }
        }
        // Names must be unique among a group's variables and groups.
        for (arr, grp) in [
            (json!(["v", "w", "v"]), json!(["g"])),
            (json!(["v", "w"]), json!(["g", "g"])),
            (json!(["v", "w"]), json!(["g", "v"])),
        ] {
            edit_at(&s, place, |info| {
                info[arrays] = arr.clone();
                info["groups"] = grp.clone();
            });
            expect_open(&s, NC_ENCZARR, &format!("{kind:?} arrays {arr} groups {grp}"));
            s.put(place.0, &good);
        }
        check_reference(&s.open().unwrap());
    }
}

#[test]
fn bad_dimension_references() {
    for kind in [Kind::Current, Kind::Lower, Kind::Upper, Kind::V1] {
        let s = dataset(&format!("dimrefs-{kind:?}"), kind);
        let place = array_info_place(kind).unwrap();
        let refs_key = if kind == Kind::Current { "dimension_references" } else { "dimrefs" };
        let good = s.get(place.0);
        for refs in [
            json!(["/../x"]),
            json!(["/g/../x"]),
            json!(["/nope"]),
            json!(["/g/x"]),
            json!(["/x/"]),
            json!([""]),
            json!(["/x", "/x"]),
            json!([]),
            json!("/x"),
            json!([4]),
            json!([null]),
            json!({"x": "/x"}),
            json!(["/x\u{0}"]),
        ] {
            edit_at(&s, place, |info| info[refs_key] = refs.clone());
            expect_open(&s, NC_ENCZARR, &format!("{kind:?} {refs_key} {refs}"));
            s.put(place.0, &good);
        }
        for info in [json!("chunked"), json!([]), json!(7)] {
            edit_at(&s, place, |i| *i = info.clone());
            expect_open(&s, NC_ENCZARR, &format!("{kind:?} array info {info}"));
            s.put(place.0, &good);
        }
    }
}

#[test]
fn group_info_of_the_wrong_shape() {
    for kind in [Kind::Current, Kind::Lower, Kind::Upper, Kind::V1] {
        let s = dataset(&format!("ginfo-{kind:?}"), kind);
        let place = group_info_place(kind).unwrap();
        let (arrays, dims) = if kind == Kind::Current { ("arrays", "dimensions") } else { ("vars", "dims") };
        let good = s.get(place.0);
        let edits: Vec<(&str, Value)> = vec![
            (dims, json!([4])),
            (dims, json!("x")),
            (dims, json!({"x": "4"})),
            (dims, json!({"x": -4})),
            (dims, json!({"x": 4.5})),
            (dims, json!({"x": [4]})),
            (dims, json!({"x": {"size": "4"}})),
            (dims, json!({"x": {"size": -1, "unlimited": 1}})),
            (dims, json!({"x": 1e30})),
            (arrays, json!("v")),
            (arrays, json!([["v"]])),
            (arrays, json!([1])),
            (arrays, json!({"v": 1})),
            ("groups", json!("g")),
            ("groups", json!([{}])),
            ("groups", json!(5)),
        ];
        for (key, value) in edits {
            edit_at(&s, place, |info| info[key] = value.clone());
            expect_open(&s, NC_ENCZARR, &format!("{kind:?} {key} = {value}"));
            s.put(place.0, &good);
        }
        // Extra keys are ignored.
        edit_at(&s, place, |info| info["extra"] = json!({"a": [1, 2]}));
        check_reference(&s.open().unwrap());
    }
}

#[test]
fn xarray_dimension_names_that_do_not_fit() {
    // _ARRAY_DIMENSIONS is a convention, not structure: a list of the wrong
    // length or with unusable names falls back to anonymous dimensions;
    // one that is not a list of strings is malformed.
    let s = dataset("xarray-dims", Kind::Pure);
    for names in [json!(["x", "y"]), json!([]), json!(["../x"]), json!(["a/b"]), json!([""]), json!(["x\u{0}"])] {
        s.edit("v/.zattrs", |a| a["_ARRAY_DIMENSIONS"] = names.clone());
        let nc = s.open().unwrap_or_else(|e| panic!("{names}: {e}"));
        assert_eq!(nc.all_floats("v", 4), Ok(vec![1.0, 2.0, 3.0, 4.0]), "{names}");
        assert_eq!(nc.dimlen("_Anonymous_Dim_4"), 4, "{names}");
    }
    for names in [json!("x"), json!([4]), json!([null]), json!({"x": 1})] {
        s.edit("v/.zattrs", |a| a["_ARRAY_DIMENSIONS"] = names.clone());
        expect_open(&s, NC_ENCZARR, &format!("{names}"));
    }
}

#[test]
fn attribute_names_longer_than_callers_buffers() {
    // Callers hold attribute names in NC_MAX_NAME + 1 bytes.
    for kind in [Kind::Pure, Kind::Current] {
        let s = dataset(&format!("attname-{kind:?}"), kind);
        s.edit("v/.zattrs", |a| a["x".repeat(256)] = json!(1));
        let nc = s.open().unwrap();
        let mut name = [0u8; 257];
        let mut n = 0;
        assert_eq!(unsafe { nc_inq_varnatts(nc.0, nc.varid("v"), &mut n) }, NC_NOERR);
        let code = unsafe { nc_inq_attname(nc.0, nc.varid("v"), n - 1, name.as_mut_ptr() as *mut c_char) };
        assert_eq!((code, name[256]), (NC_NOERR, 0));
        drop(nc);
        s.edit("v/.zattrs", |a| a["x".repeat(257)] = json!(1));
        expect_open(&s, NC_ENCZARR, &format!("{kind:?} 257-byte attribute name"));
        s.edit("v/.zattrs", |a| {
            a.as_object_mut().unwrap().remove(&"x".repeat(257));
            a["a\u{0}b"] = json!(1);
        });
        expect_open(&s, NC_ENCZARR, &format!("{kind:?} attribute name with NUL"));
    }
}

#[test]
fn hostile_consolidated_metadata() {
    for kind in [Kind::Pure, Kind::Current] {
        let s = dataset(&format!("zmeta-{kind:?}"), kind);
        let good = consolidate(&s);
        check_reference(&s.open().unwrap());
        // Keys that leave the dataset, or are no keys at all: the whole
        // .zmetadata is ignored, the objects are read.
        for key in
            ["../evil/.zarray", "/abs/.zarray", "a//b/.zarray", "a\\b/.zarray", "a\u{0}b/.zarray", "", "/", "./.zarray"]
        {
            let mut z = good.clone();
            z["metadata"][key] = zarray("<f4", &[4], &[4], json!(0));
            s.put_json(".zmetadata", &z);
            let nc = s.open_consolidated().unwrap_or_else(|e| panic!("{kind:?} key {key:?}: {e}"));
            check_reference(&nc);
            assert_eq!(nc.nvars(), 2);
        }
        // Malformed .zmetadata is ignored too.
        for bad in [
            json!([]),
            json!({"zarr_consolidated_format": "1", "metadata": good["metadata"]}),
            json!({"zarr_consolidated_format": 2, "metadata": good["metadata"]}),
            json!({"zarr_consolidated_format": 1, "metadata": []}),
            json!({"zarr_consolidated_format": 1}),
        ] {
            s.put_json(".zmetadata", &bad);
            check_reference(&s.open_consolidated().unwrap());
        }
        for bad in [nested(100_000).into_bytes(), b"{\"metadata\": {".to_vec(), b"\xff".to_vec()] {
            s.put(".zmetadata", &bad);
            check_reference(&s.open_consolidated().unwrap());
        }
        // Trusted consolidated metadata is the truth: a bad entry there is
        // as bad as a bad object. A local open reads the objects instead.
        let mut z = good.clone();
        z["metadata"]["v/.zarray"]["shape"] = json!("four");
        s.put_json(".zmetadata", &z);
        let got = s.open_consolidated().err().unwrap_or(NC_NOERR);
        assert_eq!(got, NC_ENCZARR, "{kind:?} bad consolidated entry");
        check_reference(&s.open().unwrap());
        let mut z = good.clone();
        z["metadata"]["v/.zarray"] = json!([1]);
        s.put_json(".zmetadata", &z);
        let got = s.open_consolidated().err().unwrap_or(NC_NOERR);
        assert_eq!(got, NC_ENCZARR, "{kind:?} consolidated entry not an object");
        check_reference(&s.open().unwrap());
    }
}

// ----- links and listings -------------------------------------------------

#[test]
fn symbolic_links_out_of_the_store_are_refused() {
    use std::os::unix::fs::symlink;
    let outside = Store::new("outside");
    outside.put("secret", le_floats(&[42.0, 43.0]));
    let other = dataset("outside-var", Kind::Pure);
    for kind in [Kind::Pure, Kind::Current] {
        let s = dataset(&format!("links-{kind:?}"), kind);
        // A chunk that is a link to a file elsewhere: never read.
        s.remove("v/0");
        symlink(outside.path("secret"), s.path("v/0")).unwrap();
        let nc = s.open().unwrap();
        for (what, r) in read_v_chunk0(&nc) {
            assert_eq!(r, Err(NC_EACCESS), "{kind:?} {what}");
        }
        assert_eq!(nc.floats("v", &[2], &[2]), Ok(vec![3.0, 4.0]));
        drop(nc);
        // Nor written through: the link is replaced, its target untouched.
        let nc = open_url_mode(&s.url("nczarr"), NC_WRITE).unwrap();
        let code =
            unsafe { nc_put_vara_float(nc.0, nc.varid("v"), [0].as_ptr(), [2].as_ptr(), [7.0f32, 8.0].as_ptr()) };
        assert_eq!(code, NC_NOERR, "{kind:?}");
        drop(nc);
        assert_eq!(outside.get("secret"), le_floats(&[42.0, 43.0]));
        assert!(!std::fs::symlink_metadata(s.path("v/0")).unwrap().file_type().is_symlink());
        assert_eq!(s.open().unwrap().all_floats("v", 4), Ok(vec![7.0, 8.0, 3.0, 4.0]));
        // A dangling link cannot be checked: refused.
        s.remove("v/0");
        symlink("/nonexistent/nczarr-rs", s.path("v/0")).unwrap();
        assert_eq!(s.open().unwrap().floats("v", &[0], &[2]), Err(NC_EACCESS), "{kind:?} dangling");
        s.remove("v/0");
        s.put("v/0", le_floats(&[1.0, 2.0]));
        // A variable or group directory that is a link elsewhere.
        std::fs::rename(s.path("g/u"), s.path("g/u.real")).unwrap();
        symlink(other.path("v"), s.path("g/u")).unwrap();
        expect_open(&s, NC_EACCESS, &format!("{kind:?} g/u -> elsewhere"));
        std::fs::remove_file(s.path("g/u")).unwrap();
        symlink("/", s.path("g/u")).unwrap();
        expect_open(&s, NC_EACCESS, &format!("{kind:?} g/u -> /"));
        // Links that stay inside the store are followed.
        std::fs::remove_file(s.path("g/u")).unwrap();
        symlink("u.real", s.path("g/u")).unwrap();
        check_reference(&s.open().unwrap());
        std::fs::remove_file(s.path("v/1")).unwrap();
        std::fs::copy(s.path("g/u.real/0"), s.path("spare")).unwrap();
        s.put("chunk1", le_floats(&[3.0, 4.0]));
        symlink("../chunk1", s.path("v/1")).unwrap();
        check_reference(&s.open().unwrap());
        // Clobbering the store removes links, never what they point to.
        std::fs::remove_file(s.path("spare")).unwrap();
        symlink(outside.path(""), s.path("spare")).unwrap();
        let mut id = -1;
        assert_eq!(unsafe { netcdf::capi::file::nc_create(cstr(&s.url("nczarr")).as_ptr(), 0, &mut id) }, NC_NOERR);
        nc_close(id);
        assert_eq!(outside.get("secret"), le_floats(&[42.0, 43.0]));
    }
    // The root itself may be a link.
    let s = dataset("linked-root-real", Kind::Current);
    let link = scratch("linked-root");
    let _ = std::fs::remove_file(&link);
    symlink(&s.root, &link).unwrap();
    let nc = open_url(&format!("file://{}#mode=nczarr,file", link.display())).unwrap();
    check_reference(&nc);
    drop(nc);
    std::fs::remove_file(&link).unwrap();
}

#[test]
fn a_fifo_in_the_store_is_refused_not_waited_on() {
    // A named pipe in place of a chunk or a metadata object: opening it
    // to read would wait for a writer that never comes.
    fn fifo_at(path: std::path::PathBuf) {
        std::fs::remove_file(&path).unwrap();
        let name = std::ffi::CString::new(path.into_os_string().into_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
    }
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for kind in [Kind::Pure, Kind::Current] {
            let s = dataset(&format!("fifo-{kind:?}"), kind);
            fifo_at(s.path("v/0"));
            let nc = s.open().unwrap();
            for (what, r) in read_v_chunk0(&nc) {
                assert_eq!(r, Err(NC_ENCZARR), "{kind:?} {what}");
            }
            assert_eq!(nc.floats("v", &[2], &[2]), Ok(vec![3.0, 4.0]), "{kind:?}: the other chunk");
            drop(nc);
            fifo_at(s.path("v/.zarray"));
            expect_open(&s, NC_ENCZARR, &format!("{kind:?} v/.zarray a fifo"));
        }
        // A pipe named as the dataset itself: a zip archive, a directory.
        let pipe = scratch("fifo-dataset");
        let _ = std::fs::remove_file(&pipe);
        std::fs::write(&pipe, b"").unwrap();
        fifo_at(pipe.clone());
        for mode in ["zarr,zip", "nczarr,zip", "nczarr,file", "zarr,file"] {
            let url = format!("file://{}#mode={mode}", pipe.display());
            assert_eq!(open_url(&url).err(), Some(NC_ENOTNC), "{mode}");
        }
        std::fs::remove_file(&pipe).unwrap();
        done.send(()).unwrap();
    });
    finished.recv_timeout(std::time::Duration::from_secs(60)).expect("a read waited on a fifo");
}

#[test]
fn a_link_loop_stops_at_the_depth_limit() {
    use std::os::unix::fs::symlink;
    let s = dataset("loop", Kind::Pure);
    symlink("..", s.path("g/l")).unwrap();
    // The system stops following links first: ELOOP, as netcdf-c answers
    // system errors, with their errno.
    expect_open(&s, 40, "g/l -> ..");
}

#[test]
fn odd_names_in_directory_listings() {
    use std::os::unix::ffi::OsStrExt;
    let s = dataset("listing", Kind::Pure);
    // Names that are no keys (a backslash) or no netCDF names.
    for name in ["a\\b", "x\ny", "-x", " x"] {
        s.put_json(&format!("{name}/.zarray"), &zarray("<f4", &[4], &[4], json!(0)));
        expect_open(&s, NC_ENCZARR, &format!("array {name:?}"));
        std::fs::remove_dir_all(s.path(name)).unwrap();
    }
    // Hidden entries and names that are not UTF-8 are not keys: skipped.
    s.put_json(".hidden/.zarray", &zarray("<f4", &[4], &[4], json!(0)));
    let raw = s.root.join(std::ffi::OsStr::from_bytes(b"bad\xff"));
    std::fs::create_dir_all(&raw).unwrap();
    std::fs::write(raw.join(".zarray"), serde_json::to_vec(&zarray("<f4", &[4], &[4], json!(0))).unwrap()).unwrap();
    let nc = s.open().unwrap();
    check_reference(&nc);
    assert_eq!(nc.nvars(), 2);
}

// ----- dataset names ----------------------------------------------------------

#[test]
fn hostile_urls() {
    let s = dataset("urls", Kind::Current);
    let root = s.root.display().to_string();
    // Names that are not Zarr go to the netcdf-c beside us when there is
    // one (CI installs Debian's), which answers ENOENT (no such file, after
    // trying DAP2) or NC_EURL; without one they are NC_ENOTBUILT.
    let elsewhere = netcdf::delegate::get().is_ok();
    let not_zarr = if elsewhere { 2 } else { NC_ENOTBUILT };
    let not_zarr_url = if elsewhere { NC_EURL } else { NC_ENOTBUILT };
    let cases: Vec<(String, i32)> = vec![
        (String::new(), NC_EINVAL),
        // A plain path that is not there: ENOENT, as netcdf-c.
        (":".into(), 2),
        ("file:".into(), NC_EURL),
        ("file://".into(), NC_EURL),
        // No zarr mode: netcdf-c tries DAP2.
        ("file:///".into(), not_zarr),
        ("file:///#mode=nczarr,file".into(), NC_ENOTNC),
        ("#".into(), not_zarr),
        ("#mode=".into(), not_zarr),
        // The working directory, which holds no dataset.
        ("#mode=nczarr".into(), NC_ENOTNC),
        (format!("file://{root}"), not_zarr),
        (format!("file://{root}#"), not_zarr),
        (format!("file://{root}#mode="), not_zarr),
        (format!("file://{root}#mode=junk"), not_zarr),
        (format!("file://{root}#mode=nczarr,junk"), NC_EINVAL),
        (format!("file://{root}#mode=nczarr,file,s3"), NC_EINVAL),
        // A directory is no zip archive.
        (format!("file://{root}#mode=nczarr,zip"), NC_ENOTNC),
        (format!("file://{root}#mode=nczarr,,,file,,"), NC_NOERR),
        (format!("file://{root}#mode=nczarr&mode=file&&&=&==&mode"), NC_NOERR),
        (format!("file://{root}#mode=nczarr,file#mode=zarr"), NC_EINVAL),
        (format!("file://{root}#mode=NCZARR,FILE"), NC_NOERR),
        (format!("file://{root}%#mode=nczarr,file"), NC_EURL),
        (format!("file://{root}%4#mode=nczarr,file"), NC_EURL),
        (format!("file://{root}%zz#mode=nczarr,file"), NC_EURL),
        (format!("file://{root}%ff#mode=nczarr,file"), NC_EURL),
        (format!("file://{root}%c3%28#mode=nczarr,file"), NC_EURL),
        (format!("file://{root}%00#mode=nczarr,file"), NC_EURL),
        (format!("file://{root}/%2e%2e/%2e%2e#mode=nczarr,file"), NC_ENOTNC),
        (format!("file://{}#mode=nczarr,file", root.replace('/', "%2f")), NC_NOERR),
        ("http://example.com/x#mode=nczarr".into(), not_zarr_url),
        ("s3://bucket/key#mode=nczarr,file".into(), NC_EURL),
        ("s3://bucket/../key".into(), NC_EURL),
        ("s3://user:secret@bucket/key".into(), NC_EURL),
        // Nothing listening: NC_ES3 (one attempt, so at once).
        ("http://127.0.0.1:1/bucket/key#mode=nczarr,s3&s3.retries=1".into(), -138),
        ("http://127.0.0.1:1/bucket/key#mode=nczarr,s3&s3.retries=x".into(), NC_EINVAL),
        ("gopher://x/y#mode=nczarr".into(), NC_EINVAL),
        (format!("file://{}#mode=nczarr,file", "/x".repeat(100_000)), 36), // ENAMETOOLONG
        (format!("file://{root}#mode=nczarr,file&{}", "k=v&".repeat(250_000)), NC_NOERR),
        (format!("file://{root}#mode=nczarr,file,{}", "zarr,".repeat(100_000)), NC_NOERR),
        (format!("file://{root}#{}", "mode=nczarr&".repeat(100_000)), NC_NOERR),
        (format!("file://{root}#mode={}", "x".repeat(1 << 20)), not_zarr),
        (format!("file://{root}#mode=nczarr,{}", "x".repeat(1 << 20)), NC_EINVAL),
    ];
    let mut wrong = Vec::new();
    for (url, code) in cases {
        let shown: String = url.chars().take(120).collect();
        let got = open_url(&url).err().unwrap_or(NC_NOERR);
        if got != code {
            wrong.push(format!("{shown}: {got}, expected {code}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Bytes that are not UTF-8 (no URL can hold them).
    assert_eq!(open_bytes(b"file:///tmp/\xff#mode=nczarr,file"), NC_EINVAL);
    assert_eq!(open_bytes(b"\xff\xfe"), NC_EINVAL);
    // NULL.
    let mut id = -1;
    assert_eq!(unsafe { nc_open(std::ptr::null(), 0, &mut id) }, NC_EINVAL);
}

#[test]
fn directories_nested_too_deep() {
    let s = Store::new("deep-dirs");
    s.put_json(".zgroup", &json!({"zarr_format": 2}));
    let mut key = String::new();
    for _ in 0..1001 {
        key.push_str("g/");
        s.put_json(&format!("{key}.zgroup"), &json!({"zarr_format": 2}));
    }
    expect_open(&s, NC_ENCZARR, "1001 nested groups");
    std::fs::remove_dir_all(s.path(&"g/".repeat(950))).unwrap();
    assert_eq!(s.open().err(), None, "949 nested groups");
}

#[test]
fn odd_codec_parameters() {
    use netcdf::capi::filter::{nc_inq_var_filter_ids, nc_inq_var_filter_info};
    // Whatever the parameters say, data written reads back (parameters
    // that make no sense are clamped or ignored), and filter inquiries
    // answer.
    for codec in [
        json!({"id": "zlib", "level": 1e30}),
        json!({"id": "zlib", "level": -7}),
        json!({"id": "zlib", "level": "9"}),
        json!({"id": "zlib", "level": [1]}),
        json!({"id": "gzip", "level": "x"}),
        json!({"id": "bz2", "level": 0}),
        json!({"id": "bz2", "level": 1e18}),
        json!({"id": "zstd", "level": 1e18}),
        json!({"id": "zstd", "level": -1e18}),
        json!({"id": "lz4", "acceleration": -1}),
        json!({"id": "shuffle", "elementsize": 1e18}),
        json!({"id": "shuffle", "elementsize": -4}),
        json!({"id": "shuffle", "elementsize": 3}),
        json!({"id": "blosc", "cname": "zstd", "clevel": 1e9, "shuffle": 99, "typesize": -1, "blocksize": -5}),
        json!({"id": "blosc", "cname": "lz4hc", "clevel": -3, "shuffle": 2, "typesize": 1e18}),
        json!({"id": "blosc", "cname": "zlib", "shuffle": "1"}),
        json!({"id": "blosc", "cname": 5}),
    ] {
        let s = dataset("odd-codec", Kind::Pure);
        s.edit("v/.zarray", |v| v["compressor"] = codec.clone());
        s.remove("v/0");
        s.remove("v/1");
        let nc = open_url_mode(&s.url("nczarr"), NC_WRITE).unwrap();
        let v = nc.varid("v");
        let vals = [1.5f32, -2.5, 3.25, 1e30];
        let code = unsafe { nc_put_vara_float(nc.0, v, [0].as_ptr(), [4].as_ptr(), vals.as_ptr()) };
        let (mut n, mut ids) = (0usize, [0u32; 4]);
        assert_eq!(unsafe { nc_inq_var_filter_ids(nc.0, v, &mut n, ids.as_mut_ptr()) }, NC_NOERR, "{codec}");
        // (numcodecs' gzip has no HDF5 filter id: it is listed as 0.)
        if n > 0 && ids[0] != 0 {
            let (mut np, mut params) = (0usize, [0u32; 16]);
            let code = unsafe { nc_inq_var_filter_info(nc.0, v, ids[0], &mut np, params.as_mut_ptr()) };
            assert_eq!(code, NC_NOERR, "{codec} filter {}", ids[0]);
        }
        drop(nc);
        if code == NC_NOERR {
            assert_eq!(s.open().unwrap().all_floats("v", 4), Ok(vals.to_vec()), "{codec}");
        } else {
            assert_eq!(code, NC_ENOFILTER, "{codec}");
        }
    }
}

#[test]
fn missing_keys() {
    for kind in [Kind::Current, Kind::Lower, Kind::Upper] {
        let s = dataset(&format!("missing-{kind:?}"), kind);
        let (gobj, gkey) = group_info_place(kind).unwrap();
        let (aobj, akey) = array_info_place(kind).unwrap();
        // The group and array info themselves.
        for (obj, key) in [(gobj, gkey), (aobj, akey)] {
            let good = s.get(obj);
            s.edit(obj, |o| {
                o.as_object_mut().unwrap().remove(key);
            });
            expect_open(&s, NC_ENCZARR, &format!("{kind:?} no {key} in {obj}"));
            s.put(obj, &good);
        }
        // Their parts: no dimension references at all is malformed; no
        // dimension, array or group list is an empty one.
        let refs = if kind == Kind::Current { "dimension_references" } else { "dimrefs" };
        let good = s.get(aobj);
        s.edit(aobj, |o| {
            o[akey].as_object_mut().unwrap().remove(refs);
        });
        expect_open(&s, NC_ENCZARR, &format!("{kind:?} no {refs}"));
        s.put(aobj, &good);
        let good = s.get(gobj);
        s.edit(gobj, |o| {
            o[gkey].as_object_mut().unwrap().remove("groups");
        });
        let nc = s.open().unwrap();
        let mut n = -1;
        assert_eq!(unsafe { nc_inq_grps(nc.0, &mut n, std::ptr::null_mut()) }, NC_NOERR);
        assert_eq!(n, 0, "{kind:?}");
        drop(nc);
        s.put(gobj, &good);
    }
    // Pure Zarr: a group without .zgroup is not a group; an array's
    // .zattrs may be missing.
    let s = dataset("missing-pure", Kind::Pure);
    s.remove("g/.zgroup");
    s.remove("v/.zattrs");
    let nc = s.open().unwrap();
    assert_eq!(nc.all_floats("v", 4), Ok(vec![1.0, 2.0, 3.0, 4.0]));
    let mut n = -1;
    assert_eq!(unsafe { nc_inq_grps(nc.0, &mut n, std::ptr::null_mut()) }, NC_NOERR);
    assert_eq!(n, 0);
    drop(nc);
    s.remove(".zgroup");
    expect_open(&s, NC_ENOTNC, "no root .zgroup");
}

// ----- zip archives ----------------------------------------------------

/// How [`zip_of`] lays a store out in an archive.
#[derive(Clone, Copy, Debug)]
enum ZipKind {
    /// netcdf-c's: a top directory named after the file, directory
    /// entries, stored.
    NetcdfC,
    /// zarr-python's `ZipStore`: keys at the root.
    Root,
    /// `zip -r`: the store's directory, its entries deflated.
    Deflated,
}

/// The store zipped to `<root>.zip`; its path.
fn zip_of(s: &Store, kind: ZipKind) -> PathBuf {
    use zip::write::SimpleFileOptions;
    let path = s.root.with_extension("zip");
    let top = format!("{}/", path.file_stem().unwrap().to_string_lossy());
    let mut keys = Vec::new();
    let mut pending = vec![s.root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                pending.push(p);
            } else {
                keys.push(p.strip_prefix(&s.root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    keys.sort();
    let mut w = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let (prefix, options) = match kind {
        ZipKind::NetcdfC => {
            w.add_directory(&top, stored).unwrap();
            (top, stored)
        }
        ZipKind::Root => (String::new(), stored),
        ZipKind::Deflated => (top, stored.compression_method(zip::CompressionMethod::Deflated)),
    };
    for key in keys {
        w.start_file(format!("{prefix}{key}"), options).unwrap();
        w.write_all(&s.get(&key)).unwrap();
    }
    w.finish().unwrap();
    path
}

fn zip_url(path: &std::path::Path) -> String {
    format!("file://{}#mode=nczarr,zip", path.display())
}

#[test]
fn zipped_reference_dataset_reads_in_every_layout() {
    for kind in KINDS {
        for zkind in [ZipKind::NetcdfC, ZipKind::Root, ZipKind::Deflated] {
            let s = dataset(&format!("zipped-{kind:?}-{zkind:?}"), kind);
            let path = zip_of(&s, zkind);
            let nc = open_url(&zip_url(&path)).unwrap_or_else(|e| panic!("{kind:?} {zkind:?}: {e}"));
            check_reference(&nc);
            assert_eq!(nc.att_text(nc.varid("v"), "units"), Ok("K".to_string()), "{kind:?} {zkind:?}");
            drop(nc);
            std::fs::remove_file(path).unwrap();
        }
    }
}

/// Damaged archives: the open, or the read of the damaged chunk, is a
/// netCDF error; the caller's buffer keeps its bytes; nothing big is
/// allocated.
#[test]
fn damaged_zip_archives() {
    let s = dataset("zip-damage", Kind::Current);
    let path = zip_of(&s, ZipKind::NetcdfC);
    let good = std::fs::read(&path).unwrap();
    let url = zip_url(&path);
    let top = path.file_stem().unwrap().to_string_lossy().into_owned();
    let with = |bytes: &[u8]| std::fs::write(&path, bytes).unwrap();
    // Not a zip; cut short.
    with(b"just some text, not an archive");
    assert_eq!(open_url(&url).err(), Some(NC_ENOTNC));
    for cut in [good.len() - 5, good.len() / 2, 10] {
        with(&good[..cut]);
        assert_eq!(open_url(&url).err(), Some(NC_ENCZARR), "cut at {cut}");
    }
    // A flipped byte in chunk v/1 (3.0, 4.0): the CRC refuses it.
    let mut flipped = good.clone();
    let at = flipped.windows(8).position(|w| w == le_floats(&[3.0, 4.0])).unwrap();
    flipped[at + 1] ^= 0x40;
    with(&flipped);
    let nc = open_url(&url).unwrap();
    assert_eq!(nc.floats("v", &[0], &[2]), Ok(vec![1.0, 2.0]));
    assert_eq!(nc.floats("v", &[2], &[2]), Err(NC_ENCZARR));
    drop(nc);
    // A name escaping the root: `<top>/w/0` becomes `<top>/../` in the
    // local header and in the central directory.
    let mut escaping = good.clone();
    let name = format!("{top}/w/0").into_bytes();
    let hits: Vec<usize> = (0..escaping.len() - name.len()).filter(|&i| escaping[i..].starts_with(&name)).collect();
    assert_eq!(hits.len(), 2);
    for at in hits {
        escaping[at + name.len() - 3..at + name.len()].copy_from_slice(b"../");
    }
    with(&escaping);
    assert_eq!(open_url(&url).err(), Some(NC_ENCZARR));
    // A chunk that inflates to far more than its stated 8 bytes.
    let bomb = {
        use zip::write::SimpleFileOptions;
        let bomb_path = scratch("zip-bomb.zip");
        let mut w = zip::ZipWriter::new(std::fs::File::create(&bomb_path).unwrap());
        let deflated = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(good.clone())).unwrap();
        for i in 0..archive.len() {
            let f = archive.by_index_raw(i).unwrap();
            if f.name().ok().as_deref() == Some(&format!("{top}/v/1")) {
                drop(f);
                w.start_file(format!("{top}/v/1"), deflated).unwrap();
                w.write_all(&vec![0u8; 64 << 20]).unwrap();
            } else {
                w.raw_copy_file(f).unwrap();
            }
        }
        w.finish().unwrap();
        let mut bytes = std::fs::read(&bomb_path).unwrap();
        std::fs::remove_file(bomb_path).unwrap();
        // State 8 bytes in the central directory, as the chunk should be.
        let cd = zip::ZipArchive::new(std::io::Cursor::new(bytes.clone())).unwrap().central_directory_start() as usize;
        let name = format!("{top}/v/1").into_bytes();
        let record = cd + bytes[cd..].windows(name.len()).position(|w| w == name).unwrap() - 46;
        bytes[record + 24..record + 28].copy_from_slice(&8u32.to_le_bytes());
        bytes
    };
    with(&bomb);
    let nc = open_url(&url).unwrap();
    let (read, peak) = peak_alloc(|| nc.floats("v", &[2], &[2]));
    assert_eq!(read, Err(NC_ENCZARR));
    assert!(peak < 1 << 20, "inflating a lying chunk allocated {peak} bytes");
    drop(nc);
    std::fs::remove_file(&path).unwrap();
}

/// A structured dtype (zarr-python's list of fields) costs that array its
/// data, not the dataset.
#[test]
fn structured_dtypes_are_listed_with_data_refused() {
    let s = dataset("structured", Kind::Pure);
    s.edit("w/.zarray", |v| {
        v["dtype"] = json!([["a", "<i4"], ["b", "<f8", [2]]]);
        v["fill_value"] = json!("AAAAAAAAAAAAAAAAAAAAAAAAAAA=");
    });
    let nc = s.open().unwrap();
    assert_eq!(nc.all_floats("v", 4), Ok(vec![1.0, 2.0, 3.0, 4.0]));
    assert_eq!(nc.ints("w", &[0], &[4]), Err(NC_EBADTYPE));
}
