//! Values of pgbench's expression language and their text forms: how a value is spelled
//! into SQL (integers as digits, doubles as C's `%.15g`, booleans as true/false, NULL as
//! the word NULL) and how a variable given as text (`--define`, `\gset`) is read back.

use std::fmt::Write as _;

/// A value an expression yields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// NULL.
    Null,
    /// TRUE or FALSE.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A double.
    Double(f64),
}

impl Val {
    /// The type's name in messages, as pgbench words it.
    pub fn type_name(self) -> &'static str {
        match self {
            Val::Null => "null",
            Val::Bool(_) => "boolean",
            Val::Int(_) => "int",
            Val::Double(_) => "double",
        }
    }

    /// Truth for `\if` and CASE: non-zero numbers are true, zero and NULL false.
    pub fn truth(self) -> bool {
        match self {
            Val::Null => false,
            Val::Bool(b) => b,
            Val::Int(i) => i != 0,
            Val::Double(d) => d != 0.0,
        }
    }

    /// Append the value as pgbench spells it into SQL and messages.
    pub fn write(self, out: &mut String) {
        match self {
            Val::Null => out.push_str("NULL"),
            Val::Bool(b) => out.push_str(if b { "true" } else { "false" }),
            Val::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Val::Double(d) => write_double(d, out),
        }
    }
}

