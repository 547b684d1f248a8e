//! Recording an outcome: `evals/<item>/baseline.json` and a `wiki/skill-impact.md`
//! row, atomically and under a lock (docs/gate.md).
//!
//! # Concurrency
//! One exclusive lock, `wiki/.skill-impact.lock` (std [`File::lock`]), covers the
//! whole record operation. It sits in the wiki because every item's recorder
//! appends to the one `wiki/skill-impact.md`, so recorders of different items must
//! be serialized too. Under the lock, `baseline.json` is read again and the rule
//! ([`gate::decide`]) is run again on it: a decision made before another recorder
//! raised the best can therefore never lower it, and the row records the outcome
//! actually applied ([`Recorded::decision`], [`Recorded::revised`]).
//!
//! # Atomicity
//! Each file is replaced whole by [`crate::fsio::Staged`]: the new text goes to a
//! temp file in the same folder (`.<name>.<pid>.<thread>.tmp`), is fsynced, renamed
//! over the file (a symlink's target, so the link stays), and the folder is fsynced. A killed recorder thus leaves either the old or the new file, never
//! a torn one; the wiki "append" is a rewrite of the whole file for that reason.
//! Temp files a killed recorder left behind are removed by the next recorder,
//! under the lock.
//!
//! # Order of the writes
//! Both temp files are written and fsynced before anything is renamed, so the
//! failures that can happen (a read-only folder, a full disk) happen while
//! nothing has changed: the error names the file and both files stay as they
//! were. Then the wiki is renamed first and `baseline.json` second. Should the
//! second rename fail, the wiki's old text is put back. A recorder killed between
//! the two renames leaves a row whose best is not raised yet: the log may show
//! an outcome the baseline lacks, but a raised best never lacks its row.

use crate::config::{baseline_path, existing_suite, impact_path, page_path};
use crate::document::{BestEntry, SkillEval, load_baseline};
use crate::error::{Error, Result};
use crate::fsio::{Staged, lock, remove_stale_temps};
use crate::gate::{self, Decision};
use crate::wiki::{self, Outcome, Row};
use camino::{Utf8Path, Utf8PathBuf};
use std::fs;

/// What [`record`] did.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The decision applied: made again under the lock against the baseline as it was then.
    pub decision: Decision,
    /// True when that decision differs from the one passed in (another recorder
    /// changed the best in between).
    pub revised: bool,
    /// True when `baseline.json` was rewritten (accepted).
    pub raised: bool,
    /// True when the decision passed in was a check's bare rule
    /// ([`gate::Rule::BareCheck`]): a decision that records is made under
    /// the confidence mode unless the bare rule was chosen, so it was made again so.
    pub upgraded: bool,
    /// The row appended to `wiki/skill-impact.md` (no newline).
    pub row: String,
    /// The baseline file.
    pub baseline_path: Utf8PathBuf,
    /// The wiki file.
    pub wiki_path: Utf8PathBuf,
}

impl Recorded {
    /// When another recorder changed the best between the gate and the
    /// record: what happened, in words.
    pub fn revised_note(&self) -> Option<String> {
        if self.upgraded {
            return Some(format!(
                "a decision that records is made under the confidence mode at {} unless the bare rule is chosen (--rule bare, or settings `_workflow.gate_rule`); it was decided again so",
                gate::fmt_level(crate::stats::confidence::DEFAULT_LEVEL)
            ));
        }
        self.revised.then(|| {
            format!(
                "the best for {} changed while this result was gated; it was decided again against the new best",
                self.decision.model
            )
        })
    }
}

/// The warning a record kept under the model `default` deserves: that best
/// follows whatever model the platform defaults to on the day, so a later
/// comparison may be against another model without anyone noticing.
pub fn default_model_warning(model: &str) -> Option<String> {
    (crate::config::canonical_model(model) == "default").then(|| {
        "this result ran on the platform's default model (`default`): its best follows whatever that model is on the day a later result is gated; name one with --model (or ANTHROPIC_MODEL, or `model` in settings.json) so bests compare like with like".to_string()
    })
}

