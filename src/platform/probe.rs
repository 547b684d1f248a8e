//! Finding `claude` and probing its version, killed on a signal or after 30 s.

use super::process::{Tracked, Waited, wait_at_most};
use super::stderr::last_lines;
use super::{INSTALL, MIN_VERSION, Platform, describe};
use crate::config::Environment;
use crate::error::interrupt;
use crate::error::{Error, Result};
use camino::{Utf8Path, Utf8PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

/// Find `claude`: `flag`, else `$BOB_EVAL_CLAUDE`, else `PATH` (both read
/// from `env`, the environment it will be started in); check its version.
pub fn locate(flag: Option<&Utf8Path>, env: Arc<Environment>) -> Result<Platform> {
    start_locate(flag, env)?.finish()
}

/// A `claude --version` started by [`start_locate`], not yet waited for.
/// Dropped without [`VersionProbe::finish`] (an error in between, an
/// interrupt), it kills the probe and everything it started and reaps it, so
/// neither a process nor a zombie outlives it.
#[derive(Debug)]
pub struct VersionProbe {
    pub(super) path: Utf8PathBuf,
    pub(super) env: Arc<Environment>,
    pub(super) child: Tracked,
    /// Released after the probe is gone (fields drop in this order).
    pub(super) guard: interrupt::Guard,
}

/// Find `claude` and start `claude --version` without waiting for it, so that
/// other set-up work (the plugin) overlaps the platform's start-up.
/// [`Error::Interrupted`] once a signal was caught.
pub fn start_locate(flag: Option<&Utf8Path>, env: Arc<Environment>) -> Result<VersionProbe> {
    let path = find_binary(flag, &env)?;
    let guard = interrupt::guard()?;
    let child = Tracked::spawn(
        Command::new(&path)
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .map_err(|e| Error::PlatformMissing(format!("{path} could not be started: {e}; {INSTALL}")))?;
    Ok(VersionProbe {
        path,
        env,
        child,
        guard,
    })
}

impl VersionProbe {
    /// Wait for `claude --version` and check what it printed. A signal caught
    /// meanwhile kills the probe: [`Error::Interrupted`].
    pub fn finish(self) -> Result<Platform> {
        // The guard is held until the probe is reaped or dropped.
        let VersionProbe {
            path,
            env,
            child,
            guard: _guard,
        } = self;
        let waited = wait_at_most(&child, VERSION_TIMEOUT);
        match waited {
            Ok(Waited::Exited) => {}
            Ok(Waited::Interrupted) => return Err(Error::Interrupted),
            Ok(Waited::TimedOut) => {
                return Err(Error::PlatformFailed {
                    message: format!(
                        "`{path} --version` did not answer within {} s: is it Claude Code? {INSTALL}",
                        VERSION_TIMEOUT.as_secs()
                    ),
                    details: vec![],
                });
            }
            Err(e) => {
                return Err(Error::PlatformMissing(format!(
                    "{path} could not be started: {e}; {INSTALL}"
                )));
            }
        }
        let output = child.output().map_err(|e| {
            Error::PlatformMissing(format!("{path} could not be started: {e}; {INSTALL}"))
        })?;
        let text = String::from_utf8_lossy(&output.stdout);
        let Some(version) = parse_version(&text) else {
            return Err(Error::PlatformFailed {
                message: format!(
                    "`{path} --version` did not print a version (exit {}): is it Claude Code? {INSTALL}",
                    describe(output.status)
                ),
                details: last_lines(
                    &format!("{text}{}", String::from_utf8_lossy(&output.stderr)),
                    5,
                ),
            });
        };
        if version_tuple(&version) < version_tuple(MIN_VERSION) {
            return Err(Error::PlatformTooOld {
                path,
                found: version,
                needed: MIN_VERSION,
            });
        }
        Ok(Platform { path, version, env })
    }
}

/// How long `claude --version` may take before bob-eval gives up on it.
pub(super) const VERSION_TIMEOUT: Duration = Duration::from_secs(30);

pub(super) fn find_binary(flag: Option<&Utf8Path>, env: &Environment) -> Result<Utf8PathBuf> {
    let explicit = match flag {
        Some(p) => Some((p.to_owned(), "--claude")),
        None => env
            .non_empty("BOB_EVAL_CLAUDE")
            .map(|v| (v.into(), "BOB_EVAL_CLAUDE")),
    };
    if let Some((path, from)) = explicit {
        return if path.is_file() {
            Ok(path)
        } else {
            Err(Error::PlatformMissing(format!(
                "{path} (from {from}) does not exist or is not a file; {INSTALL}"
            )))
        };
    }
    let dirs = env.var("PATH").unwrap_or_default();
    for dir in dirs.split(':').filter(|d| !d.is_empty()) {
        let candidate = Utf8Path::new(dir).join("claude");
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(Error::PlatformMissing(format!(
        "no `claude` found: no --claude, no BOB_EVAL_CLAUDE, and none on PATH ({dirs}); {INSTALL}"
    )))
}

pub(super) fn is_executable(path: &Utf8Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The first `X.Y.Z` in `claude --version` output (`2.1.328 (Claude Code)`):
/// three dot-separated runs of digits, not glued to other digits or word characters.
pub(super) fn parse_version(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let word = |i: usize| {
        bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    let digits = |mut i: usize| {
        let start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    let mut start = 0;
    while start < bytes.len() {
        if bytes[start].is_ascii_digit() && (start == 0 || !word(start - 1)) {
            let end = digits(start)
                .filter(|&i| bytes.get(i) == Some(&b'.'))
                .and_then(|i| digits(i + 1))
                .filter(|&i| bytes.get(i) == Some(&b'.'))
                .and_then(|i| digits(i + 1))
                .filter(|&i| !word(i));
            if let Some(end) = end {
                return Some(text[start..end].to_string());
            }
        }
        start += 1;
    }
    None
}

pub(super) fn version_tuple(v: &str) -> (u64, u64, u64) {
    let mut parts = v.split('.').map(|p| p.parse().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}
