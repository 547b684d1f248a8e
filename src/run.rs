//! The `run` command: plugin → platform → reduce → validated document.
//!
//! Everything that can be refused for free (the item name, the item, the
//! settings, the ceiling) is checked before the platform is looked for, so a
//! bad flag never costs a run. Nothing is written unless the whole pipeline
//! succeeded.

use crate::Context;
use crate::cli::{PlatformArgs, RunArgs};
use crate::config::{self, Settings};
use crate::document::SkillEval;
use crate::error::{Error, Result, exit};
use crate::platform::{self, Progress, RunOptions};
use crate::reduce::{self, ReduceContext};
use crate::{item, plugin};
use camino::Utf8Path;
use std::io::Write;

/// Evaluate `item` (or reduce `--platform-result`) into a validated `skill-eval/1` document.
pub fn evaluate(
    ctx: &Context,
    item: &str,
    args: &PlatformArgs,
    progress: Progress,
) -> Result<SkillEval> {
    item::validate_name(item)?;
    if let Some(file) = &args.platform_result {
        let RunOptions {
            model,
            max_cost_usd,
            ..
        } = run_options(ctx, args)?;
        let doc = reduce::read_doc(file)?;
        let started = doc.started().ok_or_else(|| {
            Error::invalid(
                file,
                "no valid `startedAt` (RFC 3339): cannot date the run; is this a platform result?",
            )
        })?;
        let rctx = ReduceContext {
            item: item.into(),
            model,
            max_cost_usd,
            started,
        };
        return reduce::reduce_named(&doc, &rctx, file);
    }

    let found = item::find(&ctx.source, item)?;
    let opts = run_options(ctx, args)?;
    let suite = ctx.source.join("evals").join(item);
    if !suite.is_dir() {
        return Err(Error::NoSuite {
            item: item.into(),
            dir: suite,
        });
    }

    // `claude --version` runs while the plugin is assembled and the validator compiled.
    let probe = platform::start_locate(args.claude.as_deref())?;
    crate::schema::prepare_in_background();
    let assembled = plugin::assemble(&ctx.source, &found);
    let claude = probe.finish()?;
    let mut assembled = assembled?;
    if args.keep {
        let dir = assembled.keep();
        eprintln!("bob-eval: keeping the plugin folder {dir}");
    }
    let out = platform::run(&claude, &assembled, &opts, progress)?;
    let rctx = ReduceContext {
        item: item.into(),
        model: opts.model,
        max_cost_usd: opts.max_cost_usd,
        started: out.started,
    };
    reduce::reduce_platform_file(&out.document, &rctx)
}

/// What a platform run is held to: `args` with the model and the ceiling
/// resolved against the environment and home `settings.json` (contracts.md).
/// A bad ceiling or broken settings fail here, before anything runs.
pub fn run_options(ctx: &Context, args: &PlatformArgs) -> Result<RunOptions> {
    let settings = Settings::load(&ctx.home)?;
    Ok(RunOptions {
        model: config::resolve_model(args.model.as_deref(), &settings),
        runs: args.runs,
        max_cost_usd: config::resolve_ceiling(args.max_cost_usd.as_deref(), &settings)?,
        judge_model: args.judge_model.clone(),
        jobs: args.jobs,
        timeout: args.platform_timeout,
    })
}

/// Write `bytes` to `path` atomically: a temp file in the same folder, fsync, rename.
pub fn write_atomically(path: &Utf8Path, bytes: &[u8]) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let parent = match path.parent() {
        Some(p) if !p.as_str().is_empty() => p,
        _ => Utf8Path::new("."),
    };
    // A new file gets 0644 less the umask; a replaced one keeps its exact mode.
    let existing = std::fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777);
    let mode = existing.unwrap_or(0o644);
    let mut tmp = tempfile::Builder::new()
        .prefix(".bob-eval-")
        .suffix(".tmp")
        .permissions(std::fs::Permissions::from_mode(mode))
        .tempfile_in(parent)
        .map_err(|e| Error::io(parent, "creating a temp file in", e))?;
    tmp.write_all(bytes)
        .map_err(|e| Error::io(tmp.path().display().to_string(), "writing", e))?;
    if existing.is_some() {
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(|e| Error::io(path, "setting permissions", e))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io(path, "syncing", e))?;
    // The rename is what makes the write atomic: a reader sees the old file or
    // the whole new one. (The folder is not fsynced: that would only make the
    // new name survive a power cut, at the cost of a journal commit.)
    tmp.persist(path)
        .map_err(|e| Error::io(path, "renaming into place", e.error))?;
    Ok(())
}

/// `bob-eval run`: the document to `--out` or stdout, a summary to stderr.
pub fn command(ctx: &Context, args: &RunArgs) -> Result<u8> {
    let doc = evaluate(
        ctx,
        &args.item,
        &args.platform,
        platform::progress_for_stderr(),
    )?;
    let json = serde_json::to_string_pretty(&doc).expect("a skill-eval document serialises") + "\n";
    match &args.out {
        Some(path) => write_atomically(path, json.as_bytes())?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(json.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| Error::io("<stdout>", "writing", e))?;
        }
    }
    eprint!("{}", crate::report::run::summary(&doc));
    if let Some(path) = &args.out {
        eprintln!("  wrote {path}");
    }
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let path = root.join("r.json");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("r.json")]);
        assert!(write_atomically(&root.join("missing/r.json"), b"x").is_err());
    }
}
