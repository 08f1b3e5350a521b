//! The `--url` parsers of every server engine: any text is a connection or one line of
//! bad input, without a panic, and no password is ever printed: not in the refusal, not in
//! the connection's printed form (which must not change with the password), not in the
//! URL as the results file stores it.

use crate::harness::{Input, corpus, fuzz, inputs, one_line, text};
use dbrace::redact::redact;

/// URL syntax: schemes, separators, escapes, hosts and ports that parsers treat apart.
const TOKENS: &[&str] = &[
    "postgres://",
    "postgresql://",
    "mysql://",
    "mariadb://",
    "redis://",
    "redis+unix://",
    "rediss://",
    "mongodb://",
    "mongodb+srv://",
    "://",
    "@",
    ":",
    "/",
    "//",
    "?",
    "&",
    "=",
    "#",
    "%",
    "%2F",
    "%40",
    "%3A",
    "%25",
    "%zz",
    "%F",
    "%FF",
    "%00",
    "%C3%A9",
    "[",
    "]",
    "[::1]",
    "::",
    "localhost",
    "127.0.0.1",
    "0",
    "5432",
    "65535",
    "65536",
    "-1",
    "+1",
    "99999999999999999999",
    "host=",
    "port=",
    "sslmode=",
    "disable",
    "require",
    "socket=",
    "db=",
    "pass=",
    "user=",
    "password=",
    "authSource=",
    "authMechanism=",
    "SCRAM-SHA-256",
    "tls=",
    "tlsCAFile=",
    "tlsInsecure=",
    "tlsAllowInvalidHostnames=",
    "ssl_cert_reqs=",
    "ssl_ca_certs=",
    "ssl_check_hostname=",
    "none",
    "true",
    "false",
    "connect_timeout=",
    "+",
    " ",
    "é",
    "\u{0}",
    ".sock",
    "/tmp/s.sock",
    "***",
];

/// What a parser made of an accepted URL.
struct Parsed {
    /// The password it will log in with.
    password: Option<String>,
    /// The connection as printed.
    redacted: String,
    /// The same connection with another password, as printed: must be the same text.
    redacted_other: String,
}

/// The password a user meant: by RFC 3986's reading (the authority ends at the first '/',
/// '?' or '#'; the user information at its last '@'), or, when that authority holds no
/// '@', `USER:PASS/WORD@HOST`: a password with an unescaped '/' (as base64 has), before the
/// URL's only '@', with no '?' or '#' before it and its ':' before any '/'.
fn meant_password(url: &str) -> Option<&str> {
    let rest = &url[url.find("://")? + 3..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let userinfo = match authority.rsplit_once('@') {
        Some((userinfo, _)) => userinfo,
        None => {
            let (userinfo, _) = rest.split_once('@').filter(|(_, host)| !host.contains('@'))?;
            let colon = userinfo.find(':')?;
            let plain = !userinfo.contains(['?', '#']);
            (plain && userinfo.find('/').is_some_and(|slash| colon < slash)).then_some(userinfo)?
        }
    };
    userinfo.split_once(':').map(|(_, p)| p)
}

/// A password that can be searched for in printed text: non-empty, written as it is in the
/// input (no escapes, and no control characters, which URL readers drop), in it once, and
/// without the `*` of the printed mask.
fn findable<'a>(password: &'a str, url: &str) -> Option<&'a str> {
    // One scheme, before any query, and no '%' or '+' (a query's space): the password is
    // then as written.
    let scheme = url.matches("://").count() == 1 && url.split('?').next().is_some_and(|b| b.contains("://"));
    let plain = scheme && !url.contains(['%', '+']) && !url.chars().any(char::is_control);
    (plain && !password.is_empty() && !password.contains('*') && url.matches(password).count() == 1).then_some(password)
}

