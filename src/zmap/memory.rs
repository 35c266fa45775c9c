//! The in-memory driver: a map of key to bytes. Nothing reaches a file,
//! so tests and fuzz targets can build a store from bytes, open it as a
//! dataset and look at what a write left behind.
//!
//! Keys follow the same rules as every driver (`validate_key`). A key may
//! be both an object and a prefix of others, which a directory cannot:
//! listing shows its name once. Clones are handles to one store, so a
//! test can keep one and hand another to a dataset.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, RwLock};

use super::Zmap;
use super::key::validate_key;
use crate::error::{NcError, NcResult};

#[derive(Debug, Default, Clone)]
pub struct MemoryMap {
    objects: Arc<RwLock<BTreeMap<String, Vec<u8>>>>,
}

impl MemoryMap {
    /// An empty store.
    pub fn new() -> MemoryMap {
        MemoryMap::default()
    }

    /// A store holding these objects; NC_EINVAL if a key is not a valid
    /// key (or is the root, which cannot hold an object).
    pub fn from_objects<K: Into<String>>(objects: impl IntoIterator<Item = (K, Vec<u8>)>) -> NcResult<MemoryMap> {
        let map = MemoryMap::new();
        for (key, data) in objects {
            let key = key.into();
            validate_object_key(&key)?;
            map.write()?.insert(key, data);
        }
        Ok(map)
    }

    /// Every object, by key (a copy).
    pub fn objects(&self) -> NcResult<BTreeMap<String, Vec<u8>>> {
        Ok(self.read()?.clone())
    }

    fn read(&self) -> NcResult<std::sync::RwLockReadGuard<'_, BTreeMap<String, Vec<u8>>>> {
        self.objects.read().map_err(|_| NcError::EINTERNAL)
    }

    fn write(&self) -> NcResult<std::sync::RwLockWriteGuard<'_, BTreeMap<String, Vec<u8>>>> {
        self.objects.write().map_err(|_| NcError::EINTERNAL)
    }
}

fn validate_object_key(key: &str) -> NcResult<()> {
    validate_key(key)?;
    if key.is_empty() { Err(NcError::EINVAL) } else { Ok(()) }
}

/// Is `key` at or below `prefix` ("" is the root, above every key)?
fn under(key: &str, prefix: &str) -> bool {
    prefix.is_empty() || key == prefix || key.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
}

impl Zmap for MemoryMap {
    fn get(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
        validate_key(key)?;
        Ok(self.read()?.get(key).cloned())
    }

    fn get_range(&self, key: &str, offset: u64, len: usize) -> NcResult<Option<Vec<u8>>> {
        validate_key(key)?;
        let objects = self.read()?;
        let Some(data) = objects.get(key) else { return Ok(None) };
        range(data, offset, len).map(|s| Some(s.to_vec()))
    }

    fn read_into(&self, key: &str, segments: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        validate_key(key)?;
        let objects = self.read()?;
        let Some(data) = objects.get(key) else { return Ok(false) };
        for (offset, dst) in segments.iter_mut() {
            dst.copy_from_slice(range(data, *offset, dst.len())?);
        }
        Ok(true)
    }

    fn put(&self, key: &str, data: &[u8]) -> NcResult<()> {
        validate_object_key(key)?;
        self.write()?.insert(key.to_string(), data.to_vec());
        Ok(())
    }

    fn delete(&self, key: &str) -> NcResult<()> {
        validate_key(key)?;
        self.write()?.remove(key);
        Ok(())
    }

    fn list(&self, prefix: &str) -> NcResult<Vec<String>> {
        validate_key(prefix)?;
        let start = if prefix.is_empty() { String::new() } else { format!("{prefix}/") };
        let objects = self.read()?;
        // A key and its own children need not be neighbours ("a", "a!",
        // "a/x"), so names are gathered in a set.
        let names: BTreeSet<&str> = objects
            .range(start.clone()..)
            .map(|(k, _)| k)
            .take_while(|k| k.starts_with(&start))
            .filter_map(|k| k[start.len()..].split('/').next())
            .collect();
        Ok(names.into_iter().map(str::to_string).collect())
    }

