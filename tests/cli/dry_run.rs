//! `--dry-run` through the binary, on the stub platform: what a run would buy
//! and reuse after an edit of the skill, its estimate from the store, and no
//! platform call at all (not even `claude --version`).

use crate::support;

use serde_json::Value;
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::World;

/// A copy of the test source tree, a home and a stub answering two runs per
/// case and arm, as `--runs 2` asks.
fn world() -> World {
    let w = World::new(&[], Switches::answering(data("platform/run1_main.json")));
    support::tree::copy_tree(&data("source"), &w.source);
    w
}

/// What these tests do in a world.
trait DryRuns {
    fn bob(&self, args: &[&str]) -> (i32, String, String);
    /// Platform calls of any kind, version probes included.
    fn platform_calls(&self) -> usize;
    /// Append a line to the skill: a new version of the item.
    fn edit_skill(&self);
    /// `ARGS --json`, held to exit 0: the estimate.
    fn estimate(&self, args: &[&str]) -> Value;
}

impl DryRuns for World {
    fn bob(&self, args: &[&str]) -> (i32, String, String) {
        let mut cmd = self.command(bob(&self.source, &self.home()));
        cmd.env("EVALS", "1").args(args);
        support::world::outcome(cmd)
    }

    fn platform_calls(&self) -> usize {
        self.lines("calls").len()
    }

    fn edit_skill(&self) {
        let skill = self.source.join("skills/commit/SKILL.md");
        let text = std::fs::read_to_string(&skill).unwrap();
        std::fs::write(&skill, format!("{text}\nOne more line.\n")).unwrap();
    }

    fn estimate(&self, args: &[&str]) -> Value {
        let mut json_args = args.to_vec();
        json_args.push("--json");
        let (code, out, err) = self.bob(&json_args);
        assert_eq!(code, 0, "{out}\n{err}");
        serde_json::from_str(&out).unwrap()
    }
}

