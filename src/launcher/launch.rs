//! The launcher `--launcher` chose, resolved once into a `How` that launches a described
//! server, checks it can, reports its version and reaps what killed runs left: the one
//! place that branches on the launcher, so nothing else does.

use super::{Described, Dirs, How, Kind, Listen, StartedBy};
use crate::error::Result;

impl How {
    /// Launch the server `d` describes on `dirs`, listening as `listen` says.
    pub fn launch<D: Described>(&self, d: &D, dirs: Dirs, listen: Listen) -> Result<StartedBy<D>> {
        let how = self;
        managed_here(d.spec().engine)?;
        let user = d.spec().user.for_launch(how.run_as.as_deref())?;
        dirs.all().iter().try_for_each(|dir| user.as_ref().map_or(Ok(()), |u| dir.give_to(u)))?;
        match how.kind {
            Kind::Native => super::native::launch(d, user.as_ref(), dirs, listen),
            Kind::Docker => super::docker::launch(d, how, user.as_ref(), dirs, listen),
        }
    }

    /// Whether `d`'s server can start here: its binaries, or its image; then the user it runs
    /// as.
    pub fn launchable<D: Described>(&self, d: &D) -> Result<()> {
        let how = self;
        let spec = d.spec();
        managed_here(spec.engine)?;
        match how.kind {
            Kind::Native => d.native().map(drop)?,
            Kind::Docker => match &spec.image.refuses {
                Some(why) => return Err(bad_input!("{why}")),
                None => super::docker::image(spec.engine, &spec.image.image).map(drop)?,
            },
        }
        spec.user.resolve(how.run_as.as_deref()).map(drop)
    }

    /// What `dbrace engines` says of the server it would run: the binaries' version, where
    /// they are and whom they run as, or the image.
    pub fn version<D: Described>(&self, d: &D) -> Result<String> {
        let how = self;
        let spec = d.spec();
        match how.kind {
            Kind::Native => {
                let n = d.native()?;
                let who = spec.user.described(how.run_as.as_deref())?;
                Ok(format!("{} ({}{who})", n.version, n.shown.display()))
            }
            Kind::Docker => {
                let image = super::docker::image(spec.engine, &spec.image.image)?;
                Ok(format!("image {} ({})", image.name, image.id))
            }
        }
    }
}

/// Whether this platform runs managed servers; the way to a server when it does not.
fn managed_here(engine: &str) -> Result<()> {
    match crate::platform::process::NO_MANAGED_SERVERS {
        Some(why) => Err(bad_input!("{engine}: {why}")),
        None => Ok(()),
    }
}
