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
//! * The storage is `file` unless the mode names `zip` or `s3`, or the URL
//!   is an S3 one (`s3://`, `gs3://`, an `amazonaws.com` or
//!   `storage.googleapis.com` host); an S3 URL that names no format is
//!   NCZarr.
//!
//! S3 URLs take every form netcdf-c's `NC_s3urlrebuild` accepts (FACTS.md
//! §2.4) and become path-style addresses, as there: `s3://bucket/key`
//! (sent to `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` when set, else to
//! AWS), `https://bucket.s3.region.amazonaws.com/key`,
//! `https://s3.region.amazonaws.com/bucket/key`, the same without a
//! region, `https://bucket.s3.region.domain/key` and
//! `https://host[:port]/bucket/key#mode=...,s3` for other servers.
//!
//! Unlike netcdf-c we also accept a plain path with a fragment
//! (`/data/x.zarr#mode=nczarr,file`) and `http://` for S3 servers.

use std::path::{Path, PathBuf};

use crate::error::{NcError, NcResult};

/// Where a dataset's keys live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Storage {
    /// A directory tree on the local file system.
    File(PathBuf),
    /// A zip archive on the local file system (`mode=...,zip`).
    Zip(PathBuf),
    /// Objects under a key prefix of an S3 bucket.
    S3(S3Location),
    /// Files below a URL of a plain web server, read only (`mode=...,http`).
    /// The URL's first path segment is held as the "bucket": the store's
    /// objects are at `endpoint/bucket/root/key`, the URL plus the key.
    Http(S3Location),
    /// A kerchunk reference file (`mode=...,reference`), read only: its
    /// keys name inline bytes or byte ranges of other files. Where the
    /// reference file itself is: `File` (its path) or `S3` (its key as
    /// the root).
    Reference(Box<Storage>),
}

/// Where an S3 dataset lives, from any URL form netcdf-c accepts (FACTS
/// §2.4) or `http(s)://host[:port]/bucket/key` for other servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Location {
    /// `scheme://host[:port]` of the service, no trailing `/`:
    /// `https://s3.us-west-2.amazonaws.com`, `http://127.0.0.1:9000`.
    /// Empty for AWS when the URL names no region: the driver then uses
    /// `https://s3.<region>.amazonaws.com` of the region it resolves.
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

    /// Create Zarr v3 (`mode=...,v3`, netcdf-c's token); v2 is the
    /// default. (Opening finds the version from the store itself.)
    pub fn zarr_v3(&self) -> bool {
        self.has_mode("v3")
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
        let fragment = fragment.join("&");
        Some(format!("{}#{fragment}", self.storage.location()))
    }

    /// `nczarr_layout=4.9.0`: write the layout of netcdf-c 4.9.0 (Debian
    /// 12's version) instead of the current one, for readers that old.
    pub fn layout_490(&self) -> bool {
        self.params.iter().any(|(k, v)| k == "nczarr_layout" && v == "4.9.0")
    }

    /// `zip_layout=root`: a new zip archive holds the keys at its root,
    /// as zarr-python's `ZipStore` writes, instead of under a top
    /// directory named after the file, as netcdf-c writes
    /// (`zip_layout=dir`, the default).
    pub fn zip_at_root(&self) -> bool {
        self.params.iter().any(|(k, v)| k == "zip_layout" && v == "root")
    }

    /// The directory (or zip archive) of a local dataset.
    ///
    /// # Panics
    /// When the dataset is not on local storage (callers check first).
    pub fn file_root(&self) -> &Path {
        match &self.storage {
            Storage::File(p) | Storage::Zip(p) => p,
            Storage::S3(_) | Storage::Http(_) | Storage::Reference(_) => panic!("not a file-storage dataset"),
        }
    }
}

impl Storage {
    /// Where the dataset is, as a URL without fragment: `file://` and the
    /// absolute path, or netcdf-c's canonical S3 form (path style on the
    /// endpoint).
    pub fn location(&self) -> String {
        match self {
            Storage::File(root) | Storage::Zip(root) => format!("file://{}", escape_path(&root.display().to_string())),
            Storage::Http(loc) => {
                let key = if loc.root.is_empty() { String::new() } else { format!("/{}", loc.root) };
                format!("{}/{}{}", loc.endpoint, escape_path(&loc.bucket), escape_path(&key))
            }
            Storage::S3(loc) => {
                let endpoint = match (&loc.endpoint[..], &loc.region) {
                    ("", Some(region)) => format!("https://s3.{region}.amazonaws.com"),
                    ("", None) => "https://s3.amazonaws.com".to_string(),
                    (endpoint, _) => endpoint.to_string(),
                };
                let key = if loc.root.is_empty() { String::new() } else { format!("/{}", loc.root) };
                format!("{endpoint}/{}{}", escape_path(&loc.bucket), escape_path(&key))
            }
            Storage::Reference(file) => file.location(),
        }
    }
}

