//! The MySQL wire reader fed arbitrary server bytes from memory: the greeting and login,
//! text queries, prepares and binary results: an error or an answer, never a panic or a
//! hang. `DBRACE_FUZZ_CASES` raises the case count for long runs.

use super::{Stream, Wire};
use crate::engine::Param;
use crate::engine::kit::patient::{Patient, Replay, fuzz_cases};
use crate::engine::mysql::endpoint::Endpoint;
use proptest::prelude::*;

/// A connection whose server says `input`, whatever it is asked.
fn wire(input: &[u8]) -> Wire {
    Wire::over(Patient::new(Stream::Replay(Replay::new(input.to_vec()))).unwrap())
}

/// Every reading path over `input`.
fn survive(input: &[u8]) {
    let at = Endpoint::parse("mysql://root:pw@127.0.0.1/d").unwrap();
    let _ = wire(input).login(&at);
    let mut first = None;
    let _ = wire(input).query("SELECT 1", Some(&mut first), None);
    let _ = wire(input).query("LOAD DATA", None, Some(b"1\t2\n"));
    // A prepare that succeeds (one parameter, no columns) and then whatever follows.
    let mut w = wire(&[&PREPARED[..], input].concat());
    if let Ok(s) = w.prepare("SELECT ?") {
        let _ = w.count(s, &[Param::Int(1)]);
        let _ = w.first_i64(s, &[Param::Int(1)]);
        let _ = w.each(s, &[Param::Text("x")], &mut |_, _, _| {});
    }
}

/// COM_STMT_PREPARE's answer for one parameter and no columns: the OK packet, the
/// parameter's definition, EOF.
const PREPARED: [u8; 29] = [
    12, 0, 0, 1, 0, 7, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, // OK: id 7, 0 columns, 1 parameter
    4, 0, 0, 2, 3, b'd', b'e', b'f', // a (short) parameter definition
    1, 0, 0, 3, 0xfe, // EOF
];

/// Packets as they frame: a length (right, or any), a sequence number, a payload that
/// often starts with one of the bytes a reply starts with.
fn packets() -> impl Strategy<Value = Vec<u8>> {
    let first = prop::sample::select(vec![0u8, 1, 2, 3, 10, 0xfb, 0xfc, 0xfd, 0xfe, 0xff]);
    let length = prop::option::weighted(0.1, 0u32..0x100_0000);
    prop::collection::vec((length, first, prop::collection::vec(any::<u8>(), 0..40)), 0..12).prop_map(|ps| {
        let mut out = Vec::new();
        for (seq, (len, first, rest)) in ps.into_iter().enumerate() {
            let n = len.unwrap_or(rest.len() as u32 + 1);
            out.extend_from_slice(&n.to_le_bytes()[..3]);
            out.push(seq as u8);
            out.push(first);
            out.extend_from_slice(&rest);
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(500), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(input in prop::collection::vec(any::<u8>(), 0..600)) {
        survive(&input);
    }

    #[test]
    fn arbitrary_packets_never_panic(input in packets()) {
        survive(&input);
    }
}

#[test]
fn another_protocol_is_quoted_not_parsed() {
    let at = Endpoint::parse("mysql://root@127.0.0.1/d").unwrap();
    for said in [&b"-ERR unknown command\r\n"[..], b"HTTP/1.1 400 Bad Request\r\n", b"R\0\0\0\x08\0\0\0\x03", b""] {
        match wire(said).login(&at) {
            Err(super::handshake::Login::Foreign(s)) => assert_eq!(s, said),
            _ => panic!("{} is no MySQL greeting", String::from_utf8_lossy(said)),
        }
    }
}
