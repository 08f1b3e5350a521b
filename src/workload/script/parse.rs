//! A script's text → a `Script`: SQL commands and meta-commands in pgbench's syntax,
//! checked statically (conditional blocks, `\gset` placement, arguments), each error at
//! its line and column.

use super::cursor::{Cursor, ParseError, Pos, is_blank};
use super::expr::{self, Expr};
use super::program::{Action, Amount, Command, Keep, Names, Op, Query, Script, valid_name};
use super::sql::{self, End, SqlCommand};

/// Every use and definition of a variable, for the static check across a mix.
#[derive(Default)]
pub struct Uses {
    /// (slot, where) of each use.
    pub used: Vec<(usize, Pos)>,
    /// Slots a `\set` assigns.
    pub set: Vec<usize>,
    /// Prefixes of `\gset` / `\aset`: names they may define are only known when they run.
    pub kept_prefixes: Vec<String>,
}

/// A meta-command word and where it starts.
struct Word {
    text: String,
    pos: Pos,
}

/// One parsed command before `\if` blocks are turned into jumps.
enum Item {
    Sql(SqlCommand, Keep),
    Set { var: usize, expr: Expr },
    Sleep { amount: Amount, micros: i64 },
    If(Expr),
    Elif(Expr),
    Else,
    Endif,
}

/// Parse a script. Variable names go into `names` (shared by the scripts of a mix), their
/// uses into `uses`.
pub fn parse(file: &str, weight: u32, src: &str, names: &mut Names, uses: &mut Uses) -> Result<Script, ParseError> {
    let mut c = Cursor::new(src);
    let mut items: Vec<(Item, Command)> = Vec::new();
    loop {
        let (cmd, end) = sql::scan(&mut c)?;
        if let Some(cmd) = cmd {
            let command = Command { pos: cmd.pos, text: cmd.first_line.clone() };
            items.push((Item::Sql(cmd, Keep::Nothing), command));
        }
        match end {
            End::Semicolon => {}
            End::Eof => break,
            End::Backslash => meta(&mut c, &mut items, names, uses)?,
        }
    }
    if items.is_empty() {
        return Err(ParseError::at(
            c.pos(),
            "the script has no commands; expected SQL or a meta-command such as \\set",
        ));
    }
    compile(file, weight, items, names, uses)
}

/// Blanks and backslash-newlines inside a meta-command line.
fn skip_blanks(c: &mut Cursor) {
    loop {
        if c.peek().is_some_and(is_blank) {
            c.bump();
        } else if !c.eat_continuation() {
            return;
        }
    }
}

/// The next blank-separated word of a meta-command line, if any before its end.
fn word(c: &mut Cursor) -> Option<Word> {
    skip_blanks(c);
    let pos = c.pos();
    let from = c.offset();
    while let Some(ch) = c.peek() {
        if ch == '\n' || is_blank(ch) || c.starts_with("\\\n") || c.starts_with("\\\r\n") {
            break;
        }
        c.bump();
    }
    let text = c.since(from);
    (!text.is_empty()).then(|| Word { text: text.to_string(), pos })
}

/// Every remaining word of the line, then past its newline.
fn rest_words(c: &mut Cursor) -> Vec<Word> {
    let mut words = Vec::new();
    while let Some(w) = word(c) {
        words.push(w);
    }
    end_line(c);
    words
}

fn end_line(c: &mut Cursor) {
    if c.peek() == Some('\n') {
        c.bump();
    }
}

/// A meta-command; the cursor is on its backslash.
fn meta(
    c: &mut Cursor,
    items: &mut Vec<(Item, Command)>,
    names: &mut Names,
    uses: &mut Uses,
) -> Result<(), ParseError> {
    let at = c.pos();
    let line_start = c.offset();
    c.bump();
    let name = match word(c) {
        Some(w) => w.text,
        None => return Err(ParseError::at(at, "expected a meta-command name after the backslash, such as \\set")),
    };
    let lower = name.to_ascii_lowercase();
    let item = match lower.as_str() {
        "set" => set(c, names, uses)?,
        "if" => Item::If(expression_line(c, names, uses)?),
        "elif" => Item::Elif(expression_line(c, names, uses)?),
        "else" | "endif" => {
            no_arguments(c, &name)?;
            if lower == "else" { Item::Else } else { Item::Endif }
        }
        "sleep" => sleep(c, at, names, uses)?,
        "gset" | "aset" => return keep_results(c, at, &name, lower == "gset", items, uses),
        _ => return Err(unsupported(at, &name, &lower)),
    };
    let text = c.since(line_start).lines().next().unwrap_or("").trim_end().to_string();
    items.push((item, Command { pos: at, text }));
    Ok(())
}

