//! `--runs auto[:MAX]`: runs bought in rounds by the statistics driver
//! ([`crate::stats::adaptive`]) until the comparison is settled, MAX runs
//! per arm of each case are reached, or the ceiling is spent. The platform is
//! the driver's [`RunSource`]: a round asks for more runs of some cases; each
//! is served first from the evidence store (runs not used yet), then bought
//! with the platform's `--case` and `--runs`.

use super::plan::{Plan, UsedRuns};
use super::{Evidence, Purchase, runs_context};
use crate::document::PartialReason;
use crate::error::{Error, Result};
use crate::event::Event;
use crate::evidence::{RunKey, Store, StoredRun};
use crate::platform::{PlatformOutput, RunOptions};
use crate::stats::{
    Against, AutoError, AutoPolicy, CaseRuns, Comparison, Round, RunRequest, RunSource,
};

/// What the driver concluded, for the document.
#[derive(Debug, Clone)]
pub struct AutoSummary {
    /// Its last look: intervals at the confidence that look was allowed.
    pub comparison: Comparison,
    /// Why it stopped, in words.
    pub stop: String,
    /// Rounds bought.
    pub rounds: usize,
    /// The confidence mode's level the stopping rule was planned at; `None`:
    /// the bare rule's defaults.
    pub level: Option<f64>,
}

/// The platform (and the evidence store) as the driver's run source.
struct PlatformSource<'a, 'b> {
    shop: &'b mut Purchase<'a>,
    plan: &'b Plan,
    keys: Vec<RunKey>,
    runs_ctx: crate::evidence::PlatformRunsContext,
    /// Per case, the runs used so far.
    used: Vec<UsedRuns>,
    /// Ids bought by this invocation.
    bought: Vec<String>,
    spent: f64,
    last: Option<PlatformOutput>,
    /// The platform's advisories, by case.
    advisories: std::collections::BTreeMap<String, Vec<String>>,
    round: usize,
    /// The stored without-arm runs were all taken before the first round
    /// (the archive): a without-arm run asked for later is a fresh one.
    archived: bool,
}

impl PlatformSource<'_, '_> {
    /// Runs of `key` (index) kept in the store and not used yet, newest first.
    fn unused(&self, index: usize, taken: &[StoredRun], want: usize) -> Result<Vec<StoredRun>> {
        if self.shop.fresh
            || want == 0
            || (self.archived && index % 2 == 1)
            || (self.shop.fresh_with && self.keys[index].arm.carries_item())
        {
            return Ok(Vec::new());
        }
        let kept = self
            .shop
            .store
            .lookup(std::slice::from_ref(&self.keys[index]), taken.len() + want)?;
        Ok(kept
            .into_iter()
            .flatten()
            .filter(|r| !taken.iter().any(|t| t.id == r.id))
            .take(want)
            .collect())
    }
}

impl RunSource for PlatformSource<'_, '_> {
    type Error = Error;

