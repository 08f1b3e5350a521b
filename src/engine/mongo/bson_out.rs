//! BSON documents written straight into a buffer the caller reuses: a command is a few
//! elements of known types, so it is appended field by field and its lengths patched in
//! afterwards, with no document tree per request. Replies are read with the `bson` crate's
//! borrowed `RawDocument` instead.

/// Element types this client sends.
const DOUBLE: u8 = 0x01;
const STRING: u8 = 0x02;
const DOCUMENT: u8 = 0x03;
const ARRAY: u8 = 0x04;
const BINARY: u8 = 0x05;
const BOOL: u8 = 0x08;
const INT32: u8 = 0x10;
const INT64: u8 = 0x12;

/// A document or array being written: where its length goes.
#[derive(Clone, Copy, Debug)]
#[must_use = "a document must be ended"]
pub struct Open(usize);

/// Start a document at the end of `buf`.
pub fn begin(buf: &mut Vec<u8>) -> Open {
    let at = buf.len();
    buf.extend_from_slice(&[0; 4]);
    Open(at)
}

/// End the document started at `open`: its terminator and its length.
pub fn end(buf: &mut Vec<u8>, open: Open) {
    buf.push(0);
    let len = (buf.len() - open.0) as i32;
    buf[open.0..open.0 + 4].copy_from_slice(&len.to_le_bytes());
}

/// An element's type and name. Names are the client's own or checked for NUL bytes
/// where they come from the user, so a NUL here would be a bug of ours: it is dropped
/// rather than let it cut the name short.
fn head(buf: &mut Vec<u8>, kind: u8, name: &str) {
    buf.push(kind);
    buf.extend(name.bytes().filter(|&b| b != 0));
    buf.push(0);
}

/// A UTF-8 string element.
pub fn str(buf: &mut Vec<u8>, name: &str, v: &str) {
    head(buf, STRING, name);
    buf.extend_from_slice(&(v.len() as i32 + 1).to_le_bytes());
    buf.extend_from_slice(v.as_bytes());
    buf.push(0);
}

/// A 32-bit integer element.
pub fn i32(buf: &mut Vec<u8>, name: &str, v: i32) {
    head(buf, INT32, name);
    buf.extend_from_slice(&v.to_le_bytes());
}

/// A 64-bit integer element.
pub fn i64(buf: &mut Vec<u8>, name: &str, v: i64) {
    head(buf, INT64, name);
    buf.extend_from_slice(&v.to_le_bytes());
}

/// A double element.
pub fn f64(buf: &mut Vec<u8>, name: &str, v: f64) {
    head(buf, DOUBLE, name);
    buf.extend_from_slice(&v.to_le_bytes());
}

/// A boolean element.
pub fn bool(buf: &mut Vec<u8>, name: &str, v: bool) {
    head(buf, BOOL, name);
    buf.push(u8::from(v));
}

/// A generic binary element (SASL payloads).
pub fn binary(buf: &mut Vec<u8>, name: &str, v: &[u8]) {
    head(buf, BINARY, name);
    buf.extend_from_slice(&(v.len() as i32).to_le_bytes());
    buf.push(0);
    buf.extend_from_slice(v);
}

/// Start an embedded document element.
pub fn doc(buf: &mut Vec<u8>, name: &str) -> Open {
    head(buf, DOCUMENT, name);
    begin(buf)
}

/// Start an array element; its items are named by `index`.
pub fn array(buf: &mut Vec<u8>, name: &str) -> Open {
    head(buf, ARRAY, name);
    begin(buf)
}

/// The name of array item `i`, formatted on the stack.
pub struct Index {
    digits: [u8; 20],
    start: usize,
}

impl Index {
    /// The decimal name of item `i`.
    pub fn of(i: usize) -> Index {
        let mut digits = [0u8; 20];
        let mut text = itoa::Buffer::new();
        let d = text.format(i).as_bytes();
        let start = digits.len() - d.len();
        digits[start..].copy_from_slice(d);
        Index { digits, start }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.digits[self.start..]).expect("ASCII digits")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{RawDocument, doc as bdoc};

    #[test]
    fn documents_read_back_as_the_bson_crate_writes_them() {
        let mut buf = vec![9, 9];
        let top = begin(&mut buf);
        str(&mut buf, "insert", "c");
        i32(&mut buf, "n", -3);
        i64(&mut buf, "big", 1 << 40);
        f64(&mut buf, "x", 1.5);
        bool(&mut buf, "ordered", false);
        binary(&mut buf, "payload", b"n,,n=u");
        let arr = array(&mut buf, "documents");
        for i in 0..12 {
            let d = doc(&mut buf, Index::of(i).as_str());
            i64(&mut buf, "_id", i as i64);
            end(&mut buf, d);
        }
        end(&mut buf, arr);
        end(&mut buf, top);
        let got = bson::Document::try_from(RawDocument::from_bytes(&buf[2..]).unwrap()).unwrap();
        let docs: Vec<bson::Bson> = (0..12i64).map(|i| bson::Bson::Document(bdoc! {"_id": i})).collect();
        let want = bdoc! {
            "insert": "c", "n": -3i32, "big": 1i64 << 40, "x": 1.5, "ordered": false,
            "payload": bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: b"n,,n=u".to_vec() },
            "documents": docs,
        };
        assert_eq!(got, want);
    }

    #[test]
    fn indexes_and_names() {
        assert_eq!(Index::of(0).as_str(), "0");
        assert_eq!(Index::of(1234).as_str(), "1234");
        assert_eq!(Index::of(usize::MAX).as_str(), usize::MAX.to_string());
        let mut buf = Vec::new();
        let top = begin(&mut buf);
        str(&mut buf, "a\0b", "v");
        end(&mut buf, top);
        let d = RawDocument::from_bytes(&buf).unwrap();
        assert_eq!(d.get_str("ab").unwrap(), "v");
    }
}
