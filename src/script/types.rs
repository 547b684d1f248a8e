//! The opaque values that carry authority in a script: a reduced result and a
//! gate decision (plus the plugin and platform output between them). Scripts get
//! read-only getters; there is no constructor, no setter and no indexer, so a
//! script cannot make one up or change one. Beside them, a dry run's
//! [`EstimateHandle`] and an `evaluate_all` row ([`OutcomeRow`]), read like
//! maps, and [`Options`]: the command's options, which a script reads and
//! may change key by key, typed.

use crate::document::{CaseEval, SkillEval};
use crate::eval::{Assembled, Gathered};
use crate::gate::Decision;
use crate::ops::PipelineOptions;
use camino::Utf8PathBuf;
use rhai::{Array, Dynamic};
use std::sync::{Arc, Mutex};

/// A reduced, schema-valid `skill-eval/1` result (`EvalResult` in scripts).
#[derive(Debug, Clone)]
pub struct EvalResult {
    /// The document; shared so a decision can prove which result it was made for.
    pub doc: Arc<SkillEval>,
    /// The options it was evaluated with, when it was evaluated here (not
    /// loaded from a file): what the commands its advice names carry.
    pub options: Option<Arc<crate::eval::EvalOptions>>,
    /// When the ceiling cut the evaluation short: how to complete it.
    pub complete: Option<Arc<crate::ops::Completion>>,
    /// The command those are called with ([`crate::ops::next::Invocation`]).
    pub invocation: Arc<crate::ops::next::Invocation>,
}

impl EvalResult {
    /// Wrap a document.
    pub fn new(doc: SkillEval) -> Self {
        Self::shared(Arc::new(doc))
    }

    /// Wrap a shared document (an `evaluate_all` row's), evaluated with
    /// options the result does not know.
    pub fn shared(doc: Arc<SkillEval>) -> Self {
        EvalResult {
            doc,
            options: None,
            complete: None,
            invocation: Arc::new(crate::ops::next::Invocation::run()),
        }
    }
}

/// A gate decision made by `gate` for one particular result (`GateDecision` in scripts).
#[derive(Debug, Clone)]
pub struct GateDecision {
    /// The decision.
    pub decision: Arc<Decision>,
    /// The very result it was made for (compared by pointer in `record`).
    pub result: Arc<SkillEval>,
    /// The best measured again that it compared with (`gate(r, best)`):
    /// `record` decides against it again under the lock.
    pub again: Option<Arc<SkillEval>>,
}

impl GateDecision {
    /// Whether this decision was made by `gate` for exactly `result`.
    pub fn is_for(&self, result: &EvalResult) -> bool {
        Arc::ptr_eq(&self.result, &result.doc)
    }
}

/// An assembled plugin (`Plugin` in scripts), removed when the last script
/// value holding it is dropped; `run_platform` takes what it holds, once.
#[derive(Debug, Clone)]
pub struct PluginHandle {
    /// The plugin, until `run_platform` takes it.
    pub assembled: Arc<Mutex<Option<Assembled>>>,
    /// The item.
    pub item: String,
    /// The options it was assembled with, which its run and result keep.
    pub options: Arc<crate::eval::EvalOptions>,
}

/// What one platform run left behind (`PlatformOutput` in scripts), kept
/// alive until reduced (the document lives in the plugin's folder).
#[derive(Debug, Clone)]
pub struct RunHandle {
    /// The run.
    pub run: Arc<Gathered>,
    /// The options its plugin was assembled with: what completes a result
    /// the ceiling cut short.
    pub options: Arc<crate::eval::EvalOptions>,
}

/// `()` for a missing number, else the float.
pub fn opt_f64(x: Option<f64>) -> Dynamic {
    x.map_or(Dynamic::UNIT, Dynamic::from_float)
}

/// One case of a result (`Case` in scripts): read-only, like the result.
/// `with` is a reserved word in Rhai, so the scores are `with_score` and
/// `without_score`.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The case.
    pub case: Arc<CaseEval>,
}

/// The cases of a result.
pub fn cases(doc: &SkillEval) -> Array {
    doc.cases
        .iter()
        .map(|c| {
            Dynamic::from(CaseResult {
                case: Arc::new(c.clone()),
            })
        })
        .collect()
}

/// A dry run's estimate (`Estimate` in scripts, from `estimate`): the
/// `bob-eval-estimate/1` document, read like a map (`e.buy_runs`,
/// `e["cases"]`: copies) and handed to `publish` as it is, typed. Opaque,
/// so the estimates of a sweep's many suites never count against the map
/// and array limits of a script (a map each did from about 200 suites).
#[derive(Debug, Clone)]
pub struct EstimateHandle {
    /// The estimate.
    pub estimate: Arc<crate::eval::estimate::ItemEstimate>,
}

/// One item's outcome in `evaluate_all`'s rows (`Row` in scripts): read
/// like the map it replaces (`row.item`, `row.ok`, `row.exit_code`,
/// `row.result` or `row.error`, `()` when absent; `row["item"]`) and handed
/// to `publish` as it is. Opaque, so the rows of a sweep of thousands of
/// suites never count against the map limit of a script (four entries a
/// row reached it at 2,501 rows).
#[derive(Debug, Clone)]
pub struct OutcomeRow {
    /// The outcome; its document is the very one `row.result` hands out.
    pub outcome: Arc<crate::event::ItemOutcome>,
}

/// The command's options as a script holds them (`Options` in scripts, from
/// `options()`): read like a map (`o.runs`, `o["runs"]`), changed key by key
/// under the rules a step's `opts` map is read by (a bad value is refused at
/// the assignment), and handed to a step as they are (`evaluate(o.item, o)`):
/// typed all the way, never written out as a map and read back. It holds
/// nothing a script's own `opts` map could not ask for, and the operator's
/// choices (`claude`, the evidence store, `--trust-imported`) stay his.
#[derive(Debug, Clone)]
pub struct Options {
    /// The options, as parsed, then as the script changed them.
    pub pipeline: PipelineOptions,
    /// The only folder a script's `report` may name a file in.
    pub results_dir: Utf8PathBuf,
    /// The `report` the script set, as it wrote it (the operator's
    /// `--report` is not shown).
    pub report: Option<String>,
}
