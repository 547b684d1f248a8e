//! What keys a run and a best, against the stub platform: every spelling of
//! one model is one key and one best; grants and denials are two lists (a
//! grant starting with `!` is refused before anything is spent); a variable
//! opted into with `--platform-env` is part of the key. What reaches the real
//! platform is tested in tests/real/platform_env_real.rs.

use crate::support;

use serde_json::Value;
use std::process::Command;
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::{World, outcome};

fn world() -> World {
    World::new(
        &["commit"],
        Switches {
            stderr: "Ablation: 2 arms × 2 cases (8 runs)\n".into(),
            ..Switches::answering(data("pipelines/aggregate-result.json"))
        },
    )
}

fn cmd(w: &World, args: &[&str]) -> Command {
    let mut c = w.command(bob(&w.source, &w.home()));
    c.args(args);
    c
}

fn baseline(w: &World) -> Value {
    let text = std::fs::read_to_string(w.source.join("evals/commit/baseline.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn propose(w: &World, model: &str) -> (i32, String, String) {
    outcome(cmd(
        w,
        &[
            "propose",
            "commit",
            "--model",
            model,
            "--pr",
            "#1",
            "--pages",
            "commit-skipped-hook",
            // What a record writes is tested here, not which rule decides.
            "--rule",
            "bare",
        ],
    ))
}

/// The reproducer: 1.00 recorded with `--model opus`; a change proposed
/// with `--model OPUS` is held to that best (an equal score is rejected),
/// its runs are the ones `opus` bought (one key), and `baseline.json` keeps
/// one best for the model.
#[test]
fn every_spelling_of_a_model_is_one_key_and_one_best() {
    let w = world();
    let (code, out, err) = propose(&w, "opus");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("commit: accepted"), "{out}");
    assert_eq!(baseline(&w)["best"]["opus"]["score"], 1.0);
    assert_eq!(w.calls().len(), 1);
    assert!(
        w.calls()[0].contains("--model opus"),
        "the platform is given the canonical name: {:?}",
        w.calls()
    );

    for spelling in ["OPUS", " Opus "] {
        let (code, out, err) = propose(&w, spelling);
        assert_eq!(code, 1, "{spelling}: {out}{err}");
        assert!(out.starts_with("commit: rejected"), "{spelling}: {out}");
        assert!(
            out.contains("not above the best 1.00 recorded for opus"),
            "{spelling}: {out}"
        );
        let best = baseline(&w)["best"].clone();
        let models: Vec<&String> = best.as_object().unwrap().keys().collect();
        assert_eq!(models, ["opus"], "{best}");
    }
    assert_eq!(
        w.calls().len(),
        1,
        "`OPUS` reused the runs `opus` bought: {:?}",
        w.calls()
    );
}

/// A baseline written before names were canonical holds `OPUS`: a result
/// on `opus` is held to it, and an accepted one replaces it (one best).
#[test]
fn a_best_kept_under_another_spelling_is_still_the_best() {
    let w = world();
    let path = w.source.join("evals/commit/baseline.json");
    std::fs::write(
        &path,
        r#"{"schema":"skill-eval-baseline/1","item":"commit","best":{"OPUS":{"score":1.0,"without":0.5,"trigger_rate":1.0,"run":"eval-commit-20260101T000000Z","date":"2026-01-01"}}}"#,
    )
    .unwrap();
    let (code, out, err) = propose(&w, "opus");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("not above the best 1.00 recorded for opus"),
        "{out}"
    );

    std::fs::write(
        &path,
        r#"{"schema":"skill-eval-baseline/1","item":"commit","best":{"OPUS":{"score":0.25,"without":0.5,"trigger_rate":0.5,"run":"eval-commit-20260101T000000Z","date":"2026-01-01"}}}"#,
    )
    .unwrap();
    let (code, out, err) = propose(&w, "opus");
    assert_eq!(code, 0, "{out}{err}");
    let best = baseline(&w)["best"].clone();
    let models: Vec<&String> = best.as_object().unwrap().keys().collect();
    assert_eq!(models, ["opus"], "{best}");
    assert_eq!(best["opus"]["score"], 1.0);
}

