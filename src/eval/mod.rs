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
pub mod collect;
pub mod estimate;
pub mod neighbours;
pub mod plan;
pub mod price;
pub mod rates;

use crate::config::ItemName;
use crate::config::{self, Context};
use crate::document::{PartialReason, SkillEval};
use crate::error::{Error, Result};
use crate::event::{Event, Observer};
use crate::evidence::{self, Store};
use crate::platform::{self, PlatformOutput, RunOptions, VersionProbe};
use crate::plugin::Plugin;
use camino::{Utf8Path, Utf8PathBuf};
use plan::{Plan, PlannedCase, UsedRuns};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

mod options;
use options::resolve_keeping;
pub use options::{
    EvalOptions, WAIT_ENV, evidence_path, evidence_wait, jobs_from, parse_count, parse_timeout,
    resolve, runs_fields, runs_from, timeout_from,
};
mod buy;
use buy::{Purchase, buy_and_gather, runs_context};
mod all;
pub use all::{Failure, ItemOutcome, evaluate_all};
mod conclude;
pub use auto::{auto_policy, buying_level};
pub use conclude::reduce;
pub use plan::best_version;

/// Runs per case and arm that `--runs` accepts (the platform's own limits).
pub const RUNS: std::ops::RangeInclusive<u32> = 1..=crate::stats::runs::MAX_RUNS;
/// Agent runs at once that `-j` accepts (the platform's own limits).
pub const JOBS: std::ops::RangeInclusive<u32> = 1..=8;
/// Suites evaluated at once (`sweep --jobs`, a script's `evaluate_all(…, jobs)`).
pub const SUITES_AT_ONCE: std::ops::RangeInclusive<u32> = 1..=16;

/// `suites at once`: an integer in [`SUITES_AT_ONCE`].
pub fn suites_at_once_from(n: i64) -> std::result::Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| SUITES_AT_ONCE.contains(n))
        .ok_or_else(|| {
            format!(
                "suites at once must be {}..={}, not {n}",
                SUITES_AT_ONCE.start(),
                SUITES_AT_ONCE.end()
            )
        })
}
/// The longest `--platform-timeout`, in seconds.
pub const MAX_TIMEOUT_SECS: f64 = 1e9;

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
    let judge_model = run.judge_model.clone().unwrap_or_else(|| "default".into());
    let options = options_key(run);
    let scaffold = run.scaffold == Some(true);
    let mut all_cases = BTreeMap::new();
    for case in &suite.cases {
        let judged = case
            .graders
            .iter()
            .any(|g| g.kind().is_some_and(|k| k.asks_judge()));
        let key = plan::case_key(
            evidence::case_digest(&suite.dir, &case.dir)?,
            judged,
            case.context.contains_key("scaffold_script"),
            &judge_model,
            &options,
            scaffold,
        );
        all_cases.insert(case.name.clone(), key);
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
            digest: all_cases[&case.name].digest.clone(),
            runs: opts
                .runs
                .unwrap_or_else(|| u32::try_from(case.runs()).unwrap_or(u32::MAX)),
            triggers,
            only_with_only: !case.graders.is_empty()
                && case.graders.iter().all(crate::suite::Grader::is_with_only),
            scaffold_script: case
                .context
                .get("scaffold_script")
                .and_then(|e| e.as_str())
                .map(str::to_owned),
            judges: u32::try_from(
                case.graders
                    .iter()
                    .filter(|g| g.kind().is_some_and(|k| k.asks_judge()))
                    .count(),
            )
            .unwrap_or(u32::MAX),
        });
    }
    plan::refuse_unchosen_scaffolds(&found.name, &cases, run.scaffold)?;
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
    let tools = evidence::RunKey::tool_list(&run.allow_tools, &run.disallow_tools);
    let settings = crate::config::Settings::load(&ctx.home)?;
    let threshold = crate::config::resolve_judge_threshold(&settings)?;
    let judge_records = crate::suite::judges::records_for(&suite, threshold, Some(&judge_model))?;
    Ok(Plan {
        item: found.name.clone(),
        item_digest,
        filtered: cases.len() < suite.cases.len(),
        all_cases,
        cases,
        model: run.model.clone(),
        judge_model,
        judge_records,
        tools,
        options,
        scaffold,
        platform_env: run.platform_env.clone(),
    })
}

