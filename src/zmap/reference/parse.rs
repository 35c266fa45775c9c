//! Kerchunk reference files (fsspec's "reference" format) as a table of
//! keys. Version 0 is a JSON object of key → reference; version 1 is
//! `{"version": 1, "templates": {...}, "gen": [...], "refs": {...}}`.
//! A reference is one of
//! - a string: the object's bytes, as text, or after `base64:` in base64;
//! - `[url]`: the whole of another file;
//! - `[url, offset, length]`: a byte range of another file;
//! - a JSON object (some writers inline `.zarray` so): its JSON text.
//!
//! URLs may use `{{name}}` templates, and `gen` entries generate keys
//! over the product of their dimensions (template.rs renders both).
//! Everything is checked here, once: a key that could escape the dataset
//! (`..`, an empty segment, a leading `/`), a range that cannot be
//! (negative, or absurdly long), more generated keys than memory could
//! hold, a malformed file: NC_ENCZARR, before any data is read.

use std::collections::{BTreeMap, HashMap};

use base64::Engine;
use serde_json::{Map, Value as Json};

use super::template::{self, Value};
use crate::error::{NcError, NcResult};

/// What a key of the dataset holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ref {
    /// Bytes held in the reference file.
    Inline(Vec<u8>),
    /// Bytes `offset..offset + len` of target `target`, or all of it
    /// (`len` None).
    Range { target: usize, offset: u64, len: Option<u64> },
}

impl Ref {
    /// The length of the object it names, when known without reading
    /// (a whole target's is not).
    pub fn known_len(&self) -> Option<u64> {
        match self {
            Ref::Inline(bytes) => Some(bytes.len() as u64),
            Ref::Range { len, .. } => *len,
        }
    }
}

/// A parsed reference file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct References {
    /// Every key, sorted (listing walks them in order).
    pub refs: BTreeMap<String, Ref>,
    /// The distinct target URLs, as the reference file names them after
    /// templates (relative ones are resolved by the caller).
    pub targets: Vec<String>,
}

/// Longest byte range one reference may name: far beyond any chunk, and
/// small enough that reading it is an allocation the system can refuse
/// politely rather than a size that overflows.
pub const MAX_RANGE: u64 = 1 << 34;

/// Most keys a file may hold, generated ones included.
pub const MAX_KEYS: usize = 50_000_000;

/// Parse a reference file.
pub fn parse(bytes: &[u8]) -> NcResult<References> {
    let doc: Json = serde_json::from_slice(bytes).map_err(|_| NcError::ENCZARR)?;
    let Json::Object(mut doc) = doc else { return Err(NcError::ENCZARR) };
    let mut out = Builder::default();
    match doc.get("version") {
        // Version 0: the whole object is the references.
        None => {
            for (key, value) in doc {
                out.add(key, value, &|_: &str| None)?;
            }
        }
        Some(Json::Number(n)) if n.as_u64() == Some(1) => {
            let templates = match doc.remove("templates") {
                None | Some(Json::Null) => Map::new(),
                Some(Json::Object(t)) => t,
                Some(_) => return Err(NcError::ENCZARR),
            };
            let templates: HashMap<String, String> = templates
                .into_iter()
                .map(|(k, v)| match v {
                    Json::String(s) => Ok((k, s)),
                    _ => Err(NcError::ENCZARR),
                })
                .collect::<NcResult<_>>()?;
            let named = |name: &str| templates.get(name).map(|t| Value::Text(t.clone()));
            if let Some(gens) = doc.remove("gen") {
                let Json::Array(gens) = gens else { return Err(NcError::ENCZARR) };
                for spec in gens {
                    generate(&mut out, spec, &named)?;
                }
            }
            match doc.remove("refs") {
                None | Some(Json::Null) => {}
                Some(Json::Object(refs)) => {
                    for (key, value) in refs {
                        out.add(key, value, &named)?;
                    }
                }
                Some(_) => return Err(NcError::ENCZARR),
            }
        }
        Some(_) => return Err(NcError::ENCZARR),
    }
    Ok(out.finish())
}