/// The URL with its password replaced by as many letters it does not hold.
fn masked(url: &str, password: &str) -> String {
    let letter = if password.contains('Q') { "Z" } else { "Q" };
    url.replace(password, &letter.repeat(password.chars().count()))
}

/// Whether `print` shows the password: it does when the text holds it and no longer does
/// once the URL's password is another (so a password that is also a word of the message's
/// own text is no leak).
fn shows(print: impl Fn(&str) -> String, url: &str, password: &str) -> bool {
    print(url).contains(password) && !print(&masked(url, password)).contains(password)
}

fn check(input: &[u8], parse: impl Fn(&str) -> Result<Parsed, String>) -> bool {
    let url = text(input);
    match parse(&url) {
        Ok(p) => {
            assert_eq!(p.redacted, p.redacted_other, "the printed connection depends on the password: {url:?}");
            if let Some(pw) = p.password.as_deref().and_then(|pw| findable(pw, &url)) {
                assert!(!shows(redact, &url, pw), "the stored URL {:?} holds the password {pw:?}", redact(&url));
            }
            true
        }
        Err(msg) => {
            one_line(&msg, input);
            if let Some(pw) = meant_password(&url).and_then(|pw| findable(pw, &url)) {
                // A masked URL the parser accepts tells nothing: it then counts as showing
                // the password, so `shows` blames no refusal for it.
                let refusal = |u: &str| parse(u).err().unwrap_or_else(|| pw.to_string());
                assert!(!shows(refusal, &url, pw), "the refusal {msg:?} holds the password {pw:?} of {url:?}");
            }
            false
        }
    }
}

fn seeds(target: &str) -> Vec<Input> {
    corpus(target).into_iter().map(|(_, b)| b).collect()
}

#[test]
fn postgres_url() {
    use dbrace::engine::postgres::conninfo::ConnInfo;
    fuzz("postgres", inputs(&seeds("postgres"), TOKENS), |input| {
        check(input, |url| {
            let c = ConnInfo::parse(url).map_err(|e| e.to_string())?;
            let other = ConnInfo { password: c.password.as_ref().map(|_| "another".to_string()), ..c.clone() };
            Ok(Parsed { password: c.password.clone(), redacted: c.redacted(), redacted_other: other.redacted() })
        })
    });
}

#[test]
fn mysql_url() {
    use dbrace::engine::mysql::endpoint::Endpoint;
    use mysql_async::OptsBuilder;
    fuzz("mysql", inputs(&seeds("mysql"), TOKENS), |input| {
        check(input, |url| {
            let e = Endpoint::parse(url).map_err(|e| e.to_string())?;
            let pass = e.opts.pass().map(str::to_string);
            let other = OptsBuilder::from_opts(e.opts.clone()).pass(pass.as_ref().map(|_| "another"));
            let other = Endpoint::new(other);
            Ok(Parsed { password: pass, redacted: e.redacted(), redacted_other: other.redacted() })
        })
    });
}

#[test]
fn redis_url() {
    use dbrace::engine::redis::endpoint::Endpoint;
    fuzz("redis", inputs(&seeds("redis"), TOKENS), |input| {
        check(input, |url| {
            let e = Endpoint::parse(url).map_err(|e| e.to_string())?;
            let other = Endpoint { password: e.password.as_ref().map(|_| "another".to_string()), ..e.clone() };
            Ok(Parsed { password: e.password.clone(), redacted: e.redacted(), redacted_other: other.redacted() })
        })
    });
}

#[test]
fn mongo_url() {
    use dbrace::engine::mongo::url::Endpoint;
    fuzz("mongo", inputs(&seeds("mongo"), TOKENS), |input| {
        check(input, |url| {
            let e = Endpoint::parse(url).map_err(|e| e.to_string())?;
            let other = Endpoint { password: e.password.as_ref().map(|_| "another".to_string()), ..e.clone() };
            Ok(Parsed { password: e.password.clone(), redacted: e.redacted(), redacted_other: other.redacted() })
        })
    });
}
