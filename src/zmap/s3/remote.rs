//! Credentials fetched over the network: STS AssumeRoleWithWebIdentity
//! and the EC2 instance metadata service (IMDSv2). Both are cached per
//! process until shortly before they expire, so a dataset's thousands of
//! requests make one fetch; "no metadata service here" is cached too, so
//! machines outside EC2 pay its 1 s timeout once.
//!
//! The cache is process-wide state: it is used inside the call gate
//! (`gate.rs`) and keyed by process id, so a forked child starts afresh.

use std::io::Read;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusty_s3::Credentials;

use super::xml;
use crate::error::{NcError, NcResult};

/// Refetch credentials this long before they expire.
const REFRESH_MARGIN: u64 = 300;
/// Instance metadata answers locally or not at all.
const IMDS_TIMEOUT: Duration = Duration::from_secs(1);

/// A role to assume with a web identity token (`AWS_WEB_IDENTITY_TOKEN_FILE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebIdentity {
    pub token_file: String,
    pub role_arn: String,
    pub session_name: String,
    pub sts_endpoint: String,
}

struct Entry {
    id: String,
    /// `None`: the source has no credentials (no metadata service).
    credentials: Option<Credentials>,
    /// Unix seconds; `None` never expires.
    expires: Option<u64>,
}

struct Cache {
    pid: u32,
    entries: Vec<Entry>,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

type Fetched = (Option<Credentials>, Option<u64>);

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The cached credentials for `id`, fetched by `fetch` when absent or
/// about to expire. The lock is held across the fetch so concurrent
/// requests wait for one fetch instead of each making their own.
fn cached(id: &str, fetch: impl FnOnce() -> NcResult<Fetched>) -> NcResult<Option<Credentials>> {
    let _inside = crate::gate::enter();
    let mut guard = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let pid = crate::gate::process_id();
    let cache = match &mut *guard {
        Some(c) if c.pid == pid => c,
        slot => slot.insert(Cache { pid, entries: Vec::new() }),
    };
    let fresh = |e: &Entry| e.expires.is_none_or(|t| t > now() + REFRESH_MARGIN);
    if let Some(e) = cache.entries.iter().find(|e| e.id == id && fresh(e)) {
        return Ok(e.credentials.clone());
    }
    let (credentials, expires) = fetch()?;
    cache.entries.retain(|e| e.id != id);
    cache.entries.push(Entry { id: id.to_string(), credentials: credentials.clone(), expires });
    Ok(credentials)
}

fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_connect(Some(timeout))
        .timeout_per_read(Some(timeout.max(Duration::from_secs(1))))
        .timeout_global(Some(timeout * 10))
        .build()
        .new_agent()
}

/// Read a reply body as text, at most 1 MiB (these replies are small).
fn text(response: ureq::http::Response<ureq::Body>) -> Option<(u16, String)> {
    let status = response.status().as_u16();
    let mut body = String::new();
    response.into_body().into_reader().take(1 << 20).read_to_string(&mut body).ok()?;
    Some((status, body))
}

