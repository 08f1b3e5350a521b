//! The text protocol: statements run as SQL text (COM_QUERY), their results skipped but
//! for one value, and LOAD DATA LOCAL INFILE fed from memory.

use super::packet::lenenc;
use super::{WResult, Wire, WireError};

impl Wire {
    /// Run statements by the text protocol; `first` gets the first value of the first row
    /// of the first result, `infile` is what a LOAD DATA LOCAL INFILE reads (dbrace's own
    /// load; a script's asks for a file, which is refused).
    pub fn query(&mut self, sql: &str, mut first: Option<&mut Option<String>>, infile: Option<&[u8]>) -> WResult<()> {
        self.command(0x03);
        self.out.extend_from_slice(sql.as_bytes());
        self.send()?;
        let mut failed = None;
        loop {
            self.read()?;
            match self.pkt.first().copied() {
                Some(0) => {
                    if !self.more_after_ok() {
                        break;
                    }
                }
                Some(0xff) => {
                    // Nothing follows an error, not even the rest of a multi-statement.
                    failed = Some(self.error());
                    break;
                }
                Some(0xfb) => {
                    // The server asks for the "file": send it, then an empty packet.
                    if infile.is_none() {
                        failed = Some(WireError::Server(
                            2068,
                            "LOAD DATA LOCAL INFILE: dbrace sends no files, only its own load's rows".into(),
                        ));
                    }
                    for chunk in infile.unwrap_or_default().chunks(1 << 20) {
                        self.packet();
                        self.out.extend_from_slice(chunk);
                        self.send()?;
                    }
                    self.packet();
                    self.send()?;
                }
                _ => {
                    let columns = lenenc(&self.pkt, &mut 0) as usize;
                    for _ in 0..columns {
                        self.read()?;
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
                        if let Some(slot) = first.take() {
                            let mut i = 0;
                            *slot = if self.pkt.first() == Some(&0xfb) {
                                None
                            } else {
                                let n = lenenc(&self.pkt, &mut i) as usize;
                                Some(
                                    String::from_utf8_lossy(self.pkt.get(i..i.saturating_add(n)).unwrap_or_default())
                                        .into_owned(),
                                )
                            };
                        }
                    }
                    if !self.more_after_eof() {
                        break;
                    }
                }
            }
        }
        failed.map_or(Ok(()), Err)
    }
}
