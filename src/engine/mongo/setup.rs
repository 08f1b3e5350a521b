//! `--setup` for mongo (exec, serve): a JSON array of command documents, run in order as
//! `db.runCommand` would, in the database handed to the command (`$db` names another).
//! Values may be MongoDB's extended JSON (`{"$oid": …}`, `{"$date": …}`,
//! `{"$numberLong": …}`). The file is read whole before any server starts, so a mistake in
//! it costs no server.

use super::client::MongoClient;
use bson::{Bson, Document};

/// One command of a setup file.
#[derive(Debug, PartialEq)]
pub struct Command {
    /// Its name: the document's first key.
    pub name: String,
    /// The database it runs in, when `$db` names one.
    pub db: Option<String>,
    /// The command document, `$db` taken out.
    pub body: Document,
}

/// The commands of a setup file's text, or why it is not one (in a few words, with an
/// example of what it should be).
pub fn parse(text: &str) -> Result<Vec<Command>, String> {
    const EXAMPLE: &str = r#"e.g. [{"create": "orders"}, {"insert": "orders", "documents": [{"_id": 1}]}]"#;
    let docs: Vec<Document> =
        serde_json::from_str(text).map_err(|e| format!("not a JSON array of command documents ({e}); {EXAMPLE}"))?;
    if docs.is_empty() {
        return Err(format!("an empty array: give the commands to run, {EXAMPLE}"));
    }
    let n = docs.len();
    docs.into_iter()
        .enumerate()
        .map(|(i, mut body)| {
            let which = format!("command {} of {n}", i + 1);
            let db = match body.remove("$db") {
                None => None,
                Some(Bson::String(s)) if !s.is_empty() && !s.contains(['/', '\\', '.', ' ', '"', '$', '\0']) => Some(s),
                Some(v) => return Err(format!("{which}: $db is {v}, not a database name")),
            };
            let name = match body.keys().next() {
                Some(k) if !k.starts_with('$') && !k.contains('\0') => k.clone(),
                Some(k) => return Err(format!("{which}: its first key '{k}' is not a command name; {EXAMPLE}")),
                None => return Err(format!("{which} is empty: a command's first key is its name; {EXAMPLE}")),
            };
            Ok(Command { name, db, body })
        })
        .collect()
}

impl MongoClient {
    /// Run a setup file's commands in order, stopping at the first that fails: which one,
    /// and the server's error.
    pub(super) fn run_setup(&mut self, text: &str) -> Result<(), String> {
        let commands = parse(text)?;
        let n = commands.len();
        for (i, c) in commands.iter().enumerate() {
            let db = c.db.clone().unwrap_or_else(|| self.db.clone());
            self.command_doc(&db, &c.body).map_err(|e| format!("command {} of {n} ({}) failed: {e}", i + 1, c.name))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_keep_their_order_and_take_extended_json() {
        let c = parse(
            r#"[{"insert": "orders", "documents": [{"_id": {"$oid": "65a1b2c3d4e5f60718293a4b"}, "n": {"$numberLong": "7"}}]},
                {"createUser": "app", "pwd": "x", "roles": [], "$db": "admin"}]"#,
        )
        .unwrap();
        assert_eq!(c.len(), 2);
        // The command name must stay first, whatever JSON's key order would sort to.
        assert_eq!(c[0].body.keys().collect::<Vec<_>>(), ["insert", "documents"]);
        assert_eq!((c[0].name.as_str(), c[0].db.as_deref()), ("insert", None));
        let doc = c[0].body.get_array("documents").unwrap()[0].as_document().unwrap();
        assert!(matches!(doc.get("_id"), Some(Bson::ObjectId(_))), "{doc}");
        assert_eq!(doc.get("n"), Some(&Bson::Int64(7)));
        assert_eq!((c[1].name.as_str(), c[1].db.as_deref()), ("createUser", Some("admin")));
        assert!(!c[1].body.contains_key("$db"));
    }

    #[test]
    fn mistakes_name_the_command_and_show_the_form() {
        let why = |t: &str| parse(t).unwrap_err();
        assert!(why(r#"{"create": "orders"}"#).starts_with("not a JSON array"), "{}", why(r#"{"create": 1}"#));
        assert!(why("[{\"create\": ").starts_with("not a JSON array"));
        assert!(why("[1]").starts_with("not a JSON array"));
        assert!(why("[]").starts_with("an empty array"));
        assert!(why(r#"[{"create": "a"}, {}]"#).starts_with("command 2 of 2 is empty"));
        assert!(why(r#"[{"$set": {"a": 1}}]"#).contains("first key '$set' is not a command name"));
        assert!(why(r#"[{"ping": 1, "$db": 3}]"#).contains("$db is 3, not a database name"));
        assert!(why(r#"[{"ping": 1, "$db": "a.b"}]"#).contains("not a database name"));
        for t in ["[1]", "[]", "[{}]"] {
            assert!(why(t).contains(r#"[{"create": "orders"}"#), "{t}: {}", why(t));
        }
    }
}