/// The rest of the line as an expression, each variable it reads recorded as a use.
fn expression_line(c: &mut Cursor, names: &mut Names, uses: &mut Uses) -> Result<Expr, ParseError> {
    let mut var = |n: &str, p: Pos| {
        let slot = names.slot(n);
        uses.used.push((slot, p));
        slot
    };
    let expr = expr::parse(c, &mut var)?;
    end_line(c);
    Ok(expr)
}

/// `\set NAME EXPRESSION`.
fn set(c: &mut Cursor, names: &mut Names, uses: &mut Uses) -> Result<Item, ParseError> {
    let Some(v) = word(c) else {
        return Err(ParseError::at(c.pos(), "\\set needs a variable name and an expression: \\set NAME EXPRESSION"));
    };
    if !valid_name(&v.text) {
        return Err(ParseError::at(
            v.pos,
            format!("invalid variable name '{}'; expected letters, digits and _, not starting with a digit", v.text),
        ));
    }
    let expr = expression_line(c, names, uses)?;
    let slot = names.slot(&v.text);
    uses.set.push(slot);
    Ok(Item::Set { var: slot, expr })
}

/// `\gset [prefix]` or `\aset [prefix]` (`gset` tells which): mark the SQL command just
/// read to keep its results.
fn keep_results(
    c: &mut Cursor,
    at: Pos,
    name: &str,
    gset: bool,
    items: &mut [(Item, Command)],
    uses: &mut Uses,
) -> Result<(), ParseError> {
    let args = rest_words(c);
    if let Some(extra) = args.get(1) {
        return Err(ParseError::at(extra.pos, format!("too many arguments; \\{name} takes at most a prefix")));
    }
    let prefix = args.first().map_or(String::new(), |w| w.text.clone());
    let Some((Item::Sql(_, keep), _)) = items.last_mut() else {
        return Err(ParseError::at(at, format!("\\{name} must follow an SQL command (it takes the place of its ';')")));
    };
    if *keep != Keep::Nothing {
        return Err(ParseError::at(at, format!("\\{name} must follow an SQL command without \\gset or \\aset")));
    }
    *keep = if gset { Keep::Gset(prefix.clone()) } else { Keep::Aset(prefix.clone()) };
    uses.kept_prefixes.push(prefix);
    Ok(())
}

/// The error for a meta-command dbrace does not run, `lower` its name in lower case.
fn unsupported(at: Pos, name: &str, lower: &str) -> ParseError {
    let msg = match lower {
        "setshell" | "shell" => format!(
            "\\{name} is not supported by dbrace (a shell command inside the measured transaction); compute the value with \\set or pass it with --define NAME=VALUE"
        ),
        "startpipeline" | "endpipeline" | "syncpipeline" => format!(
            "\\{name} is not supported by dbrace yet; remove the pipeline meta-commands (each statement then waits for its result)"
        ),
        _ => format!(
            "invalid command \\{name}; expected \\set, \\sleep, \\if, \\elif, \\else, \\endif, \\gset or \\aset"
        ),
    };
    ParseError::at(at, msg)
}

fn no_arguments(c: &mut Cursor, name: &str) -> Result<(), ParseError> {
    match rest_words(c).first() {
        Some(w) => Err(ParseError::at(w.pos, format!("unexpected argument '{}'; \\{name} takes none", w.text))),
        None => Ok(()),
    }
}

