//! The command line: clap types and the dispatch from a parsed command to the
//! library. Every handler returns the exit code for a completed command, or an
//! [`Error`](crate::Error) whose [`exit_code`](crate::Error::exit_code) the binary uses.

use crate::error::Result;
use camino::Utf8PathBuf;
use clap::{Args, Parser, Subcommand};

/// Prove that a change to a Claude Code skill really helps.
///
/// bob-eval checks eval suites (evals/<item>/), runs `claude plugin eval` on each
/// case with the item loaded and without it under a mandatory cost ceiling,
/// reduces the outcome to a small skill-eval/1 document, gates a proposed change
/// against the best score recorded for the model, and records it in
/// baseline.json and wiki/skill-impact.md.
///
/// Exit codes: 0 done (gate: accepted) · 1 gate rejected, check found problems,
/// sweep could not run a suite · 2 usage or invalid input · 3 could not run
/// (platform missing, too old or failed; item did not load) · 130 interrupted.
#[derive(Debug, Parser)]
#[command(
    name = "bob-eval",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Source tree holding evals/, skills/, commands/, agents/, registry/ and wiki/
    /// [default: $BOB_SOURCE, else the current directory]
    #[arg(long, global = true, value_name = "DIR")]
    pub source: Option<Utf8PathBuf>,

    /// Operator home holding settings.json [default: $BOB_HOME, else ~/.bob]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<Utf8PathBuf>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check eval suites before any money is spent.
    ///
    /// Finds what the platform would refuse (unknown keys, bad types, out-of-range
    /// runs, env keys, paths escaping the case), the traps it silently accepts
    /// (grader files without frontmatter, unknown case.yaml keys, regexes
    /// JavaScript would not compile) and a missing or loose trigger pair.
    ///
    /// Example: bob-eval check commit --json
    Check(CheckArgs),
    /// Run an item's suite with and without the item and print a skill-eval/1 document.
    ///
    /// Example: bob-eval run commit --model haiku --runs 1 --max-cost-usd 0.2 --out /tmp/commit.json
    Run(RunArgs),
    /// Decide whether a result beats the best recorded for its model; optionally record it.
    ///
    /// Example: bob-eval gate commit /tmp/commit.json --record --pr '#4300' --pages commit-skipped-hook
    Gate(GateArgs),
    /// Check wiki/skill-impact.md: every row well-formed, every cited page present.
    CheckWiki(CheckWikiArgs),
    /// Examine an item before it is disposed: run its suite and say what it means (pipelines/exam.rhai).
    ///
    /// Example: bob-eval exam commit --runs 1 --max-cost-usd 0.2
    Exam(ExamArgs),
    /// Validate a proposed edit: run, gate against the recorded best, record (pipelines/proposer.rhai).
    ///
    /// Example: bob-eval propose commit --pr '#4300' --pages commit-skipped-hook
    Propose(ProposeArgs),
    /// Run every suite once and summarise the verdicts (pipelines/sweep.rhai; `make evals`).
    ///
    /// Skips unless EVALS=1. EVALS_MODEL sets the model, EVALS_MAX_COST_USD the
    /// per-suite ceiling (default 0.50).
    Sweep(SweepArgs),
    /// Run an operator's own Rhai pipeline with the same primitives as exam and propose.
    ///
    /// Example: bob-eval script my-pipeline.rhai commit --runs 1
    Script(ScriptArgs),
}

/// `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Items whose suites to check [default: every suite under evals/]
    #[arg(value_name = "ITEM")]
    pub items: Vec<String>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Options shared by everything that runs the platform.
#[derive(Debug, Clone, Args, Default)]
pub struct PlatformArgs {
    /// Model to run [default: $ANTHROPIC_MODEL, else settings.json `model`, else the platform's default]
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Runs per case and arm (the platform's default is the case's `runs`, else 3)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=50))]
    pub runs: Option<u32>,
    /// Cost ceiling in dollars for the whole run; must be above 0
    /// [default: settings.json `_workflow.eval_max_cost_usd`, else 2]
    #[arg(long, value_name = "USD", allow_negative_numbers = true)]
    pub max_cost_usd: Option<String>,
    /// Model of the llm graders' judge [platform default: haiku]
    #[arg(long, value_name = "M")]
    pub judge_model: Option<String>,
    /// Agent runs at once (1-8)
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=8))]
    pub jobs: Option<u32>,
    /// The claude binary [default: $BOB_EVAL_CLAUDE, else `claude` on PATH]
    #[arg(long, value_name = "PATH")]
    pub claude: Option<Utf8PathBuf>,
    /// Keep the temporary plugin folder (platform result, report.html, stderr log) and print its path
    #[arg(long)]
    pub keep: bool,
    /// Reduce this existing platform result (aggregate-result.json) instead of running the platform
    #[arg(long, value_name = "FILE")]
    pub platform_result: Option<Utf8PathBuf>,
    /// Stop the platform after this many seconds: SIGTERM to it and everything it
    /// started, SIGKILL 5 s later; the run then fails with exit 3 and writes nothing
    /// [default: no limit]
    #[arg(long, value_name = "SECONDS", env = "BOB_EVAL_PLATFORM_TIMEOUT", value_parser = parse_timeout, allow_negative_numbers = true)]
    pub platform_timeout: Option<std::time::Duration>,
}

