//! `bob-eval sweep [--jobs N] [--format human|json|junit|markdown]` (`make
//! evals`): every suite once, a table of verdicts (pipelines/sweep.rhai).
//! Skips unless `EVALS=1`. The pipeline publishes its rows; this command
//! renders them as JUnit or Markdown and appends their Markdown to
//! `$GITHUB_STEP_SUMMARY`. The exit code is the pipeline's in every format.

use super::{Format, FormatArgs};
use crate::config::Context;
use crate::error::Result;
use crate::eval::EvalOptions;
use crate::report::{Outcome, published_markdown};
use crate::script::{Options, Published};
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
    /// Runs per case and arm for every suite [default: 1]; `auto` or `auto:MAX`
    /// buys rounds until each suite's comparison is settled
    #[arg(long, value_name = "N|auto[:MAX]", value_parser = |s: &str| s.parse::<crate::stats::RunsSpec>().map_err(|e| e.to_string()))]
    pub runs: Option<crate::stats::RunsSpec>,
    #[command(flatten)]
    pub filters: super::args::FilterArgs,
    #[command(flatten)]
    pub output: FormatArgs,
}

/// The title of the sweep's JUnit and Markdown.
const TITLE: &str = "bob-eval sweep";

/// Run `pipelines/sweep.rhai`, then render what it published.
pub fn exec(ctx: &Context, args: &SweepArgs) -> Result<u8> {
    let format = args.output.format();
    let options = Options {
        eval: EvalOptions {
            claude: args.claude.clone(),
            runs: match args.runs {
                Some(crate::stats::RunsSpec::Fixed(n)) => Some(n),
                _ => None,
            },
            auto: match args.runs {
                Some(crate::stats::RunsSpec::Auto { max }) => Some(max),
                _ => None,
            },
            cases: args.filters.cases.clone(),
            tags: args.filters.tags.clone(),
            allow_tools: args.filters.allow_tools.clone(),
            disallow_tools: args.filters.disallow_tools.clone(),
            ..EvalOptions::default()
        },
        json: format == Format::Json,
        format: Some(format.name()),
        suite_jobs: Some(args.jobs),
        ..Options::default()
    };
    let (code, published) = super::script::run_embedded_published(ctx, "sweep", options)?;
    // Skipped (no EVALS=1), the pipeline publishes nothing: no suite ran.
    let rows = match &published {
        Some(Published::Outcomes(rows)) => rows.as_slice(),
        _ => &[],
    };
    let outcomes: Vec<Outcome<'_>> = rows.iter().map(Outcome::from).collect();
    match format {
        Format::Junit => super::print(&crate::report::junit::results(TITLE, &outcomes))?,
        Format::Markdown => super::print(&crate::report::markdown::results(TITLE, &outcomes))?,
        Format::Human | Format::Json => {}
    }
    if let Some(p) = &published {
        super::append_step_summary(&published_markdown(TITLE, p));
    }
    Ok(code)
}
