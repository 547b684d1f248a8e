//! `bob-eval run ITEM`: the `skill-eval/1` document to `--out` or stdout, a
//! summary to stderr. Nothing is written unless the whole evaluation succeeded.
//! `--format junit|markdown` prints the cases in that format on stdout instead
//! of the document (`--out` still gets the document).

use super::args::PlatformArgs;
use crate::config::Context;
use crate::error::{Result, exit};
use crate::report::Outcome;
use crate::report::progress::{Terminal, mode_for_stderr};
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
    /// Write the skill-eval/1 document here (atomically) instead of stdout
    #[arg(long, value_name = "FILE", value_parser = super::path_arg)]
    pub out: Option<Utf8PathBuf>,
    /// What to print on stdout: the document (json), or the cases as JUnit
    /// XML or Markdown tables instead of it (--out still gets the document)
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = RunFormat::Json)]
    pub format: RunFormat,
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

/// Evaluate and write the document.
pub fn exec(ctx: &Context, args: &RunArgs) -> Result<u8> {
    if args.platform.dry_run {
        return super::args::dry_run(ctx, &args.item, &args.platform.options(), args.json);
    }
    if let Some(path) = &args.out {
        // Refused before anything is spent.
        crate::fsio::check_writable(path)?;
    }
    let observer = Arc::new(Terminal::new(mode_for_stderr()));
    let doc = crate::eval::evaluate(
        ctx,
        &crate::config::ItemName::new(&args.item)?,
        &args.platform.options(),
        observer,
    )?;
    let json = super::json(&doc);
    if let Some(path) = &args.out {
        crate::fsio::write_atomically(path, json.as_bytes())?;
    }
    match args.format {
        RunFormat::Json if args.out.is_none() => super::print(&json)?,
        RunFormat::Json => {}
        RunFormat::Junit => super::print(&crate::report::junit::results(
            "bob-eval run",
            &[Outcome::Ran(&doc)],
        ))?,
        RunFormat::Markdown => super::print(&crate::report::markdown::results(
            "bob-eval run",
            &[Outcome::Ran(&doc)],
        ))?,
    }
    let summary = if args.platform.platform_result.is_some() {
        crate::report::run::replay_summary(&doc)
    } else {
        crate::report::run::summary(&doc)
    };
    eprint!("{summary}");
    if let Some(path) = &args.out {
        eprintln!("  wrote {path}");
    }
    Ok(exit::OK)
}
