//! The environment the platform runs in (docs/platform.md, "What bob-eval
//! controls"): the variables that choose or shape the model are kept from
//! it, the operator's settings `env` blocks cannot reach it, and what the
//! operator opts into (`--platform-env`) is passed and keyed.
//!
//! The platform (2.1.328) reads hundreds of `ANTHROPIC_*` and `CLAUDE_*`
//! variables, and applies the `env` block of the settings files it reads
//! (`~/.claude/settings.json`, and `.claude/settings*.json` of its working
//! folder) to the agents it starts. bob-eval therefore removes every
//! `ANTHROPIC_*` and `CLAUDE_*` variable but the credential, the connection
//! and the housekeeping ones ([`PASSED`]), and the few unprefixed ones that
//! shape answers ([`SHAPING`]); points `CLAUDE_CONFIG_DIR` at an empty
//! folder of its own (no settings, so no `env` block) while the credential
//! store stays the operator's (`CLAUDE_SECURESTORAGE_CONFIG_DIR`); and runs
//! the platform in a folder of its own (no project settings).

use std::collections::BTreeMap;

/// Variables passed to the platform as the operator has them, although
/// their prefix is one bob-eval controls: the credential, where the API is,
/// and housekeeping that changes no answer.
pub const PASSED: [&str; 10] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "CLAUDE_CODE_MAX_RETRIES",
    "CLAUDE_CODE_TMPDIR",
    "CLAUDE_SECURESTORAGE_CONFIG_DIR",
    super::TAG,
];

/// The prefixes of the variables bob-eval keeps from the platform (but
/// [`PASSED`]).
pub const CONTROLLED_PREFIXES: [&str; 2] = ["ANTHROPIC_", "CLAUDE_"];

/// Unprefixed variables the platform reads that shape the model's answers
/// or what its tools return, kept from it too.
pub const SHAPING: [&str; 11] = [
    "MAX_THINKING_TOKENS",
    "MAX_MCP_OUTPUT_TOKENS",
    "DISABLE_INTERLEAVED_THINKING",
    "DISABLE_PROMPT_CACHING",
    "USE_API_CONTEXT_MANAGEMENT",
    "BASH_MAX_OUTPUT_LENGTH",
    "BASH_DEFAULT_TIMEOUT_MS",
    "BASH_MAX_TIMEOUT_MS",
    "MCP_TIMEOUT",
    "MCP_TOOL_TIMEOUT",
    "ENABLE_PROMPT_CACHING_1H",
];

/// The platform's temp folder variables, set to the plugin's own temp folder
/// ([`crate::plugin::Plugin::scratch`]) so that no run sandbox outlives bob-eval.
pub const TEMP_DIRS: [&str; 2] = ["TMPDIR", "CLAUDE_CODE_TMPDIR"];

/// The operator's config folder variable, replaced by bob-eval's own.
pub const CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";
/// Where the platform keeps the credential (its `.credentials.json`, or
/// the macOS keychain entry it names): kept the operator's.
pub const SECURE_STORAGE: &str = "CLAUDE_SECURESTORAGE_CONFIG_DIR";

/// Whether bob-eval keeps `name` from the platform unless the operator opts in.
pub fn controlled(name: &str) -> bool {
    if PASSED.contains(&name) {
        return false;
    }
    CONTROLLED_PREFIXES.iter().any(|p| name.starts_with(p))
        || SHAPING.contains(&name)
        || name.starts_with("DISABLE_PROMPT_CACHING_")
        || name.starts_with("ENABLE_PROMPT_CACHING_1H")
}

/// A variable name the platform can read: `[A-Za-z_][A-Za-z0-9_]*`.
fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `--platform-env` as given (`NAME=VALUE`, or `NAME` for the value in
/// bob-eval's own environment, `lookup`), as the variables passed to the
/// platform; a bad entry is refused naming it, before anything runs.
pub fn opt_ins(
    given: &[String],
    lookup: impl Fn(&str) -> Option<String>,
) -> std::result::Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for entry in given {
        let (name, value) = match entry.split_once('=') {
            Some((name, value)) => (name, value.to_owned()),
            None => {
                let value = lookup(entry).ok_or_else(|| {
                    format!(
                        "--platform-env {entry}: {entry} is not set in bob-eval's environment; give a value (`--platform-env {entry}=VALUE`)"
                    )
                })?;
                (entry.as_str(), value)
            }
        };
        if !valid_name(name) {
            return Err(format!(
                "--platform-env {entry:?}: {name:?} is not a variable name (letters, digits and `_`, not starting with a digit)"
            ));
        }
        if name == super::TAG || name == SECURE_STORAGE {
            return Err(format!(
                "--platform-env {name}: bob-eval sets this one itself"
            ));
        }
        if name == CONFIG_DIR {
            return Err(format!(
                "--platform-env {name}: a config folder would bring its settings' `env` block, which the key cannot see; opt into each variable of that block by name instead (`--platform-env NAME=VALUE`)"
            ));
        }
        if PASSED.contains(&name) || !controlled(name) {
            return Err(format!(
                "--platform-env {name}: the platform gets {name} from bob-eval's environment as it is; only a variable bob-eval keeps from it is opted into"
            ));
        }
        if let Some(old) = out.insert(name.to_owned(), value.clone())
            && old != value
        {
            return Err(format!(
                "--platform-env: {name} is given twice, with two values"
            ));
        }
    }
    Ok(out)
}

