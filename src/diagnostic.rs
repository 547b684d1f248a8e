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

/// Every finding's code, written once: `check`'s rules, the suite loader's
/// problems and the traps each name theirs here, and `docs/check.md` is held
/// to this list by a test. A diagnostic carries the code's text.
macro_rules! codes {
    ($($variant:ident = $text:literal,)*) => {
        /// A finding's code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code {
            $(
                #[doc = concat!("`", $text, "`")]
                $variant,
            )*
        }

        impl Code {
            /// Every code, in the order written.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code's stable text (`unknown-key`, …).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                }
            }
        }
    };
}

codes! {
    BaselineFileInvalid = "baseline-file-invalid",
    BaselineInvalid = "baseline-invalid",
    CaseInMocks = "case-in-mocks",
    CaseNamePattern = "case-name-pattern",
    DuplicateCase = "duplicate-case",
    DuplicateGrader = "duplicate-grader",
    EmptyPrompt = "empty-prompt",
    EnvKey = "env-key",
    EvalDirIgnored = "eval-dir-ignored",
    FileTooLarge = "file-too-large",
    FiresNoTrigger = "fires-no-trigger",
    GatedTool = "gated-tool",
    GraderNoFrontmatter = "grader-no-frontmatter",
    InitPlaceholder = "init-placeholder",
    InvalidSuiteName = "invalid-suite-name",
    InvalidValue = "invalid-value",
    InvalidYaml = "invalid-yaml",
    ItemAmbiguous = "item-ambiguous",
    ItemMissingKey = "item-missing-key",
    ItemNameMismatch = "item-name-mismatch",
    ItemNoFrontmatter = "item-no-frontmatter",
    ManifestInvalid = "manifest-invalid",
    MissingFile = "missing-file",
    MissingKey = "missing-key",
    MissingType = "missing-type",
    MockEmpty = "mock-empty",
    MockInvalid = "mock-invalid",
    NoCases = "no-cases",
    NoFiresCase = "no-fires-case",
    NoGraders = "no-graders",
    NoItem = "no-item",
    NoManifest = "no-manifest",
    NoQuietCase = "no-quiet-case",
    NonUtf8Name = "non-utf8-name",
    NotAFile = "not-a-file",
    NotAMapping = "not-a-mapping",
    OutOfRange = "out-of-range",
    OverriddenKey = "overridden-key",
    PathEscape = "path-escape",
    QuietNoTrigger = "quiet-no-trigger",
    RegexBacktracking = "regex-backtracking",
    RegexFlags = "regex-flags",
    RegexInlineFlags = "regex-inline-flags",
    RegexInvalid = "regex-invalid",
    RegexTooComplex = "regex-too-complex",
    RegexTooSlow = "regex-too-slow",
    SchemaVersion = "schema-version",
    ScoredByTrigger = "scored-by-trigger",
    SimilarDescription = "similar-description",
    SkillMatchLoose = "skill-match-loose",
    Symlink = "symlink",
    TooDeep = "too-deep",
    ToolIsItem = "tool-is-item",
    TriggerMissesItem = "trigger-misses-item",
    TriggerTooBroad = "trigger-too-broad",
    TriggerUnpinned = "trigger-unpinned",
    UnknownGraderType = "unknown-grader-type",
    UnknownKey = "unknown-key",
    Unreadable = "unreadable",
    UnterminatedFrontmatter = "unterminated-frontmatter",
    WrongType = "wrong-type",
    YamlTooDeep = "yaml-too-deep",
    TriggerAdvice = "trigger-advice",
    FileUnwritable = "file-unwritable",
    ScaffoldScript = "scaffold-script",
    McpUnmocked = "mcp-unmocked",
    LabelsInvalid = "labels-invalid",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// A stable code (`unknown-key`, `regex-inline-flags`, …) for tools and
    /// tests: the text of a [`Code`].
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

#[cfg(test)]
mod tests {
    use super::Code;
    use std::collections::BTreeSet;

    /// The codes `docs/check.md` lists: every backticked code-like word of
    /// its paragraph "The codes are stable: …".
    fn documented() -> BTreeSet<&'static str> {
        let docs = include_str!("../docs/check.md");
        let start = docs
            .find("The codes are stable:")
            .expect("docs/check.md lists the codes");
        let para = &docs[start..];
        let para = &para[..para.find("\n\n").unwrap_or(para.len())];
        para.split('`')
            .skip(1)
            .step_by(2)
            .filter(|w| {
                w.starts_with(|c: char| c.is_ascii_lowercase())
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            })
            .collect()
    }

    #[test]
    fn every_code_is_written_once_and_documented() {
        let mut seen = BTreeSet::new();
        for code in Code::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "`{text}` twice");
            assert!(
                text.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{text}"
            );
        }
        // Both ways: each code is listed, and each listed code is one.
        let documented = documented();
        for text in &seen {
            assert!(
                documented.contains(text),
                "docs/check.md's list of codes does not name `{text}`"
            );
        }
        for text in &documented {
            assert!(
                seen.contains(text),
                "docs/check.md lists `{text}`, which is no diagnostic::Code"
            );
        }
    }
}
