//! The one generator every simulation here uses (the price's expected runs,
//! the Monte-Carlo tests, the benches): splitmix64, small, portable and
//! fixed by its seed, so a figure never changes with a crate's version.

/// splitmix64.
#[derive(Debug, Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize
    }

    /// `n` runs, each passing (1.0) with probability `p`.
    pub fn runs(&mut self, p: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| f64::from(u8::from(self.unit() < p)))
            .collect()
    }

    /// A standard normal draw (Box–Muller, one of the pair).
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    /// A Gamma(`shape`, 1) draw (Marsaglia and Tsang; below shape 1, a
    /// draw at shape + 1 times U^(1/shape)).
    pub fn gamma(&mut self, shape: f64) -> f64 {
        if shape < 1.0 {
            let u = 1.0 - self.unit();
            return self.gamma(shape + 1.0) * u.powf(1.0 / shape);
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = (1.0 + c * x).powi(3);
            if v <= 0.0 {
                continue;
            }
            let u = 1.0 - self.unit();
            if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
                return d * v;
            }
        }
    }

    /// A Beta(`a`, `b`) draw, from two Gamma draws.
    pub fn beta(&mut self, a: f64, b: f64) -> f64 {
        let x = self.gamma(a);
        let y = self.gamma(b);
        x / (x + y)
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix;

    #[test]
    fn the_stream_is_splitmix64_and_its_runs_pass_at_their_rate() {
        // The reference value of splitmix64 seeded with 0.
        assert_eq!(SplitMix(0).next(), 0xE220_A839_7B1D_CDAF);
        let mut rng = SplitMix(7);
        let runs = rng.runs(0.3, 20_000);
        let share = runs.iter().sum::<f64>() / runs.len() as f64;
        assert!((share - 0.3).abs() < 0.015, "{share}");
        assert!((0..1000).all(|_| rng.below(7) < 7));
    }

    #[test]
    fn beta_draws_have_the_beta_s_mean_and_variance() {
        let mut rng = SplitMix(11);
        // Jeffreys' posteriors of 0 of 20, 6 of 20 and 3 of 3 passing.
        for (a, b) in [(0.5, 20.5), (6.5, 14.5), (3.5, 0.5)] {
            let n = 40_000;
            let xs: Vec<f64> = (0..n).map(|_| rng.beta(a, b)).collect();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            let (m, v) = (a / (a + b), a * b / ((a + b).powi(2) * (a + b + 1.0)));
            assert!(
                (mean - m).abs() < 4.0 * (v / n as f64).sqrt(),
                "{a} {b}: {mean} vs {m}"
            );
            assert!((var / v - 1.0).abs() < 0.05, "{a} {b}: {var} vs {v}");
            assert!(xs.iter().all(|x| (0.0..=1.0).contains(x)));
        }
    }
}
