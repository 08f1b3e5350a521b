//! A described server run as a container of its image: its directories mounted where the
//! image expects them (`Layout`), its files bind-mounted, its data from a template the
//! image's own init made once or from that init in every container (`--docker-init`), its
//! socket in a 0700 directory of the instance (no network) or TCP on 127.0.0.1 of the
//! host, ready when the engine says the real server answers.

use super::layout::{Facts, Layout, ids, noted};
use super::{Docker, Image, image};
use crate::error::Result;
use crate::instance::datadir::private_dir;
use crate::instance::user::RunAs;
use crate::launcher::container::{Init, Network, TcpPath};
use crate::launcher::described::Described;
use crate::launcher::{Container, Listen, Mount, Place, Recipe, Step, start, template};
use crate::launcher::{Dirs, How, Started, StartedBy};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Bumped when what a container template holds changes, so old ones are not reused.
const TEMPLATE_VERSION: u32 = 1;

/// An image contract's variables.
type Env = Vec<(String, String)>;

/// Where the socket directory is mounted in a container.
const SOCKET_DIR: &str = "/run/dbrace";

/// Start `d`'s server as a container of its image on `dirs`, as `listen` and `how` say.
pub fn launch<D: Described>(
    d: &D,
    how: &How,
    user: Option<&RunAs>,
    dirs: Dirs,
    listen: Listen,
) -> Result<StartedBy<D>> {
    let spec = d.spec();
    if let Some(why) = &spec.image.refuses {
        return Err(bad_input!("{why}"));
    }
    let image = image(spec.engine, &spec.image.image)?;
    let network = networked(dirs, user, listen, how.network)?;
    let given = how.env.get(spec.engine).map_or(&[][..], Vec::as_slice);
    let template = match (how.init, &spec.image.template) {
        (Init::Template, Some(_)) => Some(template_of(d, &image, user, (how.network, given))?),
        _ => None,
    };
    let mut layout = match spec.image.template {
        Some(_) => Layout::new(how.disk, &image, user, template.as_deref()),
        None => Layout::without_init(how.disk, &image, user),
    };
    let mut mounts = Vec::new();
    for dir in &spec.dirs {
        mounts.push(layout.mount(dir.location, dirs.of(dir), dir.name, dir.target)?);
    }
    let facts: Facts = layout.facts(&mounts);
    let instance = dirs.data.path();
    mounts.extend(spec.files.iter().map(|f| Mount::Bind { source: instance.join(f.name), target: f.target.clone() }));
    let (password, mut env) = login(d, template.as_deref())?;
    env.extend(given.iter().cloned());
    let resources = how.resources.get(spec.engine).cloned().unwrap_or_default();
    let on = Container { image: image.name.clone(), env, args: Vec::new(), mounts, network, resources };
    let (started, port) = serve(d, &on, instance, user, listen, password)?;
    let socket = (spec.socket_file)(port);
    let mut noted = noted(&image, facts, &on.network, &socket);
    if !on.resources.is_empty() {
        noted.insert("container_resources".to_string(), on.resources.join(" "));
    }
    Ok(Started { noted, ..started })
}

/// Network the container as `listen` says: for the socket, no network and a fresh 0700
/// directory of the instance, owned by `user`, for the server's socket; for TCP, as `tcp`
/// says.
fn networked(dirs: Dirs, user: Option<&RunAs>, listen: Listen, tcp: TcpPath) -> Result<Network> {
    Ok(match listen {
        Listen::Socket => {
            Network::None { dir: private_dir(&dirs.data.path().join("sock"), user)?, target: SOCKET_DIR.into() }
        }
        Listen::Tcp(_) => {
            if tcp == TcpPath::Publish {
                super::bridge()?;
            }
            Network::tcp(tcp)
        }
    })
}

/// The contract's variables a container starts with, and the superuser's password its
/// server has: from a template, none (its init ran once) and the template's secret; fresh,
/// a new random password and the variables that give it, for the image's init to set.
fn login<D: Described>(d: &D, template: Option<&Path>) -> Result<(Option<String>, Env)> {
    if d.spec().image.template.is_none() {
        return Ok((None, Vec::new()));
    }
    match template {
        Some(t) => Ok((Some(template::secret(t)?), Vec::new())),
        None => {
            let password = crate::instance::server::random_password()?;
            let env = d.init_env(&password);
            Ok((Some(password), env))
        }
    }
}

/// Run container `on` (its image, variables and mounts) until the real server is ready,
/// its log in `dir`, networked as `on` says; its arguments are the description's at each
/// port tried. Also returns the port the server was told.
fn serve<D: Described>(
    d: &D,
    on: &Container,
    dir: &Path,
    user: Option<&RunAs>,
    listen: Listen,
    password: Option<String>,
) -> Result<(StartedBy<D>, u16)> {
    let spec = d.spec();
    let _turn = init_turn(spec.image.init_port, &on.network, &on.env)?;
    let started = start::listening(
        &Docker,
        listen,
        spec.within * 2,
        |tcp| {
            let port = port(spec, tcp)?;
            let place = place(d, on, (dir, user), tcp.is_some(), port, password.clone());
            let container = Container { args: d.args(&place)?, network: on.network.on(port), ..on.clone() };
            let recipe = Recipe {
                server: Step::new(spec.image.program, user),
                dir: dir.to_path_buf(),
                stop_signal: spec.image.stop_signal,
                death_signal: spec.death_signal,
                container: Some(container),
            };
            Ok((recipe, (d.login(&place), place)))
        },
        |(login, place)| d.ready(login, place),
        |server, e| listen.taken(&server.log(), d.failed(&server.log_tail(), e)),
    )?;
    let ((login, place), server, ready) = (started.probe, started.server, started.ready);
    let port = place.tcp.then_some(place.port);
    Ok((Started { server, login, ready, port, version: None, noted: Default::default() }, place.port))
}

