//! An archive's table of contents, read from its central directory by the
//! `zip` crate and checked so that no entry can make a read go wrong, and
//! the reading of one entry's bytes.
//!
//! The crate parses the central directory (zip64 included) but checks
//! neither names nor where entries lie, and we read entries ourselves
//! (by `pread`, so a stored entry's byte range costs only that range).
//! So everything a hostile archive could lie about is checked here, each
//! failure NC_ENCZARR:
//! * names: UTF-8 and valid keys (nothing that could escape a root);
//! * sizes: a stored entry's two sizes agree; a deflated one claims at
//!   most deflate's maximum ratio (1032:1), which stops "zip bombs" before
//!   any allocation;
//! * places: every entry lies before the central directory and no two
//!   overlap (the overlapping-entries bomb);
//! * on an entry's first read, its local header: signature, name, method
//!   and sizes as the central directory says, data inside its place;
//! * expansion: a deflated entry of more than 64 MiB expanding more than
//!   100:1 is refused when read (an honest zip bomb);
//! * the bytes: inflated to exactly the stated size, and the CRC-32,
//!   checked whenever an entry is read whole. A part of a stored entry is
//!   read alone (the point of storing chunks uncompressed) only when the
//!   entry is bigger than [`VERIFY_WHOLE_UP_TO`] and not yet verified;
//!   smaller ones are read whole once to check their CRC.
//!
//! Duplicate names (zarr-python's `ZipStore` appends a new entry whenever
//! it rewrites a key) resolve as in Python's `zipfile`: the last wins.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use zip::CompressionMethod;

use crate::error::{NcError, NcResult};
use crate::zmap::validate_key;

/// The fixed part of a local file header.
const LOCAL_HEADER_LEN: u64 = 30;
const LOCAL_HEADER_SIGNATURE: u32 = 0x0403_4b50;
/// Deflate cannot expand data by more than about 1032:1.
const MAX_DEFLATE_RATIO: u64 = 1032;
/// A size field that says "see the zip64 extra field".
const ZIP64_MARK: u32 = u32::MAX;
const FLAG_ENCRYPTED: u16 = 0x0001;
const FLAG_DATA_DESCRIPTOR: u16 = 0x0008;
/// A deflated entry that would expand past this size at more than
/// [`BOMB_RATIO`]:1 is a zip bomb: reading it is NC_ENCZARR, before any
/// inflating. Real chunks are compressed by their codecs already and
/// barely deflate further; metadata is small.
const BOMB_SIZE: u64 = 64 << 20;
const BOMB_RATIO: u64 = 100;
/// Stored entries up to this size are read whole (and their CRC checked)
/// the first time any part of them is read: a few milliseconds at most,
/// and a flipped bit in a typical chunk is caught. Bigger ones are read by
/// range alone, unchecked unless read whole.
pub const VERIFY_WHOLE_UP_TO: u64 = 8 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Stored,
    Deflated,
    /// Anything else: listed and copied, but reading it is NC_ENCZARR.
    Other(u16),
}

/// One file entry (the winner among duplicates).
#[derive(Debug)]
pub struct Entry {
    /// The full entry name in the archive.
    pub name: String,
    /// The crate's index of the entry, for raw copies.
    pub cd_index: usize,
    pub header_start: u64,
    pub compressed_size: u64,
    pub size: u64,
    pub method: Method,
    pub crc32: u32,
    flags: u16,
    /// Where the next entry (or the central directory) starts: this one's
    /// data must end by then.
    limit: u64,
    /// Where the data starts, once the local header has been checked
    /// (0: not yet; a header takes 30 bytes, so 0 is never an answer). An
    /// atomic rather than a `OnceLock`, which a fork could copy half set.
    data_start: AtomicU64,
    /// The CRC has been checked (an atomic for the same reason).
    verified: AtomicBool,
}

