//! The figures `make figures` sets beside the published ones: one line
//! each, `FIGURE`, an id, the value as the docs print it, its Monte-Carlo
//! error and what it rests on, tab-separated. `scripts/figures.sh` joins
//! them with `benches/adaptive/published.tsv` (the value each doc prints).
//!
//! The error is the simulation's own: a share's 95 % Wilson interval over
//! the suites it counts, a mean's 95 % half-width (1.96·sd/√n), a quantile's
//! distribution-free 95 % interval (order statistics). The seeds are fixed,
//! so a rerun of the same code prints the same value; the error says how far
//! another seed could move it.

/// z for a two-sided 95 % interval.
const Z: f64 = 1.959_963_984_540_054;

/// Prints one figure.
pub(crate) fn figure(id: &str, value: &str, error: &str, basis: &str) {
    println!("FIGURE\t{id}\t{value}\t{error}\t{basis}");
}

/// `k` of `n` as a percentage with `decimals`, and its 95 % Wilson interval.
pub(crate) fn share(id: &str, k: usize, n: usize, decimals: usize, what: &str) {
    let (value, error) = if n == 0 {
        ("–".to_string(), "–".to_string())
    } else {
        let (nf, p) = (n as f64, k as f64 / n as f64);
        let denom = 1.0 + Z * Z / nf;
        let centre = (p + Z * Z / (2.0 * nf)) / denom;
        let half = Z * (p * (1.0 - p) / nf + Z * Z / (4.0 * nf * nf)).sqrt() / denom;
        (
            // As the tables compute it (100·k/n), so both round alike.
            format!("{:.decimals$} %", 100.0 * k as f64 / nf),
            format!(
                "95 % [{:.decimals$}, {:.decimals$}] %",
                100.0 * (centre - half).max(0.0),
                100.0 * (centre + half).min(1.0)
            ),
        )
    };
    figure(id, &value, &error, &format!("{n} {what}"));
}

/// Sums of a quantity and of its squares over `n` draws.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct Moments {
    pub(crate) n: u64,
    pub(crate) sum: f64,
    pub(crate) sum_sq: f64,
}

impl Moments {
    /// One draw.
    pub(crate) fn push(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }

    /// Another set of draws.
    pub(crate) fn add(&mut self, o: Moments) {
        self.n += o.n;
        self.sum += o.sum;
        self.sum_sq += o.sum_sq;
    }

    /// The mean.
    pub(crate) fn mean(&self) -> f64 {
        self.sum / self.n.max(1) as f64
    }

    /// The 95 % half-width of the mean, 1.96·sd/√n.
    pub(crate) fn half(&self) -> f64 {
        if self.n < 2 {
            return f64::NAN;
        }
        let n = self.n as f64;
        let var = ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0);
        Z * (var / n).sqrt()
    }
}

/// A mean with `decimals`, and its 95 % half-width.
pub(crate) fn mean(id: &str, m: Moments, decimals: usize, unit: &str, what: &str) {
    estimate(
        id,
        m.mean(),
        m.half(),
        decimals,
        unit,
        &format!("{} {what}", m.n),
    );
}

/// A value computed as its table computes it (so both round alike), and
/// the 95 % half-width of its simulation error.
pub(crate) fn estimate(id: &str, value: f64, half: f64, decimals: usize, unit: &str, basis: &str) {
    figure(
        id,
        &format!("{value:.decimals$}{unit}"),
        &format!("± {half:.decimals$}{unit}"),
        basis,
    );
}

/// A count's difference between two settings on the same suites (`mine`
/// and `theirs` each the sorted indices of the suites it got right), and
/// its 95 % half-width from the discordant suites (McNemar's variance).
pub(crate) fn paired(id: &str, mine: &[usize], theirs: &[usize], what: &str) {
    let only_mine = mine
        .iter()
        .filter(|i| theirs.binary_search(i).is_err())
        .count();
    let only_theirs = theirs
        .iter()
        .filter(|i| mine.binary_search(i).is_err())
        .count();
    let diff = only_mine as i64 - only_theirs as i64;
    figure(
        id,
        &format!("{diff:+}"),
        &format!("± {:.0}", Z * ((only_mine + only_theirs) as f64).sqrt()),
        &format!("{} suites differ, {what}", only_mine + only_theirs),
    );
}

/// The `q` quantile of sorted `rates` (as the bench reads it: the
/// ⌈q·n⌉-th), with its distribution-free 95 % interval: the order
/// statistics at ranks n·q ∓ 1.96·√(n·q·(1 − q)).
pub(crate) fn quantile(id: &str, rates: &[f64], q: f64, decimals: usize, what: &str) {
    let n = rates.len();
    let at = |rank: f64| rates[(rank.ceil() as usize).clamp(1, n) - 1];
    let nf = n as f64;
    let spread = Z * (nf * q * (1.0 - q)).sqrt();
    figure(
        id,
        &format!("{:.decimals$} %", at(q * nf)),
        &format!(
            "95 % [{:.decimals$}, {:.decimals$}] %",
            at((q * nf - spread).floor()),
            at(q * nf + spread + 1.0)
        ),
        &format!("{n} {what}"),
    );
}
