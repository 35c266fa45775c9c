//! Zarr v3 `data_type`s as netCDF types (ZARR_V3.md §1.4).

use serde_json::{Value, json};

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

/// The core data type name of a netCDF number type.
pub fn core_name(xtype: NcType) -> Option<&'static str> {
    Some(match xtype {
        NC_BYTE => "int8",
        NC_UBYTE => "uint8",
        NC_SHORT => "int16",
        NC_USHORT => "uint16",
        NC_INT => "int32",
        NC_UINT => "uint32",
        NC_INT64 => "int64",
        NC_UINT64 => "uint64",
        NC_FLOAT => "float32",
        NC_DOUBLE => "float64",
        _ => return None,
    })
}

/// The `data_type` of a variable this library defines: the core types;
/// NC_CHAR as one-byte `null_terminated_bytes` (numpy `S1`, what
/// zarr-python and xarray read as text; netcdf-c's draft writes `uint8`,
/// which they read as numbers); NC_STRING as `string` (vlen-utf8).
pub fn for_new_var(xtype: NcType) -> NcResult<Value> {
    Ok(match xtype {
        NC_CHAR => json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 1}}),
        NC_STRING => json!("string"),
        t => json!(core_name(t).ok_or(NcError::EBADTYPE)?),
    })
}

/// The type an NCZarr-on-v3 `attribute_types` entry names, as the v2
/// dtype our attribute decoder takes (`char` and `string` are netCDF's
/// two text types; `json` and unknown names have none).
pub fn attribute_dtype(name: &str) -> Option<String> {
    let xtype = match name {
        "char" => NC_CHAR,
        "string" => NC_STRING,
        other => parse(&json!(other)).ok().filter(|t| t.text.is_none() && !t.vlen && !t.bool && !t.half)?.xtype,
    };
    crate::format::dtype::dtype_for(xtype, NC_ENDIAN_LITTLE, 1).ok()
}

/// The `attribute_types` name of an attribute's netCDF type.
pub fn attribute_type_name(xtype: NcType) -> &'static str {
    match xtype {
        NC_CHAR => "char",
        NC_STRING => "string",
        t => core_name(t).unwrap_or("json"),
    }
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
    fn written_types_read_back() {
        for t in [NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT, NC_UINT, NC_INT64, NC_UINT64, NC_FLOAT, NC_DOUBLE] {
            assert_eq!(parse(&for_new_var(t).unwrap()).unwrap().xtype, t);
            let dtype = attribute_dtype(attribute_type_name(t)).unwrap();
            assert_eq!(crate::format::dtype::parse_dtype(&dtype).unwrap().xtype, t);
        }
        assert_eq!(parse(&for_new_var(NC_STRING).unwrap()).unwrap(), parse(&json!("string")).unwrap());
        assert_eq!(parse(&for_new_var(NC_CHAR).unwrap()).unwrap().text, Some(FixedText::Bytes(1)));
        assert_eq!(attribute_dtype("char").as_deref(), Some(">S1"));
        assert_eq!(attribute_dtype("json"), None);
        assert_eq!(attribute_dtype("bool"), None);
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
