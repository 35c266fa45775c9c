//! Dataset names: `file://` URLs (and plain paths) with a `#mode=...`
//! fragment, parsed and normalised the way netcdf-c's `NC_infermodel` does.
//!
//! * The fragment is `key[=value]` pairs joined by `&`; keys are
//!   case-insensitive; repeated keys are merged (values joined by `,`,
//!   duplicates and empties dropped).
//! * Value-less keys are macros: `zarr` = `mode=nczarr,zarr`, `xarray` =
//!   `mode=zarr`, `noxarray` = `mode=nczarr,noxarray`, `s3` =
//!   `mode=s3,nczarr`, `gs3` = `mode=gs3,nczarr`.
//! * Mode inference: `zarr` implies `nczarr`, `xarray` implies `zarr`,
//!   `noxarray` implies `nczarr` and `zarr`; `noxarray` removes `xarray`.
//! * The storage is `file` unless the mode names `zip` or `s3`.
//!
//! Unlike netcdf-c we also accept a plain path with a fragment
//! (`/data/x.zarr#mode=nczarr,file`).

use std::path::{Path, PathBuf};

use crate::error::{NcError, NcResult};

/// Where a dataset's keys live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Storage {
    /// A directory tree on the local file system.
    File(PathBuf),
    /// Objects under a key prefix of an S3 bucket.
    S3(S3Location),
}

/// Where an S3 dataset lives, from any URL form netcdf-c accepts (FACTS
/// §2.4) or `http(s)://host[:port]/bucket/key` for other servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Location {
    /// `scheme://host[:port]` of the service, no trailing `/`:
    /// `https://s3.us-west-2.amazonaws.com`, `http://127.0.0.1:9000`.
    pub endpoint: String,
    /// Address objects as `bucket.<endpoint host>/key` (virtual host)
    /// instead of `<endpoint>/bucket/key` (path style).
    pub virtual_host: bool,
    pub bucket: String,
    /// The dataset's root key inside the bucket: no leading or trailing
    /// `/`, "" for the bucket's top.
    pub root: String,
    /// The region the URL's host names (`s3.<region>.amazonaws.com`), if any.
    pub region: Option<String>,
}

/// A parsed dataset name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetUrl {
    pub storage: Storage,
    /// The normalised `mode=` tokens (lower case, inferred ones included).
    pub mode: Vec<String>,
    /// Every other fragment key (lower-cased) with its value.
    pub params: Vec<(String, String)>,
    /// True when the name carried no URL and no fragment: a bare path.
    pub bare_path: bool,
}

impl DatasetUrl {
    pub fn has_mode(&self, token: &str) -> bool {
        self.mode.iter().any(|m| m == token)
    }

    /// Pure Zarr (no NCZarr extensions written): `mode=zarr` or `xarray`.
    pub fn pure_zarr(&self) -> bool {
        self.has_mode("zarr")
    }

    /// Write `_ARRAY_DIMENSIONS` (on unless `noxarray`).
    pub fn xarray_dims(&self) -> bool {
        !self.has_mode("noxarray")
    }

    /// The name netcdf-c's `nc_inq_path` reports for a URL: `file://`,
    /// the absolute path, then the rebuilt fragment (`mode=` first, other
    /// keys after, `&`-joined). `None` for a bare path.
    pub fn display_name(&self) -> Option<String> {
        if self.bare_path {
            return None;
        }
        let mut fragment = vec![format!("mode={}", self.mode.join(","))];
        for (k, v) in &self.params {
            fragment.push(if v.is_empty() { k.clone() } else { format!("{k}={v}") });
        }
        // `%`, `#` and `?` in the path are %-encoded, so the name parses
        // back to the same path.
        let mut path = String::new();
        for c in self.file_root().display().to_string().chars() {
            match c {
                '%' => path.push_str("%25"),
                '#' => path.push_str("%23"),
                '?' => path.push_str("%3F"),
                c => path.push(c),
            }
        }
        Some(format!("file://{path}#{}", fragment.join("&")))
    }

    /// `nczarr_layout=4.9.0`: write the layout of netcdf-c 4.9.0 (Debian
    /// 12's version) instead of the current one, for readers that old.
    pub fn layout_490(&self) -> bool {
        self.params.iter().any(|(k, v)| k == "nczarr_layout" && v == "4.9.0")
    }

