//! JSON as Zarr stores hold it.
//!
//! Reading is lenient: besides standard JSON it accepts the bare tokens
//! `NaN`, `Infinity` and `-Infinity` (and netcdf-c's lower-case spellings)
//! that Python's `json` module and old netcdf-c versions write. They are
//! turned into marked strings (see [`bare_token_value`]) so later stages
//! can tell a bare `NaN` (a number) from the string `"NaN"`.
//!
//! Writing emits standard JSON; non-finite floats become the strings
//! `"NaN"`, `"Infinity"` and `"-Infinity"`, as the Zarr v2 spec asks for
//! `fill_value`.

use serde_json::{Number, Value};

use crate::error::{NcError, NcResult};

/// Prefix of the strings that stand for bare non-finite number tokens.
const BARE_MARK: &str = "\u{0}nczarr-rs-bare:";

/// Parse JSON text, accepting bare NaN/Infinity tokens. Malformed JSON is
/// NC_ENCZARR, like netcdf-c's metadata errors.
pub fn parse(bytes: &[u8]) -> NcResult<Value> {
    match serde_json::from_slice(bytes) {
        Ok(v) => Ok(v),
        Err(_) => {
            let text = std::str::from_utf8(bytes).map_err(|_| NcError::ENCZARR)?;
            let rewritten = rewrite_bare_tokens(text).ok_or(NcError::ENCZARR)?;
            serde_json::from_str(&rewritten).map_err(|_| NcError::ENCZARR)
        }
    }
}