/// The port a start tells the server: TCP's, else the engine's, else a free one; never
/// the one the image's init runs its temporary server on.
fn port(spec: &crate::launcher::Spec, tcp: Option<u16>) -> Result<u16> {
    let port = match tcp.or(spec.port) {
        Some(p) => p,
        None => crate::instance::server::free_port()?,
    };
    if spec.image.init_port == Some(port) {
        return Err(bad_input!(
            "port {port} is where the {} image's init runs its temporary server; choose another --port",
            spec.engine
        ));
    }
    Ok(port)
}

/// Where the server is in container `on`, its log in `dir`, run as `user`, as it and the
/// host see it.
fn place<D: Described>(
    d: &D,
    on: &Container,
    (dir, user): (&Path, Option<&RunAs>),
    tcp: bool,
    port: u16,
    password: Option<String>,
) -> Place {
    let spec = d.spec();
    let (socket_dir, client_socket_dir) = match &on.network {
        Network::None { dir, target } => (Some(PathBuf::from(target)), Some(dir.clone())),
        Network::Host | Network::Publish(_) => (None, None),
    };
    Place {
        dirs: spec.dirs.iter().map(|d| PathBuf::from(d.target)).collect(),
        files: spec.files.iter().map(|f| PathBuf::from(&f.target)).collect(),
        host: dir.to_path_buf(),
        socket_dir,
        client_socket_dir,
        port,
        tcp,
        binds: on.network.binds(),
        networked: true,
        password,
        user: user.cloned(),
    }
}

/// The initialized template of `d`'s containers of `image` run as `user`: made once by a
/// container of the image on empty directories, stopped cleanly once it serves. Named by
/// the image's id and what the description says it is made with, so a new image or
/// option or variable given (`--compose`'s environment) makes a new one.
///
/// The superuser's password that init set is kept in the template's 0600 file, not
/// changed per server before it is used: a server must be logged into with it before it
/// could be changed, so it is stored either way, and the file is as private as the
/// template's data files beside it (whoever could read it could copy those).
fn template_of<D: Described>(
    d: &D,
    image: &Image,
    user: Option<&RunAs>,
    (tcp, given): (TcpPath, &[(String, String)]),
) -> Result<PathBuf> {
    let spec = d.spec();
    let Some((options, done)) = &spec.image.template else { return Err(failed!("{}: no template", spec.engine)) };
    let id = image.id.trim_start_matches("sha256:");
    let id = &id[..id.len().min(16)];
    let (uid, gid) = ids(user);
    let options: String =
        options.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    let dash = if options.is_empty() { "" } else { "-" };
    let env = if given.is_empty() { String::new() } else { format!("-env{:016x}", hash(given)) };
    let name = format!("docker-{}-{id}-{uid}.{gid}-v{TEMPLATE_VERSION}{dash}{options}{env}", spec.engine);
    template::cached(name.clone(), || {
        template::made(&name, done, |tmp| {
            let mut mounts = Vec::new();
            for dir in &spec.dirs {
                mounts.push(Mount::Bind { source: private_dir(&tmp.join(dir.name), user)?, target: dir.target.into() });
            }
            let password = template::new_secret(tmp)?;
            let mut env = d.init_env(&password);
            env.extend(given.iter().cloned());
            let on = Container {
                image: image.name.clone(),
                env,
                args: Vec::new(),
                mounts,
                network: Network::tcp(tcp),
                resources: Vec::new(),
            };
            let (started, _) = serve(d, &on, tmp, user, Listen::Tcp(None), Some(password))?;
            started.server.stop(spec.image.stop_signal, Duration::from_secs(60))
        })
    })
}

/// A stable hash of variables (FNV-1a), naming the template they made.
fn hash(vars: &[(String, String)]) -> u64 {
    let bytes = vars.iter().flat_map(|(k, v)| k.bytes().chain([0]).chain(v.bytes()).chain([0]));
    bytes.fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Under host networking an image whose init runs a temporary server on a fixed port of
/// the host (mongo's, on 27017): one init at a time among dbrace's processes (two would
/// share one temporary server, and the second's init fail), held until the real server is
/// ready, and none while anything else listens there (it would be sent the init's
/// superuser). Nothing to wait for without an init (a template) or off the host's network.
fn init_turn(init_port: Option<u16>, network: &Network, env: &[(String, String)]) -> Result<Option<std::fs::File>> {
    let Some(port) = init_port else { return Ok(None) };
    if *network != Network::Host || env.is_empty() {
        return Ok(None);
    }
    let path = crate::instance::location::shared_dir()?.join(format!("init-{port}.lock"));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| failed!("cannot open {}: {e}", path.display()))?;
    let deadline = std::time::Instant::now() + Duration::from_secs(300);
    while file.try_lock().is_err() {
        crate::signals::check()?;
        if std::time::Instant::now() > deadline {
            return Err(failed!("another dbrace's image init held {} for 300 s", path.display()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if let Err(e) = std::net::TcpListener::bind(("127.0.0.1", port)) {
        return Err(bad_input!(
            "127.0.0.1:{port} is taken ({e}), and under host networking the image's init runs its temporary server there, where it would create its superuser on whatever listens; stop that server, or start from a template (--docker-init template, once made) or on the socket (--transport socket)"
        ));
    }
    Ok(Some(file))
}
