//! A document's `calibration`: each judged grader's record, and the scores
//! corrected for the labelled ones' errors over the very runs the document
//! counts ([`crate::stats::calibration::correct`]).

use crate::document::{CORRECTION_METHOD, Calibration, JudgeEntry};
use crate::platform::result::RunOutcome;
use crate::stats::calibration::{self, CaseRuns, GraderResult, Judge};
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

/// The `calibration` of a document over `cases` (their runs the platform
/// marked are left out, as the fold leaves them), from the judged graders'
/// `records`; `None` when none of these cases has a judged grader.
pub fn calibrate(cases: &[CountedCase], records: &[JudgeRecord]) -> Option<Calibration> {
    let mut graders = Vec::new();
    let mut runs = Vec::with_capacity(cases.len());
    for case in cases {
        let mut judges = BTreeMap::new();
        for r in records.iter().filter(|r| r.case == case.name) {
            let uncorrected = if r.record.labels == 0 {
                Some("no labels".to_string())
            } else {
                match Judge::of(&r.record, crate::stats::CONFIDENCE) {
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
                record: r.record.clone(),
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
        runs.push(CaseRuns {
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