/// `%`, `#` and `?` %-encoded, so a display name parses back to the same
/// path.
fn escape_path(path: &str) -> String {
    let mut out = String::new();
    for c in path.chars() {
        match c {
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    out
}

/// Mode tokens we understand. Anything else in `mode=` is NC_EINVAL, so a
/// typo in a storage name is reported instead of silently ignored.
const FORMAT_TOKENS: &[&str] = &["nczarr", "zarr", "xarray", "noxarray", "v2", "v3", "consolidated", "noconsolidated"];
const STORAGE_TOKENS: &[&str] = &["file", "zip", "s3", "gs3", "http", "reference"];
/// Formats netcdf-c can select that this library does not build.
const UNBUILT_FORMATS: &[&str] =
    &["dap2", "dap4", "bytes", "netcdf-3", "classic", "netcdf-4", "enhanced", "udf0", "udf1"];

/// Parse a dataset name as given to `nc_create`/`nc_open`.
pub fn parse(name: &str) -> NcResult<DatasetUrl> {
    parse_with_env(name, &|var| std::env::var(var).ok())
}

/// [`parse`], with the environment (`AWS_ENDPOINT_URL_S3`,
/// `AWS_ENDPOINT_URL`) read through `env`.
pub fn parse_with_env(name: &str, env: &dyn Fn(&str) -> Option<String>) -> NcResult<DatasetUrl> {
    if name.is_empty() {
        return Err(NcError::EINVAL);
    }
    let (before_fragment, fragment) = match name.find('#') {
        Some(i) => (&name[..i], Some(&name[i + 1..])),
        None => (name, None),
    };
    let target = split_protocol(before_fragment)?;
    let is_url = !matches!(target, Target::Plain(_));
    let pairs = match fragment {
        Some(f) => parse_fragment(f),
        None => Vec::new(),
    };
    let (mut mode, params) = normalise(pairs);

    // An S3 URL says its storage itself, and is NCZarr unless it says
    // otherwise.
    if let Target::Remote { scheme, host, .. } = &target {
        let s3_url = matches!(scheme.as_str(), "s3" | "gs3") || is_s3_host(host);
        let named_storage = mode.iter().any(|m| STORAGE_TOKENS.contains(&m.as_str()));
        if s3_url && !named_storage {
            mode.push(if scheme == "gs3" { "gs3" } else { "s3" }.to_string());
        }
        let s3_storage = s3_url || mode.iter().any(|m| m == "s3" || m == "gs3" || m == "http");
        if s3_storage && !mode.iter().any(|m| m == "nczarr" || m == "zarr" || UNBUILT_FORMATS.contains(&m.as_str())) {
            mode.insert(0, "nczarr".to_string());
        }
    }
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
    if mode.iter().any(|m| m == "v2") && mode.iter().any(|m| m == "v3") {
        return Err(NcError::EINVAL);
    }
    let storages: Vec<&String> = mode.iter().filter(|m| STORAGE_TOKENS.contains(&m.as_str())).collect();
    if storages.len() > 1 {
        return Err(NcError::EINVAL);
    }
    let storage = match (storages.first().map(|s| s.as_str()), target) {
        (None | Some("file"), Target::Plain(path) | Target::File(path)) => Storage::File(absolute(&path)?),
        (Some("zip"), Target::Plain(path) | Target::File(path)) => Storage::Zip(absolute(&path)?),
        (Some("s3" | "gs3"), Target::Remote { scheme, host, path }) => {
            Storage::S3(s3_location(&scheme, &host, &path, env)?)
        }
        (Some("http"), Target::Remote { scheme, host, path }) if scheme.starts_with("http") => {
            Storage::Http(web_location(&scheme, &host, &path)?)
        }
        // A reference file: on disk, or on S3 in any S3 URL form. An
        // http(s) URL is read as S3 path style (signed when credentials
        // are found, as a private bucket of a local server needs; a plain
        // web server ignores the signature).
        (Some("reference"), Target::Plain(path) | Target::File(path)) => {
            Storage::Reference(Box::new(Storage::File(absolute(&path)?)))
        }
        (Some("reference"), Target::Remote { scheme, host, path }) => {
            if !matches!(scheme.as_str(), "s3" | "gs3" | "http" | "https") {
                return Err(NcError::EURL);
            }
            Storage::Reference(Box::new(Storage::S3(s3_location(&scheme, &host, &path, env)?)))
        }
        // A local path cannot be S3 and a remote URL cannot be a file.
        (Some("s3" | "gs3" | "http"), _) | (Some("file" | "zip"), Target::Remote { .. }) => {
            return Err(if is_url { NcError::EURL } else { NcError::EINVAL });
        }
        // Plain web servers (netcdf-c: DAP or byte ranges) are not built.
        (None, Target::Remote { .. }) => return Err(NcError::ENOTBUILT),
        (Some(_), _) => return Err(NcError::EINVAL),
    };
    if params.iter().any(|(k, v)| k == "zip_layout" && v != "root" && v != "dir") {
        return Err(NcError::EINVAL);
    }
    Ok(DatasetUrl { storage, mode, params, bare_path: !is_url && fragment.is_none() })
}

/// A netCDF file (classic or HDF5, not a Zarr store) named by an S3 or
/// web URL, which the delegate reads and writes through memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteFile {
    /// `Storage::S3` or `Storage::Http`; its `root` is the object's key
    /// (for `Http`, below the URL's first segment).
    pub storage: Storage,
    /// Every other fragment key (lower-cased) with its value.
    pub params: Vec<(String, String)>,
}

/// Endings of netCDF file names: an S3 URL that names no format and ends
/// so is a file, not a store.
const NETCDF_FILE_SUFFIXES: &[&str] = &[".nc", ".nc3", ".nc4", ".cdf", ".h5", ".hdf5", ".he5"];

/// Does `name` designate a netCDF file on S3 or a web server? Yes for
/// netcdf-c's byte-range spelling (`https://host/x.nc#mode=bytes`, with
/// `,s3` for S3 servers, and any S3 URL form with `mode=bytes`), and for
/// an S3 URL naming no format whose key ends like a netCDF file
/// (`s3://bucket/x.nc`). A Zarr mode always means a store.
pub fn remote_file(name: &str) -> NcResult<Option<RemoteFile>> {
    remote_file_with_env(name, &|var| std::env::var(var).ok())
}

/// [`remote_file`], with the environment read through `env`.
pub fn remote_file_with_env(name: &str, env: &dyn Fn(&str) -> Option<String>) -> NcResult<Option<RemoteFile>> {
    let (before_fragment, fragment) = match name.find('#') {
        Some(i) => (&name[..i], Some(&name[i + 1..])),
        None => (name, None),
    };
    let Ok(Target::Remote { scheme, host, path }) = split_protocol(before_fragment) else { return Ok(None) };
    let (mode, params) = normalise(fragment.map(parse_fragment).unwrap_or_default());
    let has = |token: &str| mode.iter().any(|m| m == token);
    let s3_url = matches!(scheme.as_str(), "s3" | "gs3") || is_s3_host(&host);
    let names_format =
        mode.iter().any(|m| FORMAT_TOKENS.contains(&m.as_str()) || UNBUILT_FORMATS.contains(&m.as_str()));
    let file_name = path.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    let by_suffix = s3_url && !names_format && NETCDF_FILE_SUFFIXES.iter().any(|s| file_name.ends_with(s));
    if !(has("bytes") || by_suffix) || has("nczarr") || has("zarr") {
        return Ok(None);
    }
    let storage = if s3_url || has("s3") || has("gs3") {
        Storage::S3(s3_location(&scheme, &host, &path, env)?)
    } else if scheme.starts_with("http") {
        Storage::Http(web_location(&scheme, &host, &path)?)
    } else {
        return Err(NcError::EURL);
    };
    let key = match &storage {
        Storage::S3(loc) | Storage::Http(loc) => &loc.root,
        _ => unreachable!("remote storage"),
    };
    if key.is_empty() || key.ends_with('/') {
        return Err(NcError::EURL);
    }
    Ok(Some(RemoteFile { storage, params }))
}

/// What a name before its fragment designates.
enum Target {
    /// A path, not a URL.
    Plain(String),
    /// A `file:` URL's path.
    File(String),
    /// `scheme://host[:port]/path` (scheme and host lower-cased, path
    /// %-decoded, query dropped).
    Remote { scheme: String, host: String, path: String },
}

/// Split `proto:rest` into what it designates.
fn split_protocol(s: &str) -> NcResult<Target> {
    let Some(colon) = s.find(':') else {
        return Ok(Target::Plain(s.to_string()));
    };
    let proto = &s[..colon];
    let looks_like_scheme = proto.len() > 1
        && proto.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && proto.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !looks_like_scheme {
        // "C:..." style drive letters or plain names with a colon.
        return Ok(Target::Plain(s.to_string()));
    }
    let rest = &s[colon + 1..];
    let scheme = proto.to_ascii_lowercase();
    match scheme.as_str() {
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
            Ok(Target::File(path))
        }
        "http" | "https" | "s3" | "gs3" => {
            let rest = rest.strip_prefix("//").ok_or(NcError::EURL)?;
            let rest = rest.split('?').next().unwrap_or("");
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            // Credentials belong in profiles, never in names that end up
            // in logs and nc_inq_path.
            if authority.is_empty() || authority.contains('@') {
                return Err(NcError::EURL);
            }
            let host = authority.to_ascii_lowercase();
            // No empty label (`a..b`, `.a`, `a.`): such a host names no
            // server, and S3 forms would read its labels differently once
            // rebuilt.
            let empty_label = !host.starts_with('[') && host_name(&host).split('.').any(str::is_empty);
            if !valid_host(&host) || empty_label || !valid_port(&host) {
                return Err(NcError::EURL);
            }
            Ok(Target::Remote { scheme, host, path: percent_decode(path)? })
        }
        "dods" | "dap4" => Err(NcError::ENOTBUILT),
        _ => Err(NcError::EINVAL),
    }
}

