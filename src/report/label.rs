//! `bob-eval label` in words: a run to label (never the judge's verdict),
//! the reveal after the answer, and each grader's labels against the
//! calibration threshold.

use crate::ops::label::{
    CONFIDENCE, Candidate, ClassNeed, GraderStatus, LabelImportReport, Need, Pool,
    SECONDS_PER_LABEL, THRESHOLD,
};
use crate::suite::labels::{Answered, LabelVerdict, stale_words};
use std::fmt::Write;

/// One run to label: where it is from, the criterion and what the judge saw.
pub fn prompt(candidate: &Candidate, at: usize, of: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n── {at}/{of} · case `{}` · grader `{}` · {} arm · run {}",
        candidate.case,
        candidate.grader,
        candidate.arm.as_str(),
        &candidate.run[..candidate.run.len().min(12)]
    );
    let _ = writeln!(out, "Criterion:\n{}", indent(&candidate.criterion));
    let _ = writeln!(out, "What the judge saw:\n{}", indent(&candidate.saw));
    out
}

/// The question asked after each run.
pub const QUESTION: &str =
    "Does it meet the criterion? [p]ass, [f]ail, [s]kip, [q]uit (each answer is saved at once): ";

/// The reveal after an answer: what was saved, what the judge said.
pub fn revealed(human: LabelVerdict, judge: LabelVerdict, answered: &Answered) -> String {
    let agree = if human == judge {
        "you agree"
    } else {
        "you disagree"
    };
    let replaced = match answered {
        Answered::Added => String::new(),
        Answered::Replaced(old) => format!(
            " (replaces your earlier {} for this run)",
            old.human.as_str().to_uppercase()
        ),
    };
    format!(
        "saved {}{replaced} · the judge said {}: {agree}\n",
        human.as_str().to_uppercase(),
        judge.as_str().to_uppercase()
    )
}

fn indent(text: &str) -> String {
    let body: Vec<String> = text
        .lines()
        .map(|l| format!("  │ {l}").trim_end().to_owned())
        .collect();
    if body.is_empty() {
        "  │".to_owned()
    } else {
        body.join("\n")
    }
}

/// What the pool holds that cannot be labelled, and stale labels, as lines.
pub fn notes(pool: &Pool) -> String {
    let mut out = String::new();
    if pool.no_evidence > 0 {
        let _ = writeln!(
            out,
            "{} judged grader result(s) of stored runs kept no evidence (stored before bob-eval kept what the judge saw): they cannot be labelled; run the suite again to get runs that can",
            pool.no_evidence
        );
    }
    if pool.other_version > 0 {
        let _ = writeln!(
            out,
            "{} judged grader result(s) come from runs of an earlier version of their case (the judge may have read another criterion): not offered",
            pool.other_version
        );
    }
    for why in &pool.unnamed {
        let _ = writeln!(out, "cannot label: {why}");
    }
    for g in &pool.graders {
        let stale = g.current().1;
        if stale > 0 {
            let _ = writeln!(
                out,
                "grader `{}` of case `{}`: {}",
                g.grader,
                g.case,
                stale_words(stale)
            );
        }
    }
    out
}

/// Each grader's labels against the threshold, one paragraph per grader.
pub fn status(rows: &[GraderStatus]) -> String {
    if rows.is_empty() {
        return "no judged (llm or baseline) grader to label here\n".to_owned();
    }
    let mut out = String::new();
    for row in rows {
        let n = &row.need;
        let _ = writeln!(
            out,
            "grader `{}` of case `{}`: {} label(s) ({} where the judge passed, {} where it failed), {} run(s) left to label",
            row.grader, row.case, row.labels, n.by_judge[0], n.by_judge[1], row.unlabelled
        );
        let _ = writeln!(
            out,
            "  person PASS: {} · person FAIL: {}",
            class("TPR", &n.pass),
            class("TNR", &n.fail)
        );
        let _ = writeln!(out, "  {}", verdict(n));
    }
    let open: Vec<&GraderStatus> = rows.iter().filter(|r| !r.need.reached).collect();
    if rows.len() > 1 && !open.is_empty() {
        let reachable: Vec<&&GraderStatus> =
            open.iter().filter(|r| r.more_labels.is_some()).collect();
        let more: u32 = reachable.iter().filter_map(|r| r.more_labels).sum();
        let minutes: u32 = reachable.iter().filter_map(|r| r.minutes).sum();
        let _ = writeln!(
            out,
            "calibrating the {} grader(s) not calibrated yet: about {more} more label(s), ≈ {minutes} min of a person's time{}",
            reachable.len(),
            match open.len() - reachable.len() {
                0 => String::new(),
                n => format!(" ({n} more cannot reach the threshold at the agreement seen so far)"),
            }
        );
    }
    let _ = writeln!(
        out,
        "(calibrated when the lower limits of the {:.0} % Wilson intervals on TPR and TNR both reach {THRESHOLD:.2}; time at about {SECONDS_PER_LABEL} s a label)",
        CONFIDENCE * 100.0
    );
    out
}

fn class(name: &str, c: &ClassNeed) -> String {
    match c.rate {
        None => format!("0 labels, {name} unknown"),
        Some(rate) => format!(
            "{} label(s), judge agreed on {} ({name} {:.2}, lower limit {:.2})",
            c.labels, c.agreed, rate, c.low
        ),
    }
}

