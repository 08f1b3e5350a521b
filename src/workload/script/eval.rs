//! Evaluating expressions with pgbench's semantics: integer arithmetic that fails on
//! overflow and on division by zero, doubles as soon as one operand is a double (but `%`
//! is integer-only), NULL in gives NULL out (except IS and debug), AND / OR / CASE lazy,
//! booleans only where a boolean is asked for. Nothing here allocates unless it fails.

use super::expr::{Expr, Func, MAX_ARGS};
use super::random::{self, Prng};
use super::value::{Val, write_double};
use super::vars::{VarError, Vars};

/// Why an expression could not be evaluated (turned into a message on the failure path).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EvalError {
    /// A variable that could not be read.
    Var(VarError),
    /// A fixed message, such as "division by zero".
    Msg(&'static str),
    /// A value of the wrong type: (from, to).
    Coerce(&'static str, &'static str),
    /// A double that does not fit an integer.
    DoubleToInt(f64),
    /// A random function's parameter out of its range.
    Parameter(Func, f64),
}

impl EvalError {
    /// The message, with variable slots named by `name`.
    pub fn message(&self, name: &dyn Fn(usize) -> String) -> String {
        match *self {
            EvalError::Var(VarError::Undefined(i)) => format!("undefined variable \"{}\"", name(i)),
            EvalError::Var(VarError::Malformed(i)) => format!("malformed variable \"{}\" value", name(i)),
            EvalError::Msg(m) => m.to_string(),
            EvalError::Coerce(from, to) => format!("cannot coerce {from} to {to}"),
            EvalError::DoubleToInt(d) => format!("double to int overflow for {d:.6}"),
            EvalError::Parameter(Func::RandomGaussian, p) => {
                format!("gaussian parameter must be at least {:.6} (not {p:.6})", random::MIN_GAUSSIAN)
            }
            EvalError::Parameter(Func::RandomZipfian, p) => format!(
                "zipfian parameter must be in range [{:.3}, {:.0}] (not {p:.6})",
                random::MIN_ZIPFIAN,
                random::MAX_ZIPFIAN
            ),
            EvalError::Parameter(_, p) => format!("exponential parameter must be greater than zero (not {p:.6})"),
        }
    }
}

impl From<VarError> for EvalError {
    fn from(e: VarError) -> Self {
        EvalError::Var(e)
    }
}

/// What an expression reads: the client's variables and generator, and where it is
/// (for `debug()`'s output).
pub struct Env<'a> {
    /// The client's variables.
    pub vars: &'a mut Vars,
    /// The client's generator for random functions.
    pub rng: &'a mut Prng,
    /// Script and command numbers for `debug()`.
    pub at: (usize, usize),
}

fn as_int(v: Val) -> Result<i64, EvalError> {
    match v {
        Val::Int(i) => Ok(i),
        Val::Double(d) => {
            let r = d.round_ties_even();
            // The range of i64 as doubles: [-2^63, 2^63) (NaN is in no range).
            const LIMIT: f64 = (1u64 << 63) as f64;
            if !(-LIMIT..LIMIT).contains(&r) { Err(EvalError::DoubleToInt(r)) } else { Ok(r as i64) }
        }
        other => Err(EvalError::Coerce(other.type_name(), "int")),
    }
}

fn as_double(v: Val) -> Result<f64, EvalError> {
    match v {
        Val::Double(d) => Ok(d),
        Val::Int(i) => Ok(i as f64),
        other => Err(EvalError::Coerce(other.type_name(), "double")),
    }
}

fn as_bool(v: Val) -> Result<bool, EvalError> {
    match v {
        Val::Bool(b) => Ok(b),
        other => Err(EvalError::Coerce(other.type_name(), "boolean")),
    }
}

