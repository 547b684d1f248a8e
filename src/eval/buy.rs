//! Buying what the store lacks: the platform calls a plan needs, each result checked and its runs kept (never lost, even with the store busy), gathered into the evidence a document is made from.

use super::plan::{Plan, UsedRuns};
use super::{Evidence, plan};
use crate::document::{PartialReason, round4};
use crate::error::{Error, Result};
use crate::event::{Event, Observer};
use crate::evidence::{self, PlatformRunsContext, Store, StoredRun};
use crate::platform::{self, PlatformOutput, RunOptions};
use crate::plugin::Plugin;
use crate::reduce::{ReduceContext, ResultSource};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What every platform call of one evaluation shares: the platform, the
/// plugin it loads, the run's options (each call narrows them to a case, its
/// runs and arms, and what is left of the ceiling), the store the runs go to
/// (and are reused from unless `fresh`), and where progress goes.
pub(crate) struct Purchase<'a> {
    pub(crate) claude: &'a platform::Platform,
    pub(crate) plugin: &'a Plugin,
    pub(crate) run: &'a RunOptions,
    pub(crate) store: &'a mut Store,
    pub(crate) fresh: bool,
    /// Buy the with arm anew, reuse the without arm (`--best`).
    pub(crate) fresh_with: bool,
    pub(crate) observer: Arc<dyn Observer>,
}

impl Purchase<'_> {
    /// One platform call under `opts`: its document checked as always (the
    /// plugin loaded, the numbers are sound), its runs kept in the store (one
    /// transaction), its cost and partial state returned.
    pub(crate) fn once(
        &mut self,
        opts: &RunOptions,
        plan: &Plan,
        runs_ctx: &PlatformRunsContext,
    ) -> Result<Bought> {
        buy_once_in(self, opts, plan, runs_ctx).map_err(|e| without_removed_paths(e, self.plugin))
    }
}

/// Look up what is stored, buy what is missing ([`plan::calls`]: one
/// platform run for the whole suite when every case lacks the same arms,
/// else one per case that lacks runs, each with the platform's `--case` and
/// a `--runs` for what is missing; the with arm alone when the without arm
/// is stored), keep every bought run in the store (one transaction per
/// platform result), and gather the runs the document is made from: per case
/// and arm, the most recent planned number.
pub(super) fn buy_and_gather(
    shop: &mut Purchase,
    plan: Plan,
) -> Result<(Option<PlatformOutput>, Evidence)> {
    let (run, fresh, fresh_with) = (shop.run, shop.fresh, shop.fresh_with);
    let started = chrono::Utc::now();
    let run_id = crate::document::new_run_id(&plan.item, started);
    let keys = plan.keys(&shop.claude.version);
    let most = plan.cases.iter().map(|c| c.runs).max().unwrap_or(1) as usize;
    // The stored runs of every key, newest first (none with --fresh).
    let kept = |store: &Store| -> Result<Vec<Vec<StoredRun>>> {
        if fresh {
            Ok(vec![Vec::new(); keys.len()])
        } else {
            let mut found = store.lookup(&keys, most)?;
            if fresh_with {
                for (runs, key) in found.iter_mut().zip(&keys) {
                    if key.arm.carries_item() {
                        runs.clear();
                    }
                }
            }
            Ok(found)
        }
    };
    let stored = kept(shop.store)?;
    let need = plan::fixed_need(shop.store, &plan, &stored, (fresh, fresh_with))?;
    let renewed: Vec<&str> = plan::renewed(&plan, &stored, &need)
        .iter()
        .map(|&(i, _)| plan.cases[i].name.as_str())
        .collect();
    if !renewed.is_empty() {
        shop.observer.event(&Event::Notice(format!(
            "{}: the stored without-arm runs of {} were compared again by an earlier evaluation: {} fresh one(s) a case renew them (the top-up)",
            plan.item,
            renewed.join(", "),
            crate::stats::TOP_UP
        )));
    }
    let calls = plan::calls(&plan, &need, run.runs);
    let runs_ctx = runs_context(&plan, run_id.clone());
    let (mut spent, mut partial_reason, mut last) = (0.0_f64, None::<PartialReason>, None);
    let mut advisories = BTreeMap::new();
    // This invocation's runs by key, in the platform's order: used first (a
    // run cut short by the ceiling counts here, though the store never
    // offers it for reuse); a run the platform marked with an error never.
    let mut bought: BTreeMap<String, Vec<StoredRun>> = BTreeMap::new();
    let mut errored: BTreeMap<String, Vec<StoredRun>> = BTreeMap::new();
    for call in calls {
        let remaining = round4(run.max_cost_usd - spent);
        if remaining <= 0.0 {
            partial_reason.get_or_insert(PartialReason::CostCeiling);
            break;
        }
        let call = shop.once(
            &RunOptions {
                case: call.case.map(|i| plan.cases[i].name.clone()),
                runs: call.runs,
                ablation: call.ablation,
                max_cost_usd: remaining,
                ..run.clone()
            },
            &plan,
            &runs_ctx,
        )?;
        spent = crate::document::sum_usd([spent, call.cost_usd]);
        if partial_reason.is_none() {
            partial_reason = call.partial_reason;
        }
        add_advisories(&mut advisories, call.advisories);
        let (out, runs) = (call.output, call.runs);
        for r in runs {
            let slot = if r.outcome.fault().is_some() {
                &mut errored
            } else {
                &mut bought
            };
            slot.entry(r.key.id()).or_default().push(r);
        }
        last = Some(out);
        if partial_reason == Some(PartialReason::CostCeiling) {
            break;
        }
    }
    // The runs used, per case and arm the planned number: this invocation's
    // first, then the most recent stored ones (none with --fresh).
    let stored = kept(shop.store)?;
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
            advisories,
        },
    ))
}