/// The [`evidence::options_digest`] of `run`: the variables opted into with
/// `--platform-env` (`env` = `NAME=VALUE`), each a part of the key; none
/// gives the digest every run had before them.
pub fn options_key(run: &RunOptions) -> String {
    let pairs: Vec<String> = run
        .platform_env
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    let servers = run.servers.words();
    evidence::options_digest(
        &pairs
            .iter()
            .map(|p| ("env", p.as_str()))
            .chain(servers.as_deref().map(|s| ("mcp-servers", s)))
            .collect::<Vec<_>>(),
    )
}

/// What [`assemble_plugin`] prepared: a plugin folder and a started version
/// probe, or a platform result to reduce instead.
#[derive(Debug)]
pub struct Assembled {
    /// The item.
    pub item: ItemName,
    /// The resolved options the run is held to.
    pub run: RunOptions,
    /// The flags its document records ([`EvalOptions::recorded_flags`]).
    flags: Vec<String>,
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
    /// The most bytes of compressed traces the store keeps ([`options::transcript_cap`]).
    transcript_cap: u64,
    fresh: bool,
    /// `--best`: the with arm is bought anew (the runs that selected the
    /// best are never reused to measure it again); the without arm is reused.
    fresh_with: bool,
    auto: Option<crate::stats::AutoPolicy>,
    /// The confidence mode's level `auto` was planned at; `None`: the
    /// bare rule's defaults.
    level: Option<f64>,
    /// The item's sequence when `level` is its level (the price is stated there).
    sequence: Option<crate::stats::sequence::Sequence>,
    /// The best recorded for the model, which `--runs auto` also settles
    /// `beats-best` and `trigger-rate` against.
    against: Option<crate::stats::Against>,
    competition: Option<neighbours::Competition>,
    /// The minimum effect of interest (`--min-effect`, the setting, 0.2).
    min_effect: f64,
}

#[derive(Debug)]
enum Prepared {
    /// A plugin to run the platform on; `claude --version` is already running.
    Plugin(Box<ToRun>),
    /// `--platform-result`: nothing to run; the suite's judged graders.
    File(Utf8PathBuf, Vec<crate::suite::judges::JudgeRecord>),
}

impl Assembled {
    /// The plugin folder, when one was assembled.
    pub fn plugin_dir(&self) -> Option<&Utf8Path> {
        match &self.what {
            Prepared::Plugin(to_run) => Some(&to_run.plugin.dir),
            Prepared::File(..) => None,
        }
    }
}

