//! `bob-eval run` against a stub `claude`: the argument list, the reduced
//! numbers, and every way the platform can fail. No test here spends money or
//! needs the real platform.

use crate::support;

use assert_cmd::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use support::cmd::bob;
use support::data::data;
use support::expect;
use support::pty::in_a_terminal;
use support::stub::{Stub, Switches};
use support::tree::copy_tree;
use support::world::printed_args;

/// A source tree, an empty home and a fresh working folder.
struct Env {
    source: PathBuf,
    work: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Env {
    /// On the fixture source tests/data/source.
    fn new() -> Self {
        Self::on(data("source"))
    }

    fn on(source: PathBuf) -> Self {
        Env {
            source,
            work: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn out(&self) -> PathBuf {
        self.work.path().join("result.json")
    }

    /// `bob-eval --source <source> --home <empty> run <args…>` in the working
    /// folder, which is also its TMPDIR (what `--keep` keeps goes with it).
    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = bob(&self.source, self.home.path());
        support::world::in_folder(&mut cmd, self.work.path())
            .arg("run")
            .args(args);
        cmd
    }

    fn run(&self, stub: &Stub, args: &[&str]) -> Command {
        let mut cmd = self.cmd(&[]);
        cmd.arg("--claude").arg(&stub.bin).args(args);
        cmd
    }
}

/// The arguments of the stub's eval call, if there was one.
fn eval_argv(stub: &Stub) -> Option<Vec<String>> {
    stub.record("argv")
        .map(|t| t.lines().map(str::to_string).collect())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Run a failing command with `--out`, check its exit code and that nothing was written.
fn fails(env: &Env, mut cmd: Command, code: i32) -> String {
    cmd.arg("--out").arg(env.out());
    let out = cmd.output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {stderr}");
    assert!(out.stdout.is_empty(), "stdout: {}", text(&out.stdout));
    assert!(!env.out().exists(), "a document was written on failure");
    stderr
}

fn expected_args(plugin: &str, tail: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "plugin",
        "eval",
        plugin,
        "--ablation",
        "with-without",
        "--output-dir",
        &format!("{plugin}/.bob-eval/out"),
        "--threshold",
        "0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(tail.iter().map(|s| s.to_string()));
    args
}

#[test]
fn default_model_argv_cwd_plugin_and_numbers() {
    let env = Env::new();
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let out = env.run(&stub, &["commit"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let argv = eval_argv(&stub).expect("the platform ran");
    let plugin = argv[2].clone();
    assert_eq!(
        argv,
        expected_args(
            &plugin,
            &[
                "--max-cost-usd",
                "2",
                "--trust-plugin",
                "--no-publish",
                "--keep-temp"
            ]
        )
    );
    let cwd = stub.record("cwd").unwrap();
    assert_eq!(
        Path::new(cwd.trim()),
        Path::new(&plugin).join(".bob-eval"),
        "runs in a folder of its own (no project settings reach it)"
    );
    // Its config folder is its own too, and not inside the plugin, whose
    // tree each run screens while the others' sessions rewrite that folder.
    let config = stub.record("config").unwrap();
    assert!(
        Path::new(&config).ends_with("bob-eval-config") && !Path::new(&config).starts_with(&plugin),
        "{config}"
    );
    assert_eq!(stub.record("manifest").as_deref(), Some("real"));
    let link = stub.record("item-link").unwrap();
    assert!(Path::new(&link).is_absolute(), "{link}");
    assert_eq!(
        Path::new(&link),
        std::fs::canonicalize(data("source/skills/commit")).unwrap()
    );
    assert!(
        !Path::new(&plugin).exists(),
        "the temp plugin is removed without --keep"
    );

    let doc: Value = serde_json::from_slice(&out.stdout).expect("stdout is only the JSON document");
    assert!(text(&out.stdout).ends_with("}\n"));
    assert_eq!(doc["schema"], "skill-eval/1");
    assert_eq!(doc["item"], "commit");
    assert_eq!(doc["model"], "default");
    assert_eq!(doc["max_cost_usd"], 2.0);
    let raw = read_json(&data("platform/run1_main.json"));
    expect::assert_matches(&doc, &expect::expected(&raw));
    let run = doc["run"].as_str().unwrap();
    // `eval-commit-<UTC start to the microsecond>Z-<8 hex digits>`.
    let (stamp, suffix) = run["eval-commit-".len()..].split_once("Z-").unwrap();
    assert!(
        run.starts_with("eval-commit-")
            && stamp.len() == "20261202T094337.123456".len()
            && suffix.len() == 8
            && suffix.bytes().all(|b| b.is_ascii_hexdigit()),
        "{run}"
    );
    assert_eq!(&run[12..20], doc["date"].as_str().unwrap().replace('-', ""));

    let stderr = text(&out.stderr);
    assert!(stderr.contains("commit on default"), "{stderr}");
    assert!(stderr.contains("trigger rate"), "{stderr}");
}

#[test]
fn explicit_options_are_passed_in_order() {
    let env = Env::new();
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let args = [
        "commit",
        "--model",
        "haiku",
        "--runs",
        "2",
        "--max-cost-usd",
        "0.5",
        "--judge-model",
        "sonnet",
        "-j",
        "3",
    ];
    env.run(&stub, &args).assert().code(0);
    let argv = eval_argv(&stub).unwrap();
    let tail = [
        "--max-cost-usd",
        "0.5",
        "--trust-plugin",
        "--no-publish",
        "--keep-temp",
        "--model",
        "haiku",
        "--runs",
        "2",
        "--judge-model",
        "sonnet",
        "-j",
        "3",
    ];
    assert_eq!(argv, expected_args(&argv[2], &tail));
}

#[test]
fn model_and_ceiling_from_environment_and_settings() {
    let env = Env::new();
    std::fs::write(
        env.home.path().join("settings.json"),
        r#"{"model": "from-settings", "_workflow": {"eval_max_cost_usd": 0.75}}"#,
    )
    .unwrap();
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let out = env.run(&stub, &["commit"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let argv = eval_argv(&stub).unwrap();
    assert_eq!(
        argv[9..].join(" "),
        "--max-cost-usd 0.75 --trust-plugin --no-publish --keep-temp --model from-settings"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (doc["model"].as_str(), doc["max_cost_usd"].as_f64()),
        (Some("from-settings"), Some(0.75))
    );

    env.run(&stub, &["commit"])
        .env("ANTHROPIC_MODEL", "from-env")
        .assert()
        .code(0);
    assert_eq!(
        eval_argv(&stub).unwrap()[14..].join(" "),
        "--model from-env"
    );
}

#[test]
fn out_file_is_written_and_stdout_stays_empty() {
    let env = Env::new();
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let out = env
        .run(&stub, &["commit", "--out"])
        .arg(env.out())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let doc = read_json(&env.out());
    expect::assert_matches(
        &doc,
        &expect::expected(&read_json(&data("platform/run1_main.json"))),
    );
    assert!(text(&out.stderr).contains("wrote "));
}

#[test]
fn progress_lines_on_a_pipe_and_kept_folder() {
    let env = Env::new();
    let stub = Stub::new(Switches {
        stderr: std::fs::read(data("platform/run2_table_no_json.stderr.txt")).unwrap(),
        ..Switches::answering(data("platform/run2_table_no_json.json"))
    });
    let out = env.run(&stub, &["commit", "--keep"]).output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("run 1/8: fires 1/2 [with] score 1.00"),
        "{stderr}"
    );
    assert!(stderr.contains("run 8/8: quiet 2/2 [without]"), "{stderr}");
    let plugin = PathBuf::from(&eval_argv(&stub).unwrap()[2]);
    assert!(
        stderr.contains(&format!("keeping the plugin folder {}", plugin.display())),
        "{stderr}"
    );
    let log = std::fs::read_to_string(plugin.join(".bob-eval/platform-stderr.log")).unwrap();
    assert!(log.contains("Ablation: 2 arms × 2 cases (8 runs)"));
    assert!(plugin.join(".bob-eval/out/aggregate-result.json").is_file());
    assert!(
        std::fs::symlink_metadata(plugin.join("skills/commit"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(plugin.join("evals/commit/fires/prompt.md").is_file());
    assert!(!plugin.join("evals/commit/baseline.json").exists());
    assert!(!plugin.join("evals/commit/results").exists());
    std::fs::remove_dir_all(plugin).unwrap();
}

#[test]
fn partial_cost_ceiling_is_a_result() {
    let env = Env::new();
    let stub = Stub::new(Switches::at_the_ceiling());
    let out = env
        .run(&stub, &["commit", "--max-cost-usd", "0.01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (doc["partial"].as_bool(), doc["partial_reason"].as_str()),
        (Some(true), Some("cost_ceiling"))
    );
    expect::assert_matches(
        &doc,
        &expect::expected(&read_json(&data("platform/run5_partial_cost.json"))),
    );
    assert!(text(&out.stderr).contains("cost ceiling $0.01 hit"));
}

/// A result the ceiling cut short names the command that completes it: the
/// same evaluation (its flags given again) under a ceiling priced from the
/// evidence store, which now keeps the runs bought; that command runs as
/// printed and asks the platform for the new ceiling.
#[test]
fn a_result_cut_short_names_the_command_that_completes_it() {
    let env = Env::new();
    let stub = Stub::new(Switches::at_the_ceiling());
    let out = env
        .run(
            &stub,
            &[
                "commit",
                "--max-cost-usd",
                "0.01",
                "--model",
                "haiku",
                "--runs",
                "3",
            ],
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let args = printed_args(&stderr, "next: complete it: bob-eval ");
    assert_eq!(args[..2], ["run", "commit"], "{args:?}");
    for flag in [["--model", "haiku"], ["--runs", "3"]] {
        assert!(args.windows(2).any(|w| w == flag), "{flag:?} in {args:?}");
    }
    // --claude is given again: the platform binary is part of the runs' key.
    assert!(args.contains(&"--claude"), "{args:?}");
    let ceiling: f64 = args[args.iter().position(|a| *a == "--max-cost-usd").unwrap() + 1]
        .parse()
        .unwrap();
    assert!(ceiling > 0.01, "{args:?}");
    assert!(stderr.contains("12 runs to buy at $"), "{stderr}");

    let again = env.cmd(&args[1..]).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let argv = eval_argv(&stub).expect("the platform ran");
    let asked = argv
        .windows(2)
        .find(|w| w[0] == "--max-cost-usd")
        .map(|w| w[1].parse::<f64>().unwrap())
        .expect("a ceiling for the platform");
    assert!(asked > 0.01 && asked <= ceiling, "{argv:?}");
}

#[test]
fn auth_failed_exits_3() {
    let env = Env::new();
    let stub = Stub::new(Switches {
        code: 2,
        ..Switches::answering(data("platform/auth_failed_commit.json"))
    });
    let stderr = fails(&env, env.run(&stub, &["commit"]), 3);
    assert!(stderr.contains("credential was rejected"), "{stderr}");
}

#[test]
fn crashes_and_kills_exit_3() {
    for (mode, code, says) in [
        (None, 139, "code 139"),
        (Some("segv"), 0, "signal 11"),
        (Some("kill"), 0, "signal 9"),
        (None, 7, "code 7"),
    ] {
        let env = Env::new();
        let stub = Stub::new(Switches {
            code,
            stderr: "boom: something broke\n".into(),
            mode,
            ..Switches::answering(data("platform/run1_main.json"))
        });
        let stderr = fails(&env, env.run(&stub, &["commit"]), 3);
        assert!(stderr.contains(says), "{mode:?} {code}: {stderr}");
        assert!(stderr.contains("boom: something broke"), "{stderr}");
    }
}

#[test]
fn garbage_result_exits_3() {
    let env = Env::new();
    let stub = Stub::new(Switches {
        fixture: Some("this is not JSON\n".into()),
        ..Switches::default()
    });
    let stderr = fails(&env, env.run(&stub, &["commit"]), 3);
    assert!(stderr.contains("aggregate-result.json:1"), "{stderr}");
}

#[test]
fn missing_result_exits_3() {
    let env = Env::new();
    let stub = Stub::new(Switches::default());
    let stderr = fails(&env, env.run(&stub, &["commit"]), 3);
    assert!(stderr.contains("wrote no result"), "{stderr}");
}

#[test]
fn exit_1_carries_the_load_errors() {
    let env = Env::new();
    let stub = Stub::new(Switches {
        code: 1,
        stderr: std::fs::read(data("platform/run7_no_manifest.stderr.txt")).unwrap(),
        ..Switches::answering(data("platform/run7_no_manifest.json"))
    });
    let stderr = fails(&env, env.run(&stub, &["commit"]), 3);
    assert!(stderr.contains("exited with code 1"), "{stderr}");
    assert!(
        stderr.contains("✗ /srv/demo/plugin_nomanifest/evals/commit/fires: ablation requested"),
        "{stderr}"
    );
    assert!(
        stderr.contains("✗ /srv/demo/plugin_nomanifest/evals/commit/quiet: ablation requested"),
        "{stderr}"
    );
    assert!(stderr.contains("Couldn't load 2 case files"), "{stderr}");
}

#[test]
fn plugin_not_loaded_exits_3() {
    for fixture in [
        "run7_no_manifest.json",
        "run8_no_manifest_default_ablation.json",
        "run9_skill_dir_no_manifest.json",
        "with-without-prose.json",
    ] {
        let env = Env::new();
        let stub = Stub::new(Switches::answering(data(&format!("platform/{fixture}"))));
        let stderr = fails(&env, env.run(&stub, &["commit"]), 3);
        assert!(
            stderr.contains("the plugin did not load"),
            "{fixture}: {stderr}"
        );
    }
}

#[test]
fn platform_too_old_or_unparsable_version() {
    let env = Env::new();
    let stub = Stub::new(Switches {
        version: "2.1.271 (Claude Code)\n",
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let stderr = fails(&env, env.run(&stub, &["commit"]), 3);
    assert!(
        stderr.contains("2.1.271") && stderr.contains("2.1.272 or later"),
        "{stderr}"
    );
    assert!(
        eval_argv(&stub).is_none(),
        "no eval with a too-old platform"
    );

    let stub = Stub::new(Switches {
        version: "Claude Code, some build\n",
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let stderr = fails(&env, env.run(&stub, &["commit"]), 3);
    assert!(stderr.contains("did not print a version"), "{stderr}");
    assert!(eval_argv(&stub).is_none());
}

#[test]
fn platform_missing() {
    let env = Env::new();
    let stderr = fails(
        &env,
        env.cmd(&["commit", "--claude", "/nonexistent/claude"]),
        3,
    );
    assert!(
        stderr.contains("/nonexistent/claude") && stderr.contains("npm install"),
        "{stderr}"
    );

    let empty = tempfile::tempdir().unwrap();
    let mut cmd = env.cmd(&["commit"]);
    cmd.env_remove("BOB_EVAL_CLAUDE").env("PATH", empty.path());
    let stderr = fails(&env, cmd, 3);
    assert!(
        stderr.contains("no `claude` found") && stderr.contains("BOB_EVAL_CLAUDE"),
        "{stderr}"
    );

    let mut cmd = env.cmd(&["commit"]);
    cmd.env("BOB_EVAL_CLAUDE", "/nonexistent/from-env");
    let stderr = fails(&env, cmd, 3);
    assert!(
        stderr.contains("/nonexistent/from-env (from BOB_EVAL_CLAUDE)"),
        "{stderr}"
    );
}

#[test]
fn claude_from_environment_and_path() {
    let env = Env::new();
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    env.cmd(&["commit"])
        .env("BOB_EVAL_CLAUDE", &stub.bin)
        .assert()
        .code(0);
    assert!(eval_argv(&stub).is_some());

    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let path = format!("{}:/usr/bin:/bin", stub.bin.parent().unwrap().display());
    env.cmd(&["commit"])
        .env_remove("BOB_EVAL_CLAUDE")
        .env("PATH", path)
        .assert()
        .code(0);
    assert!(eval_argv(&stub).is_some());
}

#[test]
fn bad_ceilings_exit_2_before_anything_runs() {
    for bad in ["0", "-1", "NaN", "inf", "two", ""] {
        let env = Env::new();
        let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
        let stderr = fails(&env, env.run(&stub, &["commit", "--max-cost-usd", bad]), 2);
        assert!(stderr.contains("--max-cost-usd"), "{bad}: {stderr}");
        assert!(stub.record("calls").is_none(), "{bad}: the platform ran");
    }
    let env = Env::new();
    std::fs::write(
        env.home.path().join("settings.json"),
        r#"{"_workflow": {"eval_max_cost_usd": -2}}"#,
    )
    .unwrap();
    let stub = Stub::new(Switches::default());
    let stderr = fails(&env, env.run(&stub, &["commit"]), 2);
    assert!(
        stderr.contains("settings.json") && stderr.contains("eval_max_cost_usd"),
        "{stderr}"
    );
    assert!(stub.record("calls").is_none());
}

#[test]
fn bad_or_missing_items_exit_2_before_anything_runs() {
    for (item, says) in [
        ("Commit", "invalid item name"),
        ("../commit", "invalid item name"),
        ("nope", "no item named \"nope\""),
        ("nosuite", "no eval suite for \"nosuite\""),
        // A typo of an existing suite gets the name it meant.
        ("comit", "did you mean `commit`?"),
        ("commits", "did you mean `commit`?"),
    ] {
        let env = Env::new();
        let stub = Stub::new(Switches::default());
        let stderr = fails(&env, env.run(&stub, &[item]), 2);
        assert!(stderr.contains(says), "{item}: {stderr}");
        assert!(stub.record("calls").is_none(), "{item}: the platform ran");
    }
}

#[test]
fn the_ceiling_in_force_and_where_it_came_from_is_said_once() {
    for (args, settings, says) in [
        (
            vec!["--max-cost-usd", "0.5"],
            None,
            "cost ceiling $0.50 (from --max-cost-usd)",
        ),
        (
            vec![],
            Some(r#"{"_workflow": {"eval_max_cost_usd": 0.75}}"#),
            "cost ceiling $0.75 (from _workflow.eval_max_cost_usd in",
        ),
        (
            vec![],
            None,
            "cost ceiling $2.00 (the default: no --max-cost-usd given",
        ),
    ] {
        let env = Env::new();
        if let Some(text) = settings {
            std::fs::write(env.home.path().join("settings.json"), text).unwrap();
        }
        let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
        let mut all = vec!["commit"];
        all.extend(args);
        let out = env.run(&stub, &all).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert_eq!(stderr.matches("cost ceiling $").count(), 1, "{stderr}");
        assert!(stderr.contains(says), "{says}: {stderr}");
    }
}

#[test]
fn platform_result_reduces_captures_without_running() {
    for capture in [
        "run1_main.json",
        "run2_table_no_json.json",
        "run5_partial_cost.json",
    ] {
        let env = Env::new();
        let stub = Stub::new(Switches::default());
        let file = data(&format!("platform/{capture}"));
        let out = env
            .run(&stub, &["commit", "--platform-result"])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{capture}: {}",
            text(&out.stderr)
        );
        assert!(
            stub.record("calls").is_none(),
            "{capture}: --platform-result must not run the platform"
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let raw = read_json(&file);
        expect::assert_matches(&doc, &expect::expected(&raw));
        let started = raw["startedAt"].as_str().unwrap();
        let stamp: String = started[..19]
            .chars()
            .filter(|c| c.is_ascii_digit() || *c == 'T')
            .collect();
        assert_eq!(
            doc["run"].as_str().unwrap(),
            format!("eval-commit-{stamp}Z"),
            "{capture}"
        );
        assert_eq!(doc["date"].as_str().unwrap(), &started[..10]);
    }
}

#[test]
fn platform_result_of_other_plugins_is_refused() {
    for capture in expect::NOT_COMMIT_CAPTURES {
        let env = Env::new();
        let mut cmd = env.cmd(&["commit", "--platform-result"]);
        cmd.arg(data(&format!("platform/{capture}")));
        let stderr = fails(&env, cmd, 3);
        assert!(
            stderr.contains("the plugin did not load"),
            "{capture}: {stderr}"
        );
    }
    // The item decides the expected plugin name.
    let env = Env::new();
    let mut cmd = env.cmd(&["other", "--platform-result"]);
    cmd.arg(data("platform/run1_main.json"));
    let stderr = fails(&env, cmd, 3);
    assert!(stderr.contains("bob-eval-other"), "{stderr}");
}

#[test]
fn platform_result_bad_json_exits_2_naming_file_and_line() {
    let env = Env::new();
    let bad = env.work.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"schemaVersion\": 1,\n  \"suite\": nope\n}\n").unwrap();
    let mut cmd = env.cmd(&["commit", "--platform-result"]);
    cmd.arg(&bad);
    let stderr = fails(&env, cmd, 2);
    assert!(stderr.contains("bad.json:3"), "{stderr}");

    std::fs::write(&bad, r#"{"schemaVersion": 2, "suite": {}}"#).unwrap();
    let mut cmd = env.cmd(&["commit", "--platform-result"]);
    cmd.arg(&bad);
    let stderr = fails(&env, cmd, 2);
    assert!(stderr.contains("schemaVersion 2"), "{stderr}");
}

#[test]
fn interrupt_reaches_the_platform_first_and_exits_130() {
    let env = Env::new();
    let stub = Stub::new(Switches {
        mode: Some("wait"),
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let mut child = env
        .run(&stub, &["commit", "--out"])
        .arg(env.out())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Bounded wait for the stub to be waiting for its signal.
    let mut ready = false;
    for _ in 0..600 {
        if stub.record("started").is_some() {
            ready = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if !ready {
        let _ = child.kill();
        panic!("the stub platform never started");
    }
    // SAFETY: signalling our own child by PID.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert_eq!(
        stub.record("signalled").as_deref(),
        Some("bob-eval-commit"),
        "the platform got the signal"
    );
    assert!(text(&out.stderr).contains("interrupted"));
    assert!(out.stdout.is_empty());
    assert!(!env.out().exists());
}

#[test]
fn a_suite_check_refuses_is_not_run_and_warnings_are_shown() {
    let tree = tempfile::tempdir().unwrap();
    copy_tree(&data("source"), tree.path());
    let env = Env::on(tree.path().to_path_buf());
    let subject = tree.path().join("evals/commit/fires/graders/subject.md");
    let original = std::fs::read_to_string(&subject).unwrap();
    std::fs::write(&subject, original.replacen("type:", "typ:", 1)).unwrap();
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let stderr = fails(&env, env.run(&stub, &["commit"]), 2);
    assert!(
        stderr.contains("evals/commit/fires/graders/subject.md:2: error: unknown key `typ`"),
        "{stderr}"
    );
    assert!(stderr.contains("bob-eval check commit"), "{stderr}");
    assert!(
        eval_argv(&stub).is_none(),
        "the platform ran on a suite check refuses"
    );

    // A warning does not stop the run; it is shown on stderr.
    std::fs::write(&subject, &original).unwrap();
    let prompt = tree.path().join("evals/commit/fires/prompt.md");
    let p = std::fs::read_to_string(&prompt).unwrap();
    std::fs::write(
        &prompt,
        p.replacen(
            "max_turns: 6",
            "max_turns: 6\nallowed_tools: [Skill, Bash]",
            1,
        ),
    )
    .unwrap();
    let out = env.run(&stub, &["commit"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("warning: `Bash` in allowed_tools"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn progress_bar_on_a_terminal() {
    // `script` (util-linux) gives bob-eval a terminal on stderr.
    let env = Env::new();
    let stub = Stub::new(Switches {
        stderr: "Plugin under test: \"bob-eval-commit\" version \"0.0.0\" at \"x\"\n\
             Ablation: 2 arms × 2 cases (4 runs)\n\
             \x20 fires run 1/1 [with]: score 1.00  $0.03\n\
             \x20 fires run 1/1 [without]: score 0.00  $0.03\n\
             \x20 quiet run 1/1 [with]: score 1.00  $0.01\n\
             \x20 quiet run 1/1 [without]: score 1.00  $0.01\n"
            .into(),
        slow: true,
        ..Switches::answering(data("platform/run2_table_no_json.json"))
    });
    let mut cmd = env.run(&stub, &["commit", "--max-cost-usd", "0.5", "--out"]);
    cmd.arg(env.out());
    let transcript = env.work.path().join("typescript");
    let out = in_a_terminal(&cmd, &transcript)
        .output()
        .expect("script(1) from util-linux");
    let screen = std::fs::read_to_string(&transcript).unwrap();
    assert_eq!(out.status.code(), Some(0), "{screen}");
    // The bar: runs done of the total, dollars of the ceiling, the current case.
    assert!(
        screen.contains("2/4 runs  $0.06 of $0.50  fires"),
        "{screen}"
    );
    assert!(
        screen.contains("4/4 runs  $0.08 of $0.50  quiet"),
        "{screen}"
    );
    // Not the one-line-per-run form a pipe gets.
    assert!(!screen.contains("run 1/4: fires 1/1 [with]"), "{screen}");
    assert!(env.out().exists());
}

/// The capture `run2_table_no_json.json` with one more grader on every fires
/// run, `close-to-reference`, that threw: its baseline file is not JSON Lines
/// (the issue's case). `subject` and `why` fail on the without arm as captured.
fn with_a_grader_error() -> Vec<u8> {
    let mut doc = read_json(&data("platform/run2_table_no_json.json"));
    for case in doc["cases"].as_array_mut().unwrap() {
        if case["name"] != "fires" {
            continue;
        }
        for arm in ["with", "without"] {
            for run in case["arms"][arm].as_array_mut().unwrap() {
                run["graders"].as_array_mut().unwrap().push(serde_json::json!({
                    "name": "close-to-reference", "passed": false, "weight": 1,
                    "explanation": "grader threw: failed to read baseline: JSON Parse error: Unexpected identifier \"reference\"",
                    "withOnly": false, "scored": true
                }));
            }
        }
    }
    serde_json::to_vec(&doc).unwrap()
}

#[test]
fn a_failing_grader_and_a_grader_error_are_named_with_their_reasons() {
    let env = Env::new();
    let stub = Stub::new(Switches {
        fixture: Some(with_a_grader_error()),
        ..Switches::default()
    });
    let out = env.run(&stub, &["commit"]).output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fires = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "fires")
        .unwrap();
    let graders = fires["graders"].as_array().unwrap();
    let names: Vec<&str> = graders
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fires", "subject", "why", "close-to-reference"]);
    assert_eq!(
        graders[0],
        serde_json::json!({"name": "fires", "kind": "with-only", "with": {"passed": 2, "runs": 2}})
    );
    assert_eq!(
        graders[1],
        serde_json::json!({"name": "subject", "kind": "scored", "with": {"passed": 2, "runs": 2},
            "without": {"passed": 0, "runs": 2}, "failure": "pattern not found in last_message"})
    );
    assert_eq!(graders[3]["error"], true);
    assert_eq!(
        graders[3]["failure"],
        "grader threw: failed to read baseline: JSON Parse error: Unexpected identifier \"reference\""
    );
    assert_eq!(
        graders[3]["with"],
        serde_json::json!({"passed": 0, "runs": 2})
    );
    // The summary: the suite error first and on top, then one line per failed grader.
    assert!(
        stderr.contains(
            "SUITE ERRORS: 1 grader(s) threw instead of judging (fires/close-to-reference)"
        ),
        "{stderr}"
    );
    for line in [
        "! close-to-reference (scored) with 0/2, without 0/2: the grader threw, an error of the suite (not the model failing): failed to read baseline: JSON Parse error: Unexpected identifier \"reference\"",
        "✓ subject (scored) with 2/2, without 0/2: tells the arms apart (passes more with the item)",
        "✓ why (scored) with 2/2, without 0/2: tells the arms apart (passes more with the item)",
        "✓ fires (with-only) with 2/2: with-only indicator, held (no without arm, by design)",
    ] {
        assert!(
            stderr.lines().any(|l| l.trim() == line),
            "missing {line:?} in\n{stderr}"
        );
    }
    // Passing with the item and failing without it is a grader doing its
    // job: no ✗, and no failure words of the without arm.
    assert!(!stderr.contains('✗'), "{stderr}");
    assert!(!stderr.contains("pattern not found"), "{stderr}");
}

const STUB_REPORT: &str = "<!doctype html><title>stub report</title>\n";

#[test]
fn the_platform_report_is_saved_where_asked() {
    let env = Env::new();
    let stub = Stub::new(Switches {
        report: Some(STUB_REPORT),
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let report = env.work.path().join("reports/commit.html");
    std::fs::create_dir_all(report.parent().unwrap()).unwrap();
    let out = env
        .run(&stub, &["commit", "--runs", "2", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(std::fs::read_to_string(&report).unwrap(), STUB_REPORT);
    assert!(
        stderr.contains(&format!(
            "saved the platform's report at {}",
            report.display()
        )),
        "{stderr}"
    );

    // Run again (the capture holds 2 runs per arm): every run is reused, the
    // platform does not run, and there is no report to save.
    std::fs::remove_file(&report).unwrap();
    let out = env
        .run(&stub, &["commit", "--runs", "2", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!report.exists(), "no report without a platform run");
    assert!(
        stderr.contains("no report saved at") && stderr.contains("--fresh"),
        "{stderr}"
    );
}

#[test]
fn the_report_beside_a_platform_result_is_saved() {
    let env = Env::new();
    let stub = Stub::new(Switches::default());
    let folder = env.work.path().join("out");
    std::fs::create_dir_all(&folder).unwrap();
    let result = folder.join("aggregate-result.json");
    std::fs::copy(data("platform/run1_main.json"), &result).unwrap();
    let report = env.work.path().join("kept.html");
    let run = |env: &Env| {
        env.run(&stub, &["commit", "--platform-result"])
            .arg(&result)
            .arg("--report")
            .arg(&report)
            .output()
            .unwrap()
    };
    let out = run(&env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!report.exists());
    assert!(
        text(&out.stderr).contains("the platform wrote no report.html beside"),
        "{}",
        text(&out.stderr)
    );
    std::fs::write(folder.join("report.html"), STUB_REPORT).unwrap();
    let out = run(&env);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&report).unwrap(), STUB_REPORT);
}

#[test]
fn an_unwritable_report_is_refused_before_anything_runs() {
    let env = Env::new();
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let missing = env.work.path().join("no/such/folder/r.html");
    let mut cmd = env.run(&stub, &["commit", "--report"]);
    cmd.arg(&missing);
    let stderr = fails(&env, cmd, 2);
    assert!(stderr.contains("r.html"), "{stderr}");
    assert!(stub.record("calls").is_none(), "nothing ran");
}

/// `--neighbours` mistakes are refused before the platform runs: an unknown
/// name, only the item itself, and `--platform-result` beside it.
#[test]
fn neighbours_mistakes_cost_nothing() {
    let env = Env::new();
    for (args, says) in [
        (
            vec!["commit", "--neighbours", "nope"],
            "--neighbours: no item named \"nope\"",
        ),
        (vec!["commit", "--neighbours", "commit"], "no other item"),
        (
            vec!["commit", "--platform-result", "x.json", "--neighbours"],
            "give one of them",
        ),
    ] {
        let stub = Stub::new(Switches::default());
        let stderr = fails(&env, env.run(&stub, &args), 2);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert_eq!(eval_argv(&stub), None, "{args:?}: the platform ran");
    }
}

/// `--mocks off` and `--allow-real-servers` reach the platform as its own
/// options, are shown in the document and the summary, and key the runs
/// apart: the platform's default buys them again.
#[test]
fn mcp_server_choices_are_passed_shown_and_keyed_apart() {
    let env = Env::new();
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let store = env.work.path().join("evidence.db");
    let out = env
        .run(&stub, &["commit", "--mocks", "off", "--allow-real-servers"])
        .arg("--evidence")
        .arg(&store)
        .arg("--out")
        .arg(env.out())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let argv = eval_argv(&stub).unwrap();
    let at = argv.iter().position(|a| a == "--mocks").unwrap();
    assert_eq!(argv[at + 1], "off");
    assert!(
        argv.contains(&"--allow-real-servers".to_string()),
        "{argv:?}"
    );
    assert_eq!(
        read_json(&env.out())["mcp_servers"],
        "off+allow-real-servers"
    );
    assert!(
        text(&out.stderr).contains("MCP servers: off+allow-real-servers (keyed apart"),
        "{}",
        text(&out.stderr)
    );
    let calls = |stub: &Stub| {
        stub.record("calls")
            .unwrap()
            .lines()
            .filter(|l| l.contains("plugin eval"))
            .count()
    };
    let before = calls(&stub);
    let out = env
        .run(&stub, &["commit"])
        .arg("--evidence")
        .arg(&store)
        .arg("--out")
        .arg(env.out())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        calls(&stub),
        before + 1,
        "the default is keyed apart: bought again"
    );
    let argv = eval_argv(&stub).unwrap();
    assert!(
        !argv
            .iter()
            .any(|a| a == "--mocks" || a == "--allow-real-servers"),
        "{argv:?}"
    );
    assert!(read_json(&env.out()).get("mcp_servers").is_none());
}
