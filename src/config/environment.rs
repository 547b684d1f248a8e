//! The process environment, read once: [`Environment::from_process`] is
//! called at start (`commands::dispatch`) and the value is carried in the
//! [`super::Context`], so library code takes what it reads as parameters
//! and a test can give any environment without touching the process's.
//! The only file of `src/` that reads the environment (a test holds that).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// The variables bob-eval was started with (`BOB_*`, `EVALS*`, `CLAUDE*`,
/// `ANTHROPIC*`, `HOME`, `PATH`, `GITHUB_STEP_SUMMARY`, and every other the
/// platform's child inherits or has removed). Its `Debug` shows names
/// only: values may be credentials.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Environment {
    vars: BTreeMap<OsString, OsString>,
}

impl Environment {
    /// The process's environment as it is now.
    pub fn from_process() -> Self {
        Environment {
            vars: std::env::vars_os().collect(),
        }
    }

    /// An environment of exactly these variables (tests, embedders).
    pub fn from_pairs<K: Into<OsString>, V: Into<OsString>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Environment {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    /// `name`'s value when it is set and UTF-8 (as `std::env::var(name).ok()`).
    pub fn var(&self, name: &str) -> Option<&str> {
        self.get_os(name).and_then(OsStr::to_str)
    }

    /// `name`'s value when it is set, whatever its encoding.
    pub fn get_os(&self, name: &str) -> Option<&OsStr> {
        self.vars.get(OsStr::new(name)).map(OsString::as_os_str)
    }

    /// `name`'s value when it is set, UTF-8 and not empty: how bob-eval reads
    /// a variable that chooses something (`BOB_HOME=` chooses nothing).
    pub fn non_empty(&self, name: &str) -> Option<&str> {
        self.var(name).filter(|v| !v.is_empty())
    }

    /// The folder temporary files go in: `$TMPDIR`, else `/tmp`, as
    /// [`std::env::temp_dir`] decides it on Unix, but from this environment
    /// (the throwaway plugin and the platform's scratch folder are made there).
    pub fn temp_dir(&self) -> std::path::PathBuf {
        self.get_os("TMPDIR")
            .map_or_else(|| "/tmp".into(), std::path::PathBuf::from)
    }

    /// Every variable, names and values made UTF-8 (lossily): what the
    /// platform's child is started from.
    pub fn pairs(&self) -> Vec<(String, String)> {
        self.vars
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .collect()
    }
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set()
            .entries(self.vars.keys().map(|k| k.to_string_lossy()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_was_given_and_never_shows_values() {
        let env = Environment::from_pairs([("BOB_HOME", ""), ("ANTHROPIC_API_KEY", "sk-secret")]);
        assert_eq!(env.var("BOB_HOME"), Some(""));
        assert_eq!(env.non_empty("BOB_HOME"), None);
        assert_eq!(env.non_empty("ANTHROPIC_API_KEY"), Some("sk-secret"));
        assert_eq!(env.var("HOME"), None);
        let shown = format!("{env:?}");
        assert!(shown.contains("ANTHROPIC_API_KEY"), "{shown}");
        assert!(!shown.contains("sk-secret"), "{shown}");
    }

    #[test]
    fn the_temp_folder_is_tmpdir_else_tmp() {
        let env = Environment::from_pairs([("TMPDIR", "/scratch/me")]);
        assert_eq!(env.temp_dir(), std::path::Path::new("/scratch/me"));
        let none = Environment::from_pairs::<&str, &str>([]);
        assert_eq!(none.temp_dir(), std::path::Path::new("/tmp"));
    }
}
