//! `bob-eval history`: what the kept runs say over time.
//!
//! The evidence store keeps every platform run with the bob-eval run that
//! bought it (`bought_by`). A [`Point`] is one such purchase for one item on
//! one model: `with` and `without` are the means over cases of each case's
//! mean score on that arm (as `skill-eval/1` computes them), `trigger_rate`
//! the share of the trigger pair's graders that passed on the with arm (the
//! `fires` and `quiet` cases, each judged by the grader of its name: bob-eval's
//! convention), the cost everything bought. Runs that say nothing about the
//! item (an API error with no grader result, skipped paid graders) count in
//! the cost only.
//!
//! The decisions come from `wiki/skill-impact.md` and `baseline.json`. A wiki
//! row names no model nor run, so it marks the point of its item whose day
//! and `with` (to the row's 4 decimals) are its own, the first such in time;
//! a row that marks none is kept in [`ItemHistory::unmatched`]. The best in
//! `baseline.json` names its run: that point is accepted even without a row.
//! A point of a run that reused kept runs holds only the runs it bought, so
//! its `with` may differ from its document's and its row stay unmatched.

use crate::document::{Baseline, load_baseline, round4};
use crate::error::Result;
use crate::evidence::{Arm, Store, StoredRun};
use crate::wiki::{Outcome, Row};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::BTreeMap;

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
    /// One entry per item, by name.
    pub items: Vec<ItemHistory>,
}

/// One item's history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemHistory {
    /// The item.
    pub item: String,
    /// One series per model, by name; empty when no run of the item is kept.
    pub series: Vec<Series>,
    /// The item's wiki rows that mark no kept point.
    pub unmatched: Vec<Row>,
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

/// The runs one bob-eval run bought for one item on one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The bob-eval run that bought them (`eval-<item>-<UTC start>`).
    pub run: String,
    /// The earliest start among them.
    pub time: DateTime<Utc>,
    /// The day the run is dated (its id's, else its time's), `YYYY-MM-DD`.
    pub date: String,
    /// Mean over cases of the with arm's mean score; `None` without a usable with run.
    pub with: Option<f64>,
    /// The same for the without arm.
    pub without: Option<f64>,
    /// Share of the trigger pair's graders passed on the with arm, if any ran.
    pub trigger_rate: Option<f64>,
    /// Dollars, judge included, of every run bought.
    pub cost_usd: f64,
    /// Runs bought (usable or not).
    pub runs: usize,
    /// Cases with a usable run.
    pub cases: usize,
    /// The gate's decision on it, when the wiki or the baseline records one.
    pub decision: Option<Decision>,
    /// The model's recorded best after this point, as far as the decisions tell.
    pub best: Option<f64>,
}

/// A recorded decision on a point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// Accepted or rejected.
    pub outcome: Outcome,
    /// The pull request of its wiki row; `None` when only the baseline tells.
    pub pr: Option<String>,
    /// The best before, from the wiki row.
    pub before: Option<f64>,
    /// The score recorded.
    pub after: f64,
    /// What told: `wiki` (a row) or `baseline` (the best's run, no row found).
    pub source: &'static str,
}

/// The history of `items` (every item with a kept run when empty) from the
/// runs in `store`, the baselines and the wiki under `source`.
pub fn load(source: &Utf8Path, store: &Store, items: &[String]) -> Result<History> {
    let runs = store.runs(items)?;
    let mut items = items.to_vec();
    if items.is_empty() {
        items = runs.iter().map(|r| r.key.item.clone()).collect();
        items.dedup();
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
        items: gather(&runs, &items, &baselines, &rows),
    })
}

/// Group `runs` into the history of `items`, marked from the wiki `rows` and
/// the `baselines` (by item). Items are sorted and deduplicated.
pub fn gather(
    runs: &[StoredRun],
    items: &[String],
    baselines: &BTreeMap<String, Baseline>,
    rows: &[Row],
) -> Vec<ItemHistory> {
    let mut items: Vec<String> = items.to_vec();
    items.sort();
    items.dedup();
    items
        .into_iter()
        .map(|item| {
            let mut by_model: BTreeMap<&str, BTreeMap<&str, Vec<&StoredRun>>> = BTreeMap::new();
            for run in runs.iter().filter(|r| r.key.item == item) {
                by_model
                    .entry(&run.key.model)
                    .or_default()
                    .entry(&run.outcome.bought_by)
                    .or_default()
                    .push(run);
            }
            let baseline = baselines.get(&item);
            let mut series: Vec<Series> = by_model
                .into_iter()
                .map(|(model, bought)| {
                    let mut points: Vec<Point> = bought
                        .into_iter()
                        .map(|(by, runs)| point(&item, by, &runs))
                        .collect();
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
            let item_rows: Vec<&Row> = rows.iter().filter(|r| r.item == item).collect();
            let unmatched = mark(&mut series, &item_rows);
            for s in &mut series {
                steps(s);
            }
            ItemHistory {
                item,
                series,
                unmatched,
            }
        })
        .collect()
}

/// The point of the runs `by` bought for `item` on one model.
fn point(item: &str, by: &str, runs: &[&StoredRun]) -> Point {
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
    Point {
        run: by.to_string(),
        time,
        date: crate::document::run_id_date(item, by)
            .unwrap_or_else(|| time.format("%Y-%m-%d").to_string()),
        with: arm_mean(0),
        without: arm_mean(1),
        trigger_rate: (triggers > 0).then(|| round4(f64::from(fired) / f64::from(triggers))),
        cost_usd: round4(crate::document::sum_usd(
            runs.iter().map(|r| r.outcome.cost_usd),
        )),
        runs: runs.len(),
        cases: cases.len(),
        decision: None,
        best: None,
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Mark the points of one item's `series` from its wiki `rows`, then from the
/// baselines' runs; returns the rows that marked none.
fn mark(series: &mut [Series], rows: &[&Row]) -> Vec<Row> {
    let mut order: Vec<(usize, usize)> = series
        .iter()
        .enumerate()
        .flat_map(|(s, x)| (0..x.points.len()).map(move |p| (s, p)))
        .collect();
    order.sort_by(|a, b| {
        let (pa, pb) = (&series[a.0].points[a.1], &series[b.0].points[b.1]);
        pa.time.cmp(&pb.time).then_with(|| a.cmp(b))
    });
    let mut unmatched = Vec::new();
    for row in rows {
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
                });
            }
            None => unmatched.push((*row).clone()),
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
            });
        }
    }
    unmatched
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
        let h = gather(&runs, &items(), &BTreeMap::new(), &[]);
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
        let h = gather(&runs, &items(), &BTreeMap::new(), &[]);
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
            &[fires.clone(), missed, quiet, without],
            &items(),
            &BTreeMap::new(),
            &[],
        );
        assert_eq!(h[0].series[0].points[0].trigger_rate, Some(0.6667));
        let plain = run("subject", Arm::With, 1.0, 0, "b");
        let h = gather(&[plain], &items(), &BTreeMap::new(), &[]);
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
        let h = gather(&runs, &items(), &BTreeMap::new(), &rows);
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
        let h = gather(&runs, &items(), &baselines, &[]);
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
            &[],
            &["commit".into(), "commit".into()],
            &BTreeMap::new(),
            &rows,
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
            items: gather(&runs, &items(), &BTreeMap::new(), &rows),
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
        let h = load(root, &store, &[]).unwrap();
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
            load(root, &store, &["tidy".into()]).unwrap().items[0].series,
            vec![]
        );
    }
}