#[derive(Default)]
struct Builder {
    refs: BTreeMap<String, Ref>,
    targets: Vec<String>,
    target_ids: HashMap<String, usize>,
}

impl Builder {
    fn finish(self) -> References {
        References { refs: self.refs, targets: self.targets }
    }

    /// One `key: reference` entry; URLs rendered with `templates`.
    fn add(&mut self, key: String, value: Json, templates: &dyn Fn(&str) -> Option<Value>) -> NcResult<()> {
        let reference = match value {
            Json::String(text) => Ref::Inline(inline(text)?),
            Json::Object(_) => Ref::Inline(serde_json::to_vec(&value).map_err(|_| NcError::ENCZARR)?),
            Json::Array(items) => {
                let url = match items.first() {
                    Some(Json::String(url)) => template::render(url, templates)?,
                    _ => return Err(NcError::ENCZARR),
                };
                let (offset, len) = match &items[1..] {
                    [] => (0, None),
                    [offset, len] => (number(offset)?, Some(number(len)?)),
                    _ => return Err(NcError::ENCZARR),
                };
                self.range(url, offset, len)?
            }
            _ => return Err(NcError::ENCZARR),
        };
        self.insert(key, reference)
    }

    fn range(&mut self, url: String, offset: u64, len: Option<u64>) -> NcResult<Ref> {
        if url.is_empty() || len.is_some_and(|l| l > MAX_RANGE) || len.is_some_and(|l| offset.checked_add(l).is_none())
        {
            return Err(NcError::ENCZARR);
        }
        let next = self.targets.len();
        let target = *self.target_ids.entry(url).or_insert_with_key(|url| {
            self.targets.push(url.clone());
            next
        });
        Ok(Ref::Range { target, offset, len })
    }

    fn insert(&mut self, key: String, reference: Ref) -> NcResult<()> {
        check_key(&key)?;
        if self.refs.len() >= MAX_KEYS {
            return Err(NcError::ENCZARR);
        }
        self.refs.insert(key, reference);
        Ok(())
    }
}

/// An inline reference's bytes: base64 after `base64:`, else the text.
fn inline(text: String) -> NcResult<Vec<u8>> {
    match text.strip_prefix("base64:") {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(encoded))
            .map_err(|_| NcError::ENCZARR),
        None => Ok(text.into_bytes()),
    }
}

/// An offset or length: a non-negative integer (fsspec writes them as
/// JSON numbers).
fn number(value: &Json) -> NcResult<u64> {
    value.as_u64().ok_or(NcError::ENCZARR)
}

/// A dataset key may not leave the dataset's root, whatever the layers
/// above do with it: no leading `/`, no empty, `.` or `..` segment, no
/// NUL.
pub(super) fn check_key(key: &str) -> NcResult<()> {
    let bad = key.is_empty() || key.contains('\0') || key.split('/').any(|s| s.is_empty() || s == "." || s == "..");
    if bad { Err(NcError::ENCZARR) } else { Ok(()) }
}

