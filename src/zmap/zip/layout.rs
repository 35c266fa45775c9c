//! Where in a zip archive the dataset's keys are: the prefix every key's
//! entry name starts with. Three layouts are in use:
//!
//! * netcdf-c's: everything under one top directory named after the
//!   archive (`d.zip` holds `d/`, `d/.zgroup`, ...), with directory entries
//!   and `d/` first; netcdf-c's reader takes the name from entry 0;
//! * a zipped directory store (`zip -r d.zip d.zarr`, possibly deeper,
//!   with or without directory entries, possibly with junk such as
//!   `__MACOSX/` beside it);
//! * zarr-python's `ZipStore`: keys at the archive root.

/// Names of the objects that can only sit at a Zarr or NCZarr store's root
/// (or a group's): finding one at a level means the store starts there.
const METADATA: &[&str] = &[".zgroup", ".zarray", ".zattrs", ".zmetadata", "zarr.json", ".nczarr"];

/// The prefix (`""` or ending in `/`) under which the dataset's keys sit,
/// given the archive's entry names in central-directory order (directory
/// entries end in `/`). `None` when no layout fits: not a dataset.
pub fn detect_prefix(names: &[&str]) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    let holds_metadata =
        |prefix: &str| METADATA.iter().any(|m| names.iter().any(|n| n.strip_prefix(prefix) == Some(m)));
    // 1. Keys at the root (zarr-python, or `cd d.zarr && zip -r ../d.zip .`).
    if holds_metadata("") {
        return Some(String::new());
    }
    // 2. One directory holding everything, as deep as it goes.
    let mut prefix = String::new();
    loop {
        let below: Vec<&str> = names.iter().filter_map(|n| n.strip_prefix(prefix.as_str())).collect();
        let Some(first) = below
            .iter()
            .find(|n| !n.is_empty())
            .and_then(|n| n.split_once('/'))
            .map(|(s, _)| s)
            .filter(|s| !s.is_empty())
        else {
            break;
        };
        let shared = below.iter().all(|n| n.is_empty() || n.split_once('/').is_some_and(|(s, _)| s == first));
        if !shared {
            break;
        }
        prefix = format!("{prefix}{first}/");
        if holds_metadata(&prefix) {
            return Some(prefix);
        }
    }
    // 3. netcdf-c's rule: the first segment of entry 0, when a store is
    //    there (other top-level entries are junk beside it), even one with
    //    no root group object, only arrays or groups below it (netcdf-c's
    //    ref_power_901_constants.zip).
    let first = names[0].split_once('/').map(|(s, _)| s).filter(|s| !s.is_empty())?;
    let prefix = format!("{first}/");
    let holds_nodes = |prefix: &str| {
        names.iter().filter_map(|n| n.strip_prefix(prefix)).any(|rest| {
            rest.rsplit_once('/').is_some_and(|(_, leaf)| matches!(leaf, ".zarray" | ".zgroup" | "zarr.json"))
        })
    };
    (holds_metadata(&prefix) || holds_nodes(&prefix)).then_some(prefix)
}

/// The top directory netcdf-c puts a new archive's keys under: the file's
/// name cut at its last `.` (`d.zip` → `d`, `a.b.zip` → `a.b`, `d` → `d`).
pub fn dataset_dir_name(file_name: &str) -> &str {
    match file_name.rfind('.') {
        Some(0) | None => file_name,
        Some(i) => &file_name[..i],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix(names: &[&str]) -> Option<String> {
        detect_prefix(names)
    }

    #[test]
    fn root_layouts() {
        assert_eq!(prefix(&[".zgroup", ".zattrs", "v/.zarray", "v/0"]).as_deref(), Some(""));
        assert_eq!(prefix(&["zarr.json", "v/zarr.json", "v/c/0"]).as_deref(), Some(""));
        // A root `.zmetadata` alone is enough (consolidated, later rewritten).
        assert_eq!(prefix(&["v/.zarray", ".zmetadata"]).as_deref(), Some(""));
    }

    #[test]
    fn one_top_directory() {
        // netcdf-c's own layout, directory entries first.
        assert_eq!(prefix(&["d/", "d/.zgroup", "d/v/", "d/v/.zarray", "d/v/0"]).as_deref(), Some("d/"));
        // `zip -rD`: no directory entries.
        assert_eq!(prefix(&["d.zarr/.zgroup", "d.zarr/v/.zarray"]).as_deref(), Some("d.zarr/"));
        // `zip -r n.zip sub/dir/d.file`.
        let deep = ["sub/", "sub/dir/", "sub/dir/d.file/", "sub/dir/d.file/.zgroup", "sub/dir/d.file/v/0"];
        assert_eq!(prefix(&deep).as_deref(), Some("sub/dir/d.file/"));
        // The top directory need not be named after the file.
        assert_eq!(prefix(&["ref_quotes/", "ref_quotes/.zattrs"]).as_deref(), Some("ref_quotes/"));
    }

    #[test]
    fn junk_beside_the_store() {
        let mac = ["d/", "d/.zgroup", "__MACOSX/", "__MACOSX/d/._.zgroup"];
        assert_eq!(prefix(&mac).as_deref(), Some("d/"));
        // Two stores: entry 0 decides, as in netcdf-c.
        assert_eq!(prefix(&["b/.zgroup", "a/.zgroup"]).as_deref(), Some("b/"));
        // netcdf-c's ref_power_901_constants.zip: arrays, no root group.
        let arrays = ["p/", "p/A/", "p/A/.zarray", "p/A/.zattrs", "p/B/", "p/B/.zarray"];
        assert_eq!(prefix(&arrays).as_deref(), Some("p/"));
    }

    #[test]
    fn not_a_dataset() {
        assert_eq!(prefix(&[]), None);
        assert_eq!(prefix(&["readme.txt"]), None);
        assert_eq!(prefix(&["d/", "d/readme.txt"]), None);
        assert_eq!(prefix(&["/.zgroup"]), None);
        assert_eq!(prefix(&["x/readme", "d/.zgroup"]), None);
    }

    #[test]
    fn dataset_dir_names() {
        assert_eq!(dataset_dir_name("d.zip"), "d");
        assert_eq!(dataset_dir_name("a.b.zip"), "a.b");
        assert_eq!(dataset_dir_name("noext"), "noext");
        assert_eq!(dataset_dir_name(".hidden"), ".hidden");
    }
}
