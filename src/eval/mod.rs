//! An evaluation composed of its steps: [`assemble_plugin`] → [`run_platform`]
//! → [`reduce`]. [`evaluate`] is nothing but the three in order; the Rhai
//! primitives of the same names call these very functions, so a pipeline that
//! composes them gets the same document as `evaluate`.
//!
//! Everything that can be refused for free (the item name, the options, the
//! settings, the ceiling, the suite's `check` errors) is refused in
//! [`assemble_plugin`], before the platform is started: a bad flag never
//! costs a run.

pub mod auto;
pub mod neighbours;
pub mod plan;

use crate::config::{self, Context, Settings};
use crate::document::{SkillEval, round4};
use crate::error::{Error, Result};
use crate::event::{Event, Observer};
use crate::evidence::{self, PlatformRunsContext, Store, StoredRun};
use crate::platform::{self, PlatformOutput, RunOptions, VersionProbe};
use crate::plugin::Plugin;
use crate::reduce::{Origin, ReduceContext};
use camino::{Utf8Path, Utf8PathBuf};
use plan::{Plan, PlannedCase, UsedRuns};
use std::collections::BTreeMap;
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
    /// `--case GLOB…`: only the cases whose names match one of these.
    pub cases: Vec<String>,
    /// `--tag TAG…`: only the cases holding one of these tags.
    pub tags: Vec<String>,
    /// `--allow-tools TOOL…`: the operator's grant for gated tools.
    pub allow_tools: Vec<String>,
    /// `--disallow-tools TOOL…`: tools kept from the model in every case.
    pub disallow_tools: Vec<String>,
    /// `--fresh`: buy every run anew instead of reusing stored ones.
    pub fresh: bool,
    /// `--evidence PATH`: the evidence store [default: `$BOB_EVIDENCE`, else `<home>/evidence.db`].
    pub evidence: Option<Utf8PathBuf>,
    /// `--runs auto[:MAX]`: buy runs in rounds until the comparison is settled,
    /// at most MAX per arm of each case (`runs` is then unset).
    pub auto: Option<u32>,
    /// `sweep --max-total-usd`: [`evaluate_all`] launches no suite once its
    /// suites have spent this much (the operator's, never a script's).
    pub max_total_usd: Option<f64>,
    /// `--report FILE`: save the platform's `report.html` there once the
    /// evaluation succeeded.
    pub report: Option<Utf8PathBuf>,
    /// `--neighbours [ITEM,…]`: after the suite, run the trigger pair again
    /// with these items loaded beside the item (every other item of the
    /// source when empty); `None` without the flag.
    pub neighbours: Option<Vec<String>>,
}

impl EvalOptions {
    /// Set `--runs` from its text: `N`, `auto` or `auto:MAX`.
    pub fn set_runs(&mut self, text: &str) -> std::result::Result<(), String> {
        match text
            .parse::<crate::stats::RunsSpec>()
            .map_err(|e| e.to_string())?
        {
            crate::stats::RunsSpec::Fixed(n) => {
                self.runs = Some(n);
                self.auto = None;
            }
            crate::stats::RunsSpec::Auto { max } => {
                self.runs = None;
                self.auto = Some(max);
            }
        }
        Ok(())
    }
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
    for (flag, values) in [
        ("--case", &opts.cases),
        ("--tag", &opts.tags),
        ("--allow-tools", &opts.allow_tools),
        ("--disallow-tools", &opts.disallow_tools),
    ] {
        if values
            .iter()
            .any(|v| v.trim().is_empty() || v.starts_with('-'))
        {
            return Err(Error::Usage(format!(
                "{flag}: give a non-empty value that does not start with '-' (got {values:?})"
            )));
        }
    }
    if let Some(report) = &opts.report {
        // Refused before anything is spent, as `--out` is.
        crate::fsio::check_writable(report)?;
    }
    let settings = Settings::load(&ctx.home)?;
    Ok(RunOptions {
        model: config::resolve_model(opts.model.as_deref(), &settings),
        runs: opts.runs,
        max_cost_usd: config::resolve_ceiling(opts.max_cost_usd.as_deref(), &settings)?,
        judge_model: opts.judge_model.clone(),
        jobs: opts.jobs,
        timeout: opts.platform_timeout,
        case: None,
        tags: Vec::new(),
        allow_tools: opts.allow_tools.clone(),
        disallow_tools: opts.disallow_tools.clone(),
        report: opts.report.clone(),
        single_arm: false,
    })
}

