//! `bob-eval sweep [--jobs N] [--json]` (`make evals`): every suite once, a
//! table of verdicts (pipelines/sweep.rhai). Skips unless `EVALS=1`.

use crate::config::Context;
use crate::error::Result;
use crate::eval::EvalOptions;
use crate::script::Options;
use camino::Utf8PathBuf;
use clap::Args;

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

/// Run `pipelines/sweep.rhai`.
pub fn exec(ctx: &Context, args: &SweepArgs) -> Result<u8> {
    let options = Options {
        eval: EvalOptions {
            claude: args.claude.clone(),
            ..EvalOptions::default()
        },
        json: args.json,
        suite_jobs: Some(args.jobs),
        ..Options::default()
    };
    super::script::run_embedded(ctx, "sweep", options)
}