fn verdict(n: &Need) -> String {
    if n.reached {
        return format!("calibrated: both lower limits reach {THRESHOLD:.2}");
    }
    let more = |c: &ClassNeed, what: &str| match c.more {
        Some(0) => None,
        Some(m) => Some(format!("{m} more where the person says {what}")),
        None => Some(format!(
            "no number of labels where the person says {what} will do while the judge agrees on {} of {} of them{}",
            c.agreed,
            c.labels,
            if c.labels < 16 {
                " (few labels yet: label more to be sure)"
            } else {
                ""
            }
        )),
    };
    let parts: Vec<String> = [more(&n.pass, "PASS"), more(&n.fail, "FAIL")]
        .into_iter()
        .flatten()
        .collect();
    match (n.reachable, n.minutes()) {
        (true, Some(minutes)) => format!(
            "not calibrated yet: about {} (if the judge keeps agreeing as it has: ≈ {minutes} min of a person's time)",
            parts.join(" and ")
        ),
        _ => format!(
            "not calibrated, and not reachable at the agreement seen so far: {}; if it holds, fix the criterion (or the judge model) and label again",
            parts.join("; ")
        ),
    }
}

/// What calibrating the judged graders of `item` would cost, in one line
/// (`run --dry-run`); `None` when every one is calibrated (or there is none).
pub fn calibration_cost(item: &str, rows: &[GraderStatus]) -> Option<String> {
    let open: Vec<&GraderStatus> = rows.iter().filter(|r| !r.need.reached).collect();
    if open.is_empty() {
        return None;
    }
    let names: Vec<String> = open
        .iter()
        .map(|r| format!("`{}` of `{}`", r.grader, r.case))
        .collect();
    let reachable: Vec<&&GraderStatus> = open.iter().filter(|r| r.more_labels.is_some()).collect();
    let more: u32 = reachable.iter().filter_map(|r| r.more_labels).sum();
    let minutes: u32 = reachable.iter().filter_map(|r| r.minutes).sum();
    let stuck = open.len() - reachable.len();
    Some(format!(
        "calibration: {} llm grader(s) not calibrated ({}): about {more} more label(s), ≈ {minutes} min of a person's time at {SECONDS_PER_LABEL} s a label{}; `bob-eval label {item}`",
        open.len(),
        names.join(", "),
        if stuck > 0 {
            format!(" ({stuck} cannot reach the threshold at the agreement seen so far)")
        } else {
            String::new()
        }
    ))
}

/// What an import did, in one line.
pub fn imported(r: &LabelImportReport) -> String {
    let mut out = format!(
        "imported {}: {} entr{} · {} new label(s) · {} replaced an earlier label · {} left blank (skipped)",
        r.file,
        r.entries,
        if r.entries == 1 { "y" } else { "ies" },
        r.added,
        r.replaced,
        r.skipped
    );
    if r.stale > 0 {
        let _ = write!(
            out,
            " · {} given for an earlier criterion (the grader changed since the export): kept, but they do not count; label again",
            r.stale
        );
    }
    if r.dropped > 0 {
        let _ = write!(
            out,
            " · {} for an earlier criterion on runs labelled since: dropped",
            r.dropped
        );
    }
    out.push('\n');
    for file in &r.written {
        let _ = writeln!(out, "wrote {file}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Arm;
    use crate::ops::label::{class_need, need};
    use crate::suite::labels::Label;

    fn candidate() -> Candidate {
        Candidate {
            entry: "e0123456789abcdef".into(),
            run: "3f2a9c0d1e4b5a6978".into(),
            case: "fires".into(),
            grader: "why".into(),
            arm: Arm::Without,
            criterion: "The body says why the hook is skipped.".into(),
            saw: "fix(hooks): skip the hook\n\nDocs-only commits need no lint.".into(),
            judge: LabelVerdict::Fail,
            judge_model: "default".into(),
        }
    }

    #[test]
    fn a_run_to_label_never_shows_the_judge() {
        let text = prompt(&candidate(), 2, 7);
        assert!(!text.contains("FAIL") && !text.contains("fail"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn the_reveal_says_agreement_and_replacement() {
        assert_eq!(
            revealed(LabelVerdict::Fail, LabelVerdict::Fail, &Answered::Added),
            "saved FAIL · the judge said FAIL: you agree\n"
        );
        let old = Label {
            run: "r".into(),
            arm: "with".into(),
            human: LabelVerdict::Fail,
            judge: LabelVerdict::Fail,
            at: "2026-12-05T08:00:00Z".into(),
            by: None,
            criterion_digest: None,
            judge_model: None,
        };
        assert_eq!(
            revealed(
                LabelVerdict::Pass,
                LabelVerdict::Fail,
                &Answered::Replaced(old)
            ),
            "saved PASS (replaces your earlier FAIL for this run) · the judge said FAIL: you disagree\n"
        );
    }

    fn row(grader: &str, pass: (u32, u32), fail: (u32, u32)) -> GraderStatus {
        let mut n = need(&[]);
        n.pass = class_need(pass.0, pass.1);
        n.fail = class_need(fail.0, fail.1);
        n.reached = n.pass.low >= THRESHOLD && n.fail.low >= THRESHOLD;
        n.reachable = n.pass.total_needed.is_some() && n.fail.total_needed.is_some();
        n.by_judge = [pass.0 + fail.1 - fail.0, fail.0 + pass.1 - pass.0];
        GraderStatus {
            case: "fires".into(),
            grader: grader.into(),
            labels_file: format!("evals/commit/fires/graders/{grader}.labels.json").into(),
            labels: (pass.1 + fail.1) as usize,
            stale: 0,
            unlabelled: 12,
            more_labels: n.more(),
            minutes: n.minutes(),
            need: n,
        }
    }

    #[test]
    fn each_grader_against_the_threshold() {
        let rows = [
            row("new", (0, 0), (0, 0)),
            row("close", (18, 20), (10, 10)),
            row("poor", (15, 20), (20, 20)),
            row("done", (30, 30), (30, 30)),
        ];
        insta::assert_snapshot!(status(&rows));
    }
}