/// The evidence store of `opts`: `--evidence`, else `$BOB_EVIDENCE`, else `<home>/evidence.db`.
pub fn evidence_path(ctx: &Context, opts: &EvalOptions) -> Utf8PathBuf {
    Store::default_path(opts.evidence.as_deref(), &ctx.home)
}

/// The suite's cases the evaluation counts, their digests and runs.
fn plan(
    ctx: &Context,
    found: &crate::item::Item,
    opts: &EvalOptions,
    run: &RunOptions,
) -> Result<Plan> {
    let suite = crate::suite::load(&ctx.source, &found.name)?;
    let item_digest = if found.path.is_dir() {
        evidence::digest_dir(&found.path)?
    } else {
        let (dir, file) = (
            found.path.parent().unwrap_or(Utf8Path::new(".")),
            found.path.file_name().unwrap_or_default(),
        );
        evidence::digest_files(dir, &[file.into()])?
    };
    let selected = |case: &crate::suite::Case| {
        (opts.cases.is_empty() || opts.cases.iter().any(|g| plan::glob_matches(g, &case.name)))
            && (opts.tags.is_empty() || case.tags().iter().any(|t| opts.tags.contains(t)))
    };
    let mut all_digests = BTreeMap::new();
    for case in &suite.cases {
        all_digests.insert(case.name.clone(), evidence::digest_dir(&case.dir)?);
    }
    let mut cases = Vec::new();
    for case in suite.cases.iter().filter(|c| selected(c)) {
        let triggers = case
            .graders
            .iter()
            .filter(|g| g.str("type") == Some("tool_used") && g.str("tool") == Some("Skill"))
            .map(|g| {
                let quiet = g.get("max").and_then(|e| crate::suite::as_count(&e.value)) == Some(0);
                (g.name.clone(), quiet)
            })
            .collect();
        cases.push(PlannedCase {
            name: case.name.clone(),
            digest: all_digests[&case.name].clone(),
            runs: opts
                .runs
                .unwrap_or_else(|| u32::try_from(case.runs()).unwrap_or(u32::MAX)),
            triggers,
        });
    }
    if cases.is_empty() {
        let names: Vec<&str> = suite.cases.iter().map(|c| c.name.as_str()).collect();
        return Err(Error::Usage(format!(
            "no case of evals/{} matches --case {:?} / --tag {:?}; its cases: {}",
            found.name,
            opts.cases,
            opts.tags,
            names.join(", ")
        )));
    }
    let mut tools = run.allow_tools.clone();
    tools.extend(run.disallow_tools.iter().map(|t| format!("!{t}")));
    Ok(Plan {
        item: found.name.clone(),
        item_digest,
        filtered: cases.len() < suite.cases.len(),
        all_digests,
        cases,
        model: run.model.clone(),
        judge_model: run.judge_model.clone().unwrap_or_else(|| "default".into()),
        tools,
        options: evidence::options_digest(&[]),
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

/// A plugin ready for the platform, and what its runs are keyed and kept with.
#[derive(Debug)]
struct ToRun {
    plugin: Plugin,
    probe: VersionProbe,
    plan: Plan,
    store: Utf8PathBuf,
    fresh: bool,
    auto: Option<u32>,
    competition: Option<neighbours::Competition>,
}

#[derive(Debug)]
enum Prepared {
    /// A plugin to run the platform on; `claude --version` is already running.
    Plugin(Box<ToRun>),
    /// `--platform-result`: nothing to run.
    File(Utf8PathBuf),
}

impl Assembled {
    /// The plugin folder, when one was assembled.
    pub fn plugin_dir(&self) -> Option<&Utf8Path> {
        match &self.what {
            Prepared::Plugin(to_run) => Some(&to_run.plugin.dir),
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
    if opts.neighbours.is_some() && opts.platform_result.is_some() {
        return Err(Error::Usage(
            "--neighbours runs the platform, and --platform-result reduces a result instead: give one of them".into(),
        ));
    }
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
    let plan = plan(ctx, &found, opts, &run)?;
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
    let competition = match &opts.neighbours {
        None => None,
        Some(names) => {
            let mut competition = neighbours::prepare(&ctx.source, &found, names, opts.runs)?;
            if opts.keep {
                let dir = neighbours::keep(&mut competition);
                observer.event(&Event::Kept {
                    item: item.into(),
                    dir,
                });
            }
            observer.event(&Event::Notice(competition.announce(run.max_cost_usd)));
            Some(competition)
        }
    };
    Ok(Assembled {
        item: item.into(),
        run,
        what: Prepared::Plugin(Box::new(ToRun {
            plugin,
            probe,
            plan,
            store: evidence_path(ctx, opts),
            fresh: opts.fresh,
            auto: opts.auto,
            competition,
        })),
    })
}

/// What [`run_platform`] left: the runs to judge the item on, or the
/// platform result given with `--platform-result`.
#[derive(Debug)]
pub struct PlatformRun {
    /// The item.
    pub item: String,
    /// The options the run was held to.
    pub run: RunOptions,
    /// The last platform output of this invocation, if the platform ran.
    pub output: Option<PlatformOutput>,
    /// `--platform-result`: the document to reduce.
    pub document: Option<Utf8PathBuf>,
    /// The runs bought and reused, when the platform was (or needed not be) run.
    pub evidence: Option<Evidence>,
    /// `--neighbours`: which item fired on the trigger pair's prompts.
    pub neighbours: Option<crate::document::Neighbours>,
    /// The plugin, alive until the document is reduced (it lives in its folder).
    plugin: Option<Plugin>,
    /// Told where the platform's report was saved (`--report`).
    observer: Notify,
}

/// The observer a [`PlatformRun`] keeps for [`reduce`].
#[derive(Clone)]
struct Notify(Arc<dyn Observer>);

impl std::fmt::Debug for Notify {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notify")
    }
}

/// The runs an evaluation is judged on and what they cost.
#[derive(Debug)]
pub struct Evidence {
    /// The cases and keys.
    pub plan: Plan,
    /// Per planned case, the runs used.
    pub used: Vec<UsedRuns>,
    /// What this invocation spent.
    pub spent_usd: f64,
    /// Runs used that an earlier invocation bought, and what they had cost.
    pub reused_runs: u32,
    /// What the reused runs had cost.
    pub reused_cost_usd: f64,
    /// Runs this invocation bought.
    pub bought_runs: u32,
    /// Why the result is partial, when a platform run stopped early or went wrong.
    pub partial_reason: Option<String>,
    /// When this invocation started.
    pub started: chrono::DateTime<chrono::Utc>,
    /// Under `--runs auto`: the driver's last look (intervals at its
    /// confidence), why it stopped and how many rounds it bought.
    pub auto: Option<auto::AutoSummary>,
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
            document: Some(document),
            evidence: None,
            neighbours: None,
            plugin: None,
            observer: Notify(observer),
        }),
        Prepared::Plugin(to_run) => {
            let ToRun {
                plugin,
                probe,
                plan,
                store,
                fresh,
                auto,
                competition,
            } = *to_run;
            let claude = probe.finish()?;
            let mut store = Store::open(&store)?;
            let notify = Notify(Arc::clone(&observer));
            let (output, evidence) = match auto {
                None => buy_and_gather(
                    &claude,
                    &plugin,
                    &run,
                    plan,
                    &mut store,
                    fresh,
                    observer.clone(),
                )?,
                Some(max) => auto::buy_adaptively(
                    &claude,
                    &plugin,
                    &run,
                    plan,
                    &mut store,
                    fresh,
                    max,
                    observer.clone(),
                )?,
            };
            // The trigger pair among the neighbours, paid from what the suite left.
            let neighbours = match &competition {
                None => None,
                Some(c) => Some(neighbours::run(
                    &claude,
                    c,
                    &run,
                    run.max_cost_usd - evidence.spent_usd,
                    observer,
                )?),
            };
            Ok(PlatformRun {
                item,
                run,
                output,
                document: None,
                evidence: Some(evidence),
                neighbours,
                plugin: Some(plugin),
                observer: notify,
            })
        }
    }
}

/// Runs per arm still missing for each case: the planned runs less the stored ones.
fn missing(plan: &Plan, stored: &[Vec<StoredRun>]) -> Vec<u32> {
    plan.cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let have = |arm: usize| {
                u32::try_from(stored.get(2 * i + arm).map_or(0, Vec::len)).unwrap_or(u32::MAX)
            };
            c.runs
                .saturating_sub(have(0))
                .max(c.runs.saturating_sub(have(1)))
        })
        .collect()
}

