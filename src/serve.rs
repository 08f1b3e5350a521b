//! `dbrace serve`: one tuned throwaway server to develop or test against, handed out as
//! environment variables on stdout (the one place a password is printed: handing it out
//! is the point), kept in the foreground until Ctrl-C or SIGTERM, then stopped and removed.

use crate::cli::{ServeArgs, ServeFormat};
use crate::error::Result;
use crate::instance::Locations;
use crate::runner::progress::Progress;
use crate::session::{Session, Spec};
use crate::startup::{launched, machine, reap_containers, reap_locations};
use crate::{exec, signals};
use std::io::Write;
use std::time::Duration;

/// Run `dbrace serve`; the exit code.
pub fn run(a: ServeArgs) -> Result<i32> {
    signals::install();
    let machine = launched(machine(&a.locations), &a.launcher);
    let names = std::slice::from_ref(&a.profile);
    let served = exec::serving(a.engine.as_deref(), names, &a.launcher, &a.access, &a.compose, machine)?;
    let (setup, notes) = (served.setup(a.setup.as_deref())?, served.notes());
    let exec::Served { engine, mut profiles, access, machine, .. } = served;
    let profile = profiles.remove(0);
    for n in &notes {
        eprintln!("dbrace: compose: {n}");
    }
    if let Some(port) = access.port {
        crate::instance::server::check_port(port)?;
    }
    let ram = profile.on_ram().then_some(crate::instance::datadir::RAM_DISK_BYTES);
    let locations = Locations::resolve(a.locations.disk_dir.as_deref(), a.locations.ram_dir.as_deref(), false, ram)?;
    reap_locations(&locations, Progress { enabled: true });
    reap_containers(&machine, Progress { enabled: true });
    let spec = Spec {
        engine,
        profile: &profile,
        target: &crate::engine::Target::Managed,
        access: &access,
        setup: setup.as_ref(),
        locations: &locations,
        machine: &machine,
    };
    let session = Session::start(&spec)?;
    let text = match a.format {
        ServeFormat::Env => env_lines(session.env()),
        ServeFormat::Json => json(&session, engine.name(), &profile.name)?,
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| failed!("cannot print: {e}"))?;
    drop(out);
    close_stdout();
    let dir = session.data_dir().map_or(String::new(), |d| d.display().to_string());
    let setup_note =
        setup.as_ref().map_or(String::new(), |s| format!(", {} applied in {:.3} s", s.path.display(), session.setup_s));
    eprintln!(
        "dbrace: {} {} ({}) ready in {:.3} s{setup_note} at {}; data in {dir}. Ctrl-C or SIGTERM stops it and removes everything.",
        engine.name(),
        session.version(),
        profile.name,
        session.ready_s,
        session.redacted()
    );
    let outcome = loop {
        if signals::pending().is_some() {
            break Ok(0);
        }
        if let Err(e) = session.alive() {
            break Err(e);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(session);
    eprintln!("dbrace: server stopped; {dir} removed");
    outcome
}

/// `export NAME='value'` lines, quoted for any POSIX shell.
fn env_lines(env: &[(String, String)]) -> String {
    env.iter().map(|(k, v)| format!("export {k}={}\n", shell_words::quote(v))).collect()
}

fn json(s: &Session, engine: &str, profile: &str) -> Result<String> {
    let env: serde_json::Map<String, serde_json::Value> =
        s.env().iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect();
    let v = serde_json::json!({
        "engine": engine,
        "profile": profile,
        "version": s.version(),
        "url": s.url(),
        "env": env,
        "ready_s": s.ready_s,
        "data_dir": s.data_dir(),
        "pid": std::process::id(),
    });
    Ok(serde_json::to_string(&v).map_err(|e| failed!("cannot encode: {e}"))? + "\n")
}

/// Point stdout at /dev/null once the connection is printed, so that a reader of a pipe
/// (`dbrace serve … | tee db.env`) sees its end while the server stays up.
fn close_stdout() {
    crate::platform::process::stdout_to_null();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_lines_are_quoted_for_a_shell() {
        let env = vec![("A".to_string(), "x y'z".to_string()), ("B".to_string(), "plain".to_string())];
        assert_eq!(env_lines(&env), "export A='x y'\\''z'\nexport B=plain\n");
    }
}