/// Evaluate `e`.
pub fn eval(e: &Expr, env: &mut Env) -> Result<Val, EvalError> {
    match e {
        Expr::Const(v) => Ok(*v),
        Expr::Var(i) => Ok(env.vars.get(*i)?),
        Expr::And(a, b) => match eval(a, env)? {
            Val::Null => Ok(Val::Null),
            a => {
                if !as_bool(a)? {
                    return Ok(Val::Bool(false));
                }
                match eval(b, env)? {
                    Val::Null => Ok(Val::Null),
                    b => Ok(Val::Bool(as_bool(b)?)),
                }
            }
        },
        Expr::Or(a, b) => match eval(a, env)? {
            Val::Null => Ok(Val::Null),
            a => {
                if as_bool(a)? {
                    return Ok(Val::Bool(true));
                }
                match eval(b, env)? {
                    Val::Null => Ok(Val::Null),
                    b => Ok(Val::Bool(as_bool(b)?)),
                }
            }
        },
        Expr::Case(arms, otherwise) => {
            for (cond, then) in arms {
                if eval(cond, env)?.truth() {
                    return eval(then, env);
                }
            }
            eval(otherwise, env)
        }
        Expr::Call(f, args) => {
            let mut vals = [Val::Null; MAX_ARGS];
            let mut has_null = false;
            for (slot, a) in vals.iter_mut().zip(args) {
                *slot = eval(a, env)?;
                has_null |= *slot == Val::Null;
            }
            if has_null && !matches!(f, Func::Is | Func::Debug) {
                return Ok(Val::Null);
            }
            call(*f, &vals[..args.len()], env)
        }
    }
}

/// Apply `f` to its evaluated, non-NULL (except for IS and debug) arguments.
fn call(f: Func, a: &[Val], env: &mut Env) -> Result<Val, EvalError> {
    use Func::*;
    Ok(match f {
        Add | Sub | Mul | Div | Mod | Eq | Ne | Lt | Le => arithmetic(f, a[0], a[1])?,
        BitAnd | BitOr | BitXor | Shl | Shr => Val::Int(bitwise(f, as_int(a[0])?, as_int(a[1])?)),
        Not => Val::Bool(!as_bool(a[0])?),
        Is => Val::Bool(match (a[0], a[1]) {
            (Val::Null, Val::Null) => true,
            (Val::Bool(x), Val::Bool(y)) => x == y,
            _ => false,
        }),
        Pi => Val::Double(std::f64::consts::PI),
        Abs => match a[0] {
            Val::Int(i) => Val::Int(i.wrapping_abs()),
            v => Val::Double(as_double(v)?.abs()),
        },
        Debug => debug(a[0], env.at),
        Double => Val::Double(as_double(a[0])?),
        Sqrt => Val::Double(as_double(a[0])?.sqrt()),
        Ln => Val::Double(as_double(a[0])?.ln()),
        Exp => Val::Double(as_double(a[0])?.exp()),
        Int => Val::Int(as_int(a[0])?),
        Pow => Val::Double(as_double(a[0])?.powf(as_double(a[1])?)),
        Least | Greatest => extreme(f == Least, a)?,
        Random | RandomExponential | RandomGaussian | RandomZipfian => random_in_range(f, a, env.rng)?,
        HashMurmur2 => Val::Int(random::hash_murmur2(as_int(a[0])?, as_int(a[1])?)),
        HashFnv1a => Val::Int(random::hash_fnv1a(as_int(a[0])?, as_int(a[1])?)),
        Permute => {
            let (v, size, seed) = (as_int(a[0])?, as_int(a[1])?, as_int(a[2])?);
            if size <= 0 {
                return Err(EvalError::Msg("permute size parameter must be greater than zero"));
            }
            Val::Int(random::permute(v, size, seed))
        }
    })
}

/// An arithmetic operator or comparison: in doubles if either side is one, except `%`.
#[inline]
fn arithmetic(f: Func, l: Val, r: Val) -> Result<Val, EvalError> {
    if f != Func::Mod && (matches!(l, Val::Double(_)) || matches!(r, Val::Double(_))) {
        Ok(double_arithmetic(f, as_double(l)?, as_double(r)?))
    } else {
        int_arithmetic(f, as_int(l)?, as_int(r)?)
    }
}

