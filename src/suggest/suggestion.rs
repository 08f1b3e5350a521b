//! What every output of `dbrace suggest` is made from: an engine's image with a profile's
//! server settings and data location, and what a commit acknowledged there survives, by
//! the engine's own rule.

use crate::engine::Engine;
use crate::engine::image::Image;
use crate::error::Result;
use crate::profile::{LocationKind, Profile};
use crate::results::Survives;
use std::collections::BTreeMap;

/// A profile of an engine, as the user's own tools would start its image.
#[derive(Debug)]
pub struct Suggestion {
    /// The engine's name.
    pub engine: &'static str,
    /// The profile's name.
    pub profile: String,
    /// The Compose service (and container) name.
    pub service: String,
    /// The image, with its tag.
    pub image: String,
    /// The image's terms: port, data directory, flags, configuration file.
    pub contract: &'static Image,
    /// The data directory to put on a tmpfs, for a ram profile.
    pub tmpfs: Option<&'static str>,
    /// The server settings: the user's service's own kept, then the profile's.
    pub settings: Vec<(String, String)>,
    /// What an acknowledged commit survives with those settings.
    pub survives: Survives,
}

impl Suggestion {
    /// `profile` on `engine`'s `image` for the service `service`, keeping `kept` settings
    /// of the service's own command; refused (exit 2) when settings and a tmpfs cannot give it.
    pub fn new(
        engine: &'static dyn Engine,
        profile: &str,
        image: String,
        service: String,
        kept: Vec<(String, String)>,
    ) -> Result<Suggestion> {
        let contract =
            engine.facts().image.ok_or_else(|| bad_input!("{} runs no container to configure", engine.name()))?;
        let profile = Profile::named(profile)?;
        if profile.tls {
            return Err(bad_input!(
                "profile '{}': certificates are yours to make; suggest the profile without +tls",
                profile.name
            ));
        }
        let resolved = engine.resolve_profile(&profile).ok_or_else(|| cannot(engine, &profile, "no such mode"))?;
        let own = (contract.settings)(&resolved).map_err(|why| cannot(engine, &profile, why))?;
        let mut settings = kept;
        settings.retain(|(k, _)| !own.iter().any(|(o, _)| o == k));
        settings.extend(own);
        let survives = engine.survives(&resolved, &runs_with(contract, &settings));
        let tmpfs = (profile.location == LocationKind::Ram).then_some(contract.data_dir);
        Ok(Suggestion {
            engine: engine.name(),
            profile: profile.name,
            service,
            image,
            contract,
            tmpfs,
            settings,
            survives,
        })
    }

    /// The server's arguments for its settings.
    pub fn args(&self) -> Vec<String> {
        self.contract.flags.args(&self.settings)
    }

    /// What the profile gives up, in one line: what an acknowledged commit survives and
    /// what may still lose it.
    pub fn gives_up(&self) -> String {
        format!(
            "{} {}: an acknowledged commit survives: {}; it may be lost to {} (docs/durability.md)",
            self.engine,
            self.profile,
            self.survives,
            self.survives.lost_to()
        )
    }

    /// The image's name and tag apart: `postgres`, `17`; `latest` when it names none.
    pub fn image_parts(&self) -> (&str, &str) {
        let slash = self.image.rfind('/').map_or(0, |i| i + 1);
        match self.image[slash..].rfind(':') {
            Some(colon) => (&self.image[..slash + colon], &self.image[slash + colon + 1..]),
            None => (&self.image, "latest"),
        }
    }
}

/// The settings a suggested server runs with: the image's values of those the rule reads
/// that no profile sets, then `settings`.
fn runs_with(contract: &Image, settings: &[(String, String)]) -> BTreeMap<String, String> {
    let image = contract.image_values.iter().map(|(k, v)| (k.to_string(), v.to_string()));
    image.chain(settings.iter().cloned()).collect()
}

fn cannot(engine: &dyn Engine, profile: &Profile, why: &str) -> crate::error::Error {
    bad_input!("{} cannot be given profile '{}' by server settings and a tmpfs: {why}", engine.name(), profile.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suggest(engine: &str, profile: &str) -> Suggestion {
        let e = crate::engine::by_name(engine).unwrap();
        Suggestion::new(e, profile, "postgres:17".into(), "db".into(), Vec::new()).unwrap()
    }

    #[test]
    fn what_survives_is_the_engines_rule_on_the_profiles_settings() {
        use Survives::*;
        let cases = [
            ("postgres", "disk", PowerLoss),
            ("postgres", "ram", ServerCrash),
            ("postgres", "nosync", Nothing),
            ("mysql", "disk", PowerLoss),
            ("mysql", "async", ServerCrash),
            ("mysql", "ram-nosync", Nothing),
            ("redis", "disk", PowerLoss),
            ("redis", "ram", ServerCrash),
            ("redis", "async", Nothing),
            ("redis", "unlogged", Nothing),
        ];
        for (engine, profile, survives) in cases {
            assert_eq!(suggest(engine, profile).survives, survives, "{engine} {profile}");
        }
    }

    #[test]
    fn ram_puts_the_data_directory_on_tmpfs_and_the_service_keeps_its_settings() {
        assert_eq!(suggest("postgres", "ram-nosync").tmpfs, Some("/var/lib/postgresql/data"));
        assert_eq!(suggest("postgres", "nosync").tmpfs, None);
        let e = crate::engine::by_name("postgres").unwrap();
        let kept = vec![("max_connections".into(), "300".into()), ("fsync".into(), "on".into())];
        let s = Suggestion::new(e, "nosync", "postgres:17".into(), "db".into(), kept).unwrap();
        assert_eq!(s.args()[..2], ["-c", "max_connections=300"]);
        assert!(s.args().contains(&"fsync=off".to_string()) && !s.args().contains(&"fsync=on".to_string()));
    }

    #[test]
    fn images_split_into_name_and_tag() {
        let mut s = suggest("postgres", "disk");
        for (image, name, tag) in [
            ("postgres:17", "postgres", "17"),
            ("postgres", "postgres", "latest"),
            ("localhost:5000/pg", "localhost:5000/pg", "latest"),
            ("ghcr.io/x/pg:16-alpine", "ghcr.io/x/pg", "16-alpine"),
        ] {
            s.image = image.into();
            assert_eq!(s.image_parts(), (name, tag), "{image}");
        }
    }

    #[test]
    fn profiles_settings_cannot_give_are_refused_with_the_reason() {
        let refused = |engine: &str, profile: &str| {
            let e = crate::engine::by_name(engine).unwrap();
            Suggestion::new(e, profile, "x".into(), "db".into(), Vec::new()).unwrap_err().to_string()
        };
        assert!(refused("postgres", "unlogged").contains("CREATE UNLOGGED TABLE"));
        assert!(refused("postgres", "wal-ram").contains("waldir"));
        assert!(refused("redis", "disk+tls").contains("+tls"));
        assert!(refused("sqlite", "disk").contains("no container"));
        assert!(refused("postgres", "fast").contains("unknown profile"));
    }
}