/// The keys one `gen` entry makes: one per combination of its
/// dimensions' values, its `key`, `url`, `offset` and `length` rendered
/// with them (and the templates).
fn generate(out: &mut Builder, spec: Json, templates: &dyn Fn(&str) -> Option<Value>) -> NcResult<()> {
    let Json::Object(spec) = spec else { return Err(NcError::ENCZARR) };
    let text = |field: &str| -> NcResult<Option<String>> {
        match spec.get(field) {
            None => Ok(None),
            Some(Json::String(s)) => Ok(Some(s.clone())),
            // A number where a template is expected: its text.
            Some(Json::Number(n)) => Ok(Some(n.to_string())),
            Some(_) => Err(NcError::ENCZARR),
        }
    };
    let key = text("key")?.ok_or(NcError::ENCZARR)?;
    let url = text("url")?.ok_or(NcError::ENCZARR)?;
    let (offset, length) = match (text("offset")?, text("length")?) {
        (Some(o), Some(l)) => (Some(o), Some(l)),
        (None, None) => (None, None),
        // fsspec: both or neither.
        _ => return Err(NcError::ENCZARR),
    };
    let Some(Json::Object(dims)) = spec.get("dimensions") else { return Err(NcError::ENCZARR) };
    let dims: Vec<(String, Vec<Value>)> =
        dims.iter().map(|(name, values)| Ok((name.clone(), dimension(values)?))).collect::<NcResult<_>>()?;
    let total = dims.iter().try_fold(1usize, |n, (_, v)| n.checked_mul(v.len())).ok_or(NcError::ENCZARR)?;
    if total > MAX_KEYS.saturating_sub(out.refs.len()) {
        return Err(NcError::ENCZARR);
    }
    if total == 0 {
        return Ok(());
    }
    let mut at = vec![0usize; dims.len()];
    loop {
        let lookup = |name: &str| {
            dims.iter()
                .zip(&at)
                .find(|((n, _), _)| n == name)
                .map(|((_, v), &i)| v[i].clone())
                .or_else(|| templates(name))
        };
        let key = template::render(&key, &lookup)?;
        let url = template::render(&url, &lookup)?;
        let reference = match (&offset, &length) {
            (Some(o), Some(l)) => {
                let integer = |t: &str| -> NcResult<u64> {
                    template::render(t, &lookup)?.trim().parse().map_err(|_| NcError::ENCZARR)
                };
                out.range(url, integer(o)?, Some(integer(l)?))?
            }
            _ => out.range(url, 0, None)?,
        };
        out.insert(key, reference)?;
        // The next combination, the last dimension fastest (itertools'
        // product order).
        let mut d = dims.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            at[d] += 1;
            if at[d] < dims[d].1.len() {
                break;
            }
            at[d] = 0;
        }
    }
}

