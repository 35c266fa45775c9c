//! Attribute values as JSON in `.zattrs`, and their netCDF types as the
//! dtype strings NCZarr records in `_nczarr_attr.types`.

use serde_json::Value;

use super::dtype::{dtype_for, parse_dtype};
use super::json;
use crate::error::{NcError, NcResult};
use crate::model::Values;
use crate::model::values::with_numeric;
use crate::types::*;

/// The pseudo-dtype NCZarr uses for JSON-valued attributes.
pub const JSON_DTYPE: &str = "|J0";

/// Encode attribute values: one value as a JSON scalar, several (or none)
/// as an array; text as a string, or as the JSON object or array it holds
/// (netcdf-c's JSON convention, see [`char_json`]). Returns the JSON and
/// the dtype to record. `typed`: the dtype is recorded (NCZarr), so any
/// JSON text reads back as text; pure Zarr records none.
pub fn encode(values: &Values) -> (Value, String) {
    encode_as(values, true)
}

/// [`encode`], saying whether the dtype is recorded.
pub fn encode_as(values: &Values, typed: bool) -> (Value, String) {
    let dtype = match values {
        Values::String(s) => {
            let width = s.iter().map(|x| x.len()).max().unwrap_or(1);
            format!("|S{}", width.max(1))
        }
        // Attributes are recorded in the platform's byte order.
        other => dtype_for(other.nc_type(), NC_ENDIAN_NATIVE, 1).unwrap_or_default(),
    };
    let value = match values {
        Values::Char(bytes) => char_json(bytes, typed),
        Values::String(strings) => {
            let items: Vec<Value> =
                strings.iter().map(|s| Value::String(String::from_utf8_lossy(s).into_owned())).collect();
            scalar_or_array(items)
        }
        Values::Float(v) => scalar_or_array(v.iter().map(|&x| json::f32_value(x)).collect()),
        Values::Double(v) => scalar_or_array(v.iter().map(|&x| json::f64_value(x)).collect()),
        other => {
            with_numeric!(other, v => scalar_or_array(v.iter().map(|&x| Value::from(x)).collect()),
                               _ => Value::Null)
        }
    };
    (value, dtype)
}

/// netcdf-c's JSON convention: a char attribute whose text is a JSON
/// object or array is stored as that value (its recorded type staying
/// char), so that Zarr readers get the structure; it reads back as text
/// ([`json::netcdf_c_text`]). Trailing NULs (ncgen ends text with one)
/// are not stored. Without a recorded type (pure Zarr) only values that
/// read back as text are stored so: objects, and arrays holding arrays or
/// objects or starting with a string; a bare list of numbers would come
/// back as numbers (in netcdf-c too), so it stays a string. Text that is
/// not strict JSON (netcdf-c also stores scalars and its own number
/// words, `[0.,1.]`, which Zarr readers cannot parse) stays a string.
fn char_json(bytes: &[u8], typed: bool) -> Value {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let text = String::from_utf8_lossy(&bytes[..end]).into_owned();
    match serde_json::from_str::<Value>(&text) {
        Ok(v @ (Value::Object(_) | Value::Array(_))) if typed || reads_back_as_text(&v) => v,
        _ => Value::String(text),
    }
}

/// Does an attribute of no recorded type read back as text (see
/// [`decode_inferred`])?
fn reads_back_as_text(v: &Value) -> bool {
    match v {
        Value::Object(_) => true,
        Value::Array(items) => {
            items.iter().any(|i| i.is_object() || i.is_array()) || items.first().is_some_and(Value::is_string)
        }
        _ => false,
    }
}

fn scalar_or_array(mut items: Vec<Value>) -> Value {
    if items.len() == 1 { items.pop().unwrap_or(Value::Null) } else { Value::Array(items) }
}

/// The text a JSON-valued char attribute reads back as: netcdf-c's own
/// spelling of the JSON (`NCJunparse`: `{"a": 1, "b": [1,2]}`), numbers
/// as they were written (`1e3`, and netcdf-c's `0.`), so that netcdf-c
/// and we read the same store the same way.
pub fn json_text(v: &Value) -> String {
    json::restore_bare_tokens(&json::netcdf_c_text(v))
}

