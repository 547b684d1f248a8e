//! A document's `calibration`: each judged grader's record, and the scores
//! corrected for the labelled ones' errors over the very runs the document
//! counts ([`crate::stats::calibration::correct`]).

use crate::document::{CORRECTION_METHOD, Calibration, JudgeEntry};
use crate::platform::result::RunOutcome;
use crate::stats::calibration::{self, GradedCase, GraderResult, Judge};
use crate::suite::judges::JudgeRecord;
use std::collections::BTreeMap;

/// One case's counted runs per arm, as the document counts them.
#[derive(Debug, Clone)]
pub struct CountedCase<'a> {
    /// The case's name.
    pub name: &'a str,
    /// With-arm runs.
    pub with: Vec<&'a RunOutcome>,
    /// Without-arm runs.
    pub without: Vec<&'a RunOutcome>,
}

/// `r`'s record with its labels weighted back to `case`'s runs: the labels
/// of a stratum (arm × the judge's verdict, as `label` draws them) stand
/// for the counted runs of that stratum over its labels. As given when the
/// weights would all be equal, or when a labelled stratum has no run here
/// (labels of other runs: the strata cannot be told apart).
fn weighted_back(r: &JudgeRecord, case: &CountedCase) -> calibration::Record {
    let stratum = |arm: &str, judge: bool| (arm == "with", judge);
    let mut runs: BTreeMap<(bool, bool), f64> = BTreeMap::new();
    for (arm, list) in [("with", &case.with), ("without", &case.without)] {
        for run in list.iter().filter(|run| run.fault().is_none()) {
            for g in run.graders.iter().filter(|g| g.name == r.grader) {
                *runs.entry(stratum(arm, g.passed)).or_default() += 1.0;
            }
        }
    }
    let mut labelled: BTreeMap<(bool, bool), f64> = BTreeMap::new();
    for (arm, pair) in &r.labels {
        *labelled.entry(stratum(arm, pair.judge)).or_default() += 1.0;
    }
    let weight = |s: &(bool, bool)| runs.get(s).copied().unwrap_or(0.0) / labelled[s];
    let weights: Vec<f64> = r
        .labels
        .iter()
        .map(|(arm, pair)| weight(&stratum(arm, pair.judge)))
        .collect();
    let uneven = weights.iter().any(|w| (w - weights[0]).abs() > 1e-9);
    if r.labels.is_empty() || !uneven || weights.iter().any(|w| *w <= 0.0) {
        return r.record.clone();
    }
    let pairs: Vec<calibration::Pair> = r.labels.iter().map(|(_, p)| *p).collect();
    calibration::Record {
        stale: r.record.stale,
        other_models: r.record.other_models,
        unmodelled: r.record.unmodelled,
        ..calibration::record_weighted(
            &pairs,
            Some(&weights),
            r.record.confidence,
            r.record.threshold,
        )
    }
}

