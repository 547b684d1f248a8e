//! Running an embedded pipeline (`exam`, `proposer`, `sweep`) from an
//! operation: the options it reads with `options()`, and [`Pipelines`], the
//! runner the script host (a layer above) lends the operation.

use super::Published;
use crate::config::Context;
use crate::error::Result;
use crate::eval::EvalOptions;

/// The command-line options a pipeline reads with `options()`: the
/// evaluation's options (`eval`) and what only a pipeline uses.
#[derive(Debug, Clone, Default)]
pub struct PipelineOptions {
    /// The item, for commands that take one.
    pub item: Option<String>,
    /// Everything that runs the platform (its `claude` is the operator's, and
    /// every script's options inherit it).
    pub eval: EvalOptions,
    /// `--pr`.
    pub pr: Option<String>,
    /// `--pages`.
    pub pages: Vec<String>,
    /// `--json` (also set by `--format json`).
    pub json: bool,
    /// `--require-calibrated`, as the command was given it: what the
    /// commands a pipeline's advice names give again.
    pub require_calibrated: bool,
    /// `--trust-imported`: `gate` lets imported runs count toward an accept.
    /// The operator's choice: a script reads it (`options().trust_imported`)
    /// but cannot set it.
    pub trust_imported: bool,
    /// `--format`: `human`, `json`, `junit` or `markdown` (`options().format`);
    /// `None` is `json` when [`PipelineOptions::json`] is set, else `human`.
    pub format: Option<&'static str>,
    /// `sweep --jobs`: suites at once (the platform's own `-j` is in `platform`).
    pub suite_jobs: Option<u32>,
    /// `sweep --shard`: the suites the command picked (`options().suites`);
    /// `None` for every suite.
    pub suites: Option<Vec<String>>,
    /// Why the arguments could not be read as options (`options()` then fails).
    pub problem: Option<String>,
}

/// What a pipeline ended with: the code it returned, and what it handed over
/// with `publish(…)`.
#[derive(Debug)]
pub struct Piped {
    /// The script's return value as an exit code.
    pub code: u8,
    /// What it published, if anything.
    pub published: Option<Published>,
}

/// Runs an embedded pipeline by name: the script host implements it
/// (`script::Embedded`), so an operation composes a pipeline without
/// knowing Rhai.
pub trait Pipelines {
    /// Run the embedded pipeline `name` with `options`.
    fn run(&self, ctx: &Context, name: &str, options: PipelineOptions) -> Result<Piped>;
}
