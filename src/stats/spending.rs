//! Group-sequential boundaries from an error-spending function (Lan and
//! DeMets): the critical value of each look such that, were the look
//! statistics the canonical joint normal (independent increments, look k at
//! information fraction tₖ), the chance of a false call at look k and not
//! before is exactly α(tₖ) − α(tₖ₋₁). Computed once per schedule by the
//! recursive integration of Armitage, McPherson and Rowe (Jennison and
//! Turnbull, *Group Sequential Methods*, ch. 19) on a fixed grid: a pure,
//! deterministic function of its input.

use super::interval::normal_quantile;
use super::memo::Memo;
use std::sync::Mutex;

/// Grid points per unit of the score process's standard deviation.
const GRID_PER_SD: f64 = 60.0;
/// How far the carried density's kernel is summed, in its standard
/// deviations (its weight beyond is below 1e-17 of the peak's).
const KERNEL_SDS: f64 = 9.0;

/// The upper tail 1 − Φ(x), to about 1e-14 relative: the series of erf with
/// positive terms below |x| = 2.5·√2, a continued fraction of erfc above.
pub fn normal_upper(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 1.0 - normal_upper(-x);
    }
    let y = x / std::f64::consts::SQRT_2;
    0.5 * erfc(y)
}

/// erfc(y) for y ≥ 0.
fn erfc(y: f64) -> f64 {
    let front = (-y * y).exp() / std::f64::consts::PI.sqrt();
    if y < 2.5 {
        // erf(y) = 2/√π·e^{−y²}·Σ 2ⁿy^{2n+1}/(1·3·…·(2n+1)), every term positive.
        let (mut term, mut sum, mut n) = (y, y, 0.0);
        while term > sum * 1e-17 {
            n += 1.0;
            term *= 2.0 * y * y / (2.0 * n + 1.0);
            sum += term;
        }
        1.0 - 2.0 * front * sum
    } else {
        // erfc(y) = e^{−y²}/√π · 1/(y + (1/2)/(y + 1/(y + (3/2)/(y + …)))),
        // evaluated from a fixed depth back (ample above 2.5).
        let mut tail = 0.0;
        for k in (1..=120).rev() {
            tail = (f64::from(k) / 2.0) / (y + tail);
        }
        front / (y + tail)
    }
}

