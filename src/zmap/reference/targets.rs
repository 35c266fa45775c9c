//! The files a reference file points into ("targets"), read through the
//! drivers we have: local files by `pread`, S3 objects and web files
//! through the S3 driver (one driver, so one connection pool, per
//! endpoint and bucket).
//!
//! A target is named by URL: `s3://bucket/key` (the endpoint as for S3
//! datasets: `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`, or the
//! fragment's `target.endpoint`), `https://host/...` (an S3 host, else a
//! plain web server), `file:///path` or `/path`; a relative name is
//! relative to the reference file (its directory, or its S3 or web
//! "directory"). Fragment settings apply to the targets as to the
//! reference file, and `target.<key>=<value>` overrides `<key>` for the
//! targets only (`target.aws.profile`, `target.aws.region`,
//! `target.s3.concurrency`), as fsspec's `remote_options` do.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use crate::error::{NcError, NcResult};
use crate::url::{S3Location, Storage};
use crate::zmap::{S3Map, Zmap};

/// Where relative target names are resolved: the reference file's
/// directory, local or remote (an S3 or web location whose root is that
/// directory's key).
pub enum Base {
    Dir(PathBuf),
    S3(S3Location),
    Http(S3Location),
}

impl Base {
    /// The base of the reference file at `storage` (its parent).
    pub fn of(storage: &Storage) -> NcResult<Base> {
        let parent_key = |loc: &S3Location| S3Location {
            root: loc.root.rsplit_once('/').map(|(dir, _)| dir.to_string()).unwrap_or_default(),
            ..loc.clone()
        };
        match storage {
            Storage::File(path) => Ok(Base::Dir(path.parent().unwrap_or(Path::new("/")).to_path_buf())),
            Storage::S3(loc) => Ok(Base::S3(parent_key(loc))),
            Storage::Http(loc) => Ok(Base::Http(parent_key(loc))),
            Storage::Zip(_) | Storage::Reference(_) => Err(NcError::EURL),
        }
    }
}

/// One target.
#[derive(Clone)]
enum Source {
    Local(Arc<Path>),
    /// An object of a remote store, by key.
    Remote {
        store: Arc<dyn Zmap>,
        key: String,
    },
}

/// The targets named so far, by id (an id is its index in `sources`).
#[derive(Default)]
struct Registry {
    sources: Vec<Source>,
    ids: HashMap<String, usize>,
    stores: Vec<Arc<dyn Zmap>>,
    /// By (web, endpoint, bucket): targets in one bucket share a driver.
    store_ids: HashMap<(bool, String, String), usize>,
}

/// Every target of a reference file: all of a JSON file's at open, a
/// Parquet reference's as its record files are read.
pub struct Targets {
    base: Base,
    /// The settings targets are opened with (`target_params`).
    params: Vec<(String, String)>,
    registry: RwLock<Registry>,
    /// Local files opened so far (reads of many chunks of one file open it
    /// once).
    files: Mutex<HashMap<usize, Arc<File>>>,
}

impl Targets {
    /// Targets resolved against `base` with the dataset's settings; none
    /// yet.
    pub fn new(base: Base, params: &[(String, String)]) -> Targets {
        Targets {
            base,
            params: target_params(params),
            registry: RwLock::new(Registry::default()),
            files: Mutex::new(HashMap::new()),
        }
    }

    /// Targets with `urls` resolved as ids `0..urls.len()` (distinct
    /// URLs, as parse.rs lists them). A name no driver serves is NC_EURL.
    pub fn resolve(urls: &[String], base: Base, params: &[(String, String)]) -> NcResult<Targets> {
        let targets = Targets::new(base, params);
        for url in urls {
            targets.intern(url)?;
        }
        Ok(targets)
    }

