//! The `skill-eval-baseline/1` document: the best accepted result per model, and the evidence it was measured on.

use super::{BASELINE, BTreeMap, Deserialize, Serialize, SkillEval, round4};

/// A `skill-eval-baseline/1` document: `evals/<item>/baseline.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// Always [`BASELINE`].
    pub schema: String,
    /// The item.
    pub item: String,
    /// Best accepted result per model.
    pub best: BTreeMap<String, BestEntry>,
}

impl Baseline {
    /// A new, empty baseline (`"best": {}`).
    pub fn empty(item: &str) -> Self {
        Baseline {
            schema: BASELINE.into(),
            item: item.into(),
            best: BTreeMap::new(),
        }
    }

    /// The best recorded for `model`, whatever spelling of it the file
    /// holds ([`crate::config::canonical_model`]): a baseline written before
    /// model names were made canonical may hold `OPUS` beside `opus`; of
    /// several spellings of one model the highest score is the best (the
    /// most recent date on a tie), so no spelling lowers the bar.
    pub fn best_for(&self, model: &str) -> Option<&BestEntry> {
        let canonical = crate::config::canonical_model(model);
        self.best
            .iter()
            .filter(|(name, _)| crate::config::canonical_model(name) == canonical)
            .map(|(_, entry)| entry)
            .max_by(|a, b| a.score.total_cmp(&b.score).then(a.date.cmp(&b.date)))
    }

    /// Record `entry` as the best for `model`, under its canonical spelling,
    /// replacing every other spelling of that model: a baseline holds one
    /// best per model.
    pub fn set_best(&mut self, model: &str, entry: BestEntry) {
        let canonical = crate::config::canonical_model(model);
        self.best
            .retain(|name, _| crate::config::canonical_model(name) != canonical);
        self.best.insert(canonical, entry);
    }
}

/// The best accepted result for one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestEntry {
    /// The `with` score.
    pub score: f64,
    /// The `without` score of that run.
    pub without: f64,
    /// Its trigger rate; absent in entries recorded before trigger rates existed.
    #[serde(default)]
    pub trigger_rate: Option<f64>,
    /// The run id.
    pub run: String,
    /// The run's date.
    pub date: String,
    /// Digest of the suite it was measured on (its cases' names and
    /// contents); absent in entries recorded before the evidence store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_digest: Option<String>,
    /// Its cases and the digest of each, so a later result can say which
    /// cases were removed, added or changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cases: Option<BTreeMap<String, String>>,
    /// Runs per arm of a case behind the score (the mean over cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<f64>,
    /// The score's 95 % interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<crate::stats::Interval>,
    /// How the score was measured: each case's runs and score sum per arm,
    /// and the trigger counts, so the gate's confidence mode can compare a
    /// later result with it as a measured quantity; absent in entries
    /// recorded before bests kept their evidence (they read as exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<BestEvidence>,
    /// The confidence level of the gate's mode that accepted it; absent when
    /// the rule alone decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// The digest of the item's files it was measured on: its version, kept
    /// beside the evidence store (`<store>.items/`) so it
    /// can be measured again; absent in entries recorded before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_digest: Option<String>,
    /// The flags it was measured with that change what a run measures (the
    /// judge, the cases, the tools, …: `flags::measuring` of its result's
    /// `flags`), so a later result measured otherwise is told; absent in
    /// entries recorded before, or from a result that recorded none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_with: Option<Vec<String>>,
}

impl BestEntry {
    /// A best known by its scores, run and date alone, as one recorded
    /// before bests kept their suite, runs and evidence reads (its score an
    /// exact line for the confidence mode).
    pub fn bare(
        score: f64,
        without: f64,
        trigger_rate: Option<f64>,
        run: &str,
        date: &str,
    ) -> Self {
        BestEntry {
            score,
            without,
            trigger_rate,
            run: run.into(),
            date: date.into(),
            suite_digest: None,
            cases: None,
            runs: None,
            interval: None,
            evidence: None,
            confidence: None,
            item_digest: None,
            measured_with: None,
        }
    }
}