/// Decode an attribute with a recorded dtype.
pub fn decode_typed(value: &Value, dtype: &str) -> NcResult<Values> {
    if dtype == JSON_DTYPE {
        return Ok(Values::Char(json_text(value).into_bytes()));
    }
    let d = parse_dtype(dtype).map_err(|_| NcError::ENCZARR)?;
    // netcdf-c 4.9.0 typed text attributes "<U1".
    let xtype = if d.utf32 { NC_CHAR } else { d.xtype };
    match xtype {
        NC_CHAR => Ok(Values::Char(match value {
            Value::String(s) => s.clone().into_bytes(),
            other => json_text(other).into_bytes(),
        })),
        NC_STRING => {
            let one = |v: &Value| match v {
                Value::String(s) => s.clone().into_bytes(),
                other => json_text(other).into_bytes(),
            };
            Ok(Values::String(match value {
                Value::Array(items) => items.iter().map(one).collect(),
                other => vec![one(other)],
            }))
        }
        t => decode_numbers(value, t),
    }
}

/// Decode a scalar or array of numbers into type `t`. Out-of-range values
/// are stored as the C conversion would store them.
fn decode_numbers(value: &Value, t: NcType) -> NcResult<Values> {
    let items: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let numbers = items.iter().map(|v| json_number(v)).collect::<NcResult<Vec<_>>>()?;
    Ok(numbers_to_values(&numbers, t)?.0)
}

/// Decode one number (or a number written as a string) into type `t`,
/// with netCDF's conversion; the flag reports a value out of range.
/// Anything else (a list, an object, a boolean, other text) is NC_ENCZARR.
pub fn decode_number(value: &Value, t: NcType) -> NcResult<(Values, bool)> {
    match value {
        Value::Number(_) | Value::String(_) => numbers_to_values(&[json_number(value)?], t),
        _ => Err(NcError::ENCZARR),
    }
}

/// A fill value that is one number (or a number written as a string,
/// `"NaN"`, `"Infinity"`...) in type `t`. An integer type refuses a value
/// out of its range, or not finite, with NC_ERANGE (netcdf-c's code; it
/// does not check floats).
pub fn decode_fill_number(value: &Value, t: NcType) -> NcResult<Values> {
    let (values, out_of_range) = decode_number(value, t)?;
    let integer = !matches!(t, NC_FLOAT | NC_DOUBLE);
    if integer && (out_of_range || json::non_finite_string(value).is_some()) {
        return Err(NcError::ERANGE);
    }
    Ok(values)
}

/// A JSON number in the widest form that keeps it exact.
#[derive(Debug, Clone, Copy)]
enum Num {
    I(i64),
    U(u64),
    F(f64),
}

fn json_number(v: &Value) -> NcResult<Num> {
    match v {
        Value::Number(n) => Ok(if let Some(i) = n.as_i64() {
            Num::I(i)
        } else if let Some(u) = n.as_u64() {
            Num::U(u)
        } else {
            Num::F(n.as_f64().unwrap_or(f64::NAN))
        }),
        Value::Bool(b) => Ok(Num::I(*b as i64)),
        Value::String(s) => match json::non_finite_string(v) {
            Some(x) => Ok(Num::F(x)),
            // netcdf-c also accepts numbers written as strings.
            None => s
                .trim()
                .parse::<i64>()
                .map(Num::I)
                .or_else(|_| s.trim().parse::<f64>().map(Num::F))
                .map_err(|_| NcError::ENCZARR),
        },
        _ => Err(NcError::ENCZARR),
    }
}

fn numbers_to_values(numbers: &[Num], t: NcType) -> NcResult<(Values, bool)> {
    if numbers.iter().all(|n| matches!(n, Num::I(_))) {
        let v: Vec<i64> = numbers.iter().map(|n| if let Num::I(i) = n { *i } else { 0 }).collect();
        Values::from_numeric_vec(t, v)
    } else if numbers.iter().all(|n| matches!(n, Num::U(_) | Num::I(0..))) {
        let v: Vec<u64> = numbers
            .iter()
            .map(|n| match n {
                Num::U(u) => *u,
                Num::I(i) => *i as u64,
                Num::F(_) => 0,
            })
            .collect();
        Values::from_numeric_vec(t, v)
    } else {
        let v: Vec<f64> = numbers
            .iter()
            .map(|n| match n {
                Num::I(i) => *i as f64,
                Num::U(u) => *u as f64,
                Num::F(f) => *f,
            })
            .collect();
        Values::from_numeric_vec(t, v)
    }
}