    /// The id of the target `url`, resolving it the first time (nothing
    /// is read or connected: that waits for a read). NC_EURL for a name no
    /// driver serves.
    pub fn intern(&self, url: &str) -> NcResult<usize> {
        if let Some(&id) = self.registry.read().map_err(|_| NcError::EINTERNAL)?.ids.get(url) {
            return Ok(id);
        }
        let endpoint = self.params.iter().find(|(k, _)| k == "endpoint").map(|(_, v)| v.as_str());
        let located = locate(url, &self.base, endpoint)?;
        let mut registry = self.registry.write().map_err(|_| NcError::EINTERNAL)?;
        if let Some(&id) = registry.ids.get(url) {
            return Ok(id);
        }
        let source = match located {
            Located::Local(path) => Source::Local(path.into()),
            Located::Remote { web, loc } => {
                let store_key = (web, loc.endpoint.clone(), loc.bucket.clone());
                let store = match registry.store_ids.get(&store_key) {
                    Some(&s) => registry.stores[s].clone(),
                    None => {
                        let top = S3Location { root: String::new(), ..loc.clone() };
                        let map: Arc<dyn Zmap> = Arc::new(if web {
                            S3Map::open_web(&top, &self.params)?
                        } else {
                            S3Map::open(&top, &self.params)?
                        });
                        registry.stores.push(map.clone());
                        let id = registry.stores.len() - 1;
                        registry.store_ids.insert(store_key, id);
                        map
                    }
                };
                Source::Remote { store, key: loc.root }
            }
        };
        let id = registry.sources.len();
        registry.sources.push(source);
        registry.ids.insert(url.to_string(), id);
        Ok(id)
    }

    /// Requests a reader of these targets may have in flight: the remote
    /// stores' setting; the local default when every target named so far
    /// is local; when none is named yet (Parquet references before their
    /// first record is read), what an S3 store with these settings would
    /// allow, since nothing says the targets are not remote (local reads
    /// lose little by it: their decoding waits for a core's turn).
    pub fn concurrency(&self) -> usize {
        let local = crate::zmap::cpus().min(8);
        let Ok(registry) = self.registry.read() else { return local };
        if registry.sources.is_empty() {
            return S3Map::configured_concurrency(&self.params);
        }
        registry.stores.iter().map(|s| s.concurrency()).max().unwrap_or(local)
    }

    fn source(&self, target: usize) -> NcResult<Source> {
        self.registry.read().map_err(|_| NcError::EINTERNAL)?.sources.get(target).cloned().ok_or(NcError::EINTERNAL)
    }

    /// Bytes `offset..offset + len` of a target. A missing target is
    /// NC_ENOOBJECT, a range past its end NC_ENCZARR: never fill, never
    /// other bytes.
    pub fn read(&self, target: usize, offset: u64, len: usize) -> NcResult<Vec<u8>> {
        Ok(self.read_ranges(target, &[(offset, len)])?.pop().unwrap_or_default())
    }

    /// Several ranges of one target (merged into few requests remotely).
    pub fn read_ranges(&self, target: usize, ranges: &[(u64, usize)]) -> NcResult<Vec<Vec<u8>>> {
        match self.source(target)? {
            Source::Local(path) => {
                let file = self.file(target, &path)?;
                ranges
                    .iter()
                    .map(|&(offset, len)| {
                        let mut buf = crate::buffers::zeroed(len)?;
                        read_exact_at(&file, &mut buf, offset)?;
                        Ok(buf)
                    })
                    .collect()
            }
            Source::Remote { store, key } => store.get_ranges(&key, ranges)?.ok_or(NcError::ENOOBJECT),
        }
    }

    /// Byte ranges of a target straight into the given buffers (offset,
    /// destination), as [`Zmap::read_into`] reads an object: no copy in
    /// between.
    pub fn read_into(&self, target: usize, segments: &mut [(u64, &mut [u8])]) -> NcResult<()> {
        match self.source(target)? {
            Source::Local(path) => {
                let file = self.file(target, &path)?;
                segments.iter_mut().try_for_each(|(offset, dst)| read_exact_at(&file, dst, *offset))
            }
            Source::Remote { store, key } => {
                if store.read_into(&key, segments)? {
                    Ok(())
                } else {
                    Err(NcError::ENOOBJECT)
                }
            }
        }
    }

