//! Whole stores, decoded from the input (see `archive`) into an in-memory
//! store: metadata reading of every layout, opening as a dataset and
//! reading every variable, and rewriting the metadata of what was read.

use netcdf::dataset::{Dataset, NC_WRITE};
use netcdf::error::NcResult;
use netcdf::format;
use netcdf::io::layout::VarLayout;
use netcdf::io::selection::{Extent, c_order};
use netcdf::io::{Access, Selection, engine};
use netcdf::model::Model;
use netcdf::types::*;
use netcdf::zmap::{MemoryMap, Zmap};
use std::sync::Mutex;

use super::{Rng, archive};

/// The name datasets are opened under (its path is not used).
const NAME: &str = "memory.zarr#mode=nczarr";
/// Variables looked at per store.
const MAX_VARS: usize = 16;
/// Variables up to this many elements are read whole.
const MAX_WHOLE: usize = 1 << 16;
/// Elements in one partial read.
const MAX_PART: usize = 1 << 12;
/// Partial reads per variable.
const PARTS: usize = 4;

fn memory_store(data: &[u8]) -> (u64, MemoryMap) {
    let a = archive::decode(data);
    let map = MemoryMap::new();
    for (key, value) in a.objects {
        // Keys no driver accepts are dropped.
        let _ = map.put(&key, &value);
    }
    (a.seed, map)
}

/// Chunks over this size (in bytes, as the metadata gives it) are not
/// read, to keep executions fast. (The library's allocations for chunks
/// are fallible: a size the machine cannot provide is NC_ENOMEM, and
/// sizes that overflow a usize are NC_ENCZARR; tests/hostile.rs checks.)
const MAX_CHUNK_BYTES: usize = 64 << 20;

fn chunk_too_big(model: &Model, var: &netcdf::model::Var) -> bool {
    let elem = match var.xtype {
        NC_STRING => format::width::string_width(model, var).checked_mul(if var.utf32.is_some() { 4 } else { 1 }),
        t => type_size(t).ok(),
    };
    let bytes = elem.and_then(|e| var.chunks.iter().try_fold(e, |n, &c| n.checked_mul(c)));
    bytes.is_some_and(|b| b > MAX_CHUNK_BYTES)
}

/// Metadata of every layout: read into a model, then what the engine
/// derives from each variable (its codec chain, fill, string width).
pub fn metadata(data: &[u8]) {
    let (_, map) = memory_store(data);
    let Ok(read) = format::read_dataset(&map, false) else { return };
    let model = &read.model;
    for g in 0..model.groups.len() {
        let _ = model.group_full_name(g);
        for (v, var) in model.groups[g].vars.iter().enumerate() {
            let _ = model.effective_fill(var);
            let _ = format::width::string_width(model, var);
            if !chunk_too_big(model, var) {
                let _ = VarLayout::of(model, g, v as i32);
            }
        }
    }
    for d in 0..model.dims.len() {
        let _ = model.dim_full_name(d);
    }
}

fn all_vars(model: &Model) -> Vec<(usize, i32)> {
    (0..model.groups.len())
        .flat_map(|g| (0..model.groups[g].vars.len()).map(move |v| (g, v as i32)))
        .take(MAX_VARS)
        .collect()
}

/// Open the store as a dataset and read every variable: whole (when not
/// too big), in random slabs before anything is cached and again after,
/// and converted to double. Slabs must agree with the whole read.
pub fn store(data: &[u8]) {
    let (seed, map) = memory_store(data);
    let Ok(ds) = Dataset::open_store(NAME, Box::new(map), 0) else { return };
    let mut rng = Rng::new(seed);
    let vars = all_vars(&ds.model);
    // Reads lock the dataset themselves (they fetch chunks unlocked).
    let shared = Mutex::new(ds);
    for (g, v) in vars {
        let too_big = {
            let ds = shared.lock().expect("no panic while locked");
            chunk_too_big(&ds.model, ds.model.var(g, v).expect("listed variable"))
        };
        if !too_big {
            check_var(&shared, g, v, &mut rng);
        }
    }
}

