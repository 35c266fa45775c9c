//! The S3 storage driver: a dataset's keys are objects under its root key
//! in a bucket. rusty-s3 signs (presigned URLs, SigV4 in the query
//! string) and parses replies; ureq sends them, blocking, with no thread
//! of its own. Concurrency comes from `workers::map`, so no thread
//! outlives a call.
//!
//! * `config.rs`: timeouts, retries, concurrency, multipart settings;
//! * `credentials.rs`, `profiles.rs`, `remote.rs`: who signs, and where;
//! * `http.rs`: one request with its retries; `errors.rs`: replies to
//!   netCDF codes; `xml.rs`: the bits of XML rusty-s3 does not parse;
//! * `lock.rs`: the commit lock (an object created only if absent);
//! * `reads.rs`, `writes.rs`, `listing.rs`: the operations.

mod config;
mod credentials;
mod errors;
mod http;
mod listing;
mod lock;
mod profiles;
mod reads;
mod remote;
mod writes;
mod xml;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rusty_s3::{Bucket, Credentials, Method, UrlStyle};
use url::Url;

use self::config::{Lookup, Settings};
use self::credentials::Source;
use self::http::{Http, Reply, Request};
use super::{Zmap, validate_key};
use crate::error::{NcError, NcResult};
use crate::url::S3Location;

/// How long each signed URL stays valid: one attempt's lifetime, with room.
const SIGN_FOR: Duration = Duration::from_secs(3600);

/// A dataset in an S3 bucket.
pub struct S3Map {
    bucket: Bucket,
    /// The dataset's root key: no leading or trailing `/`, "" for the top.
    root: String,
    source: Source,
    http: Http,
    concurrency: AtomicUsize,
    /// A plain web server (`mode=...,http`): unsigned GETs only, no
    /// listing, no writes.
    web: bool,
}

impl std::fmt::Debug for S3Map {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Map").field("bucket", &self.bucket.name()).field("root", &self.root).finish_non_exhaustive()
    }
}

impl S3Map {
    /// A store over `loc`; makes no request.
    pub fn open(loc: &S3Location, params: &[(String, String)]) -> NcResult<S3Map> {
        let env = |name: &str| std::env::var(name).ok();
        Self::open_with_env(loc, params, &env)
    }

    /// [`S3Map::open`] with the environment read through `env` instead of
    /// the process's (tests give each case its own).
    #[doc(hidden)]
    pub fn open_with_env(loc: &S3Location, params: &[(String, String)], env: Lookup) -> NcResult<S3Map> {
        // No endpoint: AWS, at the region resolved below.
        let named =
            if loc.endpoint.is_empty() { None } else { Some(Url::parse(&loc.endpoint).map_err(|_| NcError::EURL)?) };
        let host = match named.as_ref().map(|e| (e.host_str(), e.port())) {
            Some((Some(h), Some(p))) => Some(format!("{h}:{p}")),
            Some((h, None)) => h.map(str::to_string),
            Some((None, Some(_))) | None => None,
        };
        // `.ncrc` entries for this endpoint's host, or for any host.
        let rc = |key: &str| crate::rc::lookup(key, host.as_deref(), None).ok().flatten();
        let settings = Settings::resolve(params, &rc)?;
        let inputs = credentials::Inputs { url_region: loc.region.as_deref(), params, rc: &rc, env };
        let resolved = credentials::resolve(&inputs)?;
        let endpoint = match named {
            Some(endpoint) => endpoint,
            None => Url::parse(&format!("https://s3.{}.amazonaws.com", resolved.region)).map_err(|_| NcError::EURL)?,
        };
        let style = if loc.virtual_host { UrlStyle::VirtualHost } else { UrlStyle::Path };
        let bucket = Bucket::new(endpoint, style, loc.bucket.clone(), resolved.region).map_err(|_| NcError::EURL)?;
        let root = loc.root.trim_matches('/').to_string();
        if !root.is_empty() {
            validate_key(&root).map_err(|_| NcError::EURL)?;
        }
        Ok(S3Map {
            bucket,
            root,
            source: resolved.source,
            concurrency: AtomicUsize::new(settings.concurrency),
            http: Http::new(&settings),
            web: false,
        })
    }

    /// The requests in flight a store opened with `params` (and the
    /// `.ncrc` entries for any host) would allow: what a reader of S3
    /// objects not yet named should plan for.
    pub fn configured_concurrency(params: &[(String, String)]) -> usize {
        let rc = |key: &str| crate::rc::lookup(key, None, None).ok().flatten();
        Settings::resolve(params, &rc).map(|s| s.concurrency).unwrap_or(Settings::default().concurrency)
    }

