//! Efficiency figures (cost, turns, duration per run): each arm's mean with
//! a Student t interval, and the with/without ratio of means with a
//! delta-method interval on its logarithm (`docs/running.md`, "Efficiency").
//!
//! Unlike scores these figures are unbounded and not pass shares, so the
//! Wilson family does not apply. Methods, closed form throughout:
//!
//! - one arm of one case: the **t-interval** on the mean of its runs,
//!   `mean ± t(n−1) · sd/√n`, its lower end held at 0 (no figure is negative);
//! - the suite: the mean over cases of the case means (cases fixed, runs the
//!   noise, as for scores), variance `Σ sdᵢ²/nᵢ / k²`, degrees of freedom by
//!   Welch–Satterthwaite;
//! - the ratio `with / without` of two such means: `exp(log r ± t · se)` with
//!   `se² = V_with/M_with² + V_without/M_without²` (the delta method on the
//!   log-ratio) and Welch–Satterthwaite degrees of freedom over every part.
//!
//! Honest at small n: an arm with a single run has no spread to measure, so
//! it has no interval (and neither has a suite or ratio it enters); runs
//! that all agree give an interval of zero width, which says only that these
//! runs did not vary.

/// One arm's runs summed up: how many, their mean, their sample standard
/// deviation (`None` for a single run).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Runs.
    pub n: u32,
    /// Mean of the figure.
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator); `None` when n < 2.
    pub sd: Option<f64>,
}

impl Sample {
    /// The sample of `values`; `None` for none.
    pub fn of(values: &[f64]) -> Option<Sample> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let sd = (n >= 2).then(|| {
            let ss: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
            (ss / (n - 1) as f64).sqrt()
        });
        Some(Sample {
            n: u32::try_from(n).unwrap_or(u32::MAX),
            mean,
            sd,
        })
    }
}

/// A mean over one or more cases' samples (weights 1/k), with the parts of
/// its variance, each with its degrees of freedom.
#[derive(Debug, Clone, PartialEq)]
pub struct Pooled {
    /// Mean over cases of the case means.
    pub mean: f64,
    /// `(sdᵢ²/(k²·nᵢ), nᵢ − 1)` per case; `None` when a case has one run.
    parts: Option<Vec<(f64, f64)>>,
}

impl Pooled {
    /// The mean of `samples`' means; `None` for no sample.
    pub fn of(samples: &[Sample]) -> Option<Pooled> {
        if samples.is_empty() {
            return None;
        }
        let k = samples.len() as f64;
        let mean = samples.iter().map(|s| s.mean).sum::<f64>() / k;
        let parts = samples
            .iter()
            .map(|s| {
                let sd = s.sd?;
                Some((sd * sd / (k * k * f64::from(s.n)), f64::from(s.n) - 1.0))
            })
            .collect();
        Some(Pooled { mean, parts })
    }

    /// The variance of the mean, when every case had two runs or more.
    pub fn variance(&self) -> Option<f64> {
        self.parts.as_ref().map(|p| p.iter().map(|x| x.0).sum())
    }

    /// The two-sided t-interval at `confidence`, its lower end held at 0.
    pub fn interval(&self, confidence: f64) -> Option<(f64, f64)> {
        let half = half_width(self.parts.as_ref()?, 0.5 + confidence / 2.0)?;
        Some(((self.mean - half).max(0.0), self.mean + half))
    }
}

/// `t(p, Welch–Satterthwaite df) · √Σvar` over `parts`; 0 when they sum to
/// 0; `None` when a part is not finite.
fn half_width(parts: &[(f64, f64)], p: f64) -> Option<f64> {
    let var: f64 = parts.iter().map(|x| x.0).sum();
    if !var.is_finite() {
        return None;
    }
    if var <= 0.0 {
        return Some(0.0);
    }
    let denom: f64 = parts
        .iter()
        .filter(|x| x.0 > 0.0)
        .map(|(v, df)| v * v / df)
        .sum();
    let df = var * var / denom;
    (df.is_finite() && df > 0.0).then(|| t_quantile(p, df) * var.sqrt())
}

