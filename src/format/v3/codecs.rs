//! A Zarr v3 `codecs` list (ZARR_V3.md §1.7, §2) in the engine's terms:
//! an element order (`transpose`), the array-to-bytes serializer (`bytes`
//! with its byte order), and the codecs after it as the numcodecs-style
//! JSON objects our codec chain already runs (`gzip`, `zstd`, `blosc`,
//! `crc32c`, and every `numcodecs.<id>`).

use serde_json::{Map, Value, json};

use crate::error::{NcError, NcResult};
use crate::format::build::usize_list;

/// What the list says.
#[derive(Debug, Clone, PartialEq)]
pub struct V3Codecs {
    /// How stored chunks order their elements: a chunk's dimension `i`
    /// is the array's dimension `transpose[i]` (every `transpose` codec
    /// before the serializer, at every level of shards, composed);
    /// `None` when that is the array's order.
    pub transpose: Option<Vec<usize>>,
    /// `bytes`' `endian`: `Some(true)` big, `Some(false)` little, `None`
    /// not given (one-byte types).
    pub big_endian: Option<bool>,
    /// Codecs run on the serialized bytes (array-to-array numcodecs
    /// filters first), as numcodecs JSON (`{"id": ..., ...}`). For a
    /// sharded array, those of its innermost chunks (as is `big_endian`).
    pub chain: Vec<Value>,
    /// `sharding_indexed`, outermost first: each stored object is a shard
    /// of inner chunks, which are shards themselves when there is more
    /// than one.
    pub shards: Vec<ShardSpec>,
    /// The serializer is `vlen-utf8` or `vlen-bytes`.
    pub vlen: bool,
}

/// A `sharding_indexed` codec's layout, in the array's dimension order
/// (a `transpose` before it permutes the shards it sees).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardSpec {
    /// The inner chunks' shape (the array's `chunk_grid`, or the level
    /// above, gives the shard's).
    pub chunk_shape: Vec<usize>,
    /// The index lists inner chunks in C order over the array's
    /// dimensions `order[0], order[1], ...`; `None`: the array's order.
    pub order: Option<Vec<usize>>,
    /// The index is the last bytes of the shard (else the first).
    pub index_at_end: bool,
    /// The index is followed by its CRC-32C.
    pub index_crc: bool,
}

/// Most levels of shards inside shards read (`io::shard` reads each
/// level's index by range); a deeper array's data is NC_ENOFILTER.
pub const MAX_SHARD_LEVELS: usize = 8;

/// A codec this build lacks (reading the data is NC_ENOFILTER).
fn lacking(what: &str) -> Value {
    json!({"id": format!("zarr3.{what}")})
}

/// A permutation, or `None` for the identity.
fn unless_identity(perm: &[usize]) -> Option<Vec<usize>> {
    perm.iter().enumerate().any(|(i, &p)| i != p).then(|| perm.to_vec())
}

/// A `sharding_indexed` configuration: the inner codecs (parsed as a
/// list of their own, one level deeper) and the index layout. `perm`
/// says which array dimension each dimension of the shards it sees is
/// (transposes before it). What we cannot read (other index codecs)
/// becomes a codec the chain lacks.
fn parse_sharding(config: &Map<String, Value>, perm: &[usize], depth: usize) -> NcResult<V3Codecs> {
    let rank = perm.len();
    let chunk_shape = usize_list(config.get("chunk_shape"))?;
    if chunk_shape.len() != rank || chunk_shape.contains(&0) {
        return Err(NcError::ENCZARR);
    }
    // In the shard's dimension order, as its codec sees it.
    let mut in_array_order = vec![0; rank];
    for (i, &n) in chunk_shape.iter().enumerate() {
        in_array_order[perm[i]] = n;
    }
    let mut inner = parse_list(config.get("codecs").ok_or(NcError::ENCZARR)?, perm.to_vec(), depth + 1)?;
    let index_at_end = match config.get("index_location").and_then(Value::as_str) {
        None | Some("end") => true,
        Some("start") => false,
        Some(_) => return Err(NcError::ENCZARR),
    };
    // The index codecs we read: little-endian bytes, then maybe crc32c.
    let names: Vec<(String, Map<String, Value>)> = config
        .get("index_codecs")
        .and_then(Value::as_array)
        .ok_or(NcError::ENCZARR)?
        .iter()
        .map(|c| name_and_config(c).map(|(n, c)| (n.to_string(), c)))
        .collect::<NcResult<_>>()?;
    let little = |c: &Map<String, Value>| c.get("endian").and_then(Value::as_str) == Some("little");
    let index_crc = match names.as_slice() {
        [(b, c)] if b == "bytes" && little(c) => false,
        [(b, c), (crc, _)] if b == "bytes" && little(c) && crc == "crc32c" => true,
        _ => {
            inner.chain.insert(0, lacking("shard_index_codecs"));
            false
        }
    };
    let level = ShardSpec { chunk_shape: in_array_order, order: unless_identity(perm), index_at_end, index_crc };
    inner.shards.insert(0, level);
    Ok(inner)
}

