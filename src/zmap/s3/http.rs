//! One S3 request, with bounded retries: at most `attempts` tries, none
//! begun after the operation's deadline or once the call it belongs to
//! has failed (`workers::cancelled`), exponential backoff with jitter
//! between them. Retried: connection failures, timeouts, bodies shorter
//! than announced, 5xx, 429 and S3's transient error codes. Never
//! retried: everything else (refused credentials, missing objects, ...),
//! which the caller interprets.
//!
//! Connection pools (ureq `Agent`s) are the process's, shared by every
//! dataset opened with the same timeouts and concurrency: a program that
//! opens file after file on one endpoint reuses the connections an
//! earlier dataset left idle, where a pool per dataset connected (and
//! over https, shook hands) anew at every `nc_open`. A pooled connection
//! the server has closed meanwhile is probed and dropped before use
//! (ureq does), so it costs no attempt; one the server closes just as
//! it is used fails like any reset, and is retried. A pool belongs to
//! the process that built it: a forked child builds its own and forgets
//! (never drops) the inherited ones, whose sockets are its parent's.

use std::cell::Cell;
use std::io::Read;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rusty_s3::Method;
use ureq::http::HeaderMap;
use url::Url;

use super::config::Settings;
use super::errors;
use crate::error::{NcError, NcResult};
use crate::zmap::trace;

/// First backoff pause and the longest one.
const BACKOFF_BASE: Duration = Duration::from_millis(100);
const BACKOFF_CAP: Duration = Duration::from_secs(4);

/// A complete reply: status, headers and the whole body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `<Code>` of an S3 XML error body.
    pub fn code(&self) -> Option<String> {
        let text = std::str::from_utf8(&self.body).ok()?;
        if !text.trim_start().starts_with('<') {
            return None;
        }
        super::xml::tag_text(text, "Code")
    }

    fn is_transient(&self) -> bool {
        self.status >= 500
            || self.status == 429
            || (self.status >= 400 && self.code().is_some_and(|c| errors::TRANSIENT_CODES.contains(&c.as_str())))
    }
}

/// What to send. `what` names it in traces (method and key, no URL).
pub struct Request<'a> {
    pub method: Method,
    pub what: &'a str,
    pub headers: Vec<(&'static str, String)>,
    pub body: &'a [u8],
}

