//! Validation of netCDF object names (`NC_check_name` plus NFC
//! normalisation, as netcdf-c does before storing a name).

use unicode_normalization::UnicodeNormalization;

use crate::error::{NcError, NcResult};

pub const NC_MAX_NAME: usize = 256;

/// Check a name from C and return its normalised (NFC) form.
pub fn check_name(raw: &[u8]) -> NcResult<String> {
    let name = std::str::from_utf8(raw).map_err(|_| NcError::EBADNAME)?;
    if name.is_empty() || name.contains('/') {
        return Err(NcError::EBADNAME);
    }
    let first = name.chars().next().unwrap_or(' ');
    if first.is_ascii() && !(first.is_ascii_alphanumeric() || first == '_') {
        return Err(NcError::EBADNAME);
    }
    if name.chars().skip(1).any(|c| c.is_ascii() && (c < ' ' || c == '\x7f')) {
        return Err(NcError::EBADNAME);
    }
    let last = name.chars().last().unwrap_or(' ');
    if last.is_ascii_whitespace() {
        return Err(NcError::EBADNAME);
    }
    let normalised: String = name.nfc().collect();
    if normalised.len() > NC_MAX_NAME {
        return Err(NcError::EMAXNAME);
    }
    Ok(normalised)
}

/// A variable's or group's name, which also names its objects in storage:
/// [`check_name`], and no backslash. netcdf-c allows one, but it is a path
/// separator to Windows and to many zip tools, so a store holding one
/// could not be copied or unpacked safely; storage keys refuse it, and the
/// name is refused here, when defined, instead of at close.
pub fn check_key_name(raw: &[u8]) -> NcResult<String> {
    let name = check_name(raw)?;
    if name.contains('\\') {
        return Err(NcError::EBADNAME);
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_netcdf_names() {
        for ok in ["t", "_x", "3d", "a b", "temp-2.5", "données", "a+b"] {
            assert!(check_name(ok.as_bytes()).is_ok(), "{ok}");
        }
    }

    #[test]
    fn rejects_bad_names() {
        for bad in ["", "a/b", " a", "a ", "-a", "a\tb", "a\x7f"] {
            assert_eq!(check_name(bad.as_bytes()), Err(NcError::EBADNAME), "{bad:?}");
        }
        assert_eq!(check_name(b"\xff\xfe"), Err(NcError::EBADNAME));
        assert_eq!(check_name("x".repeat(257).as_bytes()), Err(NcError::EMAXNAME));
        assert!(check_name("x".repeat(256).as_bytes()).is_ok());
    }

    #[test]
    fn key_names_have_no_backslash() {
        assert_eq!(check_key_name(b"a\\b"), Err(NcError::EBADNAME));
        assert!(check_name(b"a\\b").is_ok(), "attribute and dimension names may");
        assert!(check_key_name(b"a.b").is_ok());
    }

    #[test]
    fn normalises_to_nfc() {
        let decomposed = "e\u{301}";
        assert_eq!(check_name(decomposed.as_bytes()).unwrap(), "\u{e9}");
    }
}
