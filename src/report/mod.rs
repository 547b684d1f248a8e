//! Output: one file per command's human report, plain text for stderr/stdout,
//! snapshot-tested; `junit` and `markdown` render
//! the same outcomes for CI (`--format junit|markdown`).

pub mod check;
pub mod compare;
pub mod efficiency;
pub mod estimate;
pub mod evidence;
pub mod gate;
pub mod history;
pub mod junit;
pub mod label;
pub mod markdown;
pub mod run;
pub mod show;
pub mod sweep;
pub mod wiki;

use crate::document::SkillEval;
use crate::eval::ItemOutcome;
use crate::ops::Published;

/// One item's outcome in a run or a sweep, as the CI formats render it.
#[derive(Debug, Clone, Copy)]
pub enum CiOutcome<'a> {
    /// The item ran: its result.
    Ran(&'a SkillEval),
    /// It could not run.
    Failed {
        /// The item.
        item: &'a str,
        /// Why, as the command would print it.
        error: &'a str,
        /// The exit code the error carries.
        exit_code: u8,
    },
}

impl<'a> From<&'a ItemOutcome> for CiOutcome<'a> {
    fn from(o: &'a ItemOutcome) -> Self {
        match &o.outcome {
            Ok(doc) => CiOutcome::Ran(doc),
            Err(f) => CiOutcome::Failed {
                item: &o.item,
                error: &f.message,
                exit_code: f.exit_code,
            },
        }
    }
}

/// The Markdown of what a pipeline published (`$GITHUB_STEP_SUMMARY`):
/// its outcomes under `title`, a proposal's result and decision, or a dry
/// run's estimates (as text).
pub fn published_markdown(title: &str, published: &Published) -> String {
    match published {
        Published::Outcomes(rows) => {
            let outcomes: Vec<CiOutcome<'_>> = rows.iter().map(CiOutcome::from).collect();
            markdown::results(title, &outcomes)
        }
        Published::Decided { result, decision } => markdown::proposal(title, result, decision),
        Published::Estimates(all) => format!(
            "### {title}: dry run\n\n```text\n{}```\n",
            estimate::estimates(all, None)
        ),
    }
}
