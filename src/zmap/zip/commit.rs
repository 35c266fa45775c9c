//! Publishing a zip dataset's changes: a whole new archive is written to
//! a temporary file beside the old one and renamed over it, so the path
//! names the old archive or the new one at every moment.
//!
//! The new archive holds the view (committed entries the overlay leaves
//! alone, copied raw, so deflated ones stay deflated and nothing is
//! decoded; then new or moved objects, stored), once each: duplicates a
//! `ZipStore` appended are dropped. Entries outside the dataset's prefix
//! (junk beside a zipped directory) are kept, after it. Under a prefix
//! the layout is netcdf-c's: the top directory entry first and a
//! directory entry for every directory, as netcdf-c's reader (which takes
//! the dataset's name from entry 0) expects.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};

use super::index::At;
use super::{Slot, State, ZipMap};
use crate::error::{NcError, NcResult};
use crate::zmap::local::{parent_of, sibling_prefix, sync_path, temp_name};

/// What one entry of the new archive is made from.
enum Item {
    Directory,
    /// A committed entry (by the crate's index), copied raw.
    Copy(usize),
    /// `len` new bytes at `offset` in the spool.
    Spool(u64, u64),
}

/// The entries of the new archive, in order.
fn plan(prefix: &str, state: &State) -> Vec<(String, Item)> {
    let base = &state.base;
    let mut objects = Vec::new();
    let mut dirs = BTreeSet::new();
    for key in ZipMap::keys_under(state, "") {
        let item = match state.overlay.get(&key) {
            Some(Slot::New { offset, len }) => Item::Spool(*offset, *len),
            Some(Slot::Moved { from }) => match base.by_key.get(from) {
                Some(&i) => Item::Copy(base.index.entries[i].cd_index),
                None => continue,
            },
            Some(Slot::Deleted) => continue,
            None => match base.by_key.get(&key) {
                Some(&i) => Item::Copy(base.index.entries[i].cd_index),
                None => continue,
            },
        };
        // Every directory above the object, the prefix's own included.
        let name = format!("{prefix}{key}");
        let mut at = 0;
        while let Some(slash) = name[at..].find('/') {
            at += slash + 1;
            dirs.insert(name[..at].to_string());
        }
        objects.push((name, item));
    }
    let mut items: Vec<(String, Item)> = Vec::new();
    if !prefix.is_empty() {
        // The top directory first, even in an empty dataset.
        let mut at = 0;
        while let Some(slash) = prefix[at..].find('/') {
            at += slash + 1;
            dirs.insert(prefix[..at].to_string());
        }
        for dir in state.dirs.iter() {
            dirs.insert(format!("{prefix}{dir}/"));
        }
        items.extend(dirs.into_iter().map(|d| (d, Item::Directory)));
    }
    items.extend(objects);
    // Sorting puts each directory before what it holds.
    items.sort_by(|a, b| a.0.cmp(&b.0));
    // What lies outside the dataset stays, after it.
    let ours = |name: &str| name.starts_with(prefix);
    for entry in base.index.entries.iter().filter(|e| !ours(&e.name)) {
        items.push((entry.name.clone(), Item::Copy(entry.cd_index)));
    }
    items
}

/// The local time now, as a zip timestamp (1980-01-01 if out of range).
fn now() -> DateTime {
    // SAFETY: `time(NULL)` reads the clock; `localtime_r` fills the `tm`
    // we own and touches no shared buffer.
    let tm = unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&t, &mut tm);
        tm
    };
    let field = |v: libc::c_int| u8::try_from(v).unwrap_or(0);
    DateTime::from_date_and_time(
        u16::try_from(tm.tm_year + 1900).unwrap_or(1980),
        field(tm.tm_mon + 1),
        field(tm.tm_mday),
        field(tm.tm_hour),
        field(tm.tm_min),
        field(tm.tm_sec.min(59)),
    )
    .unwrap_or_default()
}

fn zip_err(e: zip::result::ZipError) -> NcError {
    match e {
        zip::result::ZipError::Io(e) => NcError::from_io(&e),
        _ => NcError::ENCZARR,
    }
}

