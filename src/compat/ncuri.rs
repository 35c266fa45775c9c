//! URLs as netcdf-c 4.9.0's `ncuriparse`/`ncuribuild` see them
//! (libdispatch/ncuri.c), for the utilities that import those functions.
//! Bytes in, bytes out: a URL need not be UTF-8.
//!
//! Shape: `[k=v][k2]proto://user:pwd@host:port/path?query#fragment`.
//! * Control characters are dropped, and the first `\` of each `\\`.
//! * A backslash escapes the next byte when looking for `?`, `#`, `/`,
//!   `&` and `]`.
//! * `file:` URLs never have a host: `file:/p`, `file:///p` (path `/p`),
//!   `file://rel` (relative path `rel`, at least two bytes), `file:D:...`
//!   and `file://D:...` (drive letters). Other protocols need `//`.
//! * The bracketed prefix and the fragment are parsed together into the
//!   fragment list (`k=v` pairs split on `&`); a later pair is dropped when
//!   its key equals an earlier one's and its value differs (case
//!   ignored). The query is parsed into its own list.
//! * User and password are %-decoded; host, port and path are kept as
//!   written. The stored query and fragment strings are rebuilt from the
//!   lists, values %-encoded.
//!
//! netcdf-c drops every byte >= 0x80 along with the control characters
//! (it compares a signed `char` with `' '`), so it mangles UTF-8 paths;
//! that is not reproduced.

use crate::error::{NcError, NcResult};

/// `ncuribuild` flags.
pub const NCURIPATH: i32 = 1;
pub const NCURIPWD: i32 = 2;
pub const NCURIQUERY: i32 = 4;
pub const NCURIFRAG: i32 = 8;
pub const NCURIENCODEPATH: i32 = 16;
pub const NCURIENCODEQUERY: i32 = 32;

const PATH_ALLOW: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!#$&'()*+,-./:;=?@_~";
const QUERY_ALLOW: &[u8] = PATH_ALLOW;
const USERPWD_ALLOW: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!$&'()*+,-.;=_~?#/";

/// Key/value pairs of a query or fragment.
pub type Params = Vec<(Vec<u8>, Vec<u8>)>;

/// A parsed URL; `None` is a NULL field of the C struct.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Uri {
    /// The text as given.
    pub uri: Vec<u8>,
    pub protocol: Option<Vec<u8>>,
    pub user: Option<Vec<u8>>,
    pub password: Option<Vec<u8>>,
    pub host: Option<Vec<u8>>,
    pub port: Option<Vec<u8>>,
    pub path: Option<Vec<u8>>,
    pub query: Option<Vec<u8>>,
    pub fragment: Option<Vec<u8>>,
    pub fraglist: Option<Params>,
    pub querylist: Option<Params>,
}

/// The first of `targets` at or after `from`, skipping backslash-escaped
/// bytes (netcdf-c's `nclocate`).
fn locate(s: &[u8], from: usize, targets: &[u8]) -> Option<usize> {
    let mut i = from;
    while i < s.len() {
        if s[i] == b'\\' {
            i += 2;
        } else if targets.contains(&s[i]) {
            return Some(i);
        } else {
            i += 1;
        }
    }
    None
}

fn eq_ci(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Split `k=v&k2&...` into pairs (a missing value is empty); a trailing
/// `&` adds nothing, an empty piece elsewhere is an empty key.
pub fn parse_params(text: &[u8]) -> Params {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = locate(text, start, b"&");
        let piece = &text[start..end.unwrap_or(text.len())];
        match piece.iter().position(|&c| c == b'=') {
            Some(eq) => out.push((piece[..eq].to_vec(), piece[eq + 1..].to_vec())),
            None => out.push((piece.to_vec(), Vec::new())),
        }
        match end {
            Some(e) => start = e + 1,
            None => break,
        }
    }
    out
}

