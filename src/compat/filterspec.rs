//! Filter spec text as ncgen (`_Filter`) and nccopy (`-F`) give it to
//! `ncaux_h5filterspec_parselist`: `[format]id,p1,p2,...|id,...`, each
//! parameter a number whose last one or two characters give its type
//! (netcdf-c 4.9.0, libdispatch/daux.c):
//!
//! | tag | meaning | unsigned ints produced |
//! | --- | --- | --- |
//! | none (last char a digit), `u`/`U` | 32-bit integer | 1 |
//! | `b`/`B`, `s`/`S` (optionally `u` before) | 8/16-bit, masked | 1 |
//! | `f`/`F`, or a trailing `.` | float | 1 (its bits) |
//! | `d`/`D` | double | 2 (low word first) |
//! | `l`/`L`, `ul`/`UL` | 64-bit integer | 2 (low word first) |
//!
//! Numbers are read as C's `sscanf` reads them (`%u`, `%d`, `%lf`,
//! `%llu`, `%lld`): leading digits count, the rest is ignored, overflow
//! saturates and is then truncated to 32 bits.

use super::scan::{strtod, strtol, strtoul};
use crate::error::{NcError, NcResult};

/// One parsed filter: its HDF5 id and parameters as unsigned ints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub id: u32,
    pub params: Vec<u32>,
}

/// A parsed `|`-separated list and its optional `[format]` tag (0 when
/// absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecList {
    pub format: i32,
    pub specs: Vec<Spec>,
}

fn skip_blanks(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    &s[n..]
}

/// The type a parameter's tag selects: (type letter, unsigned).
fn tag_type(q0: u8, q1: Option<u8>) -> (Option<u8>, bool) {
    let mut unsigned = q0 == b'u' || q0 == b'U';
    let tag = q1.unwrap_or(q0);
    let kind = match tag {
        b'f' | b'F' | b'.' => Some(b'f'),
        b'd' | b'D' => Some(b'd'),
        b'b' | b'B' => Some(b'b'),
        b's' | b'S' => Some(b's'),
        b'l' | b'L' => Some(b'l'),
        b'0'..=b'9' => Some(b'i'),
        b'u' | b'U' => {
            unsigned = true;
            Some(b'i')
        }
        _ => None,
    };
    (kind, unsigned)
}

