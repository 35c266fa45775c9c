//! Key syntax shared by every storage driver. A key that could escape the
//! dataset root (`..`, absolute, backslashes, NUL) is rejected here, before
//! any driver sees it.

use crate::error::{NcError, NcResult};

/// Check a key: empty (the root) or `/`-separated non-empty segments, none
/// of them `.` or `..`, with no NUL or backslash anywhere.
pub fn validate_key(key: &str) -> NcResult<()> {
    if key.is_empty() {
        return Ok(());
    }
    if key.contains('\0') || key.contains('\\') {
        return Err(NcError::EINVAL);
    }
    for segment in key.split('/') {
        if segment.is_empty() || segment == "." || segment == ".." {
            return Err(NcError::EINVAL);
        }
    }
    Ok(())
}

/// Join a prefix and a relative key with `/` ("" is the root).
pub fn join(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}/{rest}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        assert!(validate_key("").is_ok());
        assert!(validate_key(".zgroup").is_ok());
        assert!(validate_key("g/v/0.1").is_ok());
        for bad in ["/abs", "a//b", "a/", "..", "a/../b", "./a", "a\\b", "a\0b"] {
            assert_eq!(validate_key(bad), Err(NcError::EINVAL), "{bad}");
        }
    }

    #[test]
    fn joining() {
        assert_eq!(join("", "a"), "a");
        assert_eq!(join("g", ".zattrs"), "g/.zattrs");
        assert_eq!(join("g", ""), "g");
    }
}