/// Drop each later pair whose key matches an earlier pair's key while its
/// value differs.
fn remove_conflicts(list: &mut Params) {
    if list.len() < 2 {
        return;
    }
    let mut i = 0;
    while i < list.len() {
        let mut j = list.len() - 1;
        while j > i {
            if eq_ci(&list[i].0, &list[j].0) && !eq_ci(&list[i].1, &list[j].1) {
                list.remove(j);
            }
            j -= 1;
        }
        i += 1;
    }
}

/// `k=v&k2`: values %-encoded when `encode`, empty values left out.
fn join_params(list: &Params, encode_values: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (n, (k, v)) in list.iter().enumerate() {
        if n > 0 {
            out.push(b'&');
        }
        out.extend_from_slice(k);
        if !v.is_empty() {
            out.push(b'=');
            if encode_values {
                out.extend(encode(v, QUERY_ALLOW));
            } else {
                out.extend_from_slice(v);
            }
        }
    }
    out
}

/// %-encode every byte not in `allow` (lower-case hex).
pub fn encode(s: &[u8], allow: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if allow.contains(&c) {
            out.push(c);
        } else {
            out.extend([b'%', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
        }
    }
    out
}

/// Decode `%xx`; a `%` not followed by two hex digits stays.
pub fn decode(s: &[u8]) -> Vec<u8> {
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%'
            && let (Some(h), Some(l)) = (s.get(i + 1).and_then(|&c| hex(c)), s.get(i + 2).and_then(|&c| hex(c)))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// The `[k=v][k2]` prefix as `k=v&k2`, and where the URL proper starts.
fn prefix_params(s: &[u8]) -> NcResult<(Vec<u8>, usize)> {
    let mut segments: Vec<&[u8]> = Vec::new();
    let mut at = 0;
    while s.get(at) == Some(&b'[') {
        let close = locate(s, at, b"]").ok_or(NcError::EURL)?;
        segments.push(&s[at + 1..close]);
        at = close + 1;
    }
    Ok((segments.join(&b'&'), at))
}

fn is_drive(c: u8) -> bool {
    c.is_ascii_alphabetic()
}

/// `ncuriparse`.
pub fn parse(input: &[u8]) -> NcResult<Uri> {
    if input.is_empty() {
        return Err(NcError::EURL);
    }
    let s: Vec<u8> = input
        .iter()
        .enumerate()
        .filter(|&(i, &c)| !(c < b' ' || (c == b'\\' && input.get(i + 1) == Some(&b'\\'))))
        .map(|(_, &c)| c)
        .collect();
    let (prefix, start) = if s.first() == Some(&b'[') { prefix_params(&s)? } else { (Vec::new(), 0) };
    let rest = &s[start..];
    let (core, query, fragment) = match locate(rest, 0, b"?#") {
        None => (rest, None, None),
        Some(i) if rest[i] == b'#' => (&rest[..i], None, Some(&rest[i + 1..])),
        Some(i) => {
            let after = &rest[i + 1..];
            match locate(after, 0, b"#") {
                Some(h) => (&rest[..i], Some(&after[..h]), Some(&after[h + 1..])),
                None => (&rest[..i], Some(after), None),
            }
        }
    };
    let mut params = parse_params(&prefix);
    if let Some(f) = fragment {
        params.extend(parse_params(f));
    }
    remove_conflicts(&mut params);
    let querylist = query.map(parse_params).filter(|q| !q.is_empty());

    let colon = core.iter().position(|&c| c == b':').ok_or(NcError::EURL)?;
    let protocol = &core[..colon];
    if protocol.is_empty() {
        return Err(NcError::EURL);
    }
    let p = &core[colon + 1..];
    let mut uri = Uri { uri: input.to_vec(), protocol: Some(protocol.to_vec()), ..Uri::default() };
    if protocol == b"file" {
        let l = p.len();
        let path = if l >= 2 && p[1] == b':' && is_drive(p[0]) || l >= 2 && p[0] == b'/' && p[1] != b'/' {
            p
        } else if l >= 4 && p.starts_with(b"//") && (p[3] == b':' && is_drive(p[2]) || p[2] != b'/' || p[3] != b'/') {
            // file://D:..., file:///X, file://rel
            &p[2..]
        } else {
            return Err(NcError::EURL);
        };
        uri.path = Some(path.to_vec());
    } else {
        let p = p.strip_prefix(b"//").ok_or(NcError::EURL)?;
        let (mut host, path) = match locate(p, 0, b"/") {
            Some(i) => (&p[..i], Some(&p[i..])),
            None => (p, None),
        };
        uri.path = path.map(<[u8]>::to_vec);
        if !host.is_empty() {
            if let Some(at) = host.iter().position(|&c| c == b'@') {
                if at == 0 {
                    return Err(NcError::EURL);
                }
                let userinfo = &host[..at];
                let colon = userinfo.iter().position(|&c| c == b':').ok_or(NcError::EURL)?;
                let (user, pwd) = (&userinfo[..colon], &userinfo[colon + 1..]);
                if user.is_empty() || pwd.is_empty() {
                    return Err(NcError::EURL);
                }
                uri.user = Some(decode(user));
                uri.password = Some(decode(pwd));
                host = &host[at + 1..];
            }
            if let Some(colon) = host.iter().position(|&c| c == b':') {
                let port = &host[colon + 1..];
                host = &host[..colon];
                if host.is_empty() || port.is_empty() || !port.iter().all(|&c| c.is_ascii_digit() || c == b'-') {
                    return Err(NcError::EURL);
                }
                uri.port = Some(port.to_vec());
            }
            uri.host = Some(host.to_vec());
        }
    }
    uri.fraglist = Some(params).filter(|p| !p.is_empty());
    uri.querylist = querylist;
    uri.ensure_query();
    uri.ensure_fragment();
    Ok(uri)
}

impl Uri {
    /// Bring the query string and list into agreement (netcdf-c's
    /// `ensurequerylist`): an empty string is none; a missing list is
    /// parsed from the string, a missing string built from the list.
    /// Returns whether anything changed.
    pub fn ensure_query(&mut self) -> bool {
        ensure(&mut self.query, &mut self.querylist)
    }

    /// The same for the fragment.
    pub fn ensure_fragment(&mut self) -> bool {
        ensure(&mut self.fragment, &mut self.fraglist)
    }

    /// `ncuribuild`: the URL text, `prefix` before and `suffix` after the
    /// path, the parts chosen by `flags`.
    pub fn build(&mut self, prefix: &[u8], suffix: &[u8], flags: i32) -> Vec<u8> {
        let mut out = prefix.to_vec();
        out.extend(self.protocol.as_deref().unwrap_or_default());
        out.extend_from_slice(b"://");
        if flags & NCURIPWD != 0
            && let (Some(user), Some(pwd)) = (&self.user, &self.password)
        {
            out.extend(encode(user, USERPWD_ALLOW));
            out.push(b':');
            out.extend(encode(pwd, USERPWD_ALLOW));
            out.push(b'@');
        }
        if let Some(host) = &self.host {
            out.extend_from_slice(host);
        }
        if let Some(port) = &self.port {
            out.push(b':');
            out.extend_from_slice(port);
        }
        if flags & NCURIPATH != 0 {
            match &self.path {
                None => out.push(b'/'),
                Some(p) if flags & NCURIENCODEPATH != 0 => out.extend(encode(p, PATH_ALLOW)),
                Some(p) => out.extend_from_slice(p),
            }
        }
        out.extend_from_slice(suffix);
        if flags & NCURIQUERY != 0 {
            self.ensure_query();
            if let Some(q) = &self.query {
                out.push(b'?');
                if flags & NCURIENCODEQUERY != 0 {
                    out.extend(encode(q, QUERY_ALLOW));
                } else {
                    out.extend_from_slice(q);
                }
            }
        }
        if flags & NCURIFRAG != 0 {
            self.ensure_fragment();
            if let Some(f) = &self.fragment {
                out.push(b'#');
                out.extend_from_slice(f);
            }
        }
        out
    }

    /// `ncuriappendfragmentkey`: set `key` (an existing key, case ignored,
    /// gets the new value) and rebuild the fragment, values unencoded.
    /// A missing value is stored as empty.
    ///
    /// netcdf-c 4.9.0 prefixes the rebuilt fragment with `#` (so
    /// `ncuribuild` then writes `##`), crashes on a URL without a fragment
    /// and on a NULL value for an existing key; none of that is reproduced.
    pub fn append_fragment_key(&mut self, key: &[u8], value: Option<&[u8]>) {
        self.ensure_fragment();
        let value = value.unwrap_or_default().to_vec();
        let list = self.fraglist.get_or_insert_with(Vec::new);
        match list.iter_mut().find(|(k, _)| eq_ci(k, key)) {
            Some(pair) => pair.1 = value,
            None => list.push((key.to_vec(), value)),
        }
        self.fragment = Some(join_params(list, false));
    }
}

fn ensure(text: &mut Option<Vec<u8>>, list: &mut Option<Params>) -> bool {
    let mut changed = false;
    if text.as_ref().is_some_and(|t| t.is_empty()) {
        *text = None;
        changed = true;
    }
    match (text.as_ref(), list.as_ref()) {
        (Some(t), None) => {
            let mut parsed = parse_params(t);
            remove_conflicts(&mut parsed);
            *list = Some(parsed);
            true
        }
        (None, Some(l)) if !l.is_empty() => {
            *text = Some(join_params(l, true));
            true
        }
        _ => changed,
    }
}

/// `nc__testurl`: for a URL with a path, the last path segment without
/// its extension (the dataset name ncdump prints); None when `path` is
/// not a URL or that name would be empty. (netcdf-c 4.9.0 crashes on a
/// URL without a path.)
pub fn test_url(path: &[u8]) -> Option<Vec<u8>> {
    let uri = parse(path).ok()?;
    let p = uri.path.filter(|p| !p.is_empty())?;
    let base = match p.iter().rposition(|&c| c == b'/') {
        Some(i) => &p[i + 1..],
        None => &p[..],
    };
    let base = match base.iter().rposition(|&c| c == b'.') {
        Some(i) => &base[..i],
        None => base,
    };
    (!base.is_empty()).then(|| base.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(b: &Option<Vec<u8>>) -> Option<&str> {
        b.as_deref().map(|b| std::str::from_utf8(b).unwrap())
    }

    #[test]
    fn file_urls() {
        let u = parse(b"file:///p/d.zarr#mode=nczarr,file").unwrap();
        assert_eq!((s(&u.protocol), s(&u.host), s(&u.path)), (Some("file"), None, Some("/p/d.zarr")));
        assert_eq!(s(&u.fragment), Some("mode=nczarr,file"));
        assert_eq!(u.fraglist, Some(vec![(b"mode".to_vec(), b"nczarr,file".to_vec())]));
        assert_eq!(s(&parse(b"file://rel.zarr").unwrap().path), Some("rel.zarr"));
        assert_eq!(s(&parse(b"file:/abs").unwrap().path), Some("/abs"));
        assert_eq!(s(&parse(b"file:c:/x").unwrap().path), Some("c:/x"));
        assert_eq!(s(&parse(b"file://C:/x").unwrap().path), Some("C:/x"));
        for bad in [&b"file:"[..], b"file:/", b"file://a", b"file:////x", b"file:x", b"file://"] {
            assert_eq!(parse(bad), Err(NcError::EURL), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn network_urls() {
        let u = parse(b"https://us%40r:p%3Aw@host.org:8080/a/b.nc?x=1&y#mode=a b&log").unwrap();
        assert_eq!(s(&u.user), Some("us@r"));
        assert_eq!(s(&u.password), Some("p:w"));
        assert_eq!((s(&u.host), s(&u.port), s(&u.path)), (Some("host.org"), Some("8080"), Some("/a/b.nc")));
        assert_eq!(s(&u.query), Some("x=1&y"));
        assert_eq!(s(&u.fragment), Some("mode=a%20b&log"));
        let mut u = u;
        assert_eq!(
            u.build(b"", b".dds", NCURIALL_FOR_TEST),
            b"https://us%40r:p%3aw@host.org:8080/a/b.nc.dds?x=1&y#mode=a%20b&log".to_vec()
        );
        assert_eq!(u.build(b"[x]", b"", 0), b"[x]https://host.org:8080".to_vec());
        assert_eq!(s(&parse(b"http://h").unwrap().path), None);
        for bad in [
            &b"http:/h"[..],
            b"http://@h",
            b"http://u@h",
            b"http://:p@h",
            b"http://h:",
            b"http://h:8x",
            b"nocolon",
            b":x",
        ] {
            assert_eq!(parse(bad), Err(NcError::EURL), "{}", String::from_utf8_lossy(bad));
        }
    }

    const NCURIALL_FOR_TEST: i32 = NCURIPATH | NCURIPWD | NCURIQUERY | NCURIFRAG;

    #[test]
    fn prefix_and_conflicting_keys() {
        let u = parse(b"[log][mode=dap2]http://h/p#mode=zarr&x=1&X=1&log").unwrap();
        assert_eq!(s(&u.fragment), Some("log&mode=dap2&x=1&X=1&log"));
        assert_eq!(parse(b"[a http://h/p"), Err(NcError::EURL));
        let u = parse(b"file:///p#&&a&").unwrap();
        assert_eq!(s(&u.fragment), Some("&&a"));
    }

    #[test]
    fn escapes_and_controls() {
        let u = parse(b"file:///a\\#b#m\\&n=1&o").unwrap();
        assert_eq!(s(&u.path), Some("/a\\#b"));
        assert_eq!(s(&u.fragment), Some("m\\&n=1&o"));
        let u = parse(b"file:///a\\\\b\n#x").unwrap();
        assert_eq!(s(&u.path), Some("/a\\b"));
        assert_eq!(u.uri, b"file:///a\\\\b\n#x".to_vec());
        assert_eq!(s(&parse("file:///données".as_bytes()).unwrap().path), Some("/données"));
        // A trailing backslash does not run past the end.
        assert_eq!(s(&parse(b"file:///p#a\\").unwrap().fragment), Some("a\\"));
    }

    #[test]
    fn append_fragment_key() {
        let mut u = parse(b"http://h/p#mode=dap2").unwrap();
        u.append_fragment_key(b"cache", None);
        assert_eq!(u.build(b"", b"", NCURIALL_FOR_TEST), b"http://h/p#mode=dap2&cache".to_vec());
        u.append_fragment_key(b"MODE", Some(b"zarr"));
        assert_eq!(s(&u.fragment), Some("mode=zarr&cache"));
        let mut u = parse(b"http://h/p").unwrap();
        u.append_fragment_key(b"k", Some(b"v w"));
        assert_eq!(u.build(b"", b"", NCURIALL_FOR_TEST), b"http://h/p#k=v w".to_vec());
    }

    #[test]
    fn testurl_names() {
        assert_eq!(test_url(b"file:///p/d.zarr#mode=nczarr,file"), Some(b"d".to_vec()));
        assert_eq!(test_url(b"file://d.x.zarr"), Some(b"d.x".to_vec()));
        assert_eq!(test_url(b"/p/d.zarr"), None);
        assert_eq!(test_url(b"http://h"), None);
        assert_eq!(test_url(b"http://h/p/.zarr"), None);
        assert_eq!(test_url(b"http://h/p/"), None);
    }

    #[test]
    fn codec() {
        assert_eq!(decode(b"%41%4g%"), b"A%4g%".to_vec());
        assert_eq!(encode("é ".as_bytes(), PATH_ALLOW), b"%c3%a9%20".to_vec());
    }
}
