//! Which credentials and region a dataset's requests use, in netcdf-c's
//! order (FACTS §2.4) plus what the AWS tools also honour (environment
//! keys, web identity, instance metadata).
//!
//! Everything here reads the environment through a lookup function, never
//! `std::env` directly, so tests give each case its own environment.

use rusty_s3::Credentials;

use super::config::Lookup;
use super::profiles::{self, Profiles};
use super::remote;
use crate::error::{NcError, NcResult};

/// Where a dataset's credentials come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Unsigned requests (profile `no`/`none`, or nothing found).
    Anonymous,
    /// Fixed keys (a profile or the environment).
    Static(Credentials),
    /// STS AssumeRoleWithWebIdentity, refreshed before they expire.
    WebIdentity(remote::WebIdentity),
    /// The EC2 instance metadata service; anonymous where there is none.
    Instance { endpoint: String },
}

impl Source {
    /// The credentials to sign the next request with (`None`: unsigned).
    pub fn current(&self, connect_timeout: std::time::Duration) -> NcResult<Option<Credentials>> {
        match self {
            Source::Anonymous => Ok(None),
            Source::Static(c) => Ok(Some(c.clone())),
            Source::WebIdentity(w) => remote::web_identity(w, connect_timeout).map(Some),
            Source::Instance { endpoint } => remote::instance(endpoint),
        }
    }
}

/// The outcome of resolution.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub source: Source,
    pub region: String,
}

/// The inputs resolution looks at: fragment parameters (lower-case keys),
/// `.ncrc` (upper-case keys) and the environment.
pub struct Inputs<'a> {
    pub url_region: Option<&'a str>,
    pub params: &'a [(String, String)],
    pub rc: Lookup<'a>,
    pub env: Lookup<'a>,
}

impl Inputs<'_> {
    fn param(&self, key: &str) -> Option<String> {
        self.params.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.clone()).filter(|v| !v.is_empty())
    }

    fn env(&self, key: &str) -> Option<String> {
        (self.env)(key).filter(|v| !v.is_empty())
    }
}

/// Resolve credentials and region.
///
/// Profile: fragment `aws.profile` → `.ncrc` `AWS.PROFILE` → env
/// `AWS_PROFILE` → `default` when defined. `no`/`none` mean unsigned. A
/// profile named explicitly but defined nowhere is NC_EINVAL.
///
/// Credentials: a named profile's keys; else (no profile named) the
/// environment's `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, then the
/// `default` profile's keys; then web identity, then instance metadata
/// (unless `AWS_EC2_METADATA_DISABLED=true`); else unsigned.
///
/// Region: the URL's → fragment `aws.region` → `.ncrc` `AWS.REGION` → the
/// profile's `region`/`aws_region` → `AWS_REGION` → `AWS_DEFAULT_REGION`
/// → `us-east-1`.
pub fn resolve(inputs: &Inputs) -> NcResult<Resolved> {
    let profiles = profiles::load(inputs.env);
    resolve_with(inputs, &profiles)
}

