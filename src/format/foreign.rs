//! Files of the formats netcdf-c reads and this library does not build
//! (classic CDF-1/2/5 and HDF5), recognised by their magic numbers so a
//! plain path to one is NC_ENOTBUILT, as netcdf-c built without that
//! format answers, rather than "unknown format".

use std::io::Read;
use std::path::Path;

/// Bytes netcdf-c reads to recognise a format.
pub const MAGIC_NUMBER_LEN: usize = 8;

/// Does `head` start like a classic or HDF5 file (HDF5 with its superblock
/// at offset 0, where netCDF-4 files have it)?
pub fn is_netcdf_image(head: &[u8]) -> bool {
    head.starts_with(b"CDF\x01")
        || head.starts_with(b"CDF\x02")
        || head.starts_with(b"CDF\x05")
        || head.starts_with(b"\x89HDF\r\n\x1a\n")
}

/// Is the regular file at `path` a classic or HDF5 netCDF file?
pub fn is_netcdf_file(path: &Path) -> bool {
    let mut head = [0u8; MAGIC_NUMBER_LEN];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && is_netcdf_image(&head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers() {
        assert!(is_netcdf_image(b"CDF\x01\0\0\0\0"));
        assert!(is_netcdf_image(b"CDF\x05\0\0\0\0"));
        assert!(is_netcdf_image(b"\x89HDF\r\n\x1a\n"));
        assert!(!is_netcdf_image(b"CDF\x03\0\0\0\0"));
        assert!(!is_netcdf_image(b"PK\x03\x04"));
        assert!(!is_netcdf_image(b""));
    }
}
