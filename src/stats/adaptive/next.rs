//! What the next round buys: which arms of each case run, and whether more runs could still make the call (conditional power).

use super::plan::jeffreys_share;
use super::{AutoPolicy, CaseRuns, Part, RunRequest, normal_cdf, variance_at};
use crate::stats::interval::delta_variances;

/// Which arms of each case run next, `[with, without]`: a case whose every
/// run of both arms scored 1 runs its with arm alone while the suite's
/// estimate is above 0. Its without arm can only be overestimated, so its
/// runs could never help an improvement to be called; the null pushes the
/// with arm down, so that arm carries the case's variance. (A tie at 0
/// would want the without arm alone, which the platform cannot buy.)
pub(super) fn allocation(parts: &[Part], delta: f64) -> Vec<[bool; 2]> {
    parts
        .chunks(2)
        .map(|arms| {
            let top = |p: &Part| p.n > 0 && p.sum >= p.n as f64;
            if delta > 0.0 && top(&arms[0]) && top(&arms[1]) {
                [true, false]
            } else {
                [true, true]
            }
        })
        .collect()
}

/// The chance that a comparison (Σ cᵢ·μᵢ over `parts` against `tie`) is
/// clear at the last look, with every part that `grows` run to the policy's
/// MAX runs:
/// if its true value equals `estimate` now (conditional power under the
/// current trend), or with `predictive`, averaged over the values the data
/// leave plausible under a flat prior (predictive power).
///
/// The last look tests the tie with the variance the score interval uses
/// there ([`variance_at`] the tie); a growing arm's share shrinks as n/max.
/// With V now and V′ at the last look, the information fraction is
/// t = V′/V and the drift is d = (|estimate − tie| − cc′)/√V′. Conditional
/// power is Φ((d − z)/√(1 − t)), predictive power Φ(√t·(d − z)/√(1 − t))
/// (Jennison and Turnbull, ch. 10). When every arm is pinned at 0 or 1
/// (no variance at all under the tie), V and V′ take the Jeffreys-smoothed
/// shares instead ([`smoothed_variance`]), so that 0 of 3 is not read as a
/// rate known to be 0.
pub(super) fn conditional_power(
    estimate: f64,
    tie: f64,
    parts: &[Part],
    grows: &[bool],
    policy: &AutoPolicy,
    z_last: f64,
    guarded: bool,
) -> f64 {
    let (max, predictive) = (policy.max_per_arm, policy.predictive);
    let now = if guarded {
        delta_variances(parts, tie)
    } else {
        variance_at(parts, tie)
    };
    let mut projected = parts.to_vec();
    // Every arm pinned: each share floored, now on the runs seen and at the
    // last look on the runs the arm will have by then.
    let noiseless = now.iter().all(|&v| v <= 0.0);
    let floor = |v: f64, p: &Part| {
        if noiseless {
            v.max(smoothed_variance(p))
        } else {
            v
        }
    };
    let (mut v_now, mut v_last) = (0.0, 0.0);
    for (i, (&v, p)) in now.iter().zip(projected.iter_mut()).enumerate() {
        v_now += floor(v, p);
        if grows[i] && p.n > 0 && p.n < max as usize {
            let grow = max as f64 / p.n as f64;
            p.sum *= grow;
            p.n = max as usize;
            v_last += floor(v / grow, p);
        } else {
            v_last += floor(v, p);
        }
    }
    if v_now <= 0.0 {
        // No run in any arm: nothing to project from.
        return 0.0;
    }
    let cc = crate::stats::interval::continuity(&projected);
    let drift = ((estimate - tie).abs() - cc) / v_last.sqrt();
    let t = v_last / v_now;
    if t >= 1.0 - 1e-12 {
        return if drift > z_last { 1.0 } else { 0.0 };
    }
    let shrink = if predictive { t.sqrt() } else { 1.0 };
    1.0 - normal_cdf((z_last - drift) * shrink / (1.0 - t).sqrt())
}

