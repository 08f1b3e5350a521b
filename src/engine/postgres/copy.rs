//! Bulk loads by COPY FROM STDIN: binary when every column has a type encoded here,
//! text otherwise.

use super::conn::PgClient;
use super::messages::lost;
use crate::engine::{Datum, TxError, TxResult};
use postgres_protocol::message::frontend;

impl PgClient {
    pub(super) fn copy_in(
        &mut self,
        table: &str,
        columns: &[&str],
        rows: &mut dyn Iterator<Item = Vec<Datum>>,
        fresh: bool,
    ) -> TxResult<u64> {
        // FREEZE needs the table emptied in the same transaction: only a table's whole
        // load can have it, not one of its parts loaded side by side.
        if fresh {
            self.simple(&format!("TRUNCATE {table}"))?;
        }
        // Binary COPY when every column has a type we encode: the server skips parsing text.
        let kinds = self.column_kinds(table, columns)?;
        self.start_copy(table, columns, kinds.is_some(), fresh)?;
        let (n, bad) = self.send_rows(rows, kinds.as_deref())?;
        // Rows stop coming early on Ctrl-C: abandon the COPY rather than commit part of it.
        if crate::signals::pending().is_some() || bad.is_some() {
            frontend::copy_fail("interrupted", &mut self.wbuf).map_err(lost)?;
        } else {
            frontend::copy_done(&mut self.wbuf);
        }
        self.flush().map_err(lost)?;
        let done = self.finish();
        if let Some(e) = bad {
            return Err(TxError::Fail(format!("postgres: cannot load {table}: {e}")));
        }
        done?;
        Ok(n)
    }

    /// Send the COPY statement and wait for the server to take data.
    fn start_copy(&mut self, table: &str, columns: &[&str], binary: bool, fresh: bool) -> TxResult<()> {
        let format = match (binary, fresh) {
            (true, true) => "FORMAT binary, FREEZE",
            (true, false) => "FORMAT binary",
            (false, true) => "FREEZE",
            (false, false) => "FORMAT text",
        };
        let sql = format!("COPY {table} ({}) FROM STDIN WITH ({format})", columns.join(", "));
        frontend::query(&sql, &mut self.wbuf).map_err(lost)?;
        self.flush().map_err(lost)?;
        loop {
            let (tag, body) = self.read_message().map_err(lost)?;
            match tag {
                b'G' => return Ok(()),
                b'E' => {
                    let e = self.error(body);
                    self.finish().ok();
                    return Err(TxError::Fail(format!("postgres: {}", e.message)));
                }
                _ => {}
            }
        }
    }

