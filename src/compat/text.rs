//! Small text helpers netcdf-c 4.9.0 exports to its utilities:
//! `NC_shellUnescape`, `NCpathcanonical` and `nc_utf8_to_utf16`.

use crate::error::{NcError, NcResult};

/// `NC_shellUnescape`: drop each `\` that precedes a `#` (a URL fragment
/// escaped for the shell).
pub fn shell_unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for (i, &c) in s.iter().enumerate() {
        if !(c == b'\\' && s.get(i + 1) == Some(&b'#')) {
            out.push(c);
        }
    }
    out
}

/// `NCpathcanonical`: netcdf-c's "canonical" (Cygwin-style) form of a
/// path, as computed on a Unix host (no MSYS2 mount point): backslashes
/// become slashes; `D:` or `D:/...` becomes `/cygdrive/D/...`; a network
/// path `//x` becomes `/cygdrive///x`; Unix, `/cygdrive/D/...` and
/// relative paths (URLs included) are otherwise unchanged.
pub fn path_canonical(path: &[u8]) -> Vec<u8> {
    let p: Vec<u8> = path.iter().map(|&c| if c == b'\\' { b'/' } else { c }).collect();
    let is_drive = |c: u8| c.is_ascii_alphabetic() || c == b'/';
    let cygdrive = |drive: u8, rest: &[u8]| [&b"/cygdrive/"[..], &[drive], rest].concat();
    if p.starts_with(b"//") {
        // Windows network path; netcdf-c uses '/' as its drive letter.
        let rest = if p.len() == 2 { &[][..] } else { &p[1..] };
        cygdrive(b'/', rest)
    } else if p.len() >= 11 && p.starts_with(b"/cygdrive/") && is_drive(p[10]) && (p.len() == 11 || p[11] == b'/') {
        p
    } else if p.len() >= 2 && is_drive(p[0]) && p[1] == b':' && (p.len() == 2 || p[2] == b'/') {
        cygdrive(p[0], &p[2..])
    } else {
        p
    }
}

/// `nc_utf8_to_utf16`: UTF-16 code units of UTF-8 text. Invalid UTF-8 and
/// code points above U+FFFF are NC_EBADNAME (netcdf-c emits no surrogate
/// pairs).
pub fn utf8_to_utf16(s: &[u8]) -> NcResult<Vec<u16>> {
    let text = std::str::from_utf8(s).map_err(|_| NcError::EBADNAME)?;
    text.chars().map(|c| u16::try_from(u32::from(c)).map_err(|_| NcError::EBADNAME)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape() {
        assert_eq!(shell_unescape(br"file:///p\#mode=zarr\\x\"), br"file:///p#mode=zarr\\x\".to_vec());
        assert_eq!(shell_unescape(br"\\#"), br"\#".to_vec());
        assert_eq!(shell_unescape(b""), b"".to_vec());
    }

    #[test]
    fn canonical_paths() {
        let c = |s: &str| String::from_utf8(path_canonical(s.as_bytes())).unwrap();
        assert_eq!(c("/home/u/d.zarr"), "/home/u/d.zarr");
        assert_eq!(c("rel\\d.zarr"), "rel/d.zarr");
        assert_eq!(c("file:///p/d.zarr#mode=nczarr,file"), "file:///p/d.zarr#mode=nczarr,file");
        assert_eq!(c("c:\\data\\x"), "/cygdrive/c/data/x");
        assert_eq!(c("D:"), "/cygdrive/D");
        assert_eq!(c("/cygdrive/e/x"), "/cygdrive/e/x");
        assert_eq!(c("//server/share"), "/cygdrive///server/share");
        assert_eq!(c("//"), "/cygdrive//");
        assert_eq!(c("c:x"), "c:x");
        assert_eq!(c(""), "");
    }

    #[test]
    fn utf16() {
        assert_eq!(utf8_to_utf16("aé€".as_bytes()).unwrap(), vec![0x61, 0xe9, 0x20ac]);
        assert_eq!(utf8_to_utf16("😀".as_bytes()), Err(NcError::EBADNAME));
        assert_eq!(utf8_to_utf16(b"\xc3"), Err(NcError::EBADNAME));
        assert_eq!(utf8_to_utf16(b"\xed\xa0\x80"), Err(NcError::EBADNAME));
        assert_eq!(utf8_to_utf16(b"\xc0\x80"), Err(NcError::EBADNAME));
        assert!(utf8_to_utf16(b"").unwrap().is_empty());
    }
}
