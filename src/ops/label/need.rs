//! How many labels a grader's calibration still needs: the threshold is
//! reached when the lower limits of the 95 % Wilson intervals on the judge's
//! TPR (agreement on the runs the person passed) and TNR (on the runs the
//! person failed) both reach [`THRESHOLD`] (docs/judges.md).

use crate::suite::labels::{Label, LabelVerdict};
use serde::Serialize;

/// The lower limit both TPR and TNR must reach for a calibrated judge: the
/// one rule `check` and the documents apply ([`crate::stats::calibration`]).
pub const THRESHOLD: f64 = crate::stats::calibration::DEFAULT_THRESHOLD;

/// The confidence of the intervals held to [`THRESHOLD`].
pub const CONFIDENCE: f64 = crate::stats::CONFIDENCE;

/// Seconds a person takes to label one run, for the time estimate: reading
/// the criterion and an answer, deciding (an assumption, stated with it).
pub const SECONDS_PER_LABEL: u32 = 30;

/// One class of labels (the person said PASS, or FAIL) and what it needs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClassNeed {
    /// Labels of this class.
    pub labels: u32,
    /// Of those, the runs where the judge agreed.
    pub agreed: u32,
    /// `agreed / labels` (TPR for PASS, TNR for FAIL); `None` with no labels.
    pub rate: Option<f64>,
    /// The lower limit of its 95 % Wilson interval (0 with no labels).
    pub low: f64,
    /// Labels of this class in all for the lower limit to reach the
    /// threshold if the judge keeps agreeing at `rate` (at 1 with no labels
    /// yet); `None` when it cannot at that rate.
    pub total_needed: Option<u32>,
    /// Of those, how many more than `labels`.
    pub more: Option<u32>,
}

/// What a grader's labels say about its calibration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Need {
    /// Runs the person passed (the judge's TPR is measured on them).
    pub pass: ClassNeed,
    /// Runs the person failed (the judge's TNR).
    pub fail: ClassNeed,
    /// Both lower limits reach the threshold.
    pub reached: bool,
    /// Both can reach it at the current agreement (with enough labels).
    pub reachable: bool,
    /// Labels per judge verdict, for the record: `[judge pass, judge fail]`.
    pub by_judge: [u32; 2],
}

impl Need {
    /// More labels in all (both classes), when both can reach the threshold.
    pub fn more(&self) -> Option<u32> {
        Some(self.pass.more? + self.fail.more?)
    }

    /// The person's time for [`Need::more`] labels, in minutes (rounded up).
    pub fn minutes(&self) -> Option<u32> {
        self.more().map(|n| (n * SECONDS_PER_LABEL).div_ceil(60))
    }
}

/// What `labels` (the current ones) say about reaching the threshold.
pub fn need(labels: &[&Label]) -> Need {
    let class = |human: LabelVerdict| {
        let of: Vec<_> = labels.iter().filter(|l| l.human == human).collect();
        let n = of.len() as u32;
        let agreed = of.iter().filter(|l| l.judge == human).count() as u32;
        class_need(agreed, n)
    };
    let (pass, fail) = (class(LabelVerdict::Pass), class(LabelVerdict::Fail));
    let judged = |v: LabelVerdict| labels.iter().filter(|l| l.judge == v).count() as u32;
    Need {
        pass,
        fail,
        reached: pass.low >= THRESHOLD && fail.low >= THRESHOLD,
        reachable: pass.total_needed.is_some() && fail.total_needed.is_some(),
        by_judge: [judged(LabelVerdict::Pass), judged(LabelVerdict::Fail)],
    }
}

/// The need of one class with `agreed` of `n`: the total from
/// [`crate::stats::calibration::labels_needed_from`], the one search.
pub fn class_need(agreed: u32, n: u32) -> ClassNeed {
    let low = if n == 0 {
        0.0
    } else {
        crate::stats::wilson_at(agreed, n, CONFIDENCE).low
    };
    let rate = (n > 0).then(|| f64::from(agreed) / f64::from(n));
    let total_needed =
        crate::stats::calibration::labels_needed_from(agreed, n, THRESHOLD, CONFIDENCE);
    ClassNeed {
        labels: n,
        agreed,
        rate,
        low,
        total_needed,
        more: total_needed.map(|t| t.saturating_sub(n)),
    }
}