/// An arithmetic operator or comparison on doubles (IEEE: no errors).
#[inline]
fn double_arithmetic(f: Func, l: f64, r: f64) -> Val {
    use Func::*;
    match f {
        Add => Val::Double(l + r),
        Sub => Val::Double(l - r),
        Mul => Val::Double(l * r),
        Div => Val::Double(l / r),
        Eq => Val::Bool(l == r),
        Ne => Val::Bool(l != r),
        Lt => Val::Bool(l < r),
        _ => Val::Bool(l <= r),
    }
}

/// An arithmetic operator or comparison on integers, failing on overflow as pgbench does.
#[inline]
fn int_arithmetic(f: Func, l: i64, r: i64) -> Result<Val, EvalError> {
    use Func::*;
    Ok(match f {
        Add => Val::Int(l.checked_add(r).ok_or(EvalError::Msg("bigint add out of range"))?),
        Sub => Val::Int(l.checked_sub(r).ok_or(EvalError::Msg("bigint sub out of range"))?),
        Mul => Val::Int(l.checked_mul(r).ok_or(EvalError::Msg("bigint mul out of range"))?),
        Div | Mod if r == 0 => return Err(EvalError::Msg("division by zero")),
        Div => Val::Int(l.checked_div(r).ok_or(EvalError::Msg("bigint div out of range"))?),
        // i64::MIN % -1 is 0, as pgbench special-cases it.
        Mod => Val::Int(l.checked_rem(r).unwrap_or(0)),
        Eq => Val::Bool(l == r),
        Ne => Val::Bool(l != r),
        Lt => Val::Bool(l < r),
        _ => Val::Bool(l <= r),
    })
}

/// A bitwise operator or shift.
#[inline]
fn bitwise(f: Func, l: i64, r: i64) -> i64 {
    // Shift counts as the hardware takes them (modulo 64), as pgbench's C does.
    match f {
        Func::BitAnd => l & r,
        Func::BitOr => l | r,
        Func::BitXor => l ^ r,
        Func::Shl => l.wrapping_shl(r as u32),
        _ => l.wrapping_shr(r as u32),
    }
}

/// `debug(v)`: print `v` with its type and where it was evaluated, and return it.
fn debug(v: Val, at: (usize, usize)) -> Val {
    let mut s = String::new();
    match v {
        Val::Null => s.push_str("null"),
        Val::Bool(b) => s.push_str(if b { "boolean true" } else { "boolean false" }),
        Val::Int(i) => s.push_str(&format!("int {i}")),
        Val::Double(d) => {
            s.push_str("double ");
            write_double(d, &mut s);
        }
    }
    eprintln!("debug(script={},command={}): {s}", at.0, at.1);
    v
}

/// `least(…)` or `greatest(…)`: in doubles if any argument is one.
#[inline]
fn extreme(least: bool, a: &[Val]) -> Result<Val, EvalError> {
    if a.iter().any(|v| matches!(v, Val::Double(_))) {
        let mut m = as_double(a[0])?;
        for v in &a[1..] {
            let d = as_double(*v)?;
            m = if least { m.min(d) } else { m.max(d) };
        }
        Ok(Val::Double(m))
    } else {
        let mut m = as_int(a[0])?;
        for v in &a[1..] {
            let i = as_int(*v)?;
            m = if least { m.min(i) } else { m.max(i) };
        }
        Ok(Val::Int(m))
    }
}

