//! `bob-eval compare`'s output: the terminal text here, the Markdown of a
//! pull request comment (`markdown.rs`) and one self-contained HTML page
//! (`html.rs`), all from one [`EvalComparison`].

mod html;
mod markdown;

pub use html::html;
pub use markdown::markdown;

use crate::document::{FigureKind, Figures};
use crate::ops::compare::{
    Answers, CaseComparison, CaseSideFigures, CompareFigure, Difference, EvalComparison,
    GraderArms, GraderChange, Presence, SideSummary,
};
use crate::text::{clip, line};
use std::fmt::Write;

/// The longest answer shown in the terminal and in Markdown, in characters.
const ANSWER_CHARS: usize = 400;

/// What the output says when no answer of a case was kept.
pub const NO_ANSWERS: &str = "answers not kept for these runs";

/// `0.83 [0.55, 0.95]` (signed with `+` when `signed`), or the bare number.
pub fn figure(f: &CompareFigure, signed: bool) -> String {
    let n = |v: f64| {
        if signed {
            format!("{v:+.2}")
        } else {
            format!("{v:.2}")
        }
    };
    match (f.low, f.high) {
        (Some(lo), Some(hi)) => format!("{} [{}, {}]", n(f.value), n(lo), n(hi)),
        _ => n(f.value),
    }
}

/// An optional figure, `—` when absent.
fn maybe(f: Option<&CompareFigure>, signed: bool) -> String {
    f.map_or_else(|| "—".to_string(), |f| figure(f, signed))
}

/// The level and method of the intervals, said once.
pub fn method_line(c: &EvalComparison) -> String {
    let levels: Vec<f64> = [c.a.confidence, c.b.confidence, Some(c.confidence)]
        .into_iter()
        .flatten()
        .collect();
    let pct = |v: f64| format!("{} %", (v * 1000.0).round() / 10.0);
    let level = if levels.iter().all(|l| (l - c.confidence).abs() < 1e-9) {
        pct(c.confidence)
    } else {
        format!(
            "A's at {}, B's at {}, the delta of deltas at {}",
            c.a.confidence.map_or("—".into(), pct),
            c.b.confidence.map_or("—".into(), pct),
            pct(c.confidence)
        )
    };
    format!("Intervals: {level}; {}.", c.method)
}

/// The line above the efficiency table: how its figures were computed, at
/// the first side's confidence that states one.
pub fn efficiency_heading(c: &EvalComparison) -> String {
    let confidence = [&c.a, &c.b]
        .iter()
        .find_map(|s| s.efficiency.as_ref().map(|e| e.confidence))
        .unwrap_or(c.confidence);
    format!(
        "efficiency per run, suite ({:.0} % intervals: t on each arm's mean, delta-method log-ratio on with/without; cost is the model's, the judge's left out)",
        confidence * 100.0
    )
}

/// How a side is named in one line.
pub fn side_line(label: &str, s: &SideSummary) -> String {
    format!(
        "{label}  {} · {} · {} · {} ({}){}",
        line(&s.run),
        line(&s.model),
        s.date,
        line(&s.spec),
        line(&s.source),
        if s.partial { " · partial" } else { "" }
    )
}

/// One difference in words.
pub fn difference_line(d: &Difference) -> String {
    format!("{}: A {} · B {}", d.what, line(&d.a), line(&d.b))
}

/// What the item's digest says, in words.
pub fn item_words(c: &EvalComparison) -> &'static str {
    match c.item_changed {
        Some(true) => "The item's files differ between A and B (the change compared).",
        Some(false) => "The item's files are the same on both.",
        None => "Whether the item's files differ is not known (a side does not say).",
    }
}

/// A grader's passes on one side: `with 3/3 · without 0/3`, or `—`.
pub fn grader_side(g: Option<&GraderArms>) -> String {
    match g {
        None => "—".into(),
        Some(g) => {
            let mut s = format!("with {}/{}", g.with.passed, g.with.runs);
            if let Some(w) = g.without {
                let _ = write!(s, " · without {}/{}", w.passed, w.runs);
            }
            s
        }
    }
}

/// What a case's presence and edit say, in words (empty when both hold it unedited).
pub fn case_note(c: &CaseComparison) -> &'static str {
    match (c.presence, c.edited) {
        (Presence::OnlyA, _) => " (only in A)",
        (Presence::OnlyB, _) => " (only in B)",
        (_, Some(true)) => " (edited between A and B)",
        _ => "",
    }
}

/// True when no answer of the case was kept.
pub fn no_answers(a: &Answers) -> bool {
    a.with.iter().chain(&a.without).all(Option::is_none)
}

/// The graders that changed.
pub fn changed(c: &CaseComparison) -> impl Iterator<Item = &GraderChange> {
    c.graders.iter().filter(|g| g.changed)
}

/// A case's figure for one arm on one side.
pub fn arm_cell(arms: Option<&CaseSideFigures>, which: usize) -> String {
    match arms {
        None => "—".into(),
        Some(a) => match which {
            0 => figure(&a.with, false),
            1 => maybe(a.without.as_ref(), false),
            _ => maybe(a.delta.as_ref(), true),
        },
    }
}

/// What a side without efficiency figures says in their place.
pub const NO_EFFICIENCY: &str =
    "not measured (a document written before bob-eval measured efficiency)";

