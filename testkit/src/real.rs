//! The real platform tier: the real `claude` binary, the environment that runs
//! it fully offline against the fake Messages API ([`crate::fake_api`]), and a
//! fresh copy of the fixture source it works on.

use crate::data::data;
use crate::fake_api::FakeApi;
use crate::tree::copy_tree;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The real platform binary ([`crate::tier::claude_path`]). Panics (the test
/// fails) when absent: a test of this tier first asks
/// `tier::present(Tool::Claude)`, which skips it instead where it may.
pub fn claude_bin() -> PathBuf {
    let path = crate::tier::claude_path();
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

/// A fresh copy of the real tier's fixture source (tests/data/real-source) in
/// `dir/source`; returns its path.
pub fn source_copy(dir: &Path) -> PathBuf {
    let source = dir.join("source");
    copy_tree(&data("real-source"), &source);
    source
}

/// `cmd` (a `bob-eval` command) set to run the real platform offline against
/// `api`: a cleared environment ([`platform_env`], its folders in `dir`), the
/// real binary as the platform ([`claude_bin`]), run in `dir`.
pub fn offline(mut cmd: Command, api: &FakeApi, dir: &Path) -> Command {
    cmd.env_clear()
        .envs(platform_env(api, dir))
        .env("BOB_EVAL_CLAUDE", claude_bin())
        .current_dir(dir);
    cmd
}

/// The world of most real-platform tests: a temp folder holding a fresh copy
/// of the fixture source ([`source_copy`]) and the fake API the platform
/// talks to; removed when dropped.
pub struct RealWorld {
    /// The temp folder, where commands run and the platform keeps its home.
    pub dir: tempfile::TempDir,
    /// The source tree (`--source`).
    pub source: PathBuf,
    /// The fake Messages API.
    pub api: FakeApi,
}

impl RealWorld {
    /// A fresh source copy and `api`.
    pub fn new(api: FakeApi) -> RealWorld {
        let dir = tempfile::tempdir().expect("temp folder");
        let source = source_copy(dir.path());
        RealWorld { dir, source, api }
    }

    /// An empty source tree (`dir/source`, for the test to fill) and `api`.
    pub fn empty(api: FakeApi) -> RealWorld {
        let dir = tempfile::tempdir().expect("temp folder");
        let source = dir.path().join("source");
        std::fs::create_dir_all(&source).expect("create the source folder");
        RealWorld { dir, source, api }
    }

    /// bob-eval's home (`--home`).
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("bob-home")
    }

    /// `base` (the test's `bob-eval --source <source> --home <home>`) set to
    /// run the real platform offline against this world's API ([`offline`]).
    pub fn command(&self, base: Command) -> Command {
        offline(base, &self.api, self.dir.path())
    }
}
