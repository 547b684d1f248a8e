//! [`Warning`]: what the operator must see that does not stop the command,
//! the soft counterpart of [`super::Error`]. The library returns warnings
//! inside its outcomes and events; only the front ends show them, each as
//! one [`Warning::line`].

use crate::diagnostic::Diagnostic;
use std::fmt;

/// Something the operator must see that does not stop the command.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// In words (what happened, and what it means for the work done).
    Said(String),
    /// A `check` finding that does not stop the run: its file, line and fix.
    Finding(Diagnostic),
}

impl Warning {
    /// A warning in words.
    pub fn new(words: impl Into<String>) -> Self {
        Warning::Said(words.into())
    }

    /// The one line it is shown as: `bob-eval: warning: …` (a finding:
    /// `bob-eval: FILE:LINE: warning: …`), made safe for a terminal.
    pub fn line(&self) -> String {
        format!("bob-eval: {}", crate::text::line(&self.to_string()))
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Said(words) => write!(f, "warning: {words}"),
            Warning::Finding(finding) => write!(f, "{finding}"),
        }
    }
}

impl From<Diagnostic> for Warning {
    fn from(finding: Diagnostic) -> Self {
        Warning::Finding(finding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warning_is_one_safe_line() {
        let said = Warning::new("the store is busy\n\u{1b}[2Jcleared");
        let line = said.line();
        assert!(
            line.starts_with("bob-eval: warning: the store is busy"),
            "{line}"
        );
        assert!(!line.contains('\n') && !line.contains('\u{1b}'), "{line:?}");
    }
}