/// A host is a name of letters, digits, `.`, `-`, `_` (and a `:port`),
/// or an IPv6 address in brackets (and a `:port`). Brackets anywhere else
/// (`[.s3.::1].amazonaws.com`) name no server, and S3 forms would split
/// such a host into a bucket `[` and an endpoint that does not parse.
fn valid_host(host: &str) -> bool {
    match host.strip_prefix('[') {
        Some(rest) => rest.split_once(']').is_some_and(|(address, after)| {
            address.parse::<std::net::Ipv6Addr>().is_ok() && (after.is_empty() || after.starts_with(':'))
        }),
        None => host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':')),
    }
}

/// A `:` in a host only before its port, which is digits (after the `]`
/// of an IPv6 address): `a:3.b`, `a:` or `a:b` name no server, and S3
/// forms would read their labels differently once rebuilt.
fn valid_port(host: &str) -> bool {
    let after_address = match host.strip_prefix('[') {
        Some(rest) => match rest.find(']') {
            Some(i) => &rest[i + 1..],
            None => return false,
        },
        None => host,
    };
    match after_address.find(':') {
        None => true,
        Some(i) => {
            let port = &after_address[i + 1..];
            !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit())
        }
    }
}

/// Hosts that are S3 whatever the mode says (netcdf-c's rule).
fn is_s3_host(host: &str) -> bool {
    let name = host_name(host);
    name.ends_with(".amazonaws.com") || name == "storage.googleapis.com"
}

