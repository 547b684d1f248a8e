//! What long work reports while it runs. The library never prints: it hands
//! events to an [`Observer`] the caller passes in, and the caller (a command)
//! decides how to show them (a progress bar, lines, nothing).

use camino::Utf8PathBuf;

/// Something worth telling the operator while an evaluation runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// What the operator must see that does not stop the run (a `check`
    /// finding, a store that could not keep an evaluation, …).
    Warning(crate::error::Warning),
    /// A note that is neither a finding nor progress.
    Notice(String),
    /// The plugin folder of `item` is kept (`--keep`) at this path.
    Kept {
        /// The item.
        item: String,
        /// The kept folder.
        dir: Utf8PathBuf,
        /// The platform's temp folder beside it (its sandboxes), kept too.
        scratch: Utf8PathBuf,
    },
    /// The platform started for `item` under a ceiling.
    PlatformStarted {
        /// The item.
        item: String,
        /// The cost ceiling in dollars.
        ceiling: f64,
    },
    /// The platform announced how many runs it will make.
    RunsPlanned {
        /// The item.
        item: String,
        /// Runs in all.
        total: u64,
    },
    /// One run finished.
    RunDone {
        /// The item.
        item: String,
        /// The case.
        case: String,
        /// `1/2`: which run of the case's arm.
        which: String,
        /// `with` or `without`.
        arm: String,
        /// The run's score.
        score: f64,
        /// The run's cost in dollars.
        cost: f64,
    },
    /// One run of `--neighbours` finished: the trigger pair's prompt with the
    /// item among other items, on one arm. Its score is no verdict on the item
    /// (which item fired is read from the result), so it carries none.
    NeighbourRunDone {
        /// The item.
        item: String,
        /// The case.
        case: String,
        /// `1/2`: which run of the case.
        which: String,
        /// The run's cost in dollars.
        cost: f64,
    },
    /// The platform hit the cost ceiling (its own words).
    CeilingHit {
        /// The item.
        item: String,
        /// The platform's line.
        text: String,
    },
    /// The evidence store is busy (another process writes it) as runs just
    /// bought, or an evaluation, are kept: waited `waited` of `wait`, after
    /// which they are set aside beside the store rather than lost.
    StoreBusy {
        /// The item.
        item: String,
        /// What is being kept, in words: `the runs just bought`, `the evaluation`.
        keeping: &'static str,
        /// The store.
        store: Utf8PathBuf,
        /// How long it has waited so far.
        waited: std::time::Duration,
        /// How long it waits in all.
        wait: std::time::Duration,
    },
    /// The platform exited (whatever the outcome).
    PlatformFinished {
        /// The item.
        item: String,
    },
    /// One suite of a many-suite evaluation finished: its document, or why
    /// it could not run.
    SuiteFinished(ItemOutcome),
    /// A line a pipeline printed (`print`, `debug`), shown as it is.
    Printed(String),
}

impl Event {
    /// The item an event is about, when it is about one.
    pub fn item(&self) -> Option<&str> {
        match self {
            Event::Warning(_) | Event::Notice(_) | Event::Printed(_) => None,
            Event::Kept { item, .. }
            | Event::PlatformStarted { item, .. }
            | Event::RunsPlanned { item, .. }
            | Event::RunDone { item, .. }
            | Event::NeighbourRunDone { item, .. }
            | Event::CeilingHit { item, .. }
            | Event::StoreBusy { item, .. }
            | Event::PlatformFinished { item }
            | Event::SuiteFinished(ItemOutcome { item, .. }) => Some(item),
        }
    }
}

/// Receives events; shared across the threads of a parallel evaluation.
pub trait Observer: Send + Sync {
    /// Handle one event.
    fn event(&self, event: &Event);
}

/// Drops every event.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Observer for Silent {
    fn event(&self, _: &Event) {}
}

/// Collects every event (tests, and callers that show them later).
#[derive(Debug, Default)]
pub struct Collect(pub std::sync::Mutex<Vec<Event>>);

impl Observer for Collect {
    fn event(&self, event: &Event) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(event.clone());
    }
}

/// One item's outcome in a many-suite evaluation, the one shape every layer
/// uses: the progress event, a pipeline's `Published::Outcomes`, a shard's
/// folder, `collect`'s rows and the CI formats.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemOutcome {
    /// The item.
    pub item: String,
    /// Its result, or why it could not run.
    pub outcome: std::result::Result<std::sync::Arc<crate::document::SkillEval>, Failure>,
}

/// Why an item could not run: the error's message and its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The error, as the command would print it.
    pub message: String,
    /// The exit code it carries.
    pub exit_code: u8,
}

/// How a sweep with these rows ended: whether a suite could not run, and
/// whether the budget left one unlaunched (whatever the verdicts).
pub fn swept(rows: &[ItemOutcome]) -> crate::error::exit::Conclusion<'static> {
    let failures = || rows.iter().filter_map(|r| r.outcome.as_ref().err());
    crate::error::exit::Conclusion::Swept {
        could_not_run: failures().any(|f| !f.unlaunched()),
        unlaunched: failures().any(Failure::unlaunched),
    }
}

impl Failure {
    /// The budget left the suite unlaunched ([`crate::error::Error::BudgetSpent`]):
    /// it did not fail, it was not tried.
    pub fn unlaunched(&self) -> bool {
        self.exit_code == crate::error::exit::INCOMPLETE
    }

    /// In words: `could not run: …`, or, for a suite the budget left
    /// unlaunched, the budget's own words.
    pub fn words(&self) -> String {
        if self.unlaunched() {
            self.message.clone()
        } else {
            format!("could not run: {}", self.message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::exit::{self, Conclusion};

    fn failed(item: &str, exit_code: u8) -> ItemOutcome {
        ItemOutcome {
            item: item.into(),
            outcome: Err(Failure {
                message: format!("{item} failed"),
                exit_code,
            }),
        }
    }

    #[test]
    fn a_failure_outranks_an_unspent_budget() {
        let code = |rows: &[ItemOutcome]| exit::code(&swept(rows));
        assert_eq!(code(&[]), exit::OK);
        assert_eq!(code(&[failed("a", 4)]), exit::INCOMPLETE);
        assert_eq!(code(&[failed("a", 4), failed("b", 3)]), exit::FAILED);
        assert!(matches!(
            swept(&[failed("a", 3)]),
            Conclusion::Swept {
                could_not_run: true,
                unlaunched: false
            }
        ));
    }
}