/// `--platform-timeout`: a finite number of seconds above 0.
fn parse_timeout(text: &str) -> std::result::Result<std::time::Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !secs.is_finite() || secs <= 0.0 || secs > 1e9 {
        return Err(format!("`{text}`: give a number of seconds above 0"));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The skill, command or agent to evaluate
    pub item: String,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// Write the skill-eval/1 document here (atomically) instead of stdout
    #[arg(long, value_name = "FILE")]
    pub out: Option<Utf8PathBuf>,
}

/// `gate`.
#[derive(Debug, Args)]
pub struct GateArgs {
    /// The item the result is for
    pub item: String,
    /// A skill-eval/1 document written by `bob-eval run`
    pub result: Utf8PathBuf,
    #[command(flatten)]
    pub record: RecordArgs,
    /// Print the decision as JSON on stdout
    #[arg(long)]
    pub json: bool,
}

/// What `--record` needs.
#[derive(Debug, Clone, Args, Default)]
pub struct RecordArgs {
    /// Record the outcome: raise the best on accept, append a wiki row either way
    #[arg(long)]
    pub record: bool,
    /// The proposal's pull request, e.g. '#4300' (needed by --record)
    #[arg(long, value_name = "PR")]
    pub pr: Option<String>,
    /// Wiki pattern pages the proposal was built on: wiki/patterns/<PAGE>.md
    /// (repeatable or comma-separated; needed by --record)
    #[arg(long, value_name = "PAGE", value_delimiter = ',', num_args = 1..)]
    pub pages: Vec<String>,
}

/// `check-wiki`.
#[derive(Debug, Args)]
pub struct CheckWikiArgs {
    /// Print the problems as JSON on stdout
    #[arg(long)]
    pub json: bool,
}

/// `exam`.
#[derive(Debug, Args)]
pub struct ExamArgs {
    /// The item to examine
    pub item: String,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// Print the exam's outcome as JSON on stdout
    #[arg(long)]
    pub json: bool,
}

/// `propose`.
#[derive(Debug, Args)]
pub struct ProposeArgs {
    /// The item whose proposed edit is in the source tree
    pub item: String,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// The proposal's pull request, e.g. '#4300'
    #[arg(long, value_name = "PR", required = true)]
    pub pr: String,
    /// Wiki pattern pages the proposal was built on (repeatable or comma-separated)
    #[arg(long, value_name = "PAGE", value_delimiter = ',', num_args = 1.., required = true)]
    pub pages: Vec<String>,
    /// Print the decision as JSON on stdout
    #[arg(long)]
    pub json: bool,
}

/// `sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Suites to run at once
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub jobs: u32,
    /// The claude binary [default: $BOB_EVAL_CLAUDE, else `claude` on PATH]
    #[arg(long, value_name = "PATH")]
    pub claude: Option<Utf8PathBuf>,
    /// Print the summary as JSON on stdout
    #[arg(long)]
    pub json: bool,
}

/// `script`.
#[derive(Debug, Args)]
pub struct ScriptArgs {
    /// The Rhai pipeline to run
    pub file: Utf8PathBuf,
    /// Arguments for the pipeline (read with `args()` / `option(...)`)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// Run a parsed command; `Ok` holds the exit code of a completed command.
pub fn dispatch(cli: Cli) -> Result<u8> {
    let Cli {
        source,
        home,
        command,
    } = cli;
    let ctx = crate::Context::new(source.as_deref(), home.as_deref())?;
    match command {
        Command::Check(args) => crate::check::command(&ctx, &args),
        Command::Run(args) => crate::run::command(&ctx, &args),
        Command::Gate(args) => crate::gate::command(&ctx, &args),
        Command::CheckWiki(args) => crate::wiki::command(&ctx, &args),
        Command::Exam(args) => crate::script::exam_command(&ctx, &args),
        Command::Propose(args) => crate::script::propose_command(&ctx, &args),
        Command::Sweep(args) => crate::script::sweep_command(&ctx, &args),
        Command::Script(args) => crate::script::script_command(&ctx, &args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }
}