/// The credential the operator's own settings give the platform, which the
/// config folder of bob-eval's own would otherwise lose: the [`PASSED`]
/// variables of its `env` block (a gateway's address and token, an API key).
/// (An `apiKeyHelper` is not carried: the platform's eval agents do not use
/// one, with or without bob-eval.)
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Carried {
    /// [`PASSED`] variables of the settings' `env` block, with their values.
    pub env: Vec<(String, String)>,
}

impl Carried {
    /// What `settings` (the text of the operator's `settings.json`) carries;
    /// nothing when it is not a JSON object.
    pub fn from_settings(settings: &str) -> Carried {
        let Ok(serde_json::Value::Object(doc)) = serde_json::from_str(settings) else {
            return Carried::default();
        };
        let env = doc
            .get("env")
            .and_then(|e| e.as_object())
            .map(|e| {
                e.iter()
                    .filter(|(k, _)| {
                        PASSED.contains(&k.as_str()) && *k != super::TAG && *k != SECURE_STORAGE
                    })
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default();
        Carried { env }
    }
}

/// The operator's own `settings.json` of the platform: in their
/// `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn operator_settings(config_dir: Option<&str>, home: Option<&str>) -> Option<String> {
    match (config_dir.filter(|d| !d.trim().is_empty()), home) {
        (Some(dir), _) => Some(format!("{dir}/settings.json")),
        (None, Some(home)) => Some(format!("{home}/.claude/settings.json")),
        (None, None) => None,
    }
}

/// What to do to the environment bob-eval passes the platform.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EnvChanges {
    /// Names to remove.
    pub remove: Vec<String>,
    /// Names to set, with their values (after the removals).
    pub set: Vec<(String, String)>,
}

impl EnvChanges {
    /// The value `name` has in the platform's environment, given its value
    /// `operator` in bob-eval's own.
    pub fn value(&self, name: &str, operator: Option<&str>) -> Option<String> {
        if let Some((_, v)) = self.set.iter().rev().find(|(k, _)| k == name) {
            return Some(v.clone());
        }
        if self.remove.iter().any(|k| k == name) {
            return None;
        }
        operator.map(str::to_owned)
    }
}

/// The environment plan for a platform run: `operator` is bob-eval's own
/// environment, `config_dir` the config folder of this run, `carried` the
/// credential of the operator's settings ([`Carried`]; it wins over the
/// environment, as the platform applies it), `opted` the operator's
/// opt-ins ([`opt_ins`]).
pub fn plan(
    operator: impl IntoIterator<Item = (String, String)>,
    config_dir: &str,
    carried: &Carried,
    opted: &BTreeMap<String, String>,
) -> EnvChanges {
    let operator: BTreeMap<String, String> = operator.into_iter().collect();
    let remove = operator
        .keys()
        .filter(|name| controlled(name) && !opted.contains_key(*name))
        .cloned()
        .collect();
    // The credential store stays where the operator's platform keeps it: its
    // own setting, else its config folder, else the default (empty means
    // `~/.claude` and the keychain entry of no config folder).
    let storage = operator.get(SECURE_STORAGE).cloned().unwrap_or_else(|| {
        operator
            .get(CONFIG_DIR)
            .filter(|d| !d.trim().is_empty())
            .cloned()
            .unwrap_or_default()
    });
    let mut set = vec![
        (CONFIG_DIR.to_owned(), config_dir.to_owned()),
        (SECURE_STORAGE.to_owned(), storage),
    ];
    set.extend(carried.env.iter().cloned());
    set.extend(opted.iter().map(|(k, v)| (k.clone(), v.clone())));
    EnvChanges { remove, set }
}

#[cfg(test)]
mod tests {
    use super::{Carried, controlled, opt_ins, plan};
    use std::collections::BTreeMap;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn what_is_kept_from_the_platform() {
        for name in [
            "ANTHROPIC_MODEL",
            "ANTHROPIC_DEFAULT_OPUS_MODEL",
            "ANTHROPIC_DEFAULT_SONNET_MODEL",
            "ANTHROPIC_DEFAULT_HAIKU_MODEL",
            "ANTHROPIC_SMALL_FAST_MODEL",
            "ANTHROPIC_BETAS",
            "CLAUDE_CODE_SUBAGENT_MODEL",
            "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
            "CLAUDE_CODE_EFFORT_LEVEL",
            "CLAUDE_CODE_DISABLE_THINKING",
            "CLAUDE_CONFIG_DIR",
            "MAX_THINKING_TOKENS",
            "DISABLE_PROMPT_CACHING_OPUS",
        ] {
            assert!(controlled(name), "{name}");
        }
        for name in [
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "ANTHROPIC_BASE_URL",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "CLAUDE_SECURESTORAGE_CONFIG_DIR",
            "HOME",
            "PATH",
            "HTTPS_PROXY",
            "DISABLE_TELEMETRY",
        ] {
            assert!(!controlled(name), "{name}");
        }
    }