fn name_and_config(codec: &Value) -> NcResult<(&str, Map<String, Value>)> {
    match codec {
        Value::String(name) => Ok((name, Map::new())),
        Value::Object(o) => {
            let name = o.get("name").and_then(Value::as_str).ok_or(NcError::ENCZARR)?;
            let config = match o.get("configuration") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(c)) => c.clone(),
                Some(_) => return Err(NcError::ENCZARR),
            };
            Ok((name, config))
        }
        _ => Err(NcError::ENCZARR),
    }
}

/// A bytes-to-bytes (or numcodecs array-to-array) codec as numcodecs JSON.
fn as_numcodecs(name: &str, config: Map<String, Value>) -> NcResult<Value> {
    let mut out = Map::new();
    let id = match name {
        "gzip" | "zstd" | "crc32c" => name.to_string(),
        "blosc" => {
            let mut config = config;
            // v3 names the shuffle; numcodecs numbers it.
            let shuffle = match config.get("shuffle") {
                None => 1,
                Some(Value::String(s)) => match s.as_str() {
                    "noshuffle" => 0,
                    "shuffle" => 1,
                    "bitshuffle" => 2,
                    _ => return Err(NcError::ENCZARR),
                },
                Some(Value::Number(n)) => n.as_i64().ok_or(NcError::ENCZARR)?,
                Some(_) => return Err(NcError::ENCZARR),
            };
            config.insert("shuffle".into(), json!(shuffle));
            out.insert("id".into(), json!("blosc"));
            out.extend(config);
            return Ok(Value::Object(out));
        }
        other => match other.strip_prefix("numcodecs.") {
            Some(id) => id.to_string(),
            // Unknown: the chain says NC_ENOFILTER when data is touched.
            None => format!("zarr3.{other}"),
        },
    };
    out.insert("id".into(), Value::String(id));
    // zstd's `checksum` is in the frame; our decoder checks it itself.
    out.extend(config.into_iter().filter(|(k, _)| !(name == "zstd" && k == "checksum")));
    Ok(Value::Object(out))
}

/// A codec of a variable's chain (the numcodecs JSON the netCDF filter
/// API keeps) as the v3 codec zarr-python 3 reads (ZARR_V3.md §2.4):
/// the core codecs where they exist (`gzip`, `zstd`, `blosc` with its
/// shuffle named and `typesize`, `crc32c`), `numcodecs.<id>` for the
/// rest (shuffle, fletcher32, bz2, lz4, zlib, plugins' codecs).
pub fn to_v3(codec: &Value, elem_size: usize) -> Value {
    let Some(obj) = codec.as_object() else { return codec.clone() };
    let id = obj.get("id").and_then(Value::as_str).unwrap_or_default();
    let mut config: Map<String, Value> =
        obj.iter().filter(|(k, _)| *k != "id").map(|(k, v)| (k.clone(), v.clone())).collect();
    let name = match id {
        "gzip" => "gzip".to_string(),
        "crc32c" if config.get("location").is_none_or(|l| l == "end") => return json!({"name": "crc32c"}),
        "zstd" => {
            config.entry("checksum").or_insert(json!(false));
            "zstd".to_string()
        }
        "blosc" => {
            let shuffle = match config.get("shuffle").and_then(Value::as_i64) {
                Some(0) => "noshuffle",
                Some(2) => "bitshuffle",
                _ => "shuffle",
            };
            config.insert("shuffle".into(), json!(shuffle));
            config.entry("typesize").or_insert(json!(elem_size));
            config.entry("blocksize").or_insert(json!(0));
            "blosc".to_string()
        }
        // A codec read from a v3 store that this build lacks, by its name.
        other => match other.strip_prefix("zarr3.") {
            Some(v3_name) => v3_name.to_string(),
            None => format!("numcodecs.{other}"),
        },
    };
    // zarr-python requires a configuration of every `numcodecs.*` codec.
    if config.is_empty() && !name.starts_with("numcodecs.") {
        json!({"name": name})
    } else {
        json!({"name": name, "configuration": config})
    }
}

