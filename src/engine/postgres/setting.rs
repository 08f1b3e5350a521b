//! A setting's value compared as PostgreSQL reads it, not as it was written: `1.0` is the
//! `1` a real setting holds, `128MB` the `16384` pages of 8 kB shared_buffers holds, `5min`
//! the `300` seconds of checkpoint_timeout, `TRUE` the `on` of a boolean. pg_settings gives
//! each setting's type and unit, and its value in that unit.

/// A setting as pg_settings describes it.
#[derive(Debug, PartialEq)]
pub struct Catalogued {
    /// `bool`, `integer`, `real`, `enum` or `string`.
    pub vartype: String,
    /// The unit its value is in (`8kB`, `kB`, `ms`, `s`, `min`), or empty.
    pub unit: String,
    /// Its value, in that unit.
    pub setting: String,
}

/// The query whose one column `Catalogued::parse` reads; `name` is a setting's name.
pub fn query(name: &str) -> String {
    format!(
        "SELECT vartype || '|' || coalesce(unit, '') || '|' || setting FROM pg_settings WHERE name = '{}'",
        name.replace('\'', "''")
    )
}

impl Catalogued {
    /// The row of `query`; None when pg_settings has none (an extension's placeholder).
    pub fn parse(row: &str) -> Option<Catalogued> {
        let mut parts = row.splitn(3, '|');
        let (vartype, unit, setting) = (parts.next()?, parts.next()?, parts.next()?);
        (!vartype.is_empty()).then(|| Catalogued {
            vartype: vartype.to_string(),
            unit: unit.to_string(),
            setting: setting.to_string(),
        })
    }

    /// Whether the setting holds `want` as PostgreSQL would read it.
    pub fn holds(&self, want: &str) -> bool {
        let want = want.trim();
        match self.vartype.as_str() {
            "bool" => boolean(want).is_some_and(|w| boolean(&self.setting) == Some(w)),
            "integer" => self.in_unit(want).is_some_and(|w| close(w.round(), &self.setting)),
            "real" => self.in_unit(want).is_some_and(|w| close(w, &self.setting)),
            // synchronous_commit and the like take a boolean's spellings too.
            "enum" => match (boolean(want), boolean(&self.setting)) {
                (Some(w), Some(h)) => w == h,
                _ => want.eq_ignore_ascii_case(&self.setting),
            },
            _ => want == self.setting,
        }
    }

    /// `want` as a number in the setting's unit: a bare number is in it already, a number
    /// with a unit of the same kind (memory or time) is converted.
    fn in_unit(&self, want: &str) -> Option<f64> {
        let (number, unit) = number_and_unit(want)?;
        if unit.is_empty() {
            return Some(number);
        }
        let (kind, factor) = unit_factor(unit)?;
        let (own_kind, own_factor) = self.own_unit()?;
        (kind == own_kind).then(|| number * factor / own_factor)
    }

    /// The setting's unit as a kind and a factor: `8kB` is memory, 8192 bytes.
    fn own_unit(&self) -> Option<(Kind, f64)> {
        let (count, unit) = number_and_unit(&self.unit).unwrap_or((1.0, self.unit.as_str()));
        let (kind, factor) = unit_factor(unit)?;
        Some((kind, count * factor))
    }
}

/// What a unit measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Memory,
    Time,
}

/// A unit PostgreSQL takes (case-sensitive, as it reads them), in bytes or milliseconds.
fn unit_factor(unit: &str) -> Option<(Kind, f64)> {
    let k = 1024.0;
    Some(match unit {
        "B" => (Kind::Memory, 1.0),
        "kB" => (Kind::Memory, k),
        "MB" => (Kind::Memory, k * k),
        "GB" => (Kind::Memory, k * k * k),
        "TB" => (Kind::Memory, k * k * k * k),
        "us" => (Kind::Time, 0.001),
        "ms" => (Kind::Time, 1.0),
        "s" => (Kind::Time, 1000.0),
        "min" => (Kind::Time, 60_000.0),
        "h" => (Kind::Time, 3_600_000.0),
        "d" => (Kind::Time, 86_400_000.0),
        _ => return None,
    })
}

