//! Attribute values in `.zattrs`: dtype parsing, typed decoding and the
//! type inference netcdf-c applies to attributes of pure Zarr, and the
//! encode/decode round trip of every attribute type.

use arbitrary::{Arbitrary, Unstructured};
use netcdf::format::{attrs, dtype, json};
use netcdf::model::Values;

/// Byte 0 even: the rest is `dtype '\n' json-text`, decoded both ways.
/// Odd: the rest drives `arbitrary` to build values of one type, which
/// must come back unchanged from JSON text with the dtype we record.
pub fn attrs(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode & 1 == 0 {
        decode_text(rest);
    } else {
        round_trip(rest);
    }
}

fn decode_text(data: &[u8]) {
    let (dtype_text, json_text) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&b""[..], data),
    };
    let dtype_text = String::from_utf8_lossy(dtype_text);
    let _ = dtype::parse_dtype(&dtype_text);
    let Ok(value) = json::parse(json_text) else { return };
    let _ = attrs::json_text(&value);
    let _ = json::netcdf_c_text(&value);
    if let Ok(v) = attrs::decode_inferred(&value) {
        let _ = attrs::encode(&v);
    }
    if let Ok(v) = attrs::decode_typed(&value, &dtype_text) {
        let _ = attrs::encode(&v);
    }
}

fn arbitrary_values(u: &mut Unstructured) -> arbitrary::Result<Values> {
    Ok(match u.int_in_range(0..=11)? {
        0 => Values::Byte(Vec::arbitrary(u)?),
        1 => Values::Char(Vec::arbitrary(u)?),
        2 => Values::Short(Vec::arbitrary(u)?),
        3 => Values::Int(Vec::arbitrary(u)?),
        4 => Values::Float(Vec::arbitrary(u)?),
        5 => Values::Double(Vec::arbitrary(u)?),
        6 => Values::UByte(Vec::arbitrary(u)?),
        7 => Values::UShort(Vec::arbitrary(u)?),
        8 => Values::UInt(Vec::arbitrary(u)?),
        9 => Values::Int64(Vec::arbitrary(u)?),
        10 => Values::UInt64(Vec::arbitrary(u)?),
        _ => Values::String(Vec::arbitrary(u)?),
    })
}

/// Equal, with NaNs equal to NaNs (payloads are not kept: JSON has one NaN).
fn same(a: &Values, b: &Values) -> bool {
    match (a, b) {
        (Values::Float(x), Values::Float(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits() || p.is_nan() && q.is_nan())
        }
        (Values::Double(x), Values::Double(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits() || p.is_nan() && q.is_nan())
        }
        _ => a == b,
    }
}

fn round_trip(data: &[u8]) {
    let Ok(values) = arbitrary_values(&mut Unstructured::new(data)) else { return };
    // Text that is not UTF-8 is stored lossily (JSON strings are Unicode).
    let utf8 = |b: &[u8]| std::str::from_utf8(b).is_ok();
    match &values {
        Values::Char(c) if !utf8(c) => return,
        Values::String(s) if !s.iter().all(|x| utf8(x)) => return,
        _ => {}
    }
    let (value, dtype) = attrs::encode(&values);
    let text = json::to_bytes(&value);
    let parsed = json::parse(&text).unwrap_or_else(|e| panic!("{values:?} wrote unparsable {text:?}: {e:?}"));
    let back = attrs::decode_typed(&parsed, &dtype).unwrap_or_else(|e| panic!("{values:?} as {dtype}: {e:?}"));
    // Text loses its trailing NULs, and text holding a JSON object or
    // array comes back as the same JSON in netcdf-c's spelling.
    if let (Values::Char(c), Values::Char(b)) = (&values, &back) {
        let end = c.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
        let json_of =
            |t: &[u8]| serde_json::from_slice::<serde_json::Value>(t).ok().filter(|v| v.is_object() || v.is_array());
        let same_json = json_of(&c[..end]).is_some_and(|v| json_of(b) == Some(v));
        assert!(
            b[..] == c[..end] || same_json,
            "{values:?} came back as {back:?} (JSON {})",
            String::from_utf8_lossy(&text)
        );
        return;
    }
    assert!(
        same(&back, &values),
        "{values:?} came back as {back:?} (dtype {dtype}, JSON {})",
        String::from_utf8_lossy(&text)
    );
}
