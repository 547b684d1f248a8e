//! On the real platform tier (real `claude`, fake API): the environment
//! bob-eval gives the platform (docs/platform.md, "What bob-eval controls").
//!
//! Each variable of the table there changes what the platform asks the API
//! (the model of an agent turn or a judge vote, `max_tokens`, `thinking`,
//! `output_config`, the `anthropic-beta` header) when it reaches the arms.
//! Here each is set in the operator's environment, then in the operator's
//! `~/.claude/settings.json` `env` block and in the working folder's
//! `.claude/settings.json` and `.claude/settings.local.json`: the requests of
//! both arms stay those of a run without them. Opted into with
//! `--platform-env`, each does reach the arms (the control: the variable is
//! real) and its runs are bought, not reused from the runs without it (it
//! is keyed). A logged-in operator's credential (`~/.claude/.credentials.json`,
//! or under their own `CLAUDE_CONFIG_DIR`) still reaches the API, untouched.

use crate::support;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use support::fake_api::{FakeApi, Kind, Recorded, Script};
use support::real::RealWorld;
use support::tier::{self, Tool};
use support::world::outcome;

/// One variable of the table: the value tried, and the `--model` under
/// which its effect shows in the requests of this suite.
struct Entry {
    name: &'static str,
    value: &'static str,
    model: &'static str,
}

/// The variables of docs/platform.md's table whose effect a request shows.
const ENTRIES: [Entry; 10] = [
    Entry {
        name: "ANTHROPIC_DEFAULT_OPUS_MODEL",
        value: "claude-mapped-opus",
        model: "opus",
    },
    Entry {
        name: "ANTHROPIC_DEFAULT_SONNET_MODEL",
        value: "claude-mapped-sonnet",
        model: "sonnet",
    },
    Entry {
        name: "ANTHROPIC_DEFAULT_HAIKU_MODEL",
        value: "claude-mapped-haiku",
        model: "opus",
    },
    Entry {
        name: "ANTHROPIC_SMALL_FAST_MODEL",
        value: "claude-mapped-small",
        model: "opus",
    },
    Entry {
        name: "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
        value: "4096",
        model: "opus",
    },
    Entry {
        name: "CLAUDE_CODE_EFFORT_LEVEL",
        value: "low",
        model: "opus",
    },
    Entry {
        name: "CLAUDE_CODE_DISABLE_THINKING",
        value: "1",
        model: "opus",
    },
    Entry {
        name: "ANTHROPIC_BETAS",
        value: "bob-eval-test-beta-2099",
        model: "opus",
    },
    Entry {
        name: "DISABLE_INTERLEAVED_THINKING",
        value: "1",
        model: "opus",
    },
    Entry {
        name: "MAX_THINKING_TOKENS",
        value: "2048",
        model: "claude-sonnet-4-5",
    },
];

/// `ANTHROPIC_MODEL` in a settings `env` block: the model of every turn
/// when bob-eval names none (bob-eval reads the operator's own
/// `$ANTHROPIC_MODEL` as its `--model`).
const SETTINGS_MODEL: Entry = Entry {
    name: "ANTHROPIC_MODEL",
    value: "claude-settings-model",
    model: "default",
};

/// What a request asks the API, beyond its messages: its kind, model,
/// `max_tokens`, `thinking`, `output_config` and `anthropic-beta` header.
fn shape(r: &Recorded) -> String {
    format!(
        "{:?} model={:?} max_tokens={} thinking={} output_config={} beta={:?}",
        r.kind,
        r.model,
        r.body["max_tokens"],
        r.body["thinking"],
        r.body["output_config"],
        r.header("anthropic-beta")
    )
}

/// A world on the fake API (every agent turn answered `OK.`).
fn world() -> RealWorld {
    RealWorld::new(FakeApi::start(Script::new()))
}

/// What a run made the platform ask: the shapes of its agent turns and
/// judge votes, and its document.
struct Seen {
    shapes: BTreeSet<String>,
    requests: usize,
    doc: Value,
}

