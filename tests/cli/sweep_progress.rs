//! A sweep shows its progress: in a pipe one line per finished run (named by
//! its suite) and per finished suite; on a terminal a live bar per suite in
//! flight. The stub platform prints the run lines the real one prints.

use crate::support;

use std::path::Path;
use std::process::Command;
use support::data::data;
use support::stub::{Stub, Switches};

/// Four runs per suite, as the platform reports them on stderr.
const RUN_LINES: &str = "Ablation: 2 arms × 2 cases (4 runs)\n\
    \x20 fires run 1/1 [with]: score 1.00  $0.03\n\
    \x20 fires run 1/1 [without]: score 0.00  $0.03\n\
    \x20 quiet run 1/1 [with]: score 1.00  $0.01\n\
    \x20 quiet run 1/1 [without]: score 1.00  $0.01\n";

/// `bob-eval sweep --jobs 2` over the suites `alpha` and `beta`.
fn sweep(dir: &Path, stub: &Stub) -> Command {
    let source = dir.join("source");
    for item in ["alpha", "beta"] {
        support::item::add_item(&source, item);
    }
    let mut cmd = support::cmd::bob(&source, &dir.join("home"));
    cmd.current_dir(dir)
        .env("BOB_EVAL_CLAUDE", &stub.bin)
        .env("EVALS", "1")
        .args(["sweep", "--jobs", "2"]);
    cmd
}

#[test]
fn in_a_pipe_a_line_per_run_and_per_suite() {
    let dir = tempfile::tempdir().unwrap();
    let stub = Stub::new(Switches {
        stderr: RUN_LINES.into(),
        ..Switches::answering(data("platform/run2_table_no_json.json"))
    });
    let out = sweep(dir.path(), &stub).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for item in ["alpha", "beta"] {
        for (n, run) in [
            "fires 1/1 [with]",
            "fires 1/1 [without]",
            "quiet 1/1 [with]",
            "quiet 1/1 [without]",
        ]
        .iter()
        .enumerate()
        {
            let line = format!("bob-eval: {item}: run {}/4: {run} score", n + 1);
            assert!(stderr.contains(&line), "no {line:?} in\n{stderr}");
        }
        // The finished suite: its verdict and numbers, after its runs.
        let finished = stderr
            .lines()
            .position(|l| l.starts_with(&format!("{item}: ")) && l.contains(" runs  $"))
            .unwrap_or_else(|| panic!("no finished line for {item} in\n{stderr}"));
        let last_run = stderr
            .lines()
            .position(|l| l.starts_with(&format!("bob-eval: {item}: run 4/4")))
            .unwrap();
        assert!(last_run < finished, "{stderr}");
    }
}

#[test]
fn on_a_terminal_a_live_bar_per_suite_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let stub = Stub::new(Switches {
        stderr: RUN_LINES.into(),
        slow: true,
        ..Switches::answering(data("platform/run2_table_no_json.json"))
    });
    let cmd = sweep(dir.path(), &stub);
    let transcript = dir.path().join("typescript");
    let out = support::pty::in_a_terminal(&cmd, &transcript)
        .output()
        .expect("script(1) from util-linux");
    let screen = std::fs::read_to_string(&transcript).unwrap();
    assert_eq!(out.status.code(), Some(0), "{screen}");
    // Each suite's bar, named by the suite: runs done of the total, dollars of the ceiling.
    for item in ["alpha", "beta"] {
        assert!(
            regex::Regex::new(&format!(r"{item} .*2/4 runs  \$0\.06 of \$0\.50  fires"))
                .unwrap()
                .is_match(&screen),
            "no live bar for {item} in\n{screen}"
        );
        assert!(
            screen
                .lines()
                .any(|l| l.contains(&format!("{item}: ")) && l.contains(" runs  $")),
            "no finished line for {item} in\n{screen}"
        );
    }
    // Not the one-line-per-run form a pipe gets.
    assert!(!screen.contains(": run 1/4: fires"), "{screen}");
}
