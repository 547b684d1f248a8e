//! One grader of a case in the document: its passes per arm, what they mean (`GraderReading`), and why it first failed.

use super::{CaseEval, Deserialize, Serialize, SkillEval};

/// The longest explanation a [`GraderEval`] keeps, in characters.
pub const MAX_EXPLANATION: usize = 300;

/// One grader of a case: how it did on each arm, and why it first failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraderEval {
    /// The grader's name.
    pub name: String,
    /// `scored` (counts toward the score) or `with-only` (an indicator of the with arm).
    pub kind: GraderRole,
    /// Passes and results on the with arm.
    pub with: ArmCount,
    /// Passes and results on the without arm (absent when it has none there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub without: Option<ArmCount>,
    /// True when the grader itself threw on some run (`grader threw: …`): a
    /// fault of the suite, not of the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub error: bool,
    /// The platform's explanation of its first failure (the first error, if
    /// it threw), at most [`MAX_EXPLANATION`] characters; absent when it never failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// How often an llm grader's judge split its votes, over both arms' runs
    /// that carried votes; absent for graders with no votes (and old documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split_votes: Option<SplitVotes>,
}

/// An llm grader's split votes: runs whose judge votes were not unanimous, out
/// of the runs that carried votes, with a 95 % Wilson interval on the rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SplitVotes {
    /// Runs (both arms, counted) whose grader result carried judge votes.
    pub runs: u32,
    /// Of those, runs whose votes were not unanimous.
    pub split: u32,
    /// `split / runs`.
    pub rate: f64,
    /// Lower limit of the 95 % Wilson interval on the rate.
    pub low: f64,
    /// Upper limit of the 95 % Wilson interval on the rate.
    pub high: f64,
}

/// The lower limit above which a grader's split-vote rate is flagged: its
/// judge splits in at least 1 run in 10, beyond doubt (see docs/judges.md).
pub const SPLIT_VOTE_ALARM: f64 = 0.10;

impl SplitVotes {
    /// True when the interval's lower limit exceeds [`SPLIT_VOTE_ALARM`].
    pub fn is_alarming(&self) -> bool {
        self.low > SPLIT_VOTE_ALARM
    }
}

/// A grader's role in the score (the document's `kind`): counted, or a
/// with-only indicator. Not `suite::GraderKind`, which is its `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GraderRole {
    /// Counts toward the run's score.
    Scored,
    /// A with-only indicator (the platform's `withOnly`): not scored.
    WithOnly,
}

/// A grader's passes out of its results on one arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArmCount {
    /// Results that passed.
    pub passed: u32,
    /// Results in all (runs that reported the grader).
    pub runs: u32,
}

impl GraderRole {
    /// `scored` or `with-only`, as the document writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            GraderRole::Scored => "scored",
            GraderRole::WithOnly => "with-only",
        }
    }
}

/// What a case scored by its trigger graders alone means, in words.
pub fn scored_by_trigger_words(case: &str) -> String {
    format!(
        "case `{case}` was scored by its trigger graders alone: its score says whether the item fired, not what it did (up to +1.00 of delta for firing alone); add a grader of what the item teaches"
    )
}

impl SkillEval {
    /// The cases the platform scored by their trigger graders alone.
    pub fn scored_by_trigger(&self) -> impl Iterator<Item = &CaseEval> {
        self.cases.iter().filter(|c| c.scored_by_trigger)
    }
}

impl CaseEval {
    /// The graders that threw on some run: faults of the suite, not the model.
    pub fn grader_errors(&self) -> impl Iterator<Item = &GraderEval> {
        self.graders.iter().flatten().filter(|g| g.error)
    }
}

/// What a failed grader says when the platform gave no explanation.
pub const NO_EXPLANATION: &str = "no explanation given";

/// What a grader's passes on the two arms say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraderReading {
    /// It threw on some run: an error of the suite, not of the model.
    Threw,
    /// A with-only indicator (no without arm, by design) that held on every run.
    IndicatorHeld,
    /// A with-only indicator that failed on some with-arm run.
    IndicatorFailed,
    /// Scored, with no without-arm result: passed on every with-arm run.
    PassedWith,
    /// Scored, with no without-arm result: failed on some with-arm run.
    FailedWith,
    /// Passes more often with the item than without: what a good grader does.
    TellsApart,
    /// Passes on every run of both arms: it does not tell the arms apart.
    PassesBoth,
    /// Fails on every run of both arms.
    FailsBoth,
    /// Passes more often without the item than with it.
    BetterWithout,
    /// Passes as often on both arms, on some runs only.
    NoDifference,
}