/// A grant that starts with `!` is refused (exit 2) before the platform is
/// called, on every command that runs it, and so is a denial spelled so.
#[test]
fn a_grant_starting_with_bang_is_refused_before_anything_is_spent() {
    let w = world();
    for args in [
        &["run", "commit", "--allow-tools", "!Bash"][..],
        &["run", "commit", "--allow-tools", "Read,!Bash"],
        &["run", "commit", "--disallow-tools", "!Bash"],
        &["exam", "commit", "--allow-tools", "!Bash"],
        &["run", "commit", "--allow-tools", "!Bash", "--dry-run"],
    ] {
        let (code, out, err) = outcome(cmd(&w, args));
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("starts with '!'") && err.contains("--disallow-tools Bash"),
            "{args:?}: {err}"
        );
    }
    assert!(w.calls().is_empty(), "{:?}", w.calls());
}

/// Runs bought under a denial are never reused for a grant of the same
/// tool, nor the other way round; runs under the same lists are.
#[test]
fn grants_and_denials_are_two_lists_in_the_key() {
    let w = world();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "commit", "--model", "haiku"];
        args.extend_from_slice(extra);
        let (code, out, err) = outcome(cmd(&w, &args));
        assert_eq!(code, 0, "{args:?}: {out}{err}");
    };
    run(&["--disallow-tools", "Bash"]);
    assert_eq!(w.calls().len(), 1);
    run(&["--allow-tools", "Bash"]);
    assert_eq!(w.calls().len(), 2, "a grant is not a denial");
    run(&["--disallow-tools", "Bash"]);
    run(&["--allow-tools", "Bash"]);
    assert_eq!(w.calls().len(), 2, "the same lists reuse: {:?}", w.calls());
}

/// A variable opted into with `--platform-env` is in the key (its runs are
/// bought, not reused from runs without it) and in the document; a bad one
/// is refused before anything is spent.
#[test]
fn a_platform_env_opt_in_is_keyed_and_shown() {
    let w = world();
    let out = w.root.join("doc.json");
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "commit", "--model", "haiku", "--out"];
        args.push(out.to_str().unwrap());
        args.extend_from_slice(extra);
        let (code, stdout, err) = outcome(cmd(&w, &args));
        assert_eq!(code, 0, "{args:?}: {stdout}{err}");
        serde_json::from_str::<Value>(&std::fs::read_to_string(&out).unwrap()).unwrap()
    };
    let plain = run(&[]);
    assert!(plain.get("platform_env").is_none(), "{plain}");
    assert_eq!(w.calls().len(), 1);
    let opted = run(&[
        "--platform-env",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL=claude-haiku-x",
    ]);
    assert_eq!(w.calls().len(), 2, "an opt-in is another key");
    assert_eq!(
        opted["platform_env"],
        serde_json::json!({"ANTHROPIC_DEFAULT_HAIKU_MODEL": "claude-haiku-x"})
    );
    run(&[
        "--platform-env",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL=claude-haiku-x",
    ]);
    assert_eq!(w.calls().len(), 2, "the same opt-in reuses");
    run(&[
        "--platform-env",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL=claude-haiku-y",
    ]);
    assert_eq!(w.calls().len(), 3, "another value is another key");

    for bad in [
        "ANTHROPIC_API_KEY=sk",
        "PATH=/bin",
        "NOT_SET_ANYWHERE_CLAUDE",
        "1BAD=x",
    ] {
        let (code, stdout, err) = outcome(cmd(&w, &["run", "commit", "--platform-env", bad]));
        assert_eq!(code, 2, "{bad}: {stdout}{err}");
        assert!(err.contains("--platform-env"), "{bad}: {err}");
    }
    assert_eq!(w.calls().len(), 3);
}