/// Decode an attribute without type information, inferring the type as
/// netcdf-c 4.9.1+ does for pure Zarr.
pub fn decode_inferred(value: &Value) -> NcResult<Values> {
    let as_text = |v: &Value| Ok(Values::Char(json_text(v).into_bytes()));
    match value {
        Value::String(s) => match json::bare_token_value(value) {
            Some(x) => Ok(Values::Double(vec![x])),
            None => Ok(Values::Char(s.clone().into_bytes())),
        },
        Value::Number(_) | Value::Bool(_) => {
            let n = json_number(value)?;
            numbers_to_values(&[n], infer_type(n, value.is_boolean())).map(|p| p.0)
        }
        Value::Array(items) if !items.is_empty() => {
            let first = &items[0];
            // After a first number, netcdf-c also takes "NaN", "Infinity"
            // and "-Infinity" as numbers (what it writes for them).
            let atomic = |v: &Value| {
                v.is_number()
                    || v.is_boolean()
                    || json::bare_token_value(v).is_some()
                    || (first.is_number() && json::non_finite_string(v).is_some())
            };
            if !items.iter().all(atomic) {
                return as_text(value);
            }
            let t = match json_number(first)? {
                n if json::bare_token_value(first).is_none() => infer_type(n, first.is_boolean()),
                _ => NC_DOUBLE,
            };
            let numbers = items.iter().map(json_number).collect::<NcResult<Vec<_>>>()?;
            numbers_to_values(&numbers, t).map(|p| p.0)
        }
        other => as_text(other),
    }
}

fn infer_type(n: Num, is_bool: bool) -> NcType {
    if is_bool {
        return NC_UBYTE;
    }
    match n {
        Num::I(i) if i32::try_from(i).is_ok() => NC_INT,
        Num::I(i) if u32::try_from(i).is_ok() => NC_UINT,
        Num::I(_) => NC_INT64,
        Num::U(_) => NC_UINT64,
        Num::F(_) => NC_DOUBLE,
    }
}

