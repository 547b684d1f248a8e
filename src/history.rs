//! `bob-eval history`: what was measured over time, and what the gate made of it.
//!
//! A [`Point`] is one evaluation of an item's whole suite on one model, with
//! the numbers its `skill-eval/1` document had (the evidence store keeps each
//! evaluation and exactly the runs it used: [`crate::evidence::Evaluation`]),
//! and their intervals. Evaluations of some cases only (`--case`, `--tag`)
//! or partial ones are left out unless asked for (`--all`), and marked.
//!
//! Decisions are the gate's recorded ones ([`crate::evidence::KeptDecision`]),
//! joined to the point of the run they gated by its run id. A wiki row no
//! stored decision stands for (one recorded before decisions were kept) marks
//! the point of its item whose day and `with` (to the row's 4 decimals) are
//! its own, the first such in time; a row or decision that marks none is kept
//! in [`ItemHistory::unmatched`]. The best in `baseline.json` names its run:
//! that point is accepted even without a row.
//!
//! Stores from before evaluations were kept hold only runs: the runs one
//! bob-eval run bought before an item's first kept evaluation are grouped
//! into a point of their own (`from: "runs"`): `with` and `without` are the
//! means over cases of each case's mean score on that arm, `trigger_rate` the
//! share of the trigger pair's graders that passed on the with arm (the
//! `fires` and `quiet` cases, each judged by the grader of its name), the
//! cost everything bought. Such a point holds only the runs its run bought.

use crate::document::{Baseline, load_baseline, round4};
use crate::error::Result;
use crate::evidence::{Arm, Evaluation, KeptDecision, Records, Store, StoredRun};
use crate::wiki::{Outcome, Row};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The `schema` of `history --json`.
pub const SCHEMA: &str = "bob-eval-history/1";

/// Two scores closer than this are the same score (documents keep 4 decimals).
const SAME_SCORE: f64 = 0.000_051;

/// The history of some items (`history --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct History {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The evidence store read.
    pub evidence: Utf8PathBuf,
    /// Rows of `wiki/skill-impact.md` skipped as malformed (`check-wiki` names them).
    pub skipped_wiki_rows: usize,
    /// True when filtered and partial evaluations are shown (`--all`).
    pub all: bool,
    /// One entry per item, by name.
    pub items: Vec<ItemHistory>,
}

/// One item's history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemHistory {
    /// The item.
    pub item: String,
    /// One series per model, by name; empty when nothing of the item is kept.
    pub series: Vec<Series>,
    /// The item's wiki rows and kept decisions that mark no point shown.
    pub unmatched: Vec<Row>,
    /// Filtered or partial evaluations left out (`--all` shows them).
    pub hidden: usize,
}

/// One item on one model over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// The model as asked (`default` for the platform's own).
    pub model: String,
    /// The best `baseline.json` records for the model now, if any.
    pub best: Option<Best>,
    /// The points, oldest first.
    pub points: Vec<Point>,
}

/// A model's best as `baseline.json` records it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Best {
    /// Its `with`.
    pub score: f64,
    /// The run that set it.
    pub run: String,
    /// That run's day.
    pub date: String,
}

/// A low and high limit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Band {
    /// Lower limit.
    pub low: f64,
    /// Upper limit.
    pub high: f64,
}

/// A point's intervals, from its document's `stats`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Intervals {
    /// Their confidence (0.95, higher under `--runs auto`).
    pub confidence: f64,
    /// Of `with`.
    pub with: Band,
    /// Of `without`.
    pub without: Band,
    /// Of `delta`.
    pub delta: Band,
}