/// `bob-eval run commit --case fires --runs 1 --model MODEL ARGS…` in `w`
/// with `env` added to the operator's environment, run in `cwd` (the
/// world's folder when `None`); what the platform asked. The `fires` case
/// alone: its arms ask both kinds of request (agent turns and judge votes),
/// so the quiet case's would add sessions and no shape.
fn run(
    w: &RealWorld,
    model: &str,
    args: &[&str],
    env: &[(&str, &str)],
    cwd: Option<&Path>,
) -> Seen {
    let before = w.api.requests().len();
    let out = w.dir.path().join("doc.json");
    let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
    cmd.args([
        "run",
        "commit",
        "--case",
        "fires",
        "--runs",
        "1",
        "--max-cost-usd",
        "5",
        "--out",
    ])
    .arg(&out);
    if model != "default" {
        cmd.args(["--model", model]);
    }
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let (code, stdout, stderr) = outcome(cmd);
    assert_eq!(code, 0, "{model} {args:?} {env:?}: {stdout}{stderr}");
    let requests: Vec<Recorded> = w.api.requests()[before..]
        .iter()
        .filter(|r| r.kind != Kind::Other)
        .cloned()
        .collect();
    if !requests.is_empty() {
        for kind in [Kind::Agent, Kind::Judge] {
            assert!(
                requests.iter().any(|r| r.kind == kind),
                "{model} {args:?}: no {kind:?} request, so no shape of it to compare"
            );
        }
    }
    Seen {
        shapes: requests.iter().map(shape).collect(),
        requests: requests.len(),
        doc: serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap(),
    }
}

/// The models the entries are seen under.
fn models() -> BTreeSet<&'static str> {
    ENTRIES.iter().map(|e| e.model).collect()
}

/// The same variables (and `ANTHROPIC_MODEL`) in the operator's
/// `~/.claude/settings.json` `env` block, and in the working folder's
/// `.claude/settings.json` and `.claude/settings.local.json`: neither arm
/// sees them, against `clean` (each model's shapes without any variable;
/// the default model's is measured here). The control: a plain `claude -p`
/// in that set-up does.
fn no_settings_env_block_reaches_the_arms(w: &RealWorld, clean: &BTreeMap<&str, BTreeSet<String>>) {
    let block = |entries: &[&Entry]| -> String {
        let env: serde_json::Map<String, Value> = entries
            .iter()
            .map(|e| (e.name.to_string(), Value::from(e.value)))
            .collect();
        serde_json::json!({ "env": env }).to_string()
    };
    let mut entries: Vec<&Entry> = ENTRIES.iter().collect();
    entries.push(&SETTINGS_MODEL);
    let project = w.dir.path().join("project");
    let write = |path: &Path, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let mut models = models();
    models.insert(SETTINGS_MODEL.model);
    std::fs::create_dir_all(&project).unwrap();
    let files = [
        w.dir.path().join("home/.claude/settings.json"),
        project.join(".claude/settings.json"),
        project.join(".claude/settings.local.json"),
    ];
    for model in models {
        let clean = match clean.get(model) {
            Some(shapes) => shapes.clone(),
            None => run(w, model, &[], &[], Some(&project)).shapes,
        };
        // Each file carries every entry.
        for file in &files {
            write(file, &block(&entries));
        }
        let polluted = run(w, model, &["--fresh"], &[], Some(&project));
        assert!(polluted.requests > 0);
        assert_eq!(
            polluted.shapes, clean,
            "{model}: a settings env block ({files:?}) reached the arms"
        );
        for file in &files {
            std::fs::remove_file(file).unwrap();
        }
    }

    // The control: the user's block does reach a plain session.
    write(
        &w.dir.path().join("home/.claude/settings.json"),
        &block(&[&SETTINGS_MODEL]),
    );
    let before = w.api.requests().len();
    let status = std::process::Command::new(support::real::claude_bin())
        .args(["-p", "say hello"])
        .env_clear()
        .envs(support::real::platform_env(&w.api, w.dir.path()))
        .current_dir(w.dir.path())
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let plain = &w.api.requests()[before..];
    assert!(
        plain
            .iter()
            .any(|r| r.model.as_deref() == Some(SETTINGS_MODEL.value)),
        "a plain session ignores the settings env block: the control is void"
    );
}