/// A ratio of means with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    /// `with / without`.
    pub value: f64,
    /// Its interval, when every arm had two runs or more.
    pub interval: Option<(f64, f64)>,
}

/// The parts of the log-ratio's variance, each scaled by its arm's mean².
fn log_parts(with: &Pooled, without: &Pooled) -> Option<Vec<(f64, f64)>> {
    let scale = |p: &Pooled| -> Option<Vec<(f64, f64)>> {
        Some(
            p.parts
                .as_ref()?
                .iter()
                .map(|(v, df)| (v / (p.mean * p.mean), *df))
                .collect(),
        )
    };
    let mut parts = scale(with)?;
    parts.extend(scale(without)?);
    Some(parts)
}

/// `with.mean / without.mean` with its two-sided interval at `confidence`
/// (delta method on the log-ratio); `None` when either mean is not above 0
/// (no ratio of a figure the runs did not spend).
pub fn ratio(with: &Pooled, without: &Pooled, confidence: f64) -> Option<Ratio> {
    if !(with.mean > 0.0 && without.mean > 0.0) {
        return None;
    }
    let value = with.mean / without.mean;
    if !value.is_finite() {
        return None;
    }
    let interval = log_parts(with, without)
        .and_then(|parts| half_width(&parts, 0.5 + confidence / 2.0))
        .map(|half| (value * (-half).exp(), value * half.exp()));
    Some(Ratio { value, interval })
}

/// The ratio's one-sided bounds at `level` (e.g. 0.95): `(lower, upper)`,
/// each holding at that level alone; `None` when [`ratio`] has no interval.
pub fn ratio_bounds(with: &Pooled, without: &Pooled, level: f64) -> Option<(f64, f64)> {
    if with.mean <= 0.0 || without.mean <= 0.0 {
        return None;
    }
    let value = with.mean / without.mean;
    let half = half_width(&log_parts(with, without)?, level)?;
    Some((value * (-half).exp(), value * half.exp()))
}

/// A `--max-cost-ratio` as written (`1.5`): see [`check_cost_ratio`].
pub fn parse_cost_ratio(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a ratio (e.g. 1.5: runs with the item may cost at most 1.5 times those without)"))?;
    check_cost_ratio(value)
}

/// A most cost ratio is a number from 0.01 to 1000 (below 1 asks the item
/// to make runs cheaper).
pub fn check_cost_ratio(value: f64) -> Result<f64, String> {
    if value.is_finite() && (0.01..=1000.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "{value} is not a cost ratio: a number from 0.01 to 1000 (e.g. 1.5: runs with the item may cost at most 1.5 times those without)"
        ))
    }
}