    #[test]
    fn the_plan_removes_sets_and_keeps_the_credential_store() {
        let operator = env(&[
            ("ANTHROPIC_DEFAULT_OPUS_MODEL", "x"),
            ("MAX_THINKING_TOKENS", "0"),
            ("ANTHROPIC_API_KEY", "k"),
            ("HOME", "/h"),
        ]);
        let p = plan(
            operator.clone(),
            "/run/config",
            &Carried::default(),
            &BTreeMap::new(),
        );
        assert_eq!(
            p.remove,
            ["ANTHROPIC_DEFAULT_OPUS_MODEL", "MAX_THINKING_TOKENS"]
        );
        assert_eq!(
            p.set,
            env(&[
                ("CLAUDE_CONFIG_DIR", "/run/config"),
                ("CLAUDE_SECURESTORAGE_CONFIG_DIR", "")
            ])
        );
        // The operator's own config folder keeps holding the credential.
        let mut with_dir = operator.clone();
        with_dir.push(("CLAUDE_CONFIG_DIR".into(), "/ops/claude".into()));
        let p = plan(
            with_dir,
            "/run/config",
            &Carried::default(),
            &BTreeMap::new(),
        );
        assert!(p.remove.contains(&"CLAUDE_CONFIG_DIR".to_string()));
        assert!(p.set.contains(&(
            "CLAUDE_SECURESTORAGE_CONFIG_DIR".into(),
            "/ops/claude".into()
        )));
        // An opt-in passes, with the value asked for.
        let opted = opt_ins(&["ANTHROPIC_DEFAULT_OPUS_MODEL=y".into()], |_| None).unwrap();
        let p = plan(operator, "/run/config", &Carried::default(), &opted);
        assert_eq!(p.remove, ["MAX_THINKING_TOKENS"]);
        assert!(
            p.set
                .contains(&("ANTHROPIC_DEFAULT_OPUS_MODEL".into(), "y".into()))
        );
    }

    /// A gateway's address and token in the operator's settings still reach
    /// the platform; nothing else of them.
    #[test]
    fn the_settings_credential_is_carried_and_nothing_else() {
        let carried = Carried::from_settings(
            r#"{"env": {"ANTHROPIC_BASE_URL": "https://gw", "ANTHROPIC_AUTH_TOKEN": "t",
                "ANTHROPIC_DEFAULT_OPUS_MODEL": "x", "MAX_THINKING_TOKENS": "0", "HTTPS_PROXY": "p"},
               "model": "haiku"}"#,
        );
        assert_eq!(
            carried.env,
            env(&[
                ("ANTHROPIC_AUTH_TOKEN", "t"),
                ("ANTHROPIC_BASE_URL", "https://gw")
            ])
        );
        assert_eq!(Carried::from_settings("not json"), Carried::default());
        let p = plan(env(&[]), "/c", &carried, &BTreeMap::new());
        assert!(p.set.contains(&("ANTHROPIC_AUTH_TOKEN".into(), "t".into())));
    }

    #[test]
    fn opt_ins_are_checked() {
        let lookup = |name: &str| (name == "MAX_THINKING_TOKENS").then(|| "1024".to_string());
        let got = opt_ins(
            &[
                "MAX_THINKING_TOKENS".into(),
                "CLAUDE_CODE_EFFORT_LEVEL=low".into(),
            ],
            lookup,
        )
        .unwrap();
        assert_eq!(got["MAX_THINKING_TOKENS"], "1024");
        assert_eq!(got["CLAUDE_CODE_EFFORT_LEVEL"], "low");
        for bad in ["ANTHROPIC_DEFAULT_OPUS_MODEL", "1X=2", "A-B=1", "=x", ""] {
            assert!(opt_ins(&[bad.into()], lookup).is_err(), "{bad:?}");
        }
        assert!(opt_ins(&["CLAUDE_A=1".into(), "CLAUDE_A=2".into()], lookup).is_err());
        assert!(opt_ins(&["CLAUDE_A=1".into(), "CLAUDE_A=1".into()], lookup).is_ok());
        // What passes anyway is no opt-in (and a credential is never keyed).
        for passed in ["ANTHROPIC_API_KEY=k", "HOME=/h", "PATH=/bin"] {
            assert!(opt_ins(&[passed.into()], lookup).is_err(), "{passed}");
        }
        assert!(opt_ins(&[format!("{}=x", super::super::TAG)], lookup).is_err());
        assert!(opt_ins(&["CLAUDE_CONFIG_DIR=/c".into()], lookup).is_err());
    }
}
