//! An evaluation composed of its steps: [`assemble_plugin`] → [`run_platform`]
//! → [`reduce`]. [`evaluate`] is nothing but the three in order; the Rhai
//! primitives of the same names call these very functions, so a pipeline that
//! composes them gets the same document as `evaluate`.
//!
//! Everything that can be refused for free (the item name, the options, the
//! settings, the ceiling, the suite's `check` errors) is refused in
//! [`assemble_plugin`], before the platform is started: a bad flag never
//! costs a run.

use crate::config::{self, Context, Settings};
use crate::document::SkillEval;
use crate::error::{Error, Result};
use crate::event::{Event, Observer};
use crate::platform::{self, PlatformOutput, RunOptions, VersionProbe};
use crate::plugin::Plugin;
use crate::reduce::{Origin, ReduceContext};
use camino::{Utf8Path, Utf8PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Runs per case and arm that `--runs` accepts (the platform's own limits).
pub const RUNS: std::ops::RangeInclusive<u32> = 1..=50;
/// Agent runs at once that `-j` accepts (the platform's own limits).
pub const JOBS: std::ops::RangeInclusive<u32> = 1..=8;
/// The longest `--platform-timeout`, in seconds.
pub const MAX_TIMEOUT_SECS: f64 = 1e9;

/// The options of an evaluation as given, on the command line or in a
/// script's `opts` map: the one options type, validated by the functions
/// below whichever way it was given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalOptions {
    /// `--model` [default: `$ANTHROPIC_MODEL`, else settings `model`, else the platform's].
    pub model: Option<String>,
    /// `--runs` per case and arm.
    pub runs: Option<u32>,
    /// `--max-cost-usd`, as written (validated with the settings in [`resolve`]).
    pub max_cost_usd: Option<String>,
    /// `--judge-model`.
    pub judge_model: Option<String>,
    /// `-j`: agent runs at once.
    pub jobs: Option<u32>,
    /// `--claude`: the platform binary, the operator's choice (never a script's).
    pub claude: Option<Utf8PathBuf>,
    /// `--keep`: keep the plugin folder.
    pub keep: bool,
    /// `--platform-result`: reduce this file instead of running the platform.
    pub platform_result: Option<Utf8PathBuf>,
    /// `--platform-timeout`.
    pub platform_timeout: Option<Duration>,
}

/// `--runs`: an integer in [`RUNS`].
pub fn runs_from(n: i64) -> std::result::Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| RUNS.contains(n))
        .ok_or_else(|| format!("runs must be {}..={}, not {n}", RUNS.start(), RUNS.end()))
}

/// `-j`: an integer in [`JOBS`].
pub fn jobs_from(n: i64) -> std::result::Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| JOBS.contains(n))
        .ok_or_else(|| format!("jobs must be {}..={}, not {n}", JOBS.start(), JOBS.end()))
}

