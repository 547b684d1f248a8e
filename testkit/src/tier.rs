//! The tools some test tiers need beyond Rust, and the one rule for a test
//! whose tool is missing: it skips, with one line on stderr per tool and test
//! binary saying what is missing and how to get it; or, when
//! `BOB_EVAL_REQUIRE_TIERS` is set (`make test` and CI set it), it fails. So
//! a plain `cargo test` is green on a machine with only Rust, and nothing
//! skips silently where every tier must run.
//!
//! ```ignore
//! if !tier::present(Tool::Chromium) {
//!     return;
//! }
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set (to anything but `0` or nothing) when every tier must run: a missing
/// tool fails the test instead of skipping it.
pub const REQUIRE: &str = "BOB_EVAL_REQUIRE_TIERS";

/// A tool a tier needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// The real platform, `claude` from `@anthropic-ai/claude-code`, for the
    /// real tier (`tests/real`, and `signals_real` in `tests/chaos`).
    Claude,
    /// Python's `junitparser`, which reads back the JUnit output
    /// (`tests/cli/ci_formats.rs`).
    Junitparser,
    /// Debian's `chromium`, which loads the `history --html` page
    /// (`tests/cli/history.rs`).
    Chromium,
}

const TOOLS: [Tool; 3] = [Tool::Claude, Tool::Junitparser, Tool::Chromium];

/// Whether the skip line of each tool (in [`TOOLS`]' order) was printed.
static SAID: [AtomicBool; 3] = [
    AtomicBool::new(false),
    AtomicBool::new(false),
    AtomicBool::new(false),
];

impl Tool {
    /// What the tool is, for a person.
    fn what(self) -> String {
        match self {
            Tool::Claude => format!(
                "the real platform (`claude` at {})",
                claude_path().display()
            ),
            Tool::Junitparser => "Python's junitparser".to_string(),
            Tool::Chromium => format!("Debian's chromium (at {})", chromium_path().display()),
        }
    }

    /// How to get it.
    fn how(self) -> &'static str {
        match self {
            Tool::Claude => "`make claude` (or set BOB_EVAL_TEST_CLAUDE to a `claude`)",
            Tool::Junitparser => "`python3 -m pip install junitparser`",
            Tool::Chromium => "`apt-get install chromium` (as root)",
        }
    }

    /// The tier's tests that need it.
    fn tier(self) -> &'static str {
        match self {
            Tool::Claude => "the real platform tier",
            Tool::Junitparser => "the JUnit read-back tests",
            Tool::Chromium => "the browser tests of `history --html` and `compare --html`",
        }
    }

    /// Whether it is installed.
    fn installed(self) -> bool {
        match self {
            Tool::Claude => claude_path().is_file(),
            Tool::Junitparser => Command::new("python3")
                .args(["-c", "import junitparser"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success()),
            Tool::Chromium => chromium_path().is_file(),
        }
    }
}

/// Whether `tool` is installed; the test goes on when it is. When it is not:
/// under [`REQUIRE`] this panics (the test fails, naming the tool and how to
/// get it); otherwise it prints one line on stderr, the first time this test
/// binary asks, and returns false: the test returns early, skipped.
pub fn present(tool: Tool) -> bool {
    if tool.installed() {
        return true;
    }
    let (what, how, tier) = (tool.what(), tool.how(), tool.tier());
    if required() {
        panic!(
            "{what} is missing, which {tier} needs: {how}; `make test` installs it \
             ({REQUIRE} is set: a missing tool fails instead of skipping)"
        );
    }
    let index = TOOLS
        .iter()
        .position(|t| *t == tool)
        .expect("a listed tool");
    if !SAID[index].swap(true, Ordering::Relaxed) {
        // Straight to the file descriptor: the test harness captures
        // `eprintln!` of a passing test, and this line must be seen.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: {tier}, as {what} is missing: {how}, or `make test`, which installs every tier's tools"
        );
    }
    false
}

/// Whether [`REQUIRE`] is set.
fn required() -> bool {
    std::env::var_os(REQUIRE).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The real platform binary: `$BOB_EVAL_TEST_CLAUDE`, else the one
/// `make claude` installs under `.cache/claude-code`.
pub fn claude_path() -> PathBuf {
    match std::env::var_os("BOB_EVAL_TEST_CLAUDE") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .join(".cache/claude-code/node_modules/.bin/claude"),
    }
}

/// Debian's chromium, where `scripts/install-test-deps.sh` installs it.
pub fn chromium_path() -> PathBuf {
    PathBuf::from("/usr/bin/chromium")
}