/// A `_FillValue` attribute as xarray writes it for a float variable
/// (Zarr v2 `.zattrs` and v3 attributes alike): the base64 of its value as
/// a little-endian f64, decoded to the variable's type. None when `value`
/// is not such a string (a number, or `"NaN"`, decodes as any other
/// attribute value).
pub fn decode_cf_float_fill(value: &Value, xtype: NcType) -> Option<NcResult<Values>> {
    let Value::String(text) = value else { return None };
    if !matches!(xtype, NC_FLOAT | NC_DOUBLE) || json::non_finite_string(value).is_some() {
        return None;
    }
    let decoded = crate::format::base64::decode(text).and_then(|bytes| {
        let bytes: [u8; 8] = bytes.try_into().map_err(|_| NcError::ENCZARR)?;
        let x = f64::from_le_bytes(bytes);
        Ok(if xtype == NC_FLOAT { Values::Float(vec![x as f32]) } else { Values::Double(vec![x]) })
    });
    Some(decoded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(v: Values) {
        let (j, dtype) = encode(&v);
        let text = json::to_bytes(&j);
        let back = decode_typed(&json::parse(&text).unwrap(), &dtype).unwrap();
        assert_eq!(back, v, "{}", String::from_utf8_lossy(&text));
    }

    #[test]
    fn every_type_round_trips() {
        round_trip(Values::Byte(vec![-128, 127]));
        round_trip(Values::UByte(vec![255]));
        round_trip(Values::Short(vec![-32768, 1, 2]));
        round_trip(Values::UShort(vec![65535]));
        round_trip(Values::Int(vec![i32::MIN, i32::MAX]));
        round_trip(Values::UInt(vec![u32::MAX]));
        round_trip(Values::Int64(vec![i64::MIN, i64::MAX]));
        round_trip(Values::UInt64(vec![u64::MAX, 0]));
        round_trip(Values::Float(vec![0.1, f32::MAX, f32::MIN_POSITIVE, f32::INFINITY]));
        round_trip(Values::Double(vec![std::f64::consts::PI, 1e300, -0.0]));
        round_trip(Values::Char(b"hello \"world\"\n".to_vec()));
        // Trailing NULs (ncgen's end of text) are not stored, as netcdf-c.
        assert_eq!(encode(&Values::Char(b"\0".to_vec())).0, json!(""));
        // JSON objects and arrays held as text are stored as JSON; in pure
        // Zarr only those that read back as text.
        let text = |t: &str| Values::Char(t.as_bytes().to_vec());
        assert_eq!(encode(&text(r#"{"a": [1,2]}"#)).0, json!({"a": [1, 2]}));
        assert_eq!(encode(&text("[1,2]")).0, json!([1, 2]));
        assert_eq!(encode_as(&text("[1,2]"), false).0, json!("[1,2]"));
        assert_eq!(encode_as(&text(r#"["a",1]"#), false).0, json!(["a", 1]));
        assert_eq!(encode(&text("[0.,1.]")).0, json!("[0.,1.]"));
        assert_eq!(encode(&text("12")).0, json!("12"));
        round_trip(Values::Char(Vec::new()));
        // JSON text comes back in netcdf-c's spelling, as from netcdf-c.
        let (j, dtype) = encode(&Values::Char(b"[1, 2]".to_vec()));
        assert_eq!(decode_typed(&j, &dtype).unwrap(), Values::Char(b"[1,2]".to_vec()));
        round_trip(Values::String(vec![b"a".to_vec(), b"".to_vec(), b"long string".to_vec()]));
        round_trip(Values::String(vec![b"one".to_vec()]));
        round_trip(Values::Int(Vec::new()));
    }

    #[test]
    fn nan_round_trips() {
        let (j, dtype) = encode(&Values::Double(vec![f64::NAN]));
        assert_eq!(j, json!("NaN"));
        match decode_typed(&j, &dtype).unwrap() {
            Values::Double(v) => assert!(v[0].is_nan()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn inference_follows_netcdf_c() {
        assert_eq!(decode_inferred(&json!(1)).unwrap(), Values::Int(vec![1]));
        assert_eq!(decode_inferred(&json!(3000000000u64)).unwrap(), Values::UInt(vec![3000000000]));
        assert_eq!(decode_inferred(&json!(-3000000000i64)).unwrap(), Values::Int64(vec![-3000000000]));
        assert_eq!(decode_inferred(&json!(u64::MAX)).unwrap(), Values::UInt64(vec![u64::MAX]));
        assert_eq!(decode_inferred(&json!(1.5)).unwrap(), Values::Double(vec![1.5]));
        assert_eq!(decode_inferred(&json!(true)).unwrap(), Values::UByte(vec![1]));
        assert_eq!(decode_inferred(&json!("x")).unwrap(), Values::Char(b"x".to_vec()));
        assert_eq!(decode_inferred(&json!([1, 2.5])).unwrap(), Values::Int(vec![1, 2]));
        assert_eq!(decode_inferred(&json!(["a", "b"])).unwrap(), Values::Char(br#"["a","b"]"#.to_vec()));
        assert_eq!(decode_inferred(&json!({"a": 1})).unwrap(), Values::Char(br#"{"a": 1}"#.to_vec()));
        // After a first number, netcdf-c's spellings of non-finite values.
        match decode_inferred(&json!([1.5, -2.25, "NaN", "-Infinity"])).unwrap() {
            Values::Double(d) => assert!(d[0] == 1.5 && d[2].is_nan() && d[3] == f64::NEG_INFINITY),
            other => panic!("{other:?}"),
        }
        assert_eq!(decode_inferred(&json!(null)).unwrap(), Values::Char(b"null".to_vec()));
        let v = json::parse(b"[NaN, 1]").unwrap();
        match decode_inferred(&v).unwrap() {
            Values::Double(d) => assert!(d[0].is_nan() && d[1] == 1.0),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn typed_decoding_is_lenient_about_spelling() {
        assert_eq!(decode_typed(&json!("3"), "<i4").unwrap(), Values::Int(vec![3]));
        assert_eq!(decode_typed(&json!([1, 2]), ">S1").unwrap(), Values::Char(b"[1,2]".to_vec()));
        assert_eq!(decode_typed(&json!({"a": 1}), "|J0").unwrap(), Values::Char(br#"{"a": 1}"#.to_vec()));
        // JSON held by a char attribute reads back in netcdf-c's spelling.
        let v = json::parse(br#"{"k": [1,2], "w": [0.,1.], "s": "a\"b"}"#).unwrap();
        assert_eq!(
            decode_typed(&v, ">S1").unwrap(),
            Values::Char(br#"{"k": [1,2], "w": [0.,1.], "s": "a\"b"}"#.to_vec())
        );
        assert_eq!(decode_typed(&json!(["x"]), "<i4"), Err(NcError::ENCZARR));
        assert_eq!(decode_typed(&json!(1), "<q9"), Err(NcError::ENCZARR));
    }
}
