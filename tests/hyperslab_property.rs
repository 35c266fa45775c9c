//! Property test: random strided hyperslab writes and reads through the C
//! API agree with an in-memory reference array, before and after the
//! dataset is closed and reopened.

use std::ffi::CString;

use netcdf::capi::data_typed::{nc_get_var_int, nc_get_vars_double, nc_put_vars_int};
use netcdf::capi::dim::nc_def_dim;
use netcdf::capi::file::{nc_close, nc_create, nc_enddef, nc_inq_nvars, nc_open};
use netcdf::capi::var::{nc_def_var, nc_def_var_chunking};
use proptest::prelude::*;

const NC_INT: i32 = 4;
const NC_CHUNKED: i32 = 0;
const FILL: i32 = -2147483647;

/// A hyperslab within `shape`: start, count, stride per dimension.
fn slab(shape: Vec<usize>) -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<isize>)> {
    shape
        .into_iter()
        .map(|len| {
            (0..len, 1..4isize).prop_flat_map(move |(start, stride)| {
                let max_count = (len - start - 1) / stride as usize + 1;
                (Just(start), 1..=max_count, Just(stride))
            })
        })
        .collect::<Vec<_>>()
        .prop_map(|dims| {
            let start = dims.iter().map(|d| d.0).collect();
            let count = dims.iter().map(|d| d.1).collect();
            let stride = dims.iter().map(|d| d.2).collect();
            (start, count, stride)
        })
}

type Slab = (Vec<usize>, Vec<usize>, Vec<isize>);

fn case() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<Slab>, Slab)> {
    proptest::collection::vec(1..12usize, 1..=3).prop_flat_map(|shape| {
        let chunks = shape.iter().map(|&l| 1..=l).collect::<Vec<_>>();
        let writes = proptest::collection::vec(slab(shape.clone()), 1..6);
        (Just(shape.clone()), chunks, writes, slab(shape))
    })
}

/// Flat C-order offsets of every element of a slab.
fn offsets(shape: &[usize], (start, count, stride): &Slab) -> Vec<usize> {
    let mut out = vec![0usize];
    for d in 0..shape.len() {
        let inner: usize = shape[d + 1..].iter().product();
        out = out
            .iter()
            .flat_map(|&base| (0..count[d]).map(move |i| base + (start[d] + i * stride[d] as usize) * inner))
            .collect();
    }
    out
}

