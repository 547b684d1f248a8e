//! Step 3 of an evaluation: the runs gathered ([`Gathered`]) reduced to a
//! validated `skill-eval/1`, the evaluation kept in the evidence store, and
//! the platform's report saved where `--report` asks.

use super::{Gathered, collect, plan};
use crate::document::{PartialReason, SkillEval, round4};
use crate::error::{Error, Result};
use crate::event::Event;
use crate::evidence::{self, Store, StoredRun};
use crate::platform;
use crate::reduce::{ReduceContext, ResultSource};
use camino::Utf8PathBuf;

/// Step 3: reduce the platform's document to a validated `skill-eval/1`
/// that records the flags it was evaluated with; then, under `--report
/// FILE`, save the platform's `report.html` there.
/// A document made from the evidence store is kept there as an evaluation
/// first (see [`keep_evaluation`]).
pub fn reduce(run: &Gathered) -> Result<SkillEval> {
    let mut doc = reduce_only(run)?;
    doc.flags = Some(run.flags.clone());
    keep_evaluation(run, &doc);
    save_report(run, &doc)?;
    Ok(doc)
}

/// Keep the evaluation `doc` states in the evidence store, with the runs it
/// was made from: the one place `run`, `exam` and `sweep` keep what
/// `bob-eval history` plots. A document reduced from `--platform-result`
/// used no stored run and is not kept. A store that stays busy gets it later
/// (set aside as the runs bought are); the document is sound whether or not
/// the store takes it: a failure is a warning, never a lost result.
fn keep_evaluation(run: &Gathered, doc: &SkillEval) {
    let (Some(evidence), Some(keep)) = (&run.evidence, &run.keep) else {
        return;
    };
    let plan = &evidence.plan;
    let used: Vec<&StoredRun> = evidence
        .used
        .iter()
        .flat_map(|u| u.with.iter().chain(&u.without))
        .collect();
    let mut per_case: Vec<u32> = plan.cases.iter().map(|c| c.runs).collect();
    per_case.dedup();
    let runs = match (keep.auto, per_case.as_slice()) {
        (Some(max), _) => format!("auto:{max}"),
        (None, [n]) => n.to_string(),
        (None, _) => "per case".into(),
    };
    let options = evidence::EvaluationOptions {
        judge_model: plan.judge_model.clone(),
        platform_version: used.first().map(|r| r.key.platform_version.clone()),
        tools: plan.tools.clone(),
        options: plan.options.clone(),
        runs,
        fresh: keep.fresh,
        cases: plan.cases.iter().map(|c| c.name.clone()).collect(),
    };
    let evaluation = evidence::Evaluation::of(
        doc,
        evidence.started,
        plan.filtered,
        options,
        used.iter().map(|r| r.id.clone()).collect(),
    );
    let observer = &run.observer.0;
    let mut on_busy = |waited| {
        observer.event(&Event::StoreBusy {
            item: doc.item.to_string(),
            keeping: "the evaluation",
            store: keep.store.clone(),
            waited,
            wait: keep.wait,
        })
    };
    let kept = Store::open(&keep.store).and_then(|mut store| {
        store.set_bought_wait(keep.wait);
        store.keep_evaluation(&evaluation, &mut on_busy)
    });
    match kept {
        Ok(evidence::Kept::Stored(_)) => {}
        Ok(evidence::Kept::SetAside(file)) => observer.event(&Event::Notice(format!(
            "{}: the evidence store {} stayed busy for {} s: evaluation {} is kept in {file} and stored the next time bob-eval writes the store",
            doc.item,
            keep.store,
            keep.wait.as_secs(),
            doc.run
        ))),
        Err(e) => observer.event(&Event::Warning(crate::error::Warning::new(format!(
            "evaluation {} was not kept in the evidence store ({e}): `bob-eval history` will not show it",
            doc.run
        )))),
    }
}

/// Copy the report of the last platform run (or the one beside
/// `--platform-result`) to `--report FILE`, atomically, and say so; say
/// why when there is none (every run was reused, or the platform wrote none).
fn save_report(run: &Gathered, doc: &SkillEval) -> Result<()> {
    let Some(pinned) = &run.run.report else {
        return Ok(());
    };
    let to = pinned.path();
    let tell = |text: String| run.observer.0.event(&Event::Notice(text));
    let from = match (&run.output, &run.document) {
        (Some(out), _) => out.report(),
        (None, Some(document)) => platform::report_beside(document),
        (None, None) => {
            tell(format!(
                "no report saved at {to}: every run was reused from the evidence store, so the platform did not run (--fresh buys them anew)"
            ));
            return Ok(());
        }
    };
    if !from.is_file() {
        let beside = run
            .document
            .as_deref()
            .map_or_else(String::new, |d| format!(" beside {d}"));
        tell(format!(
            "no report saved at {to}: the platform wrote no report.html{beside}"
        ));
        return Ok(());
    }
    let bytes = crate::fsio::read(&from, crate::config::MAX_INPUT_FILE)
        .map_err(|e| Error::unreadable(&from, e))?;
    pinned.write(&bytes)?;
    let reused = doc.reused_runs.unwrap_or(0) + doc.imported_runs.unwrap_or(0);
    let rounds = run.evidence.as_ref().is_some_and(|e| e.auto.is_some());
    let partly = if reused > 0 || rounds {
        format!(
            " (it shows the last platform run only: not the {reused} run(s) reused from the evidence store{})",
            if rounds { " nor earlier rounds" } else { "" }
        )
    } else {
        String::new()
    };
    tell(format!("saved the platform's report at {to}{partly}"));
    Ok(())
}

