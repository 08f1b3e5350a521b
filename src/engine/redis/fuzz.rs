//! The RESP reader fed arbitrary server bytes from memory: pipelines of any length read
//! and every reply walked to its leaves as setup and verify do: an error or an answer,
//! never a panic, a hang or a buffer larger than twice what was sent.
//! `DBRACE_FUZZ_CASES` raises the case count for long runs.

use super::client::Value;
use super::resp::Conn;
use crate::engine::kit::patient::fuzz_cases;
use proptest::prelude::*;

/// Read `n` replies from a server that says `input`, walking each.
fn survive(input: &[u8], n: usize) {
    let mut c = Conn::replay(input.to_vec());
    for _ in 0..3 {
        match c.call(b"", n) {
            Ok(replies) => {
                let walked: Vec<Value> = replies.map(Value::from).collect();
                assert_eq!(walked.len(), n);
            }
            Err(_) => break,
        }
    }
    assert!(c.buffered() <= (16usize << 10).max(2 * input.len()), "{} buffered for {}", c.buffered(), input.len());
}

/// RESP2 elements, well formed or nearly: a type byte, a number or a line, CRLF or not.
fn replies() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        (prop::sample::select(b"+-:$*?".to_vec()), -3i64..40, any::<bool>()).prop_map(|(t, n, crlf)| {
            let mut p = vec![t];
            p.extend_from_slice(n.to_string().as_bytes());
            p.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            p
        }),
        prop::collection::vec(any::<u8>(), 0..12),
        Just(b"*9999999999999\r\n".to_vec()),
        Just(b"$9223372036854775807\r\n".to_vec()),
    ];
    prop::collection::vec(piece, 0..20).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: fuzz_cases(500), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(input in prop::collection::vec(any::<u8>(), 0..600), n in 1usize..4) {
        survive(&input, n);
    }

    #[test]
    fn arbitrary_replies_never_panic(input in replies(), n in 1usize..4) {
        survive(&input, n);
    }
}

#[test]
fn lengths_are_bounded_before_anything_is_allocated() {
    for bad in [&b"$536870913\r\n"[..], b"*4294967297\r\n", b"$9223372036854775807\r\n"] {
        let mut c = Conn::replay(bad.to_vec());
        let e = c.call(b"", 1).expect_err("a length past the limit");
        assert!(e.to_string().contains("bad reply"), "{e}");
    }
    // A bulk string within the limit that never comes: the buffer grows with what arrives.
    let mut c = Conn::replay(b"$536870912\r\nabc".to_vec());
    assert!(c.call(b"", 1).is_err());
    assert_eq!(c.buffered(), 16 << 10);
}