/// The key parts of runs bought for `plan`, paid for by run `bought_by`.
pub(crate) fn runs_context(plan: &Plan, bought_by: String) -> PlatformRunsContext {
    PlatformRunsContext {
        item: plan.item.to_string(),
        item_digest: plan.item_digest.clone(),
        cases: plan.all_cases.clone(),
        model: plan.model.clone(),
        tools: plan.tools.clone(),
        bought_by,
    }
}

/// What one platform call bought.
pub(crate) struct Bought {
    pub(crate) output: PlatformOutput,
    pub(crate) runs: Vec<StoredRun>,
    pub(crate) cost_usd: f64,
    pub(crate) partial_reason: Option<PartialReason>,
    /// The platform's advisories, by case.
    pub(crate) advisories: BTreeMap<String, Vec<String>>,
}

/// Add `more` advisories to `all`, each once per case.
pub(crate) fn add_advisories(
    all: &mut BTreeMap<String, Vec<String>>,
    more: BTreeMap<String, Vec<String>>,
) {
    for (case, words) in more {
        let kept = all.entry(case).or_default();
        for w in words {
            if !kept.contains(&w) {
                kept.push(w);
            }
        }
    }
}

/// `error` with every mention of `plugin`'s folder replaced by words, when
/// the folder is removed with the plugin (not `--keep`): no message may point
/// to a file bob-eval deleted.
pub(super) fn without_removed_paths(error: Error, plugin: &Plugin) -> Error {
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

/// [`buy_once`] before the plugin's removed folder is worded out of its errors.
fn buy_once_in(
    shop: &mut Purchase,
    opts: &RunOptions,
    plan: &Plan,
    runs_ctx: &PlatformRunsContext,
) -> Result<Bought> {
    let out = platform::run(shop.claude, shop.plugin, opts, shop.observer.clone())?;
    let source = ResultSource::Platform {
        exit_code: out.exit_code,
    };
    // The platform's result, read and typed once: checked (reduced, for a
    // with/without one), then its runs kept.
    let result = source.blame(crate::reduce::read_result(&out.document, source))?;
    let checked = source.blame(match opts.ablation {
        platform::Ablation::WithWithout => {
            let ctx = ReduceContext {
                item: plan.item.clone(),
                model: plan.model.clone(),
                max_cost_usd: opts.max_cost_usd,
                started: Some(out.started),
            };
            crate::reduce::reduce_named(&result, &ctx, &out.document).map(|doc| {
                crate::reduce::Checked {
                    // The checked document's cost is the platform's `costUsd` (to 4 decimals).
                    cost_usd: doc.cost_usd,
                    // The platform's own reason (a ceiling, a credential); errored
                    // runs are counted where the runs used are gathered.
                    partial_reason: doc.partial_reason.filter(|r| !r.is_run_errors()),
                }
            })
        }
        platform::Ablation::WithOnly => {
            crate::reduce::check_single_arm(&result, &out.document, &plan.item)
        }
    })?;
    // The platform's words about MCP servers and stand-ins, repeated once each.
    for warning in result.mock_warnings() {
        shop.observer.event(&Event::Notice(format!(
            "{}: the platform says: {warning}",
            plan.item
        )));
    }
    let advisories: BTreeMap<String, Vec<String>> = result
        .cases
        .iter()
        .filter(|c| !c.advisories.is_empty())
        .map(|c| (c.name.clone(), c.advisories.clone()))
        .collect();
    let runs = evidence::runs_from_result(&result, &out.document, runs_ctx).map_err(|e| {
        Error::PlatformFailed {
            message: format!("its result cannot be kept as evidence: {e}"),
            details: vec![],
        }
    })?;
    keep_bought(
        shop.store,
        plan,
        &runs_ctx.bought_by,
        &runs,
        shop.observer.as_ref(),
    )?;
    keep_transcripts(shop, plan, &result, &runs);
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
        shop.observer.event(&Event::Notice(format!(
            "{}: the platform also ran case(s) not asked for ({}): {} run(s) kept in the evidence store under their own case, not counted here",
            plan.item,
            names.join(", "),
            others.len()
        )));
    }
    Ok(Bought {
        cost_usd: checked.cost_usd,
        partial_reason: checked.partial_reason,
        advisories,
        output: out,
        runs,
    })
}

