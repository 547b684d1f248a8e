//! Shell completions and the man page come from the same clap definitions as
//! the parser: every subcommand appears in each, and bash accepts its script.

use std::process::Command;

fn bob(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_bob-eval"))
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const SUBCOMMANDS: [&str; 8] = [
    "check",
    "run",
    "gate",
    "check-wiki",
    "exam",
    "propose",
    "sweep",
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
    }
    let out = Command::new(env!("CARGO_BIN_EXE_bob-eval"))
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
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
    // Needs no source tree: it works from anywhere.
    let elsewhere = Command::new(env!("CARGO_BIN_EXE_bob-eval"))
        .args(["--source", "/nonexistent", "man"])
        .output()
        .unwrap();
    assert_eq!(elsewhere.status.code(), Some(0));
}
