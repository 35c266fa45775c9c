//! AWS shared configuration files (`~/.aws/config`, `~/.aws/credentials`)
//! read into named profiles. netcdf-c reads both; the credentials file
//! wins where both set a key, as in the AWS tools.

use std::collections::HashMap;
use std::path::PathBuf;

use super::config::Lookup;

/// Profile name → (lower-case key → value).
pub type Profiles = HashMap<String, HashMap<String, String>>;

/// Every profile of the config and credentials files the environment
/// `env` points to (`AWS_CONFIG_FILE`, `AWS_SHARED_CREDENTIALS_FILE`,
/// netcdf-c's `NC_TEST_AWS_DIR`, else `$HOME/.aws`). Missing or
/// unreadable files count as empty.
pub fn load(env: Lookup) -> Profiles {
    let dir = env("NC_TEST_AWS_DIR").map(PathBuf::from).or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".aws")));
    let config = env("AWS_CONFIG_FILE").map(PathBuf::from).or_else(|| dir.as_ref().map(|d| d.join("config")));
    let credentials =
        env("AWS_SHARED_CREDENTIALS_FILE").map(PathBuf::from).or_else(|| dir.as_ref().map(|d| d.join("credentials")));
    let mut profiles = Profiles::new();
    for path in [config, credentials].into_iter().flatten() {
        if let Ok(text) = std::fs::read_to_string(&path) {
            merge_ini(&mut profiles, &text);
        }
    }
    profiles
}

/// Add the sections of one INI text: `[name]` or `[profile name]`,
/// `key = value` lines, `;` and `#` comment lines. Later values replace
/// earlier ones.
pub fn merge_ini(profiles: &mut Profiles, text: &str) {
    let mut section: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let name = name.trim();
            let name = name.strip_prefix("profile ").map_or(name, str::trim);
            section = Some(name.to_string());
            profiles.entry(name.to_string()).or_default();
            continue;
        }
        let (Some(name), Some((key, value))) = (&section, line.split_once('=')) else { continue };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
        if !key.is_empty() {
            profiles.entry(name.clone()).or_default().insert(key, value.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_comments_and_spacing() {
        let mut p = Profiles::new();
        merge_ini(
            &mut p,
            "; comment\n# another\n[default]\naws_access_key_id=A\n[profile dev]\n  region =  eu-west-1 \r\n\
             aws_region = x\nno section line\n",
        );
        merge_ini(&mut p, "[dev]\naws_access_key_id = D\n[default]\naws_access_key_id = B\n");
        assert_eq!(p["default"]["aws_access_key_id"], "B");
        assert_eq!(p["dev"]["region"], "eu-west-1");
        assert_eq!(p["dev"]["aws_region"], "x");
        assert_eq!(p["dev"]["aws_access_key_id"], "D");
    }

    #[test]
    fn files_from_the_environment() {
        let dir = std::env::temp_dir().join(format!("nczarr-s3-profiles-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".aws")).unwrap();
        std::fs::write(dir.join(".aws/config"), "[profile a]\nregion=r1\naws_access_key_id=fromconfig\n").unwrap();
        std::fs::write(dir.join(".aws/credentials"), "[a]\naws_access_key_id=fromcreds\n").unwrap();
        let home = dir.display().to_string();
        let env = |k: &str| (k == "HOME").then(|| home.clone());
        let p = load(&env);
        assert_eq!(p["a"]["aws_access_key_id"], "fromcreds");
        assert_eq!(p["a"]["region"], "r1");
        let other = dir.join("other");
        std::fs::write(&other, "[b]\nregion=r2\n").unwrap();
        let other_s = other.display().to_string();
        let env = |k: &str| match k {
            "HOME" => Some(home.clone()),
            "AWS_CONFIG_FILE" => Some(other_s.clone()),
            _ => None,
        };
        let p = load(&env);
        assert!(p.contains_key("b") && !p["a"].contains_key("region"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
