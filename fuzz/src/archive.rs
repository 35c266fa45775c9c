//! The byte format the store targets decode into a store: a seed for the
//! harness's own choices, then key/value records.
//!
//! ```text
//! input  := seed entry*
//! seed   := 8 bytes, u64 little-endian (missing bytes read as 0)
//! entry  := klen key vlen value
//! klen   := 1 byte
//! key    := klen bytes (UTF-8, lossily)
//! vlen   := u32 little-endian (missing bytes read as 0); more than is
//!           left means "the rest"
//! value  := vlen bytes
//! ```
//!
//! Every input decodes to something; keys the store refuses are dropped
//! and a later record for the same key replaces an earlier one.
//! `fuzz/gen_seeds.py` writes this format from real stores.

/// A decoded archive.
pub struct Archive {
    pub seed: u64,
    pub objects: Vec<(String, Vec<u8>)>,
}

fn le(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

pub fn decode(data: &[u8]) -> Archive {
    let (head, mut rest) = data.split_at(data.len().min(8));
    let seed = le(head);
    let mut objects = Vec::new();
    while let Some((&klen, after)) = rest.split_first() {
        let klen = usize::from(klen).min(after.len());
        let (key, after) = after.split_at(klen);
        let (vlen, after) = after.split_at(after.len().min(4));
        let vlen = usize::try_from(le(vlen)).unwrap_or(usize::MAX).min(after.len());
        let (value, after) = after.split_at(vlen);
        objects.push((String::from_utf8_lossy(key).into_owned(), value.to_vec()));
        rest = after;
    }
    Archive { seed, objects }
}

/// The inverse of [`decode`] (keys longer than 255 bytes cannot be written).
pub fn encode(seed: u64, objects: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = seed.to_le_bytes().to_vec();
    for (key, value) in objects {
        let key = key.as_bytes();
        out.push(u8::try_from(key.len()).expect("key longer than 255 bytes"));
        out.extend_from_slice(key);
        out.extend_from_slice(&u32::try_from(value.len()).expect("value too long").to_le_bytes());
        out.extend_from_slice(value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_truncation() {
        let objects = vec![(".zgroup".to_string(), b"{}".to_vec()), ("v/0".to_string(), vec![1, 2, 3])];
        let bytes = encode(7, &objects);
        let a = decode(&bytes);
        assert_eq!((a.seed, a.objects), (7, objects));
        let cut = decode(&bytes[..bytes.len() - 1]);
        assert_eq!(cut.objects[1].1, vec![1, 2]);
        assert!(decode(&[1, 2]).objects.is_empty());
    }
}
