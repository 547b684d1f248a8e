//! A finding about an input file: where, how bad, what is wrong and what to do.
//! `check` makes them, the suite loader reports its problems with them, and an
//! `Error::SuiteInvalid` carries them.

use camino::Utf8PathBuf;
use serde::Serialize;
use std::fmt;

/// How bad a finding is: errors fail `check` (exit 1), warnings and notes do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The platform would refuse or mis-score the suite.
    Error,
    /// Works, but needs attention (an operator grant, a missing item, …).
    Warning,
    /// Advice, not a problem: the suite works as written (a convention it
    /// could follow, with what to add).
    Note,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// A stable code (`unknown-key`, `regex-inline-flags`, …) for tools and tests.
    pub code: &'static str,
    /// The file (relative to the source in a check report).
    pub file: Utf8PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong, one line.
    pub message: String,
    /// What to do (for a note: what to add), one line.
    pub fix: String,
}

impl fmt::Display for Diagnostic {
    /// One line: `file:line: severity: message — fix: fix` (a note says
    /// `— to add:` instead of `— fix:`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.file)?,
            None => write!(f, "{}", self.file)?,
        }
        let label = match self.severity {
            Severity::Note => "to add",
            Severity::Error | Severity::Warning => "fix",
        };
        write!(
            f,
            ": {}: {} — {label}: {}",
            self.severity.as_str(),
            self.message,
            self.fix
        )
    }
}
