//! The one error type of the library and the exit codes every command shares.
//!
//! Each variant carries what the user must see: the file (and line where known),
//! what is wrong, and what to do. [`exit::code`] is the only place an
//! error, or a command's outcome, becomes a process exit code.

use crate::diagnostic::Diagnostic;
use camino::Utf8PathBuf;
use std::fmt;

pub mod exit;
pub mod interrupt;
mod warning;

pub use warning::Warning;

/// A location in a file, for messages like `evals/commit/fires/prompt.md:3`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file.
    pub path: Utf8PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
}

impl Location {
    /// A location without a line.
    pub fn file(path: impl Into<Utf8PathBuf>) -> Self {
        Self {
            path: path.into(),
            line: None,
        }
    }
    /// A location at a 1-based line.
    pub fn at(path: impl Into<Utf8PathBuf>, line: usize) -> Self {
        Self {
            path: path.into(),
            line: Some(line),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.path),
            None => write!(f, "{}", self.path),
        }
    }
}

/// Everything that can stop a bob-eval command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad flags or values on the command line.
    #[error("{0}")]
    Usage(String),

    /// An item name that is not `^[a-z0-9][a-z0-9-]{{0,63}}$`.
    #[error(
        "invalid item name {name:?}: use lower-case letters, digits and '-', starting with a letter or digit, at most 64 characters"
    )]
    InvalidItemName {
        /// The name as given.
        name: String,
    },

    /// No item file for the name.
    #[error("no item named {name:?} in {source_dir}{}; looked for:\n{}", meant(.suggestion), list(.looked))]
    ItemNotFound {
        /// The name.
        name: String,
        /// The nearest existing item name, when one is close.
        suggestion: Option<String>,
        /// The source tree searched.
        source_dir: Utf8PathBuf,
        /// Every place looked at.
        looked: Vec<Utf8PathBuf>,
    },

    /// Two or more item files for the name.
    #[error("ambiguous item {name:?}: found at\n{}\nrename or remove all but one", list(.found))]
    ItemAmbiguous {
        /// The name.
        name: String,
        /// Every place it was found.
        found: Vec<Utf8PathBuf>,
    },

    /// An item without a suite at `evals/<item>/`.
    #[error(
        "no eval suite for {item:?}: {dir} does not exist{}; create it with `bob-eval init {item}`",
        meant(.suggestion)
    )]
    NoSuite {
        /// The item.
        item: String,
        /// The nearest existing suite name, when one is close.
        suggestion: Option<String>,
        /// Where the suite should be.
        dir: Utf8PathBuf,
    },

    /// A suite with problems `bob-eval check` finds: refused before anything is spent.
    #[error(
        "evals/{item} has {errors} problem(s) that would waste the run; fix them first (`bob-eval check {item}`):\n{}",
        findings(.diagnostics)
    )]
    SuiteInvalid {
        /// The item.
        item: String,
        /// How many error-severity findings.
        errors: usize,
        /// Every finding, errors and warnings, paths relative to the source.
        diagnostics: Vec<Diagnostic>,
    },

    /// An input file that is not what it must be (bad JSON, fails its schema, …).
    #[error("{at}: {message}")]
    InvalidInput {
        /// Where.
        at: Location,
        /// What is wrong and what to do.
        message: String,
    },

    /// A file operation on bob-eval's own work failed (a temp folder, a write,
    /// a lock): not the user's input, so "could not run" (exit 3). An input
    /// file the user named that cannot be read is [`Error::unreadable`] (exit 2).
    #[error("{path}: {action}: {source}")]
    Io {
        /// The file or folder.
        path: Utf8PathBuf,
        /// What was being done ("reading", "writing", …).
        action: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },

    /// `claude` could not be found or started.
    #[error("the platform is missing: {0}")]
    PlatformMissing(String),

    /// `claude --version` is below the minimum.
    #[error(
        "{path} is Claude Code {found}; bob-eval needs {needed} or later for `claude plugin eval`: upgrade with `npm install -g @anthropic-ai/claude-code`"
    )]
    PlatformTooOld {
        /// The binary.
        path: Utf8PathBuf,
        /// The version it reported.
        found: String,
        /// The minimum.
        needed: &'static str,
    },

    /// The platform ran but failed (exit 1, a crash, no result, auth failure, …).
    #[error("the platform failed: {message}{}", lines(.details))]
    PlatformFailed {
        /// One-line cause.
        message: String,
        /// The platform's own error lines, if any.
        details: Vec<String>,
    },

    /// The platform ran but did not load the item's plugin.
    #[error("the plugin did not load: {0}")]
    PluginNotLoaded(String),

    /// A Rhai pipeline failed to compile or run.
    #[error("{at}: {message}")]
    Script {
        /// Script path, line (column in the message).
        at: Location,
        /// The script error.
        message: String,
    },

    /// SIGINT (Ctrl-C), SIGTERM, SIGHUP or SIGQUIT ([`interrupt`]), or a
    /// platform that reports it was interrupted.
    #[error("interrupted")]
    Interrupted,

    /// A sweep's suite left unlaunched: the sweep had spent its `--max-total-usd`
    /// (or held it back for the suites in flight).
    #[error("not launched: the sweep had spent ${spent:.2} of its --max-total-usd ${budget:.2}")]
    BudgetSpent {
        /// What the sweep had spent, and held back for suites in flight, when the suite's turn came.
        spent: f64,
        /// The budget.
        budget: f64,
    },

    /// Stdout's reader went away (`bob-eval check | head -1`); the binary ends quietly.
    #[error("the output pipe was closed")]
    BrokenPipe,
    /// The evidence store cannot be used: corrupt, locked, read-only, written
    /// by a newer bob-eval, or the disk failed. Could not run, not bad input.
    #[error("evidence store {path}: {message}")]
    Store {
        /// The database file.
        path: Utf8PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
}

/// `; did you mean `x`?` for a suggestion, else nothing.
fn meant(suggestion: &Option<String>) -> String {
    match suggestion {
        Some(s) => format!("; did you mean `{s}`?"),
        None => String::new(),
    }
}

fn list(paths: &[Utf8PathBuf]) -> String {
    paths
        .iter()
        .map(|p| format!("  {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn findings(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(Diagnostic::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

fn lines(details: &[String]) -> String {
    details.iter().map(|l| format!("\n  {l}")).collect()
}

impl Error {
    /// The process exit code for this error (README, "Exit codes"), from
    /// [`exit::code`].
    pub fn exit_code(&self) -> u8 {
        exit::code(&exit::Conclusion::Failed(self))
    }

    /// An I/O error on `path` while doing `action`.
    pub fn io(path: impl Into<Utf8PathBuf>, action: &'static str, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            action,
            source,
        }
    }

    /// An input file (named by the user, or in the source tree) that cannot be read (exit 2).
    pub fn unreadable(path: impl Into<Utf8PathBuf>, source: std::io::Error) -> Self {
        Error::InvalidInput {
            at: Location::file(path),
            message: format!("cannot read: {source}"),
        }
    }

    /// An invalid input file, without a line.
    pub fn invalid(path: impl Into<Utf8PathBuf>, message: impl Into<String>) -> Self {
        Error::InvalidInput {
            at: Location::file(path),
            message: message.into(),
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