/// Keep the transcripts of `runs`, just bought and kept, read from the
/// platform's temp folder before it goes with the plugin. Never fails the
/// evaluation: the runs are kept and counted whatever becomes of their
/// transcripts, and a run over the store's cap, or a store that cannot take
/// them, is said.
fn keep_transcripts(
    shop: &mut Purchase,
    plan: &Plan,
    result: &platform::result::PlatformResult,
    runs: &[StoredRun],
) {
    let (list, _missing) = evidence::transcript::read_traces(result, runs, &shop.plugin.scratch);
    if list.is_empty() {
        return;
    }
    let path = shop.store.path().to_owned();
    match shop.store.keep_transcripts(&list) {
        Ok(kept) if !kept.over_cap.is_empty() => {
            shop.observer.event(&Event::Notice(format!(
                "{}: the evidence store {path} holds {:.1} MiB of transcripts, its cap (${} = {} MiB): {} run(s) just bought are kept and counted, but without their transcript; free room with `bob-eval evidence gc`, or raise ${}",
                plan.item,
                kept.held as f64 / 1048576.0,
                evidence::transcript::CAP_ENV,
                kept.cap >> 20,
                kept.over_cap.len(),
                evidence::transcript::CAP_ENV,
            )))
        }
        Ok(_) => {}
        Err(e) => shop.observer.event(&Event::Notice(format!(
            "{}: the transcripts of the runs just bought were not kept ({e}); the runs are kept and counted",
            plan.item
        ))),
    }
}

/// Keep `runs`, just bought by `run_id`, in `store`: paid runs are never
/// discarded. While another writer holds the store, wait (saying so), then
/// set them aside beside it and say where; the evaluation goes on with them.
pub(super) fn keep_bought(
    store: &mut Store,
    plan: &Plan,
    run_id: &str,
    runs: &[StoredRun],
    observer: &dyn Observer,
) -> Result<()> {
    let (path, wait) = (store.path().to_owned(), store.bought_wait());
    let mut on_busy = |waited| {
        observer.event(&Event::StoreBusy {
            item: plan.item.to_string(),
            keeping: "the runs just bought",
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
