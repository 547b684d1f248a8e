//! On the real platform tier: the eval child is a clean room for the
//! operator's own set-up. The platform's home folder holds, the way the
//! platform itself writes them, skills named like the item under test
//! (`commit`) and others:
//! - `~/.claude/skills/commit/` and `~/.claude/skills/homeonly/` (personal skills);
//! - `~/.claude/skills/sdkit/`, a skills-dir plugin (`claude plugin init`);
//! - the plugin `opskit` (skills `commit` and `tidy`) installed from a local
//!   marketplace with `claude plugin marketplace add` and `claude plugin install`
//!   (`~/.claude/plugins/installed_plugins.json`, `known_marketplaces.json`, the
//!   cache, `enabledPlugins` in `~/.claude/settings.json`);
//! - and the current folder holds `.claude/skills/commit/`,
//!   `.claude/skills/projectonly/` and a `CLAUDE.md`.
//!
//! A plain `claude -p` session in that set-up is offered every one of them (the
//! control: the fixtures are real). The requests of both arms of `bob-eval run`
//! list none of them, and no request body holds their text: what each arm is
//! offered is the item (with arm only) and the platform's built-in skills. If a
//! future platform lets the operator's set-up in, this test fails, and bob-eval
//! has to isolate the runs (docs/platform.md, "The clean room").

use crate::support;
use support::tier::{self, Tool};

use std::path::Path;
use support::fake_api::{FakeApi, Kind, Recorded, Script};
use support::real::{claude_bin, platform_env, source_copy};

/// The item as bob-eval's plugin names it (listed on the with arm only).
const ITEM: &str = "bob-eval-commit:commit";
/// What the operator's set-up adds to a plain session's skills list.
const OPERATOR_SKILLS: [&str; 6] = [
    "commit",
    "homeonly",
    "opskit:commit",
    "opskit:tidy",
    "projectonly",
    "sdkit",
];
/// Every operator file holds this marker, followed by where it lives.
const MARKER: &str = "OPERATOR-SETUP";
/// The places, as the markers name them: each must reach a plain session.
const PLACES: [&str; 5] = [
    "home",
    "skills-dir",
    "installed plugin",
    "project",
    "memory",
];

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill(name: &str, place: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {MARKER} {place} skill {name}: write commit messages\n---\n{MARKER} body of {place} {name}\n"
    )
}

/// `claude ARGS` in `dir` with `env`; panics unless it succeeds.
fn claude(env: &[(String, String)], dir: &Path, args: &[&str]) {
    let out = std::process::Command::new(claude_bin())
        .args(args)
        .env_clear()
        .envs(env.iter().cloned())
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "claude {args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The operator's set-up in the platform's home (`dir/home`) and in `dir`.
fn operator_setup(env: &[(String, String)], dir: &Path) {
    let home = dir.join("home");
    for name in ["commit", "homeonly"] {
        write(
            &home.join(format!(".claude/skills/{name}/SKILL.md")),
            &skill(name, "home"),
        );
    }
    claude(
        env,
        dir,
        &["plugin", "init", "sdkit", "--description", MARKER],
    );
    write(
        &home.join(".claude/skills/sdkit/SKILL.md"),
        &skill("sdkit", "skills-dir"),
    );
    let market = dir.join("market");
    write(
        &market.join(".claude-plugin/marketplace.json"),
        r#"{"name": "opsmarket", "owner": {"name": "ops"}, "plugins": [{"name": "opskit", "source": "./opskit", "description": "the operator's kit"}]}"#,
    );
    write(
        &market.join("opskit/.claude-plugin/plugin.json"),
        r#"{"name": "opskit", "version": "1.0.0", "description": "the operator's kit"}"#,
    );
    for name in ["commit", "tidy"] {
        write(
            &market.join(format!("opskit/skills/{name}/SKILL.md")),
            &skill(name, "installed plugin"),
        );
    }
    claude(
        env,
        dir,
        &["plugin", "marketplace", "add", market.to_str().unwrap()],
    );
    claude(env, dir, &["plugin", "install", "opskit@opsmarket"]);
    assert!(
        home.join(".claude/plugins/installed_plugins.json")
            .is_file()
    );
    for name in ["commit", "projectonly"] {
        write(
            &dir.join(format!(".claude/skills/{name}/SKILL.md")),
            &skill(name, "project"),
        );
    }
    write(
        &dir.join("CLAUDE.md"),
        &format!("{MARKER} memory: always sign commits.\n"),
    );
}

fn show(requests: &[Recorded]) -> String {
    requests.iter().map(|r| format!("{r}\n")).collect()
}

#[test]
fn neither_arm_sees_the_operators_skills_or_plugins() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(Script::new().otherwise("OK."));
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let env = platform_env(&api, dir.path());
    operator_setup(&env, dir.path());

    // The control: a plain session is offered the whole set-up.
    claude(&env, dir.path(), &["-p", "CONTROL: say hello"]);
    let control: Vec<Recorded> = api
        .requests_of(Kind::Agent)
        .into_iter()
        .filter(|r| r.user_text().contains("CONTROL"))
        .collect();
    assert!(!control.is_empty(), "{}", show(&api.requests()));
    for r in &control {
        for name in OPERATOR_SKILLS {
            assert!(r.offers_skill(name), "a plain session lacks {name}: {r}");
        }
    }
    let control_text: String = control.iter().map(|r| r.body.to_string()).collect();
    for place in PLACES {
        let marker = format!("{MARKER} {place}");
        assert!(
            control_text.contains(&marker),
            "a plain session lacks {marker}"
        );
    }
    let seen = api.requests().len();

    let out = support::cmd::bob(&source, &dir.path().join("bob-home"))
        .args([
            "run",
            "commit",
            "--runs",
            "1",
            "--max-cost-usd",
            "1",
            "--claude",
        ])
        .arg(claude_bin())
        .current_dir(dir.path())
        .env_clear()
        .envs(env)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");

    let runs: Vec<Recorded> = api.requests()[seen..]
        .iter()
        .filter(|r| r.kind == Kind::Agent)
        .cloned()
        .collect();
    let (with, without): (Vec<&Recorded>, Vec<&Recorded>) =
        runs.iter().partition(|r| r.offers_skill(ITEM));
    // Two cases, one run each, on each arm.
    assert!(with.len() >= 2 && without.len() >= 2, "{}", show(&runs));
    for r in &runs {
        for name in OPERATOR_SKILLS {
            assert!(
                !r.skills_listed.iter().any(|s| s == name),
                "an eval arm is offered the operator's {name}: {r}"
            );
        }
        assert!(
            !r.body.to_string().contains(MARKER),
            "an eval request holds the operator's set-up: {r}"
        );
    }
    // What the arms differ in is the item alone.
    let builtins = |r: &Recorded| -> Vec<String> {
        r.skills_listed
            .iter()
            .filter(|s| *s != ITEM)
            .cloned()
            .collect()
    };
    for r in with.iter().chain(&without) {
        assert_eq!(builtins(r), builtins(with[0]), "{}", show(&runs));
    }
}