/// Write the archive for `state` to `out`.
fn write_entries(prefix: &str, state: &State, out: File) -> NcResult<File> {
    let base_file = state.base.file.as_ref();
    let mut source = match base_file {
        Some(f) => Some(ZipArchive::new(At::new(f).map_err(|e| NcError::from_io(&e))?).map_err(zip_err)?),
        None => None,
    };
    let when = now();
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored).last_modified_time(when);
    let mut writer = ZipWriter::new(BufWriter::with_capacity(1 << 20, out));
    for (name, item) in plan(prefix, state) {
        match item {
            Item::Directory => writer.add_directory(name, stored.unix_permissions(0o755)).map_err(zip_err)?,
            Item::Copy(i) => {
                let src = source.as_mut().ok_or(NcError::EINTERNAL)?;
                let file = src.by_index_raw(i).map_err(|_| NcError::ENCZARR)?;
                if file.name_raw() == name.as_bytes() {
                    writer.raw_copy_file(file).map_err(zip_err)?;
                } else {
                    writer.raw_copy_file_rename(file, name).map_err(zip_err)?;
                }
            }
            Item::Spool(offset, len) => {
                let options = stored.unix_permissions(0o644).large_file(len >= u64::from(u32::MAX));
                writer.start_file(name, options).map_err(zip_err)?;
                let spool = state.spool.as_ref().ok_or(NcError::EINTERNAL)?;
                copy_range(spool, offset, len, &mut writer)?;
            }
        }
    }
    let buffered = writer.finish().map_err(zip_err)?;
    buffered.into_inner().map_err(|e| NcError::from_io(e.error()))
}

/// Copy `len` bytes at `offset` of `file` to `out`.
fn copy_range(file: &File, offset: u64, len: u64, out: &mut impl Write) -> NcResult<()> {
    let mut reader = At::new(file).map_err(|e| NcError::from_io(&e))?;
    std::io::Seek::seek(&mut reader, std::io::SeekFrom::Start(offset)).map_err(|e| NcError::from_io(&e))?;
    let copied = std::io::copy(&mut reader.take(len), out).map_err(|e| NcError::from_io(&e))?;
    if copied != len {
        return Err(NcError::EIO);
    }
    Ok(())
}

/// Write the new archive beside `path` and rename it over `path`. On
/// error the temporary file is removed and `path` is untouched.
pub(super) fn write_archive(path: &Path, prefix: &str, state: &State, durable: bool) -> NcResult<()> {
    let dir = parent_of(path);
    let temp = temp_name(&dir, &sibling_prefix(path)?);
    let out =
        OpenOptions::new().read(true).write(true).create_new(true).open(&temp).map_err(|e| NcError::from_io(&e))?;
    let result = (|| {
        // Keep the old archive's permissions.
        if let Ok(meta) = std::fs::metadata(path) {
            let mode = meta.permissions().mode() & 0o7777;
            out.set_permissions(std::fs::Permissions::from_mode(mode)).map_err(|e| NcError::from_io(&e))?;
        }
        let out = write_entries(prefix, state, out.try_clone().map_err(|e| NcError::from_io(&e))?)?;
        fail_point("sync")?;
        if durable {
            out.sync_data().map_err(|e| NcError::from_io(&e))?;
        }
        fail_point("rename")?;
        std::fs::rename(&temp, path).map_err(|e| NcError::from_io(&e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
        return result;
    }
    if durable {
        let _ = sync_path(&dir, true);
    }
    Ok(())
}

#[cfg(test)]
thread_local! {
    /// The step of a commit the tests make fail on this thread.
    pub(super) static FAIL_AT: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
}

/// In tests, fail at `step` when asked to (an I/O error there).
fn fail_point(step: &'static str) -> NcResult<()> {
    #[cfg(test)]
    if FAIL_AT.get() == Some(step) {
        return Err(NcError::EIO);
    }
    let _ = step;
    Ok(())
}
