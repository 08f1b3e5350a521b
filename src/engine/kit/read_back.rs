//! Settings read back from a server and compared with those a profile set: the run
//! records what was in effect, and a setting that did not take fails the launch.

use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// What to read back from one instance.
pub struct ReadBack<'a> {
    /// The engine's name, for messages.
    pub engine: &'static str,
    /// The profile's name, for messages.
    pub profile: &'a str,
    /// Settings always recorded.
    pub recorded: &'static [&'static str],
    /// Settings the profile and `--set` asked for, and their values.
    pub expected: &'a [(String, String)],
}

impl ReadBack<'_> {
    /// Read every recorded and expected key with `read` (None: nothing to record) into `out`.
    pub fn read(
        &self,
        out: &mut BTreeMap<String, String>,
        mut read: impl FnMut(&str) -> Result<Option<String>>,
    ) -> Result<()> {
        for key in self.recorded.iter().copied().chain(self.expected.iter().map(|(k, _)| k.as_str())) {
            if let Some(v) = read(key)? {
                out.insert(key.to_string(), v);
            }
        }
        Ok(())
    }

    /// Whether `key` is one the profile asked for.
    pub fn is_expected(&self, key: &str) -> bool {
        self.expected.iter().any(|(k, _)| k == key)
    }

    /// Fail at the first expected setting `differs` finds not in effect: it gets the key,
    /// the value wanted and the value read (if any), and returns both as the message
    /// shows them, or None when the setting took.
    pub fn verify(
        &self,
        out: &BTreeMap<String, String>,
        differs: impl Fn(&str, &str, Option<&str>) -> Option<(String, String)>,
    ) -> Result<()> {
        for (k, want) in self.expected {
            if let Some((have, want)) = differs(k, want, out.get(k).map(String::as_str)) {
                return Err(Error::Run(format!(
                    "profile '{}' did not take effect on {}: {k} is {have}, expected {want}",
                    self.profile, self.engine
                )));
            }
        }
        Ok(())
    }
}
