//! Many evaluations at once (`sweep`): `jobs` at a time, under one budget that launches no suite once it is spent.

use super::evaluate;
use super::options::{EvalOptions, resolve};
use crate::config::ItemName;
use crate::config::{self, Context};
use crate::document::{SkillEval, round4};
use crate::error::{Error, Result};
use crate::event::{Event, Observer};
use std::sync::Arc;

#[derive(Debug, Default)]
pub(super) struct Purse {
    spent: f64,
    held: f64,
}

impl Purse {
    /// The ceiling of the next suite, `ceiling` lowered to what `budget` has
    /// left, held back; [`Error::BudgetSpent`] when less than a cent is left.
    fn hold(&mut self, budget: f64, ceiling: f64) -> Result<f64> {
        let left = round4(budget - self.spent - self.held);
        if left < 0.01 {
            return Err(Error::BudgetSpent {
                spent: round4(self.spent + self.held),
                budget,
            });
        }
        let hold = ceiling.min(left);
        self.held += hold;
        Ok(hold)
    }

    /// A suite held `held` and came to `outcome`: what it spent is its
    /// document's cost; a suite that failed before the platform ran spent
    /// nothing, one that failed later is counted at its whole ceiling (what it
    /// spent is not known).
    fn settle(&mut self, held: f64, outcome: &Result<SkillEval>) {
        self.held = (self.held - held).max(0.0);
        self.spent += match outcome {
            Ok(doc) => doc.cost_usd,
            Err(
                Error::Usage(_)
                | Error::InvalidItemName { .. }
                | Error::ItemNotFound { .. }
                | Error::ItemAmbiguous { .. }
                | Error::NoSuite { .. }
                | Error::SuiteInvalid { .. }
                | Error::PlatformMissing(_)
                | Error::PlatformTooOld { .. }
                | Error::BudgetSpent { .. },
            ) => 0.0,
            Err(_) => held,
        };
    }
}

pub use crate::event::{Failure, ItemOutcome};

/// Evaluate `items`, `jobs` at once, in the order given. Run-level progress
/// goes to `observer` as for one suite (each event names its item, so an
/// observer can show the suites in flight side by side), and each finished
/// suite is reported ([`Event::SuiteFinished`]). An interrupt stops
/// the whole batch: suites not yet started are not started, and the result
/// is [`Error::Interrupted`]. Bad options (a ceiling, a model) fail the whole
/// batch before anything runs.
///
/// Under [`EvalOptions::max_total_usd`], each suite launched holds back its
/// ceiling, lowered to what the budget has left once the finished suites'
/// `cost_usd` and the ceilings of the suites in flight are counted; a suite
/// whose turn comes when less than a cent is left is not launched (its
/// outcome is [`Error::BudgetSpent`]). So the suites never spend more than
/// the budget together, as far as the platform keeps to a ceiling (it stops
/// [`evaluate`] of a name given as text: an invalid one is that item's failure.
fn evaluate_named(
    ctx: &Context,
    item: &str,
    opts: &EvalOptions,
    observer: &Arc<dyn Observer>,
) -> Result<SkillEval> {
    evaluate(ctx, &ItemName::new(item)?, opts, observer.clone())
}

/// at the first run that passes it).
pub fn evaluate_all(
    ctx: &Context,
    items: &[String],
    opts: &EvalOptions,
    jobs: usize,
    observer: Arc<dyn Observer>,
) -> Result<Vec<ItemOutcome>> {
    use std::sync::atomic::{AtomicBool, Ordering};
    // Options wrong for one suite are wrong for all: refuse them before any suite runs.
    let ceiling = resolve(ctx, opts)?.max_cost_usd;
    if opts.dry_run {
        return Err(Error::Usage(
            "dry run: these suites would run the platform; a dry run only estimates (`estimate(item, opts)` in a script)".into(),
        ));
    }
    let interrupted = AtomicBool::new(false);
    let purse = std::sync::Mutex::new(Purse::default());
    let done = crate::parallel::map(items, jobs, |item| {
        if interrupted.load(Ordering::SeqCst) {
            return None;
        }
        let held = opts.max_total_usd.map(|budget| {
            purse
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .hold(budget, ceiling)
        });
        let (outcome, ceiling) = match held {
            Some(Err(spent)) => (Err(spent), None),
            Some(Ok(ceiling)) => {
                let outcome = config::Ceiling::new(ceiling)
                    .map_err(Error::Usage)
                    .and_then(|share| {
                        let opts = EvalOptions {
                            max_cost_usd: Some(share),
                            ..opts.clone()
                        };
                        evaluate_named(ctx, item, &opts, &observer)
                    });
                (outcome, Some(ceiling))
            }
            None => (evaluate_named(ctx, item, opts, &observer), None),
        };
        if let Some(ceiling) = ceiling {
            purse
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .settle(ceiling, &outcome);
        }
        if matches!(outcome, Err(Error::Interrupted)) {
            interrupted.store(true, Ordering::SeqCst);
        }
        let done = ItemOutcome {
            item: item.clone(),
            outcome: outcome.map(Arc::new).map_err(|err| Failure {
                message: err.to_string(),
                exit_code: err.exit_code(),
            }),
        };
        observer.event(&Event::SuiteFinished(done.clone()));
        Some(done)
    });
    if interrupted.into_inner() {
        return Err(Error::Interrupted);
    }
    Ok(done.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::Purse;
    use crate::document::SkillEval;
    use crate::error::Error;

    #[test]
    fn a_purse_never_holds_more_than_the_budget() {
        let mut purse = Purse::default();
        assert_eq!(purse.hold(1.0, 0.4).unwrap(), 0.4);
        assert_eq!(purse.hold(1.0, 0.4).unwrap(), 0.4);
        assert_eq!(
            purse.hold(1.0, 0.4).unwrap(),
            0.2,
            "lowered to what is left"
        );
        assert!(matches!(
            purse.hold(1.0, 0.4),
            Err(Error::BudgetSpent { .. })
        ));
        // The first suite spent less than it held: the rest is free again.
        let doc = SkillEval {
            cost_usd: 0.1,
            ..SkillEval::sample(0.5, 0.25)
        };
        purse.settle(0.4, &Ok(doc));
        assert_eq!(purse.hold(1.0, 0.4).unwrap(), 0.3);
        // A suite refused before the platform ran spent nothing; one that failed later its ceiling.
        purse.settle(0.4, &Err(Error::Usage("x".into())));
        purse.settle(
            0.2,
            &Err(Error::PlatformFailed {
                message: "x".into(),
                details: vec![],
            }),
        );
        assert!((purse.spent - 0.3).abs() < 1e-9, "{}", purse.spent);
        assert!((purse.held - 0.3).abs() < 1e-9, "{}", purse.held);
    }
}