/// Step 1: validate everything, check the suite, then assemble the throwaway
/// plugin while `claude --version` runs. Warnings of `check` go to `observer`;
/// a kept folder (`--keep`) is reported there too. With `--platform-result`,
/// nothing is assembled and the platform is not looked for.
pub fn assemble_plugin(
    ctx: &Context,
    item: &ItemName,
    opts: &EvalOptions,
    observer: &dyn Observer,
) -> Result<Assembled> {
    if opts.dry_run {
        return Err(Error::Usage(format!(
            "dry run: `{item}` would run the platform; a dry run only estimates (`--dry-run` on the command line, `estimate(item, opts)` in a script)"
        )));
    }
    let (run, settings) = resolve_keeping(ctx, opts)?;
    if opts.neighbours.is_some() && opts.platform_result.is_some() {
        return Err(Error::Usage(
            "--neighbours runs the platform, and --platform-result reduces a result instead: give one of them".into(),
        ));
    }
    if let Some(file) = &opts.platform_result {
        let judge = run.judge_model.as_deref().unwrap_or("default");
        let judges = collect::judge_records(ctx, item, judge)?;
        let what = Prepared::File(file.clone(), judges);
        let item = item.clone();
        let flags = opts.recorded_flags();
        return Ok(Assembled {
            item,
            run,
            flags,
            what,
        });
    }
    let found = crate::item::find(&ctx.source, item)?;
    config::existing_suite(&ctx.source, item)?;
    // `--best`: the recorded best's kept version instead of the source's.
    let found = if opts.best {
        best_version(ctx, &found, &run.model, &evidence_path(ctx, opts))?
    } else {
        found
    };
    // Nothing is assembled, so nothing is spent, for a suite `check` refuses.
    for warning in crate::check::preflight(&ctx.source, item)? {
        observer.event(&Event::Warning(warning.into()));
    }
    let plan = plan(ctx, &found, opts, &run)?;
    let wait = evidence_wait(&ctx.env)?;
    let transcript_cap = options::transcript_cap(&ctx.env)?;
    // Under the gate's confidence mode, auto spends the error budget that
    // mode asks for (`AutoPolicy::for_level`).
    let level = config::resolve_mode(opts.confidence, opts.rule, false, &settings)?.level();
    let (level, sequence) = match buying_level(level, opts, item, &run.model, || {
        let store = evidence_path(ctx, opts);
        Ok(if store.exists() {
            Store::open(&store)?.decisions(&[item.to_string()])?
        } else {
            Vec::new()
        })
    })? {
        Some((level, Some(sequence))) => {
            observer.event(&Event::Notice(format!(
                "{item}: runs auto buys at {}: {}",
                crate::gate::fmt_level(level),
                crate::gate::sequence_words(&sequence, item, &run.model)
            )));
            (Some(level), Some(sequence))
        }
        other => (other.map(|(level, _)| level), None),
    };
    let min_effect = config::resolve_min_effect(opts.min_effect, &settings)?;
    let auto = opts
        .auto
        .map(|max| auto_policy(max, level, plan.cases.len(), min_effect));
    let against = match opts.auto {
        Some(_) => match crate::document::load_baseline(&ctx.source, item) {
            Ok(baseline) => baseline.best_for(&run.model).map(auto::against),
            Err(e) => {
                observer.event(&Event::Notice(format!(
                    "{item}: --runs auto settles `helps` only: the best could not be read ({e})"
                )));
                None
            }
        },
        None => None,
    };
    // `claude --version` runs while the plugin is assembled and the validator compiled.
    let probe = platform::start_locate(opts.claude.as_deref(), ctx.env.clone())?;
    crate::schema::prepare_in_background();
    let mut plugin = crate::plugin::assemble(&ctx.source, &ctx.env.temp_dir(), &found)?;
    if opts.keep {
        let dir = plugin.keep();
        observer.event(&Event::Kept {
            item: item.into(),
            dir,
            scratch: plugin.scratch.clone(),
        });
    }
    let competition = match &opts.neighbours {
        None => None,
        Some(names) => {
            let mut competition = neighbours::prepare(ctx, &found, names, opts.runs)?;
            if opts.keep {
                let (dir, scratch) = neighbours::keep(&mut competition);
                observer.event(&Event::Kept {
                    item: item.into(),
                    dir,
                    scratch,
                });
            }
            observer.event(&Event::Notice(competition.announce(run.max_cost_usd)));
            Some(competition)
        }
    };
    Ok(Assembled {
        item: item.clone(),
        run,
        flags: opts.recorded_flags(),
        what: Prepared::Plugin(Box::new(ToRun {
            plugin,
            probe,
            plan,
            store: evidence_path(ctx, opts),
            wait,
            transcript_cap,
            fresh: opts.fresh,
            fresh_with: opts.best,
            auto,
            level,
            sequence,
            against,
            competition,
            min_effect,
        })),
    })
}

/// What [`run_platform`] left: the runs to judge the item on, or the
/// platform result given with `--platform-result`.
#[derive(Debug)]
pub struct Gathered {
    /// The item.
    pub item: ItemName,
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
    /// Where the evaluation is kept, and the options it states.
    keep: Option<KeepIn>,
    /// The minimum effect of interest it was planned for, when it ran.
    min_effect: Option<f64>,
    /// `--platform-result`: the suite's judged graders, to calibrate.
    judges: Vec<crate::suite::judges::JudgeRecord>,
    /// The flags its document records.
    flags: Vec<String>,
}

/// Where [`reduce`] keeps the evaluation of a run over the evidence store.
#[derive(Debug, Clone)]
struct KeepIn {
    /// The evidence store.
    store: Utf8PathBuf,
    /// `--runs` as asked: `auto:MAX`, else `None` (the plan's runs per case).
    auto: Option<u32>,
    /// `--fresh`.
    fresh: bool,
    /// How long to wait for another writer before setting it aside.
    wait: std::time::Duration,
}

/// The observer a [`Gathered`] keeps for [`reduce`].
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
    pub partial_reason: Option<PartialReason>,
    /// When this invocation started.
    pub started: chrono::DateTime<chrono::Utc>,
    /// This invocation's id ([`crate::document::new_run_id`]): the
    /// document's `run` and the `bought_by` of every run it bought.
    pub run_id: String,
    /// Under `--runs auto`: the driver's last look (intervals at its
    /// confidence), why it stopped and how many rounds it bought.
    pub auto: Option<auto::AutoSummary>,
    /// The platform's advisories of this invocation's runs, by case.
    pub advisories: BTreeMap<String, Vec<String>>,
}