/// The `calibration` of a document over `cases` (their runs the platform
/// marked are left out, as the fold leaves them), from the judged graders'
/// `records`; `None` when none of these cases has a judged grader.
pub fn calibrate(cases: &[CountedCase], records: &[JudgeRecord]) -> Option<Calibration> {
    let mut graders = Vec::new();
    let mut runs = Vec::with_capacity(cases.len());
    for case in cases {
        let mut judges = BTreeMap::new();
        for r in records.iter().filter(|r| r.case == case.name) {
            let record = weighted_back(r, case);
            let uncorrected = if record.labels == 0 {
                Some("no labels".to_string())
            } else {
                match Judge::of(&record, crate::stats::CONFIDENCE) {
                    Ok(judge) => {
                        judges.insert(r.grader.clone(), judge);
                        None
                    }
                    Err(why) => Some(why.to_string()),
                }
            };
            graders.push(JudgeEntry {
                case: r.case.clone(),
                grader: r.grader.clone(),
                record,
                uncorrected,
            });
        }
        let arm = |runs: &[&RunOutcome]| -> Vec<Vec<GraderResult>> {
            runs.iter()
                .filter(|r| r.fault().is_none())
                .map(|r| {
                    r.graders
                        .iter()
                        .filter(|g| g.scored)
                        .map(|g| GraderResult {
                            name: g.name.clone(),
                            weight: g.weight,
                            passed: g.passed,
                        })
                        .collect()
                })
                .collect()
        };
        runs.push(GradedCase {
            name: case.name.to_string(),
            with: arm(&case.with),
            without: arm(&case.without),
            judges,
        });
    }
    if graders.is_empty() {
        return None;
    }
    let any_judge = runs.iter().any(|c| !c.judges.is_empty());
    let corrected = any_judge
        .then(|| calibration::correct(&runs, crate::stats::CONFIDENCE))
        .flatten()
        .map(calibration::CorrectedScores::rounded);
    Some(Calibration {
        graders,
        corrected,
        method: CORRECTION_METHOD.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::result::PlatformResult;
    use crate::stats::calibration::Pair;
    use serde_json::json;

    /// One case `a`: the judged grader `j` passing `passes.0` of 10 with-arm
    /// runs and `passes.1` of 10 without-arm runs.
    fn result(passes: (usize, usize)) -> PlatformResult {
        let arm = |n: usize| -> Vec<serde_json::Value> {
            (0..10)
                .map(|i| json!({"score": if i < n {1.0} else {0.0}, "costUsd": 0.01,
                    "graders": [{"name": "j", "passed": i < n, "judgeVotes": [i < n, i < n, i < n]}]}))
                .collect()
        };
        serde_json::from_value(json!({
            "schemaVersion": 1, "startedAt": "2026-12-02T09:39:15.075Z", "costUsd": 0.1, "partial": false,
            "suite": {"ablation": "with-without", "plugins": [{"name": "bob-eval-commit"}]},
            "cases": [{"name": "a", "graders": [], "arms": {"with": arm(passes.0), "without": arm(passes.1)}}],
        }))
        .unwrap()
    }

    /// Two labels from each stratum arm × judge verdict; the person agrees
    /// with the judge but on one run it passed in the with arm.
    fn judge_record() -> JudgeRecord {
        let mut labels = Vec::new();
        for arm in ["with", "without"] {
            for judge in [true, false] {
                for k in 0..2 {
                    let human = if arm == "with" && judge && k == 0 {
                        false
                    } else {
                        judge
                    };
                    labels.push((arm.to_string(), Pair { human, judge }));
                }
            }
        }
        let pairs: Vec<Pair> = labels.iter().map(|(_, p)| *p).collect();
        JudgeRecord {
            case: "a".into(),
            grader: "j".into(),
            file: "evals/commit/a/graders/j.labels.json".into(),
            record: calibration::record(&pairs, 0.95, 0.8),
            labels,
        }
    }

    fn calibrated(passes: (usize, usize)) -> Calibration {
        let result = result(passes);
        let typed = result.cases("<r>".into(), None).unwrap();
        let case = CountedCase {
            name: &typed[0].name,
            with: typed[0].with.iter().collect(),
            without: typed[0].without.iter().collect(),
        };
        calibrate(&[case], &[judge_record()]).unwrap()
    }

    #[test]
    fn labels_are_weighted_back_to_the_strata_they_were_drawn_from() {
        // 8 + 2 runs the judge passed, 2 + 8 it failed: the strata differ,
        // so each label stands for its stratum's runs.
        let c = calibrated((8, 2));
        let record = &c.graders[0].record;
        assert!(record.weighted.is_some(), "{record:?}");
        // Truly failing labels: the false pass (with × pass: 8 runs over 2
        // labels, weight 4), two of with × fail (weight 1), two of
        // without × fail (weight 4).
        let tnr = record.tnr.unwrap().value;
        let expected = (2.0 * 1.0 + 2.0 * 4.0) / (4.0 + 2.0 * 1.0 + 2.0 * 4.0);
        assert!((tnr - expected).abs() < 1e-12, "{tnr} vs {expected}");
        assert_eq!(record.labels, 8);
        let corrected = c.corrected.unwrap();
        assert!(corrected.delta.value > 0.0 && corrected.delta.se > 0.0);
        assert_eq!(c.graders[0].uncorrected, None);
    }

    #[test]
    fn even_strata_count_the_labels_as_given() {
        let c = calibrated((5, 5));
        assert_eq!(c.graders[0].record, judge_record().record);
    }
}
