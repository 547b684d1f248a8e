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
pub mod estimate;
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
    /// `--dry-run`: say what would be bought, reused and spent
    /// ([`estimate::estimate`]); nothing runs.
    pub dry_run: bool,
    /// `--confidence LEVEL` (a script's `opts.confidence`): the gate's
    /// confidence mode ([`crate::gate::decide_at`]); `None` falls back to
    /// settings `_workflow.gate_confidence`.
    pub confidence: Option<f64>,
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
        ablation: platform::Ablation::WithWithout,
        model: config::resolve_model(opts.model.as_deref(), &settings),
        runs: opts.runs,
        max_cost_usd: config::resolve_ceiling(opts.max_cost_usd.as_deref(), &settings)?,
        ceiling_from: config::ceiling_source(opts.max_cost_usd.as_deref(), &settings),
        judge_model: opts.judge_model.clone(),
        jobs: opts.jobs,
        timeout: opts.platform_timeout,
        case: None,
        tags: Vec::new(),
        allow_tools: opts.allow_tools.clone(),
        disallow_tools: opts.disallow_tools.clone(),
        report: opts.report.clone(),
    })
}

/// The evidence store of `opts`: `--evidence`, else `$BOB_EVIDENCE`, else `<home>/evidence.db`.
pub fn evidence_path(ctx: &Context, opts: &EvalOptions) -> Utf8PathBuf {
    Store::default_path(opts.evidence.as_deref(), &ctx.home)
}

/// `$BOB_EVIDENCE_WAIT`: how long runs just bought wait in all for a busy
/// evidence store before they are set aside beside it, in seconds (0 to
/// 3600) [default: [`evidence::BOUGHT_WAIT`]]. Read before anything is spent.
pub const WAIT_ENV: &str = "BOB_EVIDENCE_WAIT";

/// The wait of [`WAIT_ENV`]; a value that is not 0..=3600 seconds is a usage error.
pub fn evidence_wait() -> Result<Duration> {
    let Some(text) = std::env::var(WAIT_ENV)
        .ok()
        .filter(|v| !v.trim().is_empty())
    else {
        return Ok(evidence::BOUGHT_WAIT);
    };
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| (0.0..=3600.0).contains(s))
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            Error::Usage(format!(
                "${WAIT_ENV}: give a number of seconds in 0..=3600, not {text:?}"
            ))
        })
}

/// The suite's cases the evaluation counts, their digests and runs.
fn plan(
    ctx: &Context,
    found: &crate::item::Item,
    opts: &EvalOptions,
    run: &RunOptions,
) -> Result<Plan> {
    let suite = crate::suite::load(&ctx.source, &found.name)?;
    let item_digest = evidence::item_digest(found)?;
    let selected = |case: &crate::suite::Case| {
        (opts.cases.is_empty() || opts.cases.iter().any(|g| plan::glob_matches(g, &case.name)))
            && (opts.tags.is_empty() || case.tags().iter().any(|t| opts.tags.contains(t)))
    };
    let mut all_digests = BTreeMap::new();
    for case in &suite.cases {
        all_digests.insert(
            case.name.clone(),
            evidence::case_digest(&suite.dir, &case.dir)?,
        );
    }
    let mut cases = Vec::new();
    for case in suite.cases.iter().filter(|c| selected(c)) {
        let triggers = case
            .graders
            .iter()
            .filter(|g| g.is_skill_trigger())
            .map(|g| plan::PlannedTrigger {
                name: g.name.clone(),
                quiet: g.get("max").and_then(|e| crate::suite::as_count(&e.value)) == Some(0),
                arm: g.arm().map(str::to_owned),
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
    /// How long runs just bought wait for a busy store ([`evidence_wait`]).
    wait: Duration,
    fresh: bool,
    auto: Option<crate::stats::AutoPolicy>,
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
    if opts.dry_run {
        return Err(Error::Usage(format!(
            "dry run: `{item}` would run the platform; a dry run only estimates (`--dry-run` on the command line, `estimate(item, opts)` in a script)"
        )));
    }
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
    let wait = evidence_wait()?;
    // Under the gate's confidence mode, auto spends the error budget that
    // mode asks for (`AutoPolicy::for_level`).
    let level = config::resolve_confidence(opts.confidence, &Settings::load(&ctx.home)?)?;
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
            wait,
            fresh: opts.fresh,
            auto: opts.auto.map(|max| auto_policy(max, level)),
            competition,
        })),
    })
}

