//! Test support shared by the integration tests: the fake Messages API, the
//! real `claude` binary, the offline platform environment and fixture copies.
//!
//! Each test binary uses a different part of it, so unused items are allowed.
#![allow(dead_code)]

pub mod fake_api;

use fake_api::FakeApi;
use std::path::{Path, PathBuf};

/// The real platform binary: `$BOB_EVAL_TEST_CLAUDE`, else the one `make claude`
/// installs under `.cache/claude-code`. Panics (the test fails) when absent.
pub fn claude_bin() -> PathBuf {
    let path = match std::env::var_os("BOB_EVAL_TEST_CLAUDE") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(".cache/claude-code/node_modules/.bin/claude"),
    };
    assert!(
        path.is_file(),
        "the real platform binary is missing at {}: run `make claude` (or set BOB_EVAL_TEST_CLAUDE)",
        path.display()
    );
    path
}

/// The environment that runs the real `claude` fully offline against `api`, with
/// its home and temp folders inside `dir` (created here). Use it on a cleared
/// environment — `cmd.env_clear().envs(platform_env(&api, dir))` — so nothing of
/// the developer's own setup (credentials, `ANTHROPIC_MODEL`, `BOB_*`) leaks in.
/// bob-eval passes its environment to `claude`, so setting it on `bob-eval` is
/// enough.
pub fn platform_env(api: &FakeApi, dir: &Path) -> Vec<(String, String)> {
    let home = dir.join("home");
    let tmp = dir.join("tmp");
    let runtime = dir.join("run");
    for d in [&home, &tmp, &runtime] {
        std::fs::create_dir_all(d).expect("create platform env folder");
    }
    let s = |p: &Path| p.to_str().expect("utf-8 temp path").to_string();
    let mut env = vec![
        ("HOME".to_string(), s(&home)),
        ("TMPDIR".to_string(), s(&tmp)),
        ("CLAUDE_CODE_TMPDIR".to_string(), s(&tmp)),
        ("XDG_RUNTIME_DIR".to_string(), s(&runtime)),
        ("ANTHROPIC_BASE_URL".to_string(), api.base_url()),
        (
            "ANTHROPIC_API_KEY".to_string(),
            "sk-ant-fake-test-key".to_string(),
        ),
        (
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".to_string(),
            "1".to_string(),
        ),
        ("DISABLE_TELEMETRY".to_string(), "1".to_string()),
        ("DISABLE_AUTOUPDATER".to_string(), "1".to_string()),
        ("DISABLE_ERROR_REPORTING".to_string(), "1".to_string()),
    ];
    if let Some(path) = std::env::var_os("PATH") {
        env.push(("PATH".to_string(), path.to_string_lossy().into_owned()));
    }
    env
}

/// The fixture source tree for the real-platform tier.
pub fn real_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real-source")
}

/// Copy the tree `from` into `to` (regular files and folders only).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create copy target");
    for entry in std::fs::read_dir(from).expect("read fixture folder") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy fixture file");
        }
    }
}

/// Add item `item` to `source`: the fixture's commit skill and suite, renamed
/// (skill name, trigger graders' input_match, baseline) so that it passes
/// `bob-eval check` as an item of its own.
pub fn add_item(source: &Path, item: &str) {
    let real = real_source();
    let skill = source.join("skills").join(item);
    std::fs::create_dir_all(&skill).expect("create skill folder");
    let text = std::fs::read_to_string(real.join("skills/commit/SKILL.md")).expect("fixture skill");
    std::fs::write(
        skill.join("SKILL.md"),
        text.replace("name: commit", &format!("name: {item}")),
    )
    .expect("write skill");
    let suite = source.join("evals").join(item);
    copy_tree(&real.join("evals/commit"), &suite);
    for grader in ["fires/graders/fires.md", "quiet/graders/quiet.md"] {
        let path = suite.join(grader);
        let text = std::fs::read_to_string(&path).expect("fixture grader");
        std::fs::write(&path, text.replace(")?commit\"", &format!(")?{item}\"")))
            .expect("write grader");
    }
    std::fs::write(
        suite.join("baseline.json"),
        format!(
            "{{\"schema\": \"skill-eval-baseline/1\", \"item\": \"{item}\", \"best\": {{}}}}\n"
        ),
    )
    .expect("write baseline");
}

/// A fresh copy of the fixture source in `dir/source`; returns its path.
pub fn source_copy(dir: &Path) -> PathBuf {
    let source = dir.join("source");
    copy_tree(&real_source(), &source);
    source
}