/// One evaluation of an item on a model (or, from an older store, the runs
/// one bob-eval run bought).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The evaluation's run id (`eval-<item>-<UTC start>`).
    pub run: String,
    /// When it started (for runs: the earliest start among them).
    pub time: DateTime<Utc>,
    /// The day the run is dated, `YYYY-MM-DD`.
    pub date: String,
    /// `evaluation` (a kept evaluation) or `runs` (the runs a run bought, from an older store).
    pub from: &'static str,
    /// The document's `with`; `None` without a usable with run (runs only).
    pub with: Option<f64>,
    /// The same for the without arm.
    pub without: Option<f64>,
    /// `with - without`, when both are known.
    pub delta: Option<f64>,
    /// The document's trigger rate, if any trigger grader ran.
    pub trigger_rate: Option<f64>,
    /// Dollars this run spent, judge included.
    pub cost_usd: f64,
    /// Dollars the runs it reused had cost (evaluations only).
    pub reused_cost_usd: Option<f64>,
    /// Runs it used (bought or reused); for runs only, the runs bought.
    pub runs: usize,
    /// Cases measured.
    pub cases: usize,
    /// True when `--case`/`--tag` left some of the suite's cases out.
    pub filtered: bool,
    /// True when the document was partial.
    pub partial: bool,
    /// Why.
    pub partial_reason: Option<String>,
    /// The intervals, when the document had them.
    pub intervals: Option<Intervals>,
    /// The stored runs it used, by id (evaluations only).
    pub used_runs: Vec<String>,
    /// The gate's decision on it, when one is recorded.
    pub decision: Option<Decision>,
    /// The model's recorded best after this point, as far as the decisions tell.
    pub best: Option<f64>,
}

/// A recorded decision on a point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// Accepted or rejected.
    pub outcome: Outcome,
    /// The pull request; `None` when only the baseline tells.
    pub pr: Option<String>,
    /// The best before.
    pub before: Option<f64>,
    /// The score recorded.
    pub after: f64,
    /// What told: `wiki` (a recorded decision, kept or a row) or `baseline`
    /// (the best's run, no row found).
    pub source: &'static str,
    /// How it was put on its point: `run` (a kept decision, by the run id it
    /// gated), `day-and-score` (an older wiki row) or `best` (the baseline's run).
    pub joined: &'static str,
    /// The run id it gated (kept decisions).
    pub run: Option<String>,
    /// How the gate decided (kept decisions: `rule`, or `confidence:<level>`).
    pub mode: Option<String>,
    /// The pattern pages cited.
    pub pages: Vec<String>,
    /// When it was recorded (kept decisions).
    pub recorded_at: Option<DateTime<Utc>>,
}

/// The history of `items` (every item with anything kept when empty) from
/// the store, the baselines and the wiki under `source`; `all` shows the
/// filtered and partial evaluations too.
pub fn load(source: &Utf8Path, store: &Store, items: &[String], all: bool) -> Result<History> {
    let kept = Records {
        runs: store.runs(items)?,
        evaluations: store.evaluations(items)?,
        decisions: store.decisions(items)?,
    };
    let mut items = items.to_vec();
    if items.is_empty() {
        let names: BTreeSet<&String> = kept
            .runs
            .iter()
            .map(|r| &r.key.item)
            .chain(kept.evaluations.iter().map(|e| &e.item))
            .chain(kept.decisions.iter().map(|d| &d.item))
            .collect();
        items = names.into_iter().cloned().collect();
    }
    // An imported run may name what is no item of a source tree: it has no baseline.
    let baselines = items
        .iter()
        .filter(|item| crate::config::validate_item_name(item).is_ok())
        .map(|item| Ok((item.clone(), load_baseline(source, item)?)))
        .collect::<Result<BTreeMap<_, _>>>()?;
    let (rows, skipped_wiki_rows) = crate::wiki::read_rows(source)?;
    Ok(History {
        schema: SCHEMA,
        evidence: store.path().to_owned(),
        skipped_wiki_rows,
        all,
        items: gather(&kept, &items, &baselines, &rows, all),
    })
}

