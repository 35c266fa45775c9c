//! C library number scanning as glibc does it: `strtol`, `strtoul`,
//! `strtod` prefix conversions and the few `sscanf` directives netcdf-c's
//! tool helpers use (`%s`, `%[^c]`, `%ld`, `%hd`, `%d`, `%lf`, literals and
//! whitespace). Everything here is pure: bytes in, values out.
//!
//! glibc converts a scanned integer with `strtol`/`strtoul` into a `long`
//! and then truncates it to the target width (`%hd` keeps the low 16
//! bits), and saturates on overflow; both are reproduced.

/// `isspace` in the C locale.
pub fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn skip_space(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    i
}

/// Sign and decimal magnitude: (negative, magnitude saturated at u64::MAX,
/// overflowed, bytes consumed). None when no digit follows.
fn scan_decimal(s: &[u8]) -> Option<(bool, u64, bool, usize)> {
    let mut i = skip_space(s, 0);
    let mut negative = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        negative = s[i] == b'-';
        i += 1;
    }
    let start = i;
    let mut value: u64 = 0;
    let mut overflow = false;
    while i < s.len() && s[i].is_ascii_digit() {
        let d = u64::from(s[i] - b'0');
        match value.checked_mul(10).and_then(|v| v.checked_add(d)) {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return None;
    }
    Some((negative, if overflow { u64::MAX } else { value }, overflow, i))
}

/// `strtol(s, &end, 10)`: the value (saturated at the `long` limits) and
/// the number of bytes used; None when nothing converts.
pub fn strtol(s: &[u8]) -> Option<(i64, usize)> {
    let (negative, magnitude, overflow, used) = scan_decimal(s)?;
    let value = if negative {
        if overflow || magnitude > 1u64 << 63 { i64::MIN } else { 0i64.wrapping_sub_unsigned(magnitude) }
    } else if overflow || magnitude > i64::MAX as u64 {
        i64::MAX
    } else {
        magnitude as i64
    };
    Some((value, used))
}

/// `strtoul(s, &end, 10)`: a leading `-` negates in unsigned arithmetic;
/// overflow gives `ULONG_MAX`.
pub fn strtoul(s: &[u8]) -> Option<(u64, usize)> {
    let (negative, magnitude, overflow, used) = scan_decimal(s)?;
    let value = if overflow {
        u64::MAX
    } else if negative {
        magnitude.wrapping_neg()
    } else {
        magnitude
    };
    Some((value, used))
}

/// `strtod(s, &end)` in the C locale: decimal and hexadecimal forms,
/// `inf`/`infinity`/`nan`/`nan(chars)`, any case; None when nothing
/// converts.
pub fn strtod(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = skip_space(s, 0);
    let mut negative = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        negative = s[i] == b'-';
        i += 1;
    }
    let rest = &s[i..];
    let starts = |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    let (magnitude, used) = if starts(b"infinity") {
        (f64::INFINITY, 8)
    } else if starts(b"inf") {
        (f64::INFINITY, 3)
    } else if starts(b"nan") {
        let mut n = 3;
        if rest.get(3) == Some(&b'(') {
            let close = rest[4..].iter().position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'));
            if let Some(k) = close
                && rest[4 + k] == b')'
            {
                n = 4 + k + 1;
            }
        }
        (f64::NAN, n)
    } else if rest.len() > 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' && hex_float(&rest[2..]).is_some() {
        let (v, n) = hex_float(&rest[2..])?;
        (v, n + 2)
    } else {
        decimal_float(rest)?
    };
    let value = if negative { -magnitude } else { magnitude };
    Some((value, i + used))
}