fn split64(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// One parameter (`ncaux_h5filterspec_parse_parameter`): one or two
/// unsigned ints.
pub fn parse_parameter(text: &[u8]) -> NcResult<Vec<u32>> {
    let p = skip_blanks(text);
    // netcdf-c 4.9.0 reads past the end of an empty or all-blank
    // parameter; it is an error here.
    let len = p.len();
    if len == 0 {
        return Err(NcError::EINVAL);
    }
    let negative = p[0] == b'-';
    let (kind, unsigned) = if len <= 2 { tag_type(p[len - 1], None) } else { tag_type(p[len - 2], Some(p[len - 1])) };
    match kind.ok_or(NcError::EINVAL)? {
        k @ (b'b' | b's' | b'i') => {
            let v = if negative {
                strtol(p).ok_or(NcError::EINVAL)?.0 as i32 as u32
            } else {
                strtoul(p).ok_or(NcError::EINVAL)?.0 as u32
            };
            Ok(vec![match k {
                b'b' => v & 0xff,
                b's' => v & 0xffff,
                _ => v,
            }])
        }
        b'f' => {
            let v = strtod(p).ok_or(NcError::EINVAL)?.0 as f32;
            Ok(vec![v.to_bits()])
        }
        b'd' => Ok(split64(strtod(p).ok_or(NcError::EINVAL)?.0.to_bits()).to_vec()),
        _ => {
            let v = if unsigned {
                strtoul(p).ok_or(NcError::EINVAL)?.0
            } else {
                strtol(p).ok_or(NcError::EINVAL)?.0 as u64
            };
            Ok(split64(v).to_vec())
        }
    }
}

/// One filter, `id,p1,p2,...` (`ncaux_h5filterspec_parse`).
pub fn parse_spec(text: &[u8]) -> NcResult<Spec> {
    if text.is_empty() {
        return Err(NcError::EINVAL);
    }
    let mut pieces = text.split(|&c| c == b',');
    let id = strtoul(pieces.next().unwrap_or_default()).ok_or(NcError::EINVAL)?.0 as u32;
    let mut params = Vec::new();
    for piece in pieces {
        params.extend(parse_parameter(piece)?);
    }
    Ok(Spec { id, params })
}

/// A `|`-separated list with an optional `[format]` prefix
/// (`ncaux_h5filterspec_parselist`). The empty text is an empty list; an
/// empty spec between or before `|` is an error, a trailing `|` is not.
pub fn parse_list(text: &[u8]) -> NcResult<SpecList> {
    let mut rest = text;
    let mut format = 0;
    if rest.first() == Some(&b'[') {
        let close = rest.iter().position(|&c| c == b']').ok_or(NcError::EINVAL)?;
        format = strtol(&rest[1..close]).ok_or(NcError::EINVAL)?.0 as i32;
        rest = &rest[close + 1..];
    }
    let mut specs = Vec::new();
    while !rest.is_empty() {
        let end = rest.iter().position(|&c| c == b'|').unwrap_or(rest.len());
        specs.push(parse_spec(&rest[..end])?);
        rest = if end < rest.len() { &rest[end + 1..] } else { &[] };
    }
    Ok(SpecList { format, specs })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(id: u32, params: &[u32]) -> Spec {
        Spec { id, params: params.to_vec() }
    }

    #[test]
    fn plain_lists() {
        let l = parse_list(b"307,9|1,5").unwrap();
        assert_eq!(l, SpecList { format: 0, specs: vec![spec(307, &[9]), spec(1, &[5])] });
        assert!(parse_list(b"").unwrap().specs.is_empty());
        assert_eq!(parse_list(b"2|").unwrap().specs, vec![spec(2, &[])]);
        assert_eq!(parse_list(b"[3]32015,4").unwrap(), SpecList { format: 3, specs: vec![spec(32015, &[4])] });
        assert_eq!(parse_spec(b" 1, 2,\t3").unwrap(), spec(1, &[2, 3]));
    }

    #[test]
    fn typed_parameters() {
        assert_eq!(parse_parameter(b"-17b").unwrap(), vec![239]);
        assert_eq!(parse_parameter(b"-1s").unwrap(), vec![0xffff]);
        assert_eq!(parse_parameter(b"-1").unwrap(), vec![u32::MAX]);
        assert_eq!(parse_parameter(b"10u").unwrap(), vec![10]);
        assert_eq!(parse_parameter(b"1.5f").unwrap(), vec![1.5f32.to_bits()]);
        assert_eq!(parse_parameter(b"2.").unwrap(), vec![2.0f32.to_bits()]);
        // The tag is the last character: "1.5" is an integer, read as 1.
        assert_eq!(parse_parameter(b"1.5").unwrap(), vec![1]);
        let d = 2.5f64.to_bits();
        assert_eq!(parse_parameter(b"2.5d").unwrap(), vec![d as u32, (d >> 32) as u32]);
        assert_eq!(parse_parameter(b"-2l").unwrap(), vec![u32::MAX - 1, u32::MAX]);
        assert_eq!(parse_parameter(b"18446744073709551615ul").unwrap(), vec![u32::MAX, u32::MAX]);
        assert_eq!(parse_parameter(b"4294967296").unwrap(), vec![0]);
        assert_eq!(parse_parameter(b"99999999999999999999999").unwrap(), vec![u32::MAX]);
    }

    #[test]
    fn bad_specs() {
        for bad in [&b"abc"[..], b"x1", b"1,", b"1,,2", b"1, ", b"1,f", b"[1", b"[x]1", b"|1", b"1||2", b",1"] {
            assert_eq!(parse_list(bad), Err(NcError::EINVAL), "{:?}", String::from_utf8_lossy(bad));
        }
        assert_eq!(parse_spec(b""), Err(NcError::EINVAL));
        assert_eq!(parse_parameter(b"\t"), Err(NcError::EINVAL));
    }
}
