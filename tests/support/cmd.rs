//! The one way tests (and benches) build a `bob-eval` command.

use std::path::Path;
use std::process::Command;

/// What `BOB_EVAL_CLAUDE` is set to unless a test names a platform: a path
/// that does not exist.
pub const NO_PLATFORM: &str = "/nonexistent/bob-eval-tests/claude";

/// The built `bob-eval` with `--source <source> --home <home>`; add the
/// subcommand and its arguments.
///
/// Nothing leaks in from the developer's shell: every `BOB_*`, `ANTHROPIC_*`
/// and `EVALS*` variable is removed. And no real `claude` on PATH can run by
/// accident: `BOB_EVAL_CLAUDE` is [`NO_PLATFORM`], so a command that runs the
/// platform names one (`--claude`, or `BOB_EVAL_CLAUDE` again), and a test of
/// the PATH lookup removes the variable.
///
/// Nor does an ignored signal: SIGHUP, SIGINT, SIGTERM and SIGQUIT start with
/// their default action, as in a terminal's foreground job, even when the
/// tests run in the background of a script (which ignores SIGINT and
/// SIGQUIT, and bob-eval would keep ignoring them).
///
/// The stub platform calls no API: `BOB_EVAL_API_PROBE=off` keeps bob-eval
/// from checking one while a slow stub runs (the real tier's commands clear
/// the environment and give the fake API's address instead).
///
/// A plain [`Command`]: `output()` or `spawn()` it, or `assert()` it with
/// `assert_cmd::prelude::*`.
pub fn bob(source: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bob-eval"));
    // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            for sig in [libc::SIGHUP, libc::SIGINT, libc::SIGTERM, libc::SIGQUIT] {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    for (name, _) in std::env::vars_os() {
        let leaks = ["BOB_", "ANTHROPIC_", "EVALS"]
            .iter()
            .any(|prefix| name.as_encoded_bytes().starts_with(prefix.as_bytes()));
        if leaks {
            cmd.env_remove(name);
        }
    }
    cmd.env("BOB_EVAL_CLAUDE", NO_PLATFORM)
        .env("BOB_EVAL_API_PROBE", "off")
        .arg("--source")
        .arg(source)
        .arg("--home")
        .arg(home);
    cmd
}
