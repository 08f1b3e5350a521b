//! Packet framing: a payload read whole (joined across 16 MiB pieces), written in one
//! write with its header, and the OK, EOF and ERR packets' fields.

use super::{WResult, Wire, WireError};
use std::io::{Read, Write};

/// Status flag of OK and EOF packets: another result follows.
const MORE_RESULTS: u16 = 8;
/// The longest payload a server may send (max_allowed_packet's ceiling, 1 GiB): a longer
/// one is a broken or hostile peer, refused before more is allocated for it. A piece's
/// own length is 16 MiB at most, so no allocation is ever larger than that ahead of data.
const MAX_PAYLOAD: usize = 1 << 30;

impl Wire {
    /// Read one packet's payload into `pkt` (joining a payload split at 16 MiB).
    pub(super) fn read(&mut self) -> WResult<()> {
        self.pkt.clear();
        loop {
            let mut head = [0u8; 4];
            self.io.read_exact(&mut head)?;
            let len = u32::from_le_bytes([head[0], head[1], head[2], 0]) as usize;
            self.seq = head[3].wrapping_add(1);
            let at = self.pkt.len();
            if at + len > MAX_PAYLOAD {
                return Err(WireError::Lost(format!("the server sent a packet of more than {MAX_PAYLOAD} bytes")));
            }
            self.pkt.resize(at + len, 0);
            self.io.read_exact(&mut self.pkt[at..])?;
            if len < 0xff_ffff {
                return Ok(());
            }
        }
    }

    /// Start the next packet in `out`: room for its header, so that it goes in one write
    /// (two would be two TCP segments with nodelay, and two wake-ups for the server).
    pub(super) fn packet(&mut self) {
        self.out.clear();
        self.out.extend_from_slice(&[0; 4]);
    }

    /// Send `out` (begun by `packet`) as the next packet(s) of the exchange.
    pub(super) fn send(&mut self) -> WResult<()> {
        let len = self.out.len() - 4;
        if len < 0xff_ffff {
            self.out[..3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
            self.out[3] = self.seq;
            self.seq = self.seq.wrapping_add(1);
            let s = self.io.get_mut();
            s.write_all(&self.out)?;
            // A TLS write may leave bytes in the session's buffer; a plain one never does.
            s.flush()?;
            return Ok(());
        }
        // 16 MiB and more: split, each piece with its own header.
        let mut from = 4;
        let mut frame = [0u8; 4];
        loop {
            let n = (self.out.len() - from).min(0xff_ffff);
            frame[..3].copy_from_slice(&(n as u32).to_le_bytes()[..3]);
            frame[3] = self.seq;
            self.seq = self.seq.wrapping_add(1);
            let s = self.io.get_mut();
            s.write_all(&frame)?;
            s.write_all(&self.out[from..from + n])?;
            from += n;
            if n < 0xff_ffff {
                s.flush()?;
                return Ok(());
            }
        }
    }

    /// Start a command: `out` holds its byte and arguments.
    pub(super) fn command(&mut self, code: u8) {
        self.packet();
        self.out.push(code);
        self.seq = 0;
    }

    /// The error in `pkt` (an ERR packet).
    pub(super) fn error(&self) -> WireError {
        let p = &self.pkt;
        if p.len() < 3 {
            return WireError::Lost("bad error packet".into());
        }
        let code = u16::from_le_bytes([p[1], p[2]]);
        let msg = if p.get(3) == Some(&b'#') { p.get(9..).unwrap_or_default() } else { &p[3..] };
        WireError::Server(code, String::from_utf8_lossy(msg).into_owned())
    }

    pub(super) fn is_eof(&self) -> bool {
        self.pkt.first() == Some(&0xfe) && self.pkt.len() < 9
    }

    pub(super) fn more_after_eof(&self) -> bool {
        self.pkt.len() >= 5 && u16::from_le_bytes([self.pkt[3], self.pkt[4]]) & MORE_RESULTS != 0
    }

    pub(super) fn more_after_ok(&self) -> bool {
        let mut i = 1;
        lenenc(&self.pkt, &mut i);
        lenenc(&self.pkt, &mut i);
        self.pkt.len() >= i + 2 && u16::from_le_bytes([self.pkt[i], self.pkt[i + 1]]) & MORE_RESULTS != 0
    }
}

/// A length-encoded integer at `*i` (0 past the end).
pub(super) fn lenenc(p: &[u8], i: &mut usize) -> u64 {
    let Some(&b) = p.get(*i) else { return 0 };
    let n = match b {
        0xfc => 2,
        0xfd => 3,
        0xfe => 8,
        _ => {
            *i = i.saturating_add(1);
            return u64::from(b);
        }
    };
    let mut v = [0u8; 8];
    if let Some(s) = p.get(*i + 1..*i + 1 + n) {
        v[..n].copy_from_slice(s);
    }
    *i = i.saturating_add(1 + n);
    u64::from_le_bytes(v)
}

pub(super) fn put_lenenc(out: &mut Vec<u8>, n: u64) {
    match n {
        0..0xfb => out.push(n as u8),
        0xfb..0x1_0000 => {
            out.push(0xfc);
            out.extend_from_slice(&(n as u16).to_le_bytes());
        }
        0x1_0000..0x100_0000 => {
            out.push(0xfd);
            out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xfe);
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
}
