//! Where a reader gets metadata objects: consolidated metadata when there
//! is current one, objects fetched ahead many at once, or the store.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value};

use super::json;
use crate::error::{NcError, NcResult};
use crate::zmap::Zmap;

/// Where metadata objects are read from.
pub struct Source<'a> {
    pub store: &'a dyn Zmap,
    /// Consolidated metadata, when present and current: key → the object
    /// stored under it (`.zmetadata`'s `metadata` map).
    pub consolidated: Option<Map<String, Value>>,
    /// Objects fetched ahead, many at once (see [`Source::prefetch`]).
    pub fetched: RefCell<HashMap<String, Option<Vec<u8>>>>,
    /// Every object read, by key, when a writer opens: what its commits
    /// tell other writers' changes by (`format::merge`).
    pub seen: Option<RefCell<Map<String, Value>>>,
}

impl Source<'_> {
    pub fn json(&self, key: &str) -> NcResult<Option<Value>> {
        let value = self.read_json(key)?;
        if let (Some(seen), Some(value)) = (&self.seen, &value) {
            seen.borrow_mut().insert(key.to_string(), value.clone());
        }
        Ok(value)
    }

    fn read_json(&self, key: &str) -> NcResult<Option<Value>> {
        if let Some(meta) = &self.consolidated {
            return Ok(meta.get(key).cloned());
        }
        if let Some(fetched) = self.fetched.borrow().get(key) {
            return fetched.as_deref().map(json::parse).transpose();
        }
        match self.store.get(key)? {
            Some(bytes) => json::parse(&bytes).map(Some),
            None => Ok(None),
        }
    }

    /// Fetch objects that are about to be read, all at once: a remote
    /// store then has them in flight together instead of one after
    /// another. Nothing to do when the metadata is consolidated.
    pub fn prefetch(&self, mut keys: Vec<String>) -> NcResult<()> {
        keys.retain(|k| !self.fetched.borrow().contains_key(k));
        if self.consolidated.is_some() || keys.len() < 2 {
            return Ok(());
        }
        let got = self.store.get_many(&keys)?;
        self.fetched.borrow_mut().extend(keys.into_iter().zip(got));
        Ok(())
    }

    /// A JSON object (an absent one is empty; anything else is malformed).
    pub fn object(&self, key: &str) -> NcResult<Map<String, Value>> {
        match self.json(key)? {
            None => Ok(Map::new()),
            Some(Value::Object(m)) => Ok(m),
            Some(_) => Err(NcError::ENCZARR),
        }
    }

    /// Names directly below `prefix` that hold a group or an array.
    pub fn children(&self, prefix: &str) -> NcResult<Vec<String>> {
        let names: Vec<String> = match &self.consolidated {
            Some(meta) => {
                let start = if prefix.is_empty() { String::new() } else { format!("{prefix}/") };
                let set: BTreeSet<String> = meta
                    .keys()
                    .filter_map(|k| k.strip_prefix(&start))
                    .filter_map(|rest| rest.split_once('/').map(|(first, _)| first.to_string()))
                    .collect();
                set.into_iter().collect()
            }
            None => self.store.list(prefix)?,
        };
        Ok(names.into_iter().filter(|n| !n.starts_with('.')).collect())
    }
}