/// `\sleep N [us|ms|s]` or `\sleep :var [unit]`; a unit may be attached (`10ms`).
fn sleep(c: &mut Cursor, at: Pos, names: &mut Names, uses: &mut Uses) -> Result<Item, ParseError> {
    let args = rest_words(c);
    let Some(first) = args.first() else {
        return Err(ParseError::at(
            at,
            "\\sleep needs a duration: \\sleep NUMBER [us|ms|s] or \\sleep :variable [us|ms|s]",
        ));
    };
    if let Some(extra) = args.get(2) {
        return Err(ParseError::at(extra.pos, "too many arguments; expected \\sleep NUMBER [us|ms|s]"));
    }
    let mut unit = args.get(1).map(|w| (w.text.as_str(), w.pos));
    let amount = if let Some(v) = first.text.strip_prefix(':') {
        if !valid_name(v) {
            return Err(ParseError::at(first.pos, format!("invalid variable name '{v}' in \\sleep")));
        }
        let slot = names.slot(v);
        uses.used.push((slot, first.pos));
        Amount::Var(slot)
    } else {
        let t = first.text.as_str();
        let digits_from = usize::from(t.starts_with(['+', '-']));
        let digits_to = t[digits_from..].find(|ch: char| !ch.is_ascii_digit()).map_or(t.len(), |i| i + digits_from);
        if digits_to == digits_from {
            return Err(ParseError::at(first.pos, format!("invalid sleep time '{t}'; expected an integer")));
        }
        if digits_to < t.len() {
            if unit.is_some() {
                return Err(ParseError::at(first.pos, format!("invalid sleep time '{t}'; expected an integer")));
            }
            let col = first.pos.col + t[..digits_to].chars().count() as u32;
            unit = Some((&t[digits_to..], Pos { line: first.pos.line, col }));
        }
        let n: i64 = t[..digits_to]
            .parse()
            .map_err(|_| ParseError::at(first.pos, format!("sleep time '{t}' is out of range")))?;
        Amount::Const(n)
    };
    let micros = match unit {
        None => 1_000_000,
        Some((u, p)) => match u.to_ascii_lowercase().as_str() {
            "us" => 1,
            "ms" => 1000,
            "s" => 1_000_000,
            _ => return Err(ParseError::at(p, format!("unrecognized time unit '{u}'; expected us, ms or s"))),
        },
    };
    Ok(Item::Sleep { amount, micros })
}

/// Flatten items into operations, `\if` blocks into conditions and jumps.
fn compile(
    file: &str,
    weight: u32,
    items: Vec<(Item, Command)>,
    names: &mut Names,
    uses: &mut Uses,
) -> Result<Script, ParseError> {
    let mut b = OpsBuilder::default();
    for (item, command) in items {
        let pos = command.pos;
        match item {
            Item::Sql(cmd, keep) => b.emit(sql_action(cmd, keep, names, uses), command),
            Item::Set { var, expr } => b.emit(Action::Set { var, expr }, command),
            Item::Sleep { amount, micros } => b.emit(Action::Sleep { amount, micros }, command),
            Item::If(expr) => b.begin_if(expr, command),
            Item::Elif(expr) => b.begin_elif(expr, command)?,
            Item::Else => b.begin_else(pos)?,
            Item::Endif => b.end_if(pos)?,
        }
    }
    if let Some(block) = b.blocks.last() {
        return Err(ParseError::at(block.pos, "\\if without a matching \\endif"));
    }
    Ok(Script { file: file.to_string(), weight, commands: b.commands, ops: b.ops })
}

/// A SQL command's action, its variables turned into parameter slots.
fn sql_action(cmd: SqlCommand, keep: Keep, names: &mut Names, uses: &mut Uses) -> Action {
    let n = cmd.queries.len();
    let queries = cmd
        .queries
        .into_iter()
        .enumerate()
        .map(|(i, q)| {
            let params = q
                .vars
                .iter()
                .map(|(name, p)| {
                    let slot = names.slot(name);
                    uses.used.push((slot, *p));
                    slot
                })
                .collect();
            Query { sql: q.sql, params, keep: keeps_rows(&keep, i, n) }
        })
        .collect();
    Action::Sql { queries, keep }
}

/// Whether query `i` of `n` keeps its row: `\gset` keeps only the last one's.
fn keeps_rows(keep: &Keep, i: usize, n: usize) -> bool {
    match keep {
        Keep::Nothing => false,
        Keep::Gset(_) => i + 1 == n,
        Keep::Aset(_) => true,
    }
}

