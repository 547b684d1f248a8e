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
}