/// A random function: an integer in [a[0], a[1]], drawn as `f` says (a[2] its parameter).
#[inline]
fn random_in_range(f: Func, a: &[Val], rng: &mut Prng) -> Result<Val, EvalError> {
    let (min, max) = (as_int(a[0])?, as_int(a[1])?);
    if min > max {
        return Err(EvalError::Msg("empty range given to random"));
    }
    if max.checked_sub(min).and_then(|d| d.checked_add(1)).is_none() {
        return Err(EvalError::Msg("random range is too large"));
    }
    if f == Func::Random {
        return Ok(Val::Int(rng.uniform(min, max)));
    }
    let p = as_double(a[2])?;
    Ok(Val::Int(skewed_random(f, min, max, p, rng)?))
}

/// A non-uniform draw in [min, max], once `p` is checked against `f`'s allowed range.
#[inline]
fn skewed_random(f: Func, min: i64, max: i64, p: f64, rng: &mut Prng) -> Result<i64, EvalError> {
    Ok(match f {
        Func::RandomGaussian if p < random::MIN_GAUSSIAN => return Err(EvalError::Parameter(f, p)),
        Func::RandomGaussian => rng.gaussian(min, max, p),
        Func::RandomZipfian if !(random::MIN_ZIPFIAN..=random::MAX_ZIPFIAN).contains(&p) => {
            return Err(EvalError::Parameter(f, p));
        }
        Func::RandomZipfian => rng.zipfian(min, max, p),
        _ if p <= 0.0 || p.is_nan() => return Err(EvalError::Parameter(f, p)),
        _ => rng.exponential(min, max, p),
    })
}

#[cfg(test)]
mod tests {
    use super::super::cursor::{Cursor, Pos};
    use super::super::expr::parse;
    use super::*;

    /// Evaluate `src` with variables x = 5, y = 2.5, s = "seven", default_seed = 5432.
    fn ev(src: &str) -> Result<Val, EvalError> {
        let names = ["x", "y", "s", "default_seed", "unset"];
        let mut var = |n: &str, _: Pos| names.iter().position(|x| *x == n).expect("known name");
        let e = parse(&mut Cursor::new(src), &mut var).unwrap();
        let mut vars = Vars::new(names.len());
        vars.set(0, Val::Int(5));
        vars.set(1, Val::Double(2.5));
        vars.set_text(2, "seven");
        vars.set(3, Val::Int(5432));
        let mut rng = Prng::new(1);
        eval(&e, &mut Env { vars: &mut vars, rng: &mut rng, at: (0, 1) })
    }

    use Val::{Bool, Double, Int, Null};

    #[test]
    fn arithmetic_as_pgbench() {
        assert_eq!(ev("5 / 3"), Ok(Int(1)));
        assert_eq!(ev("-5 / 3"), Ok(Int(-1)));
        assert_eq!(ev("-5 % 3"), Ok(Int(-2)));
        assert_eq!(ev("5.0 / 2"), Ok(Double(2.5)));
        assert_eq!(ev("5.5 % 2"), Ok(Int(0)), "% rounds doubles to integers: 6 % 2");
        assert_eq!(ev("1 / 0"), Err(EvalError::Msg("division by zero")));
        assert_eq!(ev("1 % 0"), Err(EvalError::Msg("division by zero")));
        assert_eq!(ev("1.0 / 0"), Ok(Double(f64::INFINITY)));
        assert_eq!(ev("9223372036854775807 + 1"), Err(EvalError::Msg("bigint add out of range")));
        assert_eq!(ev("-9223372036854775808 / -1"), Err(EvalError::Msg("bigint div out of range")));
        assert_eq!(ev("-9223372036854775808 % -1"), Ok(Int(0)));
        assert_eq!(ev(":x * :y"), Ok(Double(12.5)));
        assert_eq!(ev("int(5.4 + 3.8)"), Ok(Int(9)));
        assert_eq!(ev("int(2.5)"), Ok(Int(2)), "rint: ties to even");
        assert_eq!(ev("double(5432)"), Ok(Double(5432.0)));
        assert_eq!(ev("abs(-17)"), Ok(Int(17)));
        assert_eq!(ev("least(5, 4, 3, 2.1)"), Ok(Double(2.1)));
        assert_eq!(ev("greatest(5, 4, 3, 2)"), Ok(Int(5)));
        assert_eq!(ev("mod(54, 32)"), Ok(Int(22)));
        assert_eq!(ev("pow(2.0, 10)"), Ok(Double(1024.0)));
        assert_eq!(ev("1 << 2"), Ok(Int(4)));
        assert_eq!(ev("8 >> 2"), Ok(Int(2)));
        assert_eq!(ev("~ 1"), Ok(Int(-2)));
        assert_eq!(ev("1 # 3"), Ok(Int(2)));
        assert_eq!(ev("3 - 2.0"), Ok(Double(1.0)));
        assert_eq!(ev("int(1e300)"), Err(EvalError::DoubleToInt(1e300)));
    }