/// An `\if` block still open while compiling.
struct Block {
    /// Where its `\if` is.
    pos: Pos,
    /// The condition whose false branch still needs a target.
    cond: Option<usize>,
    /// Jumps to patch with the `\endif`.
    jumps: Vec<usize>,
    /// Whether its `\else` has been read.
    seen_else: bool,
}

/// Operations and the commands they report as, built item by item, with the `\if`
/// blocks still open.
#[derive(Default)]
struct OpsBuilder {
    /// The operations so far.
    ops: Vec<Op>,
    /// The commands so far, one per emitted operation.
    commands: Vec<Command>,
    /// The open blocks, innermost last.
    blocks: Vec<Block>,
}

impl OpsBuilder {
    /// Append an operation reported as `command`.
    fn emit(&mut self, action: Action, command: Command) {
        self.ops.push(Op { action, command: self.commands.len() });
        self.commands.push(command);
    }

    /// `\if`: open a block with a condition whose target is patched later.
    fn begin_if(&mut self, expr: Expr, command: Command) {
        self.blocks.push(Block { pos: command.pos, cond: Some(self.ops.len()), jumps: Vec::new(), seen_else: false });
        self.emit(Action::Cond { expr, to: usize::MAX }, command);
    }

    /// `\elif`: end the previous branch with a jump to the `\endif`, send the previous
    /// condition's false branch here, and test this one.
    fn begin_elif(&mut self, expr: Expr, command: Command) -> Result<(), ParseError> {
        let Some(b) = self.blocks.last_mut() else {
            return Err(ParseError::at(command.pos, "\\elif without a matching \\if"));
        };
        if b.seen_else {
            return Err(ParseError::at(command.pos, "\\elif after \\else; expected \\endif"));
        }
        b.jumps.push(self.ops.len());
        // The jump reports as this \elif, whose command comes next.
        self.ops.push(Op { action: Action::Jump { to: usize::MAX }, command: self.commands.len() });
        let here = self.ops.len();
        if let Some(cond) = b.cond.replace(here) {
            patch(&mut self.ops, cond, here);
        }
        self.emit(Action::Cond { expr, to: usize::MAX }, command);
        Ok(())
    }

    /// `\else`: end the previous branch with a jump to the `\endif` and send the last
    /// condition's false branch here.
    fn begin_else(&mut self, pos: Pos) -> Result<(), ParseError> {
        let Some(b) = self.blocks.last_mut() else {
            return Err(ParseError::at(pos, "\\else without a matching \\if"));
        };
        if b.seen_else {
            return Err(ParseError::at(pos, "\\else after \\else; expected \\endif"));
        }
        b.seen_else = true;
        b.jumps.push(self.ops.len());
        // \else has no command of its own: the jump reports as the last one.
        self.ops.push(Op { action: Action::Jump { to: usize::MAX }, command: self.commands.len().saturating_sub(1) });
        let here = self.ops.len();
        if let Some(cond) = b.cond.take() {
            patch(&mut self.ops, cond, here);
        }
        Ok(())
    }

    /// `\endif`: close the block, its jumps and any pending false branch landing here.
    fn end_if(&mut self, pos: Pos) -> Result<(), ParseError> {
        let Some(b) = self.blocks.pop() else {
            return Err(ParseError::at(pos, "\\endif without a matching \\if"));
        };
        let end = self.ops.len();
        for j in b.jumps.into_iter().chain(b.cond) {
            patch(&mut self.ops, j, end);
        }
        Ok(())
    }
}

