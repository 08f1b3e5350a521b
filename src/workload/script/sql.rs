//! One SQL command of a script, read as pgbench's SQL scanner does: it ends at a `;`
//! outside parentheses, quotes and comments, at a backslash that starts a meta-command,
//! or at the end of the file. `:name` outside quotes and comments is a variable: it
//! becomes a `?` parameter. `\;` separates the queries of a compound command (each is
//! prepared and run in turn), `\:` is a plain colon, `::` a cast. Comments are dropped.

use super::cursor::{Cursor, ParseError, Pos, is_name_char, is_name_start};

/// One query: SQL text with `?` placeholders, and the variable behind each, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// The SQL sent, with `?` for each variable.
    pub sql: String,
    /// Each placeholder's variable name and where it was written.
    pub vars: Vec<(String, Pos)>,
}

/// A SQL command: one query, or several separated by `\;`.
#[derive(Clone, Debug, PartialEq)]
pub struct SqlCommand {
    /// The queries, in order (at least one).
    pub queries: Vec<Query>,
    /// Where the command starts.
    pub pos: Pos,
    /// Its first line as written, for reports.
    pub first_line: String,
}

/// How a SQL command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// At a `;`.
    Semicolon,
    /// At a backslash starting a meta-command (the cursor is on it).
    Backslash,
    /// At the end of the file.
    Eof,
}

/// Read one SQL command from the cursor, which is on its first character. Returns
/// `None` for the command when it holds nothing but blanks and comments.
pub fn scan(c: &mut Cursor) -> Result<(Option<SqlCommand>, End), ParseError> {
    let pos = c.pos();
    let start = c.offset();
    let mut queries = Vec::new();
    let mut q = Query { sql: String::new(), vars: Vec::new() };
    let mut depth = 0u32;
    // Whether the previous character continues a name, so that `$` is part of it.
    let mut in_name = false;
    let end = loop {
        let Some(ch) = c.peek() else { break End::Eof };
        let at = c.pos();
        match ch {
            ';' if depth == 0 => {
                c.bump();
                break End::Semicolon;
            }
            '\\' => {
                if !backslash_escape(c, &mut queries, &mut q) {
                    break End::Backslash;
                }
            }
            '-' if c.peek_at(1) == Some('-') => line_comment(c),
            '/' if c.peek_at(1) == Some('*') => {
                block_comment(c)?;
                q.sql.push(' ');
            }
            '\'' => {
                let escapes = ends_with_e_prefix(&q.sql);
                quoted(c, '\'', escapes, &mut q.sql)?;
            }
            '"' => quoted(c, '"', false, &mut q.sql)?,
            '$' if !in_name => dollar(c, &mut q.sql)?,
            ':' => colon(c, at, &mut q),
            '?' => {
                return Err(ParseError::at(
                    at,
                    "a '?' outside quotes is dbrace's parameter placeholder; write the operator another way (e.g. jsonb_exists() for jsonb ?)",
                ));
            }
            _ => plain(c, ch, &mut depth, &mut q.sql),
        }
        in_name = is_name_char(ch) || (ch == '$' && in_name);
    };
    push_query(&mut queries, &mut q);
    if queries.is_empty() {
        return Ok((None, end));
    }
    Ok((Some(command(c.since(start), pos, queries)), end))
}

/// `\;` (ends a query of a compound command) or `\:` (a plain colon), consumed; false
/// when the backslash starts a meta-command instead.
fn backslash_escape(c: &mut Cursor, queries: &mut Vec<Query>, q: &mut Query) -> bool {
    match c.peek_at(1) {
        Some(';') => {
            c.skip(2);
            push_query(queries, q);
        }
        Some(':') => {
            c.skip(2);
            q.sql.push(':');
        }
        _ => return false,
    }
    true
}

/// Skip a `--` comment up to its newline, which stays.
fn line_comment(c: &mut Cursor) {
    while c.peek().is_some_and(|x| x != '\n') {
        c.bump();
    }
}

/// A `$` not inside a name: a dollar-quoted string, or a plain `$` (as in `$1`).
fn dollar(c: &mut Cursor, out: &mut String) -> Result<(), ParseError> {
    match dollar_tag(c.rest()) {
        Some(tag) => dollar_quoted(c, tag.len(), out)?,
        None => {
            c.bump();
            out.push('$');
        }
    }
    Ok(())
}

