//! Cursors: a `find`'s first batch, then `getMore` until the server closes the cursor or
//! enough documents were read (then `killCursors`), each document read as a driver decodes
//! it, or flattened into the dotted paths of its counters.

use super::bson_out as out;
use super::client::MongoClient;
use super::failure::Failure;
use super::reply::{get_array, get_doc, get_number, number};
use crate::engine::DocField;
use bson::{RawBsonRef, RawDocument};

impl MongoClient {
    /// Walk a cursor reply (`cursor.firstBatch` or `.nextBatch`), handing `doc` each
    /// document, then `getMore` until the server closes the cursor or `limit` documents
    /// were read (then `killCursors`); the number read.
    pub(super) fn walk(
        &mut self,
        coll: &str,
        first: impl FnOnce(&mut Vec<u8>),
        limit: u64,
        doc: &mut dyn FnMut(&RawDocument, &mut String) -> Result<(), Failure>,
    ) -> Result<u64, Failure> {
        let mut path = std::mem::take(&mut self.path);
        let r = (|| {
            let mut n = 0u64;
            let mut batch = "firstBatch";
            let mut id = {
                let r = self.run(first)?;
                walk_batch(r, batch, limit, &mut n, &mut path, doc)?
            };
            batch = "nextBatch";
            while id != 0 && n < limit {
                let r = self.run(|b| {
                    out::i64(b, "getMore", id);
                    out::str(b, "collection", coll);
                })?;
                id = walk_batch(r, batch, limit, &mut n, &mut path, doc)?;
            }
            if id != 0 {
                self.run(|b| {
                    out::str(b, "killCursors", coll);
                    let a = out::array(b, "cursors");
                    out::i64(b, "0", id);
                    out::end(b, a);
                })?;
            }
            Ok(n)
        })();
        self.path = path;
        r
    }
}

/// Hand each document of one cursor batch to `doc` (up to `limit` in all); the cursor's id.
fn walk_batch(
    r: &RawDocument,
    batch: &str,
    limit: u64,
    n: &mut u64,
    path: &mut String,
    doc: &mut dyn FnMut(&RawDocument, &mut String) -> Result<(), Failure>,
) -> Result<i64, Failure> {
    let bad = |why: &str| Failure::Io(format!("bad cursor reply: {why}"));
    let cursor = get_doc(r, "cursor").ok_or_else(|| bad("no cursor"))?;
    let id = get_number(cursor, "id").ok_or_else(|| bad("no cursor id"))?;
    let docs = get_array(cursor, batch).ok_or_else(|| bad(batch))?;
    for d in docs {
        match d.map_err(|e| bad(&e.to_string()))? {
            RawBsonRef::Document(d) if *n < limit => {
                doc(d, path)?;
                *n += 1;
            }
            RawBsonRef::Document(_) => {}
            _ => return Err(bad("a batch item that is not a document")),
        }
    }
    Ok(id)
}

/// Nested documents are walked this deep at most (counters nest one level).
const MAX_DEPTH: usize = 8;

/// Every element of `d`, read (a document is read whole, as a driver decodes it); the
/// number of elements.
pub(super) fn read_whole(d: &RawDocument) -> Result<usize, Failure> {
    let mut n = 0;
    for e in d {
        e.map_err(|e| Failure::Io(format!("bad document: {e}")))?;
        n += 1;
    }
    Ok(n)
}

/// Hand `field` each integer of `d` under its dotted path (`duration.sum` for
/// `{duration: {sum: …}}`), `_id` aside; `path` is the prefix so far.
pub(super) fn flatten(
    d: &RawDocument,
    id: &str,
    path: &mut String,
    depth: usize,
    field: &mut DocField,
) -> Result<(), Failure> {
    if depth > MAX_DEPTH {
        return Err(Failure::Io("documents nested too deep".into()));
    }
    for e in d {
        let (k, v) = e.map_err(|e| Failure::Io(format!("bad document: {e}")))?;
        if depth == 0 && k == "_id" {
            continue;
        }
        let len = path.len();
        if depth > 0 {
            path.push('.');
        }
        path.push_str(k);
        match v {
            RawBsonRef::Document(inner) => flatten(inner, id, path, depth + 1, field)?,
            v => field(id, path, number(v).unwrap_or(i64::MIN)),
        }
        path.truncate(len);
    }
    Ok(())
}

/// A document's `_id` as text (this client's collections key by text or integers).
pub(super) fn id_text<'a>(d: &'a RawDocument, digits: &'a mut [u8; 24]) -> &'a str {
    match d.get("_id").ok().flatten() {
        Some(RawBsonRef::String(s)) => s,
        Some(v) => match number(v) {
            Some(i) => {
                use std::io::Write;
                let mut c = std::io::Cursor::new(&mut digits[..]);
                let _ = write!(c, "{i}");
                let l = c.position() as usize;
                std::str::from_utf8(&digits[..l]).unwrap_or("")
            }
            None => "",
        },
        None => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn raw(d: bson::Document) -> Vec<u8> {
        bson::to_vec(&d).unwrap()
    }

    #[test]
    fn cursor_batches_stop_at_the_limit_and_refuse_junk() {
        let r = raw(
            doc! {"ok": 1, "cursor": {"id": 7i64, "ns": "d.c", "firstBatch": [{"_id": "a"}, {"_id": "b"}, {"_id": "c"}]}},
        );
        let (mut n, mut path) = (0, String::new());
        let mut seen = Vec::new();
        let id = walk_batch(RawDocument::from_bytes(&r).unwrap(), "firstBatch", 2, &mut n, &mut path, &mut |d, _| {
            seen.push(d.get_str("_id").unwrap().to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!((id, n, seen), (7, 2, vec!["a".to_string(), "b".to_string()]));
        for bad in [
            doc! {"ok": 1},
            doc! {"ok": 1, "cursor": {"id": 0}},
            doc! {"ok": 1, "cursor": {"id": 0, "firstBatch": [1]}},
        ] {
            let r = raw(bad);
            let got = walk_batch(
                RawDocument::from_bytes(&r).unwrap(),
                "firstBatch",
                9,
                &mut 0,
                &mut path,
                &mut |_, _| Ok(()),
            );
            assert!(got.is_err());
        }
    }

    #[test]
    fn nested_counters_flatten_to_paths() {
        let r = raw(doc! {"_id": "m::1h::5", "count": 2i64, "duration": {"sum": 4, "max": 6.0}, "note": "x"});
        let d = RawDocument::from_bytes(&r).unwrap();
        let mut got = Vec::new();
        let mut path = String::new();
        let mut digits = [0u8; 24];
        let id = id_text(d, &mut digits).to_string();
        flatten(d, &id, &mut path, 0, &mut |i, p, v| got.push((i.to_string(), p.to_string(), v))).unwrap();
        let want = [("count", 2), ("duration.sum", 4), ("duration.max", 6), ("note", i64::MIN)];
        assert_eq!(got, want.map(|(p, v)| ("m::1h::5".to_string(), p.to_string(), v)));
        let r = raw(doc! {"_id": 42i64});
        assert_eq!(id_text(RawDocument::from_bytes(&r).unwrap(), &mut digits), "42");
    }
}
