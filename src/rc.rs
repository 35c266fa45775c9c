//! netcdf-c's run-time configuration files (`.ncrc`, `.daprc`, `.dodsrc`).
//!
//! Each line is `[url]KEY=VALUE`, the `[url]` prefix optional: with it the
//! entry applies only to datasets on that host (and path). Files are found
//! as netcdf-c finds them: the one file named by `NCRCENV_RC`, or else the
//! three names in `$NCRCENV_HOME` (default `$HOME`) and then in the working
//! directory, later files overriding earlier ones; `NCRCENV_IGNORE` turns
//! the whole mechanism off. `nc_rc_get`/`nc_rc_set` read and change the
//! table; the storage drivers look keys up for their dataset's URL.

use std::sync::Mutex;

use crate::error::{NcError, NcResult};

const RC_FILE_NAMES: [&str; 3] = [".ncrc", ".daprc", ".dodsrc"];

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    key: String,
    value: String,
    /// `host[:port]` the entry is restricted to.
    host: Option<String>,
    /// URL path the entry is restricted to.
    urlpath: Option<String>,
}

impl Entry {
    /// netcdf-c's rule: the key must be equal (case matters); an entry
    /// without host (or path) applies to any request, an entry with one
    /// only to a request naming the same.
    fn applies_to(&self, key: &str, host: Option<&str>, urlpath: Option<&str>) -> bool {
        fn restriction_holds(entry: Option<&str>, request: Option<&str>) -> bool {
            match (entry, request) {
                (None, _) => true,
                (Some(e), Some(r)) => e == r,
                (Some(_), None) => false,
            }
        }
        self.key == key
            && restriction_holds(self.host.as_deref(), host)
            && restriction_holds(self.urlpath.as_deref(), urlpath)
    }
}

/// The merged entries of every configuration file read, plus
/// `nc_rc_set` changes.
#[derive(Debug, Default, Clone)]
pub struct RcTable {
    entries: Vec<Entry>,
    ignore: bool,
}

/// Spaces, tabs and carriage returns are dropped from the ends of keys,
/// values, hosts and paths, as netcdf-c does.
fn trim(s: &str) -> &str {
    s.trim_matches([' ', '\t', '\r'])
}

/// The `host[:port]` and path of an entry's `[url]` prefix; `None` when
/// it is not a URL.
fn url_restriction(url: &str) -> Option<(Option<String>, Option<String>)> {
    let (scheme, rest) = url.split_once("://")?;
    if scheme.is_empty() || !scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) {
        return None;
    }
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let path = path.split(['?', '#']).next().unwrap_or("");
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_string());
    Some((non_empty(hostport), non_empty(path)))
}

impl RcTable {
    /// Add the entries of one file's text, later lines overriding earlier
    /// ones with the same key and restriction. Malformed `[url]` lines are
    /// skipped, as netcdf-c skips them.
    pub fn add_text(&mut self, text: &str) {
        for raw in text.lines() {
            let mut line = trim(raw);
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (mut host, mut urlpath) = (None, None);
            if let Some(rest) = line.strip_prefix('[') {
                let Some((url, after)) = rest.split_once(']') else { continue };
                let Some((h, p)) = url_restriction(url) else { continue };
                (host, urlpath) = (h, p);
                line = after;
            }
            let (key, value) = line.split_once('=').unwrap_or((line, ""));
            self.insert(trim(key), host.as_deref(), urlpath.as_deref(), trim(value));
        }
        // Entries restricted to a host are consulted first.
        self.entries.sort_by_key(|e| e.host.is_none());
    }

    /// Set `key` for exactly the given restriction. (netcdf-c replaces
    /// the first entry that *applies*, so a host-restricted line after an
    /// unrestricted one overwrites the latter's value for everybody; we
    /// keep both.)
    pub fn insert(&mut self, key: &str, host: Option<&str>, urlpath: Option<&str>, value: &str) {
        let same = |e: &Entry| e.key == key && e.host.as_deref() == host && e.urlpath.as_deref() == urlpath;
        match self.entries.iter_mut().find(|e| same(e)) {
            Some(e) => e.value = value.to_string(),
            None => self.entries.push(Entry {
                key: key.to_string(),
                value: value.to_string(),
                host: host.map(str::to_string),
                urlpath: urlpath.map(str::to_string),
            }),
        }
    }

    /// The value of `key` for a request to `host` (`host[:port]`) and
    /// `urlpath`; `None` for neither means "no particular dataset".
    pub fn lookup(&self, key: &str, host: Option<&str>, urlpath: Option<&str>) -> Option<&str> {
        if self.ignore {
            return None;
        }
        self.entries.iter().find(|e| e.applies_to(key, host, urlpath)).map(|e| e.value.as_str())
    }