    /// The directory of a file-storage dataset.
    ///
    /// # Panics
    /// When the dataset is not on file storage (callers check first).
    pub fn file_root(&self) -> &Path {
        match &self.storage {
            Storage::File(p) => p,
            Storage::S3(_) => panic!("not a file-storage dataset"),
        }
    }
}

/// Mode tokens we understand. Anything else in `mode=` is NC_EINVAL, so a
/// typo in a storage name is reported instead of silently ignored.
const FORMAT_TOKENS: &[&str] = &["nczarr", "zarr", "xarray", "noxarray", "v2", "consolidated", "noconsolidated"];
const STORAGE_TOKENS: &[&str] = &["file", "zip", "s3", "gs3"];
/// Formats netcdf-c can select that this library does not build.
const UNBUILT_FORMATS: &[&str] =
    &["dap2", "dap4", "bytes", "netcdf-3", "classic", "netcdf-4", "enhanced", "udf0", "udf1", "v3"];

/// Parse a dataset name as given to `nc_create`/`nc_open`.
pub fn parse(name: &str) -> NcResult<DatasetUrl> {
    if name.is_empty() {
        return Err(NcError::EINVAL);
    }
    let (before_fragment, fragment) = match name.find('#') {
        Some(i) => (&name[..i], Some(&name[i + 1..])),
        None => (name, None),
    };
    let (path, is_url) = split_protocol(before_fragment)?;
    let pairs = match fragment {
        Some(f) => parse_fragment(f),
        None => Vec::new(),
    };
    let (mode, params) = normalise(pairs);

    if is_url || fragment.is_some() {
        let wants_zarr = mode.iter().any(|m| m == "nczarr" || m == "zarr");
        if !wants_zarr {
            // netcdf-c sends a URL with no zarr mode to DAP2, which we do not have.
            return Err(NcError::ENOTBUILT);
        }
    }
    if let Some(bad) =
        mode.iter().find(|m| !FORMAT_TOKENS.contains(&m.as_str()) && !STORAGE_TOKENS.contains(&m.as_str()))
    {
        return Err(if UNBUILT_FORMATS.contains(&bad.as_str()) { NcError::ENOTBUILT } else { NcError::EINVAL });
    }
    let storages: Vec<&String> = mode.iter().filter(|m| STORAGE_TOKENS.contains(&m.as_str())).collect();
    if storages.len() > 1 {
        return Err(NcError::EINVAL);
    }
    let storage = match storages.first().map(|s| s.as_str()) {
        None | Some("file") => Storage::File(absolute(&path)?),
        // zip and S3 drivers come with their own issues.
        Some(_) => return Err(NcError::ENOTBUILT),
    };
    Ok(DatasetUrl { storage, mode, params, bare_path: !is_url && fragment.is_none() })
}

/// Split `proto:rest` into a local path. Returns the path and whether the
/// name was a URL.
fn split_protocol(s: &str) -> NcResult<(String, bool)> {
    let Some(colon) = s.find(':') else {
        return Ok((s.to_string(), false));
    };
    let proto = &s[..colon];
    let looks_like_scheme = proto.len() > 1
        && proto.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && proto.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !looks_like_scheme {
        // "C:..." style drive letters or plain names with a colon.
        return Ok((s.to_string(), false));
    }
    let rest = &s[colon + 1..];
    match proto.to_ascii_lowercase().as_str() {
        "file" => {
            let rest = rest.split('?').next().unwrap_or("");
            let path = if let Some(after) = rest.strip_prefix("//") {
                // file:///abs -> /abs ; file://rel -> rel (netcdf-c's relative form)
                after.to_string()
            } else {
                rest.to_string()
            };
            let path = percent_decode(&path)?;
            if path.is_empty() {
                return Err(NcError::EURL);
            }
            Ok((path, true))
        }
        "http" | "https" | "s3" | "gs3" | "dods" | "dap4" => Err(NcError::ENOTBUILT),
        _ => Err(NcError::EINVAL),
    }
}

fn percent_decode(s: &str) -> NcResult<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or(NcError::EURL)?;
            let hex = std::str::from_utf8(hex).map_err(|_| NcError::EURL)?;
            // A NUL cannot be part of a file name.
            let byte = u8::from_str_radix(hex, 16).map_err(|_| NcError::EURL)?;
            if byte == 0 {
                return Err(NcError::EURL);
            }
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| NcError::EURL)
}