    #[test]
    fn logic_nulls_and_case() {
        assert_eq!(ev("not false"), Ok(Bool(true)));
        assert_eq!(ev("1 is null"), Ok(Bool(false)));
        assert_eq!(ev("1 notnull"), Ok(Bool(true)));
        assert_eq!(ev("null isnull"), Ok(Bool(true)));
        assert_eq!(ev("true is true"), Ok(Bool(true)));
        assert_eq!(ev("1 + null"), Ok(Null));
        assert_eq!(ev("null and false"), Ok(Null), "a NULL left side gives NULL, as pgbench");
        assert_eq!(ev("false and null"), Ok(Bool(false)));
        assert_eq!(ev("true or 1 / 0"), Ok(Bool(true)), "OR is lazy");
        // pgbench 15 refuses numbers as booleans, whatever its reference page shows.
        assert_eq!(ev("5 or 0"), Err(EvalError::Coerce("int", "boolean")));
        assert_eq!(ev("CASE WHEN :x <> 0 THEN 10 / :x ELSE NULL END"), Ok(Int(2)));
        assert_eq!(ev("CASE WHEN 0 THEN 1 END"), Ok(Null));
        assert_eq!(ev("5 = 4"), Ok(Bool(false)));
        assert_eq!(ev("5 >= 4"), Ok(Bool(true)));
    }

    #[test]
    fn functions_and_errors() {
        assert_eq!(ev("hash(10, 5432)"), Ok(Int(-5817877081768721676)));
        assert_eq!(ev("hash(10)"), ev("hash(10, :default_seed)"));
        assert_eq!(ev("hash_fnv1a(10, 5432)"), Ok(Int(-7793829335365542153)));
        assert!(matches!(ev("random(1, 10)"), Ok(Int(1..=10))));
        assert_eq!(ev("random(2, 1)"), Err(EvalError::Msg("empty range given to random")));
        assert_eq!(
            ev("random(-9223372036854775808, 9223372036854775807)"),
            Err(EvalError::Msg("random range is too large"))
        );
        assert!(matches!(ev("random_gaussian(1, 10, 1.5)"), Err(EvalError::Parameter(Func::RandomGaussian, _))));
        assert!(matches!(ev("random_zipfian(1, 10, 1.0)"), Err(EvalError::Parameter(Func::RandomZipfian, _))));
        assert!(matches!(ev("random_exponential(1, 10, 0)"), Err(EvalError::Parameter(Func::RandomExponential, _))));
        assert!(matches!(ev("permute(0, 4)"), Ok(Int(0..=3))));
        assert_eq!(ev("permute(0, 0)"), Err(EvalError::Msg("permute size parameter must be greater than zero")));
        assert_eq!(ev(":s + 1"), Err(EvalError::Var(VarError::Malformed(2))));
        assert_eq!(ev(":unset"), Err(EvalError::Var(VarError::Undefined(4))));
        assert_eq!(ev("sqrt(2.0)"), Ok(Double(std::f64::consts::SQRT_2)));
        assert_eq!(ev("debug(5432.1)"), Ok(Double(5432.1)));
    }
}