/// `host` without its `:port`.
fn host_name(host: &str) -> &str {
    match host.rfind(':') {
        Some(i) if !host[i..].contains(']') => &host[..i],
        _ => host,
    }
}

/// Where an S3 URL's dataset lives. Every form becomes a path-style
/// address (bucket as the first path segment), as netcdf-c rebuilds them.
fn s3_location(scheme: &str, host: &str, path: &str, env: &dyn Fn(&str) -> Option<String>) -> NcResult<S3Location> {
    let labels: Vec<&str> = host_name(host).split('.').collect();
    let origin = |h: &str| format!("{scheme}://{h}");
    let (endpoint, bucket, region, key) = match scheme {
        "s3" | "gs3" => {
            if host.contains(':') {
                return Err(NcError::EURL);
            }
            let endpoint = if scheme == "gs3" {
                "https://storage.googleapis.com".to_string()
            } else {
                match env("AWS_ENDPOINT_URL_S3").or_else(|| env("AWS_ENDPOINT_URL")).filter(|e| !e.is_empty()) {
                    Some(e) => endpoint_from_env(&e)?,
                    None => String::new(),
                }
            };
            (endpoint, host.to_string(), None, path)
        }
        _ => match labels.as_slice() {
            // s3.amazonaws.com/bucket/key: the region comes from the profile.
            ["s3", "amazonaws", "com"] => (String::new(), first_segment(path)?, None, rest_after_first(path)),
            ["s3", region, "amazonaws", "com"] => {
                (origin(host), first_segment(path)?, Some(region.to_string()), rest_after_first(path))
            }
            [bucket @ .., "s3", "amazonaws", "com"] if !bucket.is_empty() => {
                (String::new(), bucket.join("."), None, path)
            }
            [bucket @ .., "s3", region, "amazonaws", "com"] if !bucket.is_empty() => {
                let endpoint = origin(&format!("s3.{region}.amazonaws.com"));
                (endpoint, bucket.join("."), Some(region.to_string()), path)
            }
            [.., "amazonaws", "com"] => return Err(NcError::EURL),
            // bucket.s3.region.domain/key (another provider's virtual host).
            // A first label `s3` is the path-style form below instead
            // (`s3.s3.region.domain/bucket`, a region named s3), which is
            // how such a location is displayed.
            [bucket, "s3", region, domain @ ..] if domain.len() >= 2 && !is_ip(host) && *bucket != "s3" => {
                let port = &host[host_name(host).len()..];
                let endpoint = origin(&format!("s3.{region}.{}{port}", domain.join(".")));
                (endpoint, bucket.to_string(), Some(region.to_string()), path)
            }
            ["s3", region, domain @ ..] if domain.len() >= 2 && !is_ip(host) => {
                (origin(host), first_segment(path)?, Some(region.to_string()), rest_after_first(path))
            }
            _ => (origin(host), first_segment(path)?, None, rest_after_first(path)),
        },
    };
    if bucket.is_empty() || bucket.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(NcError::EURL);
    }
    Ok(S3Location { endpoint, virtual_host: false, bucket, root: root_key(key)?, region })
}

