//! The little XML reading S3 error bodies and STS replies need: the text
//! of the first element with a given name. rusty-s3 parses the listing,
//! delete and multipart replies; these two it does not cover.

/// The unescaped text of the first `<tag>...</tag>` in `body`.
pub fn tag_text(body: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = body.find(&open)? + open.len();
    let len = body[start..].find(&close)?;
    Some(unescape(body[start..start + len].trim()))
}

/// Replace XML's predefined entities and numeric character references.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';') else { break };
        let entity = &rest[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Seconds since the Unix epoch of an ISO 8601 UTC time such as
/// `2026-05-01T12:34:56Z` (fractions and the zone suffix ignored: AWS
/// writes UTC).
pub fn epoch_seconds(iso: &str) -> Option<u64> {
    let b = iso.trim().as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { std::str::from_utf8(&b[r]).ok()?.parse().ok() };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + hh * 3600 + mm * 60 + ss).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_body_fields() {
        let body = "<?xml version=\"1.0\"?>\n<Error><Code>NoSuchKey</Code><Message>The key &lt;a&amp;b&gt; &#x41;&#66;</Message>\
                    <Region>eu-west-1</Region></Error>";
        assert_eq!(tag_text(body, "Code").as_deref(), Some("NoSuchKey"));
        assert_eq!(tag_text(body, "Message").as_deref(), Some("The key <a&b> AB"));
        assert_eq!(tag_text(body, "Region").as_deref(), Some("eu-west-1"));
        assert_eq!(tag_text(body, "Missing"), None);
        assert_eq!(tag_text("<Code>unterminated", "Code"), None);
        assert_eq!(unescape("a & b &bogus; &"), "a & b &bogus; &");
    }

    #[test]
    fn iso_times() {
        assert_eq!(epoch_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(epoch_seconds("2000-03-01T00:00:00Z"), Some(951_868_800));
        assert_eq!(epoch_seconds("2026-05-01T12:34:56.789Z"), Some(1_777_638_896));
        assert_eq!(epoch_seconds("garbage"), None);
        assert_eq!(epoch_seconds("2026-13-01T00:00:00Z"), None);
    }
}