    fn run(&mut self, requests: &[RunRequest], budget_usd: f64) -> Result<Round> {
        self.round += 1;
        let names: Vec<&str> = requests
            .iter()
            .map(|r| self.plan.cases[r.case].name.as_str())
            .collect();
        // What the store already holds for this round, before anything is
        // bought, so the round's line counts what it buys.
        let mut stored = Vec::with_capacity(requests.len());
        for request in requests {
            let i = request.case;
            let want = wanted(request);
            let mut fresh_runs = [Vec::new(), Vec::new()];
            for (arm, slot) in fresh_runs.iter_mut().enumerate() {
                let taken = if arm == 0 {
                    &self.used[i].with
                } else {
                    &self.used[i].without
                };
                *slot = self.unused(2 * i + arm, taken, want[arm])?;
            }
            stored.push(fresh_runs);
        }
        // What each case's call buys: both arms as many runs as the emptier
        // lacks, or the with arm alone when the without arm is served.
        let lacking = |want: [usize; 2], fresh_runs: &[Vec<StoredRun>; 2]| {
            [0, 1].map(|arm| {
                u32::try_from(want[arm].saturating_sub(fresh_runs[arm].len())).unwrap_or(u32::MAX)
            })
        };
        let (mut to_buy, mut reused) = (0usize, 0usize);
        for (request, fresh_runs) in requests.iter().zip(&stored) {
            reused += fresh_runs.iter().map(Vec::len).sum::<usize>();
            let bought = super::plan::bought_by_calls(
                self.plan,
                &super::plan::case_calls(request.case, lacking(wanted(request), fresh_runs)),
                request.case,
            );
            to_buy += (bought[0] + bought[1]) as usize;
        }
        let reuse = if reused > 0 {
            format!(", {reused} reused from the evidence store")
        } else {
            String::new()
        };
        self.shop.observer.event(&Event::Notice(format!(
            "{}: runs auto: round {}: {}: {to_buy} run(s) to buy{reuse}",
            self.plan.item,
            self.round,
            asked(requests, &names)
        )));
        // Both arms for what the without arm lacks, the with arm alone for
        // the rest (all of it when the without arm is served): per case, or
        // one call per step for the whole suite when every case asks the same.
        let mut per_case = Vec::new();
        for (request, fresh_runs) in requests.iter().zip(&stored) {
            per_case.extend(super::plan::case_calls(
                request.case,
                lacking(wanted(request), fresh_runs),
            ));
        }
        let calls = super::plan::merged(self.plan, per_case);
        let mut fresh = stored;
        let n = requests.len();
        let mut costs = vec![0.0; n];
        let mut partial_reason = None;
        let mut faults = crate::reduce::RunFaults::default();
        let mut left = budget_usd;
        // The position in `requests` of a run's case (runs are attributed by name).
        let position = |case: &str| {
            requests
                .iter()
                .position(|r| self.plan.cases[r.case].name == case)
        };
        for planned in calls {
            if partial_reason.is_some() {
                break;
            }
            if left <= 0.0 {
                partial_reason = Some(PartialReason::CostCeiling);
                break;
            }
            let run = self.shop.run;
            let call = self.shop.once(
                &RunOptions {
                    ablation: planned.ablation,
                    case: planned.case.map(|i| self.plan.cases[i].name.clone()),
                    runs: planned.runs,
                    max_cost_usd: crate::document::round4(left),
                    ..run.clone()
                },
                self.plan,
                &self.runs_ctx,
            )?;
            left -= call.cost_usd;
            self.spent = crate::document::sum_usd([self.spent, call.cost_usd]);
            if call.partial_reason.is_some() {
                partial_reason = call.partial_reason;
            }
            super::buy::add_advisories(&mut self.advisories, call.advisories);
            // What each request's runs of this call cost, and how many they are.
            let (mut run_cost, mut run_count) = (vec![0.0; n], vec![0.0; n]);
            for r in call.runs {
                let Some(j) = position(&r.key.case) else {
                    continue;
                };
                run_cost[j] += r.outcome.cost_usd.max(0.0);
                run_count[j] += 1.0;
                let (i, want) = (requests[j].case, wanted(&requests[j]));
                let fault = r.outcome.fault();
                faults.add(fault.as_deref());
                if fault.is_some() {
                    // Never counted; the document says why it is partial.
                    self.used[i].errored.push(r);
                    continue;
                }
                self.bought.push(r.id.clone());
                let arm = usize::from(r.key.arm == crate::evidence::Arm::Without);
                if fresh[j][arm].len() < want[arm] {
                    fresh[j][arm].push(r);
                }
            }
            let asked = planned
                .case
                .and_then(|i| requests.iter().position(|r| r.case == i));
            for (cost, share) in costs.iter_mut().zip(shares(&run_cost, &run_count, asked)) {
                *cost += call.cost_usd * share;
            }
            self.last = Some(call.output);
        }
        let mut cases = Vec::with_capacity(requests.len());
        for ((request, [with, without]), cost_usd) in requests.iter().zip(fresh).zip(costs) {
            let i = request.case;
            cases.push(CaseRuns {
                case: i,
                with: with.iter().map(|r| r.outcome.score).collect(),
                without: without.iter().map(|r| r.outcome.score).collect(),
                cost_usd,
                trigger: triggers(&self.plan.cases[i], &with),
            });
            self.used[i].with.extend(with);
            self.used[i].without.extend(without);
        }
        // A platform that errors stops the rounds: more rounds would buy more errors.
        Ok(Round {
            cases,
            partial_reason: partial_reason
                .or_else(|| faults.reason())
                .map(|r| r.to_string()),
        })
    }
}