    /// The whole of a target.
    pub fn read_all(&self, target: usize) -> NcResult<Vec<u8>> {
        match self.source(target)? {
            Source::Local(path) => crate::zmap::local::read_regular(&path, NcError::ENCZARR)?.ok_or(NcError::ENOOBJECT),
            Source::Remote { store, key } => store.get(&key)?.ok_or(NcError::ENOOBJECT),
        }
    }

    fn file(&self, target: usize, path: &Path) -> NcResult<Arc<File>> {
        let mut files = self.files.lock().map_err(|_| NcError::EINTERNAL)?;
        if let Some(f) = files.get(&target) {
            return Ok(f.clone());
        }
        let (file, _) = crate::zmap::local::open_regular(path, NcError::ENCZARR)?.ok_or(NcError::ENOOBJECT)?;
        let f = Arc::new(file);
        files.insert(target, f.clone());
        Ok(f)
    }
}

/// `pread` until `buf` is full; the end of the file first is NC_ENCZARR
/// (the reference names bytes the file does not have).
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> NcResult<()> {
    let mut done = 0;
    while done < buf.len() {
        // Past what a file offset can be (pread's off_t): past the end.
        let at = offset.checked_add(done as u64).filter(|&at| at <= i64::MAX as u64).ok_or(NcError::ENCZARR)?;
        match file.read_at(&mut buf[done..], at) {
            Ok(0) => return Err(NcError::ENCZARR),
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(NcError::from_io(&e)),
        }
    }
    Ok(())
}

/// The settings for the targets: the dataset's, with `target.<key>`
/// overriding `<key>`.
fn target_params(params: &[(String, String)]) -> Vec<(String, String)> {
    let overrides: Vec<(String, String)> =
        params.iter().filter_map(|(k, v)| k.strip_prefix("target.").map(|k| (k.to_string(), v.clone()))).collect();
    let mut out: Vec<(String, String)> = params
        .iter()
        .filter(|(k, _)| !k.starts_with("target.") && !overrides.iter().any(|(o, _)| o == k))
        .cloned()
        .collect();
    out.extend(overrides);
    out
}

enum Located {
    Local(PathBuf),
    Remote { web: bool, loc: S3Location },
}

/// Where a target URL is.
fn locate(url: &str, base: &Base, endpoint: Option<&str>) -> NcResult<Located> {
    if url.contains('#') || url.contains('\0') {
        return Err(NcError::EURL);
    }
    let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("file") => Ok(Located::Local(PathBuf::from(url.split_once("://").map(|(_, p)| p).unwrap_or(url)))),
        Some("s3" | "gs3" | "http" | "https") => remote(url, endpoint),
        Some(_) => Err(NcError::EURL),
        None if url.starts_with('/') => Ok(Located::Local(PathBuf::from(url))),
        // Relative to the reference file.
        None => match base {
            Base::Dir(dir) => Ok(Located::Local(dir.join(url))),
            Base::S3(loc) | Base::Http(loc) => {
                let root = if loc.root.is_empty() { url.to_string() } else { format!("{}/{url}", loc.root) };
                if root.split('/').any(|s| s == "..") {
                    return Err(NcError::EURL);
                }
                Ok(Located::Remote { web: matches!(base, Base::Http(_)), loc: S3Location { root, ..loc.clone() } })
            }
        },
    }
}

