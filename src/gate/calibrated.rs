//! The judges' part of the gate (docs/gate.md, docs/judges.md): under the
//! confidence mode `helps-clearly` decides on the delta corrected for the
//! labelled judges' errors, and `--require-calibrated` refuses to call a
//! change clear while a judged grader is not calibrated.

use super::{Condition, Decision, Status, fail, pass};
use crate::document::SkillEval;
use crate::stats::calibration::Corrected;

/// The corrected delta, when the result carries one (some judged grader
/// had labels that could correct it).
pub fn corrected_delta(result: &SkillEval) -> Option<Corrected> {
    result
        .calibration
        .as_ref()
        .and_then(|c| c.corrected.as_ref())
        .map(|c| c.delta)
}

/// `helps-clearly` on the corrected delta at the one-sided `level` (`at`
/// in words), or `None` when the result has no corrected delta.
pub(super) fn helps_corrected(result: &SkillEval, level: f64, at: &str) -> Option<Condition> {
    let delta = corrected_delta(result)?;
    let bound = delta.value - crate::stats::interval::normal_quantile(level) * delta.se;
    let fmt = crate::document::fmt_score;
    let said = format!(
        "delta corrected for the labelled judges' errors {} (raw {}; Rogan–Gladen, its interval carrying the runs and the labels)",
        fmt(delta.value),
        fmt(result.delta)
    );
    Some(if bound > 0.0 {
        pass(
            "helps-clearly",
            format!(
                "{said} is clearly above 0 at {at} (one-sided bound {})",
                fmt(bound)
            ),
        )
    } else {
        fail(
            "helps-clearly",
            format!(
                "{said} is within noise at {at}: its one-sided bound {} is not above 0; more runs, or more labels, would narrow it",
                fmt(bound)
            ),
        )
    })
}

/// The `judges-calibrated` condition for `result`: every judged grader it
/// carries calibrated, each one that is not named with the command that
/// labels it.
pub fn calibrated_condition(result: &SkillEval) -> Condition {
    const NAME: &str = "judges-calibrated";
    let item = result.item.as_str();
    let Some(calibration) = &result.calibration else {
        let judged = result
            .cases
            .iter()
            .flat_map(|c| c.graders.iter().flatten())
            .any(|g| g.split_votes.is_some());
        return if judged {
            fail(
                NAME,
                format!(
                    "--require-calibrated: the result carries no judge records (written before them); run it again with this bob-eval after labelling: bob-eval label {item}"
                ),
            )
        } else {
            pass(NAME, "no judged grader: nothing to calibrate".into())
        };
    };
    let uncalibrated: Vec<String> = calibration
        .graders
        .iter()
        .filter(|g| !g.record.calibrated)
        .map(|g| {
            let r = &g.record;
            let why = match (r.labels, r.tpr, r.tnr) {
                (0, ..) if r.stale > 0 => format!(
                    "no current label ({})",
                    crate::suite::labels::stale_words(r.stale as usize)
                ),
                (0, ..) => "no labels".to_string(),
                (_, Some(tpr), Some(tnr)) => format!(
                    "{} labels, TPR lower bound {:.2}, TNR lower bound {:.2}, below {}",
                    r.labels, tpr.low, tnr.low, r.threshold
                ),
                (_, None, _) => format!("{} labels, none truly passing", r.labels),
                (_, _, None) => format!("{} labels, none truly failing", r.labels),
            };
            format!(
                "grader {} of case {} is not calibrated ({why}): bob-eval label {item} --case {} --grader {}",
                g.grader, g.case, g.case, g.grader
            )
        })
        .collect();
    if uncalibrated.is_empty() {
        pass(
            NAME,
            format!(
                "every judged grader is calibrated ({} of them)",
                calibration.graders.len()
            ),
        )
    } else {
        fail(
            NAME,
            format!(
                "--require-calibrated: a change is not called clear on a judge nobody checked; {}",
                uncalibrated.join("; ")
            ),
        )
    }
}