    /// A read-only store served by a plain web server: the objects of
    /// `loc` (bucket = the URL path's first segment) fetched with unsigned
    /// GETs at `endpoint/bucket/root/key`, the URL of the store plus the
    /// key. Such a server cannot list, so only stores whose metadata
    /// names their members open (consolidated, or NCZarr). Makes no
    /// request.
    pub fn open_web(loc: &S3Location, params: &[(String, String)]) -> NcResult<S3Map> {
        // No credentials are looked for: nothing is signed.
        let unsigned: Vec<(String, String)> = params
            .iter()
            .filter(|(k, _)| k != "aws.profile")
            .cloned()
            .chain([("aws.profile".to_string(), "no".to_string())])
            .collect();
        let mut map = Self::open_with_env(loc, &unsigned, &|_| None)?;
        map.web = true;
        Ok(map)
    }

    /// Writes and listings are refused on a web store.
    fn writable(&self) -> NcResult<()> {
        if self.web { Err(NcError::EPERM) } else { Ok(()) }
    }

    /// A web server has no listing: only metadata that names every member
    /// opens a store there.
    fn listable(&self) -> NcResult<()> {
        if self.web { Err(NcError::ENOTNC) } else { Ok(()) }
    }

    /// A new dataset at `loc`: with `clobber` every object under the root
    /// is deleted first; without it an existing dataset (any object under
    /// root/) is NC_EEXIST (one LIST, max-keys 1).
    pub fn create(loc: &S3Location, params: &[(String, String)], clobber: bool) -> NcResult<S3Map> {
        Self::open(loc, params)?.prepare_new(clobber)
    }

    #[doc(hidden)]
    pub fn create_with_env(
        loc: &S3Location,
        params: &[(String, String)],
        clobber: bool,
        env: Lookup,
    ) -> NcResult<S3Map> {
        Self::open_with_env(loc, params, env)?.prepare_new(clobber)
    }

    fn prepare_new(self, clobber: bool) -> NcResult<S3Map> {
        if clobber {
            self.delete_prefix("")?;
        } else if !self.root_is_empty()? {
            return Err(NcError::EEXIST);
        }
        Ok(self)
    }

    /// Is there any object under the root (one LIST with max-keys 1)?
    /// Used only on error paths.
    pub fn root_is_empty(&self) -> NcResult<bool> {
        Ok(self.list_objects(&self.dir(""), false, Some(1))?.keys.is_empty())
    }

    /// Serve up to `n` (at least 1) requests at once from now on.
    pub fn set_concurrency(&self, n: usize) {
        self.concurrency.store(n.max(1), Ordering::Relaxed);
    }

    fn concurrency_now(&self) -> usize {
        self.concurrency.load(Ordering::Relaxed)
    }

    /// The object key of a dataset key.
    fn object_key(&self, key: &str) -> NcResult<String> {
        validate_key(key)?;
        if key.is_empty() {
            return Err(NcError::EINVAL);
        }
        Ok(super::join(&self.root, key))
    }

    /// The listing prefix of the "directory" `prefix`: `root/prefix/`,
    /// or "" for the top of a bucket-wide dataset.
    fn dir(&self, prefix: &str) -> String {
        let full = super::join(&self.root, prefix);
        if full.is_empty() { full } else { format!("{full}/") }
    }

    /// A dataset key of a full object key below the root.
    fn relative<'k>(&self, full: &'k str) -> Option<&'k str> {
        if self.root.is_empty() { Some(full) } else { full.strip_prefix(self.root.as_str())?.strip_prefix('/') }
    }

    fn credentials(&self) -> NcResult<Option<Credentials>> {
        self.source.current(self.http.settings().connect_timeout)
    }

    /// Send one request signed by `sign` (called again for each attempt).
    fn send(
        &self,
        method: Method,
        what: &str,
        headers: Vec<(&'static str, String)>,
        body: &[u8],
        sign: &dyn Fn(Option<&Credentials>) -> Url,
    ) -> NcResult<Reply> {
        let request = Request { method, what, headers, body };
        self.http.send(&request, &|| Ok(sign(self.credentials()?.as_ref())))
    }
}

