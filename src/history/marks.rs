//! The gate's decisions on the points: joined by run id, an older wiki row matched by day and score, and the best in force after each point.

use super::{KeptDecision, Outcome, Point, RecordedDecision, Row, SAME_SCORE, Series};

/// Does wiki `row` say what kept decision `d` says?
pub(super) fn same_record(row: &Row, d: &KeptDecision) -> bool {
    row.date == d.date
        && row.pr == d.pr
        && row.outcome == d.outcome
        && (row.after - d.after).abs() < SAME_SCORE
}

/// Mark the points of one item's `series`: kept `decisions` by run id, then
/// the wiki `rows` no kept decision stands for by day and score, then the
/// baselines' runs; returns the rows and decisions that marked none.
pub(super) fn mark(
    series: &mut [Series],
    item: &str,
    decisions: &[&KeptDecision],
    rows: &[&Row],
) -> Vec<Row> {
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
            .filter(|s| s.model == crate::config::canonical_model(&d.model))
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
        point.decision = Some(RecordedDecision {
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
            imported: d.provenance.is_imported(),
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
                series[s].points[p].decision = Some(RecordedDecision {
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
                    imported: false,
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
            point.decision = Some(RecordedDecision {
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
                imported: false,
            });
        }
    }
    unmatched
}

/// A decision a later one on the same point replaced, as a row.
pub(super) fn earlier_row(d: &RecordedDecision, point: &Point, item: &str) -> Option<Row> {
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
pub(super) fn steps(series: &mut Series) {
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