fn resolve_with(inputs: &Inputs, profiles: &Profiles) -> NcResult<Resolved> {
    let named = inputs
        .param("aws.profile")
        .or_else(|| (inputs.rc)("AWS.PROFILE").filter(|v| !v.is_empty()))
        .or_else(|| inputs.env("AWS_PROFILE"));
    let unsigned = named.as_deref().is_some_and(|n| n == "no" || n == "none");
    let profile = match &named {
        Some(_) if unsigned => None,
        Some(name) => Some(profiles.get(name).ok_or(NcError::EINVAL)?),
        None => profiles.get("default"),
    };
    let from_profile = |key: &str| profile.and_then(|p| p.get(key)).filter(|v| !v.is_empty()).cloned();

    let region = inputs
        .url_region
        .map(str::to_string)
        .or_else(|| inputs.param("aws.region"))
        .or_else(|| (inputs.rc)("AWS.REGION").filter(|v| !v.is_empty()))
        .or_else(|| from_profile("region"))
        .or_else(|| from_profile("aws_region"))
        .or_else(|| inputs.env("AWS_REGION"))
        .or_else(|| inputs.env("AWS_DEFAULT_REGION"))
        .unwrap_or_else(|| "us-east-1".to_string());

    let keys = |id: Option<String>, secret: Option<String>, token: Option<String>| match (id, secret) {
        (Some(id), Some(secret)) => Some(match token {
            Some(t) => Credentials::new_with_token(id, secret, t),
            None => Credentials::new(id, secret),
        }),
        _ => None,
    };
    let profile_keys = || {
        keys(
            from_profile("aws_access_key_id"),
            from_profile("aws_secret_access_key"),
            from_profile("aws_session_token"),
        )
    };
    let env_keys =
        || keys(inputs.env("AWS_ACCESS_KEY_ID"), inputs.env("AWS_SECRET_ACCESS_KEY"), inputs.env("AWS_SESSION_TOKEN"));

    let fixed = if unsigned {
        return Ok(Resolved { source: Source::Anonymous, region });
    } else if named.is_some() {
        profile_keys()
    } else {
        env_keys().or_else(profile_keys)
    };
    let source = if let Some(c) = fixed {
        Source::Static(c)
    } else if let (Some(token_file), Some(role_arn)) =
        (inputs.env("AWS_WEB_IDENTITY_TOKEN_FILE"), inputs.env("AWS_ROLE_ARN"))
    {
        let sts_endpoint =
            inputs.env("AWS_ENDPOINT_URL_STS").unwrap_or_else(|| format!("https://sts.{region}.amazonaws.com"));
        Source::WebIdentity(remote::WebIdentity {
            token_file,
            role_arn,
            session_name: inputs.env("AWS_ROLE_SESSION_NAME").unwrap_or_else(|| "nczarr-rs".to_string()),
            sts_endpoint,
        })
    } else if !inputs.env("AWS_EC2_METADATA_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        let endpoint = inputs
            .env("AWS_EC2_METADATA_SERVICE_ENDPOINT")
            .unwrap_or_else(|| "http://169.254.169.254".to_string())
            .trim_end_matches('/')
            .to_string();
        Source::Instance { endpoint }
    } else {
        Source::Anonymous
    };
    Ok(Resolved { source, region })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn profiles(text: &str) -> Profiles {
        let mut p = Profiles::new();
        profiles::merge_ini(&mut p, text);
        p
    }

    fn run(
        url_region: Option<&str>,
        params: &[(&str, &str)],
        rc: &[(&str, &str)],
        env: &[(&str, &str)],
        files: &str,
    ) -> NcResult<Resolved> {
        let params: Vec<(String, String)> = params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let rc: HashMap<String, String> = rc.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let env: HashMap<String, String> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let rc_fn = |k: &str| rc.get(k).cloned();
        let env_fn = |k: &str| env.get(k).cloned();
        let inputs = Inputs { url_region, params: &params, rc: &rc_fn, env: &env_fn };
        resolve_with(&inputs, &profiles(files))
    }

    fn key(r: &Resolved) -> Option<String> {
        match &r.source {
            Source::Static(c) => Some(c.key().to_string()),
            _ => None,
        }
    }

    const FILES: &str = "[default]\naws_access_key_id=DEF\naws_secret_access_key=s\nregion=def-region\n\
                         [profile p1]\naws_access_key_id=P1\naws_secret_access_key=s\naws_region=p1-region\n\
                         [p2]\naws_access_key_id=P2\naws_secret_access_key=s\naws_session_token=t\n";
    const NO_IMDS: (&str, &str) = ("AWS_EC2_METADATA_DISABLED", "true");

    #[test]
    fn profile_order() {
        let env = [("AWS_PROFILE", "p2"), NO_IMDS];
        let r = run(None, &[("aws.profile", "p1")], &[("AWS.PROFILE", "p2")], &env, FILES).unwrap();
        assert_eq!(key(&r).as_deref(), Some("P1"));
        let r = run(None, &[], &[("AWS.PROFILE", "p1")], &env, FILES).unwrap();
        assert_eq!(key(&r).as_deref(), Some("P1"));
        let r = run(None, &[], &[], &env, FILES).unwrap();
        assert_eq!(key(&r).as_deref(), Some("P2"));
        let r = run(None, &[], &[], &[NO_IMDS], FILES).unwrap();
        assert_eq!(key(&r).as_deref(), Some("DEF"));
        let r = run(None, &[], &[], &[NO_IMDS], "").unwrap();
        assert!(matches!(r.source, Source::Anonymous));
    }

    #[test]
    fn no_and_none_are_unsigned_and_unknown_profiles_fail() {
        for name in ["no", "none"] {
            let r = run(None, &[("aws.profile", name)], &[], &[("AWS_ACCESS_KEY_ID", "E")], FILES).unwrap();
            assert!(matches!(r.source, Source::Anonymous));
        }
        assert!(matches!(run(None, &[("aws.profile", "ghost")], &[], &[], FILES), Err(NcError::EINVAL)));
    }

    #[test]
    fn environment_keys_beat_default_profile_but_not_a_named_one() {
        let env = [("AWS_ACCESS_KEY_ID", "ENV"), ("AWS_SECRET_ACCESS_KEY", "x"), ("AWS_SESSION_TOKEN", "tok"), NO_IMDS];
        let r = run(None, &[], &[], &env, FILES).unwrap();
        assert_eq!(key(&r).as_deref(), Some("ENV"));
        let Source::Static(c) = &r.source else { panic!() };
        assert_eq!(c.token(), Some("tok"));
        let r = run(None, &[("aws.profile", "p1")], &[], &env, FILES).unwrap();
        assert_eq!(key(&r).as_deref(), Some("P1"));
        // An id without a secret is not a credential.
        let r = run(None, &[], &[], &[("AWS_ACCESS_KEY_ID", "ENV"), NO_IMDS], "").unwrap();
        assert!(matches!(r.source, Source::Anonymous));
    }

    #[test]
    fn region_order() {
        let env = [("AWS_REGION", "env-region"), ("AWS_DEFAULT_REGION", "envdef-region"), NO_IMDS];
        let region = |url, params: &[(&str, &str)], rc: &[(&str, &str)], env: &[(&str, &str)], files| {
            run(url, params, rc, env, files).unwrap().region
        };
        let all_params = [("aws.region", "frag-region"), ("aws.profile", "p1")];
        let rc = [("AWS.REGION", "rc-region")];
        assert_eq!(region(Some("url-region"), &all_params, &rc, &env, FILES), "url-region");
        assert_eq!(region(None, &all_params, &rc, &env, FILES), "frag-region");
        assert_eq!(region(None, &[("aws.profile", "p1")], &rc, &env, FILES), "rc-region");
        assert_eq!(region(None, &[("aws.profile", "p1")], &[], &env, FILES), "p1-region");
        assert_eq!(region(None, &[], &[], &env, FILES), "def-region");
        assert_eq!(region(None, &[], &[], &env, ""), "env-region");
        assert_eq!(region(None, &[], &[], &env[1..], ""), "envdef-region");
        assert_eq!(region(None, &[], &[], &[], ""), "us-east-1");
    }

    #[test]
    fn web_identity_then_instance_metadata() {
        let env = [("AWS_WEB_IDENTITY_TOKEN_FILE", "/t"), ("AWS_ROLE_ARN", "arn:x"), ("AWS_REGION", "eu-north-1")];
        let r = run(None, &[], &[], &env, "").unwrap();
        let Source::WebIdentity(w) = &r.source else { panic!("{:?}", r.source) };
        assert_eq!(w.sts_endpoint, "https://sts.eu-north-1.amazonaws.com");
        assert_eq!(w.role_arn, "arn:x");
        let r = run(None, &[], &[], &[("AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:9/")], "").unwrap();
        let Source::Instance { endpoint } = &r.source else { panic!() };
        assert_eq!(endpoint, "http://127.0.0.1:9");
        let r = run(None, &[], &[], &[("AWS_EC2_METADATA_DISABLED", "TRUE")], "").unwrap();
        assert!(matches!(r.source, Source::Anonymous));
    }
}
