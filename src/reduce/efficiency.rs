//! A case's cost, turns and duration per run, from its counted runs.

use crate::document::{ArmValues, CaseFigures};
use crate::platform::result::RunOutcome;

/// The model's cost of a run: its cost less the judge's (the judge grades
/// both arms alike), each held to 0..[`crate::document::MAX_USD`].
fn agent_cost(r: &RunOutcome) -> f64 {
    let usd = |x: f64| crate::document::sum_usd([x]);
    (usd(r.cost_usd) - usd(r.judge_cost_usd)).max(0.0)
}

/// The longest run duration believed, in seconds (a year): keeps every sum finite.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// True when the run reports none of the three figures (all 0: a result
/// written without them); such a run is left out of every figure.
fn without_figures(r: &RunOutcome) -> bool {
    r.turns == 0 && r.duration_seconds <= 0.0 && r.cost_usd <= 0.0
}

/// The case `name`'s figures from its counted runs per arm, and how many of
/// those runs had none; `None` when the case has no counted run.
pub(super) fn case<'r>(
    name: &str,
    with: &[&'r RunOutcome],
    without: &[&'r RunOutcome],
) -> Option<(CaseFigures, u32)> {
    if with.is_empty() && without.is_empty() {
        return None;
    }
    let kept = |runs: &[&'r RunOutcome]| -> Vec<&'r RunOutcome> {
        runs.iter()
            .copied()
            .filter(|r| !without_figures(r))
            .collect()
    };
    let (w, wo) = (kept(with), kept(without));
    let lacking = with.len() + without.len() - w.len() - wo.len();
    let values = |f: fn(&RunOutcome) -> f64| -> (Vec<f64>, Vec<f64>) {
        (
            w.iter().map(|r| f(r)).collect(),
            wo.iter().map(|r| f(r)).collect(),
        )
    };
    let cost = values(agent_cost);
    let turns = values(|r| f64::from(r.turns));
    let secs = values(|r| {
        let d = r.duration_seconds;
        if d.is_finite() {
            d.clamp(0.0, MAX_SECONDS)
        } else {
            0.0
        }
    });
    let figures = CaseFigures::of(
        name,
        [
            ArmValues {
                with: &cost.0,
                without: &cost.1,
            },
            ArmValues {
                with: &turns.0,
                without: &turns.1,
            },
            ArmValues {
                with: &secs.0,
                without: &secs.1,
            },
        ],
        crate::stats::CONFIDENCE,
    );
    Some((figures, u32::try_from(lacking).unwrap_or(u32::MAX)))
}