/// The standard normal density.
fn density(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// Two-sided critical values c₁ … c_K on the z scale for looks at
/// information fractions `fractions` (increasing, the last 1), spending
/// `spent[k]` of the error budget by look k (cumulative, non-decreasing).
/// A look that spends nothing gets `f64::INFINITY`.
///
/// No interim look is looser than the last: where the spending function
/// would make one so (a first look late in the schedule, a front-loaded
/// function), that look's critical value is raised to the last's, it spends
/// less, and the last look spends the rest of the budget (so the last
/// moves down, and the order holds).
pub fn boundaries(fractions: &[f64], spent: &[f64]) -> Vec<f64> {
    let mut c = cached(fractions, spent, f64::NEG_INFINITY);
    let last = c.len() - 1;
    if c[..last].iter().any(|x| *x < c[last]) {
        c = cached(fractions, spent, c[last]);
    }
    c
}

/// [`compute`], remembered: a design's boundaries are computed once per
/// process for each schedule, budget and floor (a simulation meets the
/// same few hundred again and again; an evaluation meets one).
fn cached(fractions: &[f64], spent: &[f64], floor: f64) -> Vec<f64> {
    /// Schedules remembered at most; past it the memory starts afresh.
    const MOST: usize = 4096;
    let key: Vec<u64> = fractions
        .iter()
        .chain(spent)
        .chain([&floor])
        .map(|x| x.to_bits())
        .collect();
    static CACHE: Mutex<Memo<Vec<u64>, Vec<f64>>> = Mutex::new(Memo::new(MOST));
    if let Some(c) = CACHE.lock().ok().and_then(|c| c.get(&key)) {
        return c;
    }
    let c = compute(fractions, spent, floor);
    if let Ok(mut cache) = CACHE.lock() {
        cache.insert(key, c.clone());
    }
    c
}

/// The boundary c in (0, 12) where `cross` (decreasing in c) spends `step`:
/// regula falsi with the Illinois step, to 1e-13 on c, a few evaluations of
/// `cross` (each a sum over the grid) where bisection takes sixty.
fn crossing_at(cross: &impl Fn(f64) -> f64, step: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 12.0);
    let (mut f_lo, mut f_hi) = (cross(lo) - step, cross(hi) - step);
    if f_lo <= 0.0 {
        return lo;
    }
    if f_hi >= 0.0 {
        return hi;
    }
    // Which end moved last: 1 low, -1 high; the other end's value is halved
    // when the same end moves twice (the Illinois step).
    let mut last = 0;
    for _ in 0..200 {
        let mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
        let f_mid = cross(mid) - step;
        if f_mid > 0.0 {
            lo = mid;
            f_lo = f_mid;
            if last == 1 {
                f_hi /= 2.0;
            }
            last = 1;
        } else {
            hi = mid;
            f_hi = f_mid;
            if last == -1 {
                f_lo /= 2.0;
            }
            last = -1;
        }
        if f_mid == 0.0 || hi - lo < 1e-13 {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// The boundaries, every interim one at least `floor`; the last look spends
/// whatever the earlier looks left of the budget.
fn compute(fractions: &[f64], spent: &[f64], floor: f64) -> Vec<f64> {
    assert_eq!(fractions.len(), spent.len());
    let looks = fractions.len();
    let mut out = Vec::with_capacity(fractions.len());
    // The sub-density of the score process S at the last look, on the
    // continuation region, as (points, weights·density) for the trapezoid.
    let mut grid: Vec<f64> = vec![];
    let mut mass: Vec<f64> = vec![];
    let (mut t_prev, mut spent_prev) = (0.0, 0.0);
    for (k, (&t, &a)) in fractions.iter().zip(spent).enumerate() {
        let last = k + 1 == looks;
        let step = if last {
            spent[looks - 1] - spent_prev
        } else {
            a - spent_prev
        };
        let dt = t - t_prev;
        let sd = dt.sqrt();
        // The chance of crossing ±c√t at this look without crossing before.
        let cross = |c: f64| -> f64 {
            let b = c * t.sqrt();
            if k == 0 {
                return 2.0 * normal_upper(c);
            }
            // Only points within KERNEL_SDS of ±b add more than 1e-19 of
            // their mass: the upper tail from b above, the lower from −b.
            let (first, h) = (grid[0], grid[1] - grid[0]);
            let index = |u: f64| (((u - first) / h).max(0.0) as usize).min(grid.len());
            let near_top = index(b - KERNEL_SDS * sd);
            let near_bottom = index(-b + KERNEL_SDS * sd + h).max(1);
            let top: f64 = grid[near_top..]
                .iter()
                .zip(&mass[near_top..])
                .map(|(&u, &m)| m * normal_upper((b - u) / sd))
                .sum();
            let bottom: f64 = grid[..near_bottom]
                .iter()
                .zip(&mass[..near_bottom])
                .map(|(&u, &m)| m * normal_upper((b + u) / sd))
                .sum();
            top + bottom
        };
        let c = if step <= 0.0 {
            f64::INFINITY
        } else if k == 0 {
            -normal_quantile(step / 2.0)
        } else {
            crossing_at(&cross, step)
        };
        let c = if last { c } else { c.max(floor) };
        out.push(c);
        if last {
            break;
        }
        // What this look really spent (less than planned when floored).
        let spent_here = if c.is_finite() { cross(c) } else { 0.0 };
        // The density of S on (−c√t, c√t), carried to the next look.
        let b = if c.is_finite() {
            c * t.sqrt()
        } else {
            9.0 * t.sqrt()
        };
        let points = ((2.0 * b / t.sqrt() * GRID_PER_SD).ceil() as usize).max(2) + 1;
        let h = 2.0 * b / (points - 1) as f64;
        let new_grid: Vec<f64> = (0..points).map(|i| -b + h * i as f64).collect();
        let new_mass: Vec<f64> = new_grid
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let f = if k == 0 {
                    density(s / sd) / sd
                } else {
                    // The old grid's points within KERNEL_SDS of s: past
                    // them the kernel is below 1e-17 of its peak.
                    let (first, step) = (grid[0], grid[1] - grid[0]);
                    let at = |u: f64| (u - first) / step;
                    let from = at(s - KERNEL_SDS * sd).floor().max(0.0) as usize;
                    let to = (at(s + KERNEL_SDS * sd).ceil().max(0.0) as usize + 1).min(grid.len());
                    let from = from.min(to);
                    grid[from..to]
                        .iter()
                        .zip(&mass[from..to])
                        .map(|(&u, &m)| m * density((s - u) / sd) / sd)
                        .sum()
                };
                let w = if i == 0 || i + 1 == points { 0.5 } else { 1.0 };
                f * w * h
            })
            .collect();
        grid = new_grid;
        mass = new_mass;
        t_prev = t;
        spent_prev += spent_here;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_tail_known_values() {
        for (x, q) in [
            (0.0, 0.5),
            (1.959_963_984_540_054, 0.025),
            (3.290_526_731_491_89, 0.0005),
            (-1.0, 0.841_344_746_068_542_9),
            (5.0, 2.866_515_718_791_939e-7),
            (8.0, 6.220_960_574_271_785e-16),
        ] {
            let got = normal_upper(x);
            assert!((got - q).abs() <= 1e-10 * q, "{x}: {got} vs {q}");
        }
    }

    #[test]
    fn one_look_is_the_plain_critical_value() {
        let c = boundaries(&[1.0], &[0.05]);
        assert!((c[0] - 1.959_963_984_540_054).abs() < 1e-9, "{c:?}");
    }

    #[test]
    fn pocock_and_obrien_fleming_constants() {
        // Jennison and Turnbull, tables 2.1 and 2.3: Pocock's constant for
        // K = 4 equal looks at two-sided 0.05 is 2.361; O'Brien–Fleming's
        // C_B(4, 0.05) is 2.024, so c_k = 2.024·√(4/k).
        let t = [0.25, 0.5, 0.75, 1.0];
        // Pocock: find the constant whose spending reproduces itself.
        let pocock = 2.361;
        let mut spent = vec![];
        let mut so_far = 0.0;
        for k in 0..4 {
            so_far += crossing_prob_same(&t[..=k], pocock);
            spent.push(so_far);
        }
        assert!((so_far - 0.05).abs() < 5e-4, "{so_far}");
        let c = boundaries(&t, &spent);
        for x in &c {
            assert!((x - pocock).abs() < 2e-3, "{c:?}");
        }
        let obf: Vec<f64> = (1..=4).map(|k| 2.024 * (4.0 / k as f64).sqrt()).collect();
        let mut spent = vec![];
        let mut so_far = 0.0;
        for k in 0..4 {
            so_far += crossing_at(&t[..=k], &obf[..=k]);
            spent.push(so_far);
        }
        assert!((so_far - 0.05).abs() < 5e-4, "{so_far}");
        let c = boundaries(&t, &spent);
        for (x, want) in c.iter().zip(&obf) {
            assert!((x - want).abs() < 2e-3, "{c:?} vs {obf:?}");
        }
    }

    #[test]
    fn a_look_that_would_be_looser_than_the_last_is_held_at_it() {
        // Looks at 3 and 4 runs of 4 spending α·t: the first would get 2.08
        // and the last 2.18. Held at the last's level, the first spends
        // less and the last the rest, so both together still spend α.
        let t = [0.75, 1.0];
        let c = boundaries(&t, &[0.0375, 0.05]);
        assert!(c[0] >= c[1] && c[1] < 2.18, "{c:?}");
        let total = crossing_at(&t[..1], &c[..1]) + crossing_at(&t, &c);
        assert!((total - 0.05).abs() < 5e-4, "{total} {c:?}");
    }

    /// The chance that the last look crosses `c` and none before does, by
    /// brute-force simulation-free quadrature: [`compute`] with the
    /// boundaries given, read back through the spending it implies.
    fn crossing_at(t: &[f64], c: &[f64]) -> f64 {
        // Monte Carlo would be random; integrate on a fine grid instead.
        let n = 1500;
        let sd1 = t[0].sqrt();
        let b1 = c[0] * sd1;
        if t.len() == 1 {
            return 2.0 * normal_upper(c[0]);
        }
        let h = 2.0 * b1 / n as f64;
        let mut grid: Vec<(f64, f64)> = (0..=n)
            .map(|i| {
                let s = -b1 + h * i as f64;
                let w = if i == 0 || i == n { 0.5 } else { 1.0 };
                (s, density(s / sd1) / sd1 * w * h)
            })
            .collect();
        for k in 1..t.len() {
            let sd = (t[k] - t[k - 1]).sqrt();
            let b = c[k] * t[k].sqrt();
            if k + 1 == t.len() {
                return grid
                    .iter()
                    .map(|&(u, m)| m * (normal_upper((b - u) / sd) + normal_upper((b + u) / sd)))
                    .sum();
            }
            let h = 2.0 * b / n as f64;
            grid = (0..=n)
                .map(|i| {
                    let s = -b + h * i as f64;
                    let w = if i == 0 || i == n { 0.5 } else { 1.0 };
                    let f: f64 = grid
                        .iter()
                        .map(|&(u, m)| m * density((s - u) / sd) / sd)
                        .sum();
                    (s, f * w * h)
                })
                .collect();
        }
        unreachable!()
    }

    fn crossing_prob_same(t: &[f64], c: f64) -> f64 {
        crossing_at(t, &vec![c; t.len()])
    }
}