/// The lock file that serializes recorders of a source tree.
pub fn lock_path(source: &Utf8Path) -> Utf8PathBuf {
    source.join("wiki").join(".skill-impact.lock")
}

/// Check what `--record` needs before anything runs or is spent: `--pr` (one line,
/// no `|`) and at least one `--pages`, each a valid name with an existing
/// `wiki/patterns/<page>.md`. Else [`Error::Usage`] (exit 2) naming what is missing.
pub fn check_record_args(source: &Utf8Path, pr: Option<&str>, pages: &[String]) -> Result<()> {
    let Some(pr) = pr else {
        return Err(Error::Usage(
            "--record needs --pr PR: the proposal's pull request, e.g. --pr '#4300'".into(),
        ));
    };
    wiki::check_pr(pr).map_err(|e| Error::Usage(format!("--pr: {e}")))?;
    if pages.is_empty() {
        return Err(Error::Usage(
            "--record needs at least one --pages PAGE: the wiki/patterns/<PAGE>.md pages the proposal was built on".into(),
        ));
    }
    let mut missing = vec![];
    let mut first = None;
    for page in pages {
        wiki::check_page_name(page).map_err(|e| Error::Usage(format!("--pages: {e}")))?;
        let path = page_path(source, page);
        if !path.is_file() {
            missing.push(format!("  {page}: {path} does not exist"));
            first.get_or_insert(page);
        }
    }
    if let Some(first) = first {
        return Err(Error::Usage(format!(
            "--pages cites pattern pages that do not exist:\n{}\na page is a short note in the source tree on the pattern the change applies, which the wiki row links to; write each first, e.g.:\n  mkdir -p wiki/patterns && printf '# {first}\\n\\nWhat the change tries, and why.\\n' > wiki/patterns/{first}.md\nor cite pages that exist (ls wiki/patterns/)",
            missing.join("\n")
        )));
    }
    Ok(())
}

