//! `bob-eval sweep --jobs 8` over 16 suites with a stub platform that takes 1 s
//! per suite. Target: about 2 s (16 suites / 8 at once × 1 s, plus overhead).
//! Prints the wall time; `cargo bench --bench sweep`.

/// The parts of tests/support this bench uses (see tests/support/README.md).
#[path = "../tests/support"]
mod support {
    pub mod cmd;
    pub use bob_eval_testkit::data;
    pub use bob_eval_testkit::item;
    pub use bob_eval_testkit::stub;
}

use std::time::{Duration, Instant};
use support::cmd::bob;
use support::data::data;
use support::stub::{Stub, Switches};
const SUITES: usize = 16;
const JOBS: &str = "8";

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let source = root.join("source");
    for i in 0..SUITES {
        support::item::add_item(&source, &format!("suite-{i:02}"));
    }
    let stub = Stub::new(Switches {
        sleep: Duration::from_secs(1),
        ..Switches::answering(data("pipelines/aggregate-result.json"))
    });

    let start = Instant::now();
    let out = bob(&source, &root.join("home"))
        .current_dir(root)
        .args(["sweep", "--jobs", JOBS])
        .env("EVALS", "1")
        .env("BOB_EVAL_CLAUDE", &stub.bin)
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
    let evals = stub
        .record("calls")
        .unwrap_or_default()
        .lines()
        .filter(|call| *call != "--version")
        .count();
    assert_eq!(evals, SUITES, "one platform run per suite");
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
