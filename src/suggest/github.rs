//! A GitHub Actions job. A service container (`services:`) takes `options:` such as
//! `--tmpfs` but no command, so the profile's settings could not reach its server: the
//! job starts the server in a step with the `docker run` line instead, and waits for it.

use super::Suggestion;
use super::docker_run;
use super::text::{header, quoted};

/// The job, after its header and the reason it uses a step.
pub fn render(s: &Suggestion) -> String {
    let mut out = header(s, "#");
    out.push_str(&why_a_step(s));
    out.push_str("jobs:\n  test:\n    runs-on: ubuntu-latest\n");
    if let Some(var) = s.contract.account.required_password() {
        out.push_str(&format!("    env:\n      {var}: ${{{{ secrets.{var} }}}}\n"));
    }
    out.push_str("    steps:\n");
    let start = docker_run::line(s);
    out.push_str(&step(&format!("Start {} ({})", s.engine, s.profile), &start));
    let (_, line) = s.contract.ready;
    let wait = format!(
        "timeout 120 sh -c 'until docker logs {} 2>&1 | grep -qF {}; do sleep 1; done'",
        s.service,
        quoted(line)
    );
    out.push_str(&step(&format!("Wait for {}", s.engine), &wait));
    out
}

/// One step running `command`.
fn step(name: &str, command: &str) -> String {
    format!("      - name: {}\n        run: {}\n", quoted(name), quoted(command))
}

/// Why the server starts in a step, and the `services:` form that would give its data
/// location alone.
fn why_a_step(s: &Suggestion) -> String {
    let mut out = String::from(
        "# A GitHub service container takes no command, so these settings cannot be given to one:\n\
         # the server starts in a step instead. A services: block gives the image and the data's place only:\n",
    );
    out.push_str(&format!("#   services:\n#     {}:\n#       image: {}\n", s.service, s.image));
    out.push_str(&format!("#       ports: [\"{0}:{0}\"]\n", s.contract.port));
    if let Some(dir) = s.tmpfs {
        out.push_str(&format!("#       options: --tmpfs {dir}:rw\n"));
    }
    out.push_str("# and the settings would then be applied after it starts (ALTER SYSTEM, SET GLOBAL, CONFIG SET).\n");
    out
}
