//! `bob-eval run ITEM`: the `skill-eval/1` document to `--out` or stdout, a
//! summary to stderr. Nothing is written unless the whole evaluation succeeded.

use super::args::PlatformArgs;
use crate::config::Context;
use crate::error::{Result, exit};
use crate::report::progress::{Terminal, mode_for_stderr};
use camino::Utf8PathBuf;
use clap::Args;
use std::sync::Arc;

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

/// Evaluate and write the document.
pub fn exec(ctx: &Context, args: &RunArgs) -> Result<u8> {
    if let Some(path) = &args.out {
        // Refused before anything is spent.
        crate::fsio::check_writable(path)?;
    }
    let observer = Arc::new(Terminal::new(mode_for_stderr()));
    let doc = crate::eval::evaluate(ctx, &args.item, &args.platform.options(), observer)?;
    let json = super::json(&doc);
    match &args.out {
        Some(path) => crate::fsio::write_atomically(path, json.as_bytes())?,
        None => super::print(&json)?,
    }
    eprint!("{}", crate::report::run::summary(&doc));
    if let Some(path) = &args.out {
        eprintln!("  wrote {path}");
    }
    Ok(exit::OK)
}
