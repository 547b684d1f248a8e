//! Runs brought in rather than bought: a platform result given with
//! `--platform-result` and the shards' runs `collect` merges. Both get the
//! judges' calibration a live run gets (each judged grader's record against
//! the labels in the tree, and the corrected scores); what is said about
//! their transcripts is said here once.

use crate::config::{Context, ItemName};
use crate::document::SkillEval;
use crate::error::Result;
use crate::evidence::{Arm, StoredRun};
use crate::platform::result::RunOutcome;
use crate::reduce::{CountedCase, ResultSource, calibrate, read_result};
use crate::suite::judges::JudgeRecord;
use camino::Utf8Path;

/// What `run --platform-result` says of transcripts, once.
pub const NO_TRANSCRIPTS_FILE: &str = "transcripts not kept: a result given with --platform-result is reduced as it is and its runs are not stored in the evidence store (run without it to keep each run's transcript)";

/// What `collect` says when the shards carry no transcript.
pub const NO_TRANSCRIPTS_COLLECTED: &str = "transcripts not kept: runs brought by collect carry none (the shards' runs.jsonl hold no transcript lines: written before transcripts were kept, or their runs had none)";

/// The judged graders of `item`'s suite in `ctx`'s source, each with its
/// labels of `judge_model` (the runs' judge model, `default` or a model), as
/// a live run plans them; none when the source has no such suite (a
/// platform result reduced away from its tree).
pub fn judge_records(
    ctx: &Context,
    item: &ItemName,
    judge_model: &str,
) -> Result<Vec<JudgeRecord>> {
    if crate::config::existing_suite(&ctx.source, item).is_err() {
        return Ok(Vec::new());
    }
    let suite = crate::suite::load(&ctx.source, item)?;
    let settings = crate::config::Settings::load(&ctx.home)?;
    let threshold = crate::config::resolve_judge_threshold(&settings)?;
    crate::suite::judges::records_for(&suite, threshold, Some(judge_model))
}

/// `doc`'s calibration from the platform result at `path` it was reduced
/// from, over the runs the fold counted, as for a live run.
pub fn calibrate_file(doc: &mut SkillEval, path: &Utf8Path, records: &[JudgeRecord]) -> Result<()> {
    if records.is_empty() {
        return Ok(());
    }
    let result = read_result(path, ResultSource::File)?;
    let typed = result.cases(path, None)?;
    let cases: Vec<CountedCase> = typed
        .iter()
        .filter(|c| !c.with.is_empty())
        .map(|c| CountedCase {
            name: &c.name,
            with: c.with.iter().collect(),
            without: c.without.iter().collect(),
        })
        .collect();
    doc.calibration = calibrate(&cases, records);
    Ok(())
}

/// `doc`'s calibration over the stored runs `used` (ids of `runs`), as for a
/// live run; unchanged when none of them is among `runs` (a shard written
/// without its evaluation).
pub fn calibrate_runs(
    doc: &mut SkillEval,
    used: &[String],
    runs: &[&StoredRun],
    records: &[JudgeRecord],
) {
    let find = |id: &String| runs.iter().find(|r| &r.id == id);
    let picked: Vec<&StoredRun> = used.iter().filter_map(|id| find(id).copied()).collect();
    if records.is_empty() || picked.is_empty() {
        return;
    }
    let arm = |name: &str, which: Arm| -> Vec<&RunOutcome> {
        picked
            .iter()
            .filter(|r| r.key.case == name && r.key.arm == which)
            .map(|r| &r.outcome)
            .collect()
    };
    let cases: Vec<CountedCase> = doc
        .cases
        .iter()
        .map(|c| CountedCase {
            name: &c.name,
            with: arm(&c.name, Arm::With),
            without: arm(&c.name, Arm::Without),
        })
        .filter(|c| !c.with.is_empty())
        .collect();
    let calibration = calibrate(&cases, records);
    doc.calibration = calibration;
}