impl Zmap for S3Map {
    fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
        self.get_object(key)
    }

    fn get_range(&self, key: &str, offset: u64, len: usize) -> NcResult<Option<Vec<u8>>> {
        Ok(self.get_ranges(key, &[(offset, len)])?.and_then(|mut parts| parts.pop()))
    }

    fn get_ranges(&self, key: &str, ranges: &[(u64, usize)]) -> NcResult<Option<Vec<Vec<u8>>>> {
        let Some(fetched) = self.fetch_ranges(key, ranges, None)? else { return Ok(None) };
        Ok(Some(fetched.parts(ranges)?.into_iter().map(<[u8]>::to_vec).collect()))
    }

    fn get_suffix(&self, key: &str, len: usize) -> NcResult<Option<Vec<u8>>> {
        if len == 0 {
            return Ok(self.probe(key, &self.object_key(key)?)?.map(|_| Vec::new()));
        }
        self.fetch_suffix(key, len as u64)
    }

    fn read_into(&self, key: &str, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let ranges: Vec<(u64, usize)> = segments.iter().map(|(o, b)| (*o, b.len())).collect();
        let Some(fetched) = self.fetch_ranges(key, &ranges, None)? else { return Ok(false) };
        scatter(&fetched.parts(&ranges)?, segments);
        Ok(true)
    }

    fn read_into_exact(&self, key: &str, size: u64, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let ranges: Vec<(u64, usize)> = segments.iter().map(|(o, b)| (*o, b.len())).collect();
        // Everything is fetched and checked before any buffer is touched.
        let Some(fetched) = self.fetch_ranges(key, &ranges, Some(size))? else { return Ok(false) };
        if fetched.total != size || ranges.iter().any(|&(o, l)| o.checked_add(l as u64).is_none_or(|end| end > size)) {
            return Err(NcError::ENCZARR);
        }
        scatter(&fetched.parts(&ranges)?, segments);
        Ok(true)
    }

    fn put(&self, key: &str, data: &[u8]) -> NcResult<()> {
        self.writable()?;
        self.put_object(key, data)
    }

    fn delete(&self, key: &str) -> NcResult<()> {
        self.writable()?;
        let obj = self.object_key(key)?;
        let reply = self.send(Method::Delete, key, Vec::new(), &[], &|c| {
            use rusty_s3::S3Action;
            self.bucket.delete_object(c, &obj).sign(SIGN_FOR)
        })?;
        match reply.status {
            200 | 204 => Ok(()),
            _ if errors::is_missing_object(&reply) => Ok(()),
            _ => Err(errors::reply_error(&reply, key)),
        }
    }

    fn lock_commits(&self) -> NcResult<bool> {
        self.writable()?;
        self.take_commit_lock()
    }

    fn unlock_commits(&self) {
        self.release_commit_lock();
    }

    fn list(&self, prefix: &str) -> NcResult<Vec<String>> {
        self.listable()?;
        validate_key(prefix)?;
        let dir = self.dir(prefix);
        Ok(listing::child_names(&dir, &self.list_objects(&dir, true, None)?))
    }

    fn list_recursive(&self, prefix: &str) -> NcResult<Vec<String>> {
        self.listable()?;
        validate_key(prefix)?;
        let listing = self.list_objects(&self.dir(prefix), false, None)?;
        let mut keys: Vec<String> = listing.keys.iter().filter_map(|k| self.relative(k)).map(str::to_string).collect();
        keys.sort();
        Ok(keys)
    }

    fn delete_prefix(&self, prefix: &str) -> NcResult<()> {
        self.writable()?;
        validate_key(prefix)?;
        let keys = if prefix.is_empty() {
            self.list_objects(&self.dir(""), false, None)?.keys
        } else {
            // The object named `prefix` itself and everything below it.
            let full = super::join(&self.root, prefix);
            let below = format!("{full}/");
            let mut keys = self.list_objects(&full, false, None)?.keys;
            keys.retain(|k| *k == full || k.starts_with(&below));
            keys
        };
        self.delete_objects(&keys)
    }

    fn destroy(&self) -> NcResult<()> {
        self.delete_prefix("")
    }

    fn exists(&self, key: &str) -> NcResult<bool> {
        let obj = self.object_key(key)?;
        Ok(self.probe(key, &obj)?.is_some())
    }

    fn concurrency(&self) -> usize {
        self.concurrency_now()
    }

    fn get_many(&self, keys: &[String]) -> NcResult<Vec<Option<Vec<u8>>>> {
        crate::workers::map(keys, self.concurrency_now(), |key| self.get_object(key))
    }
}

/// Each fetched part into its segment (same order, same lengths).
fn scatter(parts: &[&[u8]], segments: &mut [(u64, &mut [u8])]) {
    for ((_, dst), src) in segments.iter_mut().zip(parts) {
        dst.copy_from_slice(src);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_endpoint_means_aws_at_the_resolved_region() {
        let loc = S3Location {
            endpoint: String::new(),
            virtual_host: false,
            bucket: "bkt".into(),
            root: "a/b".into(),
            region: None,
        };
        let params =
            [("aws.region".to_string(), "eu-west-3".to_string()), ("aws.profile".to_string(), "no".to_string())];
        let map = S3Map::open_with_env(&loc, &params, &|_| None).unwrap();
        assert_eq!(map.bucket.base_url().as_str(), "https://s3.eu-west-3.amazonaws.com/bkt/");
        let map = S3Map::open_with_env(&loc, &params[1..], &|_| None).unwrap();
        assert_eq!(map.bucket.base_url().as_str(), "https://s3.us-east-1.amazonaws.com/bkt/");
    }
}