/// Step 2: check the platform's version and run it on the plugin (progress to
/// `observer`). With `--platform-result`, nothing runs.
pub fn run_platform(assembled: Assembled, observer: Arc<dyn Observer>) -> Result<Gathered> {
    let Assembled {
        item,
        run,
        flags,
        what,
    } = assembled;
    match what {
        Prepared::File(document, judges) => Ok(Gathered {
            item,
            run,
            output: None,
            document: Some(document),
            evidence: None,
            neighbours: None,
            plugin: None,
            observer: Notify(observer),
            keep: None,
            min_effect: None,
            judges,
            flags,
        }),
        Prepared::Plugin(to_run) => {
            let ToRun {
                plugin,
                probe,
                plan,
                store,
                wait,
                transcript_cap,
                fresh,
                fresh_with,
                auto,
                level,
                sequence,
                against,
                competition,
                min_effect,
            } = *to_run;
            let claude = probe.finish()?;
            let keep = KeepIn {
                store: store.clone(),
                auto: auto.as_ref().map(|p| p.max_per_arm),
                fresh,
                wait,
            };
            let mut store = Store::open(&store)?;
            store.set_bought_wait(wait);
            store.set_transcript_cap(transcript_cap);
            // Runs bought while the store was held count from here on: the
            // price below is of the archive the purchase will find.
            let imported = store.import_pending();
            // The price of a decision, from this store's cost per run, and
            // the mandatory ceiling: said first, before anything is spent.
            let cases: Vec<String> = plan.cases.iter().map(|c| c.name.clone()).collect();
            let archive = match &auto {
                Some(p) => Some(auto::archive_from_store(
                    &store,
                    &plan,
                    &claude.version,
                    p,
                    fresh,
                )?),
                None => None,
            };
            let scores = archive
                .as_ref()
                .map(auto::FoundArchive::scores)
                .unwrap_or_default();
            let most = match &archive {
                Some(found) => {
                    found
                        .policy
                        .for_archive(plan.cases.len(), &scores)
                        .max_per_arm
                }
                None => plan.cases.iter().map(|c| c.runs).max().unwrap_or(1),
            };
            let costs = store.past_costs(&item, &plan.model)?;
            let price = price::price_held(
                &costs,
                &cases,
                min_effect,
                sequence.as_ref(),
                &price::Archive {
                    scores: &scores,
                    auto: archive.as_ref().map(|found| &found.policy),
                },
                most,
                run.max_cost_usd,
            );
            observer.event(&Event::Notice(format!("{item}: {}", price.words())));
            observer.event(&Event::Notice(format!(
                "{item}: cost ceiling ${:.2} ({})",
                run.max_cost_usd, run.ceiling_from
            )));
            for said in imported {
                observer.event(&Event::Notice(said));
            }
            let notify = Notify(Arc::clone(&observer));
            let mut shop = Purchase {
                claude: &claude,
                plugin: &plugin,
                run: &run,
                store: &mut store,
                fresh,
                fresh_with,
                observer: observer.clone(),
            };
            // An archive was found exactly when auto buys.
            let (output, evidence) = match archive {
                None => buy_and_gather(&mut shop, plan)?,
                Some(found) => {
                    auto::buy_adaptively(&mut shop, plan, found, level, against.as_ref())?
                }
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
            Ok(Gathered {
                item,
                run,
                output,
                document: None,
                evidence: Some(evidence),
                neighbours,
                plugin: Some(plugin),
                observer: notify,
                keep: Some(keep),
                min_effect: Some(min_effect),
                judges: Vec::new(),
                flags,
            })
        }
    }
}

impl Gathered {
    /// The plugin folder the platform ran on, when it ran.
    pub fn plugin_dir(&self) -> Option<&Utf8Path> {
        self.plugin.as_ref().map(|p| p.dir.as_path())
    }
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
    item: &ItemName,
    opts: &EvalOptions,
    observer: Arc<dyn Observer>,
) -> Result<SkillEval> {
    let assembled = assemble_plugin(ctx, item, opts, observer.as_ref())?;
    let run = run_platform(assembled, observer)?;
    reduce(&run)
}

#[cfg(test)]
mod tests {
    use super::options::{EvalOptions, jobs_from, parse_count, parse_timeout, resolve, runs_from};
    use crate::config::Context;
    use camino::Utf8Path;
    use std::time::Duration;

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
            env: Default::default(),
        };
        let opts = EvalOptions {
            model: Some(" ".into()),
            ..EvalOptions::default()
        };
        let err = resolve(&ctx, &opts).unwrap_err();
        assert_eq!(err.exit_code(), crate::error::exit::USAGE, "{err}");
    }
}