/// The suite's efficiency of both sides side by side, a row per figure and
/// side: figure, side, with, without, with/without (each with its
/// interval); `None` when neither side measured it, so that two older
/// documents compare as they always did.
pub fn efficiency_rows(c: &EvalComparison) -> Option<Vec<Vec<String>>> {
    use crate::report::efficiency::{arm, ratio};
    if c.a.efficiency.is_none() && c.b.efficiency.is_none() {
        return None;
    }
    let mut rows = Vec::new();
    for kind in FigureKind::ALL {
        for (label, side) in [("A", &c.a), ("B", &c.b)] {
            let row = match &side.efficiency {
                Some(e) => {
                    let f = e.suite.figures.get(kind);
                    vec![arm(kind, f.with), arm(kind, f.without), ratio(f)]
                }
                None => vec![NO_EFFICIENCY.to_string(), "—".into(), "—".into()],
            };
            rows.push(
                [kind.word().to_string(), label.to_string()]
                    .into_iter()
                    .chain(row)
                    .collect(),
            );
        }
    }
    Some(rows)
}

/// The headers of [`efficiency_rows`].
pub const EFFICIENCY_HEADERS: [&str; 5] = ["per run", "side", "with", "without", "with/without"];

/// A case's with/without ratios on both sides in one line: `cost A 0.50×
/// <1 · B 1.00× ~1; turns …` ([`crate::report::efficiency::ratio_cell`]);
/// `None` when neither side measured the case.
pub fn case_efficiency(c: &CaseComparison) -> Option<String> {
    use crate::report::efficiency::ratio_cell;
    let a = c.a.as_ref().and_then(|s| s.efficiency.as_ref());
    let b = c.b.as_ref().and_then(|s| s.efficiency.as_ref());
    if a.is_none() && b.is_none() {
        return None;
    }
    let cell = |f: Option<&Figures>, kind: FigureKind| {
        f.map_or_else(|| "—".to_string(), |f| ratio_cell(f.get(kind)))
    };
    let parts: Vec<String> = FigureKind::ALL
        .iter()
        .map(|k| format!("{} A {} · B {}", k.word(), cell(a, *k), cell(b, *k)))
        .collect();
    Some(format!("with/without per run: {}", parts.join("; ")))
}

/// The terminal text.
pub fn text(c: &EvalComparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "compare {}", line(&c.b.item));
    let _ = writeln!(out, "  {}", side_line("A", &c.a));
    let _ = writeln!(out, "  {}", side_line("B", &c.b));
    out.push('\n');
    let rows: Vec<Vec<String>> = [("A", &c.a), ("B", &c.b)]
        .iter()
        .map(|(label, s)| {
            vec![
                (*label).to_string(),
                figure(&s.with, false),
                figure(&s.without, false),
                figure(&s.delta, true),
            ]
        })
        .collect();
    let headers: Vec<String> = ["suite", "with", "without", "delta"]
        .map(String::from)
        .to_vec();
    let _ = writeln!(out, "{}", crate::text::table(&headers, &rows));
    let _ = writeln!(
        out,
        "delta of deltas (B − A): {}",
        figure(&c.delta_of_deltas, true)
    );
    out.push('\n');
    if c.like_for_like {
        let _ = writeln!(
            out,
            "Like for like: the same item, model, suite and options, as far as both say."
        );
    } else {
        let _ = writeln!(out, "NOT like for like:");
        for d in &c.differences {
            let _ = writeln!(out, "  - {}", difference_line(d));
        }
    }
    let _ = writeln!(out, "{}", item_words(c));
    if let Some(rows) = efficiency_rows(c) {
        out.push('\n');
        let headers: Vec<String> = EFFICIENCY_HEADERS.map(String::from).to_vec();
        let _ = writeln!(out, "{}", efficiency_heading(c));
        for row in crate::text::table(&headers, &rows).lines() {
            let _ = writeln!(out, "  {row}");
        }
        let _ = writeln!(out, "  {}", crate::report::efficiency::RATIO_MARKS);
    }
    for case in &c.cases {
        out.push('\n');
        case_text(&mut out, case);
    }
    out.push('\n');
    let _ = writeln!(out, "{}", method_line(c));
    out
}

fn case_text(out: &mut String, c: &CaseComparison) {
    let _ = writeln!(out, "case {}{}", line(&c.name), case_note(c));
    let rows: Vec<Vec<String>> = ["with", "without", "delta"]
        .iter()
        .enumerate()
        .map(|(i, arm)| {
            vec![
                (*arm).to_string(),
                arm_cell(c.a.as_ref(), i),
                arm_cell(c.b.as_ref(), i),
            ]
        })
        .collect();
    let headers: Vec<String> = ["arm", "A", "B"].map(String::from).to_vec();
    for row in crate::text::table(&headers, &rows).lines() {
        let _ = writeln!(out, "  {row}");
    }
    let _ = writeln!(
        out,
        "  delta of deltas: {}",
        maybe(c.delta_of_deltas.as_ref(), true)
    );
    if let Some(words) = case_efficiency(c) {
        let _ = writeln!(out, "  {words}");
    }
    let moved: Vec<&GraderChange> = changed(c).collect();
    if moved.is_empty() {
        let _ = writeln!(
            out,
            "  graders: none changed ({} compared)",
            c.graders.len()
        );
    } else {
        let _ = writeln!(out, "  graders that changed:");
        for g in moved {
            let _ = writeln!(
                out,
                "    {}: A {} → B {}",
                line(&g.name),
                grader_side(g.a.as_ref()),
                grader_side(g.b.as_ref())
            );
        }
    }
    if no_answers(&c.answers) {
        let _ = writeln!(out, "  {NO_ANSWERS}");
        return;
    }
    for (arm, pair) in [("with", &c.answers.with), ("without", &c.answers.without)] {
        for (side, answer) in ["A", "B"].iter().zip(pair) {
            let words = answer.as_deref().map_or_else(
                || "(not kept)".to_string(),
                |a| clip(&line(a), ANSWER_CHARS).into_owned(),
            );
            let _ = writeln!(out, "  answer {arm} {side}: {words}");
        }
    }
}

#[cfg(test)]
mod tests;
