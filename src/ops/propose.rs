//! `propose` as one operation: an item's proposed edit run, gated against the
//! recorded best and recorded, by `pipelines/proposer.rhai`.

use super::{Estimated, PipelineOptions, Pipelines, Published};
use crate::config::{Context, ItemName};
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::eval::EvalOptions;

/// What `propose` is asked.
#[derive(Debug, Clone)]
pub struct ProposeRequest {
    /// The item, as given (the pipeline checks the name).
    pub item: String,
    /// How to evaluate it (`--confidence`, `--rule` and `for_record` are
    /// resolved by [`propose`] from `choice`).
    pub options: EvalOptions,
    /// `--confidence`, `--rule`, `--max-cost-ratio`, `--require-calibrated`.
    pub choice: super::Choice,
    /// `--pr`.
    pub pr: String,
    /// `--pages`.
    pub pages: Vec<String>,
    /// `--json`: the pipeline prints the decision as JSON.
    pub json: bool,
    /// `--trust-imported`.
    pub trust_imported: bool,
}

/// What `propose` did.
#[derive(Debug)]
pub enum Proposed {
    /// `--dry-run`: the estimate of the purchase the proposal would make.
    Estimated(Box<Estimated>),
    /// The pipeline ran: its code and what it published (the result and
    /// the decision, normally).
    Ran {
        /// The pipeline's code.
        code: u8,
        /// What it published.
        published: Option<Published>,
    },
}

impl Proposed {
    /// How the command ended: by the decision the pipeline published, else
    /// the pipeline's own code.
    pub fn conclusion(&self) -> Conclusion<'static> {
        match self {
            Proposed::Estimated(_) => Conclusion::Done,
            Proposed::Ran {
                published: Some(Published::Decided { decision, .. }),
                ..
            } => Conclusion::Decided {
                accepted: decision.accepted,
            },
            Proposed::Ran { code, .. } => Conclusion::Returned(*code),
        }
    }
}

/// Propose `request.item`'s edit. A proposal records: it decides under the
/// confidence mode unless the bare rule is chosen, and `--runs auto` buys for
/// that mode at the level the item's sequence holds the decision to; a dry
/// run estimates that same purchase. Otherwise an uncalibrated judge is
/// refused when asked, then `pipelines/proposer.rhai` runs through `pipelines`.
pub fn propose(
    ctx: &Context,
    request: &ProposeRequest,
    pipelines: &dyn Pipelines,
) -> Result<Proposed> {
    let settings = crate::config::Settings::load(&ctx.home)?;
    let choice = request.choice;
    let mode = crate::config::resolve_mode(choice.confidence, choice.rule, true, &settings)?;
    let eval = EvalOptions {
        confidence: mode.level(),
        rule: Some(match mode {
            crate::gate::Mode::Confidence(_) => crate::stats::confidence::RuleChoice::Confidence,
            _ => crate::stats::confidence::RuleChoice::Bare,
        }),
        max_cost_ratio: choice.max_cost_ratio,
        for_record: true,
        ..request.options.clone()
    };
    if eval.dry_run {
        let item = ItemName::new(&request.item)?;
        return super::estimate(ctx, &item, &eval).map(|e| Proposed::Estimated(Box::new(e)));
    }
    if choice.require_calibrated || settings.require_calibrated == Some(true) {
        super::refuse_uncalibrated(ctx, &ItemName::new(&request.item)?)?;
    }
    let options = PipelineOptions {
        item: Some(request.item.clone()),
        eval,
        pr: Some(request.pr.clone()),
        pages: request.pages.clone(),
        json: request.json,
        trust_imported: request.trust_imported,
        require_calibrated: choice.require_calibrated,
        ..PipelineOptions::default()
    };
    let piped = pipelines.run(ctx, "proposer", options)?;
    Ok(Proposed::Ran {
        code: piped.code,
        published: piped.published,
    })
}
