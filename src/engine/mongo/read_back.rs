//! What every instance reads back from its server, throwaway or not: the build, the
//! storage engine, the options it was started with, and the client's write concern.

use super::client::{MongoClient, WriteConcern};
use super::failure::Failure;
use super::reply::{get_str, number as get_number_of};
use super::url::Endpoint;
use crate::engine::kit::ReadBack;
use crate::error::Result;
use std::collections::BTreeMap;

/// Settings always recorded, read from `buildInfo`, `serverStatus`, `getCmdLineOpts`
/// and `getParameter`.
const RECORDED: &[&str] =
    &["version", "server_process", "storage_engine", "storage_persistent", "journalCommitInterval", "dbpath"];

/// What the server runs with, and the client's write concern; fail when one of
/// `expected` did not take.
pub fn read_back(
    c: &mut MongoClient,
    ep: &Endpoint,
    wc: WriteConcern,
    expected: &[(String, String)],
    profile: &str,
) -> Result<BTreeMap<String, String>> {
    let fail = |what: &str, e: Failure| failed!("mongo: {what}: {e}");
    let build = c.admin("buildInfo").map_err(|e| fail("buildInfo", e))?;
    let status = c.admin("serverStatus").map_err(|e| fail("serverStatus", e))?;
    // Someone else's server may refuse these to a user without clusterMonitor: recorded so.
    let opts = c.admin("getCmdLineOpts").ok();
    let params = c.command_doc("admin", &bson::doc! {"getParameter": "*"}).ok();
    let mut out = BTreeMap::new();
    out.insert("transport".to_string(), ep.transport());
    out.insert("tls".to_string(), c.tls().unwrap_or_else(|| "off".to_string()));
    out.insert("write_concern".to_string(), format!("{{w: 1, j: {}}}", wc.journal));
    let (build, status): (&bson::RawDocument, &bson::RawDocument) = (&build, &status);
    let argv: Vec<String> = opts
        .as_ref()
        .and_then(|o| o.get_array("argv").ok())
        .map(|a| a.into_iter().filter_map(|v| v.ok()?.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let rb = ReadBack { engine: "mongo", profile, recorded: RECORDED, expected };
    rb.read(&mut out, |key| {
        Ok(match key {
            "version" => get_str(build, "version").map(str::to_string),
            "server_process" => get_str(status, "process").map(str::to_string),
            "storage_engine" => {
                status.get_document("storageEngine").ok().and_then(|s| get_str(s, "name")).map(str::to_string)
            }
            "storage_persistent" => status
                .get_document("storageEngine")
                .ok()
                .and_then(|s| s.get_bool("persistent").ok())
                .map(|b| b.to_string()),
            "dbpath" => opts
                .as_ref()
                .and_then(|o| o.get_document("parsed").ok()?.get_document("storage").ok()?.get_str("dbPath").ok())
                .map(str::to_string),
            k if k.starts_with("--") => {
                // A mongod option: as the server received it on its command line.
                argv.iter().position(|a| a == k).and_then(|i| argv.get(i + 1)).cloned()
            }
            k => params.as_ref().and_then(|p| p.get(k).ok().flatten()).map(|v| match v {
                bson::RawBsonRef::String(s) => s.to_string(),
                v => get_number_of(v).map_or_else(|| format!("{v:?}"), |n| n.to_string()),
            }),
        })
    })?;
    rb.verify(&out, |_, want, have| match have {
        Some(h) if h == want || h.parse::<f64>().ok().zip(want.parse::<f64>().ok()).is_some_and(|(a, b)| a == b) => {
            None
        }
        h => Some((h.map_or("(not reported)".to_string(), |h| format!("'{h}'")), format!("'{want}'"))),
    })?;
    Ok(out)
}