    /// Every row as COPY data, in chunks of 64 kB: binary by `kinds`, or text; the rows
    /// sent and the first value that could not be encoded.
    fn send_rows(
        &mut self,
        rows: &mut dyn Iterator<Item = Vec<Datum>>,
        kinds: Option<&[Kind]>,
    ) -> TxResult<(u64, Option<String>)> {
        let (mut n, mut chunk, mut bad) = (0u64, Vec::with_capacity(1 << 17), None);
        if kinds.is_some() {
            chunk.extend_from_slice(b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0");
        }
        for row in rows {
            match kinds {
                Some(kinds) => binary_row(&row, kinds, &mut chunk, &mut bad),
                None => text_row(&row, &mut chunk),
            }
            n += 1;
            if chunk.len() >= 1 << 16 {
                self.send_chunk(&mut chunk)?;
            }
        }
        if kinds.is_some() {
            chunk.extend_from_slice(&(-1i16).to_be_bytes());
        }
        if !chunk.is_empty() {
            self.send_chunk(&mut chunk)?;
        }
        Ok((n, bad))
    }

    /// One CopyData message of `chunk`, which is emptied.
    fn send_chunk(&mut self, chunk: &mut Vec<u8>) -> TxResult<()> {
        frontend::CopyData::new(&chunk[..]).map_err(lost)?.write(&mut self.wbuf);
        chunk.clear();
        self.flush().map_err(lost)
    }

    /// How to encode each column in binary COPY; `None` when some type is not ours to encode.
    fn column_kinds(&mut self, table: &str, columns: &[&str]) -> TxResult<Option<Vec<Kind>>> {
        let names: Vec<String> = columns.iter().map(|c| format!("'{}'", c.replace('\'', "''"))).collect();
        let types = self.text(&format!(
            "SELECT string_agg(t.typname, ',' ORDER BY c.n) FROM unnest(ARRAY[{}]) WITH ORDINALITY AS c(name, n) \
             JOIN pg_attribute a ON a.attrelid = '{table}'::regclass AND a.attname = c.name \
             JOIN pg_type t ON t.oid = a.atttypid",
            names.join(", ")
        ))?;
        let kinds: Vec<Option<Kind>> = types
            .split(',')
            .map(|t| match t {
                "int2" => Some(Kind::Int(2)),
                "int4" => Some(Kind::Int(4)),
                "int8" => Some(Kind::Int(8)),
                "bpchar" => Some(Kind::Bpchar),
                "text" | "varchar" => Some(Kind::Text),
                _ => None,
            })
            .collect();
        Ok((kinds.len() == columns.len()).then(|| kinds.into_iter().collect()).flatten())
    }
}

/// A column's binary COPY encoding.
#[derive(Clone, Copy)]
enum Kind {
    /// A big-endian integer of this many bytes.
    Int(usize),
    /// char(n): the server pads, so blanks travel as an empty string.
    Bpchar,
    /// text or varchar: the bytes as they are.
    Text,
}

/// One field of binary COPY: its length (-1 for NULL), then its bytes.
fn binary_field(d: &Datum, k: Kind, out: &mut Vec<u8>) -> Result<(), String> {
    let bytes = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend_from_slice(&(b.len() as i32).to_be_bytes());
        out.extend_from_slice(b);
    };
    match (d, k) {
        (Datum::Null, _) => out.extend_from_slice(&(-1i32).to_be_bytes()),
        (Datum::Int(i), Kind::Int(w)) => {
            let fits = match w {
                2 => i16::try_from(*i).is_ok(),
                4 => i32::try_from(*i).is_ok(),
                _ => true,
            };
            if !fits {
                return Err(format!("{i} does not fit a {}-byte integer column", w));
            }
            bytes(out, &i.to_be_bytes()[8 - w..]);
        }
        (Datum::Int(i), _) => bytes(out, i.to_string().as_bytes()),
        (Datum::Blank(_), Kind::Bpchar) => bytes(out, b""),
        (Datum::Blank(n), _) => bytes(out, " ".repeat(*n).as_bytes()),
        (Datum::Text(t), Kind::Int(_)) => return Err(format!("text '{t}' for an integer column")),
        (Datum::Text(t), _) => bytes(out, t.as_bytes()),
    }
    Ok(())
}

/// COPY text format: tabs, newlines and backslashes escaped, NULL as \N.
fn copy_field(d: &Datum, out: &mut Vec<u8>) {
    match d {
        Datum::Null => out.extend_from_slice(b"\\N"),
        Datum::Int(i) => {
            let _ = std::io::Write::write_fmt(out, format_args!("{i}"));
        }
        // char(n) pads on the server: send nothing, as pgbench does.
        Datum::Blank(_) => {}
        Datum::Text(t) => {
            for b in t.bytes() {
                match b {
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    _ => out.push(b),
                }
            }
        }
    }
}

/// One row in binary COPY's format; the first value that cannot be encoded is kept in `bad`.
fn binary_row(row: &[Datum], kinds: &[Kind], chunk: &mut Vec<u8>, bad: &mut Option<String>) {
    chunk.extend_from_slice(&(row.len() as i16).to_be_bytes());
    for (d, k) in row.iter().zip(kinds) {
        if let Err(e) = binary_field(d, *k, chunk) {
            bad.get_or_insert(e);
        }
    }
}

/// One row in text COPY's format: tab-separated, a newline at its end.
fn text_row(row: &[Datum], chunk: &mut Vec<u8>) {
    for (i, d) in row.iter().enumerate() {
        if i > 0 {
            chunk.push(b'\t');
        }
        copy_field(d, chunk);
    }
    chunk.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_copy_fields() {
        let enc = |d: Datum, k: Kind| {
            let mut out = Vec::new();
            binary_field(&d, k, &mut out).map(|_| out)
        };
        assert_eq!(enc(Datum::Int(258), Kind::Int(4)).unwrap(), [0, 0, 0, 4, 0, 0, 1, 2]);
        assert_eq!(enc(Datum::Int(-1), Kind::Int(2)).unwrap(), [0, 0, 0, 2, 0xff, 0xff]);
        assert!(enc(Datum::Int(1 << 40), Kind::Int(4)).is_err());
        assert_eq!(enc(Datum::Null, Kind::Text).unwrap(), [0xff; 4]);
        assert_eq!(enc(Datum::Blank(3), Kind::Bpchar).unwrap(), [0, 0, 0, 0]);
        assert_eq!(enc(Datum::Blank(2), Kind::Text).unwrap(), [0, 0, 0, 2, b' ', b' ']);
        assert_eq!(enc(Datum::Int(42), Kind::Text).unwrap(), [0, 0, 0, 2, b'4', b'2']);
    }
}
