//! Passwords out of URLs before they are printed or stored, whatever the engine.

/// Replace a URL's password with `***` without parsing the rest: in the user info, and in
/// a `pass=` or `password=` query parameter (as redis+unix:// URLs carry it).
pub fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else { return url.to_string() };
    let rest = &url[scheme_end..];
    let auth_end = rest.find('/').unwrap_or(rest.len());
    let url = match rest[..auth_end].rsplit_once('@') {
        Some((userinfo, _)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{}{user}:***@{}", &url[..scheme_end], &rest[userinfo.len() + 1..])
        }
        _ => url.to_string(),
    };
    let Some((base, query)) = url.split_once('?') else { return url };
    let query: Vec<String> = query
        .split('&')
        .map(|kv| match kv.split_once('=') {
            Some((k @ ("pass" | "password"), _)) => format!("{k}=***"),
            _ => kv.to_string(),
        })
        .collect();
    format!("{base}?{}", query.join("&"))
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn redaction_hides_the_password_only() {
        assert_eq!(redact("postgres://bob:pw@h:1/d"), "postgres://bob:***@h:1/d");
        assert_eq!(redact("postgres://bob@h/d"), "postgres://bob@h/d");
        assert_eq!(redact("redis://:pw@h:1/0"), "redis://:***@h:1/0");
        assert_eq!(redact("redis+unix:///s.sock?db=1&pass=pw"), "redis+unix:///s.sock?db=1&pass=***");
        assert_eq!(redact("postgres://u@/d?host=/tmp&password=pw"), "postgres://u@/d?host=/tmp&password=***");
    }
}