/// Decimal digits with an optional point and exponent.
fn decimal_float(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    let mut digits = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < s.len() && s[i] == b'.' {
        i += 1;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    let mantissa_end = i;
    if i < s.len() && (s[i] | 0x20) == b'e' {
        let mut j = i + 1;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            j += 1;
        }
        let exp_digits = s[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp_digits > 0 {
            i = j + exp_digits;
        }
    }
    let text = std::str::from_utf8(&s[..i]).ok()?;
    // Rust's parser wants at least one digit before an exponent and
    // rejects neither "1." nor ".5"; a huge exponent is inf or 0 as in C.
    let value = match text.parse::<f64>() {
        Ok(v) => v,
        Err(_) => std::str::from_utf8(&s[..mantissa_end]).ok()?.parse::<f64>().ok()?,
    };
    Some((value, i))
}

/// The part of a hexadecimal float after `0x`.
fn hex_float(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    let mut mantissa: u128 = 0;
    let mut sticky = false;
    let mut exponent: i64 = 0;
    let mut digits = 0;
    let mut seen_point = false;
    while i < s.len() {
        let c = s[i];
        if c == b'.' && !seen_point {
            seen_point = true;
            i += 1;
            continue;
        }
        let Some(d) = (c as char).to_digit(16) else { break };
        digits += 1;
        if mantissa >> 120 == 0 {
            mantissa = (mantissa << 4) | u128::from(d);
            if seen_point {
                exponent -= 4;
            }
        } else {
            sticky |= d != 0;
            if !seen_point {
                exponent += 4;
            }
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    if i < s.len() && (s[i] | 0x20) == b'p' {
        let mut j = i + 1;
        let mut negative = false;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            negative = s[j] == b'-';
            j += 1;
        }
        let start = j;
        let mut e: i64 = 0;
        while j < s.len() && s[j].is_ascii_digit() {
            e = (e * 10 + i64::from(s[j] - b'0')).min(1 << 20);
            j += 1;
        }
        if j > start {
            exponent += if negative { -e } else { e };
            i = j;
        }
    }
    let m = if sticky { mantissa | 1 } else { mantissa };
    let value = (m as f64) * 2f64.powi(exponent.clamp(-4000, 4000) as i32);
    Some((value, i))
}

/// One converted `sscanf` item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Str(Vec<u8>),
    Long(i64),
    Double(f64),
}

/// A directive of the `sscanf` subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Directive {
    /// A blank in the format: skip any amount of white space, none included.
    Space,
    /// A literal byte that must match.
    Literal(u8),
    /// `%s`: a run of non-white-space bytes.
    Word,
    /// `%[^c]`: a non-empty run of bytes other than `c`.
    AllBut(u8),
    /// `%ld` (`long`), `%d` (`int`), `%hd` (`short`): `strtol`, truncated
    /// to the given number of bits.
    Int(u32),
    /// `%lf`: `strtod`.
    Double,
}

/// Outcome of a scan: `None` for C's `EOF` (input ran out before the
/// first conversion), else the converted items (their count is the
/// return value of `sscanf`).
pub fn sscanf(input: &[u8], format: &[Directive]) -> Option<Vec<Item>> {
    let mut items = Vec::new();
    let mut i = 0;
    // Input failure (end of input) before any conversion is EOF.
    let input_failure = |items: Vec<Item>| if items.is_empty() { None } else { Some(items) };
    for d in format {
        match *d {
            Directive::Space => i = skip_space(input, i),
            Directive::Literal(c) => {
                if i >= input.len() {
                    return input_failure(items);
                }
                if input[i] != c {
                    return Some(items);
                }
                i += 1;
            }
            Directive::Word => {
                i = skip_space(input, i);
                if i >= input.len() {
                    return input_failure(items);
                }
                let start = i;
                while i < input.len() && !is_c_space(input[i]) {
                    i += 1;
                }
                items.push(Item::Str(input[start..i].to_vec()));
            }
            Directive::AllBut(c) => {
                if i >= input.len() {
                    return input_failure(items);
                }
                let start = i;
                while i < input.len() && input[i] != c {
                    i += 1;
                }
                if i == start {
                    return Some(items);
                }
                items.push(Item::Str(input[start..i].to_vec()));
            }
            Directive::Int(bits) => {
                i = skip_space(input, i);
                if i >= input.len() {
                    return input_failure(items);
                }
                let Some((v, used)) = strtol(&input[i..]) else { return Some(items) };
                i += used;
                let v = match bits {
                    16 => i64::from(v as i16),
                    32 => i64::from(v as i32),
                    _ => v,
                };
                items.push(Item::Long(v));
            }
            Directive::Double => {
                i = skip_space(input, i);
                if i >= input.len() {
                    return input_failure(items);
                }
                let Some((v, used)) = strtod(&input[i..]) else { return Some(items) };
                i += used;
                items.push(Item::Double(v));
            }
        }
    }
    Some(items)
}

/// `(int)x` as x86-64 compiles it (`cvttsd2si`): truncation, and
/// `INT_MIN` for NaN and values out of range. Elsewhere Rust's saturating
/// cast, which is what ARM's conversion does.
pub fn c_double_to_int(x: f64) -> i32 {
    if cfg!(target_arch = "x86_64") && !(x > -2147483649.0 && x < 2147483648.0) /* NaN included */ { i32::MIN } else { x as i32 }
}

