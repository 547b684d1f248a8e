//! `compare --html FILE`: one self-contained page (inline style, no script,
//! nothing fetched), every outside text escaped by
//! [`crate::report::junit::escape`]. Each case is a `section.case` with its
//! name in `data-case`; the answers sit side by side per arm.

use super::{
    EFFICIENCY_HEADERS, NO_ANSWERS, arm_cell, case_efficiency, case_note, changed, difference_line,
    efficiency_heading, efficiency_rows, figure, grader_side, item_words, method_line, no_answers,
};
use crate::ops::compare::{CaseComparison, EvalComparison, SideSummary};
use crate::report::efficiency::RATIO_MARKS;
use crate::report::junit::escape;
use std::fmt::Write;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;padding:0 1em}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
.warning{background:#fff4e5;border-left:4px solid #e67e22;padding:.5em 1em}\
.like{background:#eef8ee;border-left:4px solid #2e8b57;padding:.5em 1em}\
.answers{display:grid;grid-template-columns:8em 1fr 1fr;gap:.4em}\
.answer{white-space:pre-wrap;background:#f6f6f6;padding:.4em;overflow-wrap:anywhere}\
.note{color:#666}";

/// The page of `c`.
pub fn html(c: &EvalComparison) -> String {
    let mut out = String::new();
    let title = format!("compare {}: {} → {}", c.b.item, c.a.run, c.b.run);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(&title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    out.push_str("<table class=\"sides\"><tr><th>side</th><th>run</th><th>model</th><th>date</th><th>from</th><th>with</th><th>without</th><th>delta</th></tr>\n");
    for (label, s) in [("a", &c.a), ("b", &c.b)] {
        side_row(&mut out, label, s);
    }
    out.push_str("</table>\n");
    let _ = writeln!(
        out,
        "<p class=\"dd\" data-value=\"{}\">delta of deltas (B − A): <strong>{}</strong></p>",
        c.delta_of_deltas.value,
        escape(&figure(&c.delta_of_deltas, true))
    );
    if c.like_for_like {
        out.push_str("<p class=\"like\">Like for like: the same item, model, suite and options, as far as both say.</p>\n");
    } else {
        out.push_str("<div class=\"warning\"><strong>Not like for like</strong><ul>\n");
        for d in &c.differences {
            let _ = writeln!(
                out,
                "<li data-what=\"{}\">{}</li>",
                escape(d.what),
                escape(&difference_line(d))
            );
        }
        out.push_str("</ul></div>\n");
    }
    let _ = writeln!(out, "<p>{}</p>", escape(item_words(c)));
    if let Some(rows) = efficiency_rows(c) {
        let _ = writeln!(
            out,
            "<h2>{}</h2>\n<table class=\"efficiency\"><tr>{}</tr>",
            escape(&efficiency_heading(c)),
            EFFICIENCY_HEADERS
                .iter()
                .map(|h| format!("<th>{}</th>", escape(h)))
                .collect::<String>()
        );
        for row in rows {
            let _ = writeln!(
                out,
                "<tr data-figure=\"{}\" data-side=\"{}\"><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(&row[0]),
                escape(&row[1].to_lowercase()),
                escape(&row[0]),
                escape(&row[1]),
                escape(&row[2]),
                escape(&row[3]),
                escape(&row[4])
            );
        }
        let _ = writeln!(
            out,
            "</table>\n<p class=\"note\">{}</p>",
            escape(RATIO_MARKS)
        );
    }
    for case in &c.cases {
        case_section(&mut out, case);
    }
    let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(&method_line(c)));
    out.push_str("</body></html>\n");
    out
}

fn side_row(out: &mut String, label: &str, s: &SideSummary) {
    let _ = writeln!(
        out,
        "<tr class=\"side\" data-side=\"{label}\"><td>{} ({})</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
        label.to_uppercase(),
        escape(&s.spec),
        escape(&s.run),
        escape(&s.model),
        escape(&s.date),
        escape(&s.source),
        escape(&figure(&s.with, false)),
        escape(&figure(&s.without, false)),
        escape(&figure(&s.delta, true))
    );
}

fn case_section(out: &mut String, c: &CaseComparison) {
    let presence = serde_json::to_value(c.presence)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<section class=\"case\" data-case=\"{}\" data-presence=\"{presence}\"><h2>case {}{}</h2>",
        escape(&c.name),
        escape(&c.name),
        escape(case_note(c))
    );
    out.push_str("<table class=\"arms\"><tr><th>arm</th><th>A</th><th>B</th></tr>\n");
    for (i, arm) in ["with", "without", "delta"].iter().enumerate() {
        let _ = writeln!(
            out,
            "<tr data-arm=\"{arm}\"><td>{arm}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&arm_cell(c.a.as_ref(), i)),
            escape(&arm_cell(c.b.as_ref(), i))
        );
    }
    let _ = writeln!(
        out,
        "<tr data-arm=\"delta-of-deltas\"><td>delta of deltas</td><td class=\"num\" colspan=\"2\">{}</td></tr></table>",
        c.delta_of_deltas
            .as_ref()
            .map_or("—".into(), |f| escape(&figure(f, true)))
    );
    if let Some(words) = case_efficiency(c) {
        let _ = writeln!(out, "<p class=\"efficiency\">{}</p>", escape(&words));
    }
    let moved: Vec<_> = changed(c).collect();
    if moved.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"graders\">graders: none changed ({} compared)</p>",
            c.graders.len()
        );
    } else {
        out.push_str(
            "<table class=\"graders\"><tr><th>grader that changed</th><th>A</th><th>B</th></tr>\n",
        );
        for g in moved {
            let _ = writeln!(
                out,
                "<tr class=\"grader\" data-grader=\"{}\"><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&g.name),
                escape(&g.name),
                escape(&grader_side(g.a.as_ref())),
                escape(&grader_side(g.b.as_ref()))
            );
        }
        out.push_str("</table>\n");
    }
    if no_answers(&c.answers) {
        let _ = writeln!(
            out,
            "<p class=\"answers-missing\">answers: {NO_ANSWERS}</p>"
        );
    } else {
        out.push_str("<div class=\"answers\"><div></div><div>A</div><div>B</div>\n");
        for (arm, pair) in [("with", &c.answers.with), ("without", &c.answers.without)] {
            let _ = write!(out, "<div>{arm}</div>");
            for (side, answer) in ["a", "b"].iter().zip(pair) {
                let _ = write!(
                    out,
                    "<div class=\"answer\" data-arm=\"{arm}\" data-side=\"{side}\">{}</div>",
                    answer.as_deref().map_or("(not kept)".into(), escape)
                );
            }
            out.push('\n');
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
}