/// Where a web-served store lives: the URL taken as it is (its first
/// path segment held as the "bucket", see [`Storage::Http`]).
fn web_location(scheme: &str, host: &str, path: &str) -> NcResult<S3Location> {
    let bucket = first_segment(path)?;
    if bucket.chars().any(|c| c.is_control() || c.is_whitespace()) || bucket == "." || bucket == ".." {
        return Err(NcError::EURL);
    }
    let root = root_key(rest_after_first(path))?;
    Ok(S3Location { endpoint: format!("{scheme}://{host}"), virtual_host: false, bucket, root, region: None })
}

fn is_ip(host: &str) -> bool {
    host_name(host).parse::<std::net::IpAddr>().is_ok() || host.starts_with('[')
}

/// The first segment of a URL path: a path-style URL's bucket.
fn first_segment(path: &str) -> NcResult<String> {
    let bucket = path.trim_start_matches('/').split('/').next().unwrap_or("");
    if bucket.is_empty() { Err(NcError::EURL) } else { Ok(bucket.to_string()) }
}

fn rest_after_first(path: &str) -> &str {
    let path = path.trim_start_matches('/');
    path.find('/').map_or("", |i| &path[i..])
}

/// A dataset's root key from a URL path: segments joined by `/` (empty
/// ones dropped); `.` and `..` segments are refused, so nothing reaches
/// outside the key the URL names.
fn root_key(path: &str) -> NcResult<String> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if segments.iter().any(|s| *s == "." || *s == ".." || s.chars().any(char::is_control)) {
        return Err(NcError::EURL);
    }
    Ok(segments.join("/"))
}

