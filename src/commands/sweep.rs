//! `bob-eval sweep [--jobs N] [--shard K/N --out-dir DIR] [--max-total-usd USD]
//! [--format human|json|junit|markdown]` (`make evals`): every suite once (or
//! one shard's), a table of verdicts (pipelines/sweep.rhai). Skips unless
//! `EVALS=1`. The pipeline publishes its rows; [`print_rows`] prints them in
//! every format, appends their Markdown to `$GITHUB_STEP_SUMMARY` and gives the
//! exit code, for `sweep` and for `collect` alike.

use super::progress::{Terminal, mode_for_stderr};
use super::{Format, FormatArgs};
use crate::config::{Ceiling, Context, Environment};
use crate::error::exit::Conclusion;
use crate::error::{Error, Result};
use crate::eval::{EvalOptions, ItemOutcome};
use crate::ops::{SweepRequest, Swept};
use crate::report::CiOutcome;
use crate::script::Embedded;
use crate::shard::Shard;
use camino::Utf8PathBuf;
use clap::Args;
use std::sync::Arc;

/// `sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Suites to run at once
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = |s: &str| crate::eval::parse_count(s, crate::eval::suites_at_once_from))]
    pub jobs: u32,
    /// The claude binary [default: $BOB_EVAL_CLAUDE, else `claude` on PATH]
    #[arg(long, value_name = "PATH", value_parser = super::path_arg)]
    pub claude: Option<Utf8PathBuf>,
    /// Model to run every suite on [default: $EVALS_MODEL, else $ANTHROPIC_MODEL,
    /// else settings.json `model`, else the platform's default]
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// Runs per case and arm for every suite [default: 1]; `auto` or `auto:MAX`
    /// buys rounds until each suite's comparison is settled
    #[arg(long, value_name = "N|auto[:MAX]", value_parser = |s: &str| s.parse::<crate::stats::RunsSpec>().map_err(|e| e.to_string()))]
    pub runs: Option<crate::stats::RunsSpec>,
    /// Run only shard K of N (1-based). The split is computed from the suite
    /// list alone, the same on every machine (rendezvous hashing with bounded
    /// loads: at most ⌈suites/N⌉ a shard; a suite added or removed moves few
    /// others), so N machines sweep the tree between them; merge their
    /// --out-dir folders with `bob-eval collect`
    #[arg(long, value_name = "K/N", value_parser = |s: &str| s.parse::<Shard>())]
    pub shard: Option<Shard>,
    /// Also write each suite's skill-eval/1 document as DIR/<item>.json, the
    /// shard's runs as DIR/runs.jsonl (an evidence export) and DIR/shard.json
    /// (the manifest `collect` checks)
    #[arg(long, value_name = "DIR", value_parser = super::path_arg)]
    pub out_dir: Option<Utf8PathBuf>,
    /// Spend at most this much in all (US dollars). Each suite launched holds
    /// back its ceiling (lowered to what is left), so the suites in flight
    /// never pass it together; the suites left show as "not run (budget)" and
    /// the exit code is 4 (incomplete). With --shard K/N it is the whole
    /// matrix's budget: this shard spends its share (in proportion to its
    /// suites, stated in DIR/shard.json)
    #[arg(long, value_name = "USD", value_parser = crate::config::parse_usd)]
    pub max_total_usd: Option<f64>,
    /// Run nothing: print, per suite, case and arm, the runs that would be
    /// bought and reused, and an estimate of the cost beside each ceiling and
    /// the budget (no platform call; EVALS=1 is not needed)
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub filters: super::args::FilterArgs,
    #[command(flatten)]
    pub output: FormatArgs,
}

/// Each suite's ceiling unless `EVALS_MAX_COST_USD` sets one.
const SUITE_CEILING_USD: f64 = 0.5;

/// Each suite's ceiling: `$EVALS_MAX_COST_USD`, else [`SUITE_CEILING_USD`].
fn suite_ceiling(env: &Environment) -> Result<Ceiling> {
    match env.var("EVALS_MAX_COST_USD") {
        Some(text) => text
            .parse()
            .map_err(|m| Error::Usage(format!("EVALS_MAX_COST_USD: {m}"))),
        None => Ceiling::new(SUITE_CEILING_USD).map_err(Error::Usage),
    }
}

/// The title of the sweep's JUnit and Markdown.
pub const TITLE: &str = "bob-eval sweep";

