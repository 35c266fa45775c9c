//! A kerchunk reference file as a read-only store (`mode=zarr,reference`):
//! each key of the dataset is bytes held in the reference file or a byte
//! range of another file (an `.nc` on S3, say), so archives of netCDF-4
//! and netCDF-3 files read as Zarr without copying.
//!
//! A JSON reference file is read and checked whole at open (parse.rs),
//! its targets resolved without being touched (targets.rs). Parquet
//! references (parquet.rs) open with their `.zmetadata` only; a chunk's
//! record file is read when the chunk is, and its targets resolved then.
//! A key's bytes are fetched when read, a byte range of a range when a
//! chunk is read in part, and several ranges of one target in as few
//! requests as the S3 driver's merging gives. Writes are NC_EPERM.

mod page_headers;
mod parquet;
mod parse;
mod targets;
mod template;

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::error::{NcError, NcResult};
use crate::url::{S3Location, Storage};
use crate::zmap::{S3Map, Zmap};
pub use parquet::{
    MAX_RECORD_SIZE as MAX_PARQUET_RECORD_SIZE, Row as ParquetRow, decode_record as decode_parquet_record,
};
use parquet::{ParquetRefs, RecordStore};
use parse::Ref;
pub use parse::parse as parse_references;
pub use parse::{MAX_RANGE as MAX_REFERENCE_RANGE, Ref as ReferenceRef, References};
use targets::{Base, Targets};

pub struct ReferenceMap {
    index: Index,
    targets: Targets,
}

/// The table of keys: a JSON file's, read whole at open, or Parquet
/// references, whose chunk records load as they are read.
enum Index {
    Json(References),
    Parquet(Box<ParquetRefs>),
}

impl ReferenceMap {
    /// Open the reference file at `file` (a local path, or an S3 or web
    /// location whose root is the file's key) with the dataset's fragment
    /// settings. A directory, or an S3 prefix, holding `.zmetadata` is
    /// Parquet references.
    pub fn open(file: &Storage, params: &[(String, String)]) -> NcResult<ReferenceMap> {
        let index = match file {
            Storage::File(path) if path.is_dir() => {
                let zmetadata = crate::zmap::local::read_regular(&path.join(".zmetadata"), NcError::ENOTNC)?
                    .ok_or(NcError::ENOOBJECT)?;
                Index::Parquet(Box::new(ParquetRefs::open(&zmetadata, RecordStore::Local(path.clone()))?))
            }
            Storage::File(path) => Index::Json(parse::parse(
                &crate::zmap::local::read_regular(path, NcError::ENOTNC)?.ok_or(NcError::ENOOBJECT)?,
            )?),
            Storage::S3(loc) | Storage::Http(loc) => open_remote(loc, matches!(file, Storage::Http(_)), params)?,
            Storage::Zip(_) | Storage::Reference(_) => return Err(NcError::EURL),
        };
        let targets = match &index {
            Index::Json(refs) => Targets::resolve(&refs.targets, Base::of(file)?, params)?,
            Index::Parquet(_) => Targets::new(Base::of(file)?, params),
        };
        Ok(ReferenceMap { index, targets })
    }

