//! Passwords out of URLs before they are printed or stored, whatever the engine.

/// Replace a URL's password with `***` without parsing the rest: in the user info, and in
/// a `pass=` or `password=` query parameter (as redis+unix:// URLs carry it).
pub fn redact(url: &str) -> String {
    // The query first: the user information below may swallow a '?' of an odd URL.
    let url = match url.split_once('?') {
        Some((base, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k @ ("pass" | "password"), _)) => format!("{k}=***"),
                    _ => kv.to_string(),
                })
                .collect();
            format!("{base}?{}", query.join("&"))
        }
        None => url.to_string(),
    };
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else { return url };
    let rest = &url[scheme_end..];
    let auth_end = rest.find('/').unwrap_or(rest.len());
    // Without an '@' before the first '/', a '/' may be in an unescaped password
    // (`bob:se/cret@host`): the user information then runs to the last '@'. Hiding too
    // much of an odd URL is better than printing a password.
    let auth_end = if rest[..auth_end].contains('@') { auth_end } else { rest.len() };
    match rest[..auth_end].rsplit_once('@') {
        Some((userinfo, _)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{}{user}:***@{}", &url[..scheme_end], &rest[userinfo.len() + 1..])
        }
        _ => url.clone(),
    }
}

/// `text` with every occurrence of `secret` replaced by `***`, whatever quoted it.
pub fn scrub(text: &str, secret: &str) -> String {
    if secret.is_empty() { text.to_string() } else { text.replace(secret, "***") }
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
        assert_eq!(redact("postgres://bob:se/cr?et@h/d"), "postgres://bob:***@h/d");
        assert_eq!(redact("mongodb://u@h:1/d?appName=a@b"), "mongodb://u@h:1/d?appName=a@b");
        assert_eq!(redact("redis+unix:///a:b?@db=2&pass=pw"), "redis+unix:///a:***@db=2&pass=***");
    }
}
