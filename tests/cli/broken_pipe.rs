//! A reader that goes away (`bob-eval check | head -1`) ends a printing
//! command quietly, as ripgrep does: no panic, no error message, and what the
//! command had to do (a record) done.

use crate::support;

use std::path::Path;
use std::process::Stdio;

/// Run bob-eval with `args` and stdout a pipe whose reader is already closed.
fn with_closed_stdout(source: &Path, args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let home = tempfile::tempdir().unwrap();
    support::cmd::bob(source, home.path())
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn data(rel: &str) -> String {
    support::data::data(rel).to_str().unwrap().to_string()
}

#[test]
fn printing_commands_end_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    std::fs::create_dir_all(&source).unwrap();
    support::tree::copy_tree(Path::new(&data("real-source")), &source);
    std::fs::create_dir_all(source.join("wiki/patterns")).unwrap();
    std::fs::write(source.join("wiki/patterns/p.md"), "# p\n").unwrap();
    let result = data("gate/result-accept.json");
    let fixture = data("pipelines/aggregate-result.json");
    for args in [
        vec!["check"],
        vec!["check", "--json"],
        vec!["check-wiki"],
        vec!["gate", "commit", &result],
        vec![
            "gate", "commit", &result, "--record", "--pr", "#1", "--pages", "p",
        ],
        vec!["run", "commit", "--platform-result", &fixture],
        vec!["exam", "commit", "--platform-result", &fixture],
    ] {
        let out = with_closed_stdout(&source, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {:?} {err}",
            out.status
        );
    }
    let wiki = std::fs::read_to_string(source.join("wiki/skill-impact.md")).unwrap();
    assert_eq!(
        wiki.lines().filter(|l| l.starts_with("| 2")).count(),
        1,
        "the record happened"
    );
}