fn absolute(path: &str) -> NcResult<PathBuf> {
    let p = PathBuf::from(path);
    if p.is_absolute() {
        Ok(p)
    } else {
        let cwd = std::env::current_dir().map_err(|e| NcError::from_io(&e))?;
        Ok(cwd.join(p))
    }
}

/// Split a fragment into (key, value) pairs, keys lower-cased.
fn parse_fragment(fragment: &str) -> Vec<(String, String)> {
    fragment
        .split('&')
        // An empty piece, or a lone `=`, names nothing.
        .filter(|p| !p.is_empty() && *p != "=")
        .map(|p| match p.find('=') {
            Some(i) => (p[..i].to_ascii_lowercase(), p[i + 1..].to_string()),
            None => (p.to_ascii_lowercase(), String::new()),
        })
        .collect()
}

/// Expand macros, merge duplicate keys and infer modes. Returns the mode
/// tokens and the other parameters.
fn normalise(pairs: Vec<(String, String)>) -> (Vec<String>, Vec<(String, String)>) {
    let mut mode: Vec<String> = Vec::new();
    let mut params: Vec<(String, String)> = Vec::new();
    let add_modes = |mode: &mut Vec<String>, list: &str| {
        for token in list.split(',') {
            let t = token.trim().to_ascii_lowercase();
            if !t.is_empty() && !mode.contains(&t) {
                mode.push(t);
            }
        }
    };
    for (key, value) in pairs {
        let expansion = if value.is_empty() {
            match key.as_str() {
                "zarr" => Some("nczarr,zarr"),
                "xarray" => Some("zarr"),
                "noxarray" => Some("nczarr,noxarray"),
                "s3" => Some("s3,nczarr"),
                "gs3" => Some("gs3,nczarr"),
                "dap2" => Some("dap2"),
                "dap4" => Some("dap4"),
                "bytes" => Some("bytes"),
                _ => None,
            }
        } else {
            None
        };
        if let Some(list) = expansion {
            add_modes(&mut mode, list);
        } else if key == "mode" {
            add_modes(&mut mode, &value);
        } else if let Some(existing) = params.iter_mut().find(|(k, _)| *k == key) {
            merge_value(&mut existing.1, &value);
        } else {
            params.push((key, value));
        }
    }
    // Inference, repeated until nothing changes.
    loop {
        let before = mode.len();
        let implied: &[(&str, &[&str])] =
            &[("zarr", &["nczarr"]), ("xarray", &["zarr"]), ("noxarray", &["nczarr", "zarr"])];
        for (token, implies) in implied {
            if mode.iter().any(|m| m == token) {
                for t in *implies {
                    if !mode.iter().any(|m| m == t) {
                        mode.push(t.to_string());
                    }
                }
            }
        }
        if mode.len() == before {
            break;
        }
    }
    if mode.iter().any(|m| m == "noxarray") {
        mode.retain(|m| m != "xarray");
    }
    if mode.iter().any(|m| m == "bytes") {
        mode.retain(|m| m != "nczarr" && m != "zarr");
    }
    (mode, params)
}