/// Plan the sweep, run it ([`crate::ops::sweep`]), then print what the
/// pipeline published and what the shard's folder holds.
pub fn exec(ctx: &Context, args: &SweepArgs) -> Result<Conclusion<'static>> {
    let format = args.output.format();
    let plan = crate::ops::plan_sweep(
        ctx,
        args.shard,
        args.out_dir.as_deref(),
        args.max_total_usd,
        args.dry_run,
    )?;
    let (shard, budget) = (plan.shard, plan.budget);
    if let (Some(b), Some(_)) = (budget, args.shard) {
        eprintln!(
            "bob-eval: shard {shard}: budget ${:.2} of the sweep's ${:.2}",
            b.share_usd, b.total_usd
        );
    }
    // One run per case and arm unless --runs says otherwise.
    let runs = args.runs.or(Some(crate::stats::RunsSpec::Fixed(1)));
    let request = SweepRequest {
        options: EvalOptions {
            claude: args.claude.clone(),
            model: args
                .model
                .clone()
                .or_else(|| ctx.env.non_empty("EVALS_MODEL").map(str::to_owned)),
            runs: crate::eval::runs_fields(runs).0,
            auto: crate::eval::runs_fields(runs).1,
            max_cost_usd: Some(suite_ceiling(&ctx.env)?),
            cases: args.filters.cases.clone(),
            tags: args.filters.tags.clone(),
            allow_tools: args.filters.allow_tools.clone(),
            disallow_tools: args.filters.disallow_tools.clone(),
            platform_env: args.filters.platform_env.clone(),
            scaffold: args.filters.scaffold(),
            servers: args.filters.servers(),
            dry_run: args.dry_run,
            ..EvalOptions::default()
        },
        jobs: args.jobs,
        format: format.name(),
        out_dir: args.out_dir.clone(),
    };
    let observer = Arc::new(Terminal::new(mode_for_stderr()));
    let swept = crate::ops::sweep(ctx, &plan, &request, &Embedded(observer))?;
    match &swept {
        // JUnit and Markdown readers still get their (empty) document.
        Swept::Skipped(_) => match format {
            Format::Junit => super::print(&crate::report::junit::results(TITLE, &[]))?,
            Format::Markdown => super::print(&crate::report::markdown::results(TITLE, &[]))?,
            Format::Human | Format::Json => {}
        },
        Swept::Estimated {
            estimates,
            budget_usd,
        } => match format {
            Format::Json => super::print(&super::json(estimates))?,
            _ => super::print(&crate::report::estimate::estimates(estimates, *budget_usd))?,
        },
        Swept::Ran {
            rows,
            written,
            complete,
        } => {
            print_rows(ctx, rows, format)?;
            print_completions(complete);
            if let Some((dir, written)) = written {
                eprintln!(
                    "bob-eval: shard {shard}: {} suite(s), {} document(s) and {} run(s) written to {dir}",
                    rows.len(),
                    written.documents,
                    written.runs
                );
            }
        }
    }
    Ok(swept.conclusion())
}

/// On stderr, the `run` that completes each suite the ceiling cut short.
pub fn print_completions(complete: &[crate::ops::next::Completion]) {
    for c in complete {
        eprintln!(
            "bob-eval: {}: {}",
            c.item,
            c.command(&crate::ops::next::Invocation::run())
        );
    }
}

/// Print a sweep's rows in `format` (human table, JSON, JUnit or Markdown),
/// append their Markdown to `$GITHUB_STEP_SUMMARY`, and return how the
/// sweep ended by them. `collect` prints merged shards through this same function.
pub fn print_rows(
    ctx: &Context,
    rows: &[ItemOutcome],
    format: Format,
) -> Result<Conclusion<'static>> {
    let outcomes: Vec<CiOutcome<'_>> = rows.iter().map(CiOutcome::from).collect();
    let markdown = crate::report::markdown::results(TITLE, &outcomes);
    match format {
        Format::Human => super::print(&crate::report::sweep::human(rows))?,
        Format::Json => super::print(&crate::report::sweep::json(rows))?,
        Format::Junit => super::print(&crate::report::junit::results(TITLE, &outcomes))?,
        Format::Markdown => super::print(&markdown)?,
    }
    super::append_step_summary(ctx, &markdown);
    Ok(crate::event::swept(rows))
}
