//! A point of a series: one kept evaluation with the numbers its document had, or (from older stores) the runs one invocation bought.

use super::{Arm, BTreeMap, Band, Evaluation, Intervals, Point, StoredRun, round4};

/// The point of one kept evaluation: its document's numbers.
pub(super) fn evaluation_point(e: &Evaluation) -> Point {
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
        imported: e.provenance.is_imported(),
    }
}

/// The point of the runs `by` bought for `item` on one model (older stores).
pub(super) fn runs_point(item: &str, by: &str, runs: &[&StoredRun]) -> Point {
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
        imported: runs.iter().all(|r| r.is_imported()),
    }
}

pub(super) fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}