/// `--platform-timeout`: a finite number of seconds above 0.
pub fn timeout_from(secs: f64) -> std::result::Result<Duration, String> {
    if !secs.is_finite() || secs <= 0.0 || secs > MAX_TIMEOUT_SECS {
        return Err(format!(
            "a timeout must be a number of seconds above 0 (at most {MAX_TIMEOUT_SECS}), not {secs}"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Parse `text` as an integer for [`runs_from`] or [`jobs_from`].
pub fn parse_count(
    text: &str,
    check: fn(i64) -> std::result::Result<u32, String>,
) -> std::result::Result<u32, String> {
    let n: i64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    check(n)
}

/// Parse `text` as seconds for [`timeout_from`].
pub fn parse_timeout(text: &str) -> std::result::Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    timeout_from(secs)
}

/// What a platform run is held to: `opts` with the model and the ceiling
/// resolved against the environment and home `settings.json`. A bad ceiling,
/// an empty model or broken settings fail here, before anything runs.
pub fn resolve(ctx: &Context, opts: &EvalOptions) -> Result<RunOptions> {
    for (flag, value) in [
        ("--model", &opts.model),
        ("--judge-model", &opts.judge_model),
    ] {
        if value.as_deref().is_some_and(|m| m.trim().is_empty()) {
            return Err(Error::Usage(format!(
                "{flag}: give a model name (e.g. haiku), not an empty string"
            )));
        }
    }
    let settings = Settings::load(&ctx.home)?;
    Ok(RunOptions {
        model: config::resolve_model(opts.model.as_deref(), &settings),
        runs: opts.runs,
        max_cost_usd: config::resolve_ceiling(opts.max_cost_usd.as_deref(), &settings)?,
        judge_model: opts.judge_model.clone(),
        jobs: opts.jobs,
        timeout: opts.platform_timeout,
    })
}

/// What [`assemble_plugin`] prepared: a plugin folder and a started version
/// probe, or a platform result to reduce instead.
#[derive(Debug)]
pub struct Assembled {
    /// The item.
    pub item: String,
    /// The resolved options the run is held to.
    pub run: RunOptions,
    what: Prepared,
}

#[derive(Debug)]
enum Prepared {
    /// A plugin to run the platform on; `claude --version` is already running.
    Plugin { plugin: Plugin, probe: VersionProbe },
    /// `--platform-result`: nothing to run.
    File(Utf8PathBuf),
}

impl Assembled {
    /// The plugin folder, when one was assembled.
    pub fn plugin_dir(&self) -> Option<&Utf8Path> {
        match &self.what {
            Prepared::Plugin { plugin, .. } => Some(&plugin.dir),
            Prepared::File(_) => None,
        }
    }
}

/// Step 1: validate everything, check the suite, then assemble the throwaway
/// plugin while `claude --version` runs. Warnings of `check` go to `observer`;
/// a kept folder (`--keep`) is reported there too. With `--platform-result`,
/// nothing is assembled and the platform is not looked for.
pub fn assemble_plugin(
    ctx: &Context,
    item: &str,
    opts: &EvalOptions,
    observer: &dyn Observer,
) -> Result<Assembled> {
    config::validate_item_name(item)?;
    let run = resolve(ctx, opts)?;
    if let Some(file) = &opts.platform_result {
        return Ok(Assembled {
            item: item.into(),
            run,
            what: Prepared::File(file.clone()),
        });
    }
    let found = crate::item::find(&ctx.source, item)?;
    config::existing_suite(&ctx.source, item)?;
    // Nothing is assembled, so nothing is spent, for a suite `check` refuses.
    for warning in crate::check::preflight(&ctx.source, item)? {
        observer.event(&Event::Warning(warning));
    }
    // `claude --version` runs while the plugin is assembled and the validator compiled.
    let probe = platform::start_locate(opts.claude.as_deref())?;
    crate::schema::prepare_in_background();
    let mut plugin = crate::plugin::assemble(&ctx.source, &found)?;
    if opts.keep {
        let dir = plugin.keep();
        observer.event(&Event::Kept {
            item: item.into(),
            dir,
        });
    }
    Ok(Assembled {
        item: item.into(),
        run,
        what: Prepared::Plugin { plugin, probe },
    })
}

/// What [`run_platform`] left: the platform's document and where it came from.
#[derive(Debug)]
pub struct PlatformRun {
    /// The item.
    pub item: String,
    /// The options the run was held to.
    pub run: RunOptions,
    /// The platform's output; `None` for `--platform-result`.
    pub output: Option<PlatformOutput>,
    /// The document to reduce.
    pub document: Utf8PathBuf,
    /// The plugin, alive until the document is reduced (it lives in its folder).
    plugin: Option<Plugin>,
}

/// Step 2: check the platform's version and run it on the plugin (progress to
/// `observer`). With `--platform-result`, nothing runs.
pub fn run_platform(assembled: Assembled, observer: Arc<dyn Observer>) -> Result<PlatformRun> {
    let Assembled { item, run, what } = assembled;
    match what {
        Prepared::File(document) => Ok(PlatformRun {
            item,
            run,
            output: None,
            document,
            plugin: None,
        }),
        Prepared::Plugin { plugin, probe } => {
            let claude = probe.finish()?;
            let output = platform::run(&claude, &plugin, &run, observer)?;
            Ok(PlatformRun {
                item,
                run,
                document: output.document.clone(),
                output: Some(output),
                plugin: Some(plugin),
            })
        }
    }
}

impl PlatformRun {
    /// The plugin folder the platform ran on, when it ran.
    pub fn plugin_dir(&self) -> Option<&Utf8Path> {
        self.plugin.as_ref().map(|p| p.dir.as_path())
    }
}

/// Step 3: reduce the platform's document to a validated `skill-eval/1`.
pub fn reduce(run: &PlatformRun) -> Result<SkillEval> {
    let (origin, started) = match &run.output {
        Some(out) => (
            Origin::Platform {
                exit_code: out.exit_code,
            },
            Some(out.started),
        ),
        None => (Origin::File, None),
    };
    let ctx = ReduceContext {
        item: run.item.clone(),
        model: run.run.model.clone(),
        max_cost_usd: run.run.max_cost_usd,
        started,
    };
    crate::reduce::reduce_file(&run.document, origin, &ctx)
}

/// The three steps in order: `item`'s suite (or `--platform-result`) into a
/// validated `skill-eval/1` document.
pub fn evaluate(
    ctx: &Context,
    item: &str,
    opts: &EvalOptions,
    observer: Arc<dyn Observer>,
) -> Result<SkillEval> {
    let assembled = assemble_plugin(ctx, item, opts, observer.as_ref())?;
    let run = run_platform(assembled, observer)?;
    reduce(&run)
}

/// One item's outcome in [`evaluate_all`].
#[derive(Debug)]
pub struct Evaluated {
    /// The item.
    pub item: String,
    /// Its document, or why it could not run.
    pub outcome: Result<SkillEval>,
}

/// Evaluate `items`, `jobs` at once, in the order given. Each finished suite
/// is reported to `observer` ([`Event::SuiteFinished`]); run-level progress is
/// not (several platforms at once would interleave it). An interrupt stops
/// the whole batch: suites not yet started are not started, and the result
/// is [`Error::Interrupted`]. Bad options (a ceiling, a model) fail the whole
/// batch before anything runs.
pub fn evaluate_all(
    ctx: &Context,
    items: &[String],
    opts: &EvalOptions,
    jobs: usize,
    observer: Arc<dyn Observer>,
) -> Result<Vec<Evaluated>> {
    use std::sync::atomic::{AtomicBool, Ordering};
    struct SuitesOnly(Arc<dyn Observer>);
    impl Observer for SuitesOnly {
        fn event(&self, event: &Event) {
            match event {
                Event::RunsPlanned { .. }
                | Event::RunDone { .. }
                | Event::PlatformStarted { .. }
                | Event::PlatformFinished { .. }
                | Event::CeilingHit { .. } => {}
                other => self.0.event(other),
            }
        }
    }
    // Options wrong for one suite are wrong for all: refuse them before any suite runs.
    resolve(ctx, opts)?;
    let quiet: Arc<dyn Observer> = Arc::new(SuitesOnly(observer.clone()));
    let interrupted = AtomicBool::new(false);
    let done = crate::parallel::map(items, jobs, |item| {
        if interrupted.load(Ordering::SeqCst) {
            return None;
        }
        let outcome = evaluate(ctx, item, opts, quiet.clone());
        let said = match &outcome {
            Ok(doc) => doc.verdict.as_str().to_string(),
            Err(err) => {
                if matches!(err, Error::Interrupted) {
                    interrupted.store(true, Ordering::SeqCst);
                }
                format!("could not run: {err}")
            }
        };
        observer.event(&Event::SuiteFinished {
            item: item.clone(),
            outcome: said,
        });
        Some(Evaluated {
            item: item.clone(),
            outcome,
        })
    });
    if interrupted.into_inner() {
        return Err(Error::Interrupted);
    }
    Ok(done.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_live_once() {
        assert_eq!(runs_from(50), Ok(50));
        assert!(runs_from(0).is_err() && runs_from(51).is_err() && runs_from(-1).is_err());
        assert_eq!(jobs_from(8), Ok(8));
        assert!(jobs_from(9).is_err());
        assert_eq!(parse_count(" 3 ", runs_from), Ok(3));
        assert!(parse_count("x", runs_from).is_err());
        assert_eq!(parse_timeout("1.5"), Ok(Duration::from_millis(1500)));
        for bad in ["0", "-1", "nan", "inf", "1e10", "x"] {
            assert!(parse_timeout(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn empty_model_is_refused_before_anything_runs() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let ctx = Context {
            source: root.to_owned(),
            home: root.join("home"),
        };
        let opts = EvalOptions {
            model: Some(" ".into()),
            ..EvalOptions::default()
        };
        let err = resolve(&ctx, &opts).unwrap_err();
        assert_eq!(err.exit_code(), crate::error::exit::USAGE, "{err}");
    }
}
