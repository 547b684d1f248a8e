//! `bob-eval run ITEM`: the `skill-eval/1` document to `--out` or stdout, a
//! summary to stderr. Nothing is written unless the whole evaluation succeeded.
//! `--format junit|markdown` prints the cases in that format on stdout instead
//! of the document (`--out` still gets the document).

use super::args::PlatformArgs;
use super::progress::{Terminal, mode_for_stderr};
use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::ops::RunItemRequest;
use crate::report::CiOutcome;
use camino::Utf8PathBuf;
use clap::{Args, ValueEnum};
use std::sync::Arc;

/// `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The skill, command or agent to evaluate
    pub item: String,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// With --runs auto: buy under the confidence mode's stopping rule at
    /// this level (e.g. 0.95), as `exam` and `propose` do: a first round of
    /// 4 runs per arm, the error budget the level asks for, no 0.2 margin.
    /// `run` decides nothing (gate the result with `gate --confidence`), so
    /// with a fixed --runs it is refused [default: settings.json
    /// `_workflow.gate_confidence`, else the bare rule's stopping rule]
    #[arg(long, value_name = "LEVEL", value_parser = crate::stats::confidence::parse_level)]
    pub confidence: Option<f64>,
    /// With --runs auto: `confidence` (the stopping rule above, at settings'
    /// level or 0.95) or `bare` (the defaults, whatever settings say);
    /// refused with a fixed --runs
    #[arg(long, value_name = "RULE", value_parser = |s: &str| s.parse::<crate::stats::confidence::RuleChoice>())]
    pub rule: Option<crate::stats::confidence::RuleChoice>,
    /// Write the skill-eval/1 document here (atomically) instead of stdout
    #[arg(long, value_name = "FILE", value_parser = super::path_arg)]
    pub out: Option<Utf8PathBuf>,
    /// What to print on stdout: the document (json), or the cases as JUnit
    /// XML or Markdown tables instead of it (--out still gets the document)
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = RunFormat::Json)]
    pub format: RunFormat,
    /// Measure the recorded best's version of the item (for the model),
    /// from the files kept when it was recorded, instead of the source
    /// tree's: its with arm bought anew, never the runs that selected it.
    /// Gate a proposal against the result with `gate --best-again FILE`
    #[arg(long)]
    pub best: bool,
    /// With --dry-run: print the estimate as JSON (bob-eval-estimate/1)
    #[arg(long, requires = "dry_run")]
    pub json: bool,
}

/// `run --format`: the document is JSON already, so there is no `human`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunFormat {
    /// The skill-eval/1 document (unless --out takes it)
    Json,
    /// JUnit XML: a testsuite for the item, a testcase per case, a failure per regressed case
    Junit,
    /// Markdown tables: the item, then one row per case
    Markdown,
}

impl RunArgs {
    /// The library's options for these flags.
    pub fn options(&self, env: &crate::config::Environment) -> Result<crate::eval::EvalOptions> {
        Ok(crate::eval::EvalOptions {
            best: self.best,
            confidence: self.confidence,
            rule: self.rule,
            ..self.platform.options(env)?
        })
    }
}

/// Evaluate and write the document.
pub fn exec(ctx: &Context, args: &RunArgs) -> Result<Conclusion<'static>> {
    let options = args.options(&ctx.env)?;
    let request = RunItemRequest::new(
        crate::config::ItemName::new(&args.item)?,
        options,
        args.out.clone(),
    )?;
    if args.platform.dry_run {
        let estimated = crate::ops::estimate(ctx, &request.item, &request.options)?;
        return super::args::print_estimate(&estimated, args.json);
    }
    let observer = Arc::new(Terminal::new(mode_for_stderr()));
    let ran = crate::ops::run(ctx, &request, observer)?;
    let doc = &ran.doc;
    match args.format {
        RunFormat::Json if ran.wrote.is_none() => super::print(&super::json(doc))?,
        RunFormat::Json => {}
        RunFormat::Junit => super::print(&crate::report::junit::results(
            "bob-eval run",
            &[CiOutcome::Ran(doc)],
        ))?,
        RunFormat::Markdown => super::print(&crate::report::markdown::results(
            "bob-eval run",
            &[CiOutcome::Ran(doc)],
        ))?,
    }
    let settle = ran.settle.as_deref();
    let summary = if args.platform.platform_result.is_some() {
        crate::report::run::replay_summary(doc, settle)
    } else {
        crate::report::run::summary(doc, settle)
    };
    eprint!("{summary}");
    if let Some(complete) = &ran.complete {
        eprintln!(
            "  next: {}",
            complete.command(&crate::ops::next::Invocation::run())
        );
    }
    if let Some(path) = &ran.wrote {
        eprintln!("  wrote {path}");
    }
    Ok(Conclusion::Done)
}