/// [`reduce`] without saving the report.
fn reduce_only(run: &Gathered) -> Result<SkillEval> {
    let Some(document) = &run.document else {
        return reduce_evidence(run);
    };
    let (origin, started) = match &run.output {
        Some(out) => (
            ResultSource::Platform {
                exit_code: out.exit_code,
            },
            Some(out.started),
        ),
        None => (ResultSource::File, None),
    };
    let ctx = ReduceContext {
        item: run.item.clone(),
        model: run.run.model.clone(),
        max_cost_usd: run.run.max_cost_usd,
        started,
    };
    let mut doc = crate::reduce::reduce_file(document, origin, &ctx)?;
    if run.output.is_none() {
        collect::calibrate_file(&mut doc, document, &run.judges)?;
        let said = collect::NO_TRANSCRIPTS_FILE.to_string();
        run.observer.0.event(&Event::Notice(said));
    }
    Ok(doc)
}

/// The document from the runs gathered: the platform's reduction over them,
/// `cost_usd` what this invocation spent, partial when a platform run stopped
/// early or the cases were filtered.
fn reduce_evidence(run: &Gathered) -> Result<SkillEval> {
    let evidence = run.evidence.as_ref().ok_or_else(|| Error::PlatformFailed {
        message: "nothing to reduce: the platform did not run".into(),
        details: vec![],
    })?;
    let ctx = ReduceContext {
        item: run.item.clone(),
        model: run.run.model.clone(),
        max_cost_usd: run.run.max_cost_usd,
        started: Some(evidence.started),
    };
    let label = Utf8PathBuf::from(format!("<evidence for {}>", run.item));
    let mut doc = plan::document(
        &evidence.plan,
        &evidence.used,
        &ctx,
        evidence.started,
        &label,
    )?;
    doc.cost_usd = evidence.spent_usd;
    doc.run.clone_from(&evidence.run_id);
    doc.item_digest = Some(evidence.plan.item_digest.clone());
    if evidence
        .plan
        .cases
        .iter()
        .any(|c| c.scaffold_script.is_some())
    {
        let ran = if evidence.plan.scaffold {
            "run"
        } else {
            "skipped"
        };
        doc.scaffold = Some(ran.into());
    }
    if let Some(n) = &run.neighbours {
        doc.cost_usd = round4(doc.cost_usd + n.cost_usd);
        doc.neighbours = Some(n.clone());
    }
    // The platform's own reason first, then the runs used (errored runs,
    // counted over every round), then a filter.
    let reason = evidence
        .partial_reason
        .clone()
        .filter(|r| !r.is_run_errors())
        .or_else(|| doc.partial_reason.clone())
        .or_else(|| evidence.partial_reason.clone())
        .or_else(|| evidence.plan.filtered.then_some(PartialReason::Filtered));
    doc.partial = reason.is_some();
    doc.partial_reason = reason;
    doc.reused_runs = Some(evidence.reused_runs);
    doc.imported_runs = (evidence.imported_runs > 0).then_some(evidence.imported_runs);
    doc.reused_cost_usd = Some(evidence.reused_cost_usd);
    doc.mcp_servers = run.run.servers.words();
    for case in &mut doc.cases {
        if let Some(words) = evidence.advisories.get(&case.name) {
            case.advisories.clone_from(words);
        }
        case.digest = evidence
            .plan
            .cases
            .iter()
            .find(|c| c.name == case.name)
            .map(|c| c.digest.clone());
    }
    doc.suite_digest = Some(evidence.plan.suite_digest());
    doc.calibration = plan::calibration(&evidence.plan, &evidence.used);
    doc.platform_env =
        (!evidence.plan.platform_env.is_empty()).then(|| evidence.plan.platform_env.clone());
    if let Some(auto) = &evidence.auto {
        // The driver's own look, at its confidence (above 95 %: the looks are paid for).
        doc.stats = Some(crate::document::Stats {
            confidence: auto.comparison.confidence,
            suite: auto.comparison.suite.clone().rounded(),
            trigger: doc.stats.as_ref().and_then(|s| s.trigger),
            auto: Some(crate::document::AutoRounds {
                rounds: u32::try_from(auto.rounds).unwrap_or(u32::MAX),
                stop: auto.stop.clone(),
                confidence_mode: auto.level,
            }),
            min_effect: None,
        });
        for (case, stats) in doc.cases.iter_mut().zip(&auto.comparison.cases) {
            case.stats = Some(stats.clone().rounded());
        }
    }
    if let Some(stats) = &mut doc.stats {
        stats.min_effect = run.min_effect;
    }
    let value = serde_json::to_value(&doc)
        .map_err(|e| Error::invalid(&label, format!("cannot be reduced: {e}")))?;
    crate::schema::validate_skill_eval(&value, &label)?;
    Ok(doc)
}
