//! The `skill-eval-baseline/1` document: the best accepted result per model, and the evidence it was measured on.

use super::*;

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