/// Parse a `codecs` list for an array of `rank` dimensions.
pub fn parse(codecs: &Value, rank: usize) -> NcResult<V3Codecs> {
    parse_list(codecs, (0..rank).collect(), 0)
}

/// Parse a `codecs` list of `depth` enclosing `sharding_indexed` codecs,
/// whose input's dimension `i` is the array's dimension `perm[i]`.
fn parse_list(codecs: &Value, mut perm: Vec<usize>, depth: usize) -> NcResult<V3Codecs> {
    let rank = perm.len();
    let list = codecs.as_array().filter(|l| !l.is_empty()).ok_or(NcError::ENCZARR)?;
    let mut out = V3Codecs { transpose: None, big_endian: None, chain: Vec::new(), shards: Vec::new(), vlen: false };
    let mut serialized = false;
    for codec in list {
        let (name, config) = name_and_config(codec)?;
        match (name, serialized) {
            ("transpose", false) => {
                let order = usize_list(config.get("order"))?;
                let mut seen = vec![false; rank];
                let permutation =
                    order.len() == rank && order.iter().all(|&i| i < rank && !std::mem::replace(&mut seen[i], true));
                if !permutation {
                    return Err(NcError::ENCZARR);
                }
                // Its output's dimension i is its input's order[i].
                perm = order.iter().map(|&i| perm[i]).collect();
            }
            ("bytes" | "endian", false) => {
                out.big_endian = match config.get("endian").and_then(Value::as_str) {
                    None => None,
                    Some("little") => Some(false),
                    Some("big") => Some(true),
                    Some(_) => return Err(NcError::ENCZARR),
                };
                out.transpose = unless_identity(&perm);
                serialized = true;
            }
            ("sharding_indexed", false) if depth >= MAX_SHARD_LEVELS => {
                // Absurdly deep: listed, its data refused, and the rest
                // of the configuration not even looked at.
                out.chain.insert(0, lacking("sharding_depth"));
                serialized = true;
            }
            ("sharding_indexed", false) => {
                // Array codecs (but transposes) over the whole shard: not
                // read.
                let filters_before = !out.chain.is_empty();
                out = parse_sharding(&config, &perm, depth)?;
                if filters_before {
                    out.chain.insert(0, lacking("array_codec_before_sharding"));
                }
                serialized = true;
            }
            ("vlen-utf8" | "vlen-bytes", false) => {
                out.vlen = true;
                out.transpose = unless_identity(&perm);
                serialized = true;
            }
            ("transpose" | "bytes" | "endian" | "sharding_indexed" | "vlen-utf8" | "vlen-bytes", true) => {
                // A second serializer, or an array codec after one.
                return Err(NcError::ENCZARR);
            }
            // Bytes codecs over a whole shard: not read.
            (_, true) if !out.shards.is_empty() => out.chain.insert(0, lacking("codec_after_sharding")),
            (other, _) => out.chain.push(as_numcodecs(other, config)?),
        }
    }
    if !serialized {
        return Err(NcError::ENCZARR);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zarr_python_defaults() {
        let c = parse(
            &json!([{"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "zstd", "configuration": {"level": 0, "checksum": false}}]),
            2,
        )
        .unwrap();
        assert_eq!(c.big_endian, Some(false));
        assert_eq!(c.chain, vec![json!({"id": "zstd", "level": 0})]);
        assert_eq!(c.transpose, None);
        let one_byte = parse(&json!([{"name": "bytes"}]), 1).unwrap();
        assert_eq!((one_byte.big_endian, one_byte.chain.len()), (None, 0));
    }

    #[test]
    fn every_codec_kind() {
        let c = parse(
            &json!([{"name": "transpose", "configuration": {"order": [1, 0]}},
                    {"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}},
                    {"name": "bytes", "configuration": {"endian": "big"}},
                    {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "bitshuffle",
                                                         "typesize": 4, "blocksize": 0}},
                    {"name": "gzip", "configuration": {"level": 5}},
                    {"name": "crc32c"},
                    {"name": "numcodecs.fletcher32"}]),
            2,
        )
        .unwrap();
        assert_eq!(c.transpose, Some(vec![1, 0]));
        assert_eq!(c.big_endian, Some(true));
        assert_eq!(
            c.chain,
            vec![
                json!({"id": "delta", "dtype": "<i4"}),
                json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 2, "typesize": 4, "blocksize": 0}),
                json!({"id": "gzip", "level": 5}),
                json!({"id": "crc32c"}),
                json!({"id": "fletcher32"}),
            ]
        );
        let unknown = parse(&json!([{"name": "bytes"}, {"name": "mystery"}]), 1).unwrap();
        assert_eq!(unknown.chain, vec![json!({"id": "zarr3.mystery"})]);
    }

    /// What the netCDF filter API keeps becomes what zarr-python 3 reads,
    /// and reads back as the chain it was.
    #[test]
    fn chains_written_as_v3() {
        let chain = [
            json!({"id": "shuffle", "elementsize": 4}),
            json!({"id": "gzip", "level": 5}),
            json!({"id": "zstd", "level": 3}),
            json!({"id": "blosc", "clevel": 5, "blocksize": 0, "cname": "lz4", "shuffle": 2}),
            json!({"id": "fletcher32"}),
            json!({"id": "bz2", "level": 9}),
            json!({"id": "lz4", "acceleration": 1}),
            json!({"id": "crc32c"}),
        ];
        let v3: Vec<Value> = chain.iter().map(|c| to_v3(c, 4)).collect();
        assert_eq!(v3[0], json!({"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}}));
        assert_eq!(v3[1], json!({"name": "gzip", "configuration": {"level": 5}}));
        assert_eq!(v3[2], json!({"name": "zstd", "configuration": {"level": 3, "checksum": false}}));
        assert_eq!(
            v3[3],
            json!({"name": "blosc", "configuration": {"clevel": 5, "blocksize": 0, "cname": "lz4",
                                                       "shuffle": "bitshuffle", "typesize": 4}})
        );
        assert_eq!(v3[4], json!({"name": "numcodecs.fletcher32", "configuration": {}}));
        assert_eq!(v3[7], json!({"name": "crc32c"}));
        let mut list = vec![json!({"name": "bytes", "configuration": {"endian": "little"}})];
        list.extend(v3);
        let back = parse(&Value::Array(list), 1).unwrap().chain;
        let mut want = chain.to_vec();
        want[3]["typesize"] = json!(4);
        assert_eq!(back, want);
    }

    fn sharding_codec(chunk_shape: Value, codecs: Value) -> Value {
        json!({"name": "sharding_indexed", "configuration": {
            "chunk_shape": chunk_shape, "codecs": codecs,
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            "index_location": "end"}})
    }

    fn level(chunk_shape: Vec<usize>, order: Option<Vec<usize>>) -> ShardSpec {
        ShardSpec { chunk_shape, order, index_at_end: true, index_crc: true }
    }

    #[test]
    fn sharding() {
        let sharded = parse(
            &json!([sharding_codec(
                json!([2]),
                json!([{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "zstd", "configuration": {"level": 0, "checksum": false}}])
            )]),
            1,
        )
        .unwrap();
        assert_eq!(sharded.shards, vec![level(vec![2], None)]);
        assert_eq!((sharded.big_endian, sharded.chain.clone()), (Some(false), vec![json!({"id": "zstd", "level": 0})]));
        let start = parse(
            &json!([{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2, 2], "codecs": [{"name": "bytes"}],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "big"}}],
                "index_location": "start"}}]),
            2,
        )
        .unwrap();
        assert_eq!(start.shards.first().map(|s| s.index_at_end), Some(false));
        assert_eq!(start.chain, vec![json!({"id": "zarr3.shard_index_codecs"})], "a big-endian index is not read");
        for bad in [
            json!([{"name": "sharding_indexed", "configuration": {"codecs": [{"name": "bytes"}], "index_codecs": []}}]),
            json!([{"name": "sharding_indexed", "configuration": {"chunk_shape": [0], "codecs": [{"name": "bytes"}],
                                                                  "index_codecs": []}}]),
            json!([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2], "index_codecs": []}}]),
            json!([{"name": "sharding_indexed", "configuration": {"chunk_shape": [2], "codecs": [{"name": "bytes"}],
                                                                  "index_codecs": [], "index_location": "middle"}}]),
            json!([sharding_codec(json!([2]), json!([sharding_codec(json!([1, 1]), json!([{"name": "bytes"}]))]))]),
            json!([sharding_codec(json!([2]), json!([sharding_codec(json!([1]), json!([]))]))]),
        ] {
            assert_eq!(parse(&bad, 1), Err(NcError::ENCZARR), "{bad}");
        }
    }

    /// zarr-python's corpus arrays (tests/v3/corpus.py): shards of shards,
    /// and a transpose before the shards.
    #[test]
    fn nested_and_transposed_shards() {
        let nested = parse(
            &json!([sharding_codec(json!([2, 4]), json!([sharding_codec(json!([1, 2]),
                json!([{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 5}}]))]))]),
            2,
        )
        .unwrap();
        assert_eq!(nested.shards, vec![level(vec![2, 4], None), level(vec![1, 2], None)]);
        assert_eq!((nested.transpose, nested.chain), (None, vec![json!({"id": "gzip", "level": 5})]));
        // The shard the codec sees is transposed: its chunk shape (3, 2)
        // is (2, 3) of the array, its index in the transposed order, and
        // the stored chunks transposed too.
        let transposed = parse(
            &json!([{"name": "transpose", "configuration": {"order": [1, 0]}},
                    sharding_codec(json!([3, 2]), json!([{"name": "bytes", "configuration": {"endian": "little"}}]))]),
            2,
        )
        .unwrap();
        assert_eq!(transposed.shards, vec![level(vec![2, 3], Some(vec![1, 0]))]);
        assert_eq!((transposed.transpose, transposed.chain), (Some(vec![1, 0]), vec![]));
        // Transposes compose: outside and inside the shards, and at each
        // level; two that undo each other are none.
        let composed = parse(
            &json!([{"name": "transpose", "configuration": {"order": [1, 2, 0]}},
                    sharding_codec(json!([4, 5, 3]), json!([
                        {"name": "transpose", "configuration": {"order": [2, 0, 1]}},
                        sharding_codec(json!([1, 2, 1]), json!([{"name": "transpose", "configuration": {"order": [1, 0, 2]}},
                                                             {"name": "bytes", "configuration": {"endian": "little"}}]))]))]),
            3,
        )
        .unwrap();
        // Outer: dims (1, 2, 0) of the array; inner: (0, 1, 2) again;
        // stored: (1, 0, 2).
        assert_eq!(composed.shards, vec![level(vec![3, 4, 5], Some(vec![1, 2, 0])), level(vec![1, 2, 1], None)]);
        assert_eq!(composed.transpose, Some(vec![1, 0, 2]));
        let undone = parse(
            &json!([{"name": "transpose", "configuration": {"order": [1, 0]}},
                    {"name": "transpose", "configuration": {"order": [1, 0]}}, {"name": "bytes"}]),
            2,
        )
        .unwrap();
        assert_eq!(undone.transpose, None);
    }

    /// What the shards' reader does not read: listed, data refused.
    #[test]
    fn unread_shard_layouts() {
        let refused = |codecs: Value, rank| parse(&codecs, rank).unwrap().chain[0]["id"].as_str().unwrap().to_string();
        let bytes = json!([{"name": "bytes"}]);
        let filter_first = json!([{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}},
                                  sharding_codec(json!([2]), bytes.clone())]);
        assert_eq!(refused(filter_first, 1), "zarr3.array_codec_before_sharding");
        let compressed =
            json!([sharding_codec(json!([2]), bytes.clone()), {"name": "gzip", "configuration": {"level": 1}}]);
        assert_eq!(refused(compressed, 1), "zarr3.codec_after_sharding");
        let inner_compressed =
            json!([sharding_codec(json!([2]), json!([sharding_codec(json!([1]), bytes.clone()), {"name": "zstd"}]))]);
        assert_eq!(refused(inner_compressed, 1), "zarr3.codec_after_sharding");
        // Shards nested deeper than we read: the parse stops there.
        let mut deep = bytes;
        for _ in 0..=MAX_SHARD_LEVELS {
            deep = json!([sharding_codec(json!([1]), deep)]);
        }
        let c = parse(&deep, 1).unwrap();
        assert_eq!((c.shards.len(), c.chain[0]["id"].as_str()), (MAX_SHARD_LEVELS, Some("zarr3.sharding_depth")));
        let mut ok = json!([{"name": "bytes"}]);
        for _ in 0..MAX_SHARD_LEVELS {
            ok = json!([sharding_codec(json!([1]), ok)]);
        }
        assert_eq!(parse(&ok, 1).unwrap().chain, Vec::<Value>::new());
    }

    #[test]
    fn malformed_lists() {
        for bad in [
            json!([]),
            json!({}),
            json!([{"name": "zstd"}]),
            json!([{"name": "bytes"}, {"name": "bytes"}]),
            json!([{"name": "bytes"}, {"name": "transpose", "configuration": {"order": [0]}}]),
            json!([{"name": "transpose", "configuration": {"order": [0, 0]}}, {"name": "bytes"}]),
            json!([{"name": "transpose", "configuration": {"order": [2, 0]}}, {"name": "bytes"}]),
            json!([{"name": "bytes", "configuration": {"endian": "middle"}}]),
            json!([{"configuration": {}}]),
            json!([3]),
        ] {
            assert_eq!(parse(&bad, 2), Err(NcError::ENCZARR), "{bad}");
        }
    }
}