/// The history of `items` from what the store keeps, marked from the wiki
/// `rows` and the `baselines` (by item); `all` keeps filtered and partial
/// evaluations. Items are sorted and deduplicated.
pub fn gather(
    kept: &Records,
    items: &[String],
    baselines: &BTreeMap<String, Baseline>,
    rows: &[Row],
    all: bool,
) -> Vec<ItemHistory> {
    let mut items: Vec<String> = items.to_vec();
    items.sort();
    items.dedup();
    items
        .into_iter()
        .map(|item| {
            let evaluations: Vec<&Evaluation> =
                kept.evaluations.iter().filter(|e| e.item == item).collect();
            let evaluated: BTreeSet<&str> = evaluations.iter().map(|e| e.run.as_str()).collect();
            let first = evaluations.iter().map(|e| e.started_at).min();
            let mut by_model: BTreeMap<&str, Vec<Point>> = BTreeMap::new();
            let mut hidden = 0;
            for e in &evaluations {
                if !all && (e.filtered || e.partial) {
                    hidden += 1;
                    continue;
                }
                by_model
                    .entry(&e.model)
                    .or_default()
                    .push(evaluation_point(e));
            }
            // Runs bought before the item's first kept evaluation, by no kept one.
            let mut bought: BTreeMap<(&str, &str), Vec<&StoredRun>> = BTreeMap::new();
            for run in kept.runs.iter().filter(|r| r.key.item == item) {
                if !evaluated.contains(run.outcome.bought_by.as_str()) {
                    bought
                        .entry((&run.key.model, &run.outcome.bought_by))
                        .or_default()
                        .push(run);
                }
            }
            for ((model, by), runs) in bought {
                let p = runs_point(&item, by, &runs);
                if first.is_none_or(|f| p.time < f) {
                    by_model.entry(model).or_default().push(p);
                }
            }
            let baseline = baselines.get(&item);
            let mut series: Vec<Series> = by_model
                .into_iter()
                .map(|(model, mut points)| {
                    points.sort_by(|a, b| a.time.cmp(&b.time).then_with(|| a.run.cmp(&b.run)));
                    Series {
                        model: model.to_string(),
                        best: baseline.and_then(|b| b.best.get(model)).map(|b| Best {
                            score: b.score,
                            run: b.run.clone(),
                            date: b.date.clone(),
                        }),
                        points,
                    }
                })
                .collect();
            let decisions: Vec<&KeptDecision> =
                kept.decisions.iter().filter(|d| d.item == item).collect();
            let item_rows: Vec<&Row> = rows.iter().filter(|r| r.item == item).collect();
            let unmatched = mark(&mut series, &item, &decisions, &item_rows);
            for s in &mut series {
                steps(s);
            }
            ItemHistory {
                item,
                series,
                unmatched,
                hidden,
            }
        })
        .collect()
}

/// The point of one kept evaluation: its document's numbers.
fn evaluation_point(e: &Evaluation) -> Point {
    let band = |x: &crate::stats::Estimate| Band {
        low: x.interval.low,
        high: x.interval.high,
    };
    Point {
        run: e.run.clone(),
        time: e.started_at,
        date: e.date.clone(),
        from: "evaluation",
        with: Some(e.with),
        without: Some(e.without),
        delta: Some(e.delta),
        trigger_rate: e.trigger_rate,
        cost_usd: e.cost_usd,
        reused_cost_usd: Some(e.reused_cost_usd),
        runs: e.used.len(),
        cases: e.options.cases.len(),
        filtered: e.filtered,
        partial: e.partial,
        partial_reason: e.partial_reason.clone(),
        intervals: e.stats.as_ref().map(|s| Intervals {
            confidence: s.confidence,
            with: band(&s.suite.with),
            without: band(&s.suite.without),
            delta: band(&s.suite.delta),
        }),
        used_runs: e.used.clone(),
        decision: None,
        best: None,
    }
}