/// A `:` at `at`: a `::` cast, a `:name` variable (becoming a `?`), or a plain colon.
fn colon(c: &mut Cursor, at: Pos, q: &mut Query) {
    if c.peek_at(1) == Some(':') {
        while c.peek() == Some(':') {
            c.bump();
            q.sql.push(':');
        }
    } else if c.peek_at(1).is_some_and(is_name_start) {
        c.bump();
        let from = c.offset();
        while c.peek().is_some_and(is_name_char) {
            c.bump();
        }
        q.vars.push((c.since(from).to_string(), at));
        q.sql.push('?');
    } else {
        c.bump();
        q.sql.push(':');
    }
}

/// Copy any other character, tracking parentheses so that a `;` inside them does not end
/// the command.
fn plain(c: &mut Cursor, ch: char, depth: &mut u32, out: &mut String) {
    match ch {
        '(' => *depth += 1,
        ')' => *depth = depth.saturating_sub(1),
        _ => {}
    }
    c.bump();
    out.push(ch);
}

/// The command read from `text` (starting at `pos`), reported by its first real line.
fn command(text: &str, pos: Pos, queries: Vec<Query>) -> SqlCommand {
    let first = skip_blank_and_comments(text).lines().next().unwrap_or("").trim_end();
    let first_line: String = first.chars().take(127).collect();
    SqlCommand { queries, pos: first_pos(pos, text), first_line }
}

/// Keep the query if it holds more than blanks.
fn push_query(queries: &mut Vec<Query>, q: &mut Query) {
    let sql = q.sql.trim();
    if !sql.is_empty() {
        queries.push(Query { sql: sql.to_string(), vars: std::mem::take(&mut q.vars) });
    }
    q.sql.clear();
    q.vars.clear();
}

/// The text from its first character that is neither blank nor in a `--` comment.
fn skip_blank_and_comments(mut s: &str) -> &str {
    loop {
        s = s.trim_start();
        match s.strip_prefix("--") {
            Some(r) => s = r.split_once('\n').map_or("", |(_, rest)| rest),
            None => return s,
        }
    }
}

/// Where the command's first real character is (past blanks and comments).
fn first_pos(start: Pos, text: &str) -> Pos {
    let skipped = &text[..text.len() - skip_blank_and_comments(text).len()];
    let mut p = start;
    for ch in skipped.chars() {
        if ch == '\n' {
            p.line += 1;
            p.col = 1;
        } else {
            p.col += 1;
        }
    }
    p
}

/// Whether a string literal starting now is an E'…' string (backslash escapes).
fn ends_with_e_prefix(sql: &str) -> bool {
    let mut rev = sql.chars().rev();
    matches!(rev.next(), Some('e' | 'E')) && !rev.next().is_some_and(is_name_char)
}

/// Copy a quoted string or identifier, doubled quotes included; `escapes`: a backslash
/// escapes the next character.
fn quoted(c: &mut Cursor, quote: char, escapes: bool, out: &mut String) -> Result<(), ParseError> {
    let at = c.pos();
    out.push(quote);
    c.bump();
    loop {
        match c.bump() {
            None => {
                let what = if quote == '"' { "quoted identifier" } else { "quoted string" };
                return Err(ParseError::at(at, format!("unterminated {what}; expected a closing {quote}")));
            }
            Some('\\') if escapes => {
                out.push('\\');
                if let Some(n) = c.bump() {
                    out.push(n);
                }
            }
            Some(ch) if ch == quote => {
                out.push(ch);
                if c.peek() == Some(quote) {
                    c.bump();
                    out.push(quote);
                } else {
                    return Ok(());
                }
            }
            Some(ch) => out.push(ch),
        }
    }
}

/// `$tag$` at the start of `s` (tag empty or a name not starting with a digit).
fn dollar_tag(s: &str) -> Option<&str> {
    let rest = s.strip_prefix('$')?;
    let mut chars = rest.char_indices();
    match chars.next()? {
        (i, '$') => Some(&s[..i + 2]),
        (_, ch) if is_name_start(ch) => {
            for (i, ch) in chars {
                if ch == '$' {
                    return Some(&s[..i + 2]);
                }
                if !is_name_char(ch) {
                    return None;
                }
            }
            None
        }
        _ => None,
    }
}

