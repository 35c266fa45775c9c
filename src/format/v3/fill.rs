//! Zarr v3 `fill_value`s (ZARR_V3.md §1.5): numbers within the type's
//! range, `"NaN"`/`"Infinity"`/`"-Infinity"`, `"0x…"` IEEE bit patterns
//! (the only way to give a NaN payload), booleans, strings, and base64
//! for byte strings (what zarr-python writes for `null_terminated_bytes`).

use serde_json::Value;

use super::dtype::{FixedText, V3Type};
use crate::error::{NcError, NcResult};
use crate::format::attrs::decode_fill_number;
use crate::model::Values;
use crate::types::*;

/// The fill value in the variable's type. `null` (which zarr-python
/// refuses, and netcdf-c's draft writes for NOFILL) is `None`. A value
/// that is not one of the type is NC_ENCZARR; an integer out of range
/// NC_ERANGE.
pub fn decode(v: &Value, ty: &V3Type) -> NcResult<Option<Values>> {
    let values = match (ty.text, v) {
        (_, Value::Null) => return Ok(None),
        (Some(FixedText::Utf32(_)), Value::String(s)) => Values::String(vec![s.as_bytes().to_vec()]),
        // `string` fills are text; variable-length bytes are base64.
        (None, Value::String(s)) if ty.binary => Values::String(vec![base64(s)?]),
        (None, Value::String(s)) if ty.vlen => Values::String(vec![s.as_bytes().to_vec()]),
        (None, _) if ty.vlen => return Err(NcError::ENCZARR),
        (Some(FixedText::Bytes(_)), Value::String(s)) => Values::String(vec![base64(s)?]),
        (Some(_), _) => return Err(NcError::ENCZARR),
        (None, Value::Bool(b)) if ty.bool => Values::UByte(vec![u8::from(*b)]),
        (None, Value::String(s)) if s.starts_with("0x") && matches!(ty.xtype, NC_FLOAT | NC_DOUBLE) => {
            let bits = u64::from_str_radix(&s[2..], 16).map_err(|_| NcError::ENCZARR)?;
            match ty.xtype {
                NC_FLOAT if ty.half => Values::Float(vec![
                    half::f16::from_bits(u16::try_from(bits).map_err(|_| NcError::ENCZARR)?).to_f32(),
                ]),
                NC_FLOAT => Values::Float(vec![f32::from_bits(u32::try_from(bits).map_err(|_| NcError::ENCZARR)?)]),
                _ => Values::Double(vec![f64::from_bits(bits)]),
            }
        }
        (None, Value::Number(_) | Value::String(_)) => decode_fill_number(v, ty.xtype)?,
        _ => return Err(NcError::ENCZARR),
    };
    Ok(Some(values))
}

/// A fill value as the `fill_value` of a variable this library defines
/// (types as `dtype::for_new_var` writes them): numbers as JSON numbers
/// or `"NaN"`/`"Infinity"`/`"-Infinity"`, NC_CHAR's byte base64 (as
/// zarr-python writes `null_terminated_bytes`), a string as itself.
pub fn encode(fill: &Values) -> Value {
    match fill {
        Values::Char(c) => Value::String(to_base64(&c[..c.iter().position(|&b| b == 0).unwrap_or(c.len())])),
        Values::String(s) => Value::String(String::from_utf8_lossy(s.first().map_or(&[][..], |s| s)).into_owned()),
        Values::Float(v) => crate::format::json::f32_value(v.first().copied().unwrap_or(0.0)),
        Values::Double(v) => crate::format::json::f64_value(v.first().copied().unwrap_or(0.0)),
        other => match crate::format::attrs::encode(other).0 {
            Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
            v => v,
        },
    }
}

pub use crate::format::base64::{decode as base64, encode as to_base64};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::v3::dtype::parse;
    use serde_json::json;

    fn fill(v: Value, t: &str) -> NcResult<Option<Values>> {
        decode(&v, &parse(&json!(t)).unwrap())
    }

    #[test]
    fn numbers_and_specials() {
        assert_eq!(fill(json!(-5), "int16").unwrap(), Some(Values::Short(vec![-5])));
        assert_eq!(
            fill(json!(18446744073709551615u64), "uint64").unwrap(),
            Some(Values::UInt64(vec![u64::MAX])),
            "u64 max exactly"
        );
        assert_eq!(fill(json!(1.0), "int32").unwrap(), Some(Values::Int(vec![1])));
        assert_eq!(fill(json!(300), "int8"), Err(NcError::ERANGE));
        assert_eq!(fill(json!("Infinity"), "float64").unwrap(), Some(Values::Double(vec![f64::INFINITY])));
        assert_eq!(fill(json!(0.1), "float32").unwrap(), Some(Values::Float(vec![0.1])));
        let Some(Values::Float(nan)) = fill(json!("NaN"), "float32").unwrap() else { panic!() };
        assert!(nan[0].is_nan());
        // A NaN payload survives only in hex.
        let Some(Values::Float(p)) = fill(json!("0x7fc00001"), "float32").unwrap() else { panic!() };
        assert_eq!(p[0].to_bits(), 0x7fc0_0001);
        let Some(Values::Double(d)) = fill(json!("0x7ff8000000000001"), "float64").unwrap() else { panic!() };
        assert_eq!(d[0].to_bits(), 0x7ff8_0000_0000_0001);
        assert_eq!(fill(json!("0x1ffffffff"), "float32"), Err(NcError::ENCZARR));
        assert_eq!(fill(json!("0x7c00"), "float16").unwrap(), Some(Values::Float(vec![f32::INFINITY])));
        assert_eq!(fill(json!("0x17c00"), "float16"), Err(NcError::ENCZARR));
        assert_eq!(fill(json!(true), "bool").unwrap(), Some(Values::UByte(vec![1])));
        assert_eq!(fill(json!(null), "int32").unwrap(), None);
        assert_eq!(fill(json!([1, 2]), "int32"), Err(NcError::ENCZARR));
        assert_eq!(fill(json!(true), "int32"), Err(NcError::ENCZARR));
    }

    #[test]
    fn strings() {
        let utf32 = parse(&json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 8}})).unwrap();
        assert_eq!(decode(&json!("ab"), &utf32).unwrap(), Some(Values::String(vec![b"ab".to_vec()])));
        let bytes = parse(&json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 4}})).unwrap();
        assert_eq!(decode(&json!("YWI="), &bytes).unwrap(), Some(Values::String(vec![b"ab".to_vec()])));
        assert_eq!(decode(&json!(""), &bytes).unwrap(), Some(Values::String(vec![Vec::new()])));
        assert_eq!(decode(&json!("Y"), &bytes), Err(NcError::ENCZARR));
        assert_eq!(decode(&json!(3), &bytes), Err(NcError::ENCZARR));
    }

    #[test]
    fn base64_decodes() {
        assert_eq!(base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(base64("AAAAAAAA+H8=").unwrap(), f64::NAN.to_le_bytes());
        assert!(base64("a$==").is_err());
        assert!(base64("a===").is_err());
    }
}