fn merge_value(existing: &mut String, more: &str) {
    for v in more.split(',') {
        if v.is_empty() || existing.split(',').any(|e| e.eq_ignore_ascii_case(v)) {
            continue;
        }
        if !existing.is_empty() {
            existing.push(',');
        }
        existing.push_str(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_file_url() {
        let u = parse("file:///tmp/x.zarr#mode=nczarr,file").unwrap();
        assert_eq!(u.storage, Storage::File(PathBuf::from("/tmp/x.zarr")));
        assert_eq!(u.mode, vec!["nczarr", "file"]);
        assert!(!u.pure_zarr());
        assert!(u.xarray_dims());
    }

    #[test]
    fn relative_file_url_is_relative_to_cwd() {
        let u = parse("file://rel.zarr#mode=nczarr,file").unwrap();
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(u.storage, Storage::File(cwd.join("rel.zarr")));
    }

    #[test]
    fn plain_path_with_fragment() {
        let u = parse("/data/x.zarr#mode=nczarr,file").unwrap();
        assert_eq!(u.file_root(), Path::new("/data/x.zarr"));
        assert!(!u.bare_path);
    }

    #[test]
    fn bare_path() {
        let u = parse("/data/x.zarr").unwrap();
        assert!(u.bare_path);
        assert!(u.mode.is_empty());
    }

    #[test]
    fn storage_defaults_to_file() {
        let u = parse("file:///a#mode=nczarr").unwrap();
        assert_eq!(u.storage, Storage::File(PathBuf::from("/a")));
    }

    #[test]
    fn macros_and_inference() {
        let u = parse("file:///a#zarr").unwrap();
        assert!(u.has_mode("nczarr") && u.has_mode("zarr"));
        let u = parse("file:///a#mode=xarray,file").unwrap();
        assert!(u.has_mode("zarr") && u.has_mode("nczarr") && u.has_mode("xarray"));
        let u = parse("file:///a#mode=noxarray,xarray,file").unwrap();
        assert!(u.has_mode("zarr") && !u.has_mode("xarray") && !u.xarray_dims());
        let u = parse("file:///a#noxarray").unwrap();
        assert!(u.pure_zarr() && !u.xarray_dims());
    }

    #[test]
    fn duplicate_keys_merge() {
        let u = parse("file:///a#mode=nczarr&mode=file&MODE=nczarr").unwrap();
        assert_eq!(u.mode, vec!["nczarr", "file"]);
        let u = parse("file:///a#mode=nczarr&log&aws.region=x&aws.region=y").unwrap();
        assert!(u.params.contains(&("log".into(), "".into())));
        assert!(u.params.contains(&("aws.region".into(), "x,y".into())));
    }

    #[test]
    fn errors() {
        assert_eq!(parse("file:///a"), Err(NcError::ENOTBUILT));
        assert_eq!(parse("file:///a#mode=file"), Err(NcError::ENOTBUILT));
        assert_eq!(parse("file:///a#mode=nczarr,bogus"), Err(NcError::EINVAL));
        assert_eq!(parse("file:///a#mode=nczarr,file,zip"), Err(NcError::EINVAL));
        assert_eq!(parse("ftp://h/a#mode=nczarr"), Err(NcError::EINVAL));
        assert_eq!(parse("file://#mode=nczarr"), Err(NcError::EURL));
        assert_eq!(parse("file:///a%zz#mode=nczarr"), Err(NcError::EURL));
        assert_eq!(parse(""), Err(NcError::EINVAL));
        assert_eq!(parse("file:///a#mode=nczarr,zip"), Err(NcError::ENOTBUILT));
    }

    #[test]
    fn display_name_is_absolute_and_normalised() {
        let u = parse("/d/x.zarr#mode=nczarr,file").unwrap();
        assert_eq!(u.display_name().unwrap(), "file:///d/x.zarr#mode=nczarr,file");
        let u = parse("file:///d/x.zarr#zarr&log").unwrap();
        assert_eq!(u.display_name().unwrap(), "file:///d/x.zarr#mode=nczarr,zarr&log");
        assert_eq!(parse("/d/x.zarr").unwrap().display_name(), None);
    }

    #[test]
    fn display_name_parses_back_to_the_same_dataset() {
        // Found by fuzzing (fuzz/regressions/url): a lone `=` became a
        // parameter that the display name dropped, and `%`, `#` or `?` in
        // the path made the display name name another path.
        for name in ["/d/x#mode=zarr&=&a=b", "/d/a%b?c#mode=nczarr", "file:///d/%23%3F%25#mode=nczarr&k=%"] {
            let u = parse(name).unwrap();
            let again = parse(&u.display_name().unwrap()).unwrap();
            assert_eq!((&again.mode, &again.params, again.file_root()), (&u.mode, &u.params, u.file_root()), "{name}");
        }
        assert_eq!(parse("/d/a%b#mode=nczarr").unwrap().display_name().unwrap(), "file:///d/a%25b#mode=nczarr");
    }

    #[test]
    fn legacy_layout_key() {
        assert!(parse("/d#mode=nczarr,file&nczarr_layout=4.9.0").unwrap().layout_490());
        assert!(!parse("/d#mode=nczarr,file").unwrap().layout_490());
    }

    #[test]
    fn percent_decoding() {
        let u = parse("file:///a%20b#mode=nczarr").unwrap();
        assert_eq!(u.file_root(), Path::new("/a b"));
    }
}