/// Student's t quantile: the `t` with `P(T ≤ t) = p` on `df` degrees of
/// freedom (any real df > 0), by bisection on the distribution function
/// (the regularized incomplete beta), to about 1e-12.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    assert!(p > 0.0 && p < 1.0, "t_quantile needs 0 < p < 1, got {p}");
    assert!(df > 0.0, "t_quantile needs df > 0, got {df}");
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    while t_cdf(hi, df) < p {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-13 * hi.max(1.0) {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// Student's t distribution function on `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    let x = df / (df + t * t);
    let tail = 0.5 * incomplete_beta(0.5 * df, 0.5, x);
    if t >= 0.0 { 1.0 - tail } else { tail }
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: about 15 digits).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized incomplete beta function I_x(a, b) (the continued
/// fraction of Numerical Recipes' `betai`).
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of the incomplete beta (modified Lentz).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 3e-16 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // Published two-sided 95 % and 99 % critical values.
        for (df, t95, t99) in [
            (1.0, 12.706_204_736, 63.656_741_163),
            (2.0, 4.302_652_730, 9.924_843_201),
            (3.0, 3.182_446_305, 5.840_909_309),
            (9.0, 2.262_157_163, 3.249_835_541),
            (30.0, 2.042_272_456, 2.749_995_654),
        ] {
            assert!(close(t_quantile(0.975, df), t95, 1e-6), "df {df}");
            assert!(close(t_quantile(0.995, df), t99, 1e-6), "df {df}");
        }
        // Towards the normal as df grows, and symmetric.
        assert!(close(t_quantile(0.975, 1e6), 1.959_966, 1e-5));
        assert!(close(
            t_quantile(0.025, 4.0),
            -t_quantile(0.975, 4.0),
            1e-12
        ));
        // df = 2 has a closed form: (2p − 1) / √(2p(1 − p)).
        let p: f64 = 0.9;
        assert!(close(
            t_quantile(p, 2.0),
            (2.0 * p - 1.0) / (2.0 * p * (1.0 - p)).sqrt(),
            1e-9
        ));
    }

    #[test]
    fn cost_ratios_are_checked_where_they_enter() {
        assert_eq!(parse_cost_ratio(" 1.5 "), Ok(1.5));
        assert_eq!(parse_cost_ratio("0.5"), Ok(0.5));
        for bad in ["0", "-1", "x", "inf", "1e9"] {
            let err = parse_cost_ratio(bad).unwrap_err();
            assert!(err.contains("e.g. 1.5"), "{bad}: {err}");
        }
    }

    #[test]
    fn one_arm_is_the_textbook_t_interval() {
        // 10, 12, 14: mean 12, sd 2, n 3: 12 ± 4.3027 · 2/√3.
        let s = Sample::of(&[10.0, 12.0, 14.0]).unwrap();
        assert_eq!((s.n, s.mean, s.sd), (3, 12.0, Some(2.0)));
        let (low, high) = Pooled::of(&[s]).unwrap().interval(0.95).unwrap();
        let half = 4.302_652_730 * 2.0 / 3f64.sqrt();
        assert!(close(low, 12.0 - half, 1e-6) && close(high, 12.0 + half, 1e-6));
    }

    #[test]
    fn small_samples_say_what_they_cannot_know() {
        // One run: no spread, so no interval, for the arm and any ratio.
        let one = Pooled::of(&[Sample::of(&[3.0]).unwrap()]).unwrap();
        assert_eq!(one.interval(0.95), None);
        let two = Pooled::of(&[Sample::of(&[1.0, 2.0]).unwrap()]).unwrap();
        let r = ratio(&one, &two, 0.95).unwrap();
        assert!(close(r.value, 2.0, 1e-12));
        assert_eq!(r.interval, None);
        // The lower end never goes below 0.
        let wide = Pooled::of(&[Sample::of(&[0.0, 10.0]).unwrap()]).unwrap();
        assert_eq!(wide.interval(0.95).unwrap().0, 0.0);
        // Nothing spent: no ratio.
        let zero = Pooled::of(&[Sample::of(&[0.0, 0.0]).unwrap()]).unwrap();
        assert_eq!(ratio(&two, &zero, 0.95), None);
        assert_eq!(Sample::of(&[]), None);
    }

    #[test]
    fn runs_that_agree_give_a_point() {
        let three = Pooled::of(&[Sample::of(&[3.0, 3.0, 3.0]).unwrap()]).unwrap();
        let one = Pooled::of(&[Sample::of(&[1.0, 1.0, 1.0]).unwrap()]).unwrap();
        let r = ratio(&three, &one, 0.95).unwrap();
        assert_eq!(r.interval, Some((3.0, 3.0)));
        assert_eq!(three.interval(0.95), Some((3.0, 3.0)));
    }

    #[test]
    fn the_ratio_interval_is_the_delta_method_on_the_log() {
        // with 10, 12 (mean 11, var 2), without 5, 6, 7 (mean 6, var 1).
        let w = Pooled::of(&[Sample::of(&[10.0, 12.0]).unwrap()]).unwrap();
        let wo = Pooled::of(&[Sample::of(&[5.0, 6.0, 7.0]).unwrap()]).unwrap();
        let r = ratio(&w, &wo, 0.95).unwrap();
        let (a, b) = (2.0 / 2.0 / 121.0, 1.0 / 3.0 / 36.0);
        let df = (a + b) * (a + b) / (a * a / 1.0 + b * b / 2.0);
        let half = t_quantile(0.975, df) * (a + b).sqrt();
        let (low, high) = r.interval.unwrap();
        assert!(close(r.value, 11.0 / 6.0, 1e-12));
        assert!(close(low, 11.0 / 6.0 * (-half).exp(), 1e-9));
        assert!(close(high, 11.0 / 6.0 * half.exp(), 1e-9));
        assert!(low < r.value && r.value < high);
        // One-sided bounds at 95 % sit inside the two-sided 95 % interval.
        let (l1, h1) = ratio_bounds(&w, &wo, 0.95).unwrap();
        assert!(low < l1 && h1 < high);
    }

    #[test]
    fn the_suite_is_the_mean_of_case_means() {
        let a = Sample::of(&[1.0, 3.0]).unwrap();
        let b = Sample::of(&[10.0, 10.0, 13.0]).unwrap();
        let p = Pooled::of(&[a, b]).unwrap();
        assert!(close(p.mean, (2.0 + 11.0) / 2.0, 1e-12));
        let var = (2.0 / 2.0 + 3.0 / 3.0) / 4.0;
        assert!(close(p.variance().unwrap(), var, 1e-12));
        let (low, high) = p.interval(0.95).unwrap();
        assert!(low < p.mean && p.mean < high);
        // A case with one run leaves the suite without an interval.
        let c = Sample::of(&[4.0]).unwrap();
        assert_eq!(Pooled::of(&[a, c]).unwrap().interval(0.95), None);
    }

    /// Share of `trials` fixed-seed pairs of arms (`n` runs each, drawn by
    /// `draw(mean)`, true means 0.03 and 0.02: ratio 1.5) whose 95 % ratio
    /// interval holds 1.5.
    fn coverage(n: usize, trials: u32, lognormal: bool) -> f64 {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut uniform = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut z = || {
            let (u, v) = (uniform().max(1e-12), uniform());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        };
        // Normal with a 10 % coefficient of variation, or lognormal with
        // σ = 0.5 (skewed: a run now and then costs twice the median).
        let mut draw = |mean: f64| {
            if lognormal {
                mean * (0.5 * z() - 0.125).exp()
            } else {
                mean * (1.0 + 0.1 * z())
            }
        };
        let mut covered = 0;
        for _ in 0..trials {
            let w: Vec<f64> = (0..n).map(|_| draw(0.03)).collect();
            let wo: Vec<f64> = (0..n).map(|_| draw(0.02)).collect();
            let pw = Pooled::of(&[Sample::of(&w).unwrap()]).unwrap();
            let pwo = Pooled::of(&[Sample::of(&wo).unwrap()]).unwrap();
            let (low, high) = ratio(&pw, &pwo, 0.95).unwrap().interval.unwrap();
            covered += u32::from(low <= 1.5 && 1.5 <= high);
        }
        f64::from(covered) / f64::from(trials)
    }

    #[test]
    fn coverage_of_the_ratio_is_near_its_level() {
        // `cargo test --lib stats::efficiency -- --nocapture` prints the
        // figures docs/running.md states.
        for (n, lognormal, floor) in [
            (5, false, 0.93),
            (3, false, 0.93),
            (3, true, 0.85),
            (10, true, 0.90),
        ] {
            let rate = coverage(n, 4000, lognormal);
            let shape = if lognormal {
                "lognormal σ 0.5"
            } else {
                "normal cv 10 %"
            };
            println!(
                "ratio interval coverage, {n} runs per arm, {shape}: {:.1} %",
                rate * 100.0
            );
            assert!(
                rate >= floor && rate <= 0.99,
                "{n} {shape}: coverage {rate}"
            );
        }
    }
}
