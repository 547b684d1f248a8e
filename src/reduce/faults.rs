//! Runs the platform marked (`error` set, or `aborted` by a mock): their words, and the document's `run_errors` reason; such a run never counts.

use super::*;

impl PlatformRun {
    /// Why the platform marked this run (its `error`, else its `aborted`), in
    /// its own words on one line; `None` for a run that ended normally. A
    /// marked run never counts toward a score, graded or not.
    pub fn fault(&self) -> Option<String> {
        marked(self.error.as_ref())
            .or_else(|| marked(self.aborted.as_ref()).map(|why| format!("aborted: {why}")))
    }
}

/// The words of an `error` or `aborted` value: `None` for absent, null or false.
pub fn marked(value: Option<&serde_json::Value>) -> Option<String> {
    match value? {
        serde_json::Value::Null | serde_json::Value::Bool(false) => None,
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(o) => {
            // A mock's stop: `{server, tool, reason}`.
            let part = |k: &str| o.get(k).and_then(|v| v.as_str()).unwrap_or_default();
            let (server, tool, reason) = (part("server"), part("tool"), part("reason"));
            Some(if reason.is_empty() {
                serde_json::Value::Object(o.clone()).to_string()
            } else {
                format!("{server}/{tool}: {reason}")
            })
        }
        other => Some(other.to_string()),
    }
}

/// Runs the platform marked with an error (or aborted): how many of how
/// many, and the first one's words. They never count toward a score.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunFaults {
    /// Runs marked.
    pub errored: usize,
    /// Runs in all (marked or not).
    pub total: usize,
    /// The platform's words for the first marked run.
    pub first: Option<String>,
}

/// The partial reason of a document with runs that are not comparable (an
/// arm missing, or runs the platform marked with an error: then
/// `run_errors: …` says how many and why).
pub const RUN_ERRORS: &str = "run_errors";

/// True for a [`RUN_ERRORS`] reason, with or without its words.
pub fn is_run_errors(reason: &str) -> bool {
    reason
        .strip_prefix(RUN_ERRORS)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
}

/// The longest part of the platform's words a partial reason quotes.
pub(super) const MAX_FAULT_WORDS: usize = 160;

impl RunFaults {
    /// Count `run`; `fault` is its [`PlatformRun::fault`].
    pub fn add(&mut self, fault: Option<String>) {
        self.total += 1;
        if let Some(words) = fault {
            self.errored += 1;
            self.first.get_or_insert(words);
        }
    }

    /// Add `other`'s counts.
    pub fn merge(&mut self, other: &RunFaults) {
        self.errored += other.errored;
        self.total += other.total;
        if self.first.is_none() {
            self.first.clone_from(&other.first);
        }
    }

    /// The partial reason when some run was marked: `run_errors: …` saying how
    /// many, whether that is every run, and the platform's words (control
    /// characters and line breaks removed, bounded).
    pub fn reason(&self) -> Option<String> {
        if self.errored == 0 {
            return None;
        }
        let words = self.first.as_deref().map(sanitized).unwrap_or_default();
        let how_many = if self.errored == self.total {
            format!(
                "every run ({} of {}) ended on an error, so nothing was measured",
                self.errored, self.total
            )
        } else {
            format!(
                "{} of {} runs ended on an error and were not counted",
                self.errored, self.total
            )
        };
        Some(format!(
            "{RUN_ERRORS}: {how_many}; the platform said: {words}"
        ))
    }
}

/// `text` on one line with no control characters, at most
/// [`MAX_FAULT_WORDS`] characters (the last one `…` when cut).
pub(super) fn sanitized(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let one_line = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::clip(&one_line, MAX_FAULT_WORDS).into_owned()
}
