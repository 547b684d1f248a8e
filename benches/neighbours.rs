//! Benchmark: the description join of `check` (`check::neighbours`) over
//! 1,000 and 10,000 generated descriptions, and over 1,000 identical ones.
//! Run with `cargo bench --bench neighbours`; prints the median of several
//! runs. Each description is 12–24 words drawn from a Zipf-like vocabulary of
//! 3,000 words (a few words are common to many descriptions, as "file",
//! "code" and "test" are in a real plugin); every 100th item is a copy of the
//! one before with two words changed, so each join has pairs to find.

use bob_eval::check::neighbours::{SimilarityGroups, words};
use std::time::{Duration, Instant};

const ITERATIONS: usize = 7;
const VOCABULARY: usize = 3000;

/// xorshift64: the same descriptions on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A word index, Zipf-like: rank r drawn with weight about 1/r.
    fn word(&mut self) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((VOCABULARY as f64).powf(u) as usize).min(VOCABULARY) - 1
    }
}

fn descriptions(n: usize) -> Vec<String> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out: Vec<String> = Vec::with_capacity(n);
    for i in 0..n {
        if i % 100 == 99 {
            let mut copy: Vec<String> = out[i - 1].split(' ').map(str::to_owned).collect();
            for k in [0, 1] {
                copy[k] = format!("vocab{}x", rng.word());
            }
            out.push(copy.join(" "));
            continue;
        }
        let len = 12 + (rng.next() % 13) as usize;
        let text: Vec<String> = (0..len).map(|_| format!("vocab{}x", rng.word())).collect();
        out.push(text.join(" "));
    }
    out
}

/// The median time of words + join over `texts`, and the pairs found.
fn measure(texts: &[String]) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut pairs = 0;
    for _ in 0..ITERATIONS {
        let start = Instant::now();
        let sets: Vec<Vec<String>> = texts.iter().map(|t| words(t)).collect();
        let index = SimilarityGroups::build(&sets);
        times.push(start.elapsed());
        pairs = (0..texts.len()).map(|i| index.of(i, 0).0).sum::<usize>() / 2;
    }
    times.sort();
    (times[ITERATIONS / 2], pairs)
}

/// The most the join of 1,000 descriptions may take: a tenth of `check`'s
/// budget for 1,000 suites (0.5 s).
const TARGET_MS: f64 = 50.0;

fn main() {
    for (label, texts) in [
        ("1,000 descriptions", descriptions(1000)),
        ("10,000 descriptions", descriptions(10_000)),
        (
            "1,000 identical descriptions",
            vec!["Bench item.".to_string(); 1000],
        ),
    ] {
        let (median, pairs) = measure(&texts);
        let ms = median.as_secs_f64() * 1000.0;
        println!(
            "neighbours: {label}: median {ms:.2} ms over {ITERATIONS} runs, {pairs} pair(s) at the threshold"
        );
        if texts.len() == 1000 {
            println!(
                "RESULT neighbours join of {label}: {ms:.1} ms (target <= {TARGET_MS} ms) {}",
                if ms <= TARGET_MS { "PASS" } else { "MISS" }
            );
        }
    }
}
