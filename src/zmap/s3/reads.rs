//! Reading objects: whole (GET) or by byte ranges (ranged GET, several
//! at once). No HEAD ever: a ranged GET's `Content-Range` carries the
//! object's size, and a 404 says it is missing.

use super::S3Map;
use super::errors;
use super::http::Reply;
use crate::error::{NcError, NcResult};
use crate::zmap::ranges;

/// What a ranged GET found.
pub enum Ranged {
    Missing,
    /// The requested bytes, and the object's total size.
    Found(Vec<u8>, u64),
}

/// `Content-Range: bytes a-b/total` (`total` may be `*`) or
/// `bytes */total`: (first, last) and total.
#[derive(Debug, PartialEq, Eq)]
pub struct ContentRange {
    pub range: Option<(u64, u64)>,
    pub total: Option<u64>,
}

pub fn parse_content_range(value: &str) -> Option<ContentRange> {
    let rest = value.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    let range = match range.trim() {
        "*" => None,
        r => {
            let (a, b) = r.split_once('-')?;
            let (a, b): (u64, u64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
            if b < a || total.is_some_and(|t| b >= t) {
                return None;
            }
            Some((a, b))
        }
    };
    Some(ContentRange { range, total })
}

impl S3Map {
    /// The whole object, `None` when there is none.
    pub(super) fn get_object(&self, key: &str) -> NcResult<Option<Vec<u8>>> {
        let obj = self.object_key(key)?;
        let reply = self.send_get(key, &obj, None)?;
        match reply.status {
            200 => Ok(Some(reply.body)),
            _ if errors::is_missing_object(&reply) => Ok(None),
            _ => Err(errors::reply_error(&reply, key)),
        }
    }

    fn send_get(&self, key: &str, obj: &str, range: Option<String>) -> NcResult<Reply> {
        let headers = range.map(|r| vec![("Range", r)]).unwrap_or_default();
        self.send(rusty_s3::Method::Get, key, headers, &[], &|c| {
            use rusty_s3::S3Action;
            self.bucket.get_object(c, obj).sign(super::SIGN_FOR)
        })
    }

    /// Bytes `offset..offset+len` (`len` > 0) of the object. Reading past
    /// its end is NC_ENCZARR.
    pub(super) fn fetch_range(&self, key: &str, obj: &str, offset: u64, len: u64) -> NcResult<Ranged> {
        let last = offset.checked_add(len - 1).ok_or(NcError::ENCZARR)?;
        let reply = self.send_get(key, obj, Some(format!("bytes={offset}-{last}")))?;
        match reply.status {
            206 => {
                let cr = reply.header("content-range").and_then(parse_content_range).ok_or(NcError::ES3)?;
                let total = cr.total.ok_or(NcError::ES3)?;
                if total <= last {
                    return Err(NcError::ENCZARR);
                }
                if cr.range != Some((offset, last)) || reply.body.len() as u64 != len {
                    return Err(NcError::ES3);
                }
                Ok(Ranged::Found(reply.body, total))
            }
            // A server that ignores Range sends the whole object.
            200 => {
                let total = reply.body.len() as u64;
                if total <= last {
                    return Err(NcError::ENCZARR);
                }
                let mut body = reply.body;
                body.truncate((last + 1) as usize);
                body.drain(..offset as usize);
                Ok(Ranged::Found(body, total))
            }
            416 => Err(NcError::ENCZARR),
            _ if errors::is_missing_object(&reply) => Ok(Ranged::Missing),
            _ => Err(errors::reply_error(&reply, key)),
        }
    }

    /// The last `len` bytes (`len` > 0) of the object, `None` when there
    /// is none: one suffix-ranged GET (`bytes=-len`). An object shorter
    /// than `len` (the server then sends it whole) is NC_ENCZARR.
    pub(super) fn fetch_suffix(&self, key: &str, len: u64) -> NcResult<Option<Vec<u8>>> {
        let obj = self.object_key(key)?;
        let reply = self.send_get(key, &obj, Some(format!("bytes=-{len}")))?;
        match reply.status {
            206 => {
                let cr = reply.header("content-range").and_then(parse_content_range).ok_or(NcError::ES3)?;
                let (total, (first, last)) = (cr.total.ok_or(NcError::ES3)?, cr.range.ok_or(NcError::ES3)?);
                if total < len {
                    return Err(NcError::ENCZARR);
                }
                if first != total - len || last + 1 != total || reply.body.len() as u64 != len {
                    return Err(NcError::ES3);
                }
                Ok(Some(reply.body))
            }
            // A server that ignores Range sends the whole object.
            200 => {
                let mut body = reply.body;
                let start = body.len().checked_sub(len as usize).ok_or(NcError::ENCZARR)?;
                body.drain(..start);
                Ok(Some(body))
            }
            416 => Err(NcError::ENCZARR),
            _ if errors::is_missing_object(&reply) => Ok(None),
            _ => Err(errors::reply_error(&reply, key)),
        }
    }

    /// The object's size, `None` when there is none: a GET of its first
    /// byte (416 for an empty object).
    pub(super) fn probe(&self, key: &str, obj: &str) -> NcResult<Option<u64>> {
        let reply = self.send_get(key, obj, Some("bytes=0-0".to_string()))?;
        match reply.status {
            206 => {
                let cr = reply.header("content-range").and_then(parse_content_range).ok_or(NcError::ES3)?;
                cr.total.map(Some).ok_or(NcError::ES3)
            }
            200 => Ok(Some(reply.body.len() as u64)),
            416 => {
                Ok(Some(reply.header("content-range").and_then(parse_content_range).and_then(|c| c.total).unwrap_or(0)))
            }
            _ if errors::is_missing_object(&reply) => Ok(None),
            _ => Err(errors::reply_error(&reply, key)),
        }
    }

    /// Several ranges of one object, and the object's size; `None` when
    /// there is no object. The ranges are merged into spans (ranges at
    /// most `s3.merge_gap` apart share one GET, see `zmap/ranges.rs`),
    /// fetched concurrently within the call's budget; when the caller
    /// knows the object's `size` and one GET of all of it saves requests
    /// cheaply, it is fetched whole. Empty ranges send no request of
    /// their own (only a probe when all are empty). Every piece is
    /// fetched and checked before the caller sees any.
    pub(super) fn fetch_ranges(
        &self,
        key: &str,
        ranges: &[(u64, usize)],
        size: Option<u64>,
    ) -> NcResult<Option<Fetched>> {
        let obj = self.object_key(key)?;
        let gap = self.http.settings().merge_gap;
        let spans = ranges::coalesce(ranges, gap)?;
        if spans.is_empty() {
            return match self.probe(key, &obj)? {
                Some(total) if ranges.iter().any(|&(offset, _)| offset > total) => Err(NcError::ENCZARR),
                Some(total) => Ok(Some(Fetched { spans, bodies: Vec::new(), total })),
                None => Ok(None),
            };
        }
        if let Some(size) = size
            && ranges::whole_is_better(&spans, size, gap)
        {
            let Some(body) = self.get_object(key)? else { return Ok(None) };
            let total = body.len() as u64;
            if spans.last().is_some_and(|s| s.end > total) {
                return Err(NcError::ENCZARR);
            }
            let members = spans.iter().flat_map(|s| s.members.iter().copied()).collect();
            let whole = ranges::Span { start: 0, end: total, members };
            return Ok(Some(Fetched { spans: vec![whole], bodies: vec![body], total }));
        }
        let fetched =
            crate::workers::map(&spans, self.concurrency_now(), |s| self.fetch_range(key, &obj, s.start, s.bytes()))?;
        let mut total = None;
        let mut bodies = Vec::with_capacity(spans.len());
        for piece in fetched {
            match piece {
                Ranged::Found(bytes, t) => {
                    // Sizes that differ: the object changed under us.
                    if total.is_some_and(|seen| seen != t) {
                        return Err(NcError::ES3);
                    }
                    total = Some(t);
                    bodies.push(bytes);
                }
                Ranged::Missing => return Ok(None),
            }
        }
        let total = total.ok_or(NcError::EINTERNAL)?;
        if ranges.iter().any(|&(offset, _)| offset > total) {
            return Err(NcError::ENCZARR);
        }
        Ok(Some(Fetched { spans, bodies, total }))
    }
}

/// The pieces a ranged read fetched: one body per span.
pub struct Fetched {
    spans: Vec<ranges::Span>,
    bodies: Vec<Vec<u8>>,
    /// The object's size.
    pub total: u64,
}

impl Fetched {
    /// The bytes of each range asked for, in the order asked (empty
    /// ranges empty).
    pub fn parts<'a>(&'a self, ranges: &[(u64, usize)]) -> NcResult<Vec<&'a [u8]>> {
        let mut out: Vec<&[u8]> = vec![&[]; ranges.len()];
        for (span, body) in self.spans.iter().zip(&self.bodies) {
            for &k in &span.members {
                let (offset, len) = ranges[k];
                let at = usize::try_from(offset - span.start).map_err(|_| NcError::EINTERNAL)?;
                out[k] = body.get(at..at + len).ok_or(NcError::EINTERNAL)?;
            }
        }
        Ok(out)
    }
}