/// `decision` with the `judges-calibrated` condition (`--require-calibrated`,
/// or settings `_workflow.require_calibrated`): rejected when it fails, and
/// kept so that recording applies it again.
pub fn require_calibrated(mut decision: Decision, result: &SkillEval) -> Decision {
    let condition = calibrated_condition(result);
    let failed = condition.status == Status::Fail;
    decision.conditions.retain(|c| c.name != condition.name);
    // Right after `not-partial` (and `bought-here`): what the numbers rest on.
    let at = decision
        .conditions
        .iter()
        .position(|c| !matches!(c.name, "not-partial" | "bought-here"))
        .unwrap_or(decision.conditions.len());
    decision.conditions.insert(at, condition);
    decision.accepted &= !failed;
    decision.require_calibrated = true;
    decision
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{CORRECTION_METHOD, Calibration, JudgeEntry};
    use crate::stats::calibration::{CorrectedScores, Pair, record};

    fn judge(calibrated: bool) -> JudgeEntry {
        let n = if calibrated { 20 } else { 5 };
        let pairs: Vec<Pair> = (0..2 * n)
            .map(|i| Pair {
                human: i % 2 == 0,
                judge: i % 2 == 0,
            })
            .collect();
        JudgeEntry {
            case: "fires".into(),
            grader: "polite".into(),
            record: record(&pairs, 0.95, 0.8),
            uncorrected: None,
        }
    }

    fn doc(graders: Vec<JudgeEntry>, delta: Option<(f64, f64)>) -> SkillEval {
        let corrected = delta.map(|(value, se)| {
            let c = Corrected {
                value,
                low: value - 1.96 * se,
                high: value + 1.96 * se,
                se,
                clamped: false,
            };
            CorrectedScores {
                with: c,
                without: c,
                delta: c,
                cases: vec![],
                confidence: 0.95,
            }
        });
        SkillEval {
            calibration: Some(Calibration {
                graders,
                corrected,
                method: CORRECTION_METHOD.into(),
            }),
            ..SkillEval::sample(0.9, 0.5)
        }
    }

    #[test]
    fn an_uncalibrated_judge_is_refused_with_the_command_to_fix_it() {
        let result = doc(vec![judge(false)], None);
        let d = require_calibrated(
            crate::gate::decide(&result, &crate::document::Baseline::empty("commit")),
            &result,
        );
        assert!(!d.accepted);
        let c = d
            .conditions
            .iter()
            .find(|c| c.name == "judges-calibrated")
            .unwrap();
        assert_eq!(c.status, Status::Fail);
        assert!(
            c.text
                .contains("bob-eval label commit --case fires --grader polite"),
            "{}",
            c.text
        );
        assert!(d.require_calibrated);
    }

    #[test]
    fn a_calibrated_judge_passes_and_no_judge_passes() {
        let result = doc(vec![judge(true)], None);
        assert_eq!(calibrated_condition(&result).status, Status::Pass);
        let none = SkillEval::sample(0.9, 0.5);
        assert_eq!(calibrated_condition(&none).status, Status::Pass);
    }

    #[test]
    fn helps_clearly_reads_the_corrected_delta() {
        let clear = doc(vec![judge(true)], Some((0.3, 0.1)));
        let c = helps_corrected(&clear, 0.95, "95 %").unwrap();
        assert_eq!(c.status, Status::Pass, "{}", c.text);
        assert!(c.text.contains("corrected"), "{}", c.text);
        let noisy = doc(vec![judge(true)], Some((0.1, 0.1)));
        assert_eq!(
            helps_corrected(&noisy, 0.95, "95 %").unwrap().status,
            Status::Fail
        );
        assert!(helps_corrected(&SkillEval::sample(0.9, 0.5), 0.95, "95 %").is_none());
    }
}
