//! The `{{ ... }}` templates of kerchunk reference files (version 1):
//! `{{u}}` in a reference's URL names an entry of `templates`, and the
//! fields of a `gen` entry use its dimensions' values in integer
//! arithmetic (`"offset": "{{i * 4096 + 512}}"`). fsspec renders them
//! with jinja2; this renders the part of jinja2 reference files use:
//! names, integers, strings, `+ - * // / %` and parentheses. Anything
//! else (filters, calls, loops) is an error, never text passed on.
//!
//! Rendering is one pass: what a name stands for is not rendered again,
//! so a template naming itself cannot loop.

use crate::error::{NcError, NcResult};

/// A value in a template: what a name stands for, or what an expression
/// computes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Text(String),
}

impl Value {
    fn render(&self) -> String {
        match self {
            Value::Int(i) => i.to_string(),
            Value::Text(t) => t.clone(),
        }
    }
}

/// Deepest nesting of parentheses and unary minus an expression may have
/// (the parser recurses).
const MAX_DEPTH: usize = 64;

/// `text` with each `{{ expression }}` replaced by its value; names are
/// looked up with `lookup`. An unknown name, an expression outside the
/// subset, an overflow or an unclosed `{{` is NC_ENCZARR.
pub fn render(text: &str, lookup: &dyn Fn(&str) -> Option<Value>) -> NcResult<String> {
    if !text.contains("{{") {
        return Ok(text.to_string());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let close = after.find("}}").ok_or(NcError::ENCZARR)?;
        out.push_str(&evaluate(&after[..close], lookup)?.render());
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The value of one expression (the inside of `{{ }}`).
pub fn evaluate(expr: &str, lookup: &dyn Fn(&str) -> Option<Value>) -> NcResult<Value> {
    let tokens = tokenize(expr)?;
    let mut parser = Parser { tokens: &tokens, at: 0, lookup, depth: 0 };
    let value = parser.sum()?;
    if parser.at != tokens.len() {
        return Err(NcError::ENCZARR);
    }
    Ok(value)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Int(i64),
    Name(String),
    Text(String),
    Op(&'static str),
    Open,
    Close,
}

fn tokenize(expr: &str) -> NcResult<Vec<Token>> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = expr.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '0'..='9' => {
                let start = i;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                let digits: String = chars[start..i].iter().collect();
                tokens.push(Token::Int(digits.parse().map_err(|_| NcError::ENCZARR)?));
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                tokens.push(Token::Name(chars[start..i].iter().collect()));
            }
            '\'' | '"' => {
                let end = chars[i + 1..].iter().position(|&q| q == c).ok_or(NcError::ENCZARR)? + i + 1;
                tokens.push(Token::Text(chars[i + 1..end].iter().collect()));
                i = end + 1;
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                tokens.push(Token::Op("//"));
                i += 2;
            }
            '+' | '-' | '*' | '/' | '%' => {
                tokens.push(Token::Op(match c {
                    '+' => "+",
                    '-' => "-",
                    '*' => "*",
                    '/' => "/",
                    _ => "%",
                }));
                i += 1;
            }
            '(' => {
                tokens.push(Token::Open);
                i += 1;
            }
            ')' => {
                tokens.push(Token::Close);
                i += 1;
            }
            // Filters (`|`), attribute access, calls, comparisons: not
            // reference files' arithmetic.
            _ => return Err(NcError::ENCZARR),
        }
    }
    Ok(tokens)
}

/// Recursive descent over `sum := product (('+'|'-') product)*`,
/// `product := unary (('*'|'//'|'/'|'%') unary)*`,
/// `unary := '-' unary | atom`, `atom := int | name | text | '(' sum ')'`.
struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    lookup: &'a dyn Fn(&str) -> Option<Value>,
    depth: usize,
}