/// Point the condition or jump at `at` to `target`.
fn patch(ops: &mut [Op], at: usize, target: usize) {
    if let Action::Cond { to, .. } | Action::Jump { to } = &mut ops[at].action {
        *to = target;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(src: &str) -> Result<Script, ParseError> {
        parse("t.sql", 1, src, &mut Names::new(), &mut Uses::default())
    }

    fn err(src: &str) -> (u32, u32, String) {
        let e = p(src).unwrap_err();
        (e.pos.line, e.pos.col, e.msg)
    }

    #[test]
    fn the_tpcb_script_parses_into_eleven_operations() {
        let s = p(include_str!("../../../tests/scripts/tpcb-like.sql")).unwrap();
        assert_eq!(s.ops.len(), 11);
        assert_eq!(s.commands[4].text, "BEGIN;");
        assert_eq!(s.commands[0].text, "\\set aid random(1, 100000 * :scale)");
        let Action::Sql { queries, .. } = &s.ops[5].action else { panic!() };
        assert_eq!(queries[0].sql, "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?");
        assert_eq!(queries[0].params.len(), 2);
    }

    #[test]
    fn sql_may_end_at_a_meta_command_and_gset_attaches_to_it() {
        let s = p("UPDATE t SET a = 1\n  RETURNING a \\gset\nSELECT 1 \\;\nSELECT 2 AS two \\gset p_\nSELECT 4 AS four \\; SELECT 5 AS five \\aset\n").unwrap();
        assert_eq!(s.ops.len(), 3);
        let Action::Sql { queries, keep } = &s.ops[1].action else { panic!() };
        assert_eq!(*keep, Keep::Gset("p_".into()));
        assert_eq!(queries.iter().map(|q| q.keep).collect::<Vec<_>>(), [false, true]);
        let Action::Sql { queries, .. } = &s.ops[2].action else { panic!() };
        assert!(queries.iter().all(|q| q.keep));
    }

    #[test]
    fn if_blocks_become_conditions_and_jumps() {
        let s = p("\\if :a\nSELECT 1;\n\\elif :b\nSELECT 2;\n\\else\nSELECT 3;\n\\endif\nSELECT 4;").unwrap();
        let shape: Vec<String> = s
            .ops
            .iter()
            .map(|o| match &o.action {
                Action::Cond { to, .. } => format!("cond->{to}"),
                Action::Jump { to } => format!("jump->{to}"),
                Action::Sql { queries, .. } => queries[0].sql.clone(),
                _ => "?".into(),
            })
            .collect();
        assert_eq!(shape, ["cond->3", "SELECT 1", "jump->7", "cond->6", "SELECT 2", "jump->7", "SELECT 3", "SELECT 4"]);
    }

    #[test]
    fn sleep_forms() {
        for (src, amount, micros) in [
            ("\\sleep 10 ms", Amount::Const(10), 1000),
            ("\\sleep 10ms", Amount::Const(10), 1000),
            ("\\sleep 2", Amount::Const(2), 1_000_000),
            ("\\sleep 5 US", Amount::Const(5), 1),
        ] {
            let s = p(src).unwrap();
            assert!(
                matches!(s.ops[0].action, Action::Sleep { amount: a, micros: m } if a == amount && m == micros),
                "{src}"
            );
        }
    }

    #[test]
    fn errors_at_line_and_column() {
        assert_eq!(
            err("SELECT 1;\n\\set x 1 +\n"),
            (2, 11, "expected an expression, found the end of the line".into())
        );
        let (l, c, m) = err("\\set 1x 2");
        assert_eq!((l, c), (1, 6));
        assert!(m.contains("invalid variable name '1x'"));
        let (l, c, m) = err("SELECT 1;\n  \\frob");
        assert_eq!((l, c), (2, 3));
        assert!(m.contains("invalid command \\frob"));
        let (l, c, m) = err("\\sleep 10 hours");
        assert_eq!((l, c), (1, 11));
        assert!(m.contains("unrecognized time unit 'hours'"));
        assert!(err("\\sleep").2.contains("needs a duration"));
        assert!(err("\\sleep ten").2.contains("invalid sleep time"));
        let (l, c, m) = err("\\if 1\nSELECT 1;\n");
        assert_eq!((l, c), (1, 1));
        assert!(m.contains("\\if without a matching \\endif"));
        assert_eq!(err("\\else").2, "\\else without a matching \\if");
        assert!(err("\\if 1\n\\else\n\\elif 2\n\\endif").2.contains("\\elif after \\else"));
        assert!(err("\\gset").2.contains("must follow an SQL command"));
        assert!(err("\\setshell x echo 1").2.contains("not supported by dbrace"));
        assert!(err("\\startpipeline").2.contains("not supported by dbrace yet"));
        assert!(err("").2.contains("no commands"));
        assert!(err("-- only a comment\n").2.contains("no commands"));
        let (l, c, _) = err("\\set x 1\n\\set y (1 + \\\n  2");
        assert_eq!((l, c), (3, 4));
    }
}
