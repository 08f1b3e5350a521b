//! The SCRAM conversation of a login (`saslStart`, `saslContinue`) on a connection that
//! has shaken hands, and what it needs: a client nonce, and passwords kept out of messages.

use super::bson_out as out;
use super::client::MongoClient;
use super::failure::Failure;
use super::reply::get_number;
use super::scram::{self, Mechanism, Scram};
use bson::RawDocument;

/// A 24-byte random nonce, base64: SCRAM's client nonce.
fn nonce() -> String {
    use base64::Engine as _;
    let mut b = [0u8; 24];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| std::io::Read::read_exact(&mut f, &mut b));
    if read.is_err() {
        // Never predictable alone: the time and the pid mixed in as a fallback.
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        b[..16].copy_from_slice(&t.as_nanos().to_le_bytes());
        b[16..20].copy_from_slice(&std::process::id().to_le_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// The conversation id and payload of a SASL reply.
fn sasl_reply(r: &RawDocument) -> Result<(i32, Vec<u8>), Failure> {
    let id = get_number(r, "conversationId").unwrap_or(0) as i32;
    match r.get_binary("payload") {
        Ok(b) => Ok((id, b.bytes.to_vec())),
        Err(_) => Err(Failure::Io("a SASL reply without a payload".into())),
    }
}

impl MongoClient {
    /// SCRAM with `mech` as `user` of database `source`.
    pub(super) fn login(&mut self, user: &str, password: &str, source: &str, mech: Mechanism) -> Result<(), Failure> {
        let (mut s, first) = Scram::start(mech, user, scram::prepared_password(mech, user, password), &nonce());
        let r = self.run_in(source, |b| {
            out::i32(b, "saslStart", 1);
            out::str(b, "mechanism", mech.name());
            out::binary(b, "payload", first.as_bytes());
            out::bool(b, "autoAuthorize", true);
            let o = out::doc(b, "options");
            out::bool(b, "skipEmptyExchange", true);
            out::end(b, o);
        })?;
        let (conversation, payload) = sasl_reply(r)?;
        let fin = s.finish(&payload).map_err(Failure::Io)?;
        let r = self.run_in(source, |b| {
            out::i32(b, "saslContinue", 1);
            out::i32(b, "conversationId", conversation);
            out::binary(b, "payload", fin.as_bytes());
        })?;
        let done = r.get_bool("done").unwrap_or(false);
        let (_, payload) = sasl_reply(r)?;
        s.verify(&payload).map_err(Failure::Io)?;
        if !done {
            // Servers that ignore skipEmptyExchange want one empty message more.
            let r = self.run_in(source, |b| {
                out::i32(b, "saslContinue", 1);
                out::i32(b, "conversationId", conversation);
                out::binary(b, "payload", b"");
            })?;
            if !r.get_bool("done").unwrap_or(false) {
                return Err(Failure::Io("the server did not end the SCRAM conversation".into()));
            }
        }
        Ok(())
    }
}