impl S3Map {
    /// A whole object, read with concurrent ranged GETs of `s3.multipart_partsize`
    /// bytes each (a netCDF file moved through memory, src/delegate/remote.rs),
    /// `None` when there is none. One GET of its first byte tells the size
    /// first: an object larger than `max_size` is NC_ENOMEM before any
    /// memory is taken. Each part is written into the result as it arrives
    /// (no second copy); an object that changes size meanwhile is NC_ES3.
    pub fn get_large(&self, key: &str, max_size: u64) -> NcResult<Option<Vec<u8>>> {
        let obj = self.object_key(key)?;
        let Some(total) = self.probe(key, &obj)? else { return Ok(None) };
        if total > max_size {
            return Err(NcError::ENOMEM);
        }
        let size = usize::try_from(total).map_err(|_| NcError::ENOMEM)?;
        let mut out = Vec::new();
        out.try_reserve_exact(size).map_err(|_| NcError::ENOMEM)?;
        out.resize(size, 0u8);
        let part = self.http.settings().part_size.max(1) as usize;
        let parts: Vec<(u64, std::sync::Mutex<&mut [u8]>)> =
            out.chunks_mut(part).enumerate().map(|(i, s)| ((i * part) as u64, std::sync::Mutex::new(s))).collect();
        crate::workers::map(&parts, self.concurrency_now(), |(offset, slot)| {
            let mut slot = slot.lock().map_err(|_| NcError::EINTERNAL)?;
            match self.fetch_range(key, &obj, *offset, slot.len() as u64)? {
                Ranged::Found(bytes, t) if t == total && bytes.len() == slot.len() => {
                    slot.copy_from_slice(&bytes);
                    Ok(())
                }
                Ranged::Found(..) | Ranged::Missing => Err(NcError::ES3),
            }
        })?;
        drop(parts);
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges() {
        let cr = |s| parse_content_range(s);
        assert_eq!(cr("bytes 0-9/100"), Some(ContentRange { range: Some((0, 9)), total: Some(100) }));
        assert_eq!(cr("bytes 5-5/*"), Some(ContentRange { range: Some((5, 5)), total: None }));
        assert_eq!(cr("bytes */0"), Some(ContentRange { range: None, total: Some(0) }));
        assert_eq!(cr(" bytes  10-19 / 20 "), Some(ContentRange { range: Some((10, 19)), total: Some(20) }));
        for bad in ["bytes 9-0/100", "bytes 0-100/100", "items 0-1/2", "bytes 0-1", "bytes a-b/c", ""] {
            assert_eq!(cr(bad), None, "{bad}");
        }
    }
}
