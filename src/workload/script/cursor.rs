//! Reading a script's text with its position: line and column (1-based, in characters)
//! for every error, as `FILE:LINE:COLUMN: what was expected`.

/// A place in a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

/// A static error in a script, at a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Where.
    pub pos: Pos,
    /// What was wrong or expected.
    pub msg: String,
}

impl ParseError {
    /// An error at `pos`.
    pub fn at(pos: Pos, msg: impl Into<String>) -> ParseError {
        ParseError { pos, msg: msg.into() }
    }
}

/// A position in the text, moved one character at a time.
#[derive(Clone)]
pub struct Cursor<'a> {
    src: &'a str,
    off: usize,
    pos: Pos,
}

impl<'a> Cursor<'a> {
    /// At the start of `src`.
    pub fn new(src: &'a str) -> Cursor<'a> {
        Cursor { src, off: 0, pos: Pos { line: 1, col: 1 } }
    }

    /// The current position.
    pub fn pos(&self) -> Pos {
        self.pos
    }

    /// The byte offset into the text.
    pub fn offset(&self) -> usize {
        self.off
    }

    /// The text from `from` (a byte offset) to here.
    pub fn since(&self, from: usize) -> &'a str {
        &self.src[from..self.off]
    }

    /// The text not read yet.
    pub fn rest(&self) -> &'a str {
        &self.src[self.off..]
    }

    /// The next character, without moving.
    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The character `n` places ahead (0 is `peek`).
    pub fn peek_at(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }

    /// Whether the unread text starts with `s`.
    pub fn starts_with(&self, s: &str) -> bool {
        self.rest().starts_with(s)
    }

    /// Move past one character and return it.
    pub fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.off += c.len_utf8();
        if c == '\n' {
            self.pos.line += 1;
            self.pos.col = 1;
        } else {
            self.pos.col += 1;
        }
        Some(c)
    }

    /// Move past `n` characters.
    pub fn skip(&mut self, n: usize) {
        for _ in 0..n {
            self.bump();
        }
    }

    /// At a backslash that continues the line (backslash, optional CR, newline): skip it.
    pub fn eat_continuation(&mut self) -> bool {
        let r = self.rest();
        if r.starts_with("\\\n") {
            self.skip(2);
            true
        } else if r.starts_with("\\\r\n") {
            self.skip(3);
            true
        } else {
            false
        }
    }
}

/// Letters, `_` and any non-ASCII character start a name (as pgbench's `alpha`).
pub fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii()
}

/// Name characters: a start character or a digit.
pub fn is_name_char(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit()
}

/// Blanks inside a line (C's isspace without the newline).
pub fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\x0b' | '\x0c')
}
