//! The codecs built into the library, in numcodecs' stream formats so
//! that zarr-python reads what we write and we read what it writes.

use std::io::{Read, Write};

use serde_json::Value;

use super::Codec;
use super::contexts::{Wrapper, deflate, inflate, zstd_decode, zstd_encode};
use super::fletcher::fletcher32;
use super::spec::param;
use crate::error::{NcError, NcResult};

/// The codec a JSON object names; NC_ENOFILTER for one we do not have.
pub fn build(codec: &Value, elem_size: usize) -> NcResult<Box<dyn Codec>> {
    let level = |key: &str, default: i64| param(codec.get(key)).unwrap_or(default);
    Ok(match codec.get("id").and_then(Value::as_str) {
        Some("zlib") => Box::new(Zlib { level: level("level", 1).clamp(0, 9) as u32, gzip: false }),
        Some("gzip") => Box::new(Zlib { level: level("level", 1).clamp(0, 9) as u32, gzip: true }),
        Some("shuffle") => {
            // netcdf-c wrote elementsize 0; the element size is the type's.
            let given = level("elementsize", 0);
            Box::new(Shuffle { size: if given > 0 { given as usize } else { elem_size } })
        }
        Some("fletcher32") => Box::new(Fletcher32),
        Some("bz2") => Box::new(Bz2 { level: level("level", 9).clamp(1, 9) as u32 }),
        Some("zstd") => Box::new(Zstd { level: level("level", 3) as i32 }),
        // numcodecs' LZ4 passes its `acceleration` (default 1) to liblz4.
        Some("lz4") => Box::new(Lz4 { acceleration: level("acceleration", 1).clamp(1, 65537) as i32 }),
        // numcodecs' CRC32C (checksum last unless `location` says start,
        // as numcodecs 0.16 writes it); Zarr v3's `crc32c` is the same.
        Some("crc32c") => Box::new(Crc32c {
            at_end: match codec.get("location").and_then(Value::as_str) {
                Some("start") => false,
                None | Some("end") => true,
                Some(_) => return Err(NcError::EFILTER),
            },
        }),
        Some("blosc") => Box::new(super::blosc::Blosc {
            cname: codec.get("cname").and_then(Value::as_str).unwrap_or("lz4").to_string(),
            clevel: level("clevel", 5) as i32,
            shuffle: level("shuffle", 1).clamp(0, 2) as u32,
            typesize: param(codec.get("typesize")).filter(|&t| t > 0).map_or(elem_size, |t| t as usize),
            blocksize: param(codec.get("blocksize")).filter(|&b| b > 0).map_or(0, |b| b as usize),
        }),
        _ => return Err(NcError::ENOFILTER),
    })
}

/// Read a decoder to its end, but never past `max_len` bytes (the buffer
/// grows with what the stream really holds, whatever it claims).
fn read_bounded(mut reader: impl Read, max_len: usize) -> NcResult<Vec<u8>> {
    let mut out = Vec::new();
    let limit = (max_len as u64).saturating_add(1);
    (&mut reader)
        .take(limit)
        .read_to_end(&mut out)
        .map_err(|e| if e.kind() == std::io::ErrorKind::OutOfMemory { NcError::ENOMEM } else { NcError::EFILTER })?;
    if out.len() > max_len {
        return Err(NcError::EFILTER);
    }
    Ok(out)
}

struct Zlib {
    level: u32,
    gzip: bool,
}

impl Codec for Zlib {
    fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>> {
        deflate(if self.gzip { Wrapper::Gzip } else { Wrapper::Zlib }, data, self.level)
    }

    fn decode(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        if self.gzip {
            read_bounded(flate2::read::GzDecoder::new(data), max_len)
        } else {
            read_bounded(flate2::read::ZlibDecoder::new(data), max_len)
        }
    }

    fn decode_sized(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        // libdeflate decodes a whole stream into a buffer of known size at
        // about twice the speed of streaming inflate; what it refuses
        // (damaged, or a form it does not take) goes to the stream
        // decoder, which refuses it too or decodes it.
        let wrapper = if self.gzip { Wrapper::Gzip } else { Wrapper::Zlib };
        // Deflate expands at most 1032 times: a buffer that big holds
        // any stream this input can be, whatever `max_len` allows.
        // Only the bytes libdeflate writes are kept (truncated to them).
        let mut out = crate::buffers::overwritable(max_len.min(data.len().saturating_mul(1032).saturating_add(64)))?;
        match inflate(wrapper, data, &mut out)? {
            Some(n) => {
                out.truncate(n);
                Ok(out)
            }
            None => self.decode(data, max_len),
        }
    }
}

