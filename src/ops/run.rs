//! `run` as one operation: an item's suite evaluated with and without it,
//! the `skill-eval/1` document written atomically where asked; many items at
//! once ([`evaluate_all`], a script's `evaluate_all`); and [`estimate`], every
//! dry run.

use crate::config::{Context, ItemName};
use crate::document::SkillEval;
use crate::error::{Error, Result};
use crate::eval::{EvalOptions, ItemOutcome};
use crate::event::Observer;
use camino::Utf8PathBuf;
use std::sync::Arc;

/// What `run` is asked, checked by [`RunItemRequest::new`] (a dry run is
/// estimated by the command from the same request's options).
#[derive(Debug, Clone)]
pub struct RunItemRequest {
    /// The item.
    pub item: ItemName,
    /// How to evaluate it (`--runs`, the ceiling, the filters, `--best`, …).
    pub options: EvalOptions,
    /// `--out FILE`: where the document is written.
    pub out: Option<Utf8PathBuf>,
}

/// What `run` did: the document, and the file it was written to.
#[derive(Debug)]
pub struct Ran {
    /// The `skill-eval/1` document.
    pub doc: SkillEval,
    /// `--out`, written.
    pub wrote: Option<Utf8PathBuf>,
    /// When the ceiling cut the evaluation short: how to complete it.
    pub complete: Option<Completion>,
}

/// How to complete an evaluation the cost ceiling cut short: the same
/// evaluation again ([`EvalOptions::again_flags`]) under a ceiling priced
/// from the evidence store, which now keeps the runs it bought, so only
/// the missing runs are bought.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The item.
    pub item: ItemName,
    /// The flags that evaluate the same thing again.
    pub flags: Vec<String>,
    /// The ceiling to complete it under.
    pub ceiling_usd: f64,
    /// `--out FILE` of the evaluation cut short: the completed one goes there.
    pub out: Option<Utf8PathBuf>,
    /// Why that ceiling, in words.
    pub why: String,
}

impl Completion {
    /// `complete it: bob-eval VERB ITEM FLAGS --max-cost-usd C (why)`.
    pub fn command(&self, verb: &str) -> String {
        let mut flags: String = self.flags.iter().map(|f| format!(" {f}")).collect();
        if let Some(out) = &self.out {
            flags += &format!(" --out {}", crate::text::shell_word(out.as_str()));
        }
        format!(
            "complete it: bob-eval {verb} {}{flags} --max-cost-usd {:.2} ({})",
            self.item, self.ceiling_usd, self.why
        )
    }

    /// The completion of `doc` evaluated with `options` (and written to
    /// `out`), when the ceiling cut it short (a result replayed from a file
    /// is not completed).
    /// Priced from the dry run's estimate of the same evaluation now: the
    /// runs it would buy (under `--runs auto` the most it can buy) at the
    /// store's mean cost per run, or at this result's costliest case's when
    /// that is dearer, and a quarter more (a run costs more than the mean
    /// as often as less); twice the ceiling when nothing prices them. Never
    /// above the most a ceiling may be.
    pub fn of(
        ctx: &Context,
        item: &ItemName,
        options: &EvalOptions,
        doc: &SkillEval,
        out: Option<&Utf8PathBuf>,
    ) -> Option<Completion> {
        use crate::document::PartialReason;
        if doc.partial_reason != Some(PartialReason::CostCeiling)
            || options.platform_result.is_some()
        {
            return None;
        }
        // Dollars a run as this result paid them, its costliest case's: the
        // runs the ceiling cut short are not kept, so the store may hold none.
        let here = doc
            .cases
            .iter()
            .filter(|c| c.runs > 0)
            .map(|c| c.cost_usd / f64::from(c.runs))
            .fold(0.0, f64::max);
        let priced = crate::eval::estimate::estimate(ctx, item, options)
            .ok()
            .and_then(|e| {
                if e.buy_runs == 0 {
                    return Some((
                        doc.max_cost_usd,
                        "every run it needs is kept now: it buys nothing".to_string(),
                    ));
                }
                let (runs, usd, most) = match &e.auto {
                    Some(auto) => (auto.most_runs, auto.most_usd, "at most "),
                    None => (e.buy_runs, e.estimate_usd, ""),
                };
                let stored = usd.map(|u| u / f64::from(runs.max(1)));
                let (per_run, basis) = match stored {
                    Some(s) if s >= here && e.rough => (s, "a rough estimate"),
                    Some(s) if s >= here => (s, "the evidence store's mean"),
                    _ if here > 0.0 => (here, "what this result's costliest case paid"),
                    _ => return None,
                };
                let kept = match e.reuse_runs {
                    0 => String::new(),
                    n => format!("; the {n} kept are reused"),
                };
                Some((
                    1.25 * f64::from(runs) * per_run,
                    format!(
                        "{most}{runs} runs to buy at ${per_run:.4} a run, {basis}, and a quarter more{kept}"
                    ),
                ))
            });
        let (usd, why) = priced.unwrap_or_else(|| {
            (
                2.0 * doc.max_cost_usd,
                "twice the ceiling: nothing prices the runs still missing; the runs kept are reused"
                    .to_string(),
            )
        });
        let ceiling_usd = ((usd * 100.0).ceil() / 100.0).clamp(0.01, crate::config::MAX_COST_USD);
        Some(Completion {
            item: item.clone(),
            flags: options.again_flags(),
            ceiling_usd,
            out: out.cloned(),
            why,
        })
    }
}

