//! Why a result is partial: one enum for every place that says so, written
//! in documents as the words the platform and earlier versions used
//! (`cost_ceiling`, `run_errors: …`), so no schema changes.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a result is partial.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum PartialReason {
    /// The cost ceiling stopped the runs (`cost_ceiling`).
    CostCeiling,
    /// The platform's credential was rejected (`auth_failed`).
    AuthFailed,
    /// The platform exited with code 2 (partial) while its document said
    /// nothing of it (`platform_exit_2`).
    PlatformExit2,
    /// `--case`/`--tag` left some of the suite's cases out (`filtered`).
    Filtered,
    /// Runs the platform marked with an error or a mock aborted were not
    /// counted, or an arm is missing (`run_errors`, then `: ` and how many
    /// and the platform's words, when known).
    RunErrors(Option<String>),
    /// The platform said partial without saying why (`unspecified`).
    Unspecified,
    /// Another reason, in the platform's own words.
    Other(String),
}

/// The words of [`PartialReason::RunErrors`] before its details.
pub const RUN_ERRORS: &str = "run_errors";

impl PartialReason {
    /// The reason the platform's `partialReason` (or an empty one) means.
    pub fn from_platform(words: Option<&str>) -> PartialReason {
        match words.map(str::trim) {
            None | Some("") => PartialReason::Unspecified,
            Some(words) => PartialReason::from(words.to_string()),
        }
    }

    /// True for [`PartialReason::RunErrors`].
    pub fn is_run_errors(&self) -> bool {
        matches!(self, PartialReason::RunErrors(_))
    }
}

impl From<String> for PartialReason {
    fn from(words: String) -> PartialReason {
        match words.as_str() {
            "cost_ceiling" => PartialReason::CostCeiling,
            "auth_failed" => PartialReason::AuthFailed,
            "platform_exit_2" => PartialReason::PlatformExit2,
            "filtered" => PartialReason::Filtered,
            "unspecified" => PartialReason::Unspecified,
            RUN_ERRORS => PartialReason::RunErrors(None),
            _ => match words
                .strip_prefix(RUN_ERRORS)
                .and_then(|r| r.strip_prefix(':'))
            {
                Some(rest) => PartialReason::RunErrors(Some(rest.trim_start().to_string())),
                None => PartialReason::Other(words),
            },
        }
    }
}

impl From<&str> for PartialReason {
    fn from(words: &str) -> PartialReason {
        PartialReason::from(words.to_string())
    }
}

impl From<PartialReason> for String {
    fn from(reason: PartialReason) -> String {
        reason.to_string()
    }
}

impl fmt::Display for PartialReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartialReason::CostCeiling => f.write_str("cost_ceiling"),
            PartialReason::AuthFailed => f.write_str("auth_failed"),
            PartialReason::PlatformExit2 => f.write_str("platform_exit_2"),
            PartialReason::Filtered => f.write_str("filtered"),
            PartialReason::RunErrors(None) => f.write_str(RUN_ERRORS),
            PartialReason::RunErrors(Some(words)) => write!(f, "{RUN_ERRORS}: {words}"),
            PartialReason::Unspecified => f.write_str("unspecified"),
            PartialReason::Other(words) => f.write_str(words),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PartialReason;

    #[test]
    fn the_words_round_trip() {
        for words in [
            "cost_ceiling",
            "auth_failed",
            "platform_exit_2",
            "filtered",
            "unspecified",
            "run_errors",
            "run_errors: 1 of 2 runs ended on an error",
            "max_turns",
        ] {
            let reason = PartialReason::from(words.to_string());
            assert_eq!(reason.to_string(), words);
            let json = serde_json::to_string(&reason).unwrap();
            assert_eq!(json, format!("\"{words}\""));
            assert_eq!(
                serde_json::from_str::<PartialReason>(&json).unwrap(),
                reason
            );
        }
        assert!(PartialReason::from("run_errors: x".to_string()).is_run_errors());
        assert_eq!(
            PartialReason::from("run_errorsx".to_string()),
            PartialReason::Other("run_errorsx".into())
        );
        assert_eq!(
            PartialReason::from_platform(Some(" ")),
            PartialReason::Unspecified
        );
    }
}
