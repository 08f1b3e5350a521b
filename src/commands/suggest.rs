//! `dbrace suggest`: the configuration that gives a profile in the user's own tools, on
//! stdout (docs/suggest.md).

use crate::cli::SuggestArgs;
use crate::engine;
use crate::error::Result;
use crate::suggest::{Suggestion, render};

/// The service name an override is for when no Compose file names one.
const SERVICE: &str = "db";

/// Run `dbrace suggest`; the exit code.
pub fn suggest(a: SuggestArgs) -> Result<i32> {
    let s = if a.files.is_empty() {
        let name = a.engine.as_deref().unwrap_or_default();
        let engine = engine::by_name(name)?;
        let image = a.image.or_else(|| engine.facts().image.map(|i| i.default_image.to_string()));
        let image = image.ok_or_else(|| bad_input!("{name} runs no container to configure"))?;
        Suggestion::new(engine, &a.profile, image, SERVICE.into(), Vec::new())?
    } else {
        let chosen = crate::compose::read(&a.files, a.service.as_deref(), a.engine.as_deref())?;
        for n in &chosen.notes {
            eprintln!("dbrace: compose: {n}");
        }
        let image = a.image.unwrap_or(chosen.image);
        // Its command replaces the service's: what the service's own sets stays.
        let kept = chosen.owned.into_iter().chain(chosen.kept).collect();
        Suggestion::new(chosen.engine, &a.profile, image, chosen.service, kept)?
    };
    print!("{}", render(&s, a.format));
    Ok(0)
}
