//! A terminal for a command: `script(1)` (util-linux) runs it on a
//! pseudo-terminal and writes what it showed to a transcript, so a test can
//! see what a user at a terminal would (live bars, redraws).

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

/// `cmd` run by `script(1)`, which gives it a terminal and writes what it
/// shows to `transcript`: the same program, arguments, environment and
/// working folder.
pub fn in_a_terminal(cmd: &Command, transcript: &Path) -> Command {
    let quote = |s: &OsStr| format!("'{}'", s.to_str().unwrap().replace('\'', r"'\''"));
    let line: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(quote)
        .collect();
    let mut script = Command::new("script");
    script
        .args(["-qec", &line.join(" ")])
        .arg(transcript)
        .env("SHELL", "/bin/sh")
        .stdin(Stdio::null());
    for (key, value) in cmd.get_envs() {
        match value {
            Some(value) => script.env(key, value),
            None => script.env_remove(key),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        script.current_dir(dir);
    }
    script
}