#[test]
fn a_dry_run_after_an_edit_of_the_skill_buys_the_with_arm_at_its_past_cost() {
    let w = world();
    // Nothing stored: every run bought, a rough estimate, no platform call.
    let (code, out, err) = w.bob(&["run", "commit", "--runs", "2", "--dry-run"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("no run of commit stored"), "{out}");
    assert!(
        out.contains("8 run(s) to buy, 0 reused; estimate about $"),
        "{out}"
    );
    assert!(
        out.contains("(rough: no run is stored yet, so a typical run at the platform's default model (opus)'s price)"),
        "{out}"
    );
    assert_eq!(w.platform_calls(), 0, "a dry run called the platform");

    let (code, out, err) = w.bob(&["run", "commit", "--runs", "2", "--max-cost-usd", "1"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let calls = w.platform_calls();
    assert!(calls > 0);

    w.edit_skill();
    let args = [
        "run",
        "commit",
        "--runs",
        "2",
        "--max-cost-usd",
        "0.05",
        "--dry-run",
    ];
    let (code, out, err) = w.bob(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(w.platform_calls(), calls, "a dry run called the platform");
    assert!(
        out.contains("platform 2.1.328, the last stored for commit"),
        "{out}"
    );
    assert!(
        out.contains("the with arm alone (--ablation none)"),
        "{out}"
    );
    // fires: 2 × $0.032, quiet: 2 × $0.0064.
    assert!(
        out.contains("4 run(s) to buy, 4 reused; estimate $0.0768; ceiling $0.0500"),
        "{out}"
    );
    assert!(
        out.contains("WARNING: the estimate exceeds the ceiling"),
        "{out}"
    );

    let e = w.estimate(&args);
    assert_eq!(e["schema"], "bob-eval-estimate/1");
    assert_eq!(e["estimate_usd"], 0.0768);
    assert_eq!(e["exceeds_ceiling"], true);
    // The first reuse of the stored without arm buys no top-up.
    assert!(e.get("top_up").is_none(), "{e}");
    let fires = &e["cases"][0]["arms"];
    assert_eq!(
        (fires[0]["arm"].as_str(), fires[0]["buy"].as_u64()),
        (Some("with"), Some(2))
    );
    assert_eq!(
        (fires[1]["arm"].as_str(), fires[1]["reuse"].as_u64()),
        (Some("without"), Some(2))
    );

    // exam and propose say the same; sweep estimates every suite; none calls the platform.
    let (code, exam, err) = w.bob(&[
        "exam",
        "commit",
        "--runs",
        "2",
        "--max-cost-usd",
        "0.05",
        "--dry-run",
        "--json",
    ]);
    assert_eq!(code, 0, "{exam}\n{err}");
    assert_eq!(serde_json::from_str::<Value>(&exam).unwrap(), e);
    let (code, out, err) = w.bob(&[
        "propose",
        "commit",
        "--pr",
        "#1",
        "--pages",
        "p",
        "--runs",
        "2",
        "--max-cost-usd",
        "0.05",
        "--dry-run",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("estimate $0.0768"), "{out}");
    let (code, out, err) = w.bob(&[
        "sweep",
        "--runs",
        "2",
        "--dry-run",
        "--max-total-usd",
        "0.01",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("commit on default: dry run"), "{out}");
    assert!(
        out.contains("WARNING: the estimate exceeds the budget"),
        "{out}"
    );
    let (code, out, err) = w.bob(&["sweep", "--runs", "2", "--dry-run", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let all: Value = serde_json::from_str(&out).unwrap();
    assert!(
        all.as_array()
            .unwrap()
            .iter()
            .any(|x| x["item"] == "commit")
    );
    assert_eq!(w.platform_calls(), calls, "a dry run called the platform");
}

/// A script may ask for a dry run with `opts.dry_run`, then only estimate:
/// `evaluate` refuses, `estimate` answers.
#[test]
fn a_script_dry_run_only_estimates() {
    let w = world();
    let script = w.source.join("dry.rhai");
    std::fs::write(
        &script,
        r#"
let e = estimate("commit", #{ runs: 2, dry_run: true });
output(`${e.item} ${e.buy_runs}`);
try {
    evaluate("commit", #{ runs: 2, dry_run: true });
    output("ran");
} catch (err) {
    output(`refused: ${err.message}`);
}
0
"#,
    )
    .unwrap();
    let (code, out, err) = w.bob(&["script", script.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("commit 8"), "{out}");
    assert!(out.contains("refused: dry run"), "{out}");
    assert_eq!(w.platform_calls(), 0);
}

/// Fixed runs renew a stored without arm once a later evaluation has
/// compared it again: after a run and a repeat of it (which buys nothing,
/// so compares nothing anew) an edit of the skill still buys the with arm
/// alone; once that edit's run has bought the with arm beside the stored
/// without-arm runs (the stub answering as the platform's single-arm mode),
/// the next edit buys one fresh without-arm run per case beside the with
/// arm, and the dry run says so before anything is bought.
#[test]
fn a_without_arm_compared_again_is_topped_up_by_the_next_edit() {
    let w = world();
    let run = || {
        let (code, out, err) = w.bob(&["run", "commit", "--runs", "2", "--max-cost-usd", "1"]);
        assert_eq!(code, 0, "{out}\n{err}");
    };
    run();
    run();
    w.edit_skill();
    let args = ["run", "commit", "--runs", "2", "--dry-run"];
    let e = w.estimate(&args);
    assert_eq!(
        (&e["buy_runs"], &e["reuse_runs"]),
        (&4.into(), &4.into()),
        "{e}"
    );
    assert!(e.get("top_up").is_none(), "{e}");

    w.stub.answer(data("platform/single-arm-none.json"));
    run();
    w.edit_skill();
    let (code, out, err) = w.bob(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("6 run(s) to buy, 2 reused"), "{out}");
    assert!(
        out.contains("  top-up: 1 fresh without-arm run(s) a case renew the stored ones (the without rows' buy)\n"),
        "{out}"
    );
    let e = w.estimate(&args);
    for case in e["cases"].as_array().unwrap() {
        let arms = &case["arms"];
        assert_eq!(
            [&arms[0]["buy"], &arms[1]["buy"], &arms[1]["reuse"]],
            [2, 1, 1],
            "{case}"
        );
    }
    assert_eq!(e["top_up"], 1);
    assert_eq!(
        e["calls"],
        serde_json::json!([
            {"case": null, "runs": 1, "ablation": "with-without"},
            {"case": null, "runs": 1, "ablation": "none"},
        ])
    );
}
