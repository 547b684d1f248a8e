//! `compare --format markdown`: a pull request comment, every outside text
//! escaped for a table cell ([`crate::report::markdown::plain`]).

use super::{
    ANSWER_CHARS, EFFICIENCY_HEADERS, NO_ANSWERS, arm_cell, case_efficiency, case_note, changed,
    difference_line, efficiency_heading, efficiency_rows, figure, grader_side, item_words,
    method_line, no_answers,
};
use crate::ops::compare::{EvalComparison, SideSummary};
use crate::report::efficiency::RATIO_MARKS;
use crate::report::markdown::plain;
use crate::text::clip;
use std::fmt::Write;

/// The Markdown of `c`.
pub fn markdown(c: &EvalComparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### compare {}: delta of deltas (B − A) {}\n",
        plain(&c.b.item),
        figure(&c.delta_of_deltas, true)
    );
    out.push_str("| side | run | model | date | with | without | delta |\n");
    out.push_str("|---|---|---|---|--:|--:|--:|\n");
    for (label, s) in [("A", &c.a), ("B", &c.b)] {
        side_row(&mut out, label, s);
    }
    out.push('\n');
    if c.like_for_like {
        out.push_str(
            "Like for like: the same item, model, suite and options, as far as both say.\n",
        );
    } else {
        out.push_str("> [!WARNING]\n> **Not like for like**\n");
        for d in &c.differences {
            let _ = writeln!(out, "> - {}", plain(&difference_line(d)));
        }
    }
    let _ = writeln!(out, "\n{}\n", item_words(c));
    if let Some(rows) = efficiency_rows(c) {
        let _ = writeln!(out, "{}:\n", plain(&efficiency_heading(c)));
        let _ = writeln!(out, "| {} |", EFFICIENCY_HEADERS.join(" | "));
        out.push_str("|---|---|--:|--:|--:|\n");
        for row in rows {
            let cells: Vec<String> = row.iter().map(|c| plain(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        let _ = writeln!(out, "\n_{}_\n", plain(RATIO_MARKS));
        out.push_str("| case | with/without per run, A and B |\n|---|---|\n");
        for case in &c.cases {
            let words = case_efficiency(case).unwrap_or_else(|| "—".into());
            let _ = writeln!(out, "| {} | {} |", plain(&case.name), plain(&words));
        }
        out.push('\n');
    }
    out.push_str("| case | A with | A without | A delta | B with | B without | B delta | delta of deltas | graders that changed |\n");
    out.push_str("|---|--:|--:|--:|--:|--:|--:|--:|---|\n");
    for case in &c.cases {
        let graders: Vec<String> = changed(case)
            .map(|g| {
                format!(
                    "{}: A {} → B {}",
                    plain(&g.name),
                    grader_side(g.a.as_ref()),
                    grader_side(g.b.as_ref())
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "| {}{} | {} | {} | {} | {} | {} | {} | {} | {} |",
            plain(&case.name),
            case_note(case),
            arm_cell(case.a.as_ref(), 0),
            arm_cell(case.a.as_ref(), 1),
            arm_cell(case.a.as_ref(), 2),
            arm_cell(case.b.as_ref(), 0),
            arm_cell(case.b.as_ref(), 1),
            arm_cell(case.b.as_ref(), 2),
            case.delta_of_deltas
                .as_ref()
                .map_or("—".into(), |f| figure(f, true)),
            if graders.is_empty() {
                "none".to_string()
            } else {
                graders.join("<br>")
            }
        );
    }
    out.push('\n');
    if c.cases.iter().all(|case| no_answers(&case.answers)) {
        let _ = writeln!(out, "_Answers: {NO_ANSWERS}._\n");
    } else {
        out.push_str("<details><summary>Answers</summary>\n\n");
        out.push_str("| case | arm | A | B |\n|---|---|---|---|\n");
        for case in &c.cases {
            for (arm, pair) in [
                ("with", &case.answers.with),
                ("without", &case.answers.without),
            ] {
                let cell = |a: &Option<String>| {
                    a.as_deref()
                        .map_or("_not kept_".to_string(), |a| plain(&clip(a, ANSWER_CHARS)))
                };
                let _ = writeln!(
                    out,
                    "| {} | {arm} | {} | {} |",
                    plain(&case.name),
                    cell(&pair[0]),
                    cell(&pair[1])
                );
            }
        }
        out.push_str("\n</details>\n\n");
    }
    let _ = writeln!(out, "_{}_", plain(&method_line(c)));
    out
}

fn side_row(out: &mut String, label: &str, s: &SideSummary) {
    let _ = writeln!(
        out,
        "| {label} ({}) | {} | {} | {} | {} | {} | {} |",
        plain(&s.spec),
        plain(&s.run),
        plain(&s.model),
        plain(&s.date),
        figure(&s.with, false),
        figure(&s.without, false),
        figure(&s.delta, true)
    );
}