/// The runs behind a best, per case and arm (the run id in [`BestEntry::run`]
/// resolves to the runs themselves in the evidence store).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestEvidence {
    /// Per case, in suite order.
    pub cases: Vec<CaseArms>,
    /// Trigger results of the with arm, when there were any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<crate::stats::TriggerCount>,
}

/// One case's arms behind a best.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseArms {
    /// The case's name.
    pub name: String,
    /// The with arm.
    pub with: ArmSum,
    /// The without arm.
    pub without: ArmSum,
}

/// An arm's runs and the sum of their scores (passes, for pass/fail runs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ArmSum {
    /// Runs in the arm.
    pub runs: u32,
    /// Sum of their scores, to 4 decimals.
    pub sum: f64,
}

impl ArmSum {
    /// The arm of `runs` runs whose mean, written to 4 decimals, is `mean`.
    /// The sum is within `runs`·5e-5 of `mean·runs`; when a whole number of
    /// passes is that close, it is that number (pass/fail runs sum to one).
    pub fn of(mean: f64, runs: u32) -> ArmSum {
        let n = f64::from(runs);
        let sum = (mean * n).clamp(0.0, n);
        let whole = sum.round();
        ArmSum {
            runs,
            sum: if (sum - whole).abs() <= n * 5e-5 {
                whole
            } else {
                round4(sum)
            },
        }
    }

    /// This arm with weight `coef` in a weighted sum of arms' means (what
    /// the confidence mode and the two-sample advisory compare).
    pub fn part(self, coef: f64) -> crate::stats::Part {
        crate::stats::Part {
            coef,
            sum: self.sum,
            n: self.runs as usize,
        }
    }
}

impl BestEvidence {
    /// The evidence of `result`, from its cases' intervals; `None` when a case
    /// has none (a document written before intervals existed).
    pub fn of(result: &SkillEval) -> Option<BestEvidence> {
        let cases = result
            .cases
            .iter()
            .map(|c| {
                let s = c.stats.as_ref()?;
                Some(CaseArms {
                    name: c.name.clone(),
                    with: ArmSum::of(s.with.value, s.runs_with),
                    without: ArmSum::of(s.without.value, s.runs_without),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        (!cases.is_empty()).then(|| BestEvidence {
            cases,
            trigger: result.stats.as_ref().and_then(|s| s.trigger),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A baseline written before model names were canonical may hold one
    /// model under several spellings: it is read whole (the highest of them
    /// is the best) and written back with one best per model.
    #[test]
    fn one_best_per_model_whatever_its_spelling() {
        let mut baseline = Baseline::empty("commit");
        baseline.best.insert(
            "opus".into(),
            BestEntry::bare(1.0, 0.5, None, "r1", "2026-01-01"),
        );
        baseline.best.insert(
            "OPUS".into(),
            BestEntry::bare(0.75, 0.5, None, "r2", "2026-01-02"),
        );
        baseline.best.insert(
            "haiku".into(),
            BestEntry::bare(0.5, 0.25, None, "r3", "2026-01-03"),
        );
        for spelling in ["opus", "OPUS", " Opus "] {
            assert_eq!(baseline.best_for(spelling).map(|b| b.score), Some(1.0));
        }
        assert_eq!(baseline.best_for("Haiku").map(|b| b.score), Some(0.5));
        assert!(baseline.best_for("sonnet").is_none());

        baseline.set_best(
            " OPUS",
            BestEntry::bare(1.0, 0.25, None, "r4", "2026-01-04"),
        );
        let names: Vec<&str> = baseline.best.keys().map(String::as_str).collect();
        assert_eq!(names, ["haiku", "opus"]);
        assert_eq!(baseline.best["opus"].run, "r4");
    }
}