/// Record the outcome of gating `result`: on accept raise the model's best in
/// `baseline.json`; either way append one row to `wiki/skill-impact.md` (created
/// with its header when absent). The rule is run again under the lock (see the
/// module docs), against `again`, the best measured again, when it still
/// stands for the best in force; nothing is written on any error.
pub fn record(
    source: &Utf8Path,
    result: &SkillEval,
    decision: &Decision,
    pr: &str,
    pages: &[String],
    again: Option<&SkillEval>,
) -> Result<Recorded> {
    check_record_args(source, Some(pr), pages)?;
    let model = crate::config::canonical_model(&result.model);
    if decision.item != result.item
        || decision.run != result.run
        || crate::config::canonical_model(&decision.model) != model
    {
        return Err(Error::Usage(format!(
            "the decision is for run {} of {} on {}, not for the result given (run {} of {} on {}): gate the result first",
            decision.run, decision.item, decision.model, result.run, result.item, result.model
        )));
    }
    let item = &result.item;
    existing_suite(source, item)?;
    let baseline_path = baseline_path(source, item);
    let wiki_path = impact_path(source);

    let _lock = lock(&lock_path(source))?;
    remove_stale_temps(&baseline_path);
    remove_stale_temps(&wiki_path);

    let mut baseline = load_baseline(source, item)?;
    // The same mode as the decision passed in: a best raised by luck under
    // the confidence mode must not slip in through a re-decision without it.
    // A check's bare rule never records: unless the bare rule was chosen,
    // a decision that records is made under the confidence mode.
    let upgraded = decision.rule == gate::Rule::BareCheck;
    // Against the best measured again (`again`) when it still stands for
    // the best in force, else against the best as recorded.
    // Held to the item's sequence as the decision passed in was, when it
    // was, and to the same cost limit.
    let mut applied = gate::limit_cost(
        gate::decide_in_sequence(
            result,
            &baseline,
            decision.trust_imported,
            decision.mode().for_recording(),
            again,
            decision.sequence,
        ),
        result,
        decision.max_cost_ratio,
    );
    if decision.require_calibrated {
        applied = gate::require_calibrated(applied, result);
    }
    if again.is_none() {
        // Why the best was not measured again, as the decision said.
        applied.best_measured.clone_from(&decision.best_measured);
    }

    let mut unique: Vec<String> = vec![];
    for p in pages {
        if !unique.contains(p) {
            unique.push(p.clone());
        }
    }
    let row = wiki::format_row(&Row {
        date: result.date.clone(),
        item: result.item.to_string(),
        pr: pr.to_string(),
        pages: unique,
        before: applied.best.as_ref().map(|b| b.score),
        after: applied.with,
        outcome: if applied.accepted {
            Outcome::Accepted
        } else {
            Outcome::Rejected
        },
    });

    // The row must be one `check-wiki` accepts: one parser decides for both.
    wiki::parse_row(&row).map_err(|e| {
        Error::invalid(
            &wiki_path,
            format!("the row to record is not valid: {e}: {row}"),
        )
    })?;

    let old_wiki = match crate::fsio::read_text(&wiki_path, crate::config::MAX_INPUT_FILE) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::unreadable(&wiki_path, e)),
    };
    // A missing or blank file gets the header first, so the row lands in a table.
    let mut new_wiki = old_wiki
        .clone()
        .filter(|text| !text.trim().is_empty())
        .unwrap_or_else(|| wiki::HEADER.to_string());
    if !new_wiki.is_empty() && !new_wiki.ends_with('\n') {
        new_wiki.push('\n');
    }
    new_wiki.push_str(&row);
    new_wiki.push('\n');

    let new_baseline = if applied.accepted {
        baseline.set_best(
            &result.model,
            BestEntry {
                score: applied.with,
                without: applied.without,
                trigger_rate: applied.trigger_rate,
                run: result.run.clone(),
                date: result.date.clone(),
                suite_digest: result.suite_digest.clone(),
                cases: result.case_digests(),
                runs: result.stats.as_ref().map(|s| s.suite.runs_per_arm),
                interval: result.stats.as_ref().map(|s| s.suite.with.interval),
                evidence: crate::document::BestEvidence::of(result),
                confidence: applied.confidence,
                item_digest: result.item_digest.clone(),
                measured_with: result.measured_with(),
            },
        );
        let doc = serde_json::to_value(&baseline).expect("a baseline serializes");
        crate::schema::validate_baseline(&doc, &baseline_path)?;
        Some(serde_json::to_string_pretty(&baseline).expect("a baseline serializes") + "\n")
    } else {
        None
    };

    // Write everything that can fail for lack of space or permission first.
    let wiki_temp = Staged::write(&wiki_path, new_wiki.as_bytes())?;
    let baseline_temp = new_baseline
        .map(|text| Staged::write(&baseline_path, text.as_bytes()))
        .transpose()?;

    wiki_temp.commit()?;
    if let Some(temp) = baseline_temp
        && let Err(err) = temp.commit()
    {
        restore(&wiki_path, old_wiki.as_deref());
        return Err(err);
    }

    Ok(Recorded {
        upgraded,
        revised: applied != *decision,
        raised: applied.accepted,
        decision: applied,
        row,
        baseline_path,
        wiki_path,
    })
}

