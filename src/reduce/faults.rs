//! Runs the platform marked (`error` set, or `aborted` by a mock): their words, and the document's `run_errors` reason; such a run never counts.

use crate::document::PartialReason;

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

/// The longest part of the platform's words a partial reason quotes.
pub(super) const MAX_FAULT_WORDS: usize = 160;

impl RunFaults {
    /// Count a run; `fault` is its error, if it has one.
    pub fn add(&mut self, fault: Option<&str>) {
        self.total += 1;
        if let Some(words) = fault {
            self.errored += 1;
            self.first.get_or_insert_with(|| words.to_string());
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
    pub fn reason(&self) -> Option<PartialReason> {
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
        Some(PartialReason::RunErrors(Some(format!(
            "{how_many}; the platform said: {words}"
        ))))
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
