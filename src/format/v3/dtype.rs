//! Zarr v3 `data_type`s as netCDF types (ZARR_V3.md §1.4).

use serde_json::Value;

use crate::error::{NcError, NcResult};
use crate::types::*;

/// What a v3 data type is for netCDF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct V3Type {
    pub xtype: NcType,
    /// Bytes per element as stored (the fixed width of a fixed string).
    pub size: usize,
    /// Fixed-width strings: numpy `U<n>` (UTF-32 code units) or `S<n>`.
    pub text: Option<FixedText>,
    /// Stored as `bool` (fill values may be JSON booleans).
    pub bool: bool,
    /// Stored as IEEE half floats, read as NC_FLOAT.
    pub half: bool,
    /// Variable-length strings (`string`, or bytes): NC_STRING.
    pub vlen: bool,
    /// Variable-length bytes (`bytes`, `variable_length_bytes`): their
    /// fill value is base64.
    pub binary: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixedText {
    /// `fixed_length_utf32`: this many characters.
    Utf32(usize),
    /// `null_terminated_bytes`: this many bytes.
    Bytes(usize),
}

fn plain(xtype: NcType, size: usize) -> V3Type {
    V3Type { xtype, size, text: None, bool: false, half: false, vlen: false, binary: false }
}

/// The netCDF view of a `data_type`. Types netCDF cannot hold (complex,
/// raw bits, dates, structs) are NC_EBADTYPE: the caller lists the
/// variable and refuses its data.
pub fn parse(data_type: &Value) -> NcResult<V3Type> {
    let (name, config) = match data_type {
        Value::String(s) => (s.as_str(), None),
        Value::Object(o) => (o.get("name").and_then(Value::as_str).ok_or(NcError::ENCZARR)?, o.get("configuration")),
        _ => return Err(NcError::ENCZARR),
    };
    let length_bytes = || {
        config
            .and_then(|c| c.get("length_bytes"))
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n > 0)
            .ok_or(NcError::ENCZARR)
    };
    Ok(match name {
        "bool" => V3Type { bool: true, ..plain(NC_UBYTE, 1) },
        "int8" => plain(NC_BYTE, 1),
        "uint8" => plain(NC_UBYTE, 1),
        "int16" => plain(NC_SHORT, 2),
        "uint16" => plain(NC_USHORT, 2),
        "int32" => plain(NC_INT, 4),
        "uint32" => plain(NC_UINT, 4),
        "int64" => plain(NC_INT64, 8),
        "uint64" => plain(NC_UINT64, 8),
        "float16" => V3Type { half: true, ..plain(NC_FLOAT, 2) },
        "float32" => plain(NC_FLOAT, 4),
        "float64" => plain(NC_DOUBLE, 8),
        "string" => V3Type { vlen: true, ..plain(NC_STRING, 16) },
        "bytes" | "variable_length_bytes" => V3Type { vlen: true, binary: true, ..plain(NC_STRING, 16) },
        "fixed_length_utf32" => {
            let bytes = length_bytes()?;
            if bytes % 4 != 0 {
                return Err(NcError::ENCZARR);
            }
            V3Type { text: Some(FixedText::Utf32(bytes / 4)), ..plain(NC_STRING, bytes) }
        }
        "null_terminated_bytes" => {
            let bytes = length_bytes()?;
            V3Type { text: Some(FixedText::Bytes(bytes)), ..plain(NC_STRING, bytes) }
        }
        _ => return Err(NcError::EBADTYPE),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn core_and_fixed_string_types() {
        assert_eq!(parse(&json!("int32")).unwrap(), plain(NC_INT, 4));
        assert_eq!(parse(&json!("uint64")).unwrap().xtype, NC_UINT64);
        let b = parse(&json!("bool")).unwrap();
        assert!(b.bool && b.xtype == NC_UBYTE);
        let u = parse(&json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}})).unwrap();
        assert_eq!((u.xtype, u.size, u.text), (NC_STRING, 12, Some(FixedText::Utf32(3))));
        let s = parse(&json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 5}})).unwrap();
        assert_eq!(s.text, Some(FixedText::Bytes(5)));
    }

    #[test]
    fn other_types() {
        let h = parse(&json!("float16")).unwrap();
        assert!(h.half && h.xtype == NC_FLOAT && h.size == 2);
        assert!(parse(&json!("string")).unwrap().vlen);
        for t in [json!("complex64"), json!("r16"), json!({"name": "struct"})] {
            assert_eq!(parse(&t), Err(NcError::EBADTYPE), "{t}");
        }
        for bad in [json!(3), json!({"configuration": {}}), json!({"name": "fixed_length_utf32"})] {
            assert_eq!(parse(&bad), Err(NcError::ENCZARR), "{bad}");
        }
        let odd = json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 6}});
        assert_eq!(parse(&odd), Err(NcError::ENCZARR));
    }
}
