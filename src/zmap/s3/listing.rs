//! Listing (ListObjectsV2, every page) and deleting many objects
//! (DeleteObjects, 1000 keys a request, per-key errors checked).

use rusty_s3::S3Action;
use rusty_s3::actions::{DeleteObjectsResponse, ListObjectsV2, ObjectIdentifier};

use super::{S3Map, SIGN_FOR, errors};
use crate::error::{NcError, NcResult};

/// S3's limit of keys per DeleteObjects request.
const DELETE_BATCH: usize = 1000;

/// One listing's objects (full keys) and common prefixes.
#[derive(Default, Debug)]
pub struct Listing {
    pub keys: Vec<String>,
    pub prefixes: Vec<String>,
}

/// The immediate child names under `dir` (which ends in `/` or is
/// empty) of a delimited listing, sorted and without duplicates.
pub fn child_names(dir: &str, listing: &Listing) -> Vec<String> {
    let mut names: Vec<String> = listing
        .keys
        .iter()
        .chain(&listing.prefixes)
        .filter_map(|k| k.strip_prefix(dir))
        .filter_map(|rest| rest.split('/').next())
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

impl S3Map {
    /// Every object and (with `delimited`) common prefix whose key starts
    /// with `prefix`, following continuation tokens; at most `limit`
    /// objects when given (a single page).
    pub(super) fn list_objects(&self, prefix: &str, delimited: bool, limit: Option<usize>) -> NcResult<Listing> {
        let mut out = Listing::default();
        let mut token: Option<String> = None;
        loop {
            let reply = self.send(rusty_s3::Method::Get, &format!("list {prefix}"), Vec::new(), &[], &|c| {
                let mut action: ListObjectsV2 = self.bucket.list_objects_v2(c);
                // Raw keys in the XML: some servers (s3s-fs) echo
                // `encoding-type=url` but send keys unencoded, and decoding
                // those turns `+` into a space. Dataset keys never hold the
                // control characters the encoding exists for.
                action.query_mut().remove("encoding-type");
                if !prefix.is_empty() {
                    action.with_prefix(prefix);
                }
                if delimited {
                    action.with_delimiter("/");
                }
                if let Some(n) = limit {
                    action.with_max_keys(n);
                }
                if let Some(t) = &token {
                    action.with_continuation_token(t.as_str());
                }
                action.sign(SIGN_FOR)
            })?;
            if reply.status != 200 {
                return Err(errors::reply_error(&reply, &format!("list {prefix}")));
            }
            let text = std::str::from_utf8(&reply.body).map_err(|_| NcError::ES3)?;
            let page = ListObjectsV2::parse_response(text).map_err(|_| NcError::ES3)?;
            out.keys.extend(page.contents.into_iter().map(|c| c.key));
            out.prefixes.extend(page.common_prefixes.into_iter().map(|p| p.prefix));
            token = page.next_continuation_token;
            if token.is_none() || limit.is_some() {
                return Ok(out);
            }
        }
    }

    /// Delete these objects (full keys), a batch per request.
    pub(super) fn delete_objects(&self, keys: &[String]) -> NcResult<()> {
        let batches: Vec<&[String]> = keys.chunks(DELETE_BATCH).collect();
        crate::workers::map(&batches, self.concurrency_now().min(4), |batch| self.delete_batch(batch))?;
        Ok(())
    }

    fn delete_batch(&self, keys: &[String]) -> NcResult<()> {
        let ids: Vec<ObjectIdentifier> = keys.iter().map(|k| ObjectIdentifier::new(k.clone())).collect();
        let creds = self.credentials()?;
        let mut action = self.bucket.delete_objects(creds.as_ref(), ids.iter());
        // Quiet: the reply lists only the keys that failed.
        action.set_quiet(true);
        let (body, md5) = action.body_with_md5();
        let what = format!("delete {} objects", keys.len());
        let reply = self.send(rusty_s3::Method::Post, &what, vec![("Content-MD5", md5)], body.as_bytes(), &|c| {
            self.bucket.delete_objects(c, ids.iter()).sign(SIGN_FOR)
        })?;
        if reply.status != 200 {
            return Err(errors::reply_error(&reply, &what));
        }
        let text = std::str::from_utf8(&reply.body).map_err(|_| NcError::ES3)?;
        let result = DeleteObjectsResponse::parse(text).map_err(|_| NcError::ES3)?;
        let mut failure = None;
        for e in result.errors.iter().filter(|e| e.code != "NoSuchKey") {
            crate::zmap::trace::log(
                crate::zmap::trace::ATTEMPT_LEVEL,
                format_args!("s3 delete {} failed: code={}", e.key, e.code),
            );
            let code = if e.code == "AccessDenied" { NcError::EACCESS } else { NcError::ES3 };
            failure.get_or_insert(code);
        }
        failure.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_of_a_delimited_listing() {
        let listing = Listing {
            keys: vec!["r/g/.zgroup".into(), "r/g/b".into(), "r/g/a".into()],
            prefixes: vec!["r/g/v/".into(), "r/g/a/".into()],
        };
        assert_eq!(child_names("r/g/", &listing), vec![".zgroup", "a", "b", "v"]);
        let top = Listing { keys: vec!["x".into()], prefixes: vec!["d/".into()] };
        assert_eq!(child_names("", &top), vec!["d", "x"]);
    }

    #[test]
    fn listing_pages_parse() {
        let page = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>r/</Prefix>
<KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>
<NextContinuationToken>tok</NextContinuationToken>
<Contents><Key>r/a b+c%41&amp;</Key><Size>3</Size></Contents>
<CommonPrefixes><Prefix>r/é/</Prefix></CommonPrefixes></ListBucketResult>"#;
        let parsed = ListObjectsV2::parse_response(page).unwrap();
        // Not URL-encoded (we do not ask for it): taken as is.
        assert_eq!(parsed.contents[0].key, "r/a b+c%41&");
        assert_eq!(parsed.common_prefixes[0].prefix, "r/é/");
        assert_eq!(parsed.next_continuation_token.as_deref(), Some("tok"));
    }
}