/// An S3 or web URL, parsed as a dataset URL of that storage would be.
fn remote(url: &str, endpoint: Option<&str>) -> NcResult<Located> {
    let env = |var: &str| match (var, endpoint) {
        ("AWS_ENDPOINT_URL_S3" | "AWS_ENDPOINT_URL", Some(e)) => Some(e.to_string()),
        _ => std::env::var(var).ok(),
    };
    // S3 URLs and S3 hosts say their storage; any other http(s) host is a
    // plain web server.
    let as_s3 = crate::url::parse_with_env(&format!("{url}#mode=zarr"), &env);
    match as_s3.map(|u| u.storage) {
        Ok(Storage::S3(loc)) => Ok(Located::Remote { web: false, loc }),
        _ => match crate::url::parse_with_env(&format!("{url}#mode=zarr,http"), &env)?.storage {
            Storage::Http(loc) => Ok(Located::Remote { web: true, loc }),
            _ => Err(NcError::EURL),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_their_drivers() {
        let base = Base::Dir(PathBuf::from("/refs"));
        let local = |u: &str| match locate(u, &base, None).unwrap() {
            Located::Local(p) => p,
            Located::Remote { .. } => panic!("{u} is not local"),
        };
        assert_eq!(local("file:///data/a.nc"), PathBuf::from("/data/a.nc"));
        assert_eq!(local("/data/a.nc"), PathBuf::from("/data/a.nc"));
        assert_eq!(local("a.nc"), PathBuf::from("/refs/a.nc"));
        match locate("s3://bkt/dir/a.nc", &base, Some("http://127.0.0.1:9000")).unwrap() {
            Located::Remote { web: false, loc } => {
                assert_eq!(
                    (loc.endpoint.as_str(), loc.bucket.as_str(), loc.root.as_str()),
                    ("http://127.0.0.1:9000", "bkt", "dir/a.nc")
                );
            }
            _ => panic!("s3 URL"),
        }
        match locate("https://example.org/data/a.nc", &base, None).unwrap() {
            Located::Remote { web: true, loc } => {
                assert_eq!((loc.bucket.as_str(), loc.root.as_str()), ("data", "a.nc"))
            }
            _ => panic!("web URL"),
        }
        let s3_base = Base::S3(S3Location {
            endpoint: "http://127.0.0.1:9000".into(),
            virtual_host: false,
            bucket: "bkt".into(),
            root: "refs".into(),
            region: None,
        });
        match locate("a.nc", &s3_base, None).unwrap() {
            Located::Remote { web: false, loc } => assert_eq!(loc.root, "refs/a.nc"),
            _ => panic!("relative to an S3 reference file"),
        }
        for bad in ["memory://x", "gcs://b/k", "a.nc#frag", "../a.nc"] {
            let r = locate(bad, &s3_base, None);
            assert!(matches!(r, Err(NcError::EURL)), "{bad}");
        }
    }

    #[test]
    fn target_settings_override() {
        let p = |k: &str, v: &str| (k.to_string(), v.to_string());
        let got = target_params(&[p("aws.profile", "a"), p("target.aws.profile", "b"), p("s3.retries", "2")]);
        assert_eq!(got, vec![p("s3.retries", "2"), p("aws.profile", "b")]);
    }

    #[test]
    fn local_reads_check_their_ranges() {
        let dir = std::env::temp_dir().join(format!("nczarr-rs-targets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("t.bin"), b"0123456789").unwrap();
        let t = Targets::resolve(&["t.bin".into(), "missing.bin".into()], Base::Dir(dir.clone()), &[]).unwrap();
        assert_eq!(t.read(0, 2, 3).unwrap(), b"234");
        assert_eq!(t.read_ranges(0, &[(0, 1), (9, 1)]).unwrap(), vec![b"0".to_vec(), b"9".to_vec()]);
        assert_eq!(t.read_all(0).unwrap(), b"0123456789");
        assert_eq!(t.read(0, 8, 3), Err(NcError::ENCZARR));
        assert_eq!(t.read(0, u64::MAX, 3), Err(NcError::ENCZARR));
        assert_eq!(t.read(1, 0, 1), Err(NcError::ENOOBJECT));
        assert_eq!(t.read_all(1), Err(NcError::ENOOBJECT));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
