//! Shell completions and the man page come from the same clap definitions as
//! the parser: every subcommand appears in each, and bash accepts its script.

use crate::support;

use std::path::Path;
use std::process::Command;

/// `bob-eval ARGS…` from a folder that is no source tree: completions and the
/// man page need none.
fn run(args: &[&str]) -> std::process::Output {
    let nowhere = Path::new("/nonexistent");
    support::cmd::bob(nowhere, nowhere)
        .args(args)
        .output()
        .unwrap()
}

fn bob(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const SUBCOMMANDS: [&str; 9] = [
    "check",
    "run",
    "gate",
    "check-wiki",
    "exam",
    "propose",
    "sweep",
    "collect",
    "script",
];

#[test]
fn completions_for_every_shell_name_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let text = bob(&["completions", shell]);
        for sub in SUBCOMMANDS {
            assert!(text.contains(sub), "{shell}: no {sub}");
        }
        assert!(text.contains("max-cost-usd"), "{shell}: no run flags");
        assert!(text.contains("max-total-usd"), "{shell}: no sweep flags");
    }
    let out = run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_bash_script_is_valid_bash() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bob-eval.bash");
    std::fs::write(&file, bob(&["completions", "bash"])).unwrap();
    let status = Command::new("bash").arg("-n").arg(&file).status().unwrap();
    assert!(status.success());
}

#[test]
fn the_man_page_holds_a_page_per_subcommand() {
    let text = bob(&["man"]);
    assert!(
        text.starts_with(".ie") || text.contains(".TH bob-eval 1"),
        "{}",
        &text[..200]
    );
    for sub in SUBCOMMANDS {
        assert!(
            text.contains(&format!(".TH bob-eval-{sub} 1")),
            "no page for {sub}"
        );
    }
    assert!(text.contains(".SH SYNOPSIS") && text.contains(".SH OPTIONS"));
    // Needs no source tree: `run` names one that does not exist.
    assert_eq!(run(&["man"]).status.code(), Some(0));
}