/// Every variable of the table set in the operator's environment, at once:
/// the arms ask exactly what they ask without them, under every model. And
/// each variable opted into with `--platform-env NAME=VALUE` does reach the
/// arms (what they ask changes), its runs are bought although runs of the
/// same suite without it are stored (it is part of the key), and the
/// document names it. Then the same variables in settings `env` blocks
/// ([`no_settings_env_block_reaches_the_arms`]). One world: the runs without
/// any variable are the yardstick of all three.
#[test]
fn no_listed_variable_reaches_the_arms_unless_opted_into_and_each_opt_in_is_keyed() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let all: Vec<(&str, &str)> = ENTRIES.iter().map(|e| (e.name, e.value)).collect();
    let mut clean = BTreeMap::new();
    for model in models() {
        let plain = run(&w, model, &[], &[], None);
        assert!(plain.requests > 0, "{model}: no request");
        let polluted = run(&w, model, &["--fresh"], &all, None);
        assert!(polluted.requests > 0, "{model}: --fresh bought nothing");
        assert_eq!(
            polluted.shapes, plain.shapes,
            "{model}: the operator's variables reached the arms"
        );
        assert!(polluted.doc.get("platform_env").is_none());
        clean.insert(model, plain.shapes);
    }
    for e in &ENTRIES {
        let opt = format!("{}={}", e.name, e.value);
        let opted = run(&w, e.model, &["--platform-env", &opt], &[], None);
        assert!(
            opted.requests > 0,
            "{}: its runs were reused from runs without it",
            e.name
        );
        assert_ne!(
            opted.shapes, clean[e.model],
            "{}: opted in, it changed nothing the arms ask",
            e.name
        );
        assert_eq!(
            opted.doc["platform_env"],
            serde_json::json!({ e.name: e.value }),
            "{}",
            e.name
        );
        // The same opt-in again reuses its own runs.
        let again = run(&w, e.model, &["--platform-env", &opt], &[], None);
        assert_eq!(again.requests, 0, "{}: not reused", e.name);
    }
    no_settings_env_block_reaches_the_arms(&w, &clean);
}

/// A logged-in operator's credential reaches the API although bob-eval
/// gives the platform a config folder of its own: from
/// `~/.claude/.credentials.json`, and from the `.credentials.json` of the
/// operator's own `CLAUDE_CONFIG_DIR`; the file is left as it was.
#[test]
fn a_logged_in_operators_credential_still_works() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let expires = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 86_400)
        * 1000;
    let credential = |token: &str| {
        serde_json::json!({"claudeAiOauth": {
            "accessToken": token,
            "refreshToken": "sk-ant-ort01-bob-eval-test",
            "expiresAt": expires,
            "scopes": ["user:inference", "user:profile"],
            "subscriptionType": "max"
        }})
        .to_string()
    };
    let own = w.dir.path().join("own-config");
    for (dir, token, env) in [
        (w.dir.path().join("home/.claude"), "sk-ant-oat01-home", None),
        (own.clone(), "sk-ant-oat01-own", Some(own.to_str().unwrap())),
    ] {
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(".credentials.json");
        std::fs::write(&file, credential(token)).unwrap();
        let before = w.api.requests().len();
        let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
        cmd.env_remove("ANTHROPIC_API_KEY").args([
            "run",
            "commit",
            "--runs",
            "1",
            "--fresh",
            "--max-cost-usd",
            "5",
        ]);
        if let Some(dir) = env {
            cmd.env("CLAUDE_CONFIG_DIR", dir);
        }
        let (code, stdout, stderr) = outcome(cmd);
        assert_eq!(code, 0, "{token}: {stdout}{stderr}");
        let sent = &w.api.requests()[before..];
        assert!(!sent.is_empty());
        let bearer = format!("Bearer {token}");
        for r in sent.iter().filter(|r| r.kind != Kind::Other) {
            assert_eq!(r.header("authorization"), Some(bearer.as_str()), "{r}");
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), credential(token));
        std::fs::remove_file(&file).unwrap();
    }
}

/// A credential the operator keeps in `~/.claude/settings.json` still
/// reaches the API: a gateway's address and key in its `env` block, with
/// nothing of the kind in the environment.
#[test]
fn a_credential_in_the_operators_settings_still_works() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let settings = w.dir.path().join("home/.claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let key = "sk-ant-from-settings";
    let block = serde_json::json!({"env": {
        "ANTHROPIC_BASE_URL": w.api.base_url(),
        "ANTHROPIC_API_KEY": key,
    }});
    std::fs::write(&settings, block.to_string()).unwrap();
    let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
    cmd.env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .args(["run", "commit", "--runs", "1", "--max-cost-usd", "5"]);
    let (code, stdout, stderr) = outcome(cmd);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let sent: Vec<Recorded> = w
        .api
        .requests()
        .into_iter()
        .filter(|r| r.kind != Kind::Other)
        .collect();
    assert!(!sent.is_empty(), "no request reached the API");
    for r in &sent {
        assert_eq!(r.header("x-api-key"), Some(key), "{r}");
    }
}