/// Put the wiki back as it was after a failed baseline rename (best effort: the
/// error being reported is the baseline's).
fn restore(wiki_path: &Utf8Path, old: Option<&str>) {
    match old {
        Some(text) => {
            if let Ok(temp) = Staged::write(wiki_path, text.as_bytes()) {
                let _ = temp.commit();
            }
        }
        None => {
            let _ = fs::remove_file(wiki_path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Baseline;

    fn source() -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let source = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
        fs::create_dir_all(source.join("evals/commit")).unwrap();
        fs::create_dir_all(source.join("wiki/patterns")).unwrap();
        fs::write(source.join("wiki/patterns/commit-skipped-hook.md"), "# x\n").unwrap();
        (dir, source)
    }

    fn result(with: f64, run: &str) -> SkillEval {
        SkillEval {
            run: run.into(),
            model: "m".into(),
            cost_usd: 0.1,
            ..SkillEval::sample(with, 0.5)
        }
    }

    /// The seed's bare rule, chosen: these tests are about the writing, not the mode.
    fn bare(result: &SkillEval, baseline: &Baseline) -> Decision {
        gate::decide_under(result, baseline, false, gate::Mode::Bare)
    }

    fn pages() -> Vec<String> {
        vec!["commit-skipped-hook".into()]
    }

    #[test]
    fn record_args_are_checked() {
        let (_d, s) = source();
        let msg = |r: Result<()>| r.unwrap_err().to_string();
        assert!(msg(check_record_args(&s, None, &pages())).contains("--pr"));
        assert!(msg(check_record_args(&s, Some("#1"), &[])).contains("--pages"));
        assert!(msg(check_record_args(&s, Some("a|b"), &pages())).contains("'|'"));
        assert!(
            msg(check_record_args(&s, Some("#1"), &["Bad/..".into()]))
                .contains("invalid page name")
        );
        let m = msg(check_record_args(
            &s,
            Some("#1"),
            &["nope".into(), "commit-skipped-hook".into()],
        ));
        assert!(m.contains("wiki/patterns/nope.md does not exist"), "{m}");
        assert!(m.contains("> wiki/patterns/nope.md"), "the way out: {m}");
        check_record_args(&s, Some("#1"), &pages()).unwrap();
    }

    #[test]
    fn a_best_keeps_its_evidence_and_a_redecision_keeps_the_mode() {
        let (_d, s) = source();
        let clear = SkillEval {
            run: "eval-commit-20261202T000001Z".into(),
            model: "m".into(),
            ..SkillEval::measured(
                &[
                    (&[1.0; 10], &[0.0; 10]),
                    (&[1.0; 10], &[1.0, 0.0, 0.0, 0.0]),
                ],
                Some((20, 20)),
            )
        };
        let d = gate::decide_at(&clear, &Baseline::empty("commit"), Some(0.95));
        assert!(d.accepted, "{:#?}", d.conditions);
        record(&s, &clear, &d, "#1", &pages(), None).unwrap();
        let best = &load_baseline(&s, &crate::config::item_name("commit"))
            .unwrap()
            .best["m"];
        assert_eq!(best.confidence, Some(0.95));
        let e = best.evidence.as_ref().expect("a best keeps its runs");
        assert_eq!(e.cases.len(), 2);
        assert_eq!((e.cases[1].without.runs, e.cases[1].without.sum), (4, 1.0));
        assert_eq!(e.trigger.map(|t| (t.fired, t.results)), Some((20, 20)));

        // A lucky result decided under the mode (stale, against no best):
        // under the lock it is decided again under the same mode, not the rule alone.
        let lucky = SkillEval {
            run: "eval-commit-20261202T000002Z".into(),
            model: "m".into(),
            ..SkillEval::measured(
                &[(&[1.0; 3], &[0.0; 3]), (&[1.0; 3], &[1.0; 3])],
                Some((6, 6)),
            )
        };
        let stale = gate::decide_at(&lucky, &Baseline::empty("commit"), Some(0.95));
        let done = record(&s, &lucky, &stale, "#2", &pages(), None).unwrap();
        assert_eq!(done.decision.confidence, Some(0.95));
        assert!(!done.raised);
    }

    #[test]
    fn a_check_s_bare_rule_is_recorded_under_the_mode() {
        let (_d, s) = source();
        // Lucky: 3 of 3 against 1 of 3 on one case; the bare rule accepts it.
        let lucky = SkillEval {
            run: "eval-commit-20261202T000003Z".into(),
            model: "m".into(),
            ..SkillEval::measured(&[(&[1.0; 3], &[1.0, 0.0, 0.0])], None)
        };
        let check = gate::decide(&lucky, &Baseline::empty("commit"));
        assert!(check.accepted && check.rule == gate::Rule::BareCheck);
        let done = record(&s, &lucky, &check, "#3", &pages(), None).unwrap();
        assert!(done.upgraded && !done.raised, "{:#?}", done.decision);
        assert_eq!(done.decision.confidence, Some(0.95));
        assert!(done.revised_note().unwrap().contains("--rule bare"));
        // Chosen, the bare rule records as such.
        let chosen = bare(&lucky, &Baseline::empty("commit"));
        let done = record(&s, &lucky, &chosen, "#4", &pages(), None).unwrap();
        assert!(done.raised && !done.upgraded);
        assert_eq!(done.decision.rule, gate::Rule::Bare);
    }

    #[test]
    fn the_cost_limit_is_applied_again_under_the_lock() {
        let (_d, s) = source();
        // The bare rule accepts it, but the decision carries a cost limit and
        // the result states no cost per run: decided again, it is refused.
        let r = result(0.8, "eval-commit-20261202T000005Z");
        let d = Decision {
            max_cost_ratio: Some(1.5),
            ..bare(&r, &Baseline::empty("commit"))
        };
        assert!(d.accepted);
        let done = record(&s, &r, &d, "#5", &pages(), None).unwrap();
        assert!(!done.raised && !done.decision.accepted);
        let cost = done
            .decision
            .conditions
            .iter()
            .find(|c| c.name == "cost-ratio");
        assert!(
            cost.is_some_and(|c| c.text.contains("states no cost per run")),
            "{:#?}",
            done.decision.conditions
        );
    }

    #[test]
    fn a_blank_wiki_file_gets_the_header_before_the_row() {
        let (_d, s) = source();
        fs::write(s.join("wiki/skill-impact.md"), "\n").unwrap();
        let r = result(0.8, "eval-commit-20261202T000001Z");
        let decision = bare(&r, &Baseline::empty("commit"));
        record(&s, &r, &decision, "#1", &pages(), None).unwrap();
        let text = fs::read_to_string(s.join("wiki/skill-impact.md")).unwrap();
        assert!(text.starts_with(wiki::HEADER), "{text}");
        assert_eq!(wiki::row_lines(&text).count(), 1);
    }

    #[test]
    fn accept_raises_reject_leaves_and_stale_decision_is_redone() {
        let (_d, s) = source();
        let first = result(0.8, "eval-commit-20261202T000001Z");
        let stale = bare(&first, &Baseline::empty("commit"));
        let done = record(&s, &first, &stale, "#1", &pages(), None).unwrap();
        assert!(done.raised && !done.revised);
        let b = load_baseline(&s, &crate::config::item_name("commit")).unwrap();
        assert_eq!(b.best["m"].score, 0.8);

        // Decided against the empty baseline (accept), but the best is now 0.8.
        let lower = result(0.7, "eval-commit-20261202T000002Z");
        let stale = bare(&lower, &Baseline::empty("commit"));
        assert!(stale.accepted);
        let done = record(&s, &lower, &stale, "#2", &pages(), None).unwrap();
        assert!(!done.raised && done.revised && !done.decision.accepted);
        assert_eq!(
            load_baseline(&s, &crate::config::item_name("commit"))
                .unwrap()
                .best["m"]
                .score,
            0.8
        );

        let text = fs::read_to_string(s.join("wiki/skill-impact.md")).unwrap();
        assert!(text.starts_with(wiki::HEADER));
        let rows: Vec<_> = wiki::row_lines(&text)
            .map(|(_, l)| wiki::parse_row(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].before, rows[0].after, rows[0].outcome),
            (None, 0.8, Outcome::Accepted)
        );
        assert_eq!(
            (rows[1].before, rows[1].after, rows[1].outcome),
            (Some(0.8), 0.7, Outcome::Rejected)
        );
        assert!(wiki::check_wiki(&s).unwrap().is_empty());
        let leftovers: Vec<_> = fs::read_dir(s.join("wiki"))
            .unwrap()
            .chain(fs::read_dir(s.join("evals/commit")).unwrap())
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_wiki_that_cannot_be_written_leaves_the_baseline_untouched() {
        let (_d, s) = source();
        fs::create_dir_all(s.join("wiki/skill-impact.md")).unwrap();
        let r = result(0.9, "eval-commit-20261202T000001Z");
        let d = bare(&r, &Baseline::empty("commit"));
        let err = record(&s, &r, &d, "#1", &pages(), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("wiki/skill-impact.md"), "{err}");
        assert!(!s.join("evals/commit/baseline.json").exists());
    }

    /// A temp file that cannot be created (here: a folder in its place) stands for a
    /// read-only folder or a full disk, which root cannot simulate with permissions.
    fn block_temp(target: &Utf8Path) {
        fs::create_dir_all(crate::fsio::temp_path(target)).unwrap();
    }

    #[test]
    fn a_failed_baseline_write_changes_neither_file() {
        let (_d, s) = source();
        let r = result(0.9, "eval-commit-20261202T000001Z");
        let d = bare(&r, &Baseline::empty("commit"));
        record(&s, &r, &d, "#1", &pages(), None).unwrap();
        let (baseline, wiki_text) = (
            fs::read_to_string(s.join("evals/commit/baseline.json")).unwrap(),
            fs::read_to_string(s.join("wiki/skill-impact.md")).unwrap(),
        );
        block_temp(&s.join("evals/commit/baseline.json"));
        let better = result(0.95, "eval-commit-20261202T000002Z");
        let d = bare(
            &better,
            &load_baseline(&s, &crate::config::item_name("commit")).unwrap(),
        );
        let err = record(&s, &better, &d, "#2", &pages(), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("evals/commit/baseline.json: writing"), "{err}");
        assert_eq!(
            fs::read_to_string(s.join("evals/commit/baseline.json")).unwrap(),
            baseline
        );
        assert_eq!(
            fs::read_to_string(s.join("wiki/skill-impact.md")).unwrap(),
            wiki_text
        );
        let wiki_temps = fs::read_dir(s.join("wiki")).unwrap().filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".tmp")
        });
        assert_eq!(wiki_temps.count(), 0);
    }

    #[test]
    fn a_failed_wiki_write_leaves_the_baseline_untouched() {
        let (_d, s) = source();
        block_temp(&s.join("wiki/skill-impact.md"));
        let r = result(0.9, "eval-commit-20261202T000001Z");
        let d = bare(&r, &Baseline::empty("commit"));
        let err = record(&s, &r, &d, "#1", &pages(), None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("wiki/skill-impact.md: writing"), "{err}");
        assert!(!s.join("evals/commit/baseline.json").exists());
        assert!(!s.join("wiki/skill-impact.md").exists());
    }

    #[test]
    fn stale_temps_are_removed_under_the_lock() {
        let (_d, s) = source();
        fs::write(s.join("evals/commit/.baseline.json.99999.tmp"), "{").unwrap();
        fs::write(s.join("wiki/.skill-impact.md.99999.tmp"), "| x").unwrap();
        let r = result(0.9, "eval-commit-20261202T000001Z");
        let d = bare(&r, &Baseline::empty("commit"));
        record(&s, &r, &d, "#1", &pages(), None).unwrap();
        assert!(!s.join("evals/commit/.baseline.json.99999.tmp").exists());
        assert!(!s.join("wiki/.skill-impact.md.99999.tmp").exists());
    }

    #[test]
    fn a_decision_for_another_result_is_refused() {
        let (_d, s) = source();
        let r = result(0.9, "eval-commit-20261202T000001Z");
        let other = result(0.9, "eval-commit-20261202T000009Z");
        let d = bare(&other, &Baseline::empty("commit"));
        assert!(record(&s, &r, &d, "#1", &pages(), None).is_err());
        assert!(!s.join("wiki/skill-impact.md").exists());
    }
}
