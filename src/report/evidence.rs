//! Human output of `bob-eval evidence list` and `import`.

use crate::evidence::{ImportReport, ListEntry, MAX_CLOCK_SKEW};
use camino::Utf8Path;
use std::fmt::Write;

/// What `evidence import` did with `file`: one line, then one per reason
/// runs were refused (the count, the first line and what is wrong with it).
pub fn imported(file: &Utf8Path, report: &ImportReport) -> String {
    let mut out = format!(
        "{file}: {} run(s): {} added, {} already kept",
        report.runs, report.added, report.already
    );
    if report.refused > 0 {
        let _ = write!(out, ", {} refused (not stored)", report.refused);
    }
    let _ = write!(
        out,
        "; {} evaluation(s), {} added; {} decision(s), {} added",
        report.evaluations, report.evaluations_added, report.decisions, report.decisions_added
    );
    if report.transcripts > 0 {
        let _ = write!(
            out,
            "; {} transcript(s), {} added",
            report.transcripts, report.transcripts_added
        );
    }
    out.push('\n');
    for r in &report.records_refused {
        let _ = writeln!(
            out,
            "  refused the {} at {file}:{} (not stored): {}",
            r.kind, r.line, r.why
        );
    }
    for r in &report.refusals {
        let _ = writeln!(
            out,
            "  refused {} run(s) {}: first at {file}:{}: {}",
            r.runs,
            r.reason.words(),
            r.first_line,
            r.example
        );
    }
    if report
        .refusals
        .iter()
        .any(|r| r.reason == crate::evidence::Refusal::Future)
    {
        let _ = writeln!(
            out,
            "  (a run may start at most {} min after this machine's clock: more is a forged or mis-set date, and would shadow genuine runs as the most recent)",
            MAX_CLOCK_SKEW.num_minutes()
        );
    }
    out
}

/// A table (the same one scripts' `table` draws): item, case, arm, model,
/// runs, where they came from, first and last day, cost; then a total.
pub fn list(path: &Utf8Path, entries: &[ListEntry]) -> String {
    if entries.is_empty() {
        return format!("{path}: no runs kept\n");
    }
    let headers: Vec<String> = [
        "item",
        "case",
        "arm",
        "model",
        "runs",
        "provenance",
        "first",
        "last",
        "cost",
    ]
    .map(String::from)
    .to_vec();
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            vec![
                crate::text::line(&e.item).into_owned(),
                crate::text::line(&e.case).chars().take(60).collect(),
                e.arm.as_str().to_string(),
                crate::text::line(&e.model).into_owned(),
                e.runs.to_string(),
                e.provenance.words(),
                e.first.format("%Y-%m-%d").to_string(),
                e.last.format("%Y-%m-%d").to_string(),
                format!("${:.4}", e.cost_usd),
            ]
        })
        .collect();
    let runs: u64 = entries.iter().map(|e| e.runs).sum();
    let cost = crate::document::sum_usd(entries.iter().map(|e| e.cost_usd));
    let imported: u64 = entries.iter().map(|e| e.provenance.imported).sum();
    let untrusted = if imported > 0 {
        format!(
            "; {imported} imported from files (gate and propose accept on them only with --trust-imported)"
        )
    } else {
        String::new()
    };
    format!(
        "{}\n{runs} run(s) kept in {path}, ${cost:.4} in all{untrusted}\n",
        crate::text::table(&headers, &rows)
    )
}

/// What `evidence gc` kept and freed, in words.
pub fn collected(path: &Utf8Path, o: &crate::ops::show::GcOutcome) -> String {
    let g = &o.gc;
    let mib = |b: u64| b as f64 / 1048576.0;
    let verb = if g.dry_run { "would drop" } else { "dropped" };
    format!(
        "{path}: kept the transcripts of {} run(s) ({} trace(s), {:.2} MiB): those behind {} best(s) and the decisions recorded since {}\n{verb} the transcripts of {} run(s) ({} trace(s), {:.2} MiB freed){}\n",
        g.kept_runs,
        g.kept_traces,
        mib(g.kept_bytes),
        o.bests.len(),
        o.decisions_since.format("%Y-%m-%d"),
        g.dropped_runs,
        g.dropped_traces,
        mib(g.freed_bytes),
        if g.dry_run {
            "; nothing was dropped (--dry-run)"
        } else {
            "; the runs are all kept"
        }
    )
}
