//! `check` as one operation: a plugin's suites in the platform's layout, or
//! the source's suites with each judge's verdict at the house threshold.

use crate::check::CheckReport;
use crate::config::{Context, ItemName};
use crate::error::exit::Conclusion;
use crate::error::{Error, Result};
use camino::Utf8PathBuf;

/// What `check` is asked.
#[derive(Debug, Clone)]
pub enum CheckRequest {
    /// `--plugin DIR`: a plugin's own suites.
    Plugin(Utf8PathBuf),
    /// These items' suites (none: every suite under `evals/`).
    Suites(Vec<ItemName>),
}

/// How `check` ended: with an error found or not (warnings never fail).
pub fn conclusion(report: &CheckReport) -> Conclusion<'static> {
    Conclusion::Checked {
        errors: report.has_errors(),
    }
}

/// Check what `request` names. Refused when no item is named and the
/// source has no `evals/`.
pub fn check(ctx: &Context, request: &CheckRequest) -> Result<CheckReport> {
    let items = match request {
        CheckRequest::Plugin(dir) => return crate::check::check_plugin(dir),
        CheckRequest::Suites(items) => items,
    };
    let evals = ctx.source.join("evals");
    if items.is_empty() && !evals.is_dir() {
        return Err(Error::Usage(format!(
            "nothing to check: there is no {evals}/ folder (the source is {}; set it with --source or $BOB_SOURCE); start a suite with `bob-eval init ITEM`",
            ctx.source
        )));
    }
    let mut report = crate::check::check_suites(&ctx.source, items)?;
    // Each judge's verdict at the house threshold (settings).
    let settings = crate::config::Settings::load(&ctx.home)?;
    let threshold = crate::config::resolve_judge_threshold(&settings)?;
    for j in &mut report.judges {
        j.record = j.record.clone().at_threshold(threshold);
        j.words = crate::suite::judges::words(&j.record);
        j.fix = (!j.record.calibrated)
            .then(|| crate::suite::judges::label_command(&j.item, &j.case, &j.grader));
    }
    Ok(report)
}
