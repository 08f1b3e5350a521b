//! Property tests: random expressions, printed with the fewest parentheses pgbench's
//! documented precedence allows, parse and evaluate as a small reference evaluator (its
//! own types, i128 arithmetic) does; random text never makes the parser panic.

use super::cursor::{Cursor, Pos};
use super::eval::{Env, eval};
use super::expr::parse;
use super::parse::{Uses, parse as parse_script};
use super::program::Names;
use super::random::Prng;
use super::value::Val;
use super::vars::Vars;
use proptest::prelude::*;

/// The reference's expression tree.
#[derive(Clone, Debug)]
enum R {
    Int(i64),
    Double(f64),
    Bool(bool),
    Null,
    Neg(Box<R>),
    BitNot(Box<R>),
    Not(Box<R>),
    IsNull(Box<R>),
    Bin(&'static str, Box<R>, Box<R>),
    Call(&'static str, Vec<R>),
    Case(Vec<(R, R)>, Option<Box<R>>),
}

const ARITH: [&str; 5] = ["+", "-", "*", "/", "%"];
const CMP: [&str; 6] = ["=", "<>", "<", "<=", ">", ">="];
const BIT: [&str; 5] = ["|", "&", "#", "<<", ">>"];

fn leaf() -> impl Strategy<Value = R> {
    prop_oneof![
        4 => (-20i64..20).prop_map(R::Int),
        1 => prop::sample::select(vec![i64::MIN, i64::MAX, i64::MIN + 1, 1 << 40, -(1 << 40), 3037000500]).prop_map(R::Int),
        2 => (-1000i32..1000, 1u8..4).prop_map(|(m, d)| R::Double(f64::from(m) / 10f64.powi(i32::from(d)))),
        1 => any::<bool>().prop_map(R::Bool),
        1 => Just(R::Null),
    ]
}

fn tree() -> impl Strategy<Value = R> {
    leaf().prop_recursive(5, 40, 4, |inner| {
        let b = |e: R| Box::new(e);
        prop_oneof![
            3 => (prop::sample::select(ARITH.to_vec()), inner.clone(), inner.clone()).prop_map(move |(o, l, r)| R::Bin(o, b(l), b(r))),
            2 => (prop::sample::select(CMP.to_vec()), inner.clone(), inner.clone()).prop_map(move |(o, l, r)| R::Bin(o, b(l), b(r))),
            1 => (prop::sample::select(BIT.to_vec()), inner.clone(), 0i64..64).prop_map(move |(o, l, r)| R::Bin(o, b(l), b(R::Int(r)))),
            1 => (prop::sample::select(vec!["and", "or"]), inner.clone(), inner.clone()).prop_map(move |(o, l, r)| R::Bin(o, b(l), b(r))),
            1 => inner.clone().prop_map(move |e| R::Neg(b(e))),
            1 => inner.clone().prop_map(move |e| R::BitNot(b(e))),
            1 => inner.clone().prop_map(move |e| R::Not(b(e))),
            1 => inner.clone().prop_map(move |e| R::IsNull(b(e))),
            1 => (prop::sample::select(vec!["abs", "int", "double"]), inner.clone()).prop_map(|(f, e)| R::Call(f, vec![e])),
            1 => (prop::sample::select(vec!["least", "greatest"]), prop::collection::vec(inner.clone(), 1..4)).prop_map(|(f, a)| R::Call(f, a)),
            1 => (prop::collection::vec((inner.clone(), inner.clone()), 1..3), prop::option::of(inner.clone()))
                .prop_map(move |(arms, e)| R::Case(arms, e.map(b))),
        ]
    })
}

/// Binding level of an expression as printed (pgbench's precedence, lowest first).
fn level(e: &R) -> u8 {
    match e {
        R::Bin("or", ..) => 1,
        R::Bin("and", ..) => 2,
        R::Not(_) => 3,
        R::IsNull(_) => 4,
        R::Bin(o, ..) if CMP.contains(o) => 5,
        R::Bin(o, ..) if BIT.contains(o) => 6,
        R::BitNot(_) => 6,
        R::Bin("+" | "-", ..) => 7,
        R::Bin(..) => 8,
        R::Neg(_) => 9,
        R::Int(_) | R::Double(_) if is_negative(e) => 9,
        _ => 10,
    }
}

fn is_negative(e: &R) -> bool {
    match e {
        R::Int(i) => *i < 0,
        R::Double(d) => d.is_sign_negative(),
        _ => false,
    }
}

/// Print `e`, in parentheses when its level is below `min`.
fn print(e: &R, min: u8) -> String {
    let s = match e {
        R::Int(i) => format!("{i}"),
        R::Double(d) => format!("{d:?}"),
        R::Bool(b) => if *b { "TRUE" } else { "false" }.to_string(),
        R::Null => "NULL".into(),
        R::Neg(x) => format!("-{}", print(x, 10)),
        R::BitNot(x) => format!("~{}", print(x, 7)),
        R::Not(x) => format!("NOT {}", print(x, 4)),
        R::IsNull(x) => format!("{} IS NULL", print(x, 5)),
        R::Bin(o, l, r) => {
            let lv = level(e);
            // Left-associative, except comparisons, which do not chain.
            let (lm, rm) = if lv == 5 { (6, 6) } else { (lv, lv + 1) };
            format!("{} {o} {}", print(l, lm), print(r, rm))
        }
        R::Call(f, args) => format!("{f}({})", args.iter().map(|a| print(a, 1)).collect::<Vec<_>>().join(", ")),
        R::Case(arms, otherwise) => {
            let mut s = "CASE".to_string();
            for (c, t) in arms {
                s.push_str(&format!(" WHEN {} THEN {}", print(c, 1), print(t, 1)));
            }
            if let Some(o) = otherwise {
                s.push_str(&format!(" ELSE {}", print(o, 1)));
            }
            s + " END"
        }
    };
    if level(e) < min { format!("({s})") } else { s }
}

/// The reference's values.
#[derive(Clone, Copy, Debug, PartialEq)]
enum V {
    I(i64),
    D(f64),
    B(bool),
    N,
}

type Res = Result<V, ()>;

fn int_of(v: V) -> Result<i64, ()> {
    match v {
        V::I(i) => Ok(i),
        V::D(d) => {
            let r = d.round_ties_even();
            if r >= -(2f64.powi(63)) && r < 2f64.powi(63) { Ok(r as i64) } else { Err(()) }
        }
        _ => Err(()),
    }
}

fn dbl_of(v: V) -> Result<f64, ()> {
    match v {
        V::I(i) => Ok(i as f64),
        V::D(d) => Ok(d),
        _ => Err(()),
    }
}

fn fits(x: i128) -> Result<V, ()> {
    i64::try_from(x).map(V::I).map_err(drop)
}

fn reference(e: &R) -> Res {
    Ok(match e {
        R::Int(i) => V::I(*i),
        R::Double(d) => V::D(*d),
        R::Bool(b) => V::B(*b),
        R::Null => V::N,
        R::Neg(x) => return binary("-", V::I(0), reference(x)?),
        R::BitNot(x) => return binary("#", V::I(-1), reference(x)?),
        R::Not(x) => match reference(x)? {
            V::N => V::N,
            V::B(b) => V::B(!b),
            _ => return Err(()),
        },
        R::IsNull(x) => V::B(reference(x)? == V::N),
        R::Bin(o @ ("and" | "or"), l, r) => {
            let l = reference(l)?;
            let stop = *o == "or";
            match l {
                V::N => V::N,
                V::B(b) if b == stop => V::B(stop),
                V::B(_) => match reference(r)? {
                    V::N => V::N,
                    V::B(b) => V::B(b),
                    _ => return Err(()),
                },
                _ => return Err(()),
            }
        }
        R::Bin(o, l, r) => {
            let (l, r) = (reference(l)?, reference(r)?);
            return binary(o, l, r);
        }
        R::Call(f, args) => {
            let vals = args.iter().map(reference).collect::<Result<Vec<_>, _>>()?;
            if vals.contains(&V::N) {
                return Ok(V::N);
            }
            match *f {
                "abs" => match vals[0] {
                    V::I(i) => V::I(i.wrapping_abs()),
                    V::D(d) => V::D(d.abs()),
                    _ => return Err(()),
                },
                "int" => V::I(int_of(vals[0])?),
                "double" => V::D(dbl_of(vals[0])?),
                _ => {
                    let least = *f == "least";
                    if vals.iter().any(|v| matches!(v, V::D(_))) {
                        let ds = vals.iter().map(|v| dbl_of(*v)).collect::<Result<Vec<_>, _>>()?;
                        V::D(ds.into_iter().reduce(|a, b| if least { a.min(b) } else { a.max(b) }).unwrap_or(0.0))
                    } else {
                        let is = vals.iter().map(|v| int_of(*v)).collect::<Result<Vec<_>, _>>()?;
                        V::I(if least { *is.iter().min().unwrap_or(&0) } else { *is.iter().max().unwrap_or(&0) })
                    }
                }
            }
        }
        R::Case(arms, otherwise) => {
            for (c, t) in arms {
                let truth = match reference(c)? {
                    V::N => false,
                    V::B(b) => b,
                    V::I(i) => i != 0,
                    V::D(d) => d != 0.0,
                };
                if truth {
                    return reference(t);
                }
            }
            match otherwise {
                Some(o) => return reference(o),
                None => V::N,
            }
        }
    })
}

fn binary(o: &str, l: V, r: V) -> Res {
    if l == V::N || r == V::N {
        return Ok(V::N);
    }
    if BIT.contains(&o) {
        let (a, b) = (int_of(l)?, int_of(r)?);
        return Ok(V::I(match o {
            "|" => a | b,
            "&" => a & b,
            "#" => a ^ b,
            "<<" => a.wrapping_shl((b & 63) as u32),
            _ => a.wrapping_shr((b & 63) as u32),
        }));
    }
    let double = o != "%" && (matches!(l, V::D(_)) || matches!(r, V::D(_)));
    if double {
        let (a, b) = (dbl_of(l)?, dbl_of(r)?);
        return Ok(match o {
            "+" => V::D(a + b),
            "-" => V::D(a - b),
            "*" => V::D(a * b),
            "/" => V::D(a / b),
            "=" => V::B(a == b),
            "<>" => V::B(a != b),
            "<" => V::B(a < b),
            "<=" => V::B(a <= b),
            ">" => V::B(a > b),
            _ => V::B(a >= b),
        });
    }
    let (a, b) = (i128::from(int_of(l)?), i128::from(int_of(r)?));
    match o {
        "+" => fits(a + b),
        "-" => fits(a - b),
        "*" => fits(a * b),
        "/" if b == 0 => Err(()),
        "/" => fits(a / b),
        "%" if b == 0 => Err(()),
        "%" => fits(a % b),
        "=" => Ok(V::B(a == b)),
        "<>" => Ok(V::B(a != b)),
        "<" => Ok(V::B(a < b)),
        "<=" => Ok(V::B(a <= b)),
        ">" => Ok(V::B(a > b)),
        _ => Ok(V::B(a >= b)),
    }
}

fn ours(text: &str) -> Res {
    let mut names = Names::new();
    let mut var = |n: &str, _: Pos| names.slot(n);
    let e = parse(&mut Cursor::new(text), &mut var).unwrap_or_else(|err| panic!("{text}: {err:?}"));
    let mut vars = Vars::new(8);
    let mut rng = Prng::new(1);
    match eval(&e, &mut Env { vars: &mut vars, rng: &mut rng, at: (0, 1) }) {
        Ok(Val::Int(i)) => Ok(V::I(i)),
        Ok(Val::Double(d)) => Ok(V::D(d)),
        Ok(Val::Bool(b)) => Ok(V::B(b)),
        Ok(Val::Null) => Ok(V::N),
        Err(_) => Err(()),
    }
}

fn same(a: Res, b: Res) -> bool {
    match (a, b) {
        (Ok(V::D(x)), Ok(V::D(y))) => x == y || (x.is_nan() && y.is_nan()),
        (a, b) => a == b,
    }
}

/// Text mostly made of the characters scripts are made of.
fn scriptish() -> impl Strategy<Value = String> {
    let alphabet: Vec<char> = "\\\\\\:::;;''\"$$()\n\n\n\t  */+-=<>!%&|~,.?@#_aeisxz019EG[]{}é".chars().collect();
    let words = prop::sample::select(vec![
        "\\set ",
        "\\if ",
        "\\elif ",
        "\\else",
        "\\endif",
        "\\sleep ",
        "\\gset",
        "\\aset",
        "SELECT ",
        "CASE ",
        "WHEN ",
        "THEN ",
        "END",
        ":x",
        "random(",
        "hash(",
        "1e9",
        "9223372036854775808",
        "--",
        "/*",
        "*/",
        "$q$",
        "\\;",
        "\\\n",
    ]);
    prop::collection::vec(
        prop_oneof![3 => prop::sample::select(alphabet).prop_map(String::from), 1 => words.prop_map(String::from)],
        0..80,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_expressions_evaluate_as_the_reference(e in tree()) {
        let text = print(&e, 1);
        let (want, got) = (reference(&e), ours(&text));
        prop_assert!(same(want, got), "{text}: reference {want:?}, dbrace {got:?}");
    }

    #[test]
    fn random_bytes_never_panic_the_parser(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_script("f.sql", 1, &text, &mut Names::new(), &mut Uses::default());
    }

    #[test]
    fn script_like_text_never_panics_the_parser_or_the_evaluator(text in scriptish()) {
        let mut names = Names::new();
        if let Ok(s) = parse_script("f.sql", 1, &text, &mut names, &mut Uses::default()) {
            let mut vars = Vars::new(names.len());
            let mut rng = Prng::new(7);
            for op in &s.ops {
                if let super::program::Action::Set { expr, .. } | super::program::Action::Cond { expr, .. } = &op.action {
                    let _ = eval(expr, &mut Env { vars: &mut vars, rng: &mut rng, at: (0, 1) });
                }
            }
        }
    }
}
