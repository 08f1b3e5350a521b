//! Fields of a reply read where they lie. (The `bson` crate's own `get_str` and kin build
//! an error, with the key copied into it, for every miss: these only look, so a reply
//! read on the hot path allocates nothing.)

use bson::{RawBsonRef, RawDocument};

/// The integer an `ok`, `n` or count field holds, whatever numeric type the server chose.
pub fn number(v: RawBsonRef) -> Option<i64> {
    match v {
        RawBsonRef::Int32(i) => Some(i.into()),
        RawBsonRef::Int64(i) => Some(i),
        RawBsonRef::Double(d) if d.fract() == 0.0 && d.abs() < 9.2e18 => Some(d as i64),
        RawBsonRef::Boolean(b) => Some(b.into()),
        _ => None,
    }
}

/// `doc[key]` as an integer.
pub fn get_number(doc: &RawDocument, key: &str) -> Option<i64> {
    doc.get(key).ok().flatten().and_then(number)
}

/// `doc[key]` as text.
pub fn get_str<'a>(doc: &'a RawDocument, key: &str) -> Option<&'a str> {
    match doc.get(key).ok().flatten() {
        Some(RawBsonRef::String(s)) => Some(s),
        _ => None,
    }
}

/// `doc[key]` as a document.
pub fn get_doc<'a>(doc: &'a RawDocument, key: &str) -> Option<&'a RawDocument> {
    match doc.get(key).ok().flatten() {
        Some(RawBsonRef::Document(d)) => Some(d),
        _ => None,
    }
}

/// `doc[key]` as an array.
pub fn get_array<'a>(doc: &'a RawDocument, key: &str) -> Option<&'a bson::RawArray> {
    match doc.get(key).ok().flatten() {
        Some(RawBsonRef::Array(a)) => Some(a),
        _ => None,
    }
}