/// Look up what is stored, buy what is missing (one platform run for the
/// whole suite when everything is missing, else one per case that lacks
/// runs, each with the platform's `--case` and a `--runs` for what is
/// missing), keep every bought run in the store (one transaction per
/// platform result), and gather the runs the document is made from: per case
/// and arm, the most recent planned number.
fn buy_and_gather(
    claude: &platform::Platform,
    plugin: &Plugin,
    run: &RunOptions,
    plan: Plan,
    store: &mut Store,
    fresh: bool,
    observer: Arc<dyn Observer>,
) -> Result<(Option<PlatformOutput>, Evidence)> {
    let started = chrono::Utc::now();
    let bought_by = crate::document::run_id(&plan.item, started);
    let keys = plan.keys(&claude.version);
    let most = plan.cases.iter().map(|c| c.runs).max().unwrap_or(1) as usize;
    // The stored runs of every key, newest first (none with --fresh).
    let kept = |store: &Store| -> Result<Vec<Vec<StoredRun>>> {
        if fresh {
            Ok(vec![Vec::new(); keys.len()])
        } else {
            store.lookup(&keys, most)
        }
    };
    let stored = kept(store)?;
    let need = missing(&plan, &stored);
    // One call for the whole suite when nothing is stored and nothing filtered:
    // the platform then runs each case its own number of times.
    let calls: Vec<(Option<String>, Option<u32>)> =
        if !plan.filtered && need.iter().zip(&plan.cases).all(|(n, c)| *n == c.runs) {
            vec![(None, run.runs)]
        } else {
            plan.cases
                .iter()
                .zip(&need)
                .filter(|(_, n)| **n > 0)
                .map(|(c, n)| (Some(c.name.clone()), Some(*n)))
                .collect()
        };
    let runs_ctx = runs_context(&plan, bought_by);
    let (mut spent, mut partial_reason, mut last) = (0.0_f64, None::<String>, None);
    // This invocation's runs by key, in the platform's order: used first,
    // whatever they are (a run cut short by the ceiling counts here, though
    // the store never offers it for reuse).
    let mut bought: BTreeMap<String, Vec<StoredRun>> = BTreeMap::new();
    for (case, runs) in calls {
        let remaining = round4(run.max_cost_usd - spent);
        if remaining <= 0.0 {
            partial_reason.get_or_insert_with(|| "cost_ceiling".into());
            break;
        }
        let call = buy_once(
            claude,
            plugin,
            &RunOptions {
                case,
                runs,
                max_cost_usd: remaining,
                ..run.clone()
            },
            &plan,
            &runs_ctx,
            store,
            observer.clone(),
        )?;
        spent += call.cost_usd;
        if partial_reason.is_none() {
            partial_reason = call.partial_reason;
        }
        let (out, runs) = (call.output, call.runs);
        for r in runs {
            bought.entry(r.key.id()).or_default().push(r);
        }
        last = Some(out);
        if partial_reason.as_deref() == Some("cost_ceiling") {
            break;
        }
    }
    // The runs used, per case and arm the planned number: this invocation's
    // first, then the most recent stored ones (none with --fresh).
    let stored = kept(store)?;
    let mut used = Vec::with_capacity(plan.cases.len());
    let (mut reused_runs, mut reused_cost, mut bought_runs) = (0u32, 0.0_f64, 0u32);
    for (i, case) in plan.cases.iter().enumerate() {
        let mut pick = |index: usize| -> Vec<StoredRun> {
            let new = bought.get(&keys[index].id()).cloned().unwrap_or_default();
            // What the platform ran now counts whole (it may run more than planned).
            let wanted = (case.runs as usize).max(new.len());
            let old: Vec<StoredRun> = stored[index]
                .iter()
                .filter(|r| !new.iter().any(|n| n.id == r.id))
                .take(wanted.saturating_sub(new.len()))
                .cloned()
                .collect();
            bought_runs += u32::try_from(new.len()).unwrap_or(u32::MAX);
            reused_runs += u32::try_from(old.len()).unwrap_or(u32::MAX);
            reused_cost += old.iter().map(|r| r.outcome.cost_usd).sum::<f64>();
            // Oldest first, as the platform lists them.
            let mut runs: Vec<StoredRun> = old.into_iter().rev().collect();
            runs.extend(new);
            runs
        };
        used.push(UsedRuns {
            with: pick(2 * i),
            without: pick(2 * i + 1),
        });
    }
    Ok((
        last,
        Evidence {
            plan,
            used,
            spent_usd: round4(spent),
            reused_runs,
            reused_cost_usd: round4(reused_cost),
            bought_runs,
            partial_reason,
            started,
            auto: None,
        },
    ))
}