    /// Read the configuration files the environment points at.
    pub fn load_from_environment() -> RcTable {
        let mut table = RcTable { ignore: std::env::var_os("NCRCENV_IGNORE").is_some(), ..RcTable::default() };
        if table.ignore {
            return table;
        }
        let files: Vec<std::path::PathBuf> = match std::env::var_os("NCRCENV_RC") {
            Some(rc) if !rc.is_empty() => vec![rc.into()],
            _ => {
                let home = std::env::var_os("NCRCENV_HOME")
                    .filter(|h| !h.is_empty())
                    .or_else(|| std::env::var_os("HOME"))
                    .map(std::path::PathBuf::from);
                let cwd = std::env::current_dir().ok();
                [home, cwd]
                    .into_iter()
                    .flatten()
                    .flat_map(|dir| RC_FILE_NAMES.iter().map(move |name| dir.join(name)))
                    .collect()
            }
        };
        for file in files {
            // Unreadable or missing files are skipped silently, as in netcdf-c.
            if let Ok(text) = std::fs::read(&file) {
                table.add_text(&String::from_utf8_lossy(&text));
            }
        }
        table
    }
}

/// The process's table, read on first use.
static TABLE: Mutex<Option<RcTable>> = Mutex::new(None);

/// Use the table, inside the call gate ([`crate::gate`]: no `fork` while
/// its lock is held or it is being read from the files).
fn with_table<R>(f: impl FnOnce(&mut RcTable) -> R) -> NcResult<R> {
    let _inside = crate::gate::enter();
    let mut guard = TABLE.lock().map_err(|_| NcError::EINTERNAL)?;
    Ok(f(guard.get_or_insert_with(RcTable::load_from_environment)))
}

/// `nc_rc_get`: a key's value not restricted to any URL.
pub fn get(key: &str) -> NcResult<Option<String>> {
    with_table(|t| t.lookup(key, None, None).map(str::to_string))
}

/// `nc_rc_set`: set a key for every URL. Ignored when `NCRCENV_IGNORE` is set.
pub fn set(key: &str, value: &str) -> NcResult<()> {
    with_table(|t| {
        if !t.ignore {
            t.insert(key, None, None, value);
        }
    })
}

/// A key's value for a dataset on `host` (`host[:port]`) at `urlpath`.
pub fn lookup(key: &str, host: Option<&str>, urlpath: Option<&str>) -> NcResult<Option<String>> {
    with_table(|t| t.lookup(key, host, urlpath).map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keys_and_restrictions() {
        let mut t = RcTable::default();
        t.add_text(
            "# comment\n\
             HTTP.VERBOSE = 1 \r\n\
             [https://example.com:8443/data/x]AWS.PROFILE=special\n\
             [https://example.com:8443]HTTP.TIMEOUT=30\n\
             AWS.PROFILE=default\n\
             FLAG\n\
             [not a url]IGNORED=1\n\
             [unclosed IGNORED=2\n",
        );
        assert_eq!(t.lookup("HTTP.VERBOSE", None, None), Some("1"));
        assert_eq!(t.lookup("http.verbose", None, None), None, "keys are case-sensitive");
        assert_eq!(t.lookup("FLAG", None, None), Some(""));
        assert_eq!(t.lookup("AWS.PROFILE", None, None), Some("default"));
        assert_eq!(t.lookup("AWS.PROFILE", Some("example.com:8443"), Some("/data/x")), Some("special"));
        assert_eq!(t.lookup("AWS.PROFILE", Some("other.org"), Some("/data/x")), Some("default"));
        assert_eq!(t.lookup("HTTP.TIMEOUT", Some("example.com:8443"), Some("/any")), Some("30"));
        assert_eq!(t.lookup("HTTP.TIMEOUT", None, None), None);
        assert_eq!(t.lookup("IGNORED", None, None), None);
    }

    #[test]
    fn restricted_entry_after_global_one_keeps_both() {
        let mut t = RcTable::default();
        t.add_text("K=global\n[http://h/p]K=local\n");
        assert_eq!(t.lookup("K", None, None), Some("global"));
        assert_eq!(t.lookup("K", Some("h"), Some("/p")), Some("local"));
    }

    #[test]
    fn later_text_overrides_and_insert_replaces() {
        let mut t = RcTable::default();
        t.add_text("K=1\n");
        t.add_text("K=2\n");
        assert_eq!(t.lookup("K", None, None), Some("2"));
        t.insert("K", None, None, "3");
        assert_eq!(t.lookup("K", None, None), Some("3"));
        assert_eq!(t.entries.len(), 1);
    }

    #[test]
    fn url_prefixes() {
        assert_eq!(url_restriction("http://u:p@h:80/a/b?q#f"), Some((Some("h:80".into()), Some("/a/b".into()))));
        assert_eq!(url_restriction("s3://bucket"), Some((Some("bucket".into()), None)));
        assert_eq!(url_restriction("nope"), None);
        assert_eq!(url_restriction("://h/x"), None);
    }
}
