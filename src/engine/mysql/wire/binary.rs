//! Binary-protocol rows: column definitions, and each value written out as text.

use super::packet::lenenc;

/// Column flag: an unsigned integer.
const UNSIGNED: u16 = 32;

/// A column definition's type and flags, and its name when `named`.
pub(super) fn column(p: &[u8], named: bool) -> (u8, u16, String) {
    let mut i = 0;
    let mut name = String::new();
    for k in 0..6 {
        let n = lenenc(p, &mut i) as usize;
        if k == 4 && named {
            name = String::from_utf8_lossy(p.get(i..i.saturating_add(n)).unwrap_or_default()).into_owned();
        }
        i = i.saturating_add(n);
    }
    // Fixed fields: length (0x0c), charset u16, column length u32, type u8, flags u16.
    let fixed = p.get(i..).unwrap_or_default();
    let ty = fixed.get(7).copied().unwrap_or(0xfd);
    let flags = fixed.get(8..10).map_or(0, |f| u16::from_le_bytes([f[0], f[1]]));
    (ty, flags, name)
}

/// Hand each value of the binary row `p` to `f` as text, with its column's name;
/// `only_first` stops after the first. `None` for a row that does not parse.
pub(super) fn values(
    p: &[u8],
    cols: &[(u8, u16, String)],
    text: &mut String,
    f: &mut dyn FnMut(usize, &str, Option<&str>),
    only_first: bool,
) -> Option<()> {
    let mut i = 1 + (cols.len() + 7 + 2) / 8;
    for (c, (ty, flags, name)) in cols.iter().enumerate() {
        let bit = c + 2;
        if p.get(1 + bit / 8)? & (1 << (bit % 8)) != 0 {
            f(c, name, None);
        } else {
            text.clear();
            binary_text(p, &mut i, *ty, *flags, text)?;
            f(c, name, Some(text));
        }
        if only_first {
            break;
        }
    }
    Some(())
}

/// One binary-protocol value at `*i` as text.
fn binary_text(p: &[u8], i: &mut usize, ty: u8, flags: u16, out: &mut String) -> Option<()> {
    use std::fmt::Write as _;
    let unsigned = flags & UNSIGNED != 0;
    let mut take = |n: usize| {
        let s = p.get(*i..*i + n)?;
        *i += n;
        Some(s)
    };
    match ty {
        // TINY, SHORT/YEAR, LONG/INT24, LONGLONG
        1 => {
            let b = take(1)?[0];
            let _ = if unsigned { write!(out, "{b}") } else { write!(out, "{}", b as i8) };
        }
        2 | 13 => {
            let v = u16::from_le_bytes(take(2)?.try_into().ok()?);
            let _ = if unsigned { write!(out, "{v}") } else { write!(out, "{}", v as i16) };
        }
        3 | 9 => {
            let v = u32::from_le_bytes(take(4)?.try_into().ok()?);
            let _ = if unsigned { write!(out, "{v}") } else { write!(out, "{}", v as i32) };
        }
        8 => {
            let v = u64::from_le_bytes(take(8)?.try_into().ok()?);
            let _ = if unsigned { write!(out, "{v}") } else { write!(out, "{}", v as i64) };
        }
        4 => {
            let _ = write!(out, "{}", f32::from_le_bytes(take(4)?.try_into().ok()?));
        }
        5 => {
            let _ = write!(out, "{}", f64::from_le_bytes(take(8)?.try_into().ok()?));
        }
        6 => {}
        // DATE, DATETIME, TIMESTAMP
        7 | 10 | 12 => {
            let n = take(1)?[0] as usize;
            let d = take(n)?;
            let (y, mo, da) = if n >= 4 { (u16::from_le_bytes([d[0], d[1]]), d[2], d[3]) } else { (0, 0, 0) };
            let _ = write!(out, "{y:04}-{mo:02}-{da:02}");
            if ty != 10 {
                let (h, mi, s) = if n >= 7 { (d[4], d[5], d[6]) } else { (0, 0, 0) };
                let _ = write!(out, " {h:02}:{mi:02}:{s:02}");
                if n >= 11 {
                    let _ = write!(out, ".{:06}", u32::from_le_bytes([d[7], d[8], d[9], d[10]]));
                }
            }
        }
        // TIME
        11 => {
            let n = take(1)?[0] as usize;
            let d = take(n)?;
            if n >= 8 {
                let days = u32::from_le_bytes([d[1], d[2], d[3], d[4]]);
                let sign = if d[0] == 1 { "-" } else { "" };
                let _ = write!(out, "{sign}{:02}:{:02}:{:02}", days * 24 + u32::from(d[5]), d[6], d[7]);
                if n >= 12 {
                    let _ = write!(out, ".{:06}", u32::from_le_bytes([d[8], d[9], d[10], d[11]]));
                }
            } else {
                out.push_str("00:00:00");
            }
        }
        // DECIMAL and every string type come as length-encoded text.
        _ => {
            let n = lenenc(p, i) as usize;
            let s = p.get(*i..i.checked_add(n)?)?;
            *i += n;
            out.push_str(&String::from_utf8_lossy(s));
        }
    }
    Some(())
}

/// Integers as they are; sums (DECIMAL) and doubles truncated, as the mysql_async path does.
pub(super) fn as_i64(s: &str) -> Option<i64> {
    s.parse::<i64>().ok().or_else(|| s.parse::<f64>().ok().map(|f| f as i64))
}
