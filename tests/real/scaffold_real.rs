//! Scaffold scripts on the real platform tier: a case whose fixture creates
//! the file its grader looks for passes only when the script runs
//! (`--scaffold`); `--no-scaffold` measures it without the fixture, keyed
//! apart; neither is refused before any model call.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use support::expect::case;
use support::fake_api::{FakeApi, Kind, Script};
use support::real::RealWorld;
use support::world::outcome;

/// The fixture source with a `scaf` case: its script writes `notes.txt`,
/// and its one grader reads `notes.txt` for what the script wrote.
fn world() -> RealWorld {
    let w = RealWorld::new(FakeApi::start(Script::new().otherwise("done")));
    let dir = w.source.join("evals/commit/scaf");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("case.yaml"),
        "schema_version: \"1.1\"\nname: scaf\nexecution:\n  prompt: Reply with the word done.\n  max_turns: 2\ncontext:\n  scaffold_script: setup.sh\ngraders:\n  - name: made\n    type: regex\n    pattern: 'from the fixture'\n    target:\n      source: file\n      path: notes.txt\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("setup.sh"),
        "printf 'from the fixture\\n' > notes.txt\n",
    )
    .unwrap();
    w
}

fn run(w: &RealWorld, extra: &[&str]) -> (i32, String, String) {
    let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
    cmd.args([
        "run",
        "commit",
        "--case",
        "scaf",
        "--runs",
        "1",
        "--max-cost-usd",
        "1",
    ])
    .args(extra);
    outcome(cmd)
}

#[test]
fn a_fixture_runs_only_under_scaffold_and_neither_flag_is_refused_for_free() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let (code, _, err) = run(&w, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`scaf` (scaffold_script: setup.sh)")
            && err.contains("--scaffold")
            && err.contains("--no-scaffold")
            && err.contains("as you"),
        "{err}"
    );
    assert_eq!(
        w.api.requests_of(Kind::Agent).len(),
        0,
        "refused before any call"
    );

    let (code, out, err) = run(&w, &["--scaffold"]);
    assert_eq!(code, 0, "{err}");
    let with: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(with["scaffold"], "run", "{with}");
    assert_eq!(
        case(&with, "scaf")["with"],
        1.0,
        "the fixture made notes.txt: {with}"
    );
    assert_eq!(case(&with, "scaf")["without"], 1.0, "on both arms: {with}");
    let calls = w.api.requests_of(Kind::Agent).len();
    assert!(calls > 0);

    let (code, out, err) = run(&w, &["--no-scaffold"]);
    assert_eq!(code, 0, "{err}");
    let without: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(without["scaffold"], "skipped", "{without}");
    assert_eq!(
        case(&without, "scaf")["with"],
        0.0,
        "no fixture, no file: {without}"
    );
    assert_eq!(
        without["reused_runs"], 0,
        "keyed apart from the runs with the fixture"
    );
    assert!(w.api.requests_of(Kind::Agent).len() > calls);

    // The same choice again is reused.
    let (code, out, err) = run(&w, &["--scaffold"]);
    assert_eq!(code, 0, "{err}");
    let again: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(again["reused_runs"], 2, "{again}");
}