/// Byte shuffle (see `super::shuffle`).
struct Shuffle {
    size: usize,
}

impl Codec for Shuffle {
    fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>> {
        let mut out = crate::buffers::overwritable(data.len())?;
        super::shuffle::shuffle_into(data, self.size, &mut out);
        Ok(out)
    }

    fn decode(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        if data.len() > max_len {
            return Err(NcError::EFILTER);
        }
        let mut out = crate::buffers::overwritable(data.len())?;
        super::shuffle::unshuffle_into(data, self.size, &mut out);
        Ok(out)
    }
}

/// HDF5's checksum appended (little-endian), checked on decode.
struct Fletcher32;

impl Codec for Fletcher32 {
    fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>> {
        let mut out = data.to_vec();
        out.extend_from_slice(&fletcher32(data).to_le_bytes());
        Ok(out)
    }

    fn decode(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        if data.len() < 4 || data.len() - 4 > max_len {
            return Err(NcError::EFILTER);
        }
        let (body, sum) = data.split_at(data.len() - 4);
        if fletcher32(body).to_le_bytes() != sum {
            return Err(NcError::EFILTER);
        }
        Ok(body.to_vec())
    }
}

struct Bz2 {
    level: u32,
}

impl Codec for Bz2 {
    fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(self.level));
        e.write_all(data).and_then(|_| e.finish()).map_err(|_| NcError::EFILTER)
    }

    fn decode(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        read_bounded(bzip2::read::BzDecoder::new(data), max_len)
    }
}

struct Zstd {
    level: i32,
}

impl Codec for Zstd {
    fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>> {
        zstd_encode(data, self.level)
    }

    fn decode(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        let decoder = zstd::stream::read::Decoder::new(data).map_err(|_| NcError::EFILTER)?;
        read_bounded(decoder, max_len)
    }

    fn decode_sized(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        // A frame that says its size is decoded into a buffer of that
        // size, in one go; one that does not is streamed.
        match zstd::zstd_safe::get_frame_content_size(data) {
            Ok(Some(size)) if size > max_len as u64 => Err(NcError::EFILTER),
            Ok(Some(size)) => {
                let mut out = crate::buffers::with_capacity(size as usize)?;
                match zstd_decode(data, &mut out) {
                    Ok(()) => Ok(out),
                    // Several frames (the first one's size is not the
                    // whole), or damaged: the stream decoder decides.
                    Err(_) => self.decode(data, max_len),
                }
            }
            _ => self.decode(data, max_len),
        }
    }
}

/// numcodecs LZ4: a little-endian u32 of the decoded size, then one block.
struct Lz4 {
    acceleration: i32,
}

impl Codec for Lz4 {
    fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>> {
        let size = u32::try_from(data.len()).map_err(|_| NcError::EFILTER)?;
        let bound = super::contexts::lz4_bound(data.len());
        let mut out = crate::buffers::with_capacity(4 + bound)?;
        out.extend_from_slice(&size.to_le_bytes());
        super::contexts::lz4_encode_append(data, &mut out, bound, self.acceleration)?.ok_or(NcError::EFILTER)?;
        Ok(out)
    }

    fn decode(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        let size =
            data.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize).ok_or(NcError::EFILTER)?;
        // An LZ4 block expands at most 255 times (plus its last literals):
        // a bigger claim is a lie, refused before allocating for it.
        let block = &data[4..];
        if size > max_len || size > block.len().saturating_mul(255).saturating_add(16) {
            return Err(NcError::EFILTER);
        }
        // Decoded to exactly `size` bytes, or an error.
        let mut out = crate::buffers::overwritable(size)?;
        super::contexts::lz4_decode_exact(block, &mut out)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Vec<u8> {
        (0..4096u32).flat_map(|i| ((i / 7) as f32).to_le_bytes()).collect()
    }

