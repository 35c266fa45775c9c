//! Writing objects: one PUT, or a multipart upload above the threshold
//! (parts sent concurrently; the upload aborted if anything fails, so no
//! invisible parts are left to be billed).

use rusty_s3::actions::{CompleteMultipartUpload, CreateMultipartUpload};
use rusty_s3::{Method, S3Action};

use super::{S3Map, SIGN_FOR, errors};
use crate::error::{NcError, NcResult};

/// Always sent: some servers (moto) store an empty object for a form
/// content type, and S3 would label the object with it.
const CONTENT_TYPE: (&str, &str) = ("Content-Type", "application/octet-stream");

fn octet_stream() -> Vec<(&'static str, String)> {
    vec![(CONTENT_TYPE.0, CONTENT_TYPE.1.to_string())]
}

impl S3Map {
    pub(super) fn put_object(&self, key: &str, data: &[u8]) -> NcResult<()> {
        let obj = self.object_key(key)?;
        if data.len() as u64 > self.http.settings().multipart_threshold {
            return self.put_multipart(key, &obj, data);
        }
        let reply =
            self.send(Method::Put, key, octet_stream(), data, &|c| self.bucket.put_object(c, &obj).sign(SIGN_FOR))?;
        match reply.status {
            200 | 201 | 204 => Ok(()),
            _ => Err(errors::reply_error(&reply, key)),
        }
    }

    fn put_multipart(&self, key: &str, obj: &str, data: &[u8]) -> NcResult<()> {
        let part_size = self.http.settings().part_size as usize;
        let parts: Vec<(u16, &[u8])> = data
            .chunks(part_size)
            .enumerate()
            .map(|(i, p)| u16::try_from(i + 1).map(|n| (n, p)))
            .collect::<Result<_, _>>()
            // S3 allows 10000 parts: a bigger part size is needed.
            .map_err(|_| NcError::EINVAL)?;
        if parts.len() > 10_000 {
            return Err(NcError::EINVAL);
        }
        let what = format!("{key} (multipart create)");
        let reply = self.send(Method::Post, &what, octet_stream(), &[], &|c| {
            self.bucket.create_multipart_upload(c, obj).sign(SIGN_FOR)
        })?;
        if reply.status != 200 {
            return Err(errors::reply_error(&reply, &what));
        }
        let text = std::str::from_utf8(&reply.body).map_err(|_| NcError::ES3)?;
        let created = CreateMultipartUpload::parse_response(text).map_err(|_| NcError::ES3)?;
        let upload_id = created.upload_id().to_string();

        let result = self
            .upload_parts(key, obj, &upload_id, &parts)
            .and_then(|etags| self.complete_multipart(key, obj, &upload_id, &etags));
        if result.is_err() {
            let what = format!("{key} (multipart abort)");
            // Best effort: the error to report is the one that made us abort.
            let _ = self.send(Method::Delete, &what, Vec::new(), &[], &|c| {
                self.bucket.abort_multipart_upload(c, obj, &upload_id).sign(SIGN_FOR)
            });
        }
        result
    }

    fn upload_parts(&self, key: &str, obj: &str, upload_id: &str, parts: &[(u16, &[u8])]) -> NcResult<Vec<String>> {
        crate::workers::map(parts, self.concurrency_now(), |&(number, bytes)| {
            let what = format!("{key} (part {number})");
            let reply = self.send(Method::Put, &what, octet_stream(), bytes, &|c| {
                self.bucket.upload_part(c, obj, number, upload_id).sign(SIGN_FOR)
            })?;
            if reply.status != 200 {
                return Err(errors::reply_error(&reply, &what));
            }
            reply.header("etag").map(str::to_string).ok_or(NcError::ES3)
        })
    }

    fn complete_multipart(&self, key: &str, obj: &str, upload_id: &str, etags: &[String]) -> NcResult<()> {
        let what = format!("{key} (multipart complete)");
        let creds = self.credentials()?;
        let body = self
            .bucket
            .complete_multipart_upload(creds.as_ref(), obj, upload_id, etags.iter().map(String::as_str))
            .body();
        let reply = self.send(
            Method::Post,
            &what,
            vec![("Content-Type", "application/xml".to_string())],
            body.as_bytes(),
            &|c| {
                let action: CompleteMultipartUpload<'_, _> =
                    self.bucket.complete_multipart_upload(c, obj, upload_id, etags.iter().map(String::as_str));
                action.sign(SIGN_FOR)
            },
        )?;
        // S3 may answer 200 and still fail, with an <Error> body.
        let failed = std::str::from_utf8(&reply.body).map_or(true, |b| b.contains("<Error>"));
        if reply.status != 200 || failed {
            return Err(errors::reply_error(&reply, &what));
        }
        Ok(())
    }
}
