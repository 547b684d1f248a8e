//! `sweep` as one operation: every suite (or one shard's) run once by
//! `pipelines/sweep.rhai`, and the shard's folder written; the command plans
//! it first ([`super::plan_sweep`]) and renders the rows.

use super::{PipelineOptions, Pipelines, Published, SweepPlan};
use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::eval::estimate::ItemEstimate;
use crate::eval::{EvalOptions, ItemOutcome};
use crate::shard::Written;
use camino::Utf8PathBuf;

/// What `sweep` is asked, once planned.
#[derive(Debug, Clone)]
pub struct SweepRequest {
    /// How to evaluate every suite (the model, runs, each suite's ceiling,
    /// the filters, `--dry-run`); the budget comes from the plan.
    pub options: EvalOptions,
    /// `--jobs`: suites at once.
    pub jobs: u32,
    /// `--format`'s name, as the pipeline reads it.
    pub format: &'static str,
    /// `--out-dir`: the shard's folder, written once the suites ran.
    pub out_dir: Option<Utf8PathBuf>,
}

/// What `sweep` did.
#[derive(Debug)]
pub enum Swept {
    /// The pipeline published nothing (skipped without `EVALS=1`): its code.
    Skipped(u8),
    /// `--dry-run`: each suite's estimate, beside the shard's budget.
    Estimated {
        /// The estimates, in order.
        estimates: Vec<ItemEstimate>,
        /// The shard's share of `--max-total-usd`.
        budget_usd: Option<f64>,
    },
    /// The suites ran.
    Ran {
        /// Each suite's outcome, in order.
        rows: Vec<ItemOutcome>,
        /// The shard's folder, when `--out-dir` asked for one.
        written: Option<(Utf8PathBuf, Written)>,
        /// How to complete each suite the ceiling cut short (`run` again,
        /// under a ceiling priced from the store).
        complete: Vec<super::Completion>,
    },
}

impl Swept {
    /// How the command ended: a skipped sweep by the pipeline's code, a dry
    /// run done, a sweep by its rows ([`crate::event::swept`]).
    pub fn conclusion(&self) -> Conclusion<'static> {
        match self {
            Swept::Skipped(code) => Conclusion::Returned(*code),
            Swept::Estimated { .. } => Conclusion::Done,
            Swept::Ran { rows, .. } => crate::event::swept(rows),
        }
    }
}

/// Run the sweep `plan` describes through `pipelines`, then write the
/// shard's folder when asked.
pub fn sweep(
    ctx: &Context,
    plan: &SweepPlan,
    request: &SweepRequest,
    pipelines: &dyn Pipelines,
) -> Result<Swept> {
    let budget = plan.budget.map(|b| b.share_usd);
    let eval = EvalOptions {
        max_total_usd: budget,
        ..request.options.clone()
    };
    let store = crate::eval::evidence_path(ctx, &eval);
    let options = PipelineOptions {
        eval,
        json: request.format == "json",
        format: Some(request.format),
        suite_jobs: Some(request.jobs),
        suites: plan.suites.clone(),
        ..PipelineOptions::default()
    };
    let piped = pipelines.run(ctx, "sweep", options)?;
    let rows = match piped.published {
        Some(Published::Outcomes(rows)) => rows,
        Some(Published::Estimates(estimates)) => {
            return Ok(Swept::Estimated {
                estimates,
                budget_usd: budget,
            });
        }
        // Skipped (no EVALS=1), the pipeline publishes nothing: no suite ran.
        _ => return Ok(Swept::Skipped(piped.code)),
    };
    let written = match &request.out_dir {
        Some(dir) => {
            let written = crate::shard::write_out_dir(
                dir,
                plan.shard,
                &plan.tree,
                &rows,
                &store,
                plan.budget,
            )?;
            Some((dir.clone(), written))
        }
        None => None,
    };
    // Each suite the ceiling cut short, and how to complete it with `run`.
    let complete = rows
        .iter()
        .filter_map(|row| {
            let doc = row.outcome.as_ref().ok()?;
            super::Completion::of(ctx, &doc.item, &request.options, doc, None)
        })
        .collect();
    Ok(Swept::Ran {
        rows,
        written,
        complete,
    })
}
