//! `gate` as one operation: a result read, decided against the best, and
//! recorded when asked; the command only builds the request and renders.

use super::{Again, Choice};
use crate::config::{Context, ItemName};
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::gate::Decision;
use camino::Utf8PathBuf;

/// What `gate` is asked: already checked by the command (names, `--record`'s
/// companions).
#[derive(Debug, Clone)]
pub struct GateRequest {
    /// The item the result is for.
    pub item: ItemName,
    /// The `skill-eval/1` document to decide on.
    pub result: Utf8PathBuf,
    /// `--confidence`, `--rule`, whether it records, and the limits.
    pub choice: Choice,
    /// `--trust-imported`.
    pub trust_imported: bool,
    /// `--best-again FILE`.
    pub best_again: Option<Utf8PathBuf>,
    /// `--record --pr PR --pages P…`: what to record with, when recording.
    pub record: Option<RecordRequest>,
    /// `--evidence PATH`: the store a recorded decision is kept in.
    pub evidence: Option<Utf8PathBuf>,
}

/// What a recorded decision is recorded with.
#[derive(Debug, Clone)]
pub struct RecordRequest {
    /// The proposal's pull request (refused when missing).
    pub pr: Option<String>,
    /// The wiki pattern pages it was built on.
    pub pages: Vec<String>,
}

/// What `gate` did: the decision (the one applied, when recorded), the
/// record, and the warnings to show.
#[derive(Debug)]
pub struct Gated {
    /// The decision.
    pub decision: Decision,
    /// The record, when the decision was recorded.
    pub recorded: Option<crate::record::Recorded>,
    /// Warnings (the record stands).
    pub warnings: Vec<crate::error::Warning>,
    /// The result decided on.
    pub result: crate::document::SkillEval,
}

impl Gated {
    /// How the command ended: accepted or rejected.
    pub fn conclusion(&self) -> Conclusion<'static> {
        Conclusion::Decided {
            accepted: self.decision.accepted,
        }
    }
}

/// Decide on `request.result`, and record the decision when asked.
pub fn gate(ctx: &Context, request: &GateRequest) -> Result<Gated> {
    let item = request.item.as_str();
    if let Some(rec) = &request.record {
        crate::record::check_record_args(&ctx.source, rec.pr.as_deref(), &rec.pages)?;
    }
    let result = crate::document::load_result(&request.result, item)?;
    let again = request
        .best_again
        .as_ref()
        .map(|path| crate::document::load_result(path, item).map(|doc| (doc, path)))
        .transpose()?;
    // Where a record keeps the decision: a decision that records is held
    // to its item's sequence, read from there.
    let store = crate::evidence::Store::default_path(request.evidence.as_deref(), ctx);
    let decision = super::decide(
        ctx,
        &result,
        &request.result,
        request.choice,
        request.trust_imported,
        again.as_ref().map(|(doc, path)| Again::Measured(doc, path)),
        &store,
    )?;
    let Some(rec) = &request.record else {
        return Ok(Gated {
            decision,
            recorded: None,
            warnings: Vec::new(),
            result,
        });
    };
    let super::Recording { recorded, warnings } = super::record(
        ctx,
        &result,
        &decision,
        rec.pr.as_deref().unwrap_or_default(),
        &rec.pages,
        &store,
        again.as_ref().map(|(doc, _)| doc),
    )?;
    Ok(Gated {
        decision: recorded.decision.clone(),
        recorded: Some(recorded),
        warnings,
        result,
    })
}
