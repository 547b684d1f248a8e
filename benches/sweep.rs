//! `bob-eval sweep --jobs 8` over 16 suites with a stub platform that takes 1 s
//! per suite. Target: about 2 s (16 suites / 8 at once × 1 s, plus overhead).
//! Prints the wall time; `cargo bench --bench sweep`.

/// The parts of tests/support this bench uses (see tests/support/README.md).
#[path = "../tests/support"]
mod support {
    pub mod cmd;
    pub mod data;
    pub mod item;
    pub mod tree;
}

use std::time::Instant;
use support::cmd::bob;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/pipelines/aggregate-result.json"
);
const SUITES: usize = 16;
const JOBS: &str = "8";

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let source = root.join("source");
    for i in 0..SUITES {
        support::item::add_item(&source, &format!("suite-{i:02}"));
    }
    let stub = root.join("claude");
    let script = format!(
        r#"#!/bin/sh
if [ "$1" = "--version" ]; then echo "2.1.328 (Claude Code)"; exit 0; fi
plugin="$3"; out=""; prev=""
for a in "$@"; do if [ "$prev" = "--output-dir" ]; then out="$a"; fi; prev="$a"; done
name=$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' "$plugin/.claude-plugin/plugin.json" | head -n 1)
sleep 1
mkdir -p "$out"
sed "s/bob-eval-commit/$name/g" "{FIXTURE}" > "$out/aggregate-result.json"
"#
    );
    std::fs::write(&stub, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();

    let start = Instant::now();
    let out = bob(&source, &root.join("home"))
        .current_dir(root)
        .args(["sweep", "--jobs", JOBS])
        .env("EVALS", "1")
        .env("BOB_EVAL_CLAUDE", &stub)
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = String::from_utf8_lossy(&out.stdout)
        .matches("improved")
        .count();
    assert_eq!(rows, SUITES, "{}", String::from_utf8_lossy(&out.stdout));
    println!(
        "sweep: {SUITES} suites, stub platform 1 s each, --jobs {JOBS}: {:.2} s wall (ideal {:.0} s)",
        elapsed.as_secs_f64(),
        (SUITES as f64 / 8.0).ceil()
    );
    let secs = elapsed.as_secs_f64();
    println!(
        "RESULT sweep of {SUITES} suites at --jobs {JOBS}, 1 s stub: {secs:.2} s (target <= 2.3 s) {}",
        if secs <= 2.3 { "PASS" } else { "MISS" }
    );
}