impl RunItemRequest {
    /// The request, refused when it asks for a stopping rule (`--confidence`,
    /// `--rule`) without `--runs auto`: `run` decides nothing, so the rule
    /// would change nothing.
    pub fn new(item: ItemName, options: EvalOptions, out: Option<Utf8PathBuf>) -> Result<Self> {
        refuse_rule_without_auto(&options)?;
        Ok(Self { item, options, out })
    }
}

fn refuse_rule_without_auto(options: &EvalOptions) -> Result<()> {
    let asked = match (options.confidence, options.rule) {
        (Some(_), _) => Some("--confidence"),
        (None, Some(_)) => Some("--rule"),
        (None, None) => None,
    };
    if let (Some(flag), None) = (asked, options.auto) {
        // `run` decides nothing: the rule only says when auto stops buying.
        return Err(Error::Usage(format!(
            "run {flag}: the rule only sets when --runs auto stops buying, and a fixed --runs buys what it says whatever the rule: add --runs auto[:MAX], or drop {flag} and decide on the result with `gate {flag}`"
        )));
    }
    Ok(())
}

/// Evaluate `request.item`, progress to `observer`, and write the document
/// to `request.out`. An `--out` that cannot be written is refused before
/// anything is spent.
pub fn run(ctx: &Context, request: &RunItemRequest, observer: Arc<dyn Observer>) -> Result<Ran> {
    if let Some(path) = &request.out {
        crate::fsio::check_writable(path)?;
    }
    let doc = crate::eval::evaluate(ctx, &request.item, &request.options, observer)?;
    if let Some(path) = &request.out {
        let json = serde_json::to_string_pretty(&doc).expect("a document serialises") + "\n";
        crate::fsio::write_atomically(path, json.as_bytes())?;
    }
    let complete = Completion::of(
        ctx,
        &request.item,
        &request.options,
        &doc,
        request.out.as_ref(),
    );
    Ok(Ran {
        doc,
        wrote: request.out.clone(),
        complete,
    })
}

/// What evaluating many items asks (a script's `evaluate_all`), checked by
/// [`EvaluateAllRequest::new`].
#[derive(Debug, Clone)]
pub struct EvaluateAllRequest {
    /// The items, as given: an invalid name is that item's failure, not the batch's.
    pub items: Vec<String>,
    /// How to evaluate each (`max_total_usd`: the batch's budget).
    pub options: EvalOptions,
    /// Suites at once.
    pub jobs: u32,
}

impl EvaluateAllRequest {
    /// The request, refused when `jobs` is out of range
    /// ([`crate::eval::suites_at_once_from`]) or when one `--report` file
    /// would be asked of many items (each would overwrite the last).
    pub fn new(items: Vec<String>, options: EvalOptions, jobs: i64) -> Result<Self> {
        if options.report.is_some() && items.len() > 1 {
            return Err(Error::Usage(
                "`report` names one file, and this evaluates many items: evaluate them one at a time to save each report".into(),
            ));
        }
        let jobs = crate::eval::suites_at_once_from(jobs).map_err(Error::Usage)?;
        Ok(Self {
            items,
            options,
            jobs,
        })
    }
}

/// Evaluate every item of `request`, `jobs` at once, progress to `observer`:
/// each item's outcome, in order ([`crate::eval::evaluate_all`]).
pub fn evaluate_all(
    ctx: &Context,
    request: &EvaluateAllRequest,
    observer: Arc<dyn Observer>,
) -> Result<Vec<ItemOutcome>> {
    crate::eval::evaluate_all(
        ctx,
        &request.items,
        &request.options,
        request.jobs as usize,
        observer,
    )
}

/// A dry run (`--dry-run` on `run`, `exam` and `propose`): the estimate of
/// what evaluating the item would buy and cost, and its judges' calibration,
/// which costs a person's time, not dollars.
#[derive(Debug)]
pub struct Estimated {
    /// The item.
    pub item: ItemName,
    /// Runs bought and reused, and their cost beside the ceiling.
    pub estimate: crate::eval::estimate::ItemEstimate,
    /// Each judged grader's calibration (empty when it could not be read).
    pub calibration: Vec<super::label::GraderStatus>,
    /// Warnings (the calibration that could not be read).
    pub warnings: Vec<crate::error::Warning>,
}

/// Estimate evaluating `item` under `options` (`--confidence` included,
/// which changes `--runs auto`'s first round); nothing runs.
pub fn estimate(ctx: &Context, item: &ItemName, options: &EvalOptions) -> Result<Estimated> {
    let estimate = crate::eval::estimate::estimate(ctx, item, options)?;
    let suite = crate::suite::load(&ctx.source, item)?;
    let (calibration, warnings) = match super::label::calibration(&suite) {
        Ok(rows) => (rows, Vec::new()),
        Err(e) => (Vec::new(), vec![crate::error::Warning::new(e.to_string())]),
    };
    Ok(Estimated {
        item: item.clone(),
        estimate,
        calibration,
        warnings,
    })
}
