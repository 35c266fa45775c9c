//! The commit lock of a dataset on S3 (`Zmap::lock_commits`): an object
//! created with `If-None-Match: *`, which S3 (since 2024), MinIO, moto and
//! s3s create only if it does not exist, so one writer at a time holds
//! it. Deleted when the commit ends.
//!
//! It holds who took it and when: a writer that finds its own name there
//! holds it (a retried PUT whose first attempt succeeded), and a lock
//! older than [`STALE`] was left by a writer that died and is taken over.
//! A server that ignores the condition gives no exclusion (commits then
//! race as they did before the lock existed); one that refuses the header
//! gives none either, and says so in the trace.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusty_s3::{Method, S3Action};

use super::{S3Map, SIGN_FOR, errors};
use crate::error::NcResult;
use crate::zmap::trace;

/// The lock's key, below the dataset's root: not a name any Zarr reader
/// takes for a node (a dot file, not a directory).
pub const LOCK_KEY: &str = ".nczarr_rs_commit_lock";

/// A lock this old was left by a writer that died: a commit rewrites
/// metadata objects only, which takes seconds even on a slow link.
const STALE: Duration = Duration::from_secs(120);

/// The first wait between attempts, doubled up to [`MAX_POLL`].
const FIRST_POLL: Duration = Duration::from_millis(5);
const MAX_POLL: Duration = Duration::from_millis(200);

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Who takes the lock: unique among the processes (and the handles of
/// one process) that may write the dataset at once.
fn holder_name(map: &S3Map) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("{} {:p} {nanos}", std::process::id(), map as *const S3Map)
}

impl S3Map {
    pub(super) fn take_commit_lock(&self) -> NcResult<bool> {
        let obj = self.object_key(LOCK_KEY)?;
        let me = holder_name(self);
        let mut poll = FIRST_POLL;
        loop {
            let body = format!("{me}\n{}\n", now_secs());
            let headers = vec![("If-None-Match", "*".to_string()), ("Content-Type", "text/plain".to_string())];
            let reply = self.send(Method::Put, LOCK_KEY, headers, body.as_bytes(), &|c| {
                self.bucket.put_object(c, &obj).sign(SIGN_FOR)
            })?;
            match reply.status {
                200 | 201 | 204 => return Ok(true),
                // Taken (412), or another conditional write on it under
                // way (409): look who holds it.
                412 | 409 => {}
                400 | 501 => {
                    trace::log(1, format_args!("s3: no conditional writes here; commits go unlocked"));
                    return Ok(false);
                }
                _ => return Err(errors::reply_error(&reply, LOCK_KEY)),
            }
            if let Some(held) = self.get_object(LOCK_KEY)? {
                let text = String::from_utf8_lossy(&held);
                let mut lines = text.lines();
                if lines.next() == Some(me.as_str()) {
                    return Ok(true);
                }
                let since = lines.next().and_then(|t| t.trim().parse::<u64>().ok()).unwrap_or(0);
                if now_secs().saturating_sub(since) > STALE.as_secs() {
                    trace::log(1, format_args!("s3: taking over a commit lock left {}s ago", now_secs() - since));
                    self.release_commit_lock();
                    continue;
                }
            }
            std::thread::sleep(poll);
            poll = (poll * 2).min(MAX_POLL);
        }
    }

    /// Best effort: a lock left behind is taken over once stale.
    pub(super) fn release_commit_lock(&self) {
        let _ = crate::zmap::Zmap::delete(self, LOCK_KEY);
    }
}
