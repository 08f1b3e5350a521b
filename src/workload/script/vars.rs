//! A client's variables: a table allocated once, one slot per name the scripts use, so
//! setting and reading a variable in the hot path moves no memory. A slot holds a value
//! (from `\set`), a text (from `--define` or `\gset`, read as a value on first use), or both.

use super::value::{Val, parse_text};
use crate::engine::Param;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Unset,
    /// `val` is current; `text` is stale.
    Val,
    /// `text` is current; `val` not read yet.
    Text,
    /// Both say the same.
    Both,
}

struct Slot {
    state: State,
    val: Val,
    text: String,
}

/// Why a variable could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarError {
    /// Never set.
    Undefined(usize),
    /// Its text is no value (e.g. "abc" used in arithmetic).
    Malformed(usize),
}

/// One client's variables.
pub struct Vars {
    slots: Vec<Slot>,
}

impl Vars {
    /// `n` unset variables, each with room for a number's text.
    pub fn new(n: usize) -> Vars {
        Vars {
            slots: (0..n)
                .map(|_| Slot { state: State::Unset, val: Val::Null, text: String::with_capacity(32) })
                .collect(),
        }
    }

    /// Set a value (`\set`).
    pub fn set(&mut self, i: usize, v: Val) {
        let s = &mut self.slots[i];
        s.val = v;
        s.state = State::Val;
    }

    /// Set a text (`--define`, `\gset`).
    pub fn set_text(&mut self, i: usize, t: &str) {
        let s = &mut self.slots[i];
        s.text.clear();
        s.text.push_str(t);
        s.state = State::Text;
    }

    /// The variable as a value, reading a text once.
    pub fn get(&mut self, i: usize) -> Result<Val, VarError> {
        let s = &mut self.slots[i];
        match s.state {
            State::Unset => Err(VarError::Undefined(i)),
            State::Val | State::Both => Ok(s.val),
            State::Text => {
                let v = parse_text(&s.text).ok_or(VarError::Malformed(i))?;
                s.val = v;
                s.state = State::Both;
                Ok(v)
            }
        }
    }

    /// Make the variable ready to be a statement parameter: values other than integers
    /// are spelled into the slot's text (pgbench sends every parameter as text).
    pub fn ready_param(&mut self, i: usize) -> Result<(), VarError> {
        let s = &mut self.slots[i];
        match (s.state, s.val) {
            (State::Unset, _) => Err(VarError::Undefined(i)),
            (State::Val, Val::Int(_)) | (State::Text | State::Both, _) => Ok(()),
            (State::Val, v) => {
                s.text.clear();
                v.write(&mut s.text);
                s.state = State::Both;
                Ok(())
            }
        }
    }

    /// The variable as a parameter (after `ready_param`).
    pub fn param(&self, i: usize) -> Param<'_> {
        let s = &self.slots[i];
        match (s.state, s.val) {
            (State::Val, Val::Int(n)) => Param::Int(n),
            _ => Param::Text(&s.text),
        }
    }

    /// The variable's text form (for `\sleep :var`): its text, or its value spelled.
    pub fn text(&mut self, i: usize) -> Result<&str, VarError> {
        self.ready_param(i)?;
        let s = &mut self.slots[i];
        if let (State::Val, Val::Int(n)) = (s.state, s.val) {
            use std::fmt::Write as _;
            s.text.clear();
            let _ = write!(s.text, "{n}");
            s.state = State::Both;
        }
        Ok(&s.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_texts_and_parameters() {
        let mut v = Vars::new(3);
        assert_eq!(v.get(0), Err(VarError::Undefined(0)));
        v.set(0, Val::Int(7));
        assert!(matches!(v.param(0), Param::Int(7)));
        v.set(1, Val::Double(0.5));
        v.ready_param(1).unwrap();
        assert!(matches!(v.param(1), Param::Text("0.5")));
        v.set_text(2, "12");
        assert_eq!(v.get(2), Ok(Val::Int(12)));
        assert!(matches!(v.param(2), Param::Text("12")));
        v.set_text(2, "abc");
        assert_eq!(v.get(2), Err(VarError::Malformed(2)));
        v.set(1, Val::Int(3));
        assert_eq!(v.text(1).unwrap(), "3");
    }
}