fn extents(ds: &Dataset, g: usize, v: i32) -> Vec<Extent> {
    let var = ds.model.var(g, v).expect("listed variable");
    var.dimids.iter().map(|&d| Extent { len: ds.model.dims[d].len, unlimited: ds.model.dims[d].unlimited }).collect()
}

/// The values of a read, one per selected element in C order of the
/// selection: the element's bytes, or a string's bytes.
type Elements = Vec<Vec<u8>>;

/// Memory offsets (in elements) of every selected element, in C order of
/// the selection.
fn offsets(sel: &Selection) -> Vec<usize> {
    let mut out = Vec::with_capacity(sel.len());
    each_index(sel, |idx| out.push(idx.iter().zip(&sel.imap).map(|(&i, &m)| i * m as usize).sum()));
    out
}

/// Call `f` with the index (within the selection) of every selected
/// element, in C order.
fn each_index(sel: &Selection, mut f: impl FnMut(&[usize])) {
    let mut idx = vec![0usize; sel.count.len()];
    for _ in 0..sel.len() {
        f(&idx);
        for d in (0..idx.len()).rev() {
            idx[d] += 1;
            if idx[d] < sel.count[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Read a selection into a fresh buffer of `mem_type` (NC_NAT: the
/// variable's type).
fn read(shared: &Mutex<Dataset>, g: usize, v: i32, sel: &Selection, mem_type: NcType) -> NcResult<Elements> {
    let xtype = shared.lock().expect("no panic while locked").model.var(g, v)?.xtype;
    let t = if mem_type == NC_NAT { xtype } else { mem_type };
    let size = type_size(t)?;
    let offsets = offsets(sel);
    let slots = offsets.iter().max().map_or(0, |&m| m + 1);
    // u64 words keep every element type aligned.
    let mut buf = vec![0u64; (slots * size).div_ceil(8)];
    let ptr = buf.as_mut_ptr() as *mut u8;
    // SAFETY: the buffer has room for every offset the selection's imap
    // reaches, in elements of `t`.
    let result = unsafe { engine::read(shared, g, v, mem_type, ptr, |_| Ok(sel.clone())) };
    // SAFETY: as above; `bytes` is only read after the call.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, slots * size) };
    let strings = t == NC_STRING;
    let elements = offsets
        .iter()
        .map(|&o| {
            let raw = &bytes[o * size..(o + 1) * size];
            if !strings {
                return raw.to_vec();
            }
            let p = usize::from_ne_bytes(raw.try_into().expect("pointer size")) as *mut libc::c_char;
            if p.is_null() {
                return Vec::new();
            }
            // SAFETY: the library stored a malloc'd NUL-terminated string
            // here, ours to free.
            unsafe {
                let s = std::ffi::CStr::from_ptr(p).to_bytes().to_vec();
                libc::free(p as *mut libc::c_void);
                s
            }
        })
        .collect();
    result.map(|_| elements)
}

/// A random slab of at most MAX_PART elements, in C or Fortran memory order.
fn random_selection(dims: &[Extent], rng: &mut Rng) -> Option<Selection> {
    let (mut start, mut count, mut stride) = (Vec::new(), Vec::new(), Vec::new());
    for d in dims {
        if d.len == 0 {
            start.push(0);
            count.push(0);
            stride.push(1);
            continue;
        }
        let s = rng.below(d.len);
        let st = if rng.below(2) == 0 { 1 } else { 1 + rng.below(4) };
        let most = (d.len - 1 - s) / st + 1;
        start.push(s);
        count.push(1 + rng.below(most.min(16)));
        stride.push(st as isize);
    }
    while count.iter().product::<usize>() > MAX_PART {
        let d = (0..count.len()).max_by_key(|&d| count[d])?;
        count[d] = count[d].div_ceil(2);
    }
    let imap: Vec<isize> = if rng.below(4) == 0 {
        // Fortran order: the first dimension varies fastest in memory.
        let mut m = Vec::with_capacity(count.len());
        let mut step = 1isize;
        for &c in &count {
            m.push(step);
            step *= c.max(1) as isize;
        }
        m
    } else {
        c_order(&count)
    };
    Selection::check(dims, Some(&start), Some(&count), Some(&stride), Some(&imap), Access::Read).ok()
}

/// The whole-variable index (C order) of each element of a selection.
fn whole_indices(sel: &Selection, dims: &[Extent]) -> Vec<usize> {
    let shape: Vec<usize> = dims.iter().map(|d| d.len).collect();
    let strides = c_order(&shape);
    let mut out = Vec::with_capacity(sel.len());
    each_index(sel, |idx| {
        out.push((0..idx.len()).map(|d| (sel.start[d] + idx[d] * sel.stride[d]) * strides[d] as usize).sum())
    });
    out
}

fn as_f64(t: NcType, b: &[u8]) -> Option<f64> {
    Some(match t {
        NC_BYTE => i8::from_ne_bytes(b.try_into().ok()?) as f64,
        NC_UBYTE => b[0] as f64,
        NC_SHORT => i16::from_ne_bytes(b.try_into().ok()?) as f64,
        NC_USHORT => u16::from_ne_bytes(b.try_into().ok()?) as f64,
        NC_INT => i32::from_ne_bytes(b.try_into().ok()?) as f64,
        NC_UINT => u32::from_ne_bytes(b.try_into().ok()?) as f64,
        NC_FLOAT => f32::from_ne_bytes(b.try_into().ok()?) as f64,
        NC_DOUBLE => f64::from_ne_bytes(b.try_into().ok()?),
        _ => return None,
    })
}

fn check_var(shared: &Mutex<Dataset>, g: usize, v: i32, rng: &mut Rng) {
    let (xtype, dims, name) = {
        let ds = shared.lock().expect("no panic while locked");
        let var = ds.model.var(g, v).expect("listed variable");
        (var.xtype, extents(&ds, g, v), var.name.clone())
    };
    let total = dims.iter().try_fold(1usize, |n, d| n.checked_mul(d.len));
    let whole = match total {
        Some(n) if n <= MAX_WHOLE => {
            let zeros = vec![0; dims.len()];
            Selection::check(&dims, Some(&zeros), None, None, None, Access::Read)
                .ok()
                .map(|sel| read(shared, g, v, &sel, NC_NAT))
        }
        _ => None,
    };
    if dims.is_empty() {
        return;
    }
    // Slabs: first with nothing cached (byte-range reads), then again.
    shared.lock().expect("no panic while locked").caches.clear();
    let slabs: Vec<Selection> = (0..PARTS).filter_map(|_| random_selection(&dims, rng)).collect();
    for pass in 0..2 {
        for sel in &slabs {
            let part = read(shared, g, v, sel, NC_NAT);
            let Some(Ok(whole)) = whole.as_ref() else { continue };
            let part =
                part.unwrap_or_else(|e| panic!("{name}: slab {sel:?} fails ({e:?}, pass {pass}), whole read works"));
            for (k, i) in whole_indices(sel, &dims).into_iter().enumerate() {
                assert_eq!(
                    part[k], whole[i],
                    "{name}: slab {sel:?} element {k} (pass {pass}) differs from the whole read"
                );
            }
        }
    }
    // Conversion to double agrees with the stored values.
    if let Some(Ok(whole)) = whole.as_ref()
        && as_f64(xtype, &vec![0; type_size(xtype).unwrap_or(0)]).is_some()
    {
        let zeros = vec![0; dims.len()];
        let sel = Selection::check(&dims, Some(&zeros), None, None, None, Access::Read).expect("checked before");
        let doubles = read(shared, g, v, &sel, NC_DOUBLE).unwrap_or_else(|e| panic!("{name}: as double: {e:?}"));
        for (k, (d, w)) in doubles.iter().zip(whole).enumerate() {
            let (d, w) = (as_f64(NC_DOUBLE, d), as_f64(xtype, w));
            assert!(d == w || d.is_some_and(f64::is_nan) && w.is_some_and(f64::is_nan), "{name}[{k}] as double");
        }
    }
}

/// The byte order a variable's chunks are in. NC_ENDIAN_NATIVE (a dtype
/// with no order, or `|`) is written back as this machine's order, and
/// one-byte types have none, so only the effective order is compared.
fn byte_order(var: &netcdf::model::Var) -> &'static str {
    if var.xtype == NC_STRING || type_size(var.xtype) == Ok(1) {
        return "none";
    }
    match var.endianness {
        NC_ENDIAN_BIG => "big",
        NC_ENDIAN_LITTLE => "little",
        _ if cfg!(target_endian = "big") => "big",
        _ => "little",
    }
}

/// A summary of a model, for comparing what two reads found. Dimensions
/// are listed by name: their ids follow the order a read meets them
/// (object by object in a pure Zarr store, group by group in NCZarr), so
/// writing a pure Zarr store as NCZarr may renumber them.
fn describe(model: &Model) -> String {
    let mut dims: Vec<String> = (0..model.dims.len())
        .map(|d| format!("dim {} {} {}\n", model.dim_full_name(d), model.dims[d].len, model.dims[d].unlimited))
        .collect();
    dims.sort();
    let mut out = dims.concat();
    for g in 0..model.groups.len() {
        let group = &model.groups[g];
        out += &format!("group {} {:?}\n", model.group_full_name(g), group.atts);
        for var in &group.vars {
            let dims: Vec<String> = var.dimids.iter().map(|&d| model.dim_full_name(d)).collect();
            out += &format!(
                "var {} {} {:?} {:?} {:?} fill {:?} {:?} codecs {:?} {} {} {:?}\n",
                var.name,
                var.xtype,
                dims,
                var.chunks,
                var.atts,
                var.no_fill,
                var.fill,
                var.codecs,
                byte_order(var),
                var.order_f,
                var.dim_separator,
            );
        }
    }
    out
}

/// Open writable, rewrite all metadata, close: the result must open to
/// the same model, and rewriting that must change nothing.
pub fn rewrite(data: &[u8]) {
    let (_, map) = memory_store(data);
    let Ok(mut ds) = Dataset::open_store(NAME, Box::new(map.clone()), NC_WRITE) else { return };
    if !ds.model.writable {
        return; // an older layout: read-only
    }
    let before = describe(&ds.model);
    ds.model.dirty = true;
    if ds.close().is_err() {
        return;
    }
    let first = map.objects().expect("store");
    let map2 = MemoryMap::new();
    for (k, value) in &first {
        map2.put(k, value).expect("a key we wrote");
    }
    let mut again = Dataset::open_store(NAME, Box::new(map2.clone()), NC_WRITE)
        .unwrap_or_else(|e| panic!("the rewritten store does not open: {e:?}"));
    assert_eq!(describe(&again.model), before, "the rewritten store reads differently");
    again.model.dirty = true;
    again.close().unwrap_or_else(|e| panic!("the rewritten store cannot be rewritten: {e:?}"));
    let second = map2.objects().expect("store");
    if second != first {
        let changed: Vec<String> = first
            .iter()
            .filter(|(k, v)| second.get(*k) != Some(*v))
            .map(|(k, v)| {
                let now = second.get(k).map(|b| String::from_utf8_lossy(b).into_owned());
                format!("{k}: {} -> {now:?}", String::from_utf8_lossy(v))
            })
            .collect();
        panic!("a second rewrite changes the store: {changed:#?}");
    }
}
