//! The directory driver: one file per key under a root directory.
//!
//! Writes go to a temporary file in the same directory and are renamed
//! into place, so a reader (or a crash) never sees half an object.

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::Zmap;
use super::beneath::Checked;
use super::key::validate_key;
use crate::error::{NcError, NcResult};

/// Temporary files are named `<TMP_PREFIX><pid>.<n>`; listings skip them.
const TMP_PREFIX: &str = ".nczarr-rs-tmp.";

pub struct FileMap {
    root: PathBuf,
    /// Directories found not to be links (`beneath.rs`).
    checked: Checked,
}

impl FileMap {
    /// Create a new, empty store at `root`. With `clobber` any existing
    /// content is deleted first; without it an existing directory or file
    /// is NC_EEXIST.
    pub fn create(root: &Path, clobber: bool) -> NcResult<FileMap> {
        match fs::symlink_metadata(root) {
            Ok(_) if !clobber => return Err(NcError::EEXIST),
            Ok(meta) if meta.is_dir() => {
                let map = FileMap { root: root.to_path_buf(), checked: Checked::default() };
                map.delete_prefix("")?;
            }
            Ok(_) => fs::remove_file(root).map_err(|e| NcError::from_io(&e))?,
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(NcError::from_io(&e)),
        }
        fs::create_dir_all(root).map_err(|e| NcError::from_io(&e))?;
        Ok(FileMap { root: root.to_path_buf(), checked: Checked::default() })
    }

    /// Open an existing store. A missing root is NC_ENOOBJECT (as netcdf-c);
    /// a root that is not a directory is NC_ENOTNC.
    pub fn open(root: &Path) -> NcResult<FileMap> {
        match fs::metadata(root) {
            Ok(meta) if meta.is_dir() => Ok(FileMap { root: root.to_path_buf(), checked: Checked::default() }),
            Ok(_) => Err(NcError::ENOTNC),
            Err(e) => Err(NcError::from_io(&e)),
        }
    }

    /// The path of a key whose object may be replaced or removed: the
    /// directories leading to it stay inside the root (`beneath.rs`).
    fn path_of(&self, key: &str) -> NcResult<PathBuf> {
        validate_key(key)?;
        super::beneath::check(&self.root, &self.checked, key, false)?;
        Ok(if key.is_empty() { self.root.clone() } else { self.root.join(key) })
    }

    /// The path of a key to read (or list): it leads to a place inside
    /// the root, whatever links it goes through.
    fn read_path(&self, key: &str) -> NcResult<PathBuf> {
        validate_key(key)?;
        super::beneath::check(&self.root, &self.checked, key, true)?;
        Ok(if key.is_empty() { self.root.clone() } else { self.root.join(key) })
    }

    /// [`Zmap::read_into`], checking the object's length first when `size`
    /// is given.
    fn read_into_sized(&self, key: &str, size: Option<u64>, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        use std::os::fd::AsRawFd;
        let path = self.read_path(key)?;
        let file = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => return Ok(false),
            Err(e) => return Err(NcError::from_io(&e)),
        };
        if let Some(size) = size {
            let meta = file.metadata().map_err(|e| NcError::from_io(&e))?;
            if meta.is_dir() {
                return Ok(false);
            }
            if meta.len() != size {
                return Err(NcError::ENCZARR);
            }
        }
        // Consecutive segments whose file ranges follow each other go in one
        // preadv call (at most IOV_MAX buffers each).
        const IOV_MAX: usize = 1024;
        let mut i = 0;
        while i < segments.len() {
            let start = segments[i].0;
            let mut end = i;
            let mut next = start;
            while end < segments.len() && end - i < IOV_MAX && segments[end].0 == next {
                next += segments[end].1.len() as u64;
                end += 1;
            }
            let total = (next - start) as usize;
            let iov: Vec<libc::iovec> = segments[i..end]
                .iter_mut()
                .map(|(_, b)| libc::iovec { iov_base: b.as_mut_ptr() as *mut libc::c_void, iov_len: b.len() })
                .collect();
            // SAFETY: every iovec points into a live, exclusively borrowed
            // buffer of the stated length.
            let n =
                unsafe { libc::preadv(file.as_raw_fd(), iov.as_ptr(), iov.len() as libc::c_int, start as libc::off_t) };
            if n < 0 {
                return Err(NcError::from_io(&std::io::Error::last_os_error()));
            }
            if (n as usize) < total {
                // A short read: finish this batch one segment at a time.
                use std::os::unix::fs::FileExt;
                for (offset, buf) in segments[i..end].iter_mut() {
                    file.read_exact_at(buf, *offset).map_err(|e| {
                        if e.kind() == ErrorKind::UnexpectedEof { NcError::ENCZARR } else { NcError::from_io(&e) }
                    })?;
                }
            }
            i = end;
        }
        Ok(true)
    }
}