/// The key parts of runs bought for `plan`, paid for by run `bought_by`.
pub(crate) fn runs_context(plan: &Plan, bought_by: String) -> PlatformRunsContext {
    PlatformRunsContext {
        item: plan.item.clone(),
        item_digest: plan.item_digest.clone(),
        case_digests: plan.all_digests.clone(),
        model: plan.model.clone(),
        judge_model: plan.judge_model.clone(),
        tools: plan.tools.clone(),
        options: plan.options.clone(),
        bought_by,
    }
}

/// What one platform call bought.
pub(crate) struct Bought {
    pub(crate) output: PlatformOutput,
    pub(crate) runs: Vec<StoredRun>,
    pub(crate) cost_usd: f64,
    pub(crate) partial_reason: Option<String>,
}

/// One platform call under `opts`: its document checked as always (the plugin
/// loaded, the numbers are sound), its runs kept in the store (one
/// transaction), its cost and partial state returned.
#[allow(clippy::too_many_arguments)]
pub(crate) fn buy_once(
    claude: &platform::Platform,
    plugin: &Plugin,
    opts: &RunOptions,
    plan: &Plan,
    runs_ctx: &PlatformRunsContext,
    store: &mut Store,
    observer: Arc<dyn Observer>,
) -> Result<Bought> {
    buy_once_in(claude, plugin, opts, plan, runs_ctx, store, observer)
        .map_err(|e| without_removed_paths(e, plugin))
}