/// A `gen` dimension's values: a list, or `{"start", "stop", "step"}` as
/// Python's `range` (start 0 and step 1 by default).
fn dimension(spec: &Json) -> NcResult<Vec<Value>> {
    match spec {
        Json::Array(values) => values
            .iter()
            .map(|v| match v {
                Json::Number(n) => n.as_i64().map(Value::Int).ok_or(NcError::ENCZARR),
                Json::String(s) => Ok(Value::Text(s.clone())),
                _ => Err(NcError::ENCZARR),
            })
            .collect(),
        Json::Object(range) => {
            let field = |name: &str, default: Option<i64>| match range.get(name) {
                None => default.ok_or(NcError::ENCZARR),
                Some(v) => v.as_i64().ok_or(NcError::ENCZARR),
            };
            let (start, stop, step) = (field("start", Some(0))?, field("stop", None)?, field("step", Some(1))?);
            if step == 0 {
                return Err(NcError::ENCZARR);
            }
            let count = if step > 0 {
                (stop.saturating_sub(start).max(0) as u64).div_ceil(step as u64)
            } else {
                (start.saturating_sub(stop).max(0) as u64).div_ceil(step.unsigned_abs())
            };
            if count > MAX_KEYS as u64 {
                return Err(NcError::ENCZARR);
            }
            (0..count as i64).map(|k| Ok(Value::Int(start + k * step))).collect()
        }
        _ => Err(NcError::ENCZARR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(target: usize, offset: u64, len: Option<u64>) -> Ref {
        Ref::Range { target, offset, len }
    }

    #[test]
    fn version_0() {
        let r = parse(
            br#"{".zgroup": "{\"zarr_format\": 2}", "a/0": ["s3://b/f.nc", 10, 20],
            "a/1": ["s3://b/f.nc"], "b/0": "base64:AAEC"}"#,
        )
        .unwrap();
        assert_eq!(r.refs[".zgroup"], Ref::Inline(br#"{"zarr_format": 2}"#.to_vec()));
        assert_eq!(r.refs["a/0"], range(0, 10, Some(20)));
        assert_eq!(r.refs["a/1"], range(0, 0, None));
        assert_eq!(r.refs["b/0"], Ref::Inline(vec![0, 1, 2]));
        assert_eq!(r.targets, vec!["s3://b/f.nc"]);
    }

    #[test]
    fn version_1_templates_gen_and_inline_objects() {
        let r = parse(
            br#"{"version": 1, "templates": {"u": "s3://b/f.nc", "v": "/data/g.nc"},
            "gen": [{"key": "x/{{i}}.{{j}}", "url": "{{u}}", "offset": "{{(i * 2 + j) * 100 + 8}}",
                     "length": "100", "dimensions": {"i": {"stop": 3}, "j": [0, 1]}},
                    {"key": "w/{{k}}", "url": "{{v}}", "dimensions": {"k": {"start": 4, "stop": 0, "step": -2}}}],
            "refs": {".zattrs": {"title": "t"}, "y/0": ["{{v}}", 5, 6], "z/0": ["https://h/p.nc", 0, 1]}}"#,
        )
        .unwrap();
        assert_eq!(r.targets, vec!["s3://b/f.nc", "/data/g.nc", "https://h/p.nc"]);
        assert_eq!(r.refs["x/0.0"], range(0, 8, Some(100)));
        assert_eq!(r.refs["x/0.1"], range(0, 108, Some(100)));
        assert_eq!(r.refs["x/2.1"], range(0, 508, Some(100)));
        assert_eq!(r.refs["w/4"], range(1, 0, None));
        assert_eq!(r.refs["w/2"], range(1, 0, None));
        assert!(!r.refs.contains_key("w/0"));
        assert_eq!(r.refs[".zattrs"], Ref::Inline(br#"{"title":"t"}"#.to_vec()));
        assert_eq!(r.refs["y/0"], range(1, 5, Some(6)));
        assert_eq!(r.refs.len(), 6 + 2 + 3);
    }

    #[test]
    fn bad_files_are_errors() {
        for bad in [
            &b"not json"[..],
            b"[1, 2]",
            br#"{"version": 2, "refs": {}}"#,
            br#"{"version": 1, "refs": []}"#,
            br#"{"version": 1, "templates": {"u": 1}, "refs": {}}"#,
            br#"{"a/0": 5}"#,
            br#"{"a/0": []}"#,
            br#"{"a/0": [null, 0, 1]}"#,
            br#"{"a/0": ["", 0, 1]}"#,
            br#"{"a/0": ["f.nc", 0]}"#,
            br#"{"a/0": ["f.nc", -1, 5]}"#,
            br#"{"a/0": ["f.nc", 0, 17179869185]}"#,
            br#"{"a/0": ["f.nc", 18446744073709551615, 2]}"#,
            br#"{"a/0": ["f.nc", 1.5, 2]}"#,
            br#"{"a/0": "base64:!!"}"#,
            br#"{"../x": "t"}"#,
            br#"{"a/../../x": "t"}"#,
            br#"{"/etc/passwd": "t"}"#,
            br#"{"a//b": "t"}"#,
            br#"{"": "t"}"#,
            br#"{"version": 1, "refs": {"a/0": ["{{nope}}", 0, 1]}}"#,
            br#"{"version": 1, "templates": {"u": "{{u}}"}, "refs": {"a/0": ["{{u}}x{{", 0, 1]}}"#,
            br#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "offset": "1", "dimensions": {"i": [1]}}]}"#,
            br#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": {"stop": 99999999999}}}]}"#,
            br#"{"version": 1, "gen": [{"key": "k{{i}}{{j}}", "url": "u",
                "dimensions": {"i": {"stop": 100000}, "j": {"stop": 100000}}}]}"#,
            br#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": {"stop": 5, "step": 0}}}]}"#,
            br#"{"version": 1, "gen": [{"key": "k", "url": "u", "offset": "{{i}}x", "length": "1",
                "dimensions": {"i": [1]}}]}"#,
        ] {
            assert_eq!(parse(bad), Err(NcError::ENCZARR), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn a_template_naming_itself_renders_once() {
        // The URL is then not one any driver opens: an error when read,
        // never a loop here.
        let r = parse(br#"{"version": 1, "templates": {"u": "{{u}}"}, "refs": {"a/0": ["{{u}}", 0, 1]}}"#).unwrap();
        assert_eq!(r.targets, vec!["{{u}}"]);
    }
}
