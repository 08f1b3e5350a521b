//! pgbench's expression language (`\set`, `\if`): a lexer and a precedence-climbing
//! parser with pgbench's operators, precedence and associativity (from its grammar,
//! lowest first): OR; AND; NOT; IS / ISNULL / NOTNULL (non-associative); comparisons
//! (non-associative); bitwise `| # & << >>` and `~`; `+ -`; `* / %`; unary `+ -`.

use super::cursor::{Cursor, ParseError, Pos, is_blank, is_name_char, is_name_start};
use super::value::{Val, parse_double};

/// A function of the language (operators are functions too, as in pgbench).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Is,
    Not,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Abs,
    Least,
    Greatest,
    Debug,
    Pi,
    Sqrt,
    Ln,
    Exp,
    Int,
    Double,
    Pow,
    Random,
    RandomExponential,
    RandomGaussian,
    RandomZipfian,
    HashMurmur2,
    HashFnv1a,
    Permute,
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A constant.
    Const(Val),
    /// A variable, by its slot in the client's variable table.
    Var(usize),
    /// A function or operator applied to evaluated arguments.
    Call(Func, Vec<Expr>),
    /// Lazy AND: the right side runs only when the left is true.
    And(Box<Expr>, Box<Expr>),
    /// Lazy OR.
    Or(Box<Expr>, Box<Expr>),
    /// CASE WHEN … THEN … [ELSE …] END (ELSE defaults to NULL).
    Case(Vec<(Expr, Expr)>, Box<Expr>),
}

/// At most this many arguments to one function, as pgbench.
pub const MAX_ARGS: usize = 16;

/// How many arguments a function takes; `None` for names that are not functions.
/// Returns (function, least, most, whether a missing last argument is `:default_seed`).
fn function(name: &str) -> Option<(Func, usize, usize, bool)> {
    use Func::*;
    let f = match name.to_ascii_lowercase().as_str() {
        "abs" => (Abs, 1, 1, false),
        "least" => (Least, 1, MAX_ARGS, false),
        "greatest" => (Greatest, 1, MAX_ARGS, false),
        "debug" => (Debug, 1, 1, false),
        "pi" => (Pi, 0, 0, false),
        "sqrt" => (Sqrt, 1, 1, false),
        "ln" => (Ln, 1, 1, false),
        "exp" => (Exp, 1, 1, false),
        "int" => (Int, 1, 1, false),
        "double" => (Double, 1, 1, false),
        "mod" => (Mod, 2, 2, false),
        "pow" | "power" => (Pow, 2, 2, false),
        "random" => (Random, 2, 2, false),
        "random_exponential" => (RandomExponential, 3, 3, false),
        "random_gaussian" => (RandomGaussian, 3, 3, false),
        "random_zipfian" => (RandomZipfian, 3, 3, false),
        "hash" | "hash_murmur2" => (HashMurmur2, 1, 2, true),
        "hash_fnv1a" => (HashFnv1a, 1, 2, true),
        "permute" => (Permute, 2, 3, true),
        _ => return None,
    };
    Some(f)
}

/// The names `function` knows, for messages.
const FUNCTIONS: &str = "abs, debug, double, exp, greatest, hash, hash_fnv1a, hash_murmur2, int, least, ln, mod, \
     permute, pi, pow, power, random, random_exponential, random_gaussian, random_zipfian, sqrt";

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    /// 9223372036854775808: only valid right after a unary minus.
    MaxPlusOne,
    Double(f64),
    Var(String),
    Name(String),
    Op(&'static str),
    End,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Int(i) => format!("'{i}'"),
            Tok::MaxPlusOne => "'9223372036854775808'".into(),
            Tok::Double(d) => format!("'{d}'"),
            Tok::Var(v) => format!("':{v}'"),
            Tok::Name(n) => format!("'{n}'"),
            Tok::Op(o) => format!("'{o}'"),
            Tok::End => "the end of the line".into(),
        }
    }

    fn keyword(&self, kw: &str) -> bool {
        matches!(self, Tok::Name(n) if n.eq_ignore_ascii_case(kw))
    }
}