/// `application/x-www-form-urlencoded` value encoding.
fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Credentials for the role, from STS (unsigned request; the token is
/// the proof). A refusal is NC_EACCESS, an unreachable STS NC_ES3.
pub fn web_identity(w: &WebIdentity, connect_timeout: Duration) -> NcResult<Credentials> {
    let id = format!("sts {} {} {}", w.sts_endpoint, w.role_arn, w.token_file);
    let found = cached(&id, || {
        let token = std::fs::read_to_string(&w.token_file).map_err(|_| NcError::EACCESS)?;
        // In the body, not the URL: the token must not sit in any log.
        let form = format!(
            "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn={}&RoleSessionName={}&WebIdentityToken={}",
            form_encode(&w.role_arn),
            form_encode(&w.session_name),
            form_encode(token.trim())
        );
        let url = format!("{}/", w.sts_endpoint.trim_end_matches('/'));
        let reply = agent(connect_timeout)
            .post(&url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .send(form.as_bytes())
            .ok()
            .and_then(text);
        let Some((status, body)) = reply else { return Err(NcError::ES3) };
        if status != 200 {
            crate::zmap::trace::log(
                crate::zmap::trace::ATTEMPT_LEVEL,
                format_args!(
                    "s3 sts AssumeRoleWithWebIdentity status={status} code={:?}",
                    xml::tag_text(&body, "Code")
                ),
            );
            return Err(if (400..500).contains(&status) { NcError::EACCESS } else { NcError::ES3 });
        }
        let field = |t| xml::tag_text(&body, t).ok_or(NcError::ES3);
        let credentials =
            Credentials::new_with_token(field("AccessKeyId")?, field("SecretAccessKey")?, field("SessionToken")?);
        Ok((Some(credentials), xml::tag_text(&body, "Expiration").and_then(|e| xml::epoch_seconds(&e))))
    })?;
    found.ok_or(NcError::EACCESS)
}

/// Credentials of the instance's role from IMDSv2, or `None` when there
/// is no metadata service or no role.
pub fn instance(endpoint: &str) -> NcResult<Option<Credentials>> {
    cached(&format!("imds {endpoint}"), || Ok(fetch_instance(endpoint).unwrap_or((None, None))))
}

fn fetch_instance(endpoint: &str) -> Option<Fetched> {
    let agent = agent(IMDS_TIMEOUT);
    let (status, token) = agent
        .put(&format!("{endpoint}/latest/api/token"))
        .header("X-aws-ec2-metadata-token-ttl-seconds", "21600")
        .send_empty()
        .ok()
        .and_then(text)?;
    if status != 200 {
        return None;
    }
    let get = |path: &str| -> Option<String> {
        let (status, body) = agent
            .get(&format!("{endpoint}/latest/meta-data/iam/security-credentials/{path}"))
            .header("X-aws-ec2-metadata-token", token.trim())
            .call()
            .ok()
            .and_then(text)?;
        (status == 200).then_some(body)
    };
    let roles = get("")?;
    let role = roles.lines().next()?.trim().to_string();
    let doc: serde_json::Value = serde_json::from_str(&get(&role)?).ok()?;
    let field = |k: &str| doc.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let credentials = match field("Token") {
        Some(t) => Credentials::new_with_token(field("AccessKeyId")?, field("SecretAccessKey")?, t),
        None => Credentials::new(field("AccessKeyId")?, field("SecretAccessKey")?),
    };
    Some((Some(credentials), field("Expiration").and_then(|e| xml::epoch_seconds(&e))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_keeps_until_near_expiry_and_remembers_absence() {
        let calls = std::cell::Cell::new(0);
        let fetch = |expires| {
            calls.set(calls.get() + 1);
            Ok((Some(Credentials::new("K", "S")), expires))
        };
        let id = format!("test-fresh-{}", line!());
        assert!(cached(&id, || fetch(Some(now() + 3600))).unwrap().is_some());
        assert!(cached(&id, || fetch(Some(now() + 3600))).unwrap().is_some());
        assert_eq!(calls.get(), 1);
        let id = format!("test-stale-{}", line!());
        cached(&id, || fetch(Some(now() + 10))).unwrap();
        cached(&id, || fetch(Some(now() + 10))).unwrap();
        assert_eq!(calls.get(), 3);
        let id = format!("test-absent-{}", line!());
        assert!(cached(&id, || Ok((None, None))).unwrap().is_none());
        assert!(cached(&id, || fetch(None)).unwrap().is_none());
        assert_eq!(calls.get(), 3);
    }

    #[test]
    fn dead_metadata_service_means_no_credentials() {
        // Port 9 (discard) on loopback: refused at once.
        let started = std::time::Instant::now();
        assert!(instance("http://127.0.0.1:9").unwrap().is_none());
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn form_encoding() {
        assert_eq!(form_encode("arn:aws:iam::1:role/a b+c"), "arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fa%20b%2Bc");
    }
}