/// `AWS_ENDPOINT_URL(_S3)`: `http(s)://host[:port]`, kept without a
/// trailing `/`. Anything else is NC_EURL.
fn endpoint_from_env(value: &str) -> NcResult<String> {
    let trimmed = value.trim().trim_end_matches('/');
    let lower = trimmed.to_ascii_lowercase();
    let rest = lower.strip_prefix("http://").or_else(|| lower.strip_prefix("https://")).ok_or(NcError::EURL)?;
    if rest.is_empty() || rest.contains('/') || rest.contains('@') {
        return Err(NcError::EURL);
    }
    Ok(lower)
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
    #[test]
    fn remote_netcdf_files() {
        let env = |_: &str| None;
        let file = |name: &str| super::remote_file_with_env(name, &env);
        let root = |name: &str| match file(name).unwrap().unwrap().storage {
            super::Storage::S3(l) => format!("s3 {} {} {}", l.endpoint, l.bucket, l.root),
            super::Storage::Http(l) => format!("http {} {} {}", l.endpoint, l.bucket, l.root),
            other => panic!("{other:?}"),
        };
        assert_eq!(root("https://h.example:9000/bk/dir/x.nc#mode=bytes,s3"), "s3 https://h.example:9000 bk dir/x.nc");
        assert_eq!(root("https://h.example/files/x.nc#mode=bytes"), "http https://h.example files x.nc");
        assert_eq!(root("s3://bk/a/b.nc4").split(' ').nth(3), Some("a/b.nc4"));
        assert_eq!(root("s3://bk/a/B.NC#log").split(' ').nth(3), Some("a/B.NC"));
        // Stores, and names that are not remote files.
        for name in [
            "s3://bk/a/b.nc#mode=nczarr,s3",
            "s3://bk/a/store",
            "s3://bk/a/b.zarr",
            "https://h.example/x.nc",
            "https://h.example/bk/x.nc#mode=zarr,s3",
            "file:///x.nc#mode=bytes",
            "/tmp/x.nc",
        ] {
            assert_eq!(file(name), Ok(None), "{name}");
        }
        assert_eq!(file("s3://bk/#mode=bytes"), Err(super::NcError::EURL));
    }

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
        assert_eq!(parse("https://h/b/d.zip#mode=nczarr,zip"), Err(NcError::EURL));
        // A region named s3: displayed path style, which must read back the same.
        let u = parse("https://bkt.s3.s3.eu-1.example.org:90/k#mode=s3").unwrap();
        let again = parse(&u.display_name().unwrap()).unwrap();
        assert_eq!(again.storage, u.storage);
        for host in ["bkt.s3.s3..s3..example.org:8443", ".h", "h.", "a..b"] {
            assert_eq!(parse(&format!("https://{host}/x#mode=s3")), Err(NcError::EURL), "{host}");
        }
        assert_eq!(parse("file:///d.zip#mode=zarr,zip&zip_layout=flat"), Err(NcError::EINVAL));
        assert_eq!(parse("file:///a#mode=nczarr,v2,v3"), Err(NcError::EINVAL));
    }

    #[test]
    fn zarr_versions() {
        assert!(parse("file:///a#mode=zarr,v3").unwrap().zarr_v3());
        assert!(parse("/a#mode=nczarr,file,v3").unwrap().zarr_v3());
        assert!(!parse("/a#mode=nczarr,v2").unwrap().zarr_v3());
        assert!(!parse("/a#mode=nczarr").unwrap().zarr_v3());
    }

    #[test]
    fn zip_archives() {
        let u = parse("file:///tmp/d.zip#mode=nczarr,zip").unwrap();
        assert_eq!(u.storage, Storage::Zip(PathBuf::from("/tmp/d.zip")));
        assert!(!u.zip_at_root());
        assert_eq!(u.display_name().unwrap(), "file:///tmp/d.zip#mode=nczarr,zip");
        let u = parse("/tmp/d.zip#mode=zarr,zip&zip_layout=root").unwrap();
        assert_eq!(u.storage, Storage::Zip(PathBuf::from("/tmp/d.zip")));
        assert!(u.zip_at_root() && u.pure_zarr());
        assert!(!parse("/tmp/d.zip#mode=xarray,zip&zip_layout=dir").unwrap().zip_at_root());
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
    fn a_colon_in_a_host_is_only_before_its_port() {
        // Found by fuzzing (fuzz/regressions/url): a colon inside the
        // labels became part of the region, which the display name lost.
        for bad in
            ["https://bkt.s3.us-w_st:3.amazonaws.com:/!/b.zarr", "http://h:/b/k", "http://h:x/b/k", "http://h:1:2/b/k"]
        {
            assert_eq!(parse(&format!("{bad}#mode=nczarr,s3")), Err(NcError::EURL), "{bad}");
        }
        for good in ["http://127.0.0.1:9000/b/k", "http://[::1]:9000/b/k", "http://[::1]/b/k", "http://h/b/k"] {
            assert!(parse(&format!("{good}#mode=nczarr,s3")).is_ok(), "{good}");
        }
    }

    #[test]
    fn brackets_in_a_host_only_around_an_ipv6_address() {
        // Found by fuzzing (fuzz/regressions/url): `[` and `]` were allowed
        // anywhere in a host, so `[.s3.…amazonaws.com` became bucket `[`
        // with a display name that did not parse.
        for bad in [
            "http://[.s3.::1d:].amazonaws.com",
            "http://a[b]/b/k",
            "http://[::1/b/k",
            "http://[not-v6]/b/k",
            "http://[::1]x/b/k",
            "http://[::1]:/b/k",
        ] {
            assert_eq!(parse(&format!("{bad}#mode=nczarr,s3")), Err(NcError::EURL), "{bad}");
        }
        let u = parse("http://[::1]:9000/b/k#mode=nczarr,s3").unwrap();
        let again = parse(&u.display_name().unwrap()).unwrap();
        assert_eq!(again.storage, u.storage);
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

    fn s3(name: &str, env: &[(&str, &str)]) -> NcResult<(S3Location, Vec<String>)> {
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let u = parse_with_env(name, &|var| env.iter().find(|(k, _)| k == var).map(|(_, v)| v.clone()))?;
        match u.storage {
            Storage::S3(loc) => Ok((loc, u.mode)),
            other => panic!("{name}: {other:?}"),
        }
    }

    fn loc(endpoint: &str, bucket: &str, root: &str, region: Option<&str>) -> S3Location {
        S3Location {
            endpoint: endpoint.into(),
            virtual_host: false,
            bucket: bucket.into(),
            root: root.into(),
            region: region.map(str::to_string),
        }
    }

    #[test]
    fn every_s3_url_form() {
        let aws = "https://s3.us-west-2.amazonaws.com";
        let cases = [
            ("s3://bkt/a/b.zarr", loc("", "bkt", "a/b.zarr", None)),
            ("https://bkt.s3.us-west-2.amazonaws.com/a/b.zarr", loc(aws, "bkt", "a/b.zarr", Some("us-west-2"))),
            ("https://bkt.s3.amazonaws.com/a/b.zarr", loc("", "bkt", "a/b.zarr", None)),
            ("https://s3.us-west-2.amazonaws.com/bkt/a/b.zarr", loc(aws, "bkt", "a/b.zarr", Some("us-west-2"))),
            ("https://s3.amazonaws.com/bkt/a/b.zarr", loc("", "bkt", "a/b.zarr", None)),
            ("https://my.dotted.bkt.s3.amazonaws.com/x", loc("", "my.dotted.bkt", "x", None)),
            ("https://storage.googleapis.com/bkt/x", loc("https://storage.googleapis.com", "bkt", "x", None)),
            ("gs3://bkt/x", loc("https://storage.googleapis.com", "bkt", "x", None)),
            ("http://127.0.0.1:9000/bkt/a//b/#mode=nczarr,s3", loc("http://127.0.0.1:9000", "bkt", "a/b", None)),
            ("https://minio.example.org/bkt/x#mode=zarr,s3", loc("https://minio.example.org", "bkt", "x", None)),
            (
                "https://bkt.s3.eu-1.example.org:8443/x#mode=s3",
                loc("https://s3.eu-1.example.org:8443", "bkt", "x", Some("eu-1")),
            ),
            ("https://s3.eu-1.example.org/bkt/x#s3", loc("https://s3.eu-1.example.org", "bkt", "x", Some("eu-1"))),
            ("http://127.0.0.1:9000/bkt#mode=nczarr,s3", loc("http://127.0.0.1:9000", "bkt", "", None)),
            ("http://127.0.0.1:9000/bkt/sp%20ace#mode=nczarr,s3", loc("http://127.0.0.1:9000", "bkt", "sp ace", None)),
        ];
        for (name, want) in cases {
            assert_eq!(s3(name, &[]).map(|l| l.0), Ok(want), "{name}");
        }
    }

    #[test]
    fn s3_urls_imply_storage_and_format() {
        assert_eq!(s3("s3://b/k", &[]).unwrap().1, vec!["nczarr", "s3"]);
        assert_eq!(s3("s3://b/k#mode=zarr", &[]).unwrap().1, vec!["zarr", "nczarr", "s3"]);
        assert_eq!(s3("https://s3.amazonaws.com/b/k#mode=zarr,s3", &[]).unwrap().1, vec!["zarr", "s3", "nczarr"]);
    }

    #[test]
    fn endpoint_from_the_environment() {
        let env = [("AWS_ENDPOINT_URL", "http://127.0.0.1:5000/")];
        assert_eq!(s3("s3://b/k", &env).unwrap().0, loc("http://127.0.0.1:5000", "b", "k", None));
        let env = [("AWS_ENDPOINT_URL", "http://a:1"), ("AWS_ENDPOINT_URL_S3", "https://b:2")];
        assert_eq!(s3("s3://b/k", &env).unwrap().0.endpoint, "https://b:2");
        // Only s3:// names go to the environment's endpoint.
        assert_eq!(s3("https://s3.amazonaws.com/b/k", &env).unwrap().0.endpoint, "");
        assert_eq!(s3("s3://b/k", &[("AWS_ENDPOINT_URL", "ftp://x")]).unwrap_err(), NcError::EURL);
    }

    #[test]
    fn bad_s3_urls() {
        for name in [
            "s3:///k",
            "s3://b:80/k",
            "https://s3.amazonaws.com/#mode=s3",
            "http://user:secret@host/b/k#mode=nczarr,s3",
            "http://host/b/../k#mode=nczarr,s3",
            "http://host/b/./k#mode=nczarr,s3",
            "https://ec2.amazonaws.com/b/k",
            "http://127.0.0.1/b/k#mode=nczarr,file",
            "s3:bucket/k",
        ] {
            assert_eq!(parse(name).map(|u| u.storage), Err(NcError::EURL), "{name}");
        }
        assert_eq!(parse("/local#mode=nczarr,s3").map(|u| u.storage), Err(NcError::EINVAL));
        // A web server that is not S3 (netcdf-c: DAP).
        assert_eq!(parse("https://example.org/d#mode=nczarr").map(|u| u.storage), Err(NcError::ENOTBUILT));
        assert_eq!(parse("https://example.org/d").map(|u| u.storage), Err(NcError::ENOTBUILT));
    }

    #[test]
    fn web_stores() {
        let u = parse("https://data.example.org/zarr/era5/t.zarr#mode=zarr,http").unwrap();
        let want = loc("https://data.example.org", "zarr", "era5/t.zarr", None);
        assert_eq!(u.storage, Storage::Http(want));
        assert_eq!(u.display_name().unwrap(), "https://data.example.org/zarr/era5/t.zarr#mode=zarr,http,nczarr");
        assert_eq!(parse(&u.display_name().unwrap()).unwrap().storage, u.storage);
        // An AWS host read as a plain web server: the URL as it is.
        let u = parse("https://bkt.s3.amazonaws.com/d.zarr#mode=nczarr,http").unwrap();
        assert_eq!(u.storage, Storage::Http(loc("https://bkt.s3.amazonaws.com", "d.zarr", "", None)));
        assert_eq!(parse("http://127.0.0.1:8000/d#mode=http").map(|u| u.has_mode("nczarr")), Ok(true));
        for bad in [
            "http://h/#mode=zarr,http",
            "s3://b/k#mode=zarr,http",
            "file:///x#mode=zarr,http",
            "http://h/a/../b#mode=zarr,http",
        ] {
            assert_eq!(parse(bad).map(|u| u.storage), Err(NcError::EURL), "{bad}");
        }
    }

    #[test]
    fn s3_display_name_is_path_style_and_parses_back() {
        for (name, display) in [
            ("s3://b/k/d.zarr", "https://s3.amazonaws.com/b/k/d.zarr#mode=nczarr,s3"),
            ("https://b.s3.eu-west-1.amazonaws.com/d#log", "https://s3.eu-west-1.amazonaws.com/b/d#mode=nczarr,s3&log"),
            ("http://127.0.0.1:9/b/a%23b#mode=zarr,s3", "http://127.0.0.1:9/b/a%23b#mode=zarr,s3,nczarr"),
        ] {
            let u = parse_with_env(name, &|_| None).unwrap();
            assert_eq!(u.display_name().unwrap(), display, "{name}");
            let again = parse_with_env(&u.display_name().unwrap(), &|_| None).unwrap();
            assert_eq!((again.storage, again.mode, again.params), (u.storage, u.mode, u.params), "{name}");
        }
    }
}
