//! Per-dataset S3 settings: each comes from the URL fragment (lower-case
//! key), else from `.ncrc` (upper-case key, looked up for the endpoint's
//! host), else a default. A value that does not parse is NC_EINVAL when
//! the dataset is opened, not a surprise at the first request.

use std::time::Duration;

use crate::error::{NcError, NcResult};

/// A lookup of one configuration name (`.ncrc` key or environment variable).
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

const MIB: u64 = 1024 * 1024;
/// S3's smallest part (all but the last) and largest part.
const MIN_PART: u64 = 5 * MIB;
const MAX_PART: u64 = 5 * 1024 * MIB;

#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Time to set up one connection (`http.connecttimeout`, 10 s).
    pub connect_timeout: Duration,
    /// Longest silence while waiting for any byte of a response
    /// (`http.timeout`, 30 s), per attempt.
    pub read_timeout: Duration,
    /// No attempt starts this long after an operation's first (twice the
    /// read timeout), so one operation fails within about three read
    /// timeouts even against a server that accepts and never answers.
    pub deadline: Duration,
    /// Requests in flight at once for one call (`s3.concurrency`, 64).
    pub concurrency: usize,
    /// Byte ranges of one object at most this far apart are fetched by
    /// one GET (`s3.merge_gap`, 1 MiB: about what a request's latency
    /// would carry on one connection to S3).
    pub merge_gap: u64,
    /// Attempts per request, the first included (`s3.retries`, 8).
    pub attempts: u32,
    /// Objects larger than this are written by multipart upload
    /// (`s3.multipart_threshold`, 64 MiB).
    pub multipart_threshold: u64,
    /// Size of each uploaded part but the last (`s3.multipart_partsize`,
    /// 16 MiB, at least S3's 5 MiB).
    pub part_size: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            deadline: Duration::from_secs(60),
            concurrency: 64,
            merge_gap: MIB,
            attempts: 8,
            multipart_threshold: 64 * MIB,
            part_size: 16 * MIB,
        }
    }
}

impl Settings {
    /// The settings for a dataset with fragment `params` (lower-case
    /// keys) and `.ncrc` entries reached through `rc`.
    pub fn resolve(params: &[(String, String)], rc: Lookup) -> NcResult<Settings> {
        let get = |fragment_key: &str| -> Option<String> {
            params
                .iter()
                .rev()
                .find(|(k, _)| k == fragment_key)
                .map(|(_, v)| v.clone())
                .or_else(|| rc(&fragment_key.to_ascii_uppercase()))
        };
        let mut s = Settings::default();
        if let Some(v) = get("http.connecttimeout") {
            s.connect_timeout = seconds(&v)?;
        }
        if let Some(v) = get("http.timeout") {
            s.read_timeout = seconds(&v)?;
        }
        s.deadline = s.read_timeout * 2;
        if let Some(v) = get("s3.concurrency") {
            s.concurrency = integer(&v, 1, 1024)? as usize;
        }
        if let Some(v) = get("s3.merge_gap") {
            s.merge_gap = integer(&v, 0, u64::MAX)?;
        }
        if let Some(v) = get("s3.retries") {
            s.attempts = integer(&v, 1, 100)? as u32;
        }
        if let Some(v) = get("s3.multipart_threshold") {
            s.multipart_threshold = integer(&v, 1, u64::MAX)?;
        }
        if let Some(v) = get("s3.multipart_partsize") {
            s.part_size = integer(&v, MIN_PART, MAX_PART)?;
        }
        Ok(s)
    }
}

/// A positive number of seconds (fractions allowed), at most a day.
fn seconds(v: &str) -> NcResult<Duration> {
    let secs: f64 = v.trim().parse().map_err(|_| NcError::EINVAL)?;
    if !(secs > 0.0 && secs <= 86_400.0) {
        return Err(NcError::EINVAL);
    }
    Ok(Duration::from_secs_f64(secs))
}

fn integer(v: &str, min: u64, max: u64) -> NcResult<u64> {
    let n: u64 = v.trim().parse().map_err(|_| NcError::EINVAL)?;
    if n < min || n > max {
        return Err(NcError::EINVAL);
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn defaults_without_any_setting() {
        assert_eq!(Settings::resolve(&[], &|_| None).unwrap(), Settings::default());
    }

    #[test]
    fn fragment_beats_rc_beats_default() {
        let rc = |k: &str| match k {
            "HTTP.TIMEOUT" => Some("5".to_string()),
            "S3.CONCURRENCY" => Some("3".to_string()),
            "S3.RETRIES" => Some("2".to_string()),
            _ => None,
        };
        let s = Settings::resolve(
            &params(&[("s3.concurrency", "7"), ("http.connecttimeout", "1.5"), ("s3.merge_gap", "0")]),
            &rc,
        )
        .unwrap();
        assert_eq!(s.concurrency, 7);
        assert_eq!(s.merge_gap, 0);
        assert_eq!(s.attempts, 2);
        assert_eq!(s.read_timeout, Duration::from_secs(5));
        assert_eq!(s.deadline, Duration::from_secs(10));
        assert_eq!(s.connect_timeout, Duration::from_millis(1500));
    }

    #[test]
    fn bad_values_are_einval() {
        for (k, v) in [
            ("http.timeout", "0"),
            ("http.timeout", "soon"),
            ("http.connecttimeout", "-1"),
            ("s3.concurrency", "0"),
            ("s3.retries", "x"),
            ("s3.multipart_threshold", "-5"),
            ("s3.multipart_partsize", "1024"),
            ("s3.merge_gap", "-1"),
            ("s3.merge_gap", "1k"),
        ] {
            assert_eq!(Settings::resolve(&params(&[(k, v)]), &|_| None), Err(NcError::EINVAL), "{k}={v}");
        }
    }
}
