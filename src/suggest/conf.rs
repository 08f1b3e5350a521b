//! The lines of the engine's own configuration file, for a server started some other way.

use super::Suggestion;
use super::text::header;

/// The file's lines, after its header; where the data lives is said, not set: no setting
/// of the file makes a tmpfs.
pub fn render(s: &Suggestion) -> String {
    let conf = &s.contract.conf;
    let mut out = header(s, "#");
    out.push_str(&format!("# {}\n", conf.file));
    if let Some(dir) = s.tmpfs {
        out.push_str(&format!("# and the data directory ({dir} in the image) on a tmpfs\n"));
    }
    out.push_str(&(conf.render)(&s.settings));
    out
}
