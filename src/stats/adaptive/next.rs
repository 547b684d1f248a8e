//! What the next round buys: which arms of each case run, and whether more runs could still make the call (conditional power).

use super::*;

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
/// clear at the last look, with every part that `grows` run to `max` runs:
/// if its true value equals `estimate` now (conditional power under the
/// current trend), or with `predictive`, averaged over the values the data
/// leave plausible under a flat prior (predictive power).
///
/// The last look tests the tie with the variance the score interval uses
/// there ([`variance_at`] the tie); a growing arm's share shrinks as n/max.
/// With V now and V′ at the last look, the information fraction is
/// t = V′/V and the drift is d = (|estimate − tie| − cc′)/√V′. Conditional
/// power is Φ((d − z)/√(1 − t)), predictive power Φ(√t·(d − z)/√(1 − t))
/// (Jennison and Turnbull, ch. 10).
pub(super) fn conditional_power(
    estimate: f64,
    tie: f64,
    parts: &[Part],
    grows: &[bool],
    max: u32,
    z_last: f64,
    predictive: bool,
) -> f64 {
    let now = variance_at(parts, tie);
    let mut projected = parts.to_vec();
    let (mut v_now, mut v_last) = (0.0, 0.0);
    for (i, (v, p)) in now.iter().zip(projected.iter_mut()).enumerate() {
        v_now += v;
        if grows[i] && p.n > 0 && p.n < max as usize {
            let grow = max as f64 / p.n as f64;
            v_last += v / grow;
            p.sum *= grow;
            p.n = max as usize;
        } else {
            v_last += v;
        }
    }
    if v_now <= 0.0 {
        // No noise left under "no difference": the test will not move.
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