/// `error` with every mention of `plugin`'s folder replaced by words, when
/// the folder is removed with the plugin (not `--keep`): no message may point
/// to a file bob-eval deleted.
fn without_removed_paths(error: Error, plugin: &Plugin) -> Error {
    if plugin.is_kept() {
        return error;
    }
    let words = "<the plugin folder, removed (--keep keeps it)>";
    let hide = |text: String| text.replace(plugin.dir.as_str(), words);
    match error {
        Error::PlatformFailed { message, details } => Error::PlatformFailed {
            message: hide(message),
            details: details.into_iter().map(hide).collect(),
        },
        Error::Io {
            path,
            action,
            source,
        } => Error::Io {
            path: hide(path.into_string()).into(),
            action,
            source,
        },
        other => other,
    }
}

#[allow(clippy::too_many_arguments)]
fn buy_once_in(
    claude: &platform::Platform,
    plugin: &Plugin,
    opts: &RunOptions,
    plan: &Plan,
    runs_ctx: &PlatformRunsContext,
    store: &mut Store,
    observer: Arc<dyn Observer>,
) -> Result<Bought> {
    let out = platform::run(claude, plugin, opts, observer)?;
    let ctx = ReduceContext {
        item: plan.item.clone(),
        model: plan.model.clone(),
        max_cost_usd: opts.max_cost_usd,
        started: Some(out.started),
    };
    let checked = crate::reduce::reduce_file(
        &out.document,
        Origin::Platform {
            exit_code: out.exit_code,
        },
        &ctx,
    )?;
    let bytes = std::fs::read(&out.document)
        .map_err(|e| Error::io(&out.document, "reading the platform result", e))?;
    let runs = evidence::runs_from_platform(&bytes, &out.document, runs_ctx).map_err(|e| {
        Error::PlatformFailed {
            message: format!("its result cannot be kept as evidence: {e}"),
            details: vec![],
        }
    })?;
    store.insert(&runs)?;
    Ok(Bought {
        // The checked document's cost is the platform's `costUsd` (to 4 decimals).
        cost_usd: checked.cost_usd,
        partial_reason: checked.partial.then_some(checked.partial_reason).flatten(),
        output: out,
        runs,
    })
}

