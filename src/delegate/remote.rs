//! netCDF files on S3 and web servers (`s3://bucket/x.nc`,
//! `https://host/x.nc#mode=bytes`, `...#mode=bytes,s3`), served by the
//! delegate, as S3netCDF4 does in Python: an open GETs the object
//! (concurrent ranged GETs) and hands the image to the delegate's
//! in-memory open; a create (or an open for writing) works on a private
//! scratch file and uploads it at close, in one PUT or one multipart
//! upload, so the object appears whole or not at all and a writer that
//! dies leaves no object. Not in memory: netCDF-4 files netcdf-c 4.9.0
//! creates in memory lack HDF5's creation-order tracking, so netcdf-c
//! lists their variables by name and can never open them for writing
//! again (NC_ECANTWRITE). Objects larger than `bytes.max_size` (fragment
//! key, or `BYTES.MAX_SIZE` in `.ncrc`; default a quarter of physical
//! memory) are refused with NC_ENOMEM before any memory is taken.

use crate::error::{NcError, NcResult};
use crate::url::{RemoteFile, S3Location, Storage};
use crate::zmap::{S3Map, Zmap, trace};

/// A remote netCDF file's place: the store of its parent "directory" and
/// its name there.
pub struct Remote {
    store: S3Map,
    key: String,
    /// The URL, for messages.
    pub url: String,
    pub max_size: u64,
    /// The image given to the delegate's read-only open, which must live
    /// until it closes.
    pub image: Option<Vec<u8>>,
    /// Upload the scratch file at close (created, or opened for writing).
    pub write_back: bool,
    /// The private directory holding the scratch file, removed with this.
    scratch: Option<std::path::PathBuf>,
}

impl Drop for Remote {
    fn drop(&mut self) {
        if let Some(dir) = &self.scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A quarter of physical memory (1 GiB when unknown).
fn default_max_size() -> u64 {
    // SAFETY: sysconf takes a name and returns a number.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    if pages > 0 && page > 0 { (pages as u64).saturating_mul(page as u64) / 4 } else { 1 << 30 }
}

fn max_size(params: &[(String, String)]) -> NcResult<u64> {
    let named = params.iter().find(|(k, _)| k == "bytes.max_size").map(|(_, v)| v.clone());
    let named = match named {
        Some(v) => Some(v),
        None => crate::rc::lookup("BYTES.MAX_SIZE", None, None)?,
    };
    match named {
        Some(v) => v.trim().parse().map_err(|_| NcError::EINVAL),
        None => Ok(default_max_size()),
    }
}

impl Remote {
    /// The file `file` names (no request yet).
    pub fn new(url: &str, file: &RemoteFile) -> NcResult<Remote> {
        let (loc, web) = match &file.storage {
            Storage::S3(loc) => (loc, false),
            Storage::Http(loc) => (loc, true),
            _ => return Err(NcError::EURL),
        };
        let (parent, key) = match loc.root.rsplit_once('/') {
            Some((parent, key)) => (parent.to_string(), key.to_string()),
            None => (String::new(), loc.root.clone()),
        };
        let parent = S3Location { root: parent, ..loc.clone() };
        let store = if web { S3Map::open_web(&parent, &file.params)? } else { S3Map::open(&parent, &file.params)? };
        Ok(Remote {
            store,
            key,
            url: url.to_string(),
            max_size: max_size(&file.params)?,
            image: None,
            write_back: false,
            scratch: None,
        })
    }

    /// The whole file; the system's ENOENT when there is none, as for a
    /// missing local file.
    pub fn fetch(&self) -> NcResult<Vec<u8>> {
        let started = std::time::Instant::now();
        let bytes = self.store.get_large(&self.key, self.max_size)?.ok_or(NcError(libc::ENOENT))?;
        trace::log(
            1,
            format_args!("read {}: {} bytes in {:.1} ms", self.url, bytes.len(), started.elapsed().as_secs_f64() * 1e3),
        );
        Ok(bytes)
    }

    /// Is there an object already (NC_NOCLOBBER)?
    pub fn exists(&self) -> NcResult<bool> {
        self.store.exists(&self.key)
    }

    /// The object's name (its key's last part), what the delegate is
    /// told the dataset is called.
    pub fn name(&self) -> &str {
        self.key.rsplit('/').next().unwrap_or(&self.key)
    }

    /// A new private directory (mode 0700, in `TMPDIR`) with a file of the
    /// object's name, holding `image` if given; its path for the
    /// delegate. Marks the file for upload at close.
    pub fn scratch_file(&mut self, image: Option<&[u8]>) -> NcResult<std::ffi::CString> {
        use std::os::unix::fs::DirBuilderExt;
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("nczarr-rs-{}-{n}", std::process::id()));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| NcError(e.raw_os_error().unwrap_or(libc::EIO)))?;
        self.scratch = Some(dir.clone());
        let file = dir.join(self.name());
        if let Some(image) = image {
            std::fs::write(&file, image).map_err(|e| NcError(e.raw_os_error().unwrap_or(libc::EIO)))?;
        }
        self.write_back = true;
        std::ffi::CString::new(file.as_os_str().as_encoded_bytes()).map_err(|_| NcError::EINVAL)
    }

    /// Upload the scratch file, closed by the delegate.
    pub fn upload_scratch(&self) -> NcResult<()> {
        let dir = self.scratch.as_ref().ok_or(NcError::EINTERNAL)?;
        let image = std::fs::read(dir.join(self.name())).map_err(|e| NcError(e.raw_os_error().unwrap_or(libc::EIO)))?;
        self.upload(&image)
    }

    /// Store the final image (one PUT, or a multipart upload when large).
    pub fn upload(&self, image: &[u8]) -> NcResult<()> {
        if image.len() as u64 > self.max_size {
            return Err(NcError::ENOMEM);
        }
        let started = std::time::Instant::now();
        self.store.put(&self.key, image)?;
        trace::log(
            1,
            format_args!(
                "wrote {}: {} bytes in {:.1} ms",
                self.url,
                image.len(),
                started.elapsed().as_secs_f64() * 1e3
            ),
        );
        Ok(())
    }
}