    fn delete_prefix(&self, prefix: &str) -> NcResult<()> {
        validate_key(prefix)?;
        self.write()?.retain(|k, _| !under(k, prefix));
        Ok(())
    }

    fn destroy(&self) -> NcResult<()> {
        self.write()?.clear();
        Ok(())
    }

    fn exists(&self, key: &str) -> NcResult<bool> {
        validate_key(key)?;
        Ok(self.read()?.contains_key(key))
    }
}

/// `len` bytes of `data` from `offset`; past its end is a truncated
/// object (NC_ENCZARR), as for every driver.
fn range(data: &[u8], offset: u64, len: usize) -> NcResult<&[u8]> {
    let start = usize::try_from(offset).map_err(|_| NcError::ENCZARR)?;
    let end = start.checked_add(len).ok_or(NcError::ENCZARR)?;
    data.get(start..end).ok_or(NcError::ENCZARR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_get_list_delete() {
        let m = MemoryMap::new();
        m.put(".zgroup", b"{}").unwrap();
        m.put("g/.zgroup", b"{}").unwrap();
        m.put("g/v/.zarray", b"{}").unwrap();
        m.put("g/v/0.0", b"abcd").unwrap();
        m.put("gg/x", b"").unwrap();
        m.put("g/v!", b"").unwrap();
        assert_eq!(m.get("g/v/0.0").unwrap().as_deref(), Some(&b"abcd"[..]));
        assert_eq!(m.get("g/v").unwrap(), None);
        assert_eq!(m.list("").unwrap(), vec![".zgroup", "g", "gg"]);
        assert_eq!(m.list("g").unwrap(), vec![".zgroup", "v", "v!"]);
        assert_eq!(m.list("g/v/0.0").unwrap(), Vec::<String>::new());
        assert!(m.exists("g/v/0.0").unwrap() && !m.exists("g").unwrap());
        assert_eq!(m.list_recursive("g").unwrap().len(), 4);
        m.delete_prefix("g").unwrap();
        assert_eq!(m.list("").unwrap(), vec![".zgroup", "gg"]);
        m.delete("gg/x").unwrap();
        m.delete("nothing").unwrap();
        assert_eq!(m.objects().unwrap().len(), 1);
        m.destroy().unwrap();
        assert!(m.objects().unwrap().is_empty());
    }

    #[test]
    fn ranges_and_bad_keys() {
        let m = MemoryMap::from_objects([("c/0", b"0123456789".to_vec())]).unwrap();
        assert_eq!(m.get_range("c/0", 2, 3).unwrap().as_deref(), Some(&b"234"[..]));
        assert_eq!(m.get_range("c/1", 2, 3).unwrap(), None);
        assert_eq!(m.get_range("c/0", 8, 3), Err(NcError::ENCZARR));
        assert_eq!(m.get_range("c/0", u64::MAX, 1), Err(NcError::ENCZARR));
        assert_eq!(m.get_range("c/0", 1, usize::MAX), Err(NcError::ENCZARR));
        let (mut a, mut b) = ([0u8; 2], [0u8; 3]);
        assert!(m.read_into("c/0", &mut [(0, &mut a[..]), (7, &mut b[..])]).unwrap());
        assert_eq!((&a, &b), (b"01", b"789"));
        assert_eq!(m.get_ranges("c/0", &[(0, 1), (9, 1)]).unwrap(), Some(vec![b"0".to_vec(), b"9".to_vec()]));
        for bad in ["", "/abs", "a/../b", "a\\b"] {
            assert_eq!(m.put(bad, b"x"), Err(NcError::EINVAL), "{bad}");
        }
        assert!(MemoryMap::from_objects([("..", Vec::new())]).is_err());
        let handle = m.clone();
        m.move_prefix("c", "d").unwrap();
        m.drop_alias("c").unwrap();
        assert_eq!(handle.list("").unwrap(), vec!["d"]);
    }
}
