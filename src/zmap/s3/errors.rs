//! What an S3 reply that is not a success means for the caller, as a
//! netCDF error code. The XML body's `<Code>` decides where the status
//! alone is ambiguous (a 404 for a missing key versus a missing bucket).

use super::http::Reply;
use crate::error::NcError;
use crate::zmap::trace;

/// Codes that mean the request was refused for its credentials.
const ACCESS_CODES: &[&str] = &[
    "AccessDenied",
    "SignatureDoesNotMatch",
    "InvalidAccessKeyId",
    "ExpiredToken",
    "InvalidToken",
    "TokenRefreshRequired",
    "AllAccessDisabled",
];

/// Codes worth another attempt whatever the status says.
pub const TRANSIENT_CODES: &[&str] =
    &["SlowDown", "InternalError", "RequestTimeout", "ServiceUnavailable", "RequestTimeTooSkewed"];

/// Is this reply "no such object" (and not "no such bucket")?
pub fn is_missing_object(reply: &Reply) -> bool {
    reply.status == 404 && reply.code().as_deref() != Some("NoSuchBucket")
}

/// The netCDF error for a reply the operation did not expect. `what`
/// names the request in the trace (a key, never a URL).
pub fn reply_error(reply: &Reply, what: &str) -> NcError {
    let code = reply.code();
    let err = classify(reply.status, code.as_deref());
    if matches!(reply.status, 301 | 307 | 400) || code.as_deref() == Some("PermanentRedirect") {
        // A wrong region: say which one the bucket is in.
        let wanted = reply
            .header("x-amz-bucket-region")
            .map(str::to_string)
            .or_else(|| std::str::from_utf8(&reply.body).ok().and_then(|b| super::xml::tag_text(b, "Region")));
        if let Some(region) = wanted {
            trace::log(1, format_args!("s3 {what}: the bucket is in region {region}; add #aws.region={region}"));
        }
    }
    trace::log(
        trace::ATTEMPT_LEVEL,
        format_args!("s3 {what} failed: status={} code={}", reply.status, code.as_deref().unwrap_or("-")),
    );
    err
}

fn classify(status: u16, code: Option<&str>) -> NcError {
    match (status, code) {
        (_, Some(c)) if ACCESS_CODES.contains(&c) => NcError::EACCESS,
        (401 | 403, _) => NcError::EACCESS,
        (_, Some("NoSuchBucket")) => NcError::ENOTFOUND,
        _ => NcError::ES3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(status: u16, body: &str) -> Reply {
        Reply { status, headers: Default::default(), body: body.as_bytes().to_vec() }
    }

    #[test]
    fn mapping() {
        let e = |status, code: &str| reply_error(&reply(status, &format!("<Error><Code>{code}</Code></Error>")), "k");
        assert_eq!(e(403, "AccessDenied"), NcError::EACCESS);
        assert_eq!(e(403, "SignatureDoesNotMatch"), NcError::EACCESS);
        assert_eq!(e(403, "InvalidAccessKeyId"), NcError::EACCESS);
        assert_eq!(e(400, "ExpiredToken"), NcError::EACCESS);
        assert_eq!(e(404, "NoSuchBucket"), NcError::ENOTFOUND);
        assert_eq!(e(301, "PermanentRedirect"), NcError::ES3);
        assert_eq!(e(500, "InternalError"), NcError::ES3);
        assert_eq!(reply_error(&reply(403, ""), "k"), NcError::EACCESS);
    }

    #[test]
    fn missing_object_versus_bucket() {
        assert!(is_missing_object(&reply(404, "<Error><Code>NoSuchKey</Code></Error>")));
        assert!(is_missing_object(&reply(404, "")));
        assert!(!is_missing_object(&reply(404, "<Error><Code>NoSuchBucket</Code></Error>")));
        assert!(!is_missing_object(&reply(403, "")));
    }
}