    #[test]
    fn every_codec_round_trips() {
        let data = sample();
        for codec in [
            json!({"id": "zlib", "level": 5}),
            json!({"id": "gzip", "level": 1}),
            json!({"id": "shuffle", "elementsize": 4}),
            json!({"id": "fletcher32"}),
            json!({"id": "bz2", "level": 9}),
            json!({"id": "zstd", "level": 3}),
            json!({"id": "lz4", "acceleration": 1}),
        ] {
            let c = build(&codec, 4).unwrap();
            let enc = c.encode(&data).unwrap();
            assert_eq!(c.decode(&enc, data.len() + 16).unwrap(), data, "{codec}");
        }
    }

    #[test]
    fn corrupt_and_oversized_input_is_an_error() {
        let data = sample();
        for codec in [json!({"id": "zlib"}), json!({"id": "bz2"}), json!({"id": "zstd"}), json!({"id": "lz4"})] {
            let c = build(&codec, 4).unwrap();
            let enc = c.encode(&data).unwrap();
            // A decompression bomb: more output than the chunk can hold.
            assert_eq!(c.decode(&enc, data.len() / 2).err(), Some(NcError::EFILTER), "{codec}");
            let mut bad = enc.clone();
            let mid = bad.len() / 2;
            bad.truncate(mid);
            assert!(c.decode(&bad, data.len()).is_err() || c.decode(&bad, data.len()).unwrap() != data);
        }
        let f = build(&json!({"id": "fletcher32"}), 4).unwrap();
        let mut enc = f.encode(&data).unwrap();
        enc[10] ^= 1;
        assert_eq!(f.decode(&enc, data.len()).err(), Some(NcError::EFILTER));
        assert_eq!(build(&json!({"id": "snappy"}), 4).err(), Some(NcError::ENOFILTER));
    }

    #[test]
    fn shuffle_layout() {
        let s = build(&json!({"id": "shuffle", "elementsize": 0}), 2).unwrap();
        assert_eq!(s.encode(&[1, 2, 3, 4, 5]).unwrap(), vec![1, 3, 2, 4, 5]);
    }
}

/// A CRC-32C of the data, 4 bytes little-endian, before or after it;
/// decoding checks and removes it (a mismatch is NC_EFILTER).
struct Crc32c {
    at_end: bool,
}

impl Codec for Crc32c {
    fn encode(&self, data: &[u8]) -> NcResult<Vec<u8>> {
        let sum = crc32c::crc32c(data).to_le_bytes();
        let mut out = Vec::with_capacity(data.len() + 4);
        if self.at_end {
            out.extend_from_slice(data);
            out.extend_from_slice(&sum);
        } else {
            out.extend_from_slice(&sum);
            out.extend_from_slice(data);
        }
        Ok(out)
    }

    fn decode(&self, data: &[u8], max_len: usize) -> NcResult<Vec<u8>> {
        if data.len() < 4 || data.len() - 4 > max_len {
            return Err(NcError::EFILTER);
        }
        let (body, sum) = if self.at_end { data.split_at(data.len() - 4) } else { (&data[4..], &data[..4]) };
        if crc32c::crc32c(body).to_le_bytes() != sum {
            return Err(NcError::EFILTER);
        }
        Ok(body.to_vec())
    }
}

#[cfg(test)]
mod crc_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn crc32c_either_end() {
        // numcodecs 0.16.6: CRC32C().encode(b"123456789") ends 839206e3.
        let end = build(&json!({"id": "crc32c"}), 1).unwrap();
        let start = build(&json!({"id": "crc32c", "location": "start"}), 1).unwrap();
        // CRC-32C("123456789") = 0xE3069283 (the standard check value).
        let encoded = end.encode(b"123456789").unwrap();
        assert_eq!(&encoded[9..], &0xE306_9283u32.to_le_bytes());
        assert_eq!(end.decode(&encoded, 9).unwrap(), b"123456789");
        let first = start.encode(b"123456789").unwrap();
        assert_eq!(&first[..4], &0xE306_9283u32.to_le_bytes());
        assert_eq!(start.decode(&first, 9).unwrap(), b"123456789");
        let mut bad = encoded.clone();
        bad[0] ^= 1;
        assert_eq!(end.decode(&bad, 9), Err(NcError::EFILTER));
        assert_eq!(end.decode(b"abc", 9), Err(NcError::EFILTER));
        assert!(build(&json!({"id": "crc32c", "location": "middle"}), 1).is_err());
    }
}
