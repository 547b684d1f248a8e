//! Settling against a recorded best: the gate's `beats-best` and `trigger-rate`, read as its confidence mode reads them.

use super::{
    CaseRuns, Deserialize, Direction, Estimate, Part, Serialize, TriggerCount, score_interval,
};

/// The recorded best that [`adaptive_against`] also settles against: the
/// gate's `beats-best` and `trigger-rate`, read as the gate's confidence
/// mode reads them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Against {
    /// The best's `with` as recorded: an exact line when it kept no runs.
    pub score: f64,
    /// The best's with arms, one per case of the best (score sum, runs):
    /// the best as a measured quantity.
    pub with_arms: Vec<(f64, u32)>,
    /// The best's trigger rate, when the gate compares one.
    pub trigger_rate: Option<f64>,
    /// The best's trigger counts, when it kept them.
    pub trigger: Option<TriggerCount>,
}

/// The parts of `beats-best` (the new `with` less the best's) and which
/// grow when `arms` run: the new with arms; the best's runs are fixed.
pub(super) fn beats_parts(
    samples: &[CaseRuns],
    best: &Against,
    arms: &[[bool; 2]],
) -> (Vec<Part>, Vec<bool>) {
    let k = samples.len().max(1) as f64;
    let mut parts: Vec<Part> = samples.iter().map(|c| Part::of(1.0 / k, &c.with)).collect();
    let mut grows: Vec<bool> = arms.iter().map(|a| a[0]).collect();
    let kb = best.with_arms.len() as f64;
    for &(sum, n) in &best.with_arms {
        parts.push(Part {
            coef: -1.0 / kb,
            sum,
            n: n as usize,
        });
        grows.push(false);
    }
    (parts, grows)
}

/// `beats-best` at `confidence`: the estimate and the tie it is compared with.
pub(super) fn beats_best(samples: &[CaseRuns], best: &Against, confidence: f64) -> (Estimate, f64) {
    let (parts, _) = beats_parts(samples, best, &vec![[false; 2]; samples.len()]);
    let tie = if best.with_arms.is_empty() {
        best.score
    } else {
        0.0
    };
    (score_interval(&parts, confidence), tie)
}

/// Which side of `tie` the interval of `e` lies on, if clear of it.
pub(super) fn direction(e: &Estimate, tie: f64) -> Option<Direction> {
    if e.interval.low > tie {
        Some(Direction::Above)
    } else if e.interval.high < tie {
        Some(Direction::Below)
    } else {
        None
    }
}

/// Where `trigger-rate` stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TriggerState {
    /// At or above the best's: the rule's check passes.
    NotBelow,
    /// Below the best's, and clearly so.
    ClearlyBelow,
    /// Below the best's, within noise: more runs of the with arms settle it.
    Open,
}

/// `trigger-rate` at `confidence`; `None` when the gate skips it (no rate on
/// either side).
pub(super) fn trigger_rate(
    samples: &[CaseRuns],
    best: &Against,
    confidence: f64,
) -> Option<TriggerState> {
    let best_rate = best.trigger_rate?;
    let seen = samples
        .iter()
        .fold(TriggerCount::default(), |t, c| TriggerCount {
            fired: t.fired + c.trigger.fired,
            results: t.results + c.trigger.results,
        });
    if seen.results == 0 {
        return None;
    }
    let rate = f64::from(seen.fired) / f64::from(seen.results);
    if round4(rate) >= round4(best_rate) {
        return Some(TriggerState::NotBelow);
    }
    let new = seen.part(1.0);
    let e = match best.trigger.filter(|t| t.results > 0) {
        Some(t) => direction(&score_interval(&[new, t.part(-1.0)], confidence), 0.0),
        None => direction(&score_interval(&[new], confidence), best_rate),
    };
    Some(if e == Some(Direction::Below) {
        TriggerState::ClearlyBelow
    } else {
        TriggerState::Open
    })
}

pub(super) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
