//! The platform: find `claude`, check its version, run `claude plugin eval`.
//! (Issue #3 fills this in.)

use crate::error::Result;
use camino::{Utf8Path, Utf8PathBuf};

/// The oldest Claude Code with `claude plugin eval` as bob-eval uses it.
pub const MIN_VERSION: &str = "2.1.272";

/// A located, version-checked `claude`.
#[derive(Debug, Clone)]
pub struct Platform {
    /// The binary.
    pub path: Utf8PathBuf,
    /// What `claude --version` said, e.g. `2.1.328`.
    pub version: String,
}

/// What a platform run is held to.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// The model; `default` is not passed.
    pub model: String,
    /// `--runs`.
    pub runs: Option<u32>,
    /// `--max-cost-usd`, already validated.
    pub max_cost_usd: f64,
    /// `--judge-model`.
    pub judge_model: Option<String>,
    /// `-j`.
    pub jobs: Option<u32>,
}

/// Find `claude`: `flag`, else `$BOB_EVAL_CLAUDE`, else `PATH`; check its version.
pub fn locate(flag: Option<&Utf8Path>) -> Result<Platform> {
    let _ = flag;
    todo!("issue #3")
}
