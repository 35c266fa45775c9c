//! In-memory datasets (`netcdf_mem.h`). NCZarr stores have no in-memory
//! form in netcdf-c, and the formats it does open from memory (classic
//! and HDF5 files) are not built here. The answers follow netcdf-c's
//! argument checks, then say which of the two applies: a netCDF-3 or
//! HDF5 image is NC_ENOTBUILT, anything else NC_ENOTNC; an NCZarr URL is
//! NC_EINVAL, as netcdf-c refuses in-memory mode for NCZarr.

// Unsafe blocks here only dereference, or pass on, the enclosing C
// function's own pointer arguments, as its `# Safety` section says the
// caller guarantees: that section is their SAFETY comment (policy in
// src/capi/mod.rs). Blocks doing more carry their own.
#![allow(clippy::undocumented_unsafe_blocks, reason = "caller pointers, per each function's # Safety section")]

use std::ffi::{c_char, c_int, c_void};

use super::crossing::{How, open_elsewhere};
use super::{c_str, guard};
use crate::error::{NcError, NcResult};
use crate::format::foreign::{MAGIC_NUMBER_LEN, is_netcdf_image};

const NC_WRITE: c_int = 0x0001;
const NC_MMAP: c_int = 0x0010;

/// `NC_memio`: a caller's memory block.
#[repr(C)]
pub struct NcMemio {
    pub size: usize,
    pub memory: *mut c_void,
    pub flags: c_int,
}

impl NcMemio {
    /// The block's bytes.
    ///
    /// # Safety
    /// `memory` must be NULL or hold `size` readable bytes.
    pub unsafe fn bytes(&self) -> &[u8] {
        if self.memory.is_null() || self.size == 0 {
            return &[];
        }
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts(self.memory as *const u8, self.size) }
    }
}

/// The answer for opening `path` over the memory `image`.
fn open_image(path: &str, image: &[u8]) -> NcResult<()> {
    if !crate::url::parse(path)?.bare_path {
        return Err(NcError::EINVAL);
    }
    Err(if is_netcdf_image(image) { NcError::ENOTBUILT } else { NcError::ENOTNC })
}

/// # Safety
/// `path` must be a C string; `memory` NULL or `size` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open_mem(
    path: *const c_char,
    mode: c_int,
    size: usize,
    memory: *mut c_void,
    ncidp: *mut c_int,
) -> c_int {
    let elsewhere = unsafe {
        open_elsewhere(path, mode, How::InMemory, ncidp, |t, id| t.nc_open_mem.map(|f| f(path, mode, size, memory, id)))
    };
    if let Some(status) = elsewhere {
        return status;
    }
    guard(|| {
        if memory.is_null() || size < MAGIC_NUMBER_LEN || path.is_null() || mode & (NC_WRITE | NC_MMAP) != 0 {
            return Err(NcError::EINVAL);
        }
        let path = unsafe { c_str(path, NcError::EINVAL) }?;
        // SAFETY: the caller's block of `size` bytes; only its start is read.
        let image = unsafe { std::slice::from_raw_parts(memory as *const u8, MAGIC_NUMBER_LEN) };
        open_image(path, image)
    })
}

/// # Safety
/// `path` must be a C string; `info` NULL or an `NC_memio`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open_memio(
    path: *const c_char,
    mode: c_int,
    info: *mut NcMemio,
    ncidp: *mut c_int,
) -> c_int {
    let elsewhere = unsafe {
        open_elsewhere(path, mode, How::InMemory, ncidp, |t, id| {
            t.nc_open_memio.map(|f| f(path, mode, info as *mut c_void, id))
        })
    };
    if let Some(status) = elsewhere {
        return status;
    }
    guard(|| {
        if path.is_null() || info.is_null() || mode & NC_MMAP != 0 {
            return Err(NcError::EINVAL);
        }
        // SAFETY: checked non-NULL; the caller's NC_memio.
        let (size, memory) = unsafe { ((*info).size, (*info).memory) };
        if memory.is_null() || size < MAGIC_NUMBER_LEN {
            return Err(NcError::EINVAL);
        }
        let path = unsafe { c_str(path, NcError::EINVAL) }?;
        // SAFETY: as in nc_open_mem.
        let image = unsafe { std::slice::from_raw_parts(memory as *const u8, MAGIC_NUMBER_LEN) };
        open_image(path, image)
    })
}

/// # Safety
/// `path` must be a C string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_create_mem(
    path: *const c_char,
    mode: c_int,
    initialsize: usize,
    ncidp: *mut c_int,
) -> c_int {
    let elsewhere = unsafe {
        open_elsewhere(path, mode, How::InMemory, ncidp, |t, id| {
            t.nc_create_mem.map(|f| f(path, mode, initialsize, id))
        })
    };
    if let Some(status) = elsewhere {
        return status;
    }
    guard(|| {
        if mode & NC_MMAP != 0 {
            return Err(NcError::EINVAL);
        }
        let path = unsafe { c_str(path, NcError::EINVAL) }?;
        // A plain path would be a classic or HDF5 file in memory.
        Err(if crate::url::parse(path)?.bare_path { NcError::ENOTBUILT } else { NcError::EINVAL })
    })
}

/// Close a dataset; no dataset lives in memory, so `info` is left as it
/// is (netcdf-c's NCZarr close ignores it too).
///
/// # Safety
/// `info` is not used.
pub unsafe extern "C" fn nc_close_memio(ncid: c_int, _info: *mut NcMemio) -> c_int {
    super::file::nc_close(ncid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_and_paths() {
        assert_eq!(open_image("/tmp/x.nc", b"CDF\x01\0\0\0\0"), Err(NcError::ENOTBUILT));
        assert_eq!(open_image("/tmp/x.nc", b"\x89HDF\r\n\x1a\n"), Err(NcError::ENOTBUILT));
        assert_eq!(open_image("/tmp/x.nc", b"PK\x03\x04\0\0\0\0"), Err(NcError::ENOTNC));
        assert_eq!(open_image("file:///tmp/x.zarr#mode=nczarr,file", b"CDF\x01\0\0\0\0"), Err(NcError::EINVAL));
    }
}
