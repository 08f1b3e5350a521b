//! One `docker run` line: the tmpfs, the image, the server's flags; a password is passed
//! by name from the caller's environment, never written out.

use super::Suggestion;
use super::text::header;

/// The line, after its header.
pub fn render(s: &Suggestion) -> String {
    format!("{}{}\n", header(s, "#"), line(s))
}

/// The words as one shell line, each quoted only where the shell would read it otherwise.
pub fn line(s: &Suggestion) -> String {
    // shell_words quotes every `=`, which the shell reads literally outside a command's
    // first word: `-c fsync=off` reads better than `-c 'fsync=off'`.
    let plain = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-./:=,@%+".contains(&b));
    let quoted: Vec<String> =
        words(s).iter().map(|w| if plain(w) { w.clone() } else { shell_words::quote(w).into_owned() }).collect();
    quoted.join(" ")
}

/// `docker run`'s words, unquoted.
pub fn words(s: &Suggestion) -> Vec<String> {
    let port = s.contract.port;
    let mut w: Vec<String> = ["docker", "run", "-d", "--rm", "--name"].map(String::from).into();
    w.push(s.service.clone());
    w.extend(["-p".to_string(), format!("{port}:{port}")]);
    if let Some(var) = s.contract.account.required_password() {
        w.extend(["-e".to_string(), var.to_string()]);
    }
    if let Some(dir) = s.tmpfs {
        w.extend(["--tmpfs".to_string(), format!("{dir}:rw")]);
    }
    w.push(s.image.clone());
    w.extend(s.args());
    w
}