impl PlatformRun {
    /// The plugin folder the platform ran on, when it ran.
    pub fn plugin_dir(&self) -> Option<&Utf8Path> {
        self.plugin.as_ref().map(|p| p.dir.as_path())
    }
}

/// Step 3: reduce the platform's document to a validated `skill-eval/1`;
/// then, under `--report FILE`, save the platform's `report.html` there.
pub fn reduce(run: &PlatformRun) -> Result<SkillEval> {
    let doc = reduce_only(run)?;
    save_report(run, &doc)?;
    Ok(doc)
}

/// Copy the report of the last platform run (or the one beside
/// `--platform-result`) to `--report FILE`, atomically, and say so; say
/// why when there is none (every run was reused, or the platform wrote none).
fn save_report(run: &PlatformRun, doc: &SkillEval) -> Result<()> {
    let Some(to) = &run.run.report else {
        return Ok(());
    };
    let tell = |text: String| run.observer.0.event(&Event::Notice(text));
    let from = match (&run.output, &run.document) {
        (Some(out), _) => out.report(),
        (None, Some(document)) => platform::report_beside(document),
        (None, None) => {
            tell(format!(
                "no report saved at {to}: every run was reused from the evidence store, so the platform did not run (--fresh buys them anew)"
            ));
            return Ok(());
        }
    };
    if !from.is_file() {
        let beside = run
            .document
            .as_deref()
            .map_or_else(String::new, |d| format!(" beside {d}"));
        tell(format!(
            "no report saved at {to}: the platform wrote no report.html{beside}"
        ));
        return Ok(());
    }
    let bytes = std::fs::read(&from).map_err(|e| Error::unreadable(&from, e))?;
    crate::fsio::write_atomically(to, &bytes)?;
    let reused = doc.reused_runs.unwrap_or(0);
    let rounds = run.evidence.as_ref().is_some_and(|e| e.auto.is_some());
    let partly = if reused > 0 || rounds {
        format!(
            " (it shows the last platform run only: not the {reused} run(s) reused from the evidence store{})",
            if rounds { " nor earlier rounds" } else { "" }
        )
    } else {
        String::new()
    };
    tell(format!("saved the platform's report at {to}{partly}"));
    Ok(())
}

/// [`reduce`] without saving the report.
fn reduce_only(run: &PlatformRun) -> Result<SkillEval> {
    let Some(document) = &run.document else {
        return reduce_evidence(run);
    };
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
    crate::reduce::reduce_file(document, origin, &ctx)
}