    /// What `key` holds, if anything.
    fn lookup(&self, key: &str) -> NcResult<Option<Cow<'_, Ref>>> {
        match &self.index {
            Index::Json(refs) => Ok(refs.refs.get(key).map(Cow::Borrowed)),
            Index::Parquet(refs) => Ok(refs.lookup(key, &self.targets)?.map(Cow::Owned)),
        }
    }

    /// A reference's bytes `offset..offset + len` (of the object the key
    /// names), checked against its length when it has one.
    fn read(&self, reference: &Ref, ranges: &[(u64, usize)]) -> NcResult<Vec<Vec<u8>>> {
        match reference {
            Ref::Inline(bytes) => ranges
                .iter()
                .map(|&(offset, len)| {
                    let start = usize::try_from(offset).map_err(|_| NcError::ENCZARR)?;
                    bytes
                        .get(start..start.checked_add(len).ok_or(NcError::ENCZARR)?)
                        .map(<[u8]>::to_vec)
                        .ok_or(NcError::ENCZARR)
                })
                .collect(),
            &Ref::Range { target, offset: base, len: whole } => {
                let shifted = ranges
                    .iter()
                    .map(|&(offset, len)| {
                        let end = offset.checked_add(len as u64).ok_or(NcError::ENCZARR)?;
                        if whole.is_some_and(|whole| end > whole) {
                            return Err(NcError::ENCZARR);
                        }
                        Ok((base.checked_add(offset).ok_or(NcError::ENCZARR)?, len))
                    })
                    .collect::<NcResult<Vec<_>>>()?;
                self.targets.read_ranges(target, &shifted)
            }
        }
    }

    /// The whole object a reference names.
    fn read_whole(&self, reference: &Ref) -> NcResult<Vec<u8>> {
        match *reference {
            Ref::Inline(ref bytes) => Ok(bytes.clone()),
            Ref::Range { target, offset, len: Some(len) } => {
                self.targets.read(target, offset, usize::try_from(len).map_err(|_| NcError::ENCZARR)?)
            }
            Ref::Range { target, offset: 0, len: None } => self.targets.read_all(target),
            // parse.rs gives a whole target offset 0.
            Ref::Range { .. } => Err(NcError::EINTERNAL),
        }
    }
}

/// Opens references on S3 or a web server: a JSON file, or Parquet
/// references under that name. A name ending `.parq` or `.parquet` is
/// tried as Parquet first, so opening it costs one request.
fn open_remote(loc: &S3Location, web: bool, params: &[(String, String)]) -> NcResult<Index> {
    let (dir, name) = match loc.root.rsplit_once('/') {
        Some((dir, name)) => (dir.to_string(), name.to_string()),
        None => (String::new(), loc.root.clone()),
    };
    let at = S3Location { root: dir, ..loc.clone() };
    let store = if web { S3Map::open_web(&at, params)? } else { S3Map::open(&at, params)? };
    let parquet_first = name.ends_with(".parq") || name.ends_with(".parquet");
    let as_json = |store: &S3Map| -> NcResult<Option<Index>> {
        store.get(&name)?.map(|bytes| parse::parse(&bytes).map(Index::Json)).transpose()
    };
    if !parquet_first && let Some(index) = as_json(&store)? {
        return Ok(index);
    }
    if let Some(zmetadata) = store.get(&format!("{name}/.zmetadata"))? {
        let refs = ParquetRefs::open(&zmetadata, RecordStore::Remote { store: Box::new(store), prefix: name })?;
        return Ok(Index::Parquet(Box::new(refs)));
    }
    match parquet_first {
        true => as_json(&store)?.ok_or(NcError::ENOOBJECT),
        false => Err(NcError::ENOOBJECT),
    }
}

/// The names directly below `prefix` among sorted keys.
fn children<V>(keys: &BTreeMap<String, V>, prefix: &str) -> Vec<String> {
    let start = if prefix.is_empty() { String::new() } else { format!("{prefix}/") };
    let mut children: Vec<String> = Vec::new();
    for key in keys.range(start.clone()..).map(|(k, _)| k).take_while(|k| k.starts_with(&start)) {
        let child = key[start.len()..].split('/').next().unwrap_or_default();
        if children.last().map(String::as_str) != Some(child) {
            children.push(child.to_string());
        }
    }
    // Sorted keys give each child's keys together, but "a/x" sorts
    // after "a.b": keep the list sorted and unique.
    children.sort();
    children.dedup();
    children
}