const KEYWORDS: [&str; 14] =
    ["and", "or", "not", "is", "isnull", "notnull", "null", "true", "false", "case", "when", "then", "else", "end"];

/// Lex one line (with backslash-newline continuations) into tokens; stops before the
/// newline that ends it.
fn lex(c: &mut Cursor) -> Result<Vec<(Tok, Pos)>, ParseError> {
    let mut out = Vec::new();
    loop {
        while c.peek().is_some_and(is_blank) || c.eat_continuation() {
            if c.peek().is_some_and(is_blank) {
                c.bump();
            }
        }
        let at = c.pos();
        let Some(ch) = c.peek() else {
            out.push((Tok::End, at));
            return Ok(out);
        };
        let tok = match ch {
            '\n' => {
                out.push((Tok::End, at));
                return Ok(out);
            }
            '0'..='9' => number(c)?,
            '.' if c.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => number(c)?,
            ':' if c.peek_at(1).is_some_and(is_name_char) => {
                c.bump();
                let from = c.offset();
                while c.peek().is_some_and(is_name_char) {
                    c.bump();
                }
                Tok::Var(c.since(from).to_string())
            }
            ch if is_name_start(ch) => {
                let from = c.offset();
                while c.peek().is_some_and(is_name_char) {
                    c.bump();
                }
                Tok::Name(c.since(from).to_string())
            }
            _ => {
                let two = ["<>", "!=", "<=", ">=", "<<", ">>"].into_iter().find(|op| c.starts_with(op));
                let one = ["+", "-", "*", "/", "%", "<", ">", "=", "|", "#", "&", "~", "(", ")", ","]
                    .into_iter()
                    .find(|op| c.starts_with(op));
                match two.or(one) {
                    Some(op) => {
                        c.skip(op.len());
                        Tok::Op(if op == "!=" { "<>" } else { op })
                    }
                    None => return Err(ParseError::at(at, format!("unexpected character '{ch}' in the expression"))),
                }
            }
        };
        out.push((tok, at));
    }
}

/// An integer or double constant (flex's longest match: a point or an exponent makes a double).
fn number(c: &mut Cursor) -> Result<Tok, ParseError> {
    let at = c.pos();
    let from = c.offset();
    let digits = |c: &mut Cursor| {
        while c.peek().is_some_and(|d| d.is_ascii_digit()) {
            c.bump();
        }
    };
    digits(c);
    let mut double = false;
    if c.peek() == Some('.') {
        double = true;
        c.bump();
        digits(c);
    }
    let exp_digits = match (c.peek(), c.peek_at(1), c.peek_at(2)) {
        (Some('e' | 'E'), Some(d), _) if d.is_ascii_digit() => Some(1),
        (Some('e' | 'E'), Some('+' | '-'), Some(d)) if d.is_ascii_digit() => Some(2),
        _ => None,
    };
    if let Some(n) = exp_digits {
        double = true;
        c.skip(n);
        digits(c);
    }
    let text = c.since(from);
    if double {
        return parse_double(text)
            .map(Tok::Double)
            .ok_or_else(|| ParseError::at(at, format!("double constant overflow: {text}")));
    }
    if text == "9223372036854775808" {
        return Ok(Tok::MaxPlusOne);
    }
    text.parse().map(Tok::Int).map_err(|_| ParseError::at(at, format!("bigint constant overflow: {text}")))
}

/// Binding levels, lowest first.
const OR: u8 = 1;
const AND: u8 = 2;
const NOT: u8 = 3;
const IS: u8 = 4;
const CMP: u8 = 5;
const BIT: u8 = 6;
const ADD: u8 = 7;
const MUL: u8 = 8;
const UNARY: u8 = 9;

struct Parser<'r> {
    toks: Vec<(Tok, Pos)>,
    i: usize,
    var: &'r mut dyn FnMut(&str, Pos) -> usize,
}