/// A failed attempt: worth retrying, or final.
enum Failure {
    Transient(&'static str),
    Fatal(NcError),
}

pub struct Http {
    settings: Settings,
    /// This dataset's handle on its pool, and the process it was taken in.
    agent: Mutex<(u32, ureq::Agent)>,
}

/// What shapes a pool: datasets that agree on it share one.
type PoolKey = (Duration, Duration, usize);

fn pool_key(s: &Settings) -> PoolKey {
    (s.connect_timeout, s.read_timeout, s.concurrency)
}

/// The process's pools, at most [`POOLS_KEPT`] (the oldest is let go,
/// its connections closed once no open dataset still holds it), with the
/// process that built them. Locked only inside the call gate.
static POOLS: Mutex<(u32, Vec<(PoolKey, ureq::Agent)>)> = Mutex::new((0, Vec::new()));
const POOLS_KEPT: usize = 4;

/// The pool for datasets with settings `s`: this process's, shared.
fn shared_agent(s: &Settings) -> ureq::Agent {
    let _inside = crate::gate::enter();
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    let pid = crate::gate::process_id();
    if pools.0 != pid {
        // Dropping them could shut down or write on the parent's sockets.
        std::mem::forget(std::mem::replace(&mut *pools, (pid, Vec::new())));
    }
    let key = pool_key(s);
    if let Some((_, agent)) = pools.1.iter().find(|(k, _)| *k == key) {
        return agent.clone();
    }
    if pools.1.len() == POOLS_KEPT {
        pools.1.remove(0);
    }
    let agent = new_agent(s);
    pools.1.push((key, agent.clone()));
    agent
}

fn new_agent(s: &Settings) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        // A redirect is a wrong region or endpoint: reported, not followed.
        .max_redirects(0)
        .timeout_connect(Some(s.connect_timeout))
        .timeout_per_read(Some(s.read_timeout))
        .timeout_per_write(Some(s.read_timeout))
        .max_idle_connections(s.concurrency.saturating_mul(2))
        .max_idle_connections_per_host(s.concurrency)
        .user_agent(concat!("nczarr-rs/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent()
}

impl Http {
    pub fn new(settings: &Settings) -> Http {
        Http { settings: settings.clone(), agent: Mutex::new((crate::gate::process_id(), shared_agent(settings))) }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// This process's pool (a clone shares it).
    fn agent(&self) -> ureq::Agent {
        let mut slot = self.agent.lock().unwrap_or_else(PoisonError::into_inner);
        let pid = crate::gate::process_id();
        if slot.0 != pid {
            let inherited = std::mem::replace(&mut *slot, (pid, shared_agent(&self.settings)));
            // Dropping it could shut down or write on the parent's sockets.
            std::mem::forget(inherited);
        }
        slot.1.clone()
    }

    /// Send `request` to the URL `url` gives (called for each attempt,
    /// so each is signed afresh), retrying transient failures. Returns
    /// the first reply that is not transient, whatever its status.
    pub fn send(&self, request: &Request, url: &dyn Fn() -> NcResult<Url>) -> NcResult<Reply> {
        let started = Instant::now();
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let t0 = Instant::now();
            let outcome = self.attempt(request, url()?);
            let ms = t0.elapsed().as_secs_f64() * 1000.0;
            let (method, what) = (request.method.to_str(), request.what);
            let last_reply = match outcome {
                Ok(reply) => {
                    trace::log(
                        trace::ATTEMPT_LEVEL,
                        format_args!("s3 {method} {what} status={} ms={ms:.1} attempt={attempt}", reply.status),
                    );
                    if !reply.is_transient() {
                        return Ok(reply);
                    }
                    Some(reply)
                }
                Err(Failure::Fatal(e)) => {
                    trace::log(
                        trace::ATTEMPT_LEVEL,
                        format_args!("s3 {method} {what} failed ms={ms:.1} attempt={attempt} error={}", e.0),
                    );
                    return Err(e);
                }
                Err(Failure::Transient(why)) => {
                    trace::log(
                        trace::ATTEMPT_LEVEL,
                        format_args!("s3 {method} {what} failed ms={ms:.1} attempt={attempt} error={why}"),
                    );
                    None
                }
            };
            let pause = backoff(attempt);
            let out_of_time = started.elapsed() + pause >= self.settings.deadline;
            // Another attempt for a call that has already failed (another
            // of its requests did) would only delay its error.
            if attempt >= self.settings.attempts || out_of_time || !pause_unless_cancelled(pause) {
                return Err(match last_reply {
                    Some(reply) => errors::reply_error(&reply, what),
                    None => NcError::ES3,
                });
            }
            trace::note_retry();
        }
    }

    fn attempt(&self, request: &Request, url: Url) -> Result<Reply, Failure> {
        let mut builder = ureq::http::Request::builder().method(request.method.to_str()).uri(url.as_str());
        for (name, value) in &request.headers {
            builder = builder.header(*name, value.as_str());
        }
        let agent = self.agent();
        let sent = if request.body.is_empty() && matches!(request.method, Method::Get | Method::Delete | Method::Head) {
            agent.run(builder.body(()).map_err(|_| Failure::Fatal(NcError::EINTERNAL))?)
        } else {
            agent.run(builder.body(request.body).map_err(|_| Failure::Fatal(NcError::EINTERNAL))?)
        };
        let response = sent.map_err(|e| classify(&e))?;
        let status = response.status().as_u16();
        let (parts, body) = response.into_parts();
        let announced = parts
            .headers
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        // Reserve what is announced, within reason: a lying header must
        // not make us allocate gigabytes up front. A chunk's body comes
        // from the spare buffers (the decode hands it back): a fresh one
        // per GET was 50 k page faults per 370 MB read, on the cores the
        // decoding and the server need.
        let mut data =
            crate::buffers::with_capacity(announced.unwrap_or(0).min(64 << 20) as usize).map_err(Failure::Fatal)?;
        if request.method != Method::Head {
            body.into_reader().read_to_end(&mut data).map_err(|_| Failure::Transient("body read"))?;
            if announced.is_some_and(|n| n != data.len() as u64) {
                return Err(Failure::Transient("short body"));
            }
        }
        Ok(Reply { status, headers: parts.headers, body: data })
    }
}

/// Is a transport error worth another attempt?
fn classify(e: &ureq::Error) -> Failure {
    match e {
        ureq::Error::Timeout(_) => Failure::Transient("timeout"),
        ureq::Error::ConnectionFailed => Failure::Transient("connection failed"),
        ureq::Error::Io(io) => Failure::Transient(match io.kind() {
            std::io::ErrorKind::ConnectionRefused => "connection refused",
            std::io::ErrorKind::ConnectionReset => "connection reset",
            std::io::ErrorKind::TimedOut => "timeout",
            _ => "i/o error",
        }),
        ureq::Error::Protocol(_) => Failure::Transient("protocol error"),
        ureq::Error::HostNotFound => Failure::Fatal(NcError::ES3),
        ureq::Error::BadUri(_) => Failure::Fatal(NcError::EURL),
        _ => Failure::Fatal(NcError::ES3),
    }
}

thread_local! {
    /// Jitter source: a per-thread xorshift, so parallel retries spread.
    static RANDOM: Cell<u64> = const { Cell::new(0) };
}

fn random() -> u64 {
    RANDOM.with(|r| {
        let mut x = r.get();
        if x == 0 {
            use std::hash::{BuildHasher, Hash, Hasher};
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            std::thread::current().id().hash(&mut h);
            std::time::SystemTime::now().hash(&mut h);
            x = h.finish() | 1;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        r.set(x);
        x
    })
}

/// Sleep `pause`, looking every few milliseconds whether the call this
/// request belongs to has failed meanwhile; false when it has.
fn pause_unless_cancelled(pause: Duration) -> bool {
    const LOOK: Duration = Duration::from_millis(20);
    let until = Instant::now() + pause;
    loop {
        if crate::workers::cancelled() {
            return false;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(LOOK));
    }
}

/// The pause after the `attempt`-th failure: half of an exponentially
/// growing step plus a random part of the other half.
fn backoff(attempt: u32) -> Duration {
    let step = BACKOFF_BASE.saturating_mul(1 << attempt.saturating_sub(1).min(16)).min(BACKOFF_CAP);
    let half = step / 2;
    let jitter_ms = random() % (half.as_millis() as u64 + 1);
    half + Duration::from_millis(jitter_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        for attempt in 1..20 {
            let b = backoff(attempt);
            let step = BACKOFF_BASE.saturating_mul(1 << (attempt - 1).min(16)).min(BACKOFF_CAP);
            assert!(b >= step / 2 && b <= step, "{attempt}: {b:?}");
        }
        // Eight attempts against a dead port sleep at most ~11 s in all.
        let worst: Duration = (1..8).map(|a| BACKOFF_BASE.saturating_mul(1 << (a - 1)).min(BACKOFF_CAP)).sum();
        assert!(worst < Duration::from_secs(12));
    }

    #[test]
    fn transient_replies() {
        let r = |status, body: &str| Reply { status, headers: HeaderMap::new(), body: body.as_bytes().to_vec() };
        assert!(r(503, "").is_transient());
        assert!(r(429, "").is_transient());
        assert!(r(400, "<Error><Code>RequestTimeout</Code></Error>").is_transient());
        assert!(!r(403, "<Error><Code>AccessDenied</Code></Error>").is_transient());
        assert!(!r(404, "").is_transient());
        assert!(!r(200, "<Code>SlowDown</Code>").is_transient());
    }

    #[test]
    fn dead_port_fails_within_the_bound() {
        let settings = Settings::default();
        let http = Http::new(&settings);
        let started = Instant::now();
        let req = Request { method: Method::Get, what: "k", headers: Vec::new(), body: &[] };
        let url = || Url::parse("http://127.0.0.1:9/b/k").map_err(|_| NcError::EURL);
        assert_eq!(http.send(&req, &url).unwrap_err(), NcError::ES3);
        assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    }
}