impl Zmap for ReferenceMap {
    fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
        self.lookup(key)?.map(|r| self.read_whole(&r)).transpose()
    }

    fn get_range(&self, key: &str, offset: u64, len: usize) -> NcResult<Option<Vec<u8>>> {
        Ok(self.get_ranges(key, &[(offset, len)])?.and_then(|mut parts| parts.pop()))
    }

    fn get_ranges(&self, key: &str, ranges: &[(u64, usize)]) -> NcResult<Option<Vec<Vec<u8>>>> {
        self.lookup(key)?.map(|r| self.read(&r, ranges)).transpose()
    }

    fn get_suffix(&self, key: &str, len: usize) -> NcResult<Option<Vec<u8>>> {
        let Some(reference) = self.lookup(key)? else { return Ok(None) };
        match reference.known_len() {
            Some(size) => {
                let start = size.checked_sub(len as u64).ok_or(NcError::ENCZARR)?;
                Ok(self.read(&reference, &[(start, len)])?.pop())
            }
            // A whole target of unknown length: read it all.
            None => {
                let mut data = self.read_whole(&reference)?;
                let start = data.len().checked_sub(len).ok_or(NcError::ENCZARR)?;
                data.drain(..start);
                Ok(Some(data))
            }
        }
    }

    fn read_into_exact(&self, key: &str, size: u64, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let Some(reference) = self.lookup(key)? else { return Ok(false) };
        match reference.known_len() {
            Some(len) if len != size => Err(NcError::ENCZARR),
            // A range of a target: its bytes straight into the caller's
            // buffers (a raw chunk read, the common case, copies once).
            Some(len) if matches!(*reference, Ref::Range { .. }) => {
                let Ref::Range { target, offset: base, .. } = *reference else { return Err(NcError::EINTERNAL) };
                let mut shifted = Vec::with_capacity(segments.len());
                for (offset, dst) in segments.iter_mut() {
                    let end = offset.checked_add(dst.len() as u64).ok_or(NcError::ENCZARR)?;
                    if end > len {
                        return Err(NcError::ENCZARR);
                    }
                    shifted.push((base.checked_add(*offset).ok_or(NcError::ENCZARR)?, &mut **dst));
                }
                self.targets.read_into(target, &mut shifted)?;
                Ok(true)
            }
            Some(_) => {
                let ranges: Vec<(u64, usize)> = segments.iter().map(|(o, b)| (*o, b.len())).collect();
                for ((_, dst), src) in segments.iter_mut().zip(self.read(&reference, &ranges)?) {
                    dst.copy_from_slice(&src);
                }
                Ok(true)
            }
            None => {
                let data = self.read_whole(&reference)?;
                if data.len() as u64 != size {
                    return Err(NcError::ENCZARR);
                }
                for (offset, dst) in segments.iter_mut() {
                    let start = usize::try_from(*offset).map_err(|_| NcError::ENCZARR)?;
                    let src = data.get(start..start + dst.len()).ok_or(NcError::ENCZARR)?;
                    dst.copy_from_slice(src);
                }
                Ok(true)
            }
        }
    }

    fn exists(&self, key: &str) -> NcResult<bool> {
        Ok(self.lookup(key)?.is_some())
    }

    /// The names below `prefix`: a JSON file's keys; Parquet references'
    /// metadata keys (chunks are not listed: nothing reading a dataset
    /// lists them, and listing would load every record).
    fn list(&self, prefix: &str) -> NcResult<Vec<String>> {
        Ok(match &self.index {
            Index::Json(refs) => children(&refs.refs, prefix),
            Index::Parquet(refs) => children(&refs.meta, prefix),
        })
    }

    fn concurrency(&self) -> usize {
        self.targets.concurrency()
    }

    fn put(&self, _key: &str, _data: &[u8]) -> NcResult<()> {
        Err(NcError::EPERM)
    }

    fn delete(&self, _key: &str) -> NcResult<()> {
        Err(NcError::EPERM)
    }

    fn delete_prefix(&self, _prefix: &str) -> NcResult<()> {
        Err(NcError::EPERM)
    }

    fn destroy(&self) -> NcResult<()> {
        Err(NcError::EPERM)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reference file on disk with a target beside it.
    fn setup(name: &str, refs: &str) -> (std::path::PathBuf, ReferenceMap) {
        let dir = std::env::temp_dir().join(format!("nczarr-rs-refmap-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("data.bin"), (0u8..100).collect::<Vec<u8>>()).unwrap();
        std::fs::write(dir.join("refs.json"), refs).unwrap();
        let map = ReferenceMap::open(&Storage::File(dir.join("refs.json")), &[]).unwrap();
        (dir, map)
    }

    #[test]
    fn keys_read_through_their_references() {
        let (dir, map) = setup(
            "read",
            r#"{"version": 1, "templates": {"d": "data.bin"}, "refs": {".zgroup": "{\"zarr_format\": 2}",
                "a/.zarray": "{}", "a/0": ["{{d}}", 10, 5], "a/1": ["data.bin"], "b.c/0": "base64:AAEC",
                "a/2": ["data.bin", 98, 5]}}"#,
        );
        assert_eq!(map.get(".zgroup").unwrap().unwrap(), br#"{"zarr_format": 2}"#);
        assert_eq!(map.get("a/0").unwrap().unwrap(), vec![10, 11, 12, 13, 14]);
        assert_eq!(map.get("a/1").unwrap().unwrap().len(), 100);
        assert_eq!(map.get("b.c/0").unwrap().unwrap(), vec![0, 1, 2]);
        assert_eq!(map.get("a/9").unwrap(), None);
        assert_eq!(map.get_range("a/0", 1, 2).unwrap().unwrap(), vec![11, 12]);
        assert_eq!(map.get_ranges("a/0", &[(0, 1), (4, 1)]).unwrap().unwrap(), vec![vec![10], vec![14]]);
        assert_eq!(map.get_suffix("a/0", 2).unwrap().unwrap(), vec![13, 14]);
        assert_eq!(map.get_suffix("a/1", 1).unwrap().unwrap(), vec![99]);
        assert_eq!(map.get_exact("a/0", 5).unwrap().unwrap(), vec![10, 11, 12, 13, 14]);
        let (mut first, mut last) = ([0u8; 2], [0u8; 1]);
        assert!(map.read_into_exact("a/0", 5, &mut [(0, &mut first[..]), (4, &mut last[..])]).unwrap());
        assert_eq!((first, last), ([10, 11], [14]));
        assert_eq!(map.read_into_exact("a/0", 5, &mut [(4, &mut first[..])]), Err(NcError::ENCZARR));
        // Inside the reference but past the end of its target.
        assert_eq!(map.read_into_exact("a/2", 5, &mut [(3, &mut first[..])]), Err(NcError::ENCZARR));
        // Past the end of the reference, or of its target.
        assert_eq!(map.get_range("a/0", 4, 2), Err(NcError::ENCZARR));
        assert_eq!(map.get_exact("a/0", 6), Err(NcError::ENCZARR));
        assert_eq!(map.get("a/2"), Err(NcError::ENCZARR));
        assert_eq!(map.list("").unwrap(), vec![".zgroup", "a", "b.c"]);
        assert_eq!(map.list("a").unwrap(), vec![".zarray", "0", "1", "2"]);
        assert!(map.exists("a/0").unwrap() && !map.exists("a").unwrap());
        assert_eq!(map.put("a/0", b"x"), Err(NcError::EPERM));
        assert_eq!(map.delete_prefix(""), Err(NcError::EPERM));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_target_is_an_error_not_fill() {
        let (dir, map) = setup("missing", r#"{"a/0": ["nowhere.bin", 0, 4]}"#);
        assert_eq!(map.get("a/0"), Err(NcError::ENOOBJECT));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A named pipe as a target, or as the reference file: refused at
    /// once, never waited on for a writer.
    #[test]
    fn named_pipes_are_refused_not_waited_on() {
        fn fifo(path: &std::path::Path) {
            let _ = std::fs::remove_file(path);
            let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid C string.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
        }
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (dir, map) = setup("fifo", r#"{"a/0": ["pipe", 0, 4], "a/1": ["pipe"]}"#);
            fifo(&dir.join("pipe"));
            assert_eq!(map.get("a/0"), Err(NcError::ENCZARR), "a range of a pipe");
            assert_eq!(map.get("a/1"), Err(NcError::ENCZARR), "a whole pipe");
            fifo(&dir.join("refs.json"));
            assert_eq!(ReferenceMap::open(&Storage::File(dir.join("refs.json")), &[]).err(), Some(NcError::ENOTNC));
            std::fs::remove_dir_all(&dir).unwrap();
            done.send(()).unwrap();
        });
        finished.recv_timeout(std::time::Duration::from_secs(60)).expect("a pipe was waited on");
    }

    /// Parquet references in a directory: metadata from `.zmetadata`,
    /// chunks from record files (a fastparquet one of fuzz/seeds), an
    /// absent record file's chunks absent.
    #[test]
    fn parquet_references_in_a_directory() {
        let dir = std::env::temp_dir().join(format!("nczarr-rs-refmap-parquet-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("refs.parq/g/a")).unwrap();
        let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/parquet/fastparquet-zstd");
        std::fs::copy(seed, dir.join("refs.parq/g/a/refs.1.parq")).unwrap();
        std::fs::write(
            dir.join("refs.parq/.zmetadata"),
            r#"{"record_size": 6, "metadata": {".zgroup": {"zarr_format": 2}, "g/.zgroup": {"zarr_format": 2},
                "g/a/.zarray": {"shape": [24, 4], "chunks": [3, 2], "zarr_format": 2}}}"#,
        )
        .unwrap();
        let map = ReferenceMap::open(&Storage::File(dir.join("refs.parq")), &[]).unwrap();
        assert_eq!(map.get(".zgroup").unwrap().unwrap(), br#"{"zarr_format":2}"#);
        assert_eq!(map.list("").unwrap(), vec![".zgroup", "g"]);
        assert_eq!(map.list("g").unwrap(), vec![".zgroup", "a"]);
        assert_eq!(map.list("g/a").unwrap(), vec![".zarray"]);
        // Chunks 0-5 are record 0 (no file), 6-11 record 1: chunk (i, j)
        // is number 2i + j.
        assert_eq!(map.lookup("g/a/0.0").unwrap(), None);
        let file = Ref::Range { target: 0, offset: 100, len: Some(4000) };
        assert_eq!(map.lookup("g/a/3.0").unwrap().as_deref(), Some(&file));
        assert_eq!(map.lookup("g/a/4.0").unwrap(), None);
        assert_eq!(map.lookup("g/a/5.0").unwrap().as_deref(), Some(&Ref::Range { target: 1, offset: 0, len: None }));
        assert_eq!(map.get("g/a/5.1").unwrap().unwrap(), b"\x00\x01inline chunk");
        for absent in ["g/a/6.0", "g/a/8.0", "g/a/0.2", "g/a/0", "g/a/x.y", "g/b/0.0", "g/.zattrs", "nothing"] {
            assert_eq!(map.get(absent).unwrap(), None, "{absent}");
        }
        assert!(map.exists("g/a/3.1").unwrap() && !map.exists("g/a/4.0").unwrap());
        // The whole target is a local file that does not exist.
        assert_eq!(map.get("g/a/5.0"), Err(NcError::ENOOBJECT));
        assert_eq!(map.put("g/a/0.0", b"x"), Err(NcError::EPERM));
        // A record file that is not Parquet: its chunks are errors.
        std::fs::write(dir.join("refs.parq/g/a/refs.0.parq"), b"PAR1 junk").unwrap();
        let map = ReferenceMap::open(&Storage::File(dir.join("refs.parq")), &[]).unwrap();
        assert_eq!(map.get("g/a/0.0"), Err(NcError::ENCZARR));
        std::fs::remove_file(dir.join("refs.parq/.zmetadata")).unwrap();
        assert_eq!(ReferenceMap::open(&Storage::File(dir.join("refs.parq")), &[]).err(), Some(NcError::ENOOBJECT));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_reference_files_do_not_open() {
        let dir = std::env::temp_dir().join(format!("nczarr-rs-refmap-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("bad.json"), "{").unwrap();
        std::fs::write(dir.join("odd.json"), r#"{"a/0": ["memory://x", 0, 1]}"#).unwrap();
        let open = |n: &str| ReferenceMap::open(&Storage::File(dir.join(n)), &[]).err();
        assert_eq!(open("bad.json"), Some(NcError::ENCZARR));
        assert_eq!(open("odd.json"), Some(NcError::EURL));
        assert_eq!(open("absent.json"), Some(NcError::ENOOBJECT));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
