//! HDF5 filter ids and parameters <-> numcodecs codec JSON.
//!
//! | filter | HDF5 id | codec JSON we write | visible params |
//! | --- | --- | --- | --- |
//! | deflate | 1 | `{"id": "zlib", "level": L}` | `[L]` |
//! | shuffle | 2 | `{"id": "shuffle", "elementsize": N}` (the type size) | `[]` |
//! | fletcher32 | 3 | `{"id": "fletcher32"}` | `[]` |
//! | bzip2 | 307 | `{"id": "bz2", "level": L}` | `[L]` |
//! | zstd | 32015 | `{"id": "zstd", "level": L}` | `[L]` |
//! | lz4 | 32004 | `{"id": "lz4", "acceleration": A}` | `[A]` or `[]` |
//!
//! Parameters are written as JSON numbers (netcdf-c before 4.10 wrote
//! strings, which numcodecs rejects) and read as numbers or numeric strings.
//! Codecs with no HDF5 id (numcodecs `gzip`) are reported as id 0.

use serde_json::{Value, json};

use crate::error::{NcError, NcResult};

pub const DEFLATE: u32 = 1;
pub const SHUFFLE: u32 = 2;
pub const FLETCHER32: u32 = 3;
pub const SZIP: u32 = 4;
pub const BZIP2: u32 = 307;
pub const BLOSC: u32 = 32001;
pub const LZ4: u32 = 32004;
pub const ZSTD: u32 = 32015;

/// Filters built in.
pub fn built_in(id: u32) -> bool {
    matches!(id, DEFLATE | SHUFFLE | FLETCHER32 | BZIP2 | ZSTD | LZ4 | BLOSC)
}

/// Filters this build can apply: built in, or a complete plugin.
pub fn available(id: u32) -> bool {
    built_in(id) || super::plugin::registry().get(id).is_some()
}

/// A filter taken from a plugin rather than built in?
fn use_plugin(id: u32) -> Option<super::plugin::Plugin> {
    let p = super::plugin::registry().get(id)?;
    (!built_in(id) || super::plugin::prefer_plugins()).then_some(p)
}

/// Blosc's inner codec names by netCDF/HDF5 code (BLOSC_LZ .. BLOSC_ZSTD).
const BLOSC_NAMES: [&str; 6] = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"];
/// Inner codecs the built-in blosc can write.
pub fn blosc_can_write(compcode: u32) -> bool {
    matches!(compcode, 0 | 1 | 2 | 4 | 5)
}

/// A JSON number or numeric string as an integer.
pub fn param(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The codec JSON for a filter defined through the API.
pub fn to_json(id: u32, params: &[u32], elem_size: usize) -> NcResult<Value> {
    if let Some(p) = use_plugin(id) {
        let text = p.params_to_codec(params)?;
        return serde_json::from_str(&text).map_err(|_| NcError::EFILTER);
    }
    let first = || params.first().map(|&p| p as i32 as i64);
    Ok(match id {
        DEFLATE => json!({"id": "zlib", "level": first().ok_or(NcError::EFILTER)?}),
        SHUFFLE => json!({"id": "shuffle", "elementsize": elem_size}),
        FLETCHER32 => json!({"id": "fletcher32"}),
        BZIP2 => json!({"id": "bz2", "level": first().ok_or(NcError::EFILTER)?}),
        ZSTD => json!({"id": "zstd", "level": first().ok_or(NcError::EFILTER)?}),
        LZ4 => json!({"id": "lz4", "acceleration": first().unwrap_or(1)}),
        BLOSC => {
            // Visible params: [0, 0, 0, blocksize, clevel, shuffle, compcode].
            if params.len() != 7 {
                return Err(NcError::EFILTER);
            }
            let name = BLOSC_NAMES.get(params[6] as usize).ok_or(NcError::EINVAL)?;
            // netcdf-c's key order (readers take any order), so `_Codecs`
            // reads as netcdf-c shows it.
            json!({"id": "blosc", "clevel": params[4], "blocksize": params[3], "cname": name, "shuffle": params[5]})
        }
        _ => return Err(NcError::ENOFILTER),
    })
}

/// The HDF5 id and visible parameters of a codec (id 0 when it has none
/// this library knows).
pub fn from_json(codec: &Value) -> (u32, Vec<u32>) {
    let name = codec.get("id").and_then(Value::as_str).unwrap_or_default();
    if let Some((id, p)) = super::plugin::registry().by_codec_id(name)
        && use_plugin(id).is_some()
    {
        let text = serde_json::to_string(codec).unwrap_or_default();
        return p.codec_to_params(&text).map(|params| (id, params)).unwrap_or((id, Vec::new()));
    }
    let level = |key: &str| param(codec.get(key)).map(|l| vec![l as i32 as u32]).unwrap_or_default();
    match codec.get("id").and_then(Value::as_str) {
        // gzip is deflate in another wrapper (Zarr v3's core codec for it).
        Some("zlib" | "gzip") => (DEFLATE, level("level")),
        Some("shuffle") => (SHUFFLE, Vec::new()),
        Some("fletcher32") => (FLETCHER32, Vec::new()),
        Some("bz2") => (BZIP2, level("level")),
        Some("zstd") => (ZSTD, level("level")),
        Some("lz4") => (LZ4, level("acceleration")),
        Some("blosc") => {
            let name = codec.get("cname").and_then(Value::as_str).unwrap_or("lz4");
            let code = BLOSC_NAMES.iter().position(|n| *n == name).unwrap_or(1) as u32;
            let p = |k: &str, d: i64| param(codec.get(k)).unwrap_or(d) as u32;
            (BLOSC, vec![0, 0, 0, p("blocksize", 0), p("clevel", 5), p("shuffle", 1), code])
        }
        Some("szip") => (SZIP, Vec::new()),
        _ => (0, Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_of_ids_and_params() {
        for (id, params) in [(DEFLATE, vec![6]), (BZIP2, vec![9]), (ZSTD, vec![3]), (LZ4, vec![1])] {
            let j = to_json(id, &params, 4).unwrap();
            assert_eq!(from_json(&j), (id, params));
        }
        assert_eq!(to_json(SHUFFLE, &[], 8).unwrap(), json!({"id": "shuffle", "elementsize": 8}));
        assert_eq!(from_json(&json!({"id": "zlib", "level": "3"})), (DEFLATE, vec![3]), "4.9.x string params");
        let negative = to_json(ZSTD, &[(-5i32) as u32], 4).unwrap();
        assert_eq!(negative, json!({"id": "zstd", "level": -5}));
        assert_eq!(from_json(&json!({"id": "gzip", "level": 1})), (DEFLATE, vec![1]));
        assert_eq!(to_json(SZIP, &[4, 8], 4), Err(NcError::ENOFILTER));
        let b = to_json(BLOSC, &[0, 0, 0, 0, 5, 1, 5], 4).unwrap();
        assert_eq!(b, json!({"id": "blosc", "clevel": 5, "blocksize": 0, "cname": "zstd", "shuffle": 1}));
        assert_eq!(from_json(&b), (BLOSC, vec![0, 0, 0, 0, 5, 1, 5]));
    }
}
