//! `history` as one operation: the evaluations and decisions an evidence
//! store keeps, with those the wiki and `baseline.json` record.

use crate::config::{Context, ItemName};
use crate::error::Result;
use crate::history::History;
use camino::Utf8PathBuf;

/// What `history` is asked.
#[derive(Debug, Clone, Default)]
pub struct HistoryRequest {
    /// Only these items (none: every item with a kept run).
    pub items: Vec<ItemName>,
    /// `--evidence PATH` [default: `$BOB_EVIDENCE`, else `<home>/evidence.db`].
    pub evidence: Option<Utf8PathBuf>,
    /// `--all`: also the evaluations of some cases only and the partial ones.
    pub all: bool,
}

/// The history `request` asks for; its warnings are in [`History::warnings`].
/// A missing store is refused, saying where it was looked for.
pub fn history(ctx: &Context, request: &HistoryRequest) -> Result<History> {
    let path = crate::evidence::Store::default_path(request.evidence.as_deref(), ctx);
    let store = super::open_existing(&path)?;
    let items: Vec<String> = request.items.iter().map(ToString::to_string).collect();
    crate::history::load(&ctx.source, &store, &items, request.all)
}
