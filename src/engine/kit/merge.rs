//! `--set` over a profile's own settings.

/// `over` (the `--set` values) replaces what `base` (the profile's mapping) says for the
/// same key; `key` writes a key as the engine means it (MySQL's `-` and `_` are one).
pub fn merged(
    mut base: Vec<(String, String)>,
    over: &[(String, String)],
    key: fn(&str) -> String,
) -> Vec<(String, String)> {
    for (k, v) in over {
        let k = key(k);
        base.retain(|(x, _)| *x != k);
        base.push((k, v.clone()));
    }
    base
}

/// A key as it is written.
pub fn as_written(key: &str) -> String {
    key.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_value_replaces_the_profiles_own_and_goes_last() {
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        let m = merged(vec![kv("a", "1"), kv("b", "2")], &[kv("a", "3")], as_written);
        assert_eq!(m, [kv("b", "2"), kv("a", "3")]);
        let m = merged(vec![kv("x_y", "1")], &[kv("x-y", "2")], |k| k.replace('-', "_"));
        assert_eq!(m, [kv("x_y", "2")]);
    }
}