/// The document from the runs gathered: the platform's reduction over them,
/// `cost_usd` what this invocation spent, partial when a platform run stopped
/// early or the cases were filtered.
fn reduce_evidence(run: &PlatformRun) -> Result<SkillEval> {
    let evidence = run.evidence.as_ref().ok_or_else(|| Error::PlatformFailed {
        message: "nothing to reduce: the platform did not run".into(),
        details: vec![],
    })?;
    let ctx = ReduceContext {
        item: run.item.clone(),
        model: run.run.model.clone(),
        max_cost_usd: run.run.max_cost_usd,
        started: Some(evidence.started),
    };
    let label = Utf8PathBuf::from(format!("<evidence for {}>", run.item));
    let mut doc = plan::document(&evidence.plan, &evidence.used, &ctx, &label)?;
    doc.cost_usd = evidence.spent_usd;
    if let Some(n) = &run.neighbours {
        doc.cost_usd = round4(doc.cost_usd + n.cost_usd);
        doc.neighbours = Some(n.clone());
    }
    let reason = evidence
        .partial_reason
        .clone()
        .or_else(|| doc.partial_reason.clone())
        .or_else(|| evidence.plan.filtered.then(|| "filtered".to_string()));
    doc.partial = reason.is_some();
    doc.partial_reason = reason;
    doc.reused_runs = Some(evidence.reused_runs);
    doc.reused_cost_usd = Some(evidence.reused_cost_usd);
    for case in &mut doc.cases {
        case.digest = evidence
            .plan
            .cases
            .iter()
            .find(|c| c.name == case.name)
            .map(|c| c.digest.clone());
    }
    doc.suite_digest = Some(evidence.plan.suite_digest());
    if let Some(auto) = &evidence.auto {
        // The driver's own look, at its confidence (above 95 %: the looks are paid for).
        doc.stats = Some(crate::document::Stats {
            confidence: auto.comparison.confidence,
            suite: auto.comparison.suite.clone().rounded(),
            trigger: doc.stats.as_ref().and_then(|s| s.trigger),
            auto: Some(crate::document::AutoRounds {
                rounds: u32::try_from(auto.rounds).unwrap_or(u32::MAX),
                stop: auto.stop.clone(),
            }),
        });
        for (case, stats) in doc.cases.iter_mut().zip(&auto.comparison.cases) {
            case.stats = Some(stats.clone().rounded());
        }
    }
    let value = serde_json::to_value(&doc)
        .map_err(|e| Error::invalid(&label, format!("cannot be reduced: {e}")))?;
    crate::schema::validate_skill_eval(&value, &label)?;
    Ok(doc)
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

/// One item's outcome as a sweep reports it, cloneable (a pipeline's
/// `Published::Outcomes`, a shard's folder, `collect`'s rows).
#[derive(Debug, Clone)]
pub struct ItemOutcome {
    /// The item.
    pub item: String,
    /// Its result, or why it could not run.
    pub outcome: std::result::Result<Arc<SkillEval>, Failure>,
}

/// Why an item could not run: the error's message and its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The error, as the command would print it.
    pub message: String,
    /// The exit code it carries.
    pub exit_code: u8,
}

/// Evaluate `items`, `jobs` at once, in the order given. Run-level progress
/// goes to `observer` as for one suite (each event names its item, so an
/// observer can show the suites in flight side by side), and each finished
/// suite is reported ([`Event::SuiteFinished`]). An interrupt stops
/// the whole batch: suites not yet started are not started, and the result
/// is [`Error::Interrupted`]. Bad options (a ceiling, a model) fail the whole
/// batch before anything runs.
///
/// Under [`EvalOptions::max_total_usd`], a suite whose turn comes once the
/// finished suites' `cost_usd` reaches the budget is not launched: its outcome
/// is [`Error::BudgetSpent`]. Suites in flight finish, so the spend exceeds
/// the budget by at most `jobs` suites' ceilings.
pub fn evaluate_all(
    ctx: &Context,
    items: &[String],
    opts: &EvalOptions,
    jobs: usize,
    observer: Arc<dyn Observer>,
) -> Result<Vec<Evaluated>> {
    use std::sync::atomic::{AtomicBool, Ordering};
    // Options wrong for one suite are wrong for all: refuse them before any suite runs.
    resolve(ctx, opts)?;
    let interrupted = AtomicBool::new(false);
    let spent = std::sync::Mutex::new(0.0_f64);
    let done = crate::parallel::map(items, jobs, |item| {
        if interrupted.load(Ordering::SeqCst) {
            return None;
        }
        let so_far = *spent.lock().unwrap_or_else(|p| p.into_inner());
        let outcome = match opts.max_total_usd {
            Some(budget) if so_far >= budget => Err(Error::BudgetSpent {
                spent: so_far,
                budget,
            }),
            _ => evaluate(ctx, item, opts, observer.clone()),
        };
        if let Ok(doc) = &outcome {
            *spent.lock().unwrap_or_else(|p| p.into_inner()) += doc.cost_usd;
        }
        let said = match &outcome {
            Ok(doc) => Ok(Box::new(doc.clone())),
            Err(err @ Error::BudgetSpent { .. }) => Err(err.to_string()),
            Err(err) => {
                if matches!(err, Error::Interrupted) {
                    interrupted.store(true, Ordering::SeqCst);
                }
                Err(format!("could not run: {err}"))
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