fn check(rc: i32) {
    assert_eq!(rc, 0, "netCDF call failed: {rc}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn writes_and_reads_match_a_reference((shape, chunks, writes, read) in case()) {
        let dir = std::env::temp_dir().join(format!("nczarr-rs-prop-{}", std::process::id()));
        let url = CString::new(format!("file://{}#mode=nczarr,file", dir.display())).unwrap();
        let total: usize = shape.iter().product();
        let mut reference = vec![FILL; total];
        let (mut ncid, mut varid) = (0, 0);
        let mut dimids = Vec::new();
        // SAFETY: every pointer passed is a live local: C strings from
        // CString/c"", out-parameters, and vectors sized as each call reads
        // or writes (one value per dimension, one per selected element).
        unsafe {
            check(nc_create(url.as_ptr(), 0, &mut ncid));
            for (d, &len) in shape.iter().enumerate() {
                let name = CString::new(format!("d{d}")).unwrap();
                let mut id = 0;
                check(nc_def_dim(ncid, name.as_ptr(), len, &mut id));
                dimids.push(id);
            }
            check(nc_def_var(ncid, c"v".as_ptr(), NC_INT, shape.len() as i32, dimids.as_ptr(), &mut varid));
            check(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks.as_ptr()));
            check(nc_enddef(ncid));
            for (n, w) in writes.iter().enumerate() {
                let offs = offsets(&shape, w);
                let values: Vec<i32> = (0..offs.len()).map(|i| (n * 1000 + i) as i32).collect();
                for (o, v) in offs.iter().zip(&values) {
                    reference[*o] = *v;
                }
                check(nc_put_vars_int(ncid, varid, w.0.as_ptr(), w.1.as_ptr(), w.2.as_ptr(), values.as_ptr()));
            }
            // A strided read, converted to double, while the data is cached.
            let offs = offsets(&shape, &read);
            let mut got = vec![0f64; offs.len()];
            check(nc_get_vars_double(ncid, varid, read.0.as_ptr(), read.1.as_ptr(), read.2.as_ptr(), got.as_mut_ptr()));
            let expected: Vec<f64> = offs.iter().map(|&o| reference[o] as f64).collect();
            prop_assert_eq!(&got, &expected);
            check(nc_close(ncid));

            // After a reopen the same read comes from storage, which may read
            // only the byte ranges it needs.
            check(nc_open(url.as_ptr(), 0, &mut ncid));
            let mut again = vec![0f64; offs.len()];
            check(nc_get_vars_double(ncid, varid, read.0.as_ptr(), read.1.as_ptr(), read.2.as_ptr(), again.as_mut_ptr()));
            prop_assert_eq!(&again, &expected);
            let mut all = vec![0i32; total];
            check(nc_get_var_int(ncid, varid, all.as_mut_ptr()));
            prop_assert_eq!(&all, &reference);
            check(nc_close(ncid));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A chunk assembled a time step per call is stored once the call that
/// completes it has handed it on (io/write.rs, `change_batch`; stored
/// behind that call, io/write_behind.rs, and so by the time the next
/// other call returns), not kept until evicted, while a chunk one call
/// writes whole stays cached until the close; a
/// step rewritten after its chunk was stored is read back, changed and
/// stored again at the close. Every value checked before and after.
#[test]
fn a_chunk_assembled_step_by_step_is_stored_when_complete() {
    use netcdf::capi::data_typed::{nc_get_vara_int, nc_put_vara_int};
    let dir = std::env::temp_dir().join(format!("nczarr-rs-steps-{}", std::process::id()));
    let url = CString::new(format!("file://{}#mode=nczarr,file", dir.display())).unwrap();
    let (nt, ny, nx) = (8usize, 16usize, 32usize);
    let row = ny * nx;
    let chunk_objects = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("v"))
            .map(|entries| entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.retain(|n| !n.starts_with('.'));
        names.sort();
        names
    };
    let (mut ncid, mut v) = (0, 0);
    let mut dims = [0i32; 3];
    let step = |t: usize, k: i32| -> Vec<i32> { (0..row).map(|i| (t * row + i) as i32 * k).collect() };
    // SAFETY: every pointer passed is a live local sized as the call reads
    // or writes (one value per dimension, one per selected element).
    unsafe {
        check(nc_create(url.as_ptr(), 0, &mut ncid));
        for (d, (name, len)) in [(c"t", nt), (c"y", ny), (c"x", nx)].into_iter().enumerate() {
            check(nc_def_dim(ncid, name.as_ptr(), len, &mut dims[d]));
        }
        check(nc_def_var(ncid, c"v".as_ptr(), NC_INT, 3, dims.as_ptr(), &mut v));
        check(nc_def_var_chunking(ncid, v, NC_CHUNKED, [4usize, ny, nx].as_ptr()));
        check(nc_enddef(ncid));
        for t in 0..3 {
            check(nc_put_vara_int(ncid, v, [t, 0, 0].as_ptr(), [1, ny, nx].as_ptr(), step(t, 1).as_ptr()));
        }
        assert!(chunk_objects().is_empty(), "nothing stored before the chunk is whole: {:?}", chunk_objects());
        check(nc_put_vara_int(ncid, v, [3, 0, 0].as_ptr(), [1, ny, nx].as_ptr(), step(3, 1).as_ptr()));
        let mut nvars = 0;
        check(nc_inq_nvars(ncid, &mut nvars)); // waits for the chunks stored behind the write
        assert_eq!(nvars, 1);
        assert_eq!(chunk_objects(), ["0.0.0"], "the completed chunk is stored once handed on");
        // Steps 4-7, one chunk, in one call: cached until the close.
        let rest: Vec<i32> = (4..8).flat_map(|t| step(t, 1)).collect();
        check(nc_put_vara_int(ncid, v, [4, 0, 0].as_ptr(), [4, ny, nx].as_ptr(), rest.as_ptr()));
        assert_eq!(chunk_objects(), ["0.0.0"]);
        // Step 1 again, into the stored chunk.
        check(nc_put_vara_int(ncid, v, [1, 0, 0].as_ptr(), [1, ny, nx].as_ptr(), step(1, -1).as_ptr()));
        let expect: Vec<i32> = (0..nt).flat_map(|t| step(t, if t == 1 { -1 } else { 1 })).collect();
        let read_all = |ncid: i32| {
            let mut got = vec![0i32; nt * row];
            check(nc_get_vara_int(ncid, v, [0, 0, 0].as_ptr(), [nt, ny, nx].as_ptr(), got.as_mut_ptr()));
            got
        };
        assert!(read_all(ncid) == expect, "before the close");
        check(nc_close(ncid));
        assert_eq!(chunk_objects(), ["0.0.0", "1.0.0"]);
        check(nc_open(url.as_ptr(), 0, &mut ncid));
        assert!(read_all(ncid) == expect, "after the close");
        check(nc_close(ncid));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A chunk written one row (slab along its first dimension) at a time is
/// not filled first (io/unfilled.rs): the rows no write reached must still
/// read as fill, from the cache and from storage, even when the chunk's
/// buffer is a reused one that held other values (chunks of 512 KiB, so
/// buffers are recycled).
#[test]
fn rows_never_written_read_as_fill() {
    use netcdf::capi::data_typed::{nc_get_vara_int, nc_put_vara_int};
    let dir = std::env::temp_dir().join(format!("nczarr-rs-rows-{}", std::process::id()));
    let url = CString::new(format!("file://{}#mode=nczarr,file", dir.display())).unwrap();
    let (nt, ny, nx) = (8usize, 64usize, 512usize);
    let row = ny * nx;
    let (mut ncid, mut w, mut v) = (0, 0, 0);
    let mut dims = [0i32; 3];
    let value = |t: usize, i: usize| (t * row + i) as i32;
    // SAFETY: every pointer passed is a live local sized as the call reads
    // or writes (one value per dimension, one per selected element).
    unsafe {
        check(nc_create(url.as_ptr(), 0, &mut ncid));
        for (d, (name, len)) in [(c"t", nt), (c"y", ny), (c"x", nx)].into_iter().enumerate() {
            check(nc_def_dim(ncid, name.as_ptr(), len, &mut dims[d]));
        }
        check(nc_def_var(ncid, c"w".as_ptr(), NC_INT, 3, dims.as_ptr(), &mut w));
        check(nc_def_var(ncid, c"v".as_ptr(), NC_INT, 3, dims.as_ptr(), &mut v));
        let chunks = [4usize, ny, nx];
        check(nc_def_var_chunking(ncid, w, NC_CHUNKED, chunks.as_ptr()));
        check(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks.as_ptr()));
        check(nc_enddef(ncid));
        // Other values through chunk buffers first, so that spare buffers
        // hold them.
        let sevens = vec![7i32; nt * row];
        check(nc_put_vara_int(ncid, w, [0, 0, 0].as_ptr(), [nt, ny, nx].as_ptr(), sevens.as_ptr()));
        let mut back = vec![0i32; nt * row];
        check(nc_get_vara_int(ncid, w, [0, 0, 0].as_ptr(), [nt, ny, nx].as_ptr(), back.as_mut_ptr()));
        assert!(back.iter().all(|&x| x == 7));
        let written = [0usize, 2, 5];
        for &t in &written {
            let vals: Vec<i32> = (0..row).map(|i| value(t, i)).collect();
            check(nc_put_vara_int(ncid, v, [t, 0, 0].as_ptr(), [1, ny, nx].as_ptr(), vals.as_ptr()));
        }
        let expect = |t: usize, i: usize| if written.contains(&t) { value(t, i) } else { FILL };
        let check_all = |ncid: i32| {
            let mut got = vec![0i32; nt * row];
            check(nc_get_vara_int(ncid, v, [0, 0, 0].as_ptr(), [nt, ny, nx].as_ptr(), got.as_mut_ptr()));
            for t in 0..nt {
                let bad = (0..row).find(|&i| got[t * row + i] != expect(t, i));
                assert_eq!(bad, None, "row {t}: {:?}", bad.map(|i| got[t * row + i]));
            }
        };
        // From the cache, then (a part of less than whole rows) a column
        // written into the chunk of rows 4-7, then from storage.
        check_all(ncid);
        let col = vec![-5i32; nt];
        check(nc_put_vara_int(ncid, v, [0, 3, 9].as_ptr(), [nt, 1, 1].as_ptr(), col.as_ptr()));
        let mut one = vec![0i32; nt];
        check(nc_get_vara_int(ncid, v, [0, 3, 9].as_ptr(), [nt, 1, 1].as_ptr(), one.as_mut_ptr()));
        assert_eq!(one, col);
        check(nc_close(ncid));
        check(nc_open(url.as_ptr(), 0, &mut ncid));
        let mut got = vec![0i32; nt * row];
        check(nc_get_vara_int(ncid, v, [0, 0, 0].as_ptr(), [nt, ny, nx].as_ptr(), got.as_mut_ptr()));
        for t in 0..nt {
            for i in 0..row {
                let want = if i == 3 * nx + 9 { -5 } else { expect(t, i) };
                assert_eq!(got[t * row + i], want, "t {t} i {i}");
            }
        }
        check(nc_close(ncid));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