/// The trigger results of `case`'s with-arm `runs`: its `tool_used: Skill`
/// graders that ran, and how many passed (as the reducer counts them).
fn triggers(case: &super::plan::PlannedCase, runs: &[StoredRun]) -> crate::stats::TriggerCount {
    let mut t = crate::stats::TriggerCount::default();
    for g in runs.iter().flat_map(|r| &r.outcome.graders) {
        if case.triggers.iter().any(|p| p.name == g.name) {
            t.results += 1;
            t.fired += u32::from(g.passed);
        }
    }
    t
}

/// Each request's share of one call's cost, from what its runs of the call
/// cost (`cost`), else from how many they are (`count`); with no run to go
/// by, all of it to the request `asked` (a call for one case), else evenly.
/// The shares sum to 1.
fn shares(cost: &[f64], count: &[f64], asked: Option<usize>) -> Vec<f64> {
    let n = cost.len();
    let weights = if cost.iter().sum::<f64>() > 0.0 {
        cost
    } else {
        count
    };
    let total: f64 = weights.iter().sum();
    if total > 0.0 {
        return weights.iter().map(|w| w / total).collect();
    }
    (0..n)
        .map(|j| match asked {
            Some(a) => f64::from(u8::from(a == j)),
            None => 1.0 / n as f64,
        })
        .collect()
}

/// The runs a request wants, `[with, without]`.
fn wanted(request: &RunRequest) -> [usize; 2] {
    [request.with as usize, request.without as usize]
}