impl GraderReading {
    /// True when the grader failed where it should pass: on the with arm
    /// (or threw). A with-only grader has no without arm, and a grader that
    /// passes only with the item does its job: neither is a failure.
    pub fn is_failure(self, g: &GraderEval) -> bool {
        match self {
            GraderReading::Threw
            | GraderReading::IndicatorFailed
            | GraderReading::FailedWith
            | GraderReading::FailsBoth
            | GraderReading::BetterWithout
            | GraderReading::NoDifference => true,
            GraderReading::TellsApart => g.with.passed < g.with.runs,
            GraderReading::IndicatorHeld
            | GraderReading::PassedWith
            | GraderReading::PassesBoth => false,
        }
    }

    /// What it means, in words.
    pub fn words(self) -> &'static str {
        match self {
            GraderReading::Threw => {
                "the grader threw, an error of the suite (not the model failing)"
            }
            GraderReading::IndicatorHeld => "with-only indicator, held (no without arm, by design)",
            GraderReading::IndicatorFailed => {
                "with-only indicator, failed with the item (no without arm, by design)"
            }
            GraderReading::PassedWith => "passed with the item (no without-arm result)",
            GraderReading::FailedWith => "failed with the item (no without-arm result)",
            GraderReading::TellsApart => "tells the arms apart (passes more with the item)",
            GraderReading::PassesBoth => "passes on both arms: it does not measure the item",
            GraderReading::FailsBoth => "fails on both arms",
            GraderReading::BetterWithout => "does better without the item",
            GraderReading::NoDifference => "passes as often without the item",
        }
    }
}

impl GraderEval {
    /// What its passes per arm say.
    pub fn reading(&self) -> GraderReading {
        if self.error {
            return GraderReading::Threw;
        }
        let all_with = self.with.passed == self.with.runs;
        let Some(without) = self.without.filter(|w| w.runs > 0) else {
            return match (self.kind, all_with) {
                (GraderRole::WithOnly, true) => GraderReading::IndicatorHeld,
                (GraderRole::WithOnly, false) => GraderReading::IndicatorFailed,
                (GraderRole::Scored, true) => GraderReading::PassedWith,
                (GraderRole::Scored, false) => GraderReading::FailedWith,
            };
        };
        if self.with.runs == 0 {
            return GraderReading::FailedWith;
        }
        // Compare pass rates exactly: a/b against c/d as a*d against c*b.
        let with = u64::from(self.with.passed) * u64::from(without.runs);
        let wo = u64::from(without.passed) * u64::from(self.with.runs);
        match with.cmp(&wo) {
            std::cmp::Ordering::Greater => GraderReading::TellsApart,
            std::cmp::Ordering::Less => GraderReading::BetterWithout,
            std::cmp::Ordering::Equal if all_with => GraderReading::PassesBoth,
            std::cmp::Ordering::Equal if self.with.passed == 0 => GraderReading::FailsBoth,
            std::cmp::Ordering::Equal => GraderReading::NoDifference,
        }
    }

    /// True when it failed where it should pass ([`GraderReading::is_failure`]).
    pub fn is_failure(&self) -> bool {
        self.reading().is_failure(self)
    }

    /// The arm its kept failure words come from: the with arm when it failed
    /// there (the runs are read with arm first), else the without arm.
    pub fn failure_arm(&self) -> &'static str {
        if self.with.passed < self.with.runs {
            "with the item"
        } else {
            "without the item"
        }
    }

    /// Why it failed, in the platform's words (or [`NO_EXPLANATION`]).
    pub fn why(&self) -> &str {
        self.failure.as_deref().unwrap_or(NO_EXPLANATION)
    }
}

/// `text` cut to [`MAX_EXPLANATION`] characters (the last one `…`), on one line.
pub fn bounded_explanation(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::clip(&one_line, MAX_EXPLANATION).into_owned()
}