fn temp_name(dir: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("{TMP_PREFIX}{}.{n}", std::process::id()))
}

impl Zmap for FileMap {
    fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
        let path = self.read_path(key)?;
        match fs::read(&path) {
            Ok(data) => Ok(Some(data)),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => Ok(None),
            // A key that names a directory has no content of its own.
            Err(e) if e.kind() == ErrorKind::IsADirectory => Ok(None),
            Err(e) => Err(NcError::from_io(&e)),
        }
    }

    fn get_range(&self, key: &str, offset: u64, len: usize) -> NcResult<Option<Vec<u8>>> {
        Ok(self.get_ranges(key, &[(offset, len)])?.and_then(|mut r| r.pop()))
    }

    /// One open, one `pread` per range.
    fn get_ranges(&self, key: &str, ranges: &[(u64, usize)]) -> NcResult<Option<Vec<Vec<u8>>>> {
        use std::os::unix::fs::FileExt;
        let path = self.read_path(key)?;
        let file = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => return Ok(None),
            Err(e) => return Err(NcError::from_io(&e)),
        };
        let mut out = Vec::with_capacity(ranges.len());
        for &(offset, len) in ranges {
            let mut buf = vec![0u8; len];
            match file.read_exact_at(&mut buf, offset) {
                Ok(()) => out.push(buf),
                Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Err(NcError::ENCZARR),
                Err(e) if e.kind() == ErrorKind::IsADirectory => return Ok(None),
                Err(e) => return Err(NcError::from_io(&e)),
            }
        }
        Ok(Some(out))
    }

    /// `preadv` in batches, so scattering many runs costs few system calls.
    fn read_into(&self, key: &str, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        self.read_into_sized(key, None, segments)
    }

    /// The length comes from the open file (`fstat`), before any read.
    fn read_into_exact(&self, key: &str, size: u64, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        self.read_into_sized(key, Some(size), segments)
    }

    fn put(&self, key: &str, data: &[u8]) -> NcResult<()> {
        if key.is_empty() {
            return Err(NcError::EINVAL);
        }
        let path = self.path_of(key)?;
        let dir = path.parent().ok_or(NcError::EINVAL)?;
        fs::create_dir_all(dir).map_err(|e| NcError::from_io(&e))?;
        let tmp = temp_name(dir);
        let result = (|| {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(data)?;
            fs::rename(&tmp, &path)
        })();
        if let Err(e) = result {
            let _ = fs::remove_file(&tmp);
            return Err(NcError::from_io(&e));
        }
        Ok(())
    }

    fn delete(&self, key: &str) -> NcResult<()> {
        let path = self.path_of(key)?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::IsADirectory) => Ok(()),
            Err(e) => Err(NcError::from_io(&e)),
        }
    }

    fn list(&self, prefix: &str) -> NcResult<Vec<String>> {
        let path = self.read_path(prefix)?;
        let entries = match fs::read_dir(&path) {
            Ok(entries) => entries,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(Vec::new());
            }
            Err(e) => return Err(NcError::from_io(&e)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| NcError::from_io(&e))?;
            // Names that are not UTF-8 cannot be keys; skip them.
            if let Ok(name) = entry.file_name().into_string() {
                if !name.starts_with(TMP_PREFIX) {
                    names.push(name);
                }
            }
        }
        names.sort();
        Ok(names)
    }

    fn delete_prefix(&self, prefix: &str) -> NcResult<()> {
        let path = self.path_of(prefix)?;
        if prefix.is_empty() {
            for name in self.list("")? {
                self.delete_prefix(&name)?;
            }
            return Ok(());
        }
        let result = match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => fs::remove_dir_all(&path),
            Ok(_) => fs::remove_file(&path),
            Err(e) => Err(e),
        };
        match result {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(NcError::from_io(&e)),
        }
    }

    fn exists(&self, key: &str) -> NcResult<bool> {
        Ok(fs::metadata(self.read_path(key)?).is_ok_and(|m| m.is_file()))
    }

    /// A directory rename when nothing is at the destination yet; the
    /// object-by-object move otherwise.
    fn rename_prefix(&self, from: &str, to: &str) -> NcResult<()> {
        let (src, dst) = (self.path_of(from)?, self.path_of(to)?);
        if from.is_empty() || to.is_empty() {
            return Err(NcError::EINVAL);
        }
        if fs::symlink_metadata(&dst).is_err() {
            if let Some(parent) = dst.parent() {
                fs::create_dir_all(parent).map_err(|e| NcError::from_io(&e))?;
            }
            return match fs::rename(&src, &dst) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
                Err(e) => Err(NcError::from_io(&e)),
            };
        }
        super::copy_then_delete(self, from, to)
    }

    fn destroy(&self) -> NcResult<()> {
        match fs::remove_dir_all(&self.root) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(NcError::from_io(&e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("nczarr-rs-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn put_get_list_delete() {
        let root = scratch("basic");
        let map = FileMap::create(&root, true).unwrap();
        map.put(".zgroup", b"{}").unwrap();
        map.put("g/v/.zarray", b"[1]").unwrap();
        assert_eq!(map.get(".zgroup").unwrap().unwrap(), b"{}");
        assert_eq!(map.get("missing").unwrap(), None);
        assert_eq!(map.get("g").unwrap(), None, "a directory has no content");
        assert_eq!(map.get_range("g/v/.zarray", 1, 1).unwrap().unwrap(), b"1");
        assert_eq!(map.get_range("g/v/.zarray", 2, 5), Err(NcError::ENCZARR));
        assert_eq!(map.get_range("nothing", 0, 1).unwrap(), None);
        let (mut a, mut b) = ([0u8; 1], [0u8; 2]);
        let mut segs = [(0u64, &mut a[..]), (1u64, &mut b[..])];
        assert!(map.read_into("g/v/.zarray", &mut segs).unwrap());
        assert_eq!((a, b), (*b"[", *b"1]"));
        let mut short = [0u8; 9];
        assert_eq!(map.read_into("g/v/.zarray", &mut [(0, &mut short[..])]), Err(NcError::ENCZARR));
        assert!(!map.read_into("nothing", &mut [(0, &mut short[..])]).unwrap());
        assert_eq!(map.list("").unwrap(), vec![".zgroup", "g"]);
        assert_eq!(map.list("g/v").unwrap(), vec![".zarray"]);
        assert_eq!(map.list("nothing").unwrap(), Vec::<String>::new());
        assert_eq!(map.list_recursive("").unwrap().len(), 2);
        map.rename_prefix("g/v", "g/w").unwrap();
        assert_eq!(map.get("g/w/.zarray").unwrap().unwrap(), b"[1]");
        assert_eq!(map.get("g/v/.zarray").unwrap(), None);
        // Onto an existing prefix: objects are merged in.
        map.put("h/other", b"o").unwrap();
        map.rename_prefix("g/w", "h").unwrap();
        assert_eq!(map.get("h/.zarray").unwrap().unwrap(), b"[1]");
        assert_eq!(map.get("h/other").unwrap().unwrap(), b"o");
        assert!(map.exists("h/other").unwrap() && !map.exists("h").unwrap());
        map.delete_prefix("h").unwrap();
        map.delete(".zgroup").unwrap();
        map.delete(".zgroup").unwrap();
        map.delete_prefix("g").unwrap();
        assert!(map.list("").unwrap().is_empty());
        map.destroy().unwrap();
        assert!(!root.exists());
    }

    #[test]
    fn keys_cannot_escape_the_root() {
        let root = scratch("escape");
        let map = FileMap::create(&root, true).unwrap();
        assert_eq!(map.put("../evil", b"x"), Err(NcError::EINVAL));
        assert_eq!(map.get("/etc/passwd"), Err(NcError::EINVAL));
        assert_eq!(map.delete_prefix(".."), Err(NcError::EINVAL));
        assert!(!root.parent().unwrap().join("evil").exists());
        map.destroy().unwrap();
    }

    #[test]
    fn create_respects_noclobber_and_clobber() {
        let root = scratch("clobber");
        let map = FileMap::create(&root, true).unwrap();
        map.put("a", b"1").unwrap();
        assert!(matches!(FileMap::create(&root, false), Err(NcError::EEXIST)));
        let map = FileMap::create(&root, true).unwrap();
        assert_eq!(map.get("a").unwrap(), None);
        map.destroy().unwrap();
        assert!(matches!(FileMap::open(&root), Err(NcError::ENOOBJECT)));
    }
}