/// How `--runs auto:MAX` buys: the defaults, or under the gate's confidence
/// mode at `level` the error budget that level asks for.
pub fn auto_policy(max: u32, level: Option<f64>) -> crate::stats::AutoPolicy {
    match level {
        Some(level) => crate::stats::AutoPolicy::for_level(max, level),
        None => crate::stats::AutoPolicy::new(max),
    }
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
    /// Runs used that an earlier invocation bought here (or that were
    /// collected from the project's shards, or are legacy).
    pub reused_runs: u32,
    /// Runs used that were imported from a file (`evidence import`).
    pub imported_runs: u32,
    /// What the reused runs had cost.
    pub reused_cost_usd: f64,
    /// Runs this invocation bought.
    pub bought_runs: u32,
    /// Why the result is partial, when a platform run stopped early or went wrong.
    pub partial_reason: Option<String>,
    /// When this invocation started.
    pub started: chrono::DateTime<chrono::Utc>,
    /// This invocation's id ([`crate::document::new_run_id`]): the
    /// document's `run` and the `bought_by` of every run it bought.
    pub run_id: String,
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
                wait,
                fresh,
                auto,
                competition,
            } = *to_run;
            let claude = probe.finish()?;
            // The mandatory ceiling, said once before anything is spent.
            observer.event(&Event::Notice(format!(
                "{item}: cost ceiling ${:.2} ({})",
                run.max_cost_usd, run.ceiling_from
            )));
            let mut store = Store::open(&store)?;
            store.set_bought_wait(wait);
            for said in store.import_pending() {
                observer.event(&Event::Notice(said));
            }
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
                Some(policy) => auto::buy_adaptively(
                    &claude,
                    &plugin,
                    &run,
                    plan,
                    &mut store,
                    fresh,
                    &policy,
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

/// Look up what is stored, buy what is missing ([`plan::calls`]: one
/// platform run for the whole suite when every case lacks the same arms,
/// else one per case that lacks runs, each with the platform's `--case` and
/// a `--runs` for what is missing; the with arm alone when the without arm
/// is stored), keep every bought run in the store (one transaction per
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
    let run_id = crate::document::new_run_id(&plan.item, started);
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
    let calls = plan::calls(&plan, &plan::missing(&plan, &stored), run.runs);
    let runs_ctx = runs_context(&plan, run_id.clone());
    let (mut spent, mut partial_reason, mut last) = (0.0_f64, None::<String>, None);
    // This invocation's runs by key, in the platform's order: used first (a
    // run cut short by the ceiling counts here, though the store never
    // offers it for reuse); a run the platform marked with an error never.
    let mut bought: BTreeMap<String, Vec<StoredRun>> = BTreeMap::new();
    let mut errored: BTreeMap<String, Vec<StoredRun>> = BTreeMap::new();
    for call in calls {
        let remaining = round4(run.max_cost_usd - spent);
        if remaining <= 0.0 {
            partial_reason.get_or_insert_with(|| "cost_ceiling".into());
            break;
        }
        let call = buy_once(
            claude,
            plugin,
            &RunOptions {
                case: call.case.map(|i| plan.cases[i].name.clone()),
                runs: call.runs,
                ablation: call.ablation,
                max_cost_usd: remaining,
                ..run.clone()
            },
            &plan,
            &runs_ctx,
            store,
            observer.clone(),
        )?;
        spent = crate::document::sum_usd([spent, call.cost_usd]);
        if partial_reason.is_none() {
            partial_reason = call.partial_reason;
        }
        let (out, runs) = (call.output, call.runs);
        for r in runs {
            let slot = if r.outcome.error.is_some() {
                &mut errored
            } else {
                &mut bought
            };
            slot.entry(r.key.id()).or_default().push(r);
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
    let mut imported_runs = 0u32;
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
            for r in &old {
                if r.is_imported() {
                    imported_runs += 1;
                } else {
                    reused_runs += 1;
                    reused_cost = crate::document::sum_usd([reused_cost, r.outcome.cost_usd]);
                }
            }
            // Oldest first, as the platform lists them.
            let mut runs: Vec<StoredRun> = old.into_iter().rev().collect();
            runs.extend(new);
            runs
        };
        let (with, without) = (pick(2 * i), pick(2 * i + 1));
        let marked: Vec<StoredRun> = [2 * i, 2 * i + 1]
            .iter()
            .flat_map(|&k| errored.get(&keys[k].id()).cloned().unwrap_or_default())
            .collect();
        bought_runs += u32::try_from(marked.len()).unwrap_or(u32::MAX);
        used.push(UsedRuns {
            with,
            without,
            errored: marked,
        });
    }
    Ok((
        last,
        Evidence {
            plan,
            used,
            spent_usd: round4(spent),
            reused_runs,
            imported_runs,
            reused_cost_usd: round4(reused_cost),
            bought_runs,
            partial_reason,
            started,
            run_id,
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
    let out = platform::run(claude, plugin, opts, observer.clone())?;
    let origin = Origin::Platform {
        exit_code: out.exit_code,
    };
    let checked = match opts.ablation {
        platform::Ablation::WithWithout => {
            let ctx = ReduceContext {
                item: plan.item.clone(),
                model: plan.model.clone(),
                max_cost_usd: opts.max_cost_usd,
                started: Some(out.started),
            };
            let doc = crate::reduce::reduce_file(&out.document, origin, &ctx)?;
            crate::reduce::SingleArm {
                // The checked document's cost is the platform's `costUsd` (to 4 decimals).
                cost_usd: doc.cost_usd,
                // The platform's own reason (a ceiling, a credential); errored
                // runs are counted where the runs used are gathered.
                partial_reason: doc
                    .partial
                    .then_some(doc.partial_reason)
                    .flatten()
                    .filter(|r| !crate::reduce::is_run_errors(r)),
            }
        }
        platform::Ablation::WithOnly => {
            crate::reduce::check_single_arm(&out.document, origin, &plan.item)?
        }
    };
    let bytes = crate::fsio::read(&out.document, crate::config::MAX_INPUT_FILE)
        .map_err(|e| Error::io(&out.document, "reading the platform result", e))?;
    let runs = evidence::runs_from_platform(&bytes, &out.document, runs_ctx).map_err(|e| {
        Error::PlatformFailed {
            message: format!("its result cannot be kept as evidence: {e}"),
            details: vec![],
        }
    })?;
    keep_bought(store, plan, &runs_ctx.bought_by, &runs, observer.as_ref())?;
    // Every run is attributed to its case by name, and only the cases asked
    // for are used (the platform reads `--case` as a pattern): the others
    // are kept in the store, under their own case's key, never counted here.
    let asked = |case: &str| match &opts.case {
        Some(name) => name == case,
        None => plan.cases.iter().any(|c| c.name == case),
    };
    let (runs, others): (Vec<StoredRun>, Vec<StoredRun>) =
        runs.into_iter().partition(|r| asked(&r.key.case));
    if !others.is_empty() {
        let mut names: Vec<&str> = others.iter().map(|r| r.key.case.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        observer.event(&Event::Notice(format!(
            "{}: the platform also ran case(s) not asked for ({}): {} run(s) kept in the evidence store under their own case, not counted here",
            plan.item,
            names.join(", "),
            others.len()
        )));
    }
    Ok(Bought {
        cost_usd: checked.cost_usd,
        partial_reason: checked.partial_reason,
        output: out,
        runs,
    })
}

/// Keep `runs`, just bought by `run_id`, in `store`: paid runs are never
/// discarded. While another writer holds the store, wait (saying so), then
/// set them aside beside it and say where; the evaluation goes on with them.
fn keep_bought(
    store: &mut Store,
    plan: &Plan,
    run_id: &str,
    runs: &[StoredRun],
    observer: &dyn Observer,
) -> Result<()> {
    let (path, wait) = (store.path().to_owned(), store.bought_wait());
    let mut on_busy = |waited| {
        observer.event(&Event::StoreBusy {
            item: plan.item.clone(),
            store: path.clone(),
            waited,
            wait,
        })
    };
    if let evidence::Kept::SetAside(file) = store.keep_bought(run_id, runs, &mut on_busy)? {
        observer.event(&Event::Notice(format!(
            "{}: the evidence store {path} stayed busy for {} s: the {} run(s) just bought are kept in {file} and stored the next time bob-eval writes the store; this evaluation uses them",
            plan.item,
            wait.as_secs(),
            runs.len()
        )));
    }
    Ok(())
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
    let bytes = crate::fsio::read(&from, crate::config::MAX_INPUT_FILE)
        .map_err(|e| Error::unreadable(&from, e))?;
    crate::fsio::write_atomically(to, &bytes)?;
    let reused = doc.reused_runs.unwrap_or(0) + doc.imported_runs.unwrap_or(0);
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
    doc.run.clone_from(&evidence.run_id);
    doc.item_digest = Some(evidence.plan.item_digest.clone());
    if let Some(n) = &run.neighbours {
        doc.cost_usd = round4(doc.cost_usd + n.cost_usd);
        doc.neighbours = Some(n.clone());
    }
    // The platform's own reason first, then the runs used (errored runs,
    // counted over every round), then a filter.
    let reason = evidence
        .partial_reason
        .clone()
        .filter(|r| !crate::reduce::is_run_errors(r))
        .or_else(|| doc.partial_reason.clone())
        .or_else(|| evidence.partial_reason.clone())
        .or_else(|| evidence.plan.filtered.then(|| "filtered".to_string()));
    doc.partial = reason.is_some();
    doc.partial_reason = reason;
    doc.reused_runs = Some(evidence.reused_runs);
    doc.imported_runs = (evidence.imported_runs > 0).then_some(evidence.imported_runs);
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

/// Refuse `result` (read from `path`) when it records the item digest it was
/// measured on and the item's files in `ctx`'s source now give another: a
/// decision on it would be about a version of the item that is gone. A
/// document that records none (reduced from a platform result given by
/// hand, or written before documents recorded it) passes.
pub fn measured_on_this_item(ctx: &Context, result: &SkillEval, path: &Utf8Path) -> Result<()> {
    if result.item_digest.is_none() {
        return Ok(());
    }
    let item = crate::item::find(&ctx.source, &result.item)?;
    match result.item_change(&evidence::item_digest(&item)?) {
        Some(why) => Err(Error::invalid(path, why)),
        None => Ok(()),
    }
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

/// What a budgeted [`evaluate_all`] has spent and holds back for the suites in flight.
#[derive(Debug, Default)]
struct Purse {
    spent: f64,
    held: f64,
}

impl Purse {
    /// The ceiling of the next suite, `ceiling` lowered to what `budget` has
    /// left, held back; [`Error::BudgetSpent`] when less than a cent is left.
    fn hold(&mut self, budget: f64, ceiling: f64) -> Result<f64> {
        let left = round4(budget - self.spent - self.held);
        if left < 0.01 {
            return Err(Error::BudgetSpent {
                spent: round4(self.spent + self.held),
                budget,
            });
        }
        let hold = ceiling.min(left);
        self.held += hold;
        Ok(hold)
    }

    /// A suite held `held` and came to `outcome`: what it spent is its
    /// document's cost; a suite that failed before the platform ran spent
    /// nothing, one that failed later is counted at its whole ceiling (what it
    /// spent is not known).
    fn settle(&mut self, held: f64, outcome: &Result<SkillEval>) {
        self.held = (self.held - held).max(0.0);
        self.spent += match outcome {
            Ok(doc) => doc.cost_usd,
            Err(
                Error::Usage(_)
                | Error::InvalidItemName { .. }
                | Error::ItemNotFound { .. }
                | Error::ItemAmbiguous { .. }
                | Error::NoSuite { .. }
                | Error::SuiteInvalid { .. }
                | Error::PlatformMissing(_)
                | Error::PlatformTooOld { .. }
                | Error::BudgetSpent { .. },
            ) => 0.0,
            Err(_) => held,
        };
    }
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
/// Under [`EvalOptions::max_total_usd`], each suite launched holds back its
/// ceiling, lowered to what the budget has left once the finished suites'
/// `cost_usd` and the ceilings of the suites in flight are counted; a suite
/// whose turn comes when less than a cent is left is not launched (its
/// outcome is [`Error::BudgetSpent`]). So the suites never spend more than
/// the budget together, as far as the platform keeps to a ceiling (it stops
/// at the first run that passes it).
pub fn evaluate_all(
    ctx: &Context,
    items: &[String],
    opts: &EvalOptions,
    jobs: usize,
    observer: Arc<dyn Observer>,
) -> Result<Vec<Evaluated>> {
    use std::sync::atomic::{AtomicBool, Ordering};
    // Options wrong for one suite are wrong for all: refuse them before any suite runs.
    let ceiling = resolve(ctx, opts)?.max_cost_usd;
    if opts.dry_run {
        return Err(Error::Usage(
            "dry run: these suites would run the platform; a dry run only estimates (`estimate(item, opts)` in a script)".into(),
        ));
    }
    let interrupted = AtomicBool::new(false);
    let purse = std::sync::Mutex::new(Purse::default());
    let done = crate::parallel::map(items, jobs, |item| {
        if interrupted.load(Ordering::SeqCst) {
            return None;
        }
        let held = opts.max_total_usd.map(|budget| {
            purse
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .hold(budget, ceiling)
        });
        let (outcome, ceiling) = match held {
            Some(Err(spent)) => (Err(spent), None),
            Some(Ok(ceiling)) => {
                let opts = EvalOptions {
                    max_cost_usd: Some(ceiling.to_string()),
                    ..opts.clone()
                };
                (evaluate(ctx, item, &opts, observer.clone()), Some(ceiling))
            }
            None => (evaluate(ctx, item, opts, observer.clone()), None),
        };
        if let Some(ceiling) = ceiling {
            purse
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .settle(ceiling, &outcome);
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

    #[test]
    fn a_purse_never_holds_more_than_the_budget() {
        let mut purse = Purse::default();
        assert_eq!(purse.hold(1.0, 0.4).unwrap(), 0.4);
        assert_eq!(purse.hold(1.0, 0.4).unwrap(), 0.4);
        assert_eq!(
            purse.hold(1.0, 0.4).unwrap(),
            0.2,
            "lowered to what is left"
        );
        assert!(matches!(
            purse.hold(1.0, 0.4),
            Err(Error::BudgetSpent { .. })
        ));
        // The first suite spent less than it held: the rest is free again.
        let doc = SkillEval {
            cost_usd: 0.1,
            ..SkillEval::sample(0.5, 0.25)
        };
        purse.settle(0.4, &Ok(doc));
        assert_eq!(purse.hold(1.0, 0.4).unwrap(), 0.3);
        // A suite refused before the platform ran spent nothing; one that failed later its ceiling.
        purse.settle(0.4, &Err(Error::Usage("x".into())));
        purse.settle(
            0.2,
            &Err(Error::PlatformFailed {
                message: "x".into(),
                details: vec![],
            }),
        );
        assert!((purse.spent - 0.3).abs() < 1e-9, "{}", purse.spent);
        assert!((purse.held - 0.3).abs() < 1e-9, "{}", purse.held);
    }
}
