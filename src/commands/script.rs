//! `bob-eval script FILE [ARGS…]`: an operator's own pipeline, with the same
//! primitives as exam and propose; imports are served from its folder.

use super::args::PlatformArgs;
use super::progress::{Terminal, mode_for_stderr};
use crate::config::{Context, Environment};
use crate::error::exit::Conclusion;
use crate::error::{Error, Result};
use crate::script::{Host, PipelineOptions, run_pipeline};
use camino::{Utf8Path, Utf8PathBuf};
use clap::{Args, Parser};
use std::sync::Arc;

/// `script`.
#[derive(Debug, Args)]
pub struct ScriptArgs {
    /// The Rhai pipeline to run
    #[arg(value_parser = super::path_arg)]
    pub file: Utf8PathBuf,
    /// The only folder the pipeline's `write_result` may write in
    /// [default: results/ in the source tree]
    #[arg(long, value_name = "DIR", value_parser = super::path_arg)]
    pub results_dir: Option<Utf8PathBuf>,
    /// Stop the pipeline once its own work (time inside primitives such as a
    /// platform run aside) has taken this many seconds [default: 300]
    #[arg(long, value_name = "SECONDS", value_parser = crate::eval::parse_timeout)]
    pub script_timeout: Option<std::time::Duration>,
    /// Arguments for the pipeline (read with `args()` / `option(...)`)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// The arguments after `FILE`, read like `exam`'s: `[ITEM] [platform flags] [--pr] [--pages] [--json]`.
#[derive(Debug, Parser)]
#[command(name = "script", no_binary_name = true)]
struct ScriptOptions {
    item: Option<String>,
    #[command(flatten)]
    platform: PlatformArgs,
    #[arg(long)]
    pr: Option<String>,
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pages: Vec<String>,
    #[arg(long)]
    json: bool,
    #[arg(long)]
    trust_imported: bool,
}

/// Parse a script's arguments as [`PipelineOptions`], the variables their
/// flags fall back to read from `env`; a failure is kept for `options()` to
/// report, since `args()` alone may be all the script reads.
pub fn parse_script_options(args: &[String], env: &Environment) -> PipelineOptions {
    let parsed = ScriptOptions::try_parse_from(args)
        .map_err(|e| e.to_string())
        .and_then(|parsed| {
            let eval = parsed.platform.options(env).map_err(|e| e.to_string())?;
            Ok((parsed, eval))
        });
    match parsed {
        Ok((parsed, eval)) => PipelineOptions {
            item: parsed.item,
            eval,
            pr: parsed.pr,
            pages: parsed.pages,
            json: parsed.json,
            trust_imported: parsed.trust_imported,
            require_calibrated: false,
            format: None,
            suite_jobs: None,
            suites: None,
            problem: None,
        },
        Err(problem) => PipelineOptions {
            problem: Some(problem),
            ..PipelineOptions::default()
        },
    }
}

/// Read the pipeline and run it.
pub fn exec(ctx: &Context, args: &ScriptArgs) -> Result<Conclusion<'static>> {
    let text = crate::fsio::read_text(&args.file, crate::config::MAX_SUITE_FILE)
        .map_err(|e| Error::unreadable(&args.file, e))?;
    let dir = args
        .file
        .parent()
        .filter(|p| !p.as_str().is_empty())
        .unwrap_or(Utf8Path::new("."));
    let observer = Arc::new(Terminal::new(mode_for_stderr()));
    let mut host = Host::new(
        ctx.clone(),
        parse_script_options(&args.args, &ctx.env),
        args.args.clone(),
        Some(dir.to_owned()),
        observer,
    );
    if let Some(results) = &args.results_dir {
        host.results_dir = results.clone();
    }
    if let Some(limit) = args.script_timeout {
        host.time_limit = limit;
    }
    let published = host.published.clone();
    let code = run_pipeline(host, args.file.as_str(), &text)?;
    if let Some(p) = published.lock().unwrap_or_else(|p| p.into_inner()).take() {
        let title = format!("bob-eval script {}", args.file);
        super::append_step_summary(ctx, &crate::report::published_markdown(&title, &p));
    }
    Ok(Conclusion::Returned(code))
}