impl Parser<'_> {
    fn peek_op(&self) -> Option<&'static str> {
        match self.tokens.get(self.at) {
            Some(Token::Op(op)) => Some(op),
            _ => None,
        }
    }

    fn sum(&mut self) -> NcResult<Value> {
        let mut left = self.product()?;
        while let Some(op @ ("+" | "-")) = self.peek_op() {
            self.at += 1;
            let right = self.product()?;
            left = match (op, left, right) {
                // jinja2 joins strings with +.
                ("+", Value::Text(a), Value::Text(b)) => Value::Text(a + &b),
                ("+", Value::Int(a), Value::Int(b)) => Value::Int(a.checked_add(b).ok_or(NcError::ENCZARR)?),
                ("-", Value::Int(a), Value::Int(b)) => Value::Int(a.checked_sub(b).ok_or(NcError::ENCZARR)?),
                _ => return Err(NcError::ENCZARR),
            };
        }
        Ok(left)
    }

    fn product(&mut self) -> NcResult<Value> {
        let mut left = self.unary()?;
        while let Some(op @ ("*" | "//" | "/" | "%")) = self.peek_op() {
            self.at += 1;
            let (Value::Int(a), Value::Int(b)) = (left, self.unary()?) else { return Err(NcError::ENCZARR) };
            left = Value::Int(
                match op {
                    "*" => a.checked_mul(b),
                    // Python's floor division and modulo (the sign of the divisor).
                    "//" => a.checked_div_euclid(b).map(|q| if b < 0 && a.rem_euclid(b) != 0 { q - 1 } else { q }),
                    "%" => a.checked_rem_euclid(b).map(|r| if b < 0 && r != 0 { r + b } else { r }),
                    // True division: an integer only when exact (an offset
                    // that is not a whole number of bytes is an error).
                    _ => a.checked_rem(b).filter(|&r| r == 0).and_then(|_| a.checked_div(b)),
                }
                .ok_or(NcError::ENCZARR)?,
            );
        }
        Ok(left)
    }

    fn unary(&mut self) -> NcResult<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(NcError::ENCZARR);
        }
        let value = if self.peek_op() == Some("-") {
            self.at += 1;
            match self.unary()? {
                Value::Int(i) => Value::Int(i.checked_neg().ok_or(NcError::ENCZARR)?),
                Value::Text(_) => return Err(NcError::ENCZARR),
            }
        } else {
            self.atom()?
        };
        self.depth -= 1;
        Ok(value)
    }

    fn atom(&mut self) -> NcResult<Value> {
        let token = self.tokens.get(self.at).ok_or(NcError::ENCZARR)?.clone();
        self.at += 1;
        match token {
            Token::Int(i) => Ok(Value::Int(i)),
            Token::Text(t) => Ok(Value::Text(t)),
            Token::Name(name) => (self.lookup)(&name).ok_or(NcError::ENCZARR),
            Token::Open => {
                let value = self.sum()?;
                match self.tokens.get(self.at) {
                    Some(Token::Close) => {
                        self.at += 1;
                        Ok(value)
                    }
                    _ => Err(NcError::ENCZARR),
                }
            }
            Token::Op(_) | Token::Close => Err(NcError::ENCZARR),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Option<Value> {
        match name {
            "i" => Some(Value::Int(3)),
            "j" => Some(Value::Int(-7)),
            "u" => Some(Value::Text("s3://bucket/file.nc".into())),
            "loop" => Some(Value::Text("{{loop}}".into())),
            _ => None,
        }
    }

    #[test]
    fn renders_names_and_arithmetic() {
        assert_eq!(render("{{u}}", &vars).unwrap(), "s3://bucket/file.nc");
        assert_eq!(render("{{ u }}", &vars).unwrap(), "s3://bucket/file.nc");
        assert_eq!(render("data/{{i}}.0", &vars).unwrap(), "data/3.0");
        assert_eq!(render("{{i * 4096 + 512}}", &vars).unwrap(), "12800");
        assert_eq!(render("{{(i + 1) * 10 - 2}}", &vars).unwrap(), "38");
        assert_eq!(render("{{ j // 2 }} {{ j % 2 }} {{ 7 // -2 }} {{ 7 % -2 }}", &vars).unwrap(), "-4 1 -4 -1");
        assert_eq!(render("{{ 12 / 4 }}", &vars).unwrap(), "3");
        assert_eq!(render("{{ 'a' + u }}", &vars).unwrap(), "as3://bucket/file.nc");
        assert_eq!(render("no templates", &vars).unwrap(), "no templates");
    }

    #[test]
    fn one_pass_so_no_loops() {
        // What a name stands for is not rendered again.
        assert_eq!(render("{{loop}}", &vars).unwrap(), "{{loop}}");
    }

    #[test]
    fn what_is_not_the_subset_is_an_error() {
        for bad in [
            "{{nope}}",
            "{{i",
            "{{ i | int }}",
            "{{ i.x }}",
            "{{ f(i) }}",
            "{{ 13 / 4 }}",
            "{{ 1 // 0 }}",
            "{{ 1 % 0 }}",
            "{{ 9223372036854775807 + 1 }}",
            "{{ 99999999999999999999 }}",
            "{{ u * 2 }}",
            "{{ (i }}",
            "{{ i ) }}",
            "{{ }}",
            "{{ 'open }}",
            "{{ i i }}",
        ] {
            assert_eq!(render(bad, &vars), Err(NcError::ENCZARR), "{bad}");
        }
        let deep = format!("{{{{{}1{}}}}}", "(".repeat(100), ")".repeat(100));
        assert_eq!(render(&deep, &vars), Err(NcError::ENCZARR));
        let minus = format!("{{{{{}1}}}}", "-".repeat(100));
        assert_eq!(render(&minus, &vars), Err(NcError::ENCZARR));
    }
}
