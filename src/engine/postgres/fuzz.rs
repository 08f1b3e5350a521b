//! The PostgreSQL reader fed arbitrary server bytes from memory: the startup exchange,
//! simple and described queries, COPY, whatever arrives: an error or an answer, never a
//! panic, a hang or a buffer larger than twice what was sent. `DBRACE_FUZZ_CASES` raises
//! the case count for long runs.

use super::conn::PgClient;
use super::conninfo::ConnInfo;
use super::messages::MAX_MESSAGE;
use crate::engine::kit::patient::{Patient, Replay, fuzz_cases};
use crate::engine::kit::stream::Stream;
use crate::engine::{Datum, SqlClient};
use proptest::prelude::*;

/// A client whose server says `input`, whatever it is asked.
fn client(input: &[u8]) -> PgClient {
    PgClient::over(Patient::new(Stream::Replay(Replay::new(input.to_vec()))).unwrap(), false)
}

/// Every reading path over `input`; the read buffer stays within twice what was sent.
fn survive(input: &[u8]) {
    let bound = (64usize << 10).max(2 * input.len());
    let info = ConnInfo::parse("postgres://u:pw@127.0.0.1/d").unwrap();
    let runs: [&dyn Fn(&mut PgClient); 6] = [
        &|c| {
            let _ = c.startup(&info);
        },
        &|c| {
            let _ = c.text("SHOW x");
        },
        &|c| {
            let _ = c.simple("SELECT 1");
        },
        &|c| {
            let _ = c.finish_each(&mut |_, _, _| {});
        },
        &|c| {
            let _ = c.prepare("SELECT $1");
        },
        &|c| {
            let _ = c.load("t", &["a", "b"], &mut std::iter::once(vec![Datum::Int(1), Datum::Text("x".into())]));
        },
    ];
    for run in runs {
        let mut c = client(input);
        run(&mut c);
        assert!(c.rbuf.len() <= bound, "{} bytes buffered for {} sent", c.rbuf.len(), input.len());
    }
}

/// Backend messages as they frame: a tag, a length (right, or any), a body.
fn messages() -> impl Strategy<Value = Vec<u8>> {
    let tag = prop::sample::select(b"RSEKZNDTCGInstv123".to_vec());
    let length = prop::option::weighted(0.1, any::<u32>());
    prop::collection::vec((tag, length, prop::collection::vec(any::<u8>(), 0..40)), 0..12).prop_map(|ms| {
        let mut out = Vec::new();
        for (tag, len, body) in ms {
            out.push(tag);
            out.extend_from_slice(&len.unwrap_or(body.len() as u32 + 4).to_be_bytes());
            out.extend_from_slice(&body);
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
    fn arbitrary_messages_never_panic(input in messages()) {
        survive(&input);
    }

    #[test]
    fn messages_after_a_login_never_panic(input in messages()) {
        // Authentication OK and ReadyForQuery first, so the rest reaches the query readers.
        let mut all = b"R\0\0\0\x08\0\0\0\0Z\0\0\0\x05I".to_vec();
        all.extend_from_slice(&input);
        survive(&all);
    }
}

#[test]
fn lengths_are_checked_before_anything_is_allocated() {
    // Under 4 (once a reversed range), over the limit, and a huge one that never comes.
    for len in [0u32, 3, (MAX_MESSAGE + 1) as u32, u32::MAX] {
        let mut m = b"D".to_vec();
        m.extend_from_slice(&len.to_be_bytes());
        let e = client(&m).read_message().unwrap_err();
        assert!(e.to_string().contains(&format!("a message of {len} bytes")), "{e}");
    }
    let mut m = b"D".to_vec();
    m.extend_from_slice(&(1u32 << 30).to_be_bytes());
    m.extend_from_slice(&[7; 100]);
    let mut c = client(&m);
    assert!(c.read_message().is_err());
    assert_eq!(c.rbuf.len(), 64 << 10, "the buffer grew for bytes that never came");
}

#[test]
fn another_protocol_is_quoted_not_parsed() {
    let info = ConnInfo::parse("postgres://u@127.0.0.1/d").unwrap();
    let Err(super::login::StartupError::Foreign(said)) = client(b"-ERR unknown command\r\n").startup(&info) else {
        panic!("a RESP error is no PostgreSQL message");
    };
    assert_eq!(said, b"-ERR unknown command\r\n");
    assert!(matches!(client(b"HTTP/1.1 400").startup(&info), Err(super::login::StartupError::Foreign(_))));
    assert!(matches!(client(b"").startup(&info), Err(super::login::StartupError::Foreign(s)) if s.is_empty()));
}