/// Replace bare non-finite tokens outside strings by marked strings.
/// Returns `None` if nothing was replaced (the text is just bad JSON).
fn rewrite_bare_tokens(text: &str) -> Option<String> {
    const TOKENS: &[(&str, &str)] = &[
        ("-Infinity", "-Infinity"),
        ("-infinityf", "-Infinity"),
        ("-infinity", "-Infinity"),
        ("Infinity", "Infinity"),
        ("infinityf", "Infinity"),
        ("infinity", "Infinity"),
        ("NaN", "NaN"),
        ("nanf", "NaN"),
        ("nan", "NaN"),
    ];
    let mut out = String::with_capacity(text.len() + 32);
    let mut in_string = false;
    let mut escaped = false;
    let mut replaced = false;
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
        } else if c == b'"' {
            in_string = true;
        } else if let Some((tok, canon)) = TOKENS.iter().find(|(t, _)| text[i..].starts_with(t)) {
            let prev_ok = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
            let next = bytes.get(i + tok.len());
            let next_ok = next.is_none_or(|n| !n.is_ascii_alphanumeric());
            if prev_ok && next_ok {
                out.push('"');
                out.push_str("\\u0000");
                out.push_str(&BARE_MARK[1..]);
                out.push_str(canon);
                out.push('"');
                i += tok.len();
                replaced = true;
                continue;
            }
        } else if (c.is_ascii_digit() || (c == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
        {
            // A number, or one of the number words netcdf-c writes and
            // reads although JSON has no such numbers (`0.`, `1.e5`):
            // those become marked strings too, kept as written.
            let len = bytes[i..].iter().take_while(|b| b.is_ascii_digit() || b"+-.eE".contains(b)).count();
            let token = &text[i..i + len];
            let word = serde_json::from_str::<Number>(token).is_err() && token.parse::<f64>().is_ok();
            if word {
                out.push_str("\"\\u0000");
                out.push_str(&BARE_MARK[1..]);
                out.push_str(token);
                out.push('"');
                replaced = true;
            } else {
                out.push_str(token);
            }
            i += len;
            continue;
        }
        // Copy one whole UTF-8 character.
        let len = utf8_len(c);
        out.push_str(&text[i..i + len]);
        i += len;
    }
    replaced.then_some(out)
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// If `v` stands for a bare token (non-finite, or a number word such as
/// netcdf-c's `0.`), its value.
pub fn bare_token_value(v: &Value) -> Option<f64> {
    let s = v.as_str()?.strip_prefix(BARE_MARK)?;
    special_float(s).or_else(|| s.parse::<f64>().ok())
}

/// JSON text with the marked strings of bare tokens put back as the
/// tokens they stand for.
pub fn restore_bare_tokens(text: &str) -> String {
    let mark = format!("\"\\u0000{}", &BARE_MARK[1..]);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&mark) {
        out.push_str(&rest[..at]);
        let after = &rest[at + mark.len()..];
        match after.find('"') {
            Some(end) => {
                out.push_str(&after[..end]);
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The value of `"NaN"`, `"Infinity"`, `"-Infinity"` (either a plain
/// string or a marked bare token).
pub fn non_finite_string(v: &Value) -> Option<f64> {
    bare_token_value(v).or_else(|| special_float(v.as_str()?))
}

fn special_float(s: &str) -> Option<f64> {
    match s {
        "NaN" | "nan" | "nanf" => Some(f64::NAN),
        "Infinity" | "infinity" | "infinityf" | "Inf" | "inf" => Some(f64::INFINITY),
        "-Infinity" | "-infinity" | "-infinityf" | "-Inf" | "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// A double as JSON: a number, or the Zarr strings for non-finite values.
pub fn f64_value(x: f64) -> Value {
    match Number::from_f64(x) {
        Some(n) => Value::Number(n),
        None => Value::String(non_finite_name(x).to_string()),
    }
}

/// A float as JSON, written with the shortest decimal that reads back as
/// the same `f32` (so 0.1f32 is `0.1`, not `0.10000000149011612`).
pub fn f32_value(x: f32) -> Value {
    if !x.is_finite() {
        return Value::String(non_finite_name(x as f64).to_string());
    }
    // `{:?}` keeps a decimal point or exponent, so the JSON stays a float.
    serde_json::from_str::<Number>(&format!("{x:?}")).map(Value::Number).unwrap_or_else(|_| f64_value(x as f64))
}

fn non_finite_name(x: f64) -> &'static str {
    if x.is_nan() {
        "NaN"
    } else if x > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

/// Serialise for storage.
pub fn to_bytes(v: &Value) -> Vec<u8> {
    // Serialising a `Value` cannot fail.
    serde_json::to_vec(v).unwrap_or_default()
}

/// JSON text in netcdf-c's own style (`NCJunparse`): `", "` between and
/// `": "` inside object entries, no spaces in arrays, as in
/// `[{"id": "zlib", "level": 1},{"id": "shuffle"}]`. Used where netcdf-c
/// shows JSON to users (the `_Codecs` attribute).
pub fn netcdf_c_text(v: &Value) -> String {
    let mut out = String::new();
    write_netcdf_c_text(v, &mut out);
    out
}

fn write_netcdf_c_text(v: &Value, out: &mut String) {
    match v {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_netcdf_c_text(item, out);
            }
            out.push(']');
        }
        Value::Object(entries) => {
            out.push('{');
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                write_netcdf_c_text(value, out);
            }
            out.push('}');
        }
        scalar => out.push_str(&String::from_utf8_lossy(&to_bytes(scalar))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn standard_json() {
        assert_eq!(parse(br#"{"a": [1, 2.5]}"#).unwrap(), json!({"a": [1, 2.5]}));
        assert_eq!(parse(b"{bad"), Err(NcError::ENCZARR));
        assert_eq!(parse(b"\xff"), Err(NcError::ENCZARR));
    }

    #[test]
    fn bare_tokens_become_marked_strings() {
        let v = parse(br#"{"a": NaN, "b": [-Infinity, 1], "s": "NaN", "t": "x NaN"}"#).unwrap();
        assert!(bare_token_value(&v["a"]).unwrap().is_nan());
        assert_eq!(bare_token_value(&v["b"][0]), Some(f64::NEG_INFINITY));
        assert_eq!(bare_token_value(&v["s"]), None);
        assert!(non_finite_string(&v["s"]).unwrap().is_nan());
        assert_eq!(v["t"], json!("x NaN"));
    }

    #[test]
    fn number_words_are_kept_as_written() {
        let v = parse(br#"{"a": [0.,0.,1.], "b": 1.5, "c": "0."}"#).unwrap();
        assert_eq!(bare_token_value(&v["a"][0]), Some(0.0));
        assert_eq!(bare_token_value(&v["a"][2]), Some(1.0));
        assert_eq!(v["c"], json!("0."));
        assert_eq!(restore_bare_tokens(&netcdf_c_text(&v)), r#"{"a": [0.,0.,1.], "b": 1.5, "c": "0."}"#);
        assert_eq!(parse(b"[1.2.3]"), Err(NcError::ENCZARR));
    }

    #[test]
    fn netcdf_c_style() {
        let v = json!([{"id": "zlib", "level": 1}, {"id": "x", "a": [1, 2], "o": {}}]);
        assert_eq!(netcdf_c_text(&v), r#"[{"id": "zlib", "level": 1},{"id": "x", "a": [1,2], "o": {}}]"#);
    }

    #[test]
    fn writes_round_trip_floats() {
        assert_eq!(to_bytes(&f32_value(0.1)), b"0.1");
        assert_eq!(to_bytes(&f32_value(1.0)), b"1.0");
        assert_eq!(to_bytes(&f64_value(std::f64::consts::PI)), b"3.141592653589793");
        assert_eq!(to_bytes(&f64_value(f64::NAN)), br#""NaN""#);
        assert_eq!(to_bytes(&f32_value(f32::NEG_INFINITY)), br#""-Infinity""#);
        assert_eq!(serde_json::from_slice::<f32>(&to_bytes(&f32_value(1e-30))).unwrap(), 1e-30);
    }
}