/// The table of contents.
#[derive(Debug, Default)]
pub struct Index {
    /// File entries in central-directory order (of first appearance).
    pub entries: Vec<Entry>,
    /// Directory entries' names, without their trailing `/`.
    pub dirs: BTreeSet<String>,
    /// Every name in central-directory order, directories with their `/`
    /// (what layout detection looks at).
    pub order: Vec<String>,
}

/// A `Read + Seek` over a shared file that reads with `pread`, so it moves
/// no file offset another thread or a forked child shares.
pub struct At<'a> {
    file: &'a File,
    pos: u64,
    len: u64,
}

impl<'a> At<'a> {
    pub fn new(file: &'a File) -> std::io::Result<At<'a>> {
        Ok(At { file, pos: 0, len: file.metadata()?.len() })
    }
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for At<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let target = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = target.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
        Ok(self.pos)
    }
}

/// A crate error while opening: NC_ENOTNC for what is not a zip at all,
/// NC_ENCZARR for a damaged one.
fn open_error(file: &File, err: zip::result::ZipError) -> NcError {
    if let zip::result::ZipError::Io(e) = &err
        && e.kind() != std::io::ErrorKind::UnexpectedEof
    {
        return NcError::from_io(e);
    }
    let mut magic = [0u8; 2];
    let starts_like_zip = file.read_exact_at(&mut magic, 0).is_ok() && &magic == b"PK";
    if starts_like_zip { NcError::ENCZARR } else { NcError::ENOTNC }
}

fn method_of(m: CompressionMethod) -> Method {
    match m {
        CompressionMethod::Stored => Method::Stored,
        CompressionMethod::Deflated => Method::Deflated,
        #[allow(deprecated)]
        other => Method::Other(other.to_u16()),
    }
}

impl Index {
    /// Read and check the central directory of the archive in `file`.
    pub fn read(file: &File) -> NcResult<Index> {
        let reader = At::new(file).map_err(|e| NcError::from_io(&e))?;
        let archive = zip::ZipArchive::new(reader).map_err(|e| open_error(file, e))?;
        let cd_start = archive.central_directory_start();
        let metadata = archive.metadata();
        let mut index = Index::default();
        // (start, end) of every entry's header + name + data, for the
        // overlap check.
        let mut extents = Vec::with_capacity(metadata.len());
        for i in 0..metadata.len() {
            let e = metadata.entry(i).map_err(|_| NcError::ENCZARR)?;
            let name = std::str::from_utf8(e.name_raw()).map_err(|_| NcError::ENCZARR)?.to_string();
            let header_start = e.header_start();
            let compressed_size = e.compressed_size();
            let name_len = e.name_raw().len() as u64;
            let end = header_start
                .checked_add(LOCAL_HEADER_LEN + name_len)
                .and_then(|n| n.checked_add(compressed_size))
                .filter(|&end| end <= cd_start)
                .ok_or(NcError::ENCZARR)?;
            extents.push((header_start, end));
            index.order.push(name.clone());
            if let Some(dir) = name.strip_suffix('/') {
                validate_key(dir).map_err(|_| NcError::ENCZARR)?;
                if dir.is_empty() {
                    return Err(NcError::ENCZARR);
                }
                index.dirs.insert(dir.to_string());
                continue;
            }
            validate_key(&name).map_err(|_| NcError::ENCZARR)?;
            if name.is_empty() {
                return Err(NcError::ENCZARR);
            }
            let flags = e.flags().as_u16();
            let method = method_of(e.compression());
            let size = e.size();
            let plausible = match method {
                Method::Stored => compressed_size == size,
                Method::Deflated => size <= compressed_size.saturating_mul(MAX_DEFLATE_RATIO).saturating_add(64),
                Method::Other(_) => true,
            };
            if !plausible || flags & FLAG_ENCRYPTED != 0 || e.encrypted() || size > isize::MAX as u64 {
                return Err(NcError::ENCZARR);
            }
            index.entries.push(Entry {
                name,
                cd_index: i,
                header_start,
                compressed_size,
                size,
                method,
                crc32: e.crc32(),
                flags,
                limit: cd_start,
                data_start: AtomicU64::new(0),
                verified: AtomicBool::new(false),
            });
        }
        // The crate keeps only the last of duplicate names, so the
        // entries above are the winners; their places may not overlap
        // each other, nor any directory entry.
        extents.sort_unstable();
        if extents.windows(2).any(|w| w[0].1 > w[1].0) {
            return Err(NcError::ENCZARR);
        }
        for entry in &mut index.entries {
            let next = extents.partition_point(|&(start, _)| start <= entry.header_start);
            entry.limit = extents.get(next).map_or(cd_start, |&(start, _)| start);
        }
        Ok(index)
    }
}

