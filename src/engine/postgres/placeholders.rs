//! `?` placeholders: spelled out with their values (simple protocol) or numbered `$n`
//! (extended), found outside quotes, dollar quotes and comments.

use crate::engine::Param;

/// `sql` into `q` with each `?` placeholder replaced by its value spelled as SQL, as
/// pgbench -M simple does.
pub(super) fn spell(q: &mut String, sql: &str, params: &[Param]) {
    use std::fmt::Write as _;
    let mut from = 0;
    for p in params {
        let Some(at) = next_placeholder(sql, from) else { break };
        q.push_str(&sql[from..at]);
        from = at + 1;
        match p {
            Param::Int(i) => {
                let _ = write!(q, "{i}");
            }
            Param::Text(t) => {
                q.push('\'');
                for c in t.chars() {
                    q.push(c);
                    if c == '\'' {
                        q.push(c);
                    }
                }
                q.push('\'');
            }
        }
    }
    q.push_str(&sql[from..]);
}

/// `?` placeholders as `$1`, `$2`, … (outside quotes and comments).
pub(super) fn numbered(sql: &str) -> String {
    let (mut out, mut n, mut from) = (String::with_capacity(sql.len() + 8), 0, 0);
    while let Some(at) = next_placeholder(sql, from) {
        n += 1;
        out.push_str(&sql[from..at]);
        out.push_str(&format!("${n}"));
        from = at + 1;
    }
    out.push_str(&sql[from..]);
    out
}

/// Where the next `?` placeholder is at or after `from` (a place outside quotes): a `?`
/// inside '…', E'…', "…", $tag$…$tag$, -- and /* */ comments is text.
fn next_placeholder(sql: &str, from: usize) -> Option<usize> {
    let b = sql.as_bytes();
    let word = |i: usize| i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] >= 0x80);
    let mut i = from;
    while i < b.len() {
        i = match b[i] {
            b'?' => return Some(i),
            q @ (b'\'' | b'"') => {
                // E'…' strings take backslash escapes.
                let escapes = q == b'\'' && i > 0 && matches!(b[i - 1], b'E' | b'e') && !word(i - 1);
                let mut j = i + 1;
                while j < b.len() {
                    if escapes && b[j] == b'\\' {
                        j += 2;
                    } else if b[j] == q {
                        if b.get(j + 1) == Some(&q) {
                            j += 2;
                        } else {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                j + 1
            }
            b'-' if b.get(i + 1) == Some(&b'-') => b[i..].iter().position(|x| *x == b'\n').map_or(b.len(), |n| i + n),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (mut depth, mut j) = (0, i);
                while j < b.len() {
                    if b[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if b[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                j
            }
            b'$' if !word(i) => {
                let tag_end = b[i + 1..].iter().position(|x| !(x.is_ascii_alphanumeric() || *x == b'_' || *x >= 0x80));
                match tag_end.map(|n| i + 1 + n) {
                    Some(e) if b[e] == b'$' && !b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                        let tag = &sql[i..=e];
                        sql[e + 1..].find(tag).map_or(b.len(), |n| e + 1 + n + tag.len())
                    }
                    _ => i + 1,
                }
            }
            _ => i + 1,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::messages::rows_changed;
    use super::*;

    #[test]
    fn placeholders_tags_and_names() {
        assert_eq!(
            numbered("UPDATE t SET a = a + ? WHERE id = ? AND s = '?'"),
            "UPDATE t SET a = a + $1 WHERE id = $2 AND s = '?'"
        );
        assert_eq!(
            numbered("SELECT $$?$$, $a$'?$a$, E'\\'?', \"it's?\", ? -- ?\n, /* ? /* ? */ */ ?, x$y ?"),
            "SELECT $$?$$, $a$'?$a$, E'\\'?', \"it's?\", $1 -- ?\n, /* ? /* ? */ */ $2, x$y $3"
        );
        assert_eq!(rows_changed(b"INSERT 0 1\0"), 1);
        assert_eq!(rows_changed(b"UPDATE 12\0"), 12);
        assert_eq!(rows_changed(b"BEGIN\0"), 0);
    }
}