/// `(long)x` on LP64, with the same out-of-range rule as
/// [`c_double_to_int`].
pub fn c_double_to_long(x: f64) -> i64 {
    if cfg!(target_arch = "x86_64") && !(-9223372036854775808.0..9223372036854775808.0).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// printf's `%f` (six decimals), with glibc's spelling of NaN and
/// infinities.
pub fn c_fmt_f(x: f64) -> String {
    if x.is_nan() {
        if x.is_sign_negative() { "-nan".into() } else { "nan".into() }
    } else if x.is_infinite() {
        if x < 0.0 { "-inf".into() } else { "inf".into() }
    } else {
        format!("{x:.6}")
    }
}

/// printf's `%.Nd` / `%N.Nld`: at least `digits` digits, zero padded,
/// sign in front.
pub fn c_fmt_int(v: i64, digits: usize) -> String {
    let magnitude = v.unsigned_abs().to_string();
    let sign = if v < 0 { "-" } else { "" };
    format!("{sign}{magnitude:0>digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_like_glibc() {
        assert_eq!(strtol(b"  -42x"), Some((-42, 5)));
        assert_eq!(strtol(b"+7"), Some((7, 2)));
        assert_eq!(strtol(b"99999999999999999999"), Some((i64::MAX, 20)));
        assert_eq!(strtol(b"-99999999999999999999"), Some((i64::MIN, 21)));
        assert_eq!(strtol(b"-9223372036854775808"), Some((i64::MIN, 20)));
        assert_eq!(strtol(b"-"), None);
        assert_eq!(strtol(b"x1"), None);
        assert_eq!(strtoul(b"-1"), Some((u64::MAX, 2)));
        assert_eq!(strtoul(b"18446744073709551616"), Some((u64::MAX, 20)));
        assert_eq!(strtoul(b"4294967296"), Some((4294967296, 10)));
    }

    #[test]
    fn doubles_like_glibc() {
        assert_eq!(strtod(b"1.5e3x"), Some((1500.0, 5)));
        assert_eq!(strtod(b"1e"), Some((1.0, 1)));
        assert_eq!(strtod(b"1."), Some((1.0, 2)));
        assert_eq!(strtod(b".5"), Some((0.5, 2)));
        assert_eq!(strtod(b"-.5e-1"), Some((-0.05, 6)));
        assert_eq!(strtod(b"1e400"), Some((f64::INFINITY, 5)));
        assert_eq!(strtod(b"INF"), Some((f64::INFINITY, 3)));
        assert_eq!(strtod(b"-Infinity"), Some((f64::NEG_INFINITY, 9)));
        assert!(strtod(b"nan(abc)").unwrap().0.is_nan());
        assert_eq!(strtod(b"nan(abc)").unwrap().1, 8);
        assert_eq!(strtod(b"0x1p4"), Some((16.0, 5)));
        assert_eq!(strtod(b"0x.8"), Some((0.5, 4)));
        assert_eq!(strtod(b"0xg"), Some((0.0, 1)));
        assert_eq!(strtod(b"."), None);
        assert_eq!(strtod(b"e5"), None);
    }

    #[test]
    fn sscanf_counts_like_c() {
        use Directive::*;
        let f = [Int(64), Literal(b'-'), Int(16), Literal(b'-'), Int(16), Space, Int(32), Literal(b':'), Int(32)];
        assert_eq!(sscanf(b"", &f), None);
        assert_eq!(sscanf(b"   ", &f), None);
        assert_eq!(sscanf(b"x", &f), Some(vec![]));
        assert_eq!(sscanf(b"2000-1", &f).unwrap().len(), 2);
        assert_eq!(sscanf(b"2000-1-2T3", &f).unwrap().len(), 3);
        assert_eq!(sscanf(b"2000-1-2 3:", &f).unwrap().len(), 4);
        assert_eq!(sscanf(b"1-99999-1", &f).unwrap()[1], Item::Long(-31073));
        let w = [Word, Space, Literal(b's'), Literal(b'i'), Space, Word];
        assert_eq!(sscanf(b"days si x", &w).unwrap().len(), 2);
        assert_eq!(sscanf(b"days", &w).unwrap().len(), 1);
        assert_eq!(sscanf(b"days so", &w).unwrap().len(), 1);
        let t = [Word, Space, AllBut(b'T'), Literal(b'T'), Word];
        assert_eq!(
            sscanf(b"a 2000-01-01T12", &t).unwrap(),
            vec![Item::Str(b"a".to_vec()), Item::Str(b"2000-01-01".to_vec()), Item::Str(b"12".to_vec())]
        );
        assert_eq!(sscanf(b"a T12", &t).unwrap().len(), 1);
    }

    #[test]
    fn c_casts_and_formats() {
        assert_eq!(c_double_to_int(-1.9), -1);
        assert_eq!(c_double_to_long(1e300), if cfg!(target_arch = "x86_64") { i64::MIN } else { i64::MAX });
        assert_eq!(c_fmt_int(-5, 4), "-0005");
        assert_eq!(c_fmt_int(12345, 4), "12345");
        assert_eq!(c_fmt_f(30.5), "30.500000");
        assert_eq!(c_fmt_f(-f64::NAN), "-nan");
    }
}