/// Append `v` as pgbench's `printf("%.15g")` does: C's format, with PostgreSQL's own
/// printf spelling of the special values (NaN, Infinity, -Infinity).
pub fn write_double(v: f64, out: &mut String) {
    if v.is_nan() {
        out.push_str("NaN");
        return;
    }
    if v.is_infinite() {
        out.push_str(if v < 0.0 { "-Infinity" } else { "Infinity" });
        return;
    }
    if v == 0.0 {
        out.push_str(if v.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    let start = out.len();
    // The exponent %e would print with 15 significant digits decides the style.
    let _ = write!(out, "{v:.14e}");
    let e = start + out[start..].find('e').unwrap_or(out.len() - start);
    let x: i32 = out.get(e + 1..).and_then(|s| s.parse().ok()).unwrap_or(0);
    if (-4..15).contains(&x) {
        out.truncate(start);
        let _ = write!(out, "{v:.*}", (14 - x) as usize);
        trim_zeros(out, start);
    } else {
        out.truncate(e);
        trim_zeros(out, start);
        let _ = write!(out, "e{}{:02}", if x < 0 { '-' } else { '+' }, x.unsigned_abs());
    }
}

/// Drop trailing zeros of a fraction, and the point if nothing follows it.
fn trim_zeros(out: &mut String, start: usize) {
    if out[start..].contains('.') {
        while out.ends_with('0') {
            out.pop();
        }
        if out.ends_with('.') {
            out.pop();
        }
    }
}

fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// Whether `s` is one of the words `word` begins with (case-insensitive, at least a letter).
fn prefix_of(s: &str, word: &str) -> bool {
    !s.is_empty() && s.len() <= word.len() && s.as_bytes().eq_ignore_ascii_case(&word.as_bytes()[..s.len()])
}

/// A string as an integer, as pgbench's strtoint64: optional blanks and sign, digits,
/// optional trailing blanks; `None` when malformed or out of range.
pub fn parse_int(s: &str) -> Option<i64> {
    let t = s.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let t = t.trim_end_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Accumulate negatively, so that i64::MIN fits.
    let mut n: i64 = 0;
    for b in digits.bytes() {
        n = n.checked_mul(10)?.checked_sub(i64::from(b - b'0'))?;
    }
    if neg { Some(n) } else { n.checked_neg() }
}

/// A string as a double, as C's strtod over the whole string: `None` when malformed, or
/// when the value overflows or underflows (strtod's ERANGE).
pub fn parse_double(s: &str) -> Option<f64> {
    let t = s.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let v: f64 = t.parse().ok()?;
    let body = t.trim_start_matches(['+', '-']).to_ascii_lowercase();
    let literal_special = body.starts_with("inf") || body.starts_with("nan");
    if v.is_infinite() && !literal_special {
        return None;
    }
    let mantissa = body.split('e').next().unwrap_or("");
    let nonzero = mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
    if (v == 0.0 && nonzero) || (v != 0.0 && v.abs() < f64::MIN_POSITIVE) {
        return None;
    }
    Some(v)
}

/// A variable given as text, read as a value as pgbench does: NULL, prefixes of
/// true/yes/false/no, on/off, an integer, else a double; `None` when it is none of them.
pub fn parse_text(s: &str) -> Option<Val> {
    if s.is_empty() {
        return None;
    }
    if s.eq_ignore_ascii_case("null") {
        return Some(Val::Null);
    }
    if prefix_of(s, "true") || prefix_of(s, "yes") || s.eq_ignore_ascii_case("on") {
        return Some(Val::Bool(true));
    }
    if prefix_of(s, "false") || prefix_of(s, "no") || s.eq_ignore_ascii_case("off") || s.eq_ignore_ascii_case("of") {
        return Some(Val::Bool(false));
    }
    // What looks like an integer must be one; anything else must be a double.
    let t = s.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    if t.bytes().all(|b| b.is_ascii_digit()) {
        return parse_int(s).map(Val::Int);
    }
    parse_double(s).map(Val::Double)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(v: f64) -> String {
        let mut s = String::new();
        write_double(v, &mut s);
        s
    }

    #[test]
    fn doubles_print_as_c_percent_15g() {
        // Expected strings are what pgbench prints with "%.15g" for these values.
        assert_eq!(g(1.0), "1");
        assert_eq!(g(0.1), "0.1");
        assert_eq!(g(1.0 / 3.0), "0.333333333333333");
        assert_eq!(g(2.0 / 3.0), "0.666666666666667");
        assert_eq!(g(1e15), "1e+15");
        assert_eq!(g(123456789012345.0), "123456789012345");
        assert_eq!(g(1234567890123456.0), "1.23456789012346e+15");
        assert_eq!(g(0.0001), "0.0001");
        assert_eq!(g(0.00001), "1e-05");
        assert_eq!(g(-2.5e-300), "-2.5e-300");
        assert_eq!(g(std::f64::consts::PI), "3.14159265358979");
        assert_eq!(g(999999999999999.9), "1e+15");
        assert_eq!(g(-0.0), "-0");
        assert_eq!(g(f64::INFINITY), "Infinity");
        assert_eq!(g(-f64::INFINITY), "-Infinity");
        assert_eq!(g(f64::NAN), "NaN");
    }

    #[test]
    fn text_reads_as_pgbench_reads_variables() {
        assert_eq!(parse_text("42"), Some(Val::Int(42)));
        assert_eq!(parse_text(" -7"), Some(Val::Int(-7)));
        assert_eq!(parse_text("-9223372036854775808"), Some(Val::Int(i64::MIN)));
        assert_eq!(parse_text("9223372036854775808"), None);
        assert_eq!(parse_text("1.5"), Some(Val::Double(1.5)));
        assert_eq!(parse_text("1e3"), Some(Val::Double(1000.0)));
        assert_eq!(parse_text("t"), Some(Val::Bool(true)));
        assert_eq!(parse_text("YE"), Some(Val::Bool(true)));
        assert_eq!(parse_text("of"), Some(Val::Bool(false)));
        assert_eq!(parse_text("o"), None);
        assert_eq!(parse_text("NULL"), Some(Val::Null));
        assert_eq!(parse_text(""), None);
        assert_eq!(parse_text("12abc"), None);
        assert_eq!(parse_text("1 "), None);
        assert_eq!(parse_text("1e999"), None);
        assert_eq!(parse_int("  12  "), Some(12));
    }
}