/// A round's requests in words: `2 more run(s) per arm of fires, quiet`,
/// `2 more with-arm run(s) of fires, quiet`, or per case when they differ
/// (`3 more run(s) per arm of fires; 3 more with-arm run(s) of quiet`).
fn asked(requests: &[RunRequest], names: &[&str]) -> String {
    let one = |r: &RunRequest| match (r.with, r.without) {
        (w, wo) if w == wo => format!("{w} more run(s) per arm of"),
        (w, 0) => format!("{w} more with-arm run(s) of"),
        (w, wo) => format!("{w} more with and {wo} more without run(s) of"),
    };
    let phrases: Vec<String> = requests.iter().map(one).collect();
    if phrases.windows(2).all(|p| p[0] == p[1]) {
        return format!(
            "{} {}",
            phrases.first().map_or("no run", String::as_str),
            names.join(", ")
        );
    }
    phrases
        .iter()
        .zip(names)
        .map(|(p, name)| format!("{p} {name}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The best as `--runs auto` settles against it, read as the gate reads it:
/// its score to 4 decimals, its with arms when it kept its runs, its
/// trigger rate and counts.
pub fn against(best: &crate::document::BestEntry) -> Against {
    Against {
        score: crate::document::round4(best.score),
        with_arms: best
            .evidence
            .as_ref()
            .map(|e| e.cases.iter().map(|c| (c.with.sum, c.with.runs)).collect())
            .unwrap_or_default(),
        trigger_rate: best.trigger_rate.map(crate::document::round4),
        trigger: best.evidence.as_ref().and_then(|e| e.trigger),
    }
}

/// Buy runs adaptively (see the module docs) from the archive `found`
/// ([`archive_from_store`], with the policy it buys under) and gather them
/// as evidence.
pub(crate) fn buy_adaptively(
    shop: &mut Purchase,
    plan: Plan,
    found: FoundArchive,
    level: Option<f64>,
    against: Option<&Against>,
) -> Result<(Option<PlatformOutput>, Evidence)> {
    let (run, observer) = (shop.run, shop.observer.clone());
    observer.event(&Event::Notice(format!(
        "{}: runs auto: {}",
        plan.item,
        stopping_rule(level)
    )));
    let started = chrono::Utc::now();
    let run_id = crate::document::new_run_id(&plan.item, started);
    let keys = plan.keys(&shop.claude.version);
    let scores = found.scores();
    let FoundArchive {
        runs: archive,
        policy,
    } = found;
    if archive.iter().any(|a| !a.is_empty()) {
        let held: usize = archive.iter().map(Vec::len).sum();
        let planned = policy.for_archive(plan.cases.len(), &scores).max_per_arm;
        let max = if planned < policy.max_per_arm {
            format!(
                "; planned from what they show, {planned} run(s) per arm at most (was {})",
                policy.max_per_arm
            )
        } else {
            String::new()
        };
        observer.event(&Event::Notice(format!(
            "{}: runs auto: {held} stored without-arm run(s) count; {} fresh one(s) per case top them up{max}",
            plan.item, policy.top_up
        )));
    }
    let mut source = PlatformSource {
        keys,
        runs_ctx: runs_context(&plan, run_id.clone()),
        used: archive
            .into_iter()
            .map(|without| UsedRuns {
                without,
                ..UsedRuns::default()
            })
            .collect(),
        plan: &plan,
        shop,
        bought: Vec::new(),
        spent: 0.0,
        last: None,
        advisories: Default::default(),
        round: 0,
        archived: true,
    };
    let outcome = crate::stats::adaptive_from(
        &mut source,
        plan.cases.len(),
        &policy,
        run.max_cost_usd,
        against,
        &scores,
    )
    .map_err(|e| match e {
        AutoError::Source { error, .. } => error,
        other => Error::Usage(format!("--runs auto: {other}")),
    })?;
    let stop = outcome.stop.to_string();
    observer.event(&Event::Notice(format!(
        "{}: runs auto: stopped after {} round(s) ({stop}), {} run(s) in all",
        plan.item,
        outcome.rounds.len(),
        outcome.runs
    )));
    let (mut reused_runs, mut reused_cost, mut bought_runs) = (0u32, 0.0, 0u32);
    let mut imported_runs = 0u32;
    for r in source
        .used
        .iter()
        .flat_map(|u| u.with.iter().chain(&u.without))
    {
        if source.bought.contains(&r.id) {
            bought_runs += 1;
        } else if r.is_imported() {
            imported_runs += 1;
        } else {
            reused_runs += 1;
            reused_cost = crate::document::sum_usd([reused_cost, r.outcome.cost_usd]);
        }
    }
    let errored: usize = source.used.iter().map(|u| u.errored.len()).sum();
    bought_runs += u32::try_from(errored).unwrap_or(u32::MAX);
    let partial_reason = match &outcome.stop {
        crate::stats::Stop::CeilingSpent => Some(PartialReason::CostCeiling),
        crate::stats::Stop::SourceStopped { reason } => Some(PartialReason::from(reason.clone())),
        _ => None,
    };
    let (used, spent, last, advisories) =
        (source.used, source.spent, source.last, source.advisories);
    Ok((
        last,
        Evidence {
            plan,
            used: used
                .into_iter()
                .map(|u| UsedRuns {
                    // Oldest first, as the platform lists them.
                    with: sorted(u.with),
                    without: sorted(u.without),
                    errored: u.errored,
                })
                .collect(),
            spent_usd: crate::document::round4(spent),
            reused_runs,
            imported_runs,
            reused_cost_usd: crate::document::round4(reused_cost),
            bought_runs,
            partial_reason,
            started,
            run_id,
            advisories,
            auto: Some(AutoSummary {
                comparison: outcome.comparison,
                stop,
                rounds: outcome.rounds.len(),
                level,
            }),
        },
    ))
}

/// The stopping rule `--runs auto` buys under, in words: the confidence
/// mode's at `level`, or the bare rule's defaults.
pub fn stopping_rule(level: Option<f64>) -> String {
    match level {
        Some(level) => format!(
            "buys under the confidence mode's stopping rule at {} (--confidence)",
            crate::gate::fmt_level(level)
        ),
        None => "buys under the bare rule's stopping rule (no confidence mode)".into(),
    }
}

/// The archive a purchase counts: each case's stored without-arm runs
/// (newest first, at most [`AutoPolicy::stored_most`]; none with
/// `--fresh`), and the policy to buy with. A version of the item whose
/// with arm is already stored for its first round (an evaluation repeated)
/// buys no top-up: it pays for nothing it already has; any other
/// evaluation tops the archive up.
pub(crate) struct FoundArchive {
    pub runs: Vec<Vec<StoredRun>>,
    pub policy: AutoPolicy,
}

impl FoundArchive {
    /// Each case's stored scores.
    pub(crate) fn scores(&self) -> Vec<Vec<f64>> {
        self.runs
            .iter()
            .map(|runs| runs.iter().map(|r| r.outcome.score).collect())
            .collect()
    }
}

/// The [`FoundArchive`] in `store`.
fn archive_in(
    store: &Store,
    keys: &[RunKey],
    policy: &AutoPolicy,
    fresh: bool,
) -> Result<(Vec<Vec<StoredRun>>, AutoPolicy)> {
    let cases = keys.len() / 2;
    if fresh {
        return Ok((vec![Vec::new(); cases], *policy));
    }
    let with: Vec<RunKey> = keys.iter().step_by(2).cloned().collect();
    let first = policy.first_round as usize;
    let measured = store
        .lookup(&with, first)?
        .iter()
        .all(|runs| runs.len() >= first);
    let policy = AutoPolicy {
        top_up: if measured { 0 } else { policy.top_up },
        ..*policy
    };
    let without: Vec<RunKey> = keys.iter().skip(1).step_by(2).cloned().collect();
    Ok((store.lookup(&without, policy.stored_most())?, policy))
}

/// The [`FoundArchive`] `policy` counts on `plan` from `store`, as the purchase
/// will use it: what its MAX is planned again from
/// ([`AutoPolicy::for_archive`]) and the price line counts, stated before
/// anything is bought.
pub(crate) fn archive_from_store(
    store: &Store,
    plan: &Plan,
    platform_version: &str,
    policy: &AutoPolicy,
    fresh: bool,
) -> Result<FoundArchive> {
    let (runs, policy) = archive_in(store, &plan.keys(platform_version), policy, fresh)?;
    Ok(FoundArchive { runs, policy })
}

fn sorted(mut runs: Vec<StoredRun>) -> Vec<StoredRun> {
    runs.sort_by_key(|r| (r.outcome.started_at, r.outcome.run));
    runs
}

/// The level `--runs auto` buys at under the confidence mode at `level`:
/// the mode's own, or for an evaluation that feeds a recorded decision
/// (`for_record`, `propose`) the level the item's sequence will hold that
/// decision to (`ops::decide`, [`crate::stats::sequence`]), from the item's
/// kept `decisions`, with that sequence: auto then plans the power of the
/// decision it feeds. `None` without the mode.
pub fn buying_level(
    level: Option<f64>,
    opts: &super::EvalOptions,
    item: &str,
    model: &str,
    decisions: impl FnOnce() -> Result<Vec<crate::evidence::KeptDecision>>,
) -> Result<Option<(f64, Option<crate::stats::sequence::Sequence>)>> {
    Ok(match level {
        Some(level) if opts.for_record && opts.auto.is_some() => {
            let sequence =
                crate::history::next_in_sequence(&decisions()?, item, model, 1.0 - level);
            Some((sequence.level, Some(sequence)))
        }
        other => other.map(|level| (level, None)),
    })
}

/// How `--runs auto:MAX` buys on `cases` cases: the defaults, or under the
/// gate's confidence mode at `level` the error budget that level asks for,
/// planned for 80 % power at `min_effect` with MAX as a cap
/// ([`crate::stats::AutoPolicy::planned_for`]).
pub fn auto_policy(
    max: u32,
    level: Option<f64>,
    cases: usize,
    min_effect: f64,
) -> crate::stats::AutoPolicy {
    let policy = match level {
        Some(level) => crate::stats::AutoPolicy::for_level(max, level),
        None => crate::stats::AutoPolicy::new(max),
    };
    policy
        .with_min_effect(min_effect)
        .planned_for(cases, min_effect)
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn a_call_for_the_whole_suite_shares_its_cost_by_what_each_case_s_runs_cost() {
        let got = shares(&[0.06, 0.02], &[2.0, 1.0], None);
        assert!((got[0] - 0.75).abs() < 1e-12 && (got[1] - 0.25).abs() < 1e-12);
        // Free runs: by their number.
        assert_eq!(shares(&[0.0, 0.0], &[1.0, 3.0], None), vec![0.25, 0.75]);
        // No run at all: to the one case asked, else evenly.
        assert_eq!(shares(&[0.0, 0.0], &[0.0, 0.0], Some(1)), vec![0.0, 1.0]);
        assert_eq!(shares(&[0.0, 0.0], &[0.0, 0.0], None), vec![0.5, 0.5]);
    }
}