/// When every arm's runs so far scored all 0 or all 1 (pinned): the largest
/// chance that they would, were the suite's delta `effect` away from the
/// estimate in either direction. `None` when some arm is not pinned.
///
/// Under rates rᵢ the chance of an arm of n runs all at its end is
/// (1 − xᵢ)ⁿ, xᵢ being how far rᵢ moved off that end; the least favourable
/// rates minimise Σ nᵢ·(−ln(1 − xᵢ)) over the arms whose move pushes the
/// delta that way, subject to Σ |cᵢ|·xᵢ = the distance to go, a convex
/// problem solved exactly by its multiplier: xᵢ = max(0, 1 − nᵢ/(λ|cᵢ|)).
/// An arm with no run yet moves anywhere at no cost. An arm pinned now was
/// pinned at every earlier look with the same value, so stopping the first
/// time this chance is below β loses any change of `effect` at most β per
/// pattern of pinned values: the futility stop of a suite with no noise at
/// all, which [`conditional_power`] can only guess at with smoothed shares.
pub(super) fn pinned_chance(parts: &[Part], effect: f64) -> Option<f64> {
    let (ran, unrun): (Vec<&Part>, Vec<&Part>) = parts.iter().partition(|p| p.n > 0);
    let at_one = |p: &Part| p.sum >= p.n as f64;
    if ran.iter().any(|p| p.sum > 0.0 && !at_one(p)) {
        return None;
    }
    let estimate: f64 = ran.iter().map(|p| p.coef * p.sum / p.n as f64).sum();
    let free: f64 = unrun.iter().map(|p| p.coef.abs()).sum();
    let toward = |sign: f64| {
        let distance = effect - sign * estimate - free;
        if distance <= 0.0 {
            return 1.0;
        }
        // (runs, |coef|) of the arms that can move the delta this way: an
        // arm at 0 moves up, one at 1 down.
        let movers: Vec<(f64, f64)> = ran
            .iter()
            .filter(|p| p.coef != 0.0 && (sign * p.coef > 0.0) != at_one(p))
            .map(|p| (p.n as f64, p.coef.abs()))
            .collect();
        if movers.iter().map(|m| m.1).sum::<f64>() <= distance {
            return 0.0;
        }
        // How far an arm moves at multiplier λ, and how far they all reach.
        let moved = |lambda: f64, (n, c): (f64, f64)| (1.0 - n / (lambda * c)).max(0.0);
        let reach = |lambda: f64| -> f64 { movers.iter().map(|&m| moved(lambda, m) * m.1).sum() };
        let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
        while reach(hi) < distance {
            hi *= 2.0;
        }
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if reach(mid) < distance {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        movers
            .iter()
            .map(|&m| m.0 * (1.0 - moved(hi, m)).ln())
            .sum::<f64>()
            .exp()
    };
    Some(toward(1.0).max(toward(-1.0)))
}

/// A part's share of the variance with its pass share smoothed
/// ([`jeffreys_share`]): c²·q(1 − q)/n, 0 for an arm with no run. The
/// futility projection's floor, so that 0 of 3 is not read as a rate known
/// to be 0.
fn smoothed_variance(p: &Part) -> f64 {
    if p.n == 0 {
        return 0.0;
    }
    let n = p.n as f64;
    let q = jeffreys_share(p.sum.clamp(0.0, n), n);
    p.coef * p.coef * q * (1.0 - q) / n
}

/// A round's requests under Neyman allocation ([`AutoPolicy::neyman`]):
/// as many runs as the schedule would buy this round (the arms that `arms`
/// runs taken to `target` runs each in total; case c's without arm starts
/// from `stored[c]` runs, stored ones and the first round's top-up),
/// spread one at a time where each removes the
/// most variance of the suite's mean, σ̃²·(1/n − 1/(n + 1)) with
/// σ̃² = p̃(1 − p̃) and the smoothed pass share p̃ = (s + a)/(n + 2a) (a
/// greedy step that is exact for this separable convex problem). An arm
/// never passes `max`, and a case's without arm never gets more runs than
/// its with arm in one request (the platform runs both arms alike, or the
/// with arm alone): a without run beyond the with arm's comes as a pair.
pub(super) fn neyman(
    samples: &[CaseRuns],
    arms: &[[bool; 2]],
    reached: &[[u32; 2]],
    target: u32,
    max: u32,
    prior: f64,
    stored: &[u32],
) -> Vec<RunRequest> {
    // The runs that take the arms that run to `target` in total, as the
    // round would buy them without the allocation; an arm the allocation
    // took past it leaves that much less. Case c's without arm starts from
    // `stored[c]` runs the schedule did not ask for: those count neither way.
    let mut budget: u32 = 0;
    let mut over: u32 = 0;
    for (case, (a, r)) in arms.iter().zip(reached).enumerate() {
        for arm in (0..2).filter(|&i| a[i]) {
            let start = if arm == 1 {
                stored.get(case).copied().unwrap_or(0)
            } else {
                0
            };
            budget += target.saturating_sub(r[arm]);
            over += r[arm].saturating_sub(target.max(start));
        }
    }
    let mut budget = budget.saturating_sub(over);
    let sigma2 = |scores: &[f64]| {
        let p = (crate::stats::interval::score_sum(scores) + prior)
            / (scores.len() as f64 + 2.0 * prior);
        p * (1.0 - p)
    };
    let weight: Vec<[f64; 2]> = samples
        .iter()
        .map(|c| [sigma2(&c.with), sigma2(&c.without)])
        .collect();
    let mut more = vec![[0u32; 2]; samples.len()];
    let gain = |case: usize, arm: usize, more: &[[u32; 2]]| {
        let n = f64::from(reached[case][arm] + more[case][arm]).max(1.0);
        weight[case][arm] / (n * (n + 1.0))
    };
    while budget > 0 {
        // (gain per run, case, with runs, without runs)
        let mut best: Option<(f64, usize, u32, u32)> = None;
        let mut consider = |g: f64, case: usize, w: u32, wo: u32| {
            if best.is_none_or(|b| g > b.0) {
                best = Some((g, case, w, wo));
            }
        };
        for case in 0..samples.len() {
            let room = |arm: usize| arms[case][arm] && reached[case][arm] + more[case][arm] < max;
            let [m_w, m_wo] = more[case];
            if room(0) {
                consider(gain(case, 0, &more), case, 1, 0);
            }
            if room(1) && m_wo < m_w {
                consider(gain(case, 1, &more), case, 0, 1);
            }
            if room(0) && room(1) && m_wo == m_w && budget >= 2 {
                let pair = (gain(case, 0, &more) + gain(case, 1, &more)) / 2.0;
                consider(pair, case, 1, 1);
            }
        }
        let Some((_, case, w, wo)) = best else { break };
        more[case][0] += w;
        more[case][1] += wo;
        budget -= w + wo;
    }
    more.iter()
        .enumerate()
        .map(|(case, m)| RunRequest {
            case,
            with: m[0],
            without: m[1],
        })
        .filter(|r| r.runs() > 0)
        .collect()
}
