//! Prepared statements: prepared once (COM_STMT_PREPARE), executed by the binary
//! protocol (COM_STMT_EXECUTE), their results counted or decoded as asked.

use super::binary::{as_i64, column, values};
use super::packet::{lenenc, put_lenenc};
use super::{WResult, Wire, WireError};
use crate::engine::Param;

/// A prepared statement: the server's id and how many `?` it has.
pub(super) struct Prepared {
    id: u32,
    params: usize,
}

/// What a statement's result is read for.
enum Want<'a> {
    /// Rows are counted; the number of rows changed otherwise.
    Count,
    /// The first column of the first row as an integer.
    First,
    /// Every column of every row as text, with its name.
    Each(&'a mut dyn FnMut(usize, &str, Option<&str>)),
}

impl Wire {
    /// Prepare a statement; its index.
    pub fn prepare(&mut self, sql: &str) -> WResult<usize> {
        self.command(0x16);
        self.out.extend_from_slice(sql.as_bytes());
        self.send()?;
        self.read()?;
        if self.pkt.first() == Some(&0xff) {
            return Err(self.error());
        }
        if self.pkt.len() < 12 || self.pkt[0] != 0 {
            return Err(WireError::Lost("bad prepare answer".into()));
        }
        let p = &self.pkt;
        let id = u32::from_le_bytes([p[1], p[2], p[3], p[4]]);
        let columns = u16::from_le_bytes([p[5], p[6]]) as usize;
        let params = u16::from_le_bytes([p[7], p[8]]) as usize;
        for n in [params, columns] {
            if n > 0 {
                for _ in 0..=n {
                    self.read()?;
                }
            }
        }
        self.stmts.push(Prepared { id, params });
        Ok(self.stmts.len() - 1)
    }

    /// Execute a prepared statement (binary protocol) and read its result as `want` says:
    /// rows counted (or the rows changed), the first value, or every value.
    fn exec(&mut self, stmt: usize, params: &[Param], want: Want, first: &mut Option<i64>) -> WResult<u64> {
        let st = &self.stmts[stmt];
        if st.params != params.len() {
            return Err(WireError::Server(
                1210,
                format!("the statement takes {} parameters, {} given", st.params, params.len()),
            ));
        }
        let id = st.id;
        self.command(0x17);
        self.out.extend_from_slice(&id.to_le_bytes());
        self.out.push(0);
        self.out.extend_from_slice(&1u32.to_le_bytes());
        if !params.is_empty() {
            self.out.resize(self.out.len() + params.len().div_ceil(8), 0);
            self.out.push(1);
            for p in params {
                self.out.extend_from_slice(match p {
                    Param::Int(_) => &[0x08, 0],
                    Param::Text(_) => &[0xfd, 0],
                });
            }
            for p in params {
                match p {
                    Param::Int(i) => self.out.extend_from_slice(&i.to_le_bytes()),
                    Param::Text(t) => {
                        put_lenenc(&mut self.out, t.len() as u64);
                        self.out.extend_from_slice(t.as_bytes());
                    }
                }
            }
        }
        self.send()?;
        self.read_result(want, first)
    }

    fn read_result(&mut self, mut want: Want, first: &mut Option<i64>) -> WResult<u64> {
        let mut n = 0;
        loop {
            self.read()?;
            match self.pkt.first().copied() {
                Some(0) => {
                    let mut i = 1;
                    n += lenenc(&self.pkt, &mut i);
                    if !self.more_after_ok() {
                        return Ok(n);
                    }
                }
                Some(0xff) => return Err(self.error()),
                _ => {
                    let columns = lenenc(&self.pkt, &mut 0) as usize;
                    let decode = !matches!(want, Want::Count);
                    self.cols.clear();
                    for _ in 0..columns {
                        self.read()?;
                        if decode {
                            let c = column(&self.pkt, matches!(want, Want::Each(_)));
                            self.cols.push(c);
                        }
                    }
                    self.read()?; // EOF
                    loop {
                        self.read()?;
                        if self.is_eof() {
                            break;
                        }
                        if self.pkt.first() == Some(&0xff) {
                            return Err(self.error());
                        }
                        n += 1;
                        match &mut want {
                            Want::Count => {}
                            Want::First => {
                                if n == 1 {
                                    let set = &mut |_: usize, _: &str, v: Option<&str>| *first = v.and_then(as_i64);
                                    values(&self.pkt, &self.cols, &mut self.text, set, true);
                                }
                            }
                            Want::Each(row) => {
                                values(&self.pkt, &self.cols, &mut self.text, *row, false)
                                    .ok_or_else(|| WireError::Lost("a row that does not parse".into()))?;
                            }
                        }
                    }
                    if !self.more_after_eof() {
                        return Ok(n);
                    }
                }
            }
        }
    }

    /// Execute; rows counted, or the rows changed by a write.
    pub fn count(&mut self, stmt: usize, params: &[Param]) -> WResult<u64> {
        self.exec(stmt, params, Want::Count, &mut None)
    }

    /// Execute; the first column of the first row as an integer.
    pub fn first_i64(&mut self, stmt: usize, params: &[Param]) -> WResult<Option<i64>> {
        let mut first = None;
        self.exec(stmt, params, Want::First, &mut first)?;
        Ok(first)
    }

    /// Execute; every value of every row as text, with its column's name.
    pub fn each(
        &mut self,
        stmt: usize,
        params: &[Param],
        row: &mut dyn FnMut(usize, &str, Option<&str>),
    ) -> WResult<u64> {
        self.exec(stmt, params, Want::Each(row), &mut None)
    }
}