impl Entry {
    /// Where the entry's data starts, its local header checked against
    /// the central directory the first time.
    fn data_start(&self, file: &File) -> NcResult<u64> {
        let known = self.data_start.load(Ordering::Relaxed);
        if known != 0 {
            return Ok(known);
        }
        let mut header = [0u8; LOCAL_HEADER_LEN as usize];
        file.read_exact_at(&mut header, self.header_start).map_err(|_| NcError::ENCZARR)?;
        let u16_at = |i: usize| u16::from_le_bytes([header[i], header[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
        let name_len = u64::from(u16_at(26));
        let extra_len = u64::from(u16_at(28));
        let method_matches = match self.method {
            Method::Stored => u16_at(8) == 0,
            Method::Deflated => u16_at(8) == 8,
            Method::Other(m) => u16_at(8) == m,
        };
        // With a data descriptor the local sizes and CRC may be zero; a
        // zip64 entry keeps them in its extra field.
        let field_agrees = |local: u32, central: u64| local == ZIP64_MARK || u64::from(local) == central;
        let sizes_agree = self.flags & FLAG_DATA_DESCRIPTOR != 0
            || (field_agrees(u32_at(18), self.compressed_size)
                && field_agrees(u32_at(22), self.size)
                && u32_at(14) == self.crc32);
        if u32_at(0) != LOCAL_HEADER_SIGNATURE || !method_matches || !sizes_agree || name_len != self.name.len() as u64
        {
            return Err(NcError::ENCZARR);
        }
        let mut name = vec![0u8; self.name.len()];
        file.read_exact_at(&mut name, self.header_start + LOCAL_HEADER_LEN).map_err(|_| NcError::ENCZARR)?;
        if name != self.name.as_bytes() {
            return Err(NcError::ENCZARR);
        }
        let start = self.header_start + LOCAL_HEADER_LEN + name_len + extra_len;
        if start.checked_add(self.compressed_size).is_none_or(|end| end > self.limit) {
            return Err(NcError::ENCZARR);
        }
        self.data_start.store(start, Ordering::Relaxed);
        Ok(start)
    }

    /// The whole entry, inflated if need be, its CRC checked.
    pub fn read(&self, file: &File) -> NcResult<Vec<u8>> {
        let start = self.data_start(file)?;
        let data = match self.method {
            Method::Stored => {
                // The size is bounded by the file's (checked at open).
                let mut data = vec![0u8; self.size as usize];
                file.read_exact_at(&mut data, start).map_err(|_| NcError::ENCZARR)?;
                data
            }
            Method::Deflated if self.size > BOMB_SIZE && self.size / BOMB_RATIO > self.compressed_size => {
                return Err(NcError::ENCZARR);
            }
            Method::Deflated => {
                let mut packed = vec![0u8; self.compressed_size as usize];
                file.read_exact_at(&mut packed, start).map_err(|_| NcError::ENCZARR)?;
                inflate_exact(&packed, self.size)?
            }
            Method::Other(_) => return Err(NcError::ENCZARR),
        };
        if crc32fast::hash(&data) != self.crc32 {
            return Err(NcError::ENCZARR);
        }
        self.verified.store(true, Ordering::Relaxed);
        Ok(data)
    }

    /// Read byte ranges of the entry into buffers: straight from the file
    /// for a stored entry already verified or too big to read whole (see
    /// [`VERIFY_WHOLE_UP_TO`]), from the whole entry, checked, otherwise.
    /// A range past the end is NC_ENCZARR.
    pub fn read_into(&self, file: &File, segments: &mut [(u64, &mut [u8])]) -> NcResult<()> {
        for (offset, dst) in segments.iter() {
            if offset.checked_add(dst.len() as u64).is_none_or(|end| end > self.size) {
                return Err(NcError::ENCZARR);
            }
        }
        let by_range = self.verified.load(Ordering::Relaxed) || self.size > VERIFY_WHOLE_UP_TO;
        if self.method == Method::Stored && by_range {
            let start = self.data_start(file)?;
            for (offset, dst) in segments.iter_mut() {
                file.read_exact_at(dst, start + *offset).map_err(|_| NcError::ENCZARR)?;
            }
            return Ok(());
        }
        let data = self.read(file)?;
        for (offset, dst) in segments.iter_mut() {
            let start = *offset as usize;
            dst.copy_from_slice(&data[start..start + dst.len()]);
        }
        Ok(())
    }
}

/// Inflate raw deflate data that must come to exactly `size` bytes:
/// more output than that, or less at the end of the stream, is a lie
/// (NC_ENCZARR). Memory grows with what the data really holds, not with
/// what it claims.
fn inflate_exact(packed: &[u8], size: u64) -> NcResult<Vec<u8>> {
    use flate2::{Decompress, FlushDecompress, Status};
    const STEP: usize = 1 << 24;
    let size = usize::try_from(size).map_err(|_| NcError::ENCZARR)?;
    let mut out = Vec::with_capacity(size.min(STEP));
    let mut inflater = Decompress::new(false);
    loop {
        let consumed = inflater.total_in() as usize;
        if out.len() == out.capacity() {
            if out.len() == size {
                // Full: the stream must end here, with no more output.
                let mut probe = [0u8; 1];
                let status = inflater
                    .decompress(&packed[consumed..], &mut probe, FlushDecompress::Finish)
                    .map_err(|_| NcError::ENCZARR)?;
                return match (status, inflater.total_out() as usize) {
                    (Status::StreamEnd, n) if n == size => Ok(out),
                    _ => Err(NcError::ENCZARR),
                };
            }
            out.reserve_exact((size - out.len()).min(STEP));
        }
        let before = (inflater.total_in(), inflater.total_out());
        let status = inflater
            .decompress_vec(&packed[consumed..], &mut out, FlushDecompress::Finish)
            .map_err(|_| NcError::ENCZARR)?;
        match status {
            Status::StreamEnd if out.len() == size => return Ok(out),
            Status::StreamEnd => return Err(NcError::ENCZARR),
            _ if (inflater.total_in(), inflater.total_out()) == before && out.len() < out.capacity() => {
                // No progress with room to spare: the data is cut short.
                return Err(NcError::ENCZARR);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn inflates_exactly() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let packed = deflate(&data);
        assert_eq!(inflate_exact(&packed, data.len() as u64).unwrap(), data);
        assert_eq!(inflate_exact(&deflate(&[]), 0).unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn inflation_lies_are_errors() {
        let data = vec![7u8; 1 << 20];
        let packed = deflate(&data);
        // Claims less than it holds, or more.
        assert_eq!(inflate_exact(&packed, 1000), Err(NcError::ENCZARR));
        assert_eq!(inflate_exact(&packed, (1 << 20) + 1), Err(NcError::ENCZARR));
        // Cut short, or not deflate at all.
        assert_eq!(inflate_exact(&packed[..packed.len() / 2], 1 << 20), Err(NcError::ENCZARR));
        assert!(inflate_exact(b"\xff\xff\xff\xff not deflate", 10).is_err());
    }
}
