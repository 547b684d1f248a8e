//! A document's judged graders: each one's record against its labels and
//! the scores corrected for their errors (`calibration`, optional:
//! docs/judges.md, docs/statistics.md "Judge calibration").

use crate::stats::calibration::{CorrectedScores, Record};
use serde::{Deserialize, Serialize};

/// How the corrected scores are computed, as documents say it.
pub const CORRECTION_METHOD: &str =
    "rogan-gladen per labelled grader; delta-method interval over runs and labels";

/// Each judged grader of the document's cases and the corrected scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Every judged grader, in suite order.
    pub graders: Vec<JudgeEntry>,
    /// The suite's and each case's with, without and delta, corrected for
    /// the labelled graders' errors; absent when no grader could be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected: Option<CorrectedScores>,
    /// [`CORRECTION_METHOD`].
    pub method: String,
}

/// One judged grader's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeEntry {
    /// The case.
    pub case: String,
    /// The grader, as `cases[].graders[].name` names it.
    pub grader: String,
    /// Its record over the labels for its current criterion.
    pub record: Record,
    /// Why its pass rate is not corrected, when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncorrected: Option<String>,
}

impl Calibration {
    /// True when some judged grader is not calibrated.
    pub fn any_uncalibrated(&self) -> bool {
        self.graders.iter().any(|g| !g.record.calibrated)
    }
}