/// Copy a dollar-quoted string whose opening tag is `tag_len` bytes long.
fn dollar_quoted(c: &mut Cursor, tag_len: usize, out: &mut String) -> Result<(), ParseError> {
    let at = c.pos();
    let tag = c.rest()[..tag_len].to_string();
    let Some(body) = c.rest()[tag_len..].find(tag.as_str()) else {
        return Err(ParseError::at(at, format!("unterminated dollar-quoted string; expected a closing {tag}")));
    };
    let whole = &c.rest()[..tag_len + body + tag_len];
    out.push_str(whole);
    let n = whole.chars().count();
    c.skip(n);
    Ok(())
}

/// Skip a `/* … */` comment, nested as PostgreSQL nests them.
fn block_comment(c: &mut Cursor) -> Result<(), ParseError> {
    let at = c.pos();
    let mut depth = 0;
    loop {
        if c.starts_with("/*") {
            depth += 1;
            c.skip(2);
        } else if c.starts_with("*/") {
            depth -= 1;
            c.skip(2);
            if depth == 0 {
                return Ok(());
            }
        } else if c.bump().is_none() {
            return Err(ParseError::at(at, "unterminated /* comment; expected */"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> (SqlCommand, End) {
        let mut c = Cursor::new(src);
        let (cmd, end) = scan(&mut c).unwrap();
        (cmd.unwrap(), end)
    }

    #[test]
    fn variables_become_placeholders_outside_quotes_and_comments() {
        let (cmd, end) = one("UPDATE t SET a = a + :delta WHERE id = :aid AND s = ':no' -- :no\n AND x::int = 1;");
        assert_eq!(end, End::Semicolon);
        let q = &cmd.queries[0];
        assert_eq!(q.sql, "UPDATE t SET a = a + ? WHERE id = ? AND s = ':no' \n AND x::int = 1");
        let names: Vec<_> = q.vars.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["delta", "aid"]);
        assert_eq!(q.vars[1].1, Pos { line: 1, col: 40 });
    }

    #[test]
    fn commands_span_lines_until_a_semicolon_outside_parentheses() {
        let mut c = Cursor::new("SELECT (1;\n2)\n FROM t;\nSELECT 3");
        let (a, _) = scan(&mut c).unwrap();
        assert_eq!(a.unwrap().queries[0].sql, "SELECT (1;\n2)\n FROM t");
        let (b, end) = scan(&mut c).unwrap();
        assert_eq!((b.unwrap().queries[0].sql.as_str(), end), ("SELECT 3", End::Eof));
    }

    #[test]
    fn compound_commands_dollar_quotes_and_backslashes() {
        let (cmd, end) = one("SELECT 1 \\;\nSELECT 2 AS two, 3 AS three \\gset p_");
        assert_eq!(end, End::Backslash);
        assert_eq!(cmd.queries.len(), 2);
        assert_eq!(cmd.queries[1].sql, "SELECT 2 AS two, 3 AS three");
        let (cmd, _) = one("SELECT $$a;:b$$, $x$'$x$, E'it\\'s :no', \"a\"\"b\", foo$bar, $1, \\:lit;");
        assert_eq!(cmd.queries[0].sql, "SELECT $$a;:b$$, $x$'$x$, E'it\\'s :no', \"a\"\"b\", foo$bar, $1, :lit");
        assert!(cmd.queries[0].vars.is_empty());
    }

    #[test]
    fn errors_point_at_the_opening() {
        let e = scan(&mut Cursor::new("SELECT 1;\nSELECT 'abc")).and_then(|_| scan(&mut Cursor::new("SELECT 'abc")));
        let e = e.unwrap_err();
        assert_eq!(e.pos, Pos { line: 1, col: 8 });
        assert!(e.msg.contains("unterminated quoted string"));
        let e = scan(&mut Cursor::new("SELECT data ? 'k'")).unwrap_err();
        assert_eq!(e.pos.col, 13);
        let e = scan(&mut Cursor::new("SELECT /* a /* b */ c")).unwrap_err();
        assert!(e.msg.contains("unterminated /* comment"));
        assert!(scan(&mut Cursor::new("SELECT $q$ x")).unwrap_err().msg.contains("dollar-quoted"));
    }

    #[test]
    fn blank_commands_are_none_and_positions_skip_comments() {
        let (cmd, end) = scan(&mut Cursor::new("  -- just a comment\n  ;")).unwrap();
        assert!(cmd.is_none());
        assert_eq!(end, End::Semicolon);
        let (cmd, _) = one("-- note\n  SELECT 1;");
        assert_eq!(cmd.pos, Pos { line: 2, col: 3 });
        assert_eq!(cmd.first_line, "SELECT 1;");
    }
}
