//! A kerchunk reference file as a read-only store (`mode=zarr,reference`):
//! each key of the dataset is bytes held in the reference file or a byte
//! range of another file (an `.nc` on S3, say), so archives of netCDF-4
//! and netCDF-3 files read as Zarr without copying.
//!
//! Opening reads and checks the whole reference file (parse.rs) and
//! resolves its targets without touching them (targets.rs); a key's bytes
//! are fetched when read, a byte range of a range when a chunk is read in
//! part, and several ranges of one target in as few requests as the S3
//! driver's merging gives. Writes are NC_EPERM.

mod parse;
mod targets;
mod template;

use crate::error::{NcError, NcResult};
use crate::url::Storage;
use crate::zmap::{S3Map, Zmap};
use parse::Ref;
pub use parse::parse as parse_references;
pub use parse::{MAX_RANGE as MAX_REFERENCE_RANGE, Ref as ReferenceRef, References};
use targets::{Base, Targets};

pub struct ReferenceMap {
    refs: References,
    targets: Targets,
}

impl ReferenceMap {
    /// Open the reference file at `file` (a local path, or an S3 or web
    /// location whose root is the file's key) with the dataset's fragment
    /// settings.
    pub fn open(file: &Storage, params: &[(String, String)]) -> NcResult<ReferenceMap> {
        let bytes = match file {
            Storage::File(path) => std::fs::read(path).map_err(|e| NcError::from_io(&e))?,
            Storage::S3(loc) | Storage::Http(loc) => {
                let (dir, name) = match loc.root.rsplit_once('/') {
                    Some((dir, name)) => (dir.to_string(), name.to_string()),
                    None => (String::new(), loc.root.clone()),
                };
                let at = crate::url::S3Location { root: dir, ..loc.clone() };
                let store = if matches!(file, Storage::Http(_)) {
                    S3Map::open_web(&at, params)?
                } else {
                    S3Map::open(&at, params)?
                };
                store.get(&name)?.ok_or(NcError::ENOOBJECT)?
            }
            Storage::Zip(_) | Storage::Reference(_) => return Err(NcError::EURL),
        };
        let refs = parse::parse(&bytes)?;
        let targets = Targets::resolve(&refs.targets, &Base::of(file)?, params)?;
        Ok(ReferenceMap { refs, targets })
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

impl Zmap for ReferenceMap {
    fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
        self.refs.refs.get(key).map(|r| self.read_whole(r)).transpose()
    }

    fn get_range(&self, key: &str, offset: u64, len: usize) -> NcResult<Option<Vec<u8>>> {
        Ok(self.get_ranges(key, &[(offset, len)])?.and_then(|mut parts| parts.pop()))
    }

    fn get_ranges(&self, key: &str, ranges: &[(u64, usize)]) -> NcResult<Option<Vec<Vec<u8>>>> {
        self.refs.refs.get(key).map(|r| self.read(r, ranges)).transpose()
    }

    fn get_suffix(&self, key: &str, len: usize) -> NcResult<Option<Vec<u8>>> {
        let Some(reference) = self.refs.refs.get(key) else { return Ok(None) };
        match reference.known_len() {
            Some(size) => {
                let start = size.checked_sub(len as u64).ok_or(NcError::ENCZARR)?;
                Ok(self.read(reference, &[(start, len)])?.pop())
            }
            // A whole target of unknown length: read it all.
            None => {
                let mut data = self.read_whole(reference)?;
                let start = data.len().checked_sub(len).ok_or(NcError::ENCZARR)?;
                data.drain(..start);
                Ok(Some(data))
            }
        }
    }

    fn read_into_exact(&self, key: &str, size: u64, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let Some(reference) = self.refs.refs.get(key) else { return Ok(false) };
        match reference.known_len() {
            Some(len) if len != size => Err(NcError::ENCZARR),
            // A range of a target: its bytes straight into the caller's
            // buffers (a raw chunk read, the common case, copies once).
            Some(len) if matches!(reference, Ref::Range { .. }) => {
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
                for ((_, dst), src) in segments.iter_mut().zip(self.read(reference, &ranges)?) {
                    dst.copy_from_slice(&src);
                }
                Ok(true)
            }
            None => {
                let data = self.read_whole(reference)?;
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
        Ok(self.refs.refs.contains_key(key))
    }

    fn list(&self, prefix: &str) -> NcResult<Vec<String>> {
        let start = if prefix.is_empty() { String::new() } else { format!("{prefix}/") };
        let mut children: Vec<String> = Vec::new();
        for key in self.refs.refs.range(start.clone()..).map(|(k, _)| k).take_while(|k| k.starts_with(&start)) {
            let child = key[start.len()..].split('/').next().unwrap_or_default();
            if children.last().map(String::as_str) != Some(child) {
                children.push(child.to_string());
            }
        }
        // Sorted keys give each child's keys together, but "a/x" sorts
        // after "a.b": keep the list sorted and unique.
        children.sort();
        children.dedup();
        Ok(children)
    }

    fn concurrency(&self) -> usize {
        self.targets.concurrency().unwrap_or_else(|| crate::zmap::cpus().min(8))
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
