//! Zarr v2 `dtype` strings for netCDF types.

use crate::error::{NcError, NcResult};
use crate::types::*;

/// The dtype we write for a variable (or typed attribute).
///
/// One-byte types use `|` as zarr-python and tensorstore expect; NC_CHAR is
/// `>S1` and NC_STRING `|S<maxstrlen>`, as netcdf-c writes them.
pub fn dtype_for(xtype: NcType, endianness: i32, maxstrlen: usize) -> NcResult<String> {
    let order = match endianness {
        NC_ENDIAN_BIG => '>',
        NC_ENDIAN_LITTLE => '<',
        _ if cfg!(target_endian = "big") => '>',
        _ => '<',
    };
    Ok(match xtype {
        NC_BYTE => "|i1".to_string(),
        NC_UBYTE => "|u1".to_string(),
        NC_CHAR => ">S1".to_string(),
        NC_STRING => format!("|S{}", maxstrlen.max(1)),
        NC_SHORT => format!("{order}i2"),
        NC_USHORT => format!("{order}u2"),
        NC_INT => format!("{order}i4"),
        NC_UINT => format!("{order}u4"),
        NC_INT64 => format!("{order}i8"),
        NC_UINT64 => format!("{order}u8"),
        NC_FLOAT => format!("{order}f4"),
        NC_DOUBLE => format!("{order}f8"),
        _ => return Err(NcError::EBADTYPE),
    })
}

/// What a dtype string means for netCDF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dtype {
    pub xtype: NcType,
    pub endianness: i32,
    /// For strings: the fixed width, in bytes (`S`) or characters (`U`).
    pub width: usize,
    /// numpy's `U<n>`: each character a UTF-32 code unit in `endianness`.
    pub utf32: bool,
}

/// Parse a dtype. `S1` with a `>` prefix is NC_CHAR (netcdf-c's marker);
/// other `S<n>` are NC_STRING, as are numpy's `U<n>` (UTF-32). (netcdf-c
/// 4.9.0 wrote NC_CHAR as `<U1` holding single bytes; its reader knows.)
pub fn parse_dtype(s: &str) -> NcResult<Dtype> {
    let (endianness, body) = match s.chars().next() {
        Some('<') => (NC_ENDIAN_LITTLE, &s[1..]),
        Some('>') => (NC_ENDIAN_BIG, &s[1..]),
        Some('|') => (NC_ENDIAN_NATIVE, &s[1..]),
        _ => (NC_ENDIAN_NATIVE, s),
    };
    let kind = body.chars().next().ok_or(NcError::EBADTYPE)?;
    // `kind` may be any character, not only ASCII.
    let size: usize = body[kind.len_utf8()..].parse().map_err(|_| NcError::EBADTYPE)?;
    let fixed = |xtype| Ok(Dtype { xtype, endianness, width: size, utf32: false });
    match (kind, size) {
        ('i', 1) => fixed(NC_BYTE),
        ('i', 2) => fixed(NC_SHORT),
        ('i', 4) => fixed(NC_INT),
        ('i', 8) => fixed(NC_INT64),
        ('u', 1) => fixed(NC_UBYTE),
        ('u', 2) => fixed(NC_USHORT),
        ('u', 4) => fixed(NC_UINT),
        ('u', 8) => fixed(NC_UINT64),
        // numpy booleans are one byte, 0 or 1: read as unsigned bytes.
        ('b', 1) => fixed(NC_UBYTE),
        ('f', 4) => fixed(NC_FLOAT),
        ('f', 8) => fixed(NC_DOUBLE),
        ('S', 1) if endianness == NC_ENDIAN_BIG => fixed(NC_CHAR),
        ('U', n) if n >= 1 => Ok(Dtype { xtype: NC_STRING, endianness, width: n, utf32: true }),
        ('S', n) if n >= 1 => Ok(Dtype { xtype: NC_STRING, endianness: NC_ENDIAN_NATIVE, width: n, utf32: false }),
        _ => Err(NcError::EBADTYPE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_of_every_type() {
        for t in [NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT, NC_UINT, NC_INT64, NC_UINT64, NC_FLOAT, NC_DOUBLE] {
            let s = dtype_for(t, NC_ENDIAN_BIG, 0).unwrap();
            let d = parse_dtype(&s).unwrap();
            assert_eq!(d.xtype, t, "{s}");
        }
        assert_eq!(dtype_for(NC_INT, NC_ENDIAN_BIG, 0).unwrap(), ">i4");
        assert_eq!(dtype_for(NC_BYTE, NC_ENDIAN_LITTLE, 0).unwrap(), "|i1");
        assert_eq!(dtype_for(NC_STRING, 0, 64).unwrap(), "|S64");
        assert_eq!(parse_dtype(">S1").unwrap().xtype, NC_CHAR);
        assert_eq!(parse_dtype("|S1").unwrap().xtype, NC_STRING);
        assert_eq!(parse_dtype("|S128").unwrap().width, 128);
        assert_eq!(parse_dtype("<f4").unwrap().endianness, NC_ENDIAN_LITTLE);
    }

    #[test]
    fn unsupported_dtypes() {
        assert_eq!(parse_dtype("|b1").unwrap().xtype, NC_UBYTE);
        assert_eq!(
            parse_dtype("<U4").unwrap(),
            Dtype { xtype: NC_STRING, endianness: NC_ENDIAN_LITTLE, width: 4, utf32: true }
        );
        // "<é4": found by fuzzing (fuzz/regressions/attrs); it panicked.
        for bad in ["<f2", "<c8", "<M8[ns]", "|O", "", "<i3", "|J0", "|b2", "<é4", "é", "<"] {
            assert_eq!(parse_dtype(bad), Err(NcError::EBADTYPE), "{bad}");
        }
    }
}