/// Parse one expression that runs to the end of the line; `var` gives each variable
/// name its slot.
pub fn parse(c: &mut Cursor, var: &mut dyn FnMut(&str, Pos) -> usize) -> Result<Expr, ParseError> {
    let toks = lex(c)?;
    let mut p = Parser { toks, i: 0, var };
    let e = p.expr(OR)?;
    match p.peek() {
        Tok::End => Ok(e),
        t => Err(p.err(format!(
            "unexpected {} after the expression; expected an operator or the end of the line",
            t.describe()
        ))),
    }
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }

    fn at(&self) -> Pos {
        self.toks[self.i].1
    }

    fn next(&mut self) -> Tok {
        let t = self.toks[self.i].0.clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }

    fn err(&self, msg: String) -> ParseError {
        ParseError::at(self.at(), msg)
    }

    fn expect_op(&mut self, op: &str, what: &str) -> Result<(), ParseError> {
        if matches!(self.peek(), Tok::Op(o) if *o == op) {
            self.next();
            Ok(())
        } else {
            Err(self.err(format!("expected {what}, found {}", self.peek().describe())))
        }
    }

    fn expect_kw(&mut self, kw: &str, what: &str) -> Result<(), ParseError> {
        if self.peek().keyword(kw) {
            self.next();
            Ok(())
        } else {
            Err(self.err(format!("expected {what}, found {}", self.peek().describe())))
        }
    }

    /// An infix operator at the current token: its level and function.
    fn infix(&self) -> Option<(u8, Option<Func>)> {
        use Func::*;
        let t = self.peek();
        if t.keyword("or") {
            return Some((OR, None));
        }
        if t.keyword("and") {
            return Some((AND, None));
        }
        if t.keyword("is") || t.keyword("isnull") || t.keyword("notnull") {
            return Some((IS, None));
        }
        let Tok::Op(op) = t else { return None };
        Some(match *op {
            "=" => (CMP, Some(Eq)),
            "<>" => (CMP, Some(Ne)),
            "<" => (CMP, Some(Lt)),
            "<=" => (CMP, Some(Le)),
            ">" | ">=" => (CMP, None),
            "|" => (BIT, Some(BitOr)),
            "#" => (BIT, Some(BitXor)),
            "&" => (BIT, Some(BitAnd)),
            "<<" => (BIT, Some(Shl)),
            ">>" => (BIT, Some(Shr)),
            "+" => (ADD, Some(Add)),
            "-" => (ADD, Some(Sub)),
            "*" => (MUL, Some(Mul)),
            "/" => (MUL, Some(Div)),
            "%" => (MUL, Some(Mod)),
            _ => return None,
        })
    }

    fn expr(&mut self, min: u8) -> Result<Expr, ParseError> {
        let mut lhs = self.prefix()?;
        while let Some((level, func)) = self.infix() {
            if level < min {
                break;
            }
            let op_at = self.at();
            let tok = self.next();
            lhs = match level {
                OR => Expr::Or(Box::new(lhs), Box::new(self.expr(AND)?)),
                AND => Expr::And(Box::new(lhs), Box::new(self.expr(NOT)?)),
                IS => self.is_test(lhs, &tok)?,
                CMP => {
                    let rhs = self.expr(BIT)?;
                    match (func, &tok) {
                        (Some(f), _) => Expr::Call(f, vec![lhs, rhs]),
                        // a > b is b < a; a >= b is b <= a.
                        (None, Tok::Op(">")) => Expr::Call(Func::Lt, vec![rhs, lhs]),
                        _ => Expr::Call(Func::Le, vec![rhs, lhs]),
                    }
                }
                _ => Expr::Call(
                    func.expect("arithmetic and bitwise operators are functions"),
                    vec![lhs, self.expr(level + 1)?],
                ),
            };
            // Comparisons and IS tests do not chain (pgbench's grammar makes them non-associative).
            if (level == CMP || level == IS) && self.infix().is_some_and(|(l, _)| l == level) {
                let what = if level == CMP { "comparison" } else { "IS test" };
                return Err(ParseError::at(
                    self.at(),
                    format!("a {what} cannot follow another (from column {}) without parentheses", op_at.col),
                ));
            }
        }
        Ok(lhs)
    }

    /// After IS / ISNULL / NOTNULL.
    fn is_test(&mut self, lhs: Expr, tok: &Tok) -> Result<Expr, ParseError> {
        let is = |rhs: Val| Expr::Call(Func::Is, vec![lhs.clone(), Expr::Const(rhs)]);
        let not = |e: Expr| Expr::Call(Func::Not, vec![e]);
        if tok.keyword("isnull") {
            return Ok(is(Val::Null));
        }
        if tok.keyword("notnull") {
            return Ok(not(is(Val::Null)));
        }
        let negated = self.peek().keyword("not");
        if negated {
            self.next();
        }
        let rhs = match self.peek() {
            t if t.keyword("null") => Val::Null,
            t if t.keyword("true") => Val::Bool(true),
            t if t.keyword("false") => Val::Bool(false),
            t => return Err(self.err(format!("expected NULL, TRUE or FALSE after IS, found {}", t.describe()))),
        };
        self.next();
        Ok(if negated { not(is(rhs)) } else { is(rhs) })
    }

    fn prefix(&mut self) -> Result<Expr, ParseError> {
        let at = self.at();
        let tok = self.next();
        Ok(match tok {
            Tok::Int(i) => Expr::Const(Val::Int(i)),
            Tok::Double(d) => Expr::Const(Val::Double(d)),
            Tok::MaxPlusOne => {
                return Err(ParseError::at(
                    at,
                    "bigint constant overflow: 9223372036854775808 (only -9223372036854775808 fits)",
                ));
            }
            Tok::Var(name) => Expr::Var((self.var)(&name, at)),
            Tok::Op("(") => {
                let e = self.expr(OR)?;
                self.expect_op(")", &format!("')' to close the '(' at column {}", at.col))?;
                e
            }
            Tok::Op("+") => self.expr(UNARY)?,
            Tok::Op("-") => {
                if *self.peek() == Tok::MaxPlusOne {
                    self.next();
                    Expr::Const(Val::Int(i64::MIN))
                } else {
                    Expr::Call(Func::Sub, vec![Expr::Const(Val::Int(0)), self.expr(UNARY)?])
                }
            }
            Tok::Op("~") => Expr::Call(Func::BitXor, vec![Expr::Const(Val::Int(!0)), self.expr(ADD)?]),
            Tok::Name(n) => match n.to_ascii_lowercase().as_str() {
                "not" => Expr::Call(Func::Not, vec![self.expr(IS)?]),
                "null" => Expr::Const(Val::Null),
                "true" => Expr::Const(Val::Bool(true)),
                "false" => Expr::Const(Val::Bool(false)),
                "case" => self.case(at)?,
                kw if KEYWORDS.contains(&kw) => {
                    return Err(ParseError::at(
                        at,
                        format!("expected an expression, found the keyword {}", kw.to_uppercase()),
                    ));
                }
                _ => self.call(&n, at)?,
            },
            Tok::End => return Err(ParseError::at(at, "expected an expression, found the end of the line")),
            t => return Err(ParseError::at(at, format!("expected an expression, found {}", t.describe()))),
        })
    }

    fn case(&mut self, at: Pos) -> Result<Expr, ParseError> {
        let mut arms = Vec::new();
        if !self.peek().keyword("when") {
            return Err(self.err(format!("expected WHEN after CASE, found {}", self.peek().describe())));
        }
        while self.peek().keyword("when") {
            self.next();
            let cond = self.expr(OR)?;
            self.expect_kw("then", "THEN")?;
            arms.push((cond, self.expr(OR)?));
        }
        let otherwise = if self.peek().keyword("else") {
            self.next();
            self.expr(OR)?
        } else {
            Expr::Const(Val::Null)
        };
        self.expect_kw("end", &format!("WHEN, ELSE or END to close the CASE at column {}", at.col))?;
        Ok(Expr::Case(arms, Box::new(otherwise)))
    }

    fn call(&mut self, name: &str, at: Pos) -> Result<Expr, ParseError> {
        if *self.peek() != Tok::Op("(") {
            return Err(ParseError::at(
                at,
                format!("unexpected name '{name}'; expected an expression (a variable is written :{name})"),
            ));
        }
        let Some((func, least, most, seeded)) = function(name) else {
            return Err(ParseError::at(at, format!("unknown function '{name}'; pgbench's functions are {FUNCTIONS}")));
        };
        self.next();
        let mut args = Vec::new();
        if *self.peek() != Tok::Op(")") {
            loop {
                args.push(self.expr(OR)?);
                if *self.peek() == Tok::Op(",") {
                    self.next();
                    continue;
                }
                self.expect_op(")", &format!("',' or ')' in the arguments of {name}"))?;
                break;
            }
        } else {
            self.next();
        }
        if args.len() < least || args.len() > most {
            let want = match (least, most) {
                (l, m) if l == m => format!("{l}"),
                (l, MAX_ARGS) => format!("{l} to {MAX_ARGS}"),
                (l, m) => format!("{l} or {m}"),
            };
            return Err(ParseError::at(at, format!("{name} takes {want} argument(s), got {}", args.len())));
        }
        if seeded && args.len() < most {
            args.push(Expr::Var((self.var)("default_seed", at)));
        }
        Ok(Expr::Call(func, args))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(src: &str) -> Result<Expr, ParseError> {
        let mut names: Vec<String> = Vec::new();
        let mut var = |n: &str, _: Pos| match names.iter().position(|x| x == n) {
            Some(i) => i,
            None => {
                names.push(n.to_string());
                names.len() - 1
            }
        };
        parse(&mut Cursor::new(src), &mut var)
    }

    fn call(f: Func, args: Vec<Expr>) -> Expr {
        Expr::Call(f, args)
    }

    fn int(i: i64) -> Expr {
        Expr::Const(Val::Int(i))
    }

    #[test]
    fn precedence_and_associativity() {
        use Func::*;
        assert_eq!(p("1 + 2 * 3").unwrap(), call(Add, vec![int(1), call(Mul, vec![int(2), int(3)])]));
        assert_eq!(p("8 - 2 - 1").unwrap(), call(Sub, vec![call(Sub, vec![int(8), int(2)]), int(1)]));
        // unary minus binds tighter than *: (-2) * 3
        assert_eq!(p("-2 * 3").unwrap(), call(Mul, vec![call(Sub, vec![int(0), int(2)]), int(3)]));
        // ~ takes an additive operand: ~(1 + 2)
        assert_eq!(p("~1 + 2").unwrap(), call(BitXor, vec![int(-1), call(Add, vec![int(1), int(2)])]));
        // NOT binds looser than comparisons: NOT (1 = 2)
        assert_eq!(p("not 1 = 2").unwrap(), call(Not, vec![call(Eq, vec![int(1), int(2)])]));
        assert_eq!(p("3 > 2").unwrap(), call(Lt, vec![int(2), int(3)]));
        assert_eq!(p("-9223372036854775808").unwrap(), int(i64::MIN));
        assert_eq!(p("hash(1)").unwrap(), call(HashMurmur2, vec![int(1), Expr::Var(0)]));
        assert_eq!(p("1 is not null").unwrap(), call(Not, vec![call(Is, vec![int(1), Expr::Const(Val::Null)])]));
        assert!(matches!(p("CASE WHEN 1 THEN 2 END").unwrap(), Expr::Case(_, _)));
        assert_eq!(p("2 % \\\n 3").unwrap(), call(Mod, vec![int(2), int(3)]));
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = |s: &str| {
            let e = p(s).unwrap_err();
            (e.pos.col, e.msg)
        };
        assert_eq!(e("1 +").0, 4);
        assert!(e("1 +").1.contains("expected an expression"));
        let (col, msg) = e("random(1)");
        assert_eq!(col, 1);
        assert!(msg.contains("random takes 2 argument(s), got 1"), "{msg}");
        let (col, msg) = e("1 < 2 < 3");
        assert_eq!(col, 7);
        assert!(msg.contains("comparison cannot follow"), "{msg}");
        assert_eq!(e("(1 + 2").0, 7);
        assert!(e("frobnicate(1)").1.contains("unknown function 'frobnicate'"));
        assert_eq!(e("1 @ 2").0, 3);
        assert!(e("99999999999999999999").1.contains("bigint constant overflow"));
        assert!(e("9223372036854775808").1.contains("overflow"));
        assert!(e("1e999").1.contains("double constant overflow"));
        assert!(e("CASE 1 END").1.contains("expected WHEN"));
        assert!(e("x + 1").1.contains(":x"));
    }
}