/// `128MB` as (128, "MB"), `1.5 s` as (1.5, "s"), `300` as (300, "").
fn number_and_unit(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end =
        text.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))).unwrap_or(text.len());
    // An exponent's `e` is part of the number only when digits follow it.
    let end = if text[..end].ends_with(['e', 'E']) { end - 1 } else { end };
    let number = text[..end].parse::<f64>().ok()?;
    Some((number, text[end..].trim()))
}

/// Whether `setting` (as pg_settings writes it) is `want`, to a relative 1e-9.
fn close(want: f64, setting: &str) -> bool {
    setting.trim().parse::<f64>().is_ok_and(|have| (have - want).abs() <= 1e-9 * want.abs().max(1.0))
}

/// A boolean as PostgreSQL reads one: on, off, true, false, yes, no, 1, 0, or a prefix of
/// one of the words that no word of the other value shares.
fn boolean(text: &str) -> Option<bool> {
    let t = text.trim().to_ascii_lowercase();
    match t.as_str() {
        "1" => return Some(true),
        "0" => return Some(false),
        "" => return None,
        _ => {}
    }
    let says = |words: [&str; 3]| words.iter().any(|w| w.starts_with(t.as_str()));
    match (says(["on", "true", "yes"]), says(["off", "false", "no"])) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(vartype: &str, unit: &str, value: &str) -> Catalogued {
        Catalogued { vartype: vartype.into(), unit: unit.into(), setting: value.into() }
    }

    /// A catalogue row (type, unit, value), values that are it however written, and
    /// values that are not.
    type Case = (&'static str, &'static str, &'static str, &'static [&'static str], &'static [&'static str]);

    /// One row per setting type of the catalogue.
    #[test]
    fn each_setting_type_is_compared_as_the_server_reads_it() {
        let table: &[Case] = &[
            ("bool", "", "off", &["off", "OFF", "false", "no", "0", "f", "of"], &["on", "true", "1", "o", "maybe"]),
            ("bool", "", "on", &["on", "True", "YES", "1", "t", "y"], &["off", "0", "n"]),
            ("integer", "", "100", &["100", "100.0", "1e2", " 100 "], &["101", "10", "100kB", "many"]),
            (
                "integer",
                "8kB",
                "16384",
                &["16384", "128MB", "131072kB", "134217728B", "128 MB"],
                &["256MB", "128", "128mb", "1s"],
            ),
            ("integer", "kB", "4096", &["4MB", "4096", "4096kB"], &["4GB", "4097"]),
            ("integer", "s", "300", &["300", "5min", "300s", "300000ms"], &["5", "5h", "300MB"]),
            ("integer", "ms", "200", &["200", "200ms", "0.2s", "200000us"], &["2s"]),
            ("real", "", "1", &["1", "1.0", "1.00", "1e0", "+1"], &["1.1", "0.99", "one"]),
            ("real", "", "0.5", &["0.5", ".5", "5e-1"], &["0.50001"]),
            ("real", "ms", "2", &["2", "2ms", "2000us", "0.002s"], &["2s"]),
            ("enum", "", "replica", &["replica", "REPLICA", "Replica"], &["minimal", "logical"]),
            ("enum", "", "off", &["off", "false", "no", "OFF"], &["on", "local", "remote_write"]),
            ("string", "", "dbrace", &["dbrace", " dbrace "], &["DBRACE", "other"]),
        ];
        for (vartype, unit, value, same, other) in table {
            let s = setting(vartype, unit, value);
            for w in *same {
                assert!(s.holds(w), "{vartype} {value}{unit} should hold '{w}'");
            }
            for w in *other {
                assert!(!s.holds(w), "{vartype} {value}{unit} should not hold '{w}'");
            }
        }
    }

    #[test]
    fn a_row_of_the_catalogue_is_read_and_a_missing_one_is_none() {
        let want = setting("integer", "8kB", "16384");
        assert_eq!(Catalogued::parse("integer|8kB|16384"), Some(want));
        assert_eq!(Catalogued::parse("string||a|b").unwrap().setting, "a|b");
        assert_eq!(Catalogued::parse(""), None);
        assert!(query("it's").ends_with("name = 'it''s'"));
    }
}
