//! When a local store's writes are forced to disk (`fsync`).
//!
//! Process death never needs it: a killed writer's writes are in the page
//! cache, in the order it made them, and a commit's order and renames
//! leave the old state or the new one (see `format::commit`). Only a
//! power failure or a system crash loses what the kernel has not written
//! yet. netcdf-c, HDF5, zarr-python and zarrs never fsync; forcing every
//! close to disk cost a full write of a 512 MiB cube more than half its
//! time here. So by default only `nc_sync` makes data durable, and a
//! setting makes every commit so:
//!
//! | value                       | `nc_enddef`/`nc_close` | `nc_sync` |
//! |-----------------------------|------------------------|-----------|
//! | `0`, `no`, `never`          | no fsync               | no fsync  |
//! | `sync` (the default)        | no fsync               | durable   |
//! | `1`, `yes`, `close`, `always` | durable, with barriers between a commit's steps | durable |
//!
//! The setting is the fragment key `fsync` (`#mode=nczarr,file&fsync=close`),
//! else the `.ncrc` key `NCZARR_RS.FSYNC`, else the environment variable
//! `NCZARR_RS_FSYNC`; the first present (and not empty) wins, and a value
//! not listed is `NC_EINVAL`.

use crate::error::{NcError, NcResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Never fsync (crash-consistent on process death only).
    Never,
    /// `nc_sync` makes everything written so far durable; closes do not.
    #[default]
    AtSync,
    /// Every commit (`nc_enddef`, `nc_sync`, `nc_close`) is durable, and
    /// its steps reach the disk in order.
    EveryCommit,
}

impl Durability {
    /// The setting for a dataset with fragment `params`, `.ncrc` entries
    /// reached through `rc` and the environment through `env`.
    pub fn resolve(
        params: &[(String, String)],
        rc: &dyn Fn(&str) -> Option<String>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> NcResult<Durability> {
        let value = params
            .iter()
            .rev()
            .find(|(k, _)| k == "fsync")
            .map(|(_, v)| v.clone())
            .or_else(|| rc("NCZARR_RS.FSYNC").filter(|v| !v.trim().is_empty()))
            .or_else(|| env("NCZARR_RS_FSYNC").filter(|v| !v.trim().is_empty()));
        value.map_or(Ok(Durability::default()), |v| Durability::parse(&v))
    }

    /// [`Durability::resolve`] with the process's `.ncrc` table and
    /// environment.
    pub fn of_dataset(params: &[(String, String)]) -> NcResult<Durability> {
        let rc = |key: &str| crate::rc::get(key).ok().flatten();
        let env = |name: &str| std::env::var(name).ok();
        Durability::resolve(params, &rc, &env)
    }

    fn parse(value: &str) -> NcResult<Durability> {
        match value.trim().to_ascii_lowercase().as_str() {
            "0" | "no" | "never" => Ok(Durability::Never),
            "sync" => Ok(Durability::AtSync),
            "1" | "yes" | "close" | "always" => Ok(Durability::EveryCommit),
            _ => Err(NcError::EINVAL),
        }
    }

    /// Is a commit made for this reason to be durable? (`explicit`: an
    /// `nc_sync`.)
    pub fn commit_is_durable(self, explicit: bool) -> bool {
        match self {
            Durability::Never => false,
            Durability::AtSync => explicit,
            Durability::EveryCommit => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(params: &[(&str, &str)], rc: Option<&str>, env: Option<&str>) -> NcResult<Durability> {
        let params: Vec<(String, String)> = params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let rc = move |_: &str| rc.map(str::to_string);
        let env = move |_: &str| env.map(str::to_string);
        Durability::resolve(&params, &rc, &env)
    }

    #[test]
    fn the_first_setting_present_wins() {
        assert_eq!(resolve(&[], None, None), Ok(Durability::AtSync));
        assert_eq!(resolve(&[], None, Some("1")), Ok(Durability::EveryCommit));
        assert_eq!(resolve(&[], Some("never"), Some("1")), Ok(Durability::Never));
        assert_eq!(resolve(&[("fsync", "close")], Some("0"), Some("0")), Ok(Durability::EveryCommit));
        assert_eq!(resolve(&[("fsync", "0"), ("fsync", " Sync ")], None, None), Ok(Durability::AtSync));
        assert_eq!(resolve(&[("fsync", "maybe")], None, None), Err(NcError::EINVAL));
        assert_eq!(resolve(&[], None, Some(" ")), Ok(Durability::AtSync), "set but empty: unset");
    }

    #[test]
    fn which_commits_are_durable() {
        assert!(!Durability::Never.commit_is_durable(true));
        assert!(!Durability::AtSync.commit_is_durable(false));
        assert!(Durability::AtSync.commit_is_durable(true));
        assert!(Durability::EveryCommit.commit_is_durable(false));
    }
}
