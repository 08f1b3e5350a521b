//! A described server run from the machine's own binaries: a copy of the template its init
//! made once (what the profile keeps apart moved out of it), its socket in a 0700
//! directory of the instance, TCP on 127.0.0.1 when asked, ready when the engine says.

use super::Native as Launcher;
use crate::error::Result;

use crate::instance::datadir::{copy_tree, private_dir};
use crate::instance::user::RunAs;
use crate::launcher::described::{Described, Native, Spec};
use crate::launcher::{Dirs, Started, StartedBy};
use crate::launcher::{Listen, Place, Recipe, Step, start, template};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Start `d`'s server from the machine's binaries on `dirs`, as `listen` says.
pub fn launch<D: Described>(d: &D, user: Option<&RunAs>, dirs: Dirs, listen: Listen) -> Result<StartedBy<D>> {
    let (spec, native) = (d.spec(), d.native()?);
    let host = laid_out(spec, &native, user, dirs)?;
    let sock = private_dir(&dirs.data.path().join("sock"), user)?;
    let instance = dirs.data.path().to_path_buf();
    let files: Vec<PathBuf> = spec.files.iter().map(|f| instance.join(f.name)).collect();
    let started = start::listening(
        &Launcher,
        listen,
        spec.within,
        |tcp| {
            let port = match tcp.or(spec.port) {
                Some(p) => p,
                None => crate::instance::server::free_port()?,
            };
            let place = Place {
                dirs: host.clone(),
                files: files.clone(),
                host: instance.clone(),
                socket_dir: Some(sock.clone()),
                client_socket_dir: Some(sock.clone()),
                port,
                tcp: tcp.is_some(),
                binds: crate::instance::server::loopbacks(),
                networked: tcp.is_some(),
                password: None,
                user: user.cloned(),
            };
            let mut server = Step::new(&native.program, user);
            server.args(d.native_args(&place)?).args(d.args(&place)?);
            let recipe = Recipe {
                server,
                dir: instance.clone(),
                stop_signal: spec.stop_signal,
                death_signal: spec.death_signal,
                container: None,
            };
            Ok((recipe, (d.login(&place), place)))
        },
        |(login, place)| d.ready(login, place),
        |server, e| listen.taken(&server.log(), d.failed(&server.log(), e)),
    )?;
    let noted: BTreeMap<String, String> = d.noted_natively(&native, &host).into_iter().collect();
    let (login, _) = started.probe;
    let (server, ready, port) = (started.server, started.ready, started.port);
    Ok(Started { server, login, ready, port, version: Some(native.version), noted })
}

/// The data's directories on the host: the template copied into the first, the parts a
/// profile keeps apart moved to theirs; without a template, empty 0700 directories.
fn laid_out(spec: &Spec, native: &Native, user: Option<&RunAs>, dirs: Dirs) -> Result<Vec<PathBuf>> {
    let host: Vec<PathBuf> = spec.dirs.iter().map(|dir| dirs.of(dir).path().join(dir.name)).collect();
    let Some(t) = &native.template else {
        host.iter().try_for_each(|p| private_dir(p, user).map(drop))?;
        return Ok(host);
    };
    let key = format!("{} {} {}", spec.engine, native.program.display(), user.map_or(0, |u| u.uid));
    let made = template::cached(format!("{key} {}", t.name), || {
        template::install(&t.name, t.done, user, |tmp| super::init(&(t.init)(tmp, user)), |out| (t.failed)(out))
    })?;
    copy_tree(&made, &host[0])?;
    for (dir, to) in spec.dirs.iter().zip(&host).skip(1) {
        if let Some(m) = dir.moved {
            private_dir(to, user)?;
            moved(&host[0].join(m.from), &to.join(file_name(m.from)), m.link, user)?;
        }
    }
    Ok(host)
}

/// Move `from` to `to` (copied, owners kept, then removed), leaving a link when `link`.
fn moved(from: &Path, to: &Path, link: bool, user: Option<&RunAs>) -> Result<()> {
    copy_tree(from, to)?;
    let removed = if from.is_dir() { std::fs::remove_dir_all(from) } else { std::fs::remove_file(from) };
    removed.map_err(|e| failed!("cannot move {} to {}: {e}", from.display(), to.display()))?;
    if link {
        crate::platform::files::symlink(to, from)
            .map_err(|e| failed!("cannot link {} to {}: {e}", from.display(), to.display()))?;
        if let Some(u) = user {
            let _ = crate::platform::files::lchown(from, u.uid, u.gid);
        }
    }
    Ok(())
}

/// The last part of a path inside the data directory.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