/// The point of the runs `by` bought for `item` on one model (older stores).
fn runs_point(item: &str, by: &str, runs: &[&StoredRun]) -> Point {
    let time = runs
        .iter()
        .map(|r| r.outcome.started_at)
        .min()
        .expect("a point has runs");
    let usable: Vec<&&StoredRun> = runs.iter().filter(|r| r.outcome.usable()).collect();
    let mut cases: BTreeMap<&str, [Vec<f64>; 2]> = BTreeMap::new();
    let (mut fired, mut triggers) = (0u32, 0u32);
    for run in &usable {
        let arm = usize::from(run.key.arm == Arm::Without);
        cases.entry(&run.key.case).or_default()[arm].push(run.outcome.score);
        if run.key.arm == Arm::With && matches!(run.key.case.as_str(), "fires" | "quiet") {
            for g in run
                .outcome
                .graders
                .iter()
                .filter(|g| g.name == run.key.case)
            {
                triggers += 1;
                fired += u32::from(g.passed);
            }
        }
    }
    let arm_mean = |arm: usize| {
        let means: Vec<f64> = cases
            .values()
            .filter(|arms| !arms[arm].is_empty())
            .map(|arms| mean(&arms[arm]))
            .collect();
        (!means.is_empty()).then(|| round4(mean(&means)))
    };
    let (with, without) = (arm_mean(0), arm_mean(1));
    Point {
        run: by.to_string(),
        time,
        date: crate::document::run_id_date(item, by)
            .unwrap_or_else(|| time.format("%Y-%m-%d").to_string()),
        from: "runs",
        with,
        without,
        delta: with.zip(without).map(|(w, wo)| round4(w - wo)),
        trigger_rate: (triggers > 0).then(|| round4(f64::from(fired) / f64::from(triggers))),
        cost_usd: round4(crate::document::sum_usd(
            runs.iter().map(|r| r.outcome.cost_usd),
        )),
        reused_cost_usd: None,
        runs: runs.len(),
        cases: cases.len(),
        filtered: false,
        partial: false,
        partial_reason: None,
        intervals: None,
        used_runs: vec![],
        decision: None,
        best: None,
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Does wiki `row` say what kept decision `d` says?
fn same_record(row: &Row, d: &KeptDecision) -> bool {
    row.date == d.date
        && row.pr == d.pr
        && row.outcome == d.outcome
        && (row.after - d.after).abs() < SAME_SCORE
}

/// Mark the points of one item's `series`: kept `decisions` by run id, then
/// the wiki `rows` no kept decision stands for by day and score, then the
/// baselines' runs; returns the rows and decisions that marked none.
fn mark(series: &mut [Series], item: &str, decisions: &[&KeptDecision], rows: &[&Row]) -> Vec<Row> {
    let mut unmatched = Vec::new();
    let mut rows: Vec<Option<&Row>> = rows.iter().copied().map(Some).collect();
    // Oldest recorded first: a run recorded twice shows its latest decision.
    for d in decisions {
        if let Some(slot) = rows
            .iter_mut()
            .find(|r| r.is_some_and(|r| same_record(r, d)))
        {
            *slot = None;
        }
        let point = series
            .iter_mut()
            .filter(|s| s.model == d.model)
            .flat_map(|s| s.points.iter_mut())
            .find(|p| p.run == d.run);
        let Some(point) = point else {
            unmatched.push(d.row());
            continue;
        };
        if let Some(earlier) = point.decision.take()
            && let Some(row) = earlier_row(&earlier, point, item)
        {
            unmatched.push(row);
        }
        point.decision = Some(Decision {
            outcome: d.outcome,
            pr: Some(d.pr.clone()),
            before: d.before,
            after: d.after,
            source: "wiki",
            joined: "run",
            run: Some(d.run.clone()),
            mode: Some(d.mode.clone()),
            pages: d.pages.clone(),
            recorded_at: Some(d.recorded_at),
        });
    }
    let mut order: Vec<(usize, usize)> = series
        .iter()
        .enumerate()
        .flat_map(|(s, x)| (0..x.points.len()).map(move |p| (s, p)))
        .collect();
    order.sort_by(|a, b| {
        let (pa, pb) = (&series[a.0].points[a.1], &series[b.0].points[b.1]);
        pa.time.cmp(&pb.time).then_with(|| a.cmp(b))
    });
    for row in rows.into_iter().flatten() {
        let found = order.iter().find(|(s, p)| {
            let point = &series[*s].points[*p];
            point.decision.is_none()
                && point.date == row.date
                && point
                    .with
                    .is_some_and(|w| (w - row.after).abs() < SAME_SCORE)
        });
        match found {
            Some(&(s, p)) => {
                series[s].points[p].decision = Some(Decision {
                    outcome: row.outcome,
                    pr: Some(row.pr.clone()),
                    before: row.before,
                    after: row.after,
                    source: "wiki",
                    joined: "day-and-score",
                    run: None,
                    mode: None,
                    pages: row.pages.clone(),
                    recorded_at: None,
                });
            }
            None => unmatched.push(row.clone()),
        }
    }
    for s in series.iter_mut() {
        let Some(best) = &s.best else { continue };
        if let Some(point) = s
            .points
            .iter_mut()
            .find(|p| p.run == best.run && p.decision.is_none())
        {
            point.decision = Some(Decision {
                outcome: Outcome::Accepted,
                pr: None,
                before: None,
                after: best.score,
                source: "baseline",
                joined: "best",
                run: Some(best.run.clone()),
                mode: None,
                pages: vec![],
                recorded_at: None,
            });
        }
    }
    unmatched
}

/// A decision a later one on the same point replaced, as a row.
fn earlier_row(d: &Decision, point: &Point, item: &str) -> Option<Row> {
    Some(Row {
        date: point.date.clone(),
        item: item.to_string(),
        pr: d.pr.clone()?,
        pages: d.pages.clone(),
        before: d.before,
        after: d.after,
        outcome: d.outcome,
    })
}

/// Fill each point's `best`: raised by an accepted decision, read from a
/// rejected one's `before`, carried over otherwise.
fn steps(series: &mut Series) {
    let mut best = None;
    for point in &mut series.points {
        match &point.decision {
            Some(d) if d.outcome == Outcome::Accepted => best = Some(d.after),
            Some(d) => best = d.before.or(best),
            None => {}
        }
        point.best = best;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::BestEntry;
    use crate::evidence::tests::sample;

    /// A run of `commit` bought by `by`, `second`s into the sample day.
    fn run(case: &str, arm: Arm, score: f64, second: u32, by: &str) -> StoredRun {
        let mut r = sample(case, arm, second, by);
        r.outcome.score = score;
        r
    }

    fn row(date: &str, after: f64, outcome: Outcome, pr: &str) -> Row {
        Row {
            date: date.into(),
            item: "commit".into(),
            pr: pr.into(),
            pages: vec!["p".into()],
            before: Some(0.5),
            after,
            outcome,
        }
    }

    /// What a store from before kept evaluations holds: `runs` only.
    fn only(runs: &[StoredRun]) -> Records {
        Records {
            runs: runs.to_vec(),
            ..Records::default()
        }
    }

    fn items() -> Vec<String> {
        vec!["commit".into()]
    }

    #[test]
    fn a_point_per_buyer_and_model_with_case_means() {
        let day = "eval-commit-20261208T000000Z";
        let runs = vec![
            run("fires", Arm::With, 1.0, 0, day),
            run("fires", Arm::With, 0.5, 1, day),
            run("other", Arm::With, 0.0, 2, day),
            run("fires", Arm::Without, 0.25, 3, day),
            run("fires", Arm::With, 0.9, 100, "eval-commit-20261209T000000Z"),
        ];
        let h = gather(&only(&runs), &items(), &BTreeMap::new(), &[], false);
        let points = &h[0].series[0].points;
        assert_eq!(points.len(), 2);
        let p = &points[0];
        assert_eq!(p.run, day);
        assert_eq!(p.date, "2026-12-08", "the day is the run id's");
        assert_eq!(p.with, Some(0.375), "mean of the case means 0.75 and 0");
        assert_eq!(p.without, Some(0.25));
        assert_eq!((p.runs, p.cases), (4, 2));
        assert!((p.cost_usd - 0.12).abs() < 1e-9);
        assert_eq!(points[1].without, None);
        assert_eq!(p.time, runs[0].outcome.started_at);
    }

    #[test]
    fn models_are_series_and_unusable_runs_only_cost() {
        let mut other = run("fires", Arm::With, 0.2, 0, "b");
        other.key.model = "haiku".into();
        let mut broken = run("fires", Arm::With, 0.0, 1, "b");
        broken.outcome.error = Some("api".into());
        broken.outcome.graders.clear();
        let runs = vec![other, broken, run("fires", Arm::With, 1.0, 2, "b")];
        let h = gather(&only(&runs), &items(), &BTreeMap::new(), &[], false);
        let models: Vec<&str> = h[0].series.iter().map(|s| s.model.as_str()).collect();
        assert_eq!(models, ["claude-sonnet-5-5", "haiku"]);
        let p = &h[0].series[0].points[0];
        assert_eq!((p.with, p.runs, p.cases), (Some(1.0), 2, 1));
        assert_eq!(p.date, "2026-11-30", "no run id stamp: the time's day");
    }

    #[test]
    fn trigger_rate_from_the_pair_graders_on_the_with_arm() {
        let mut fires = run("fires", Arm::With, 1.0, 0, "b");
        fires.outcome.graders[0].name = "fires".into();
        let mut missed = fires.clone();
        missed.outcome.graders[0].passed = false;
        let mut quiet = run("quiet", Arm::With, 1.0, 1, "b");
        quiet.outcome.graders[0].name = "quiet".into();
        let mut without = quiet.clone();
        without.key.arm = Arm::Without;
        without.outcome.graders[0].passed = false;
        let h = gather(
            &only(&[fires.clone(), missed, quiet, without]),
            &items(),
            &BTreeMap::new(),
            &[],
            false,
        );
        assert_eq!(h[0].series[0].points[0].trigger_rate, Some(0.6667));
        let plain = run("subject", Arm::With, 1.0, 0, "b");
        let h = gather(&only(&[plain]), &items(), &BTreeMap::new(), &[], false);
        assert_eq!(h[0].series[0].points[0].trigger_rate, None);
    }

    #[test]
    fn rows_mark_the_point_of_their_day_and_score() {
        let runs = vec![
            run("fires", Arm::With, 0.5, 0, "eval-commit-20261130T000000Z"),
            run("fires", Arm::With, 0.8, 9, "eval-commit-20261130T000009Z"),
            run("fires", Arm::With, 0.7, 99, "eval-commit-20261201T000000Z"),
        ];
        let rows = [
            row("2026-11-30", 0.8, Outcome::Accepted, "#1"),
            row("2026-12-01", 0.7, Outcome::Rejected, "#2"),
            row("2026-12-01", 0.9, Outcome::Accepted, "#3"),
        ];
        let h = gather(&only(&runs), &items(), &BTreeMap::new(), &rows, false);
        let points = &h[0].series[0].points;
        assert_eq!(points[0].decision, None);
        let d = points[1].decision.as_ref().unwrap();
        assert_eq!(
            (d.outcome, d.pr.as_deref()),
            (Outcome::Accepted, Some("#1"))
        );
        assert_eq!(
            points[2].decision.as_ref().unwrap().outcome,
            Outcome::Rejected
        );
        assert_eq!(h[0].unmatched, vec![rows[2].clone()]);
        let bests: Vec<Option<f64>> = points.iter().map(|p| p.best).collect();
        assert_eq!(
            bests,
            [None, Some(0.8), Some(0.5)],
            "a reject's best is its before"
        );
    }

    #[test]
    fn the_baselines_run_is_accepted_without_a_row() {
        let by = "eval-commit-20261130T000000Z";
        let runs = vec![run("fires", Arm::With, 0.6, 0, by)];
        let mut baseline = Baseline::empty("commit");
        baseline.best.insert(
            "claude-sonnet-5-5".into(),
            BestEntry {
                score: 0.6,
                without: 0.1,
                trigger_rate: None,
                run: by.into(),
                date: "2026-11-30".into(),
                suite_digest: None,
                cases: None,
                runs: None,
                interval: None,
                evidence: None,
                confidence: None,
            },
        );
        let baselines = BTreeMap::from([("commit".to_string(), baseline)]);
        let h = gather(&only(&runs), &items(), &baselines, &[], false);
        let s = &h[0].series[0];
        assert_eq!(s.best.as_ref().unwrap().run, by);
        let d = s.points[0].decision.as_ref().unwrap();
        assert_eq!(
            (d.outcome, d.source, d.pr.clone()),
            (Outcome::Accepted, "baseline", None)
        );
        assert_eq!(s.points[0].best, Some(0.6));
    }

    #[test]
    fn an_item_without_runs_has_no_series_and_keeps_its_rows() {
        let rows = [row("2026-11-30", 0.8, Outcome::Accepted, "#1")];
        let h = gather(
            &Records::default(),
            &["commit".into(), "commit".into()],
            &BTreeMap::new(),
            &rows,
            false,
        );
        assert_eq!(h.len(), 1);
        assert!(h[0].series.is_empty());
        assert_eq!(h[0].unmatched.len(), 1);
    }

    #[test]
    fn a_history_is_a_valid_document() {
        let runs = vec![
            run("fires", Arm::With, 0.8, 0, "eval-commit-20261130T000000Z"),
            run(
                "fires",
                Arm::Without,
                0.5,
                1,
                "eval-commit-20261201T000000Z",
            ),
        ];
        let rows = [
            row("2026-11-30", 0.8, Outcome::Accepted, "#1"),
            row("2026-12-09", 0.8, Outcome::Rejected, "#2"),
        ];
        let history = History {
            schema: SCHEMA,
            evidence: "/e.db".into(),
            skipped_wiki_rows: 1,
            all: false,
            items: gather(&only(&runs), &items(), &BTreeMap::new(), &rows, false),
        };
        let doc = serde_json::to_value(&history).unwrap();
        assert!(doc["items"][0]["series"][0]["points"][1]["with"].is_null());
        crate::schema::validate_history(&doc, "h.json".into()).unwrap();
        let mut bad = doc.clone();
        bad["items"][0]["series"][0]["points"][0]["with"] = 2.into();
        assert!(crate::schema::validate_history(&bad, "h.json".into()).is_err());
    }

    #[test]
    fn load_reads_the_store_the_baselines_and_the_wiki() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let mut store = Store::open(&root.join("evidence.db")).unwrap();
        let mut odd = run("fires", Arm::With, 1.0, 1, "b");
        odd.key.item = "Not An Item".into();
        let odd = StoredRun::new(odd.key, odd.outcome);
        store
            .insert(
                &[
                    run("fires", Arm::With, 0.8, 0, "eval-commit-20261130T000000Z"),
                    odd,
                ],
                &crate::evidence::Origin::Bought,
            )
            .unwrap();
        std::fs::create_dir_all(root.join("wiki")).unwrap();
        std::fs::write(
            crate::config::impact_path(root),
            format!(
                "{}{}\n| bad |\n",
                crate::wiki::HEADER,
                crate::wiki::format_row(&row("2026-11-30", 0.8, Outcome::Accepted, "#1"))
            ),
        )
        .unwrap();
        let h = load(root, &store, &[], false).unwrap();
        let names: Vec<&str> = h.items.iter().map(|i| i.item.as_str()).collect();
        assert_eq!(
            names,
            ["Not An Item", "commit"],
            "an odd imported name has no baseline"
        );
        assert_eq!(h.skipped_wiki_rows, 1);
        let d = h.items[1].series[0].points[0].decision.as_ref().unwrap();
        assert_eq!(d.pr.as_deref(), Some("#1"));
        assert_eq!(
            load(root, &store, &["tidy".into()], false).unwrap().items[0].series,
            vec![]
        );
    }
    /// An evaluation of commit on sonnet, `second`s into the sample day.
    fn evaluation(run: &str, second: i64, with: f64, used: &[&StoredRun]) -> Evaluation {
        let at = sample("fires", Arm::With, 0, "x").outcome.started_at;
        Evaluation {
            run: run.into(),
            item: "commit".into(),
            model: "claude-sonnet-5-5".into(),
            date: "2026-11-30".into(),
            started_at: at + chrono::Duration::seconds(second),
            options: crate::evidence::EvaluationOptions {
                judge_model: "default".into(),
                platform_version: Some("2.1.328".into()),
                tools: vec![],
                options: "o".into(),
                runs: "3".into(),
                fresh: false,
                cases: vec!["fires".into(), "quiet".into()],
            },
            filtered: false,
            partial: false,
            partial_reason: None,
            with,
            without: 0.25,
            delta: round4(with - 0.25),
            trigger_rate: Some(1.0),
            cost_usd: 0.5,
            reused_cost_usd: 0.25,
            suite_digest: None,
            stats: None,
            used: used.iter().map(|r| r.id.clone()).collect(),
        }
    }

    fn kept_decision(run: &str, pr: &str, after: f64, outcome: Outcome) -> KeptDecision {
        KeptDecision {
            run: run.into(),
            item: "commit".into(),
            model: "claude-sonnet-5-5".into(),
            date: "2026-11-30".into(),
            mode: crate::evidence::MODE_RULE.into(),
            rule: vec![],
            outcome,
            pr: pr.into(),
            pages: vec!["p".into()],
            before: Some(0.5),
            after,
            best_after: Some(after),
            recorded_at: DateTime::from_timestamp(1_796_000_999, 0).unwrap(),
        }
    }

    #[test]
    fn evaluations_are_points_and_decisions_join_by_run_id() {
        // Bought before any evaluation was kept: a point of its own.
        let old = run("fires", Arm::With, 0.1, 0, "eval-commit-20261130T000000Z");
        // Bought by the first evaluation, which also reuses `old`.
        let first = run("fires", Arm::With, 1.0, 10, "eval-commit-20261130T000010Z");
        // Bought by a run that left no document, after evaluations were kept: no point.
        let lost = run("quiet", Arm::With, 0.0, 40, "eval-commit-20261130T000040Z");
        let kept = Records {
            runs: vec![old.clone(), first.clone(), lost],
            evaluations: vec![
                evaluation("eval-commit-20261130T000010Z", 10, 0.875, &[&first, &old]),
                evaluation("eval-commit-20261130T000020Z", 20, 0.875, &[&first, &old]),
                Evaluation {
                    filtered: true,
                    partial: true,
                    partial_reason: Some("filtered".into()),
                    ..evaluation("eval-commit-20261130T000030Z", 30, 0.0, &[&first])
                },
            ],
            decisions: vec![kept_decision(
                "eval-commit-20261130T000020Z",
                "#12",
                0.875,
                Outcome::Accepted,
            )],
        };
        let rows = [
            // The kept decision's own row: not matched a second time.
            row("2026-11-30", 0.875, Outcome::Accepted, "#12"),
            // An older row: matched by day and score, the first such point.
            row("2026-11-30", 0.875, Outcome::Rejected, "#9"),
        ];
        let h = gather(&kept, &items(), &BTreeMap::new(), &rows, false);
        let points = &h[0].series[0].points;
        let runs: Vec<(&str, &str)> = points.iter().map(|p| (p.run.as_str(), p.from)).collect();
        assert_eq!(
            runs,
            [
                ("eval-commit-20261130T000000Z", "runs"),
                ("eval-commit-20261130T000010Z", "evaluation"),
                ("eval-commit-20261130T000020Z", "evaluation"),
            ]
        );
        assert_eq!(h[0].hidden, 1, "the filtered evaluation is left out");
        let p = &points[1];
        assert_eq!(
            (p.with, p.without, p.runs, p.cases),
            (Some(0.875), Some(0.25), 2, 2)
        );
        assert_eq!(p.used_runs, vec![first.id.clone(), old.id.clone()]);
        let d = p.decision.as_ref().unwrap();
        assert_eq!((d.pr.as_deref(), d.joined), (Some("#9"), "day-and-score"));
        let d = points[2].decision.as_ref().unwrap();
        assert_eq!((d.pr.as_deref(), d.joined), (Some("#12"), "run"));
        assert_eq!(d.mode.as_deref(), Some("rule"));
        assert!(h[0].unmatched.is_empty(), "{:?}", h[0].unmatched);
        assert_eq!(points[2].best, Some(0.875));

        let all = gather(&kept, &items(), &BTreeMap::new(), &rows, true);
        let last = all[0].series[0].points.last().unwrap();
        assert!(last.filtered && last.partial, "{last:?}");
        assert_eq!(all[0].hidden, 0);
    }

    #[test]
    fn a_decision_on_no_point_shown_is_unmatched() {
        let kept = Records {
            decisions: vec![kept_decision(
                "eval-commit-20261130T000030Z",
                "#13",
                0.5,
                Outcome::Rejected,
            )],
            ..Records::default()
        };
        let h = gather(&kept, &items(), &BTreeMap::new(), &[], false);
        assert!(h[0].series.is_empty());
        assert_eq!(h[0].unmatched.len(), 1);
        assert_eq!(h[0].unmatched[0].pr, "#13");
    }

    #[test]
    fn a_history_with_evaluations_is_a_valid_document() {
        let first = run("fires", Arm::With, 1.0, 10, "eval-commit-20261130T000010Z");
        let mut e = evaluation("eval-commit-20261130T000010Z", 10, 0.875, &[&first]);
        let estimate = |v: f64| crate::stats::Estimate {
            value: v,
            interval: crate::stats::Interval {
                low: (v - 0.1).max(-1.0),
                high: (v + 0.1).min(1.0),
                confidence: 0.95,
                method: crate::stats::Method::Score,
            },
        };
        e.stats = Some(crate::document::Stats {
            confidence: 0.95,
            suite: crate::stats::SuiteStats {
                with: estimate(0.875),
                without: estimate(0.25),
                delta: estimate(0.625),
                advisory: crate::stats::advise(&estimate(0.625), 0.0, 3.0),
                runs_per_arm: 3.0,
            },
            trigger: None,
            auto: None,
        });
        let kept = Records {
            runs: vec![first],
            evaluations: vec![e],
            decisions: vec![kept_decision(
                "eval-commit-20261130T000010Z",
                "#12",
                0.875,
                Outcome::Accepted,
            )],
        };
        let history = History {
            schema: SCHEMA,
            evidence: "/e.db".into(),
            skipped_wiki_rows: 0,
            all: true,
            items: gather(&kept, &items(), &BTreeMap::new(), &[], true),
        };
        let doc = serde_json::to_value(&history).unwrap();
        let point = &doc["items"][0]["series"][0]["points"][0];
        assert_eq!(point["intervals"]["with"]["high"], 0.975);
        assert_eq!(point["decision"]["joined"], "run");
        crate::schema::validate_history(&doc, "h.json".into()).unwrap();
    }
}
