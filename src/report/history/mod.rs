//! Output of `bob-eval history`: a table with a sparkline per item and model
//! and a table of points for the terminal, and one self-contained HTML page
//! (inline SVG, no script, no network) with a chart per item: evaluations in
//! time order, their intervals as whiskers, the best as a wide pale step
//! line under them, the gate's decisions over the runs they decided on, and
//! each model in a colour of its own on the page.

use super::junit::escape;
use crate::document::fmt_score;
use crate::history::{History, ItemHistory, Point, Series};
use crate::wiki::Outcome;
use chrono::{DateTime, Utc};
use std::fmt::Write;

mod html;
mod layout;
pub use html::{
    LegendLayout, PlacedMark, best_label_ys, entry_width, html, legend_layout, mark_width,
    place_marks,
};
use layout::{
    BEST_GAP, CHAR, KEY_WIDTH, LEFT, LEGEND_ROW, LEGEND_Y, MARK_CHAR, MARK_GAP, PR_LANES, RIGHT,
    WIDTH,
};
pub use layout::{Frame, PALETTE, Palette, labelled, time_labels, x_of, y_of};
#[cfg(test)]
mod tests;

/// The bars of a sparkline, lowest first.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// At most this many points in a sparkline: the newest, after a `…`.
const SPARK_MAX: usize = 40;

/// One bar per score, `▁` for 0 to `█` for 1 (a fixed scale, so rows compare);
/// `·` where there is none; only the newest [`SPARK_MAX`], after `…`.
pub fn sparkline(values: &[Option<f64>]) -> String {
    let skip = values.len().saturating_sub(SPARK_MAX);
    let mut out = if skip > 0 {
        "…".to_string()
    } else {
        String::new()
    };
    out.extend(values[skip..].iter().map(|v| match v {
        Some(v) if v.is_finite() => {
            let i = (v.clamp(0.0, 1.0) * (BARS.len() - 1) as f64).round() as usize;
            BARS[i]
        }
        _ => '·',
    }));
    out
}

/// One mark per point, aligned with [`sparkline`]: `✓` accepted, `✗` rejected, `-` none.
fn marks(points: &[Point]) -> String {
    let skip = points.len().saturating_sub(SPARK_MAX);
    let mut out = if skip > 0 {
        "…".to_string()
    } else {
        String::new()
    };
    out.extend(points[skip..].iter().map(|p| match &p.decision {
        Some(d) if d.outcome == Outcome::Accepted => '✓',
        Some(_) => '✗',
        None => '-',
    }));
    out
}

fn score(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_string(), fmt_score)
}

/// `[low, high]` of `with`, when the point has intervals.
fn interval(p: &Point) -> String {
    p.intervals.map_or_else(String::new, |i| {
        format!("[{}, {}]", fmt_score(i.with.low), fmt_score(i.with.high))
    })
}

/// What kind of point it is, when not a complete evaluation of the whole suite.
fn kind(p: &Point) -> String {
    let mut words = Vec::new();
    if p.from == "runs" {
        words.push("runs bought");
    }
    if p.filtered {
        words.push("filtered");
    }
    if p.partial && !(p.filtered && p.partial_reason.as_deref() == Some("filtered")) {
        words.push("partial");
    }
    words.join(", ")
}

fn decision(p: &Point) -> String {
    match &p.decision {
        None => String::new(),
        Some(d) => match &d.pr {
            Some(pr) => format!("{} {pr}", d.outcome.as_str()),
            None => format!("{} (baseline)", d.outcome.as_str()),
        },
    }
}

/// Why there is nothing to show, when there is not.
fn empty_message(history: &History) -> Option<String> {
    if history.items.iter().any(|i| !i.series.is_empty()) {
        return None;
    }
    let which = if history.items.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = history.items.iter().map(|i| i.item.as_str()).collect();
        format!(" for {}", names.join(", "))
    };
    Some(format!(
        "no runs kept in {}{which}: `bob-eval run` keeps every run it buys and every evaluation there, then `bob-eval history` shows them",
        history.evidence
    ))
}

/// The terminal report: a row per item and model (latest scores, total cost,
/// the sparkline of `with`, the marks), then every point, then the wiki rows
/// no point matched.
pub fn table(history: &History) -> String {
    if let Some(message) = empty_message(history) {
        return message + "\n";
    }
    let mut out = format!(
        "History from {} — `with over time`: one bar per evaluation, oldest left, ▁ 0 … █ 1; marks: ✓ accepted, ✗ rejected, - not gated\n\n",
        history.evidence
    );
    let headers = [
        "item",
        "model",
        "points",
        "with",
        "without",
        "trigger",
        "best",
        "cost",
        "with over time",
        "marks",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = Vec::new();
    for item in &history.items {
        for s in &item.series {
            let last = s.points.last().expect("a series has points");
            let cost = crate::document::sum_usd(s.points.iter().map(|p| p.cost_usd));
            rows.push(vec![
                crate::text::line(&item.item).into_owned(),
                crate::text::line(&s.model).into_owned(),
                s.points.len().to_string(),
                score(last.with),
                score(last.without),
                score(last.trigger_rate),
                score(s.best.as_ref().map(|b| b.score)),
                format!("${cost:.4}"),
                sparkline(&s.points.iter().map(|p| p.with).collect::<Vec<_>>()),
                marks(&s.points),
            ]);
        }
    }
    out.push_str(&crate::text::table(&headers, &rows));
    out.push_str("\n(a point: one evaluation of the whole suite, its document's numbers; with, without, trigger: the latest point's; best: baseline.json's)\n");
    let risks: Vec<String> = history
        .items
        .iter()
        .flat_map(|item| {
            item.series.iter().filter_map(|s| {
                s.risk
                    .as_ref()
                    .map(|r| format!("  {}: {}", crate::text::line(&item.item), r.words))
            })
        })
        .collect();
    if !risks.is_empty() {
        out.push_str("\nErrors over each sequence of recorded decisions:\n");
        for line in risks {
            let _ = writeln!(out, "{line}");
        }
    }

    let headers = [
        "date", "item", "model", "run", "with", "interval", "without", "trigger", "cost", "kind",
        "decision",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = Vec::new();
    for item in &history.items {
        for s in &item.series {
            for p in &s.points {
                rows.push(vec![
                    crate::text::line(&p.date).into_owned(),
                    crate::text::line(&item.item).into_owned(),
                    crate::text::line(&s.model).into_owned(),
                    crate::text::line(&p.run).into_owned(),
                    score(p.with),
                    interval(p),
                    score(p.without),
                    score(p.trigger_rate),
                    format!("${:.4}", p.cost_usd),
                    kind(p),
                    decision(p),
                ]);
            }
        }
    }
    out.push_str("\nPoints by item and model, oldest first:\n\n");
    out.push_str(&crate::text::table(&headers, &rows));
    out.push('\n');
    for item in &history.items {
        if item.series.is_empty() {
            let _ = writeln!(out, "\n{}: no evaluations or runs kept", item.item);
        }
        if item.hidden > 0 {
            let _ = writeln!(
                out,
                "\n{}: {} evaluation(s) of some cases only or partial not shown (--all shows them)",
                item.item, item.hidden
            );
        }
        if !item.unmatched.is_empty() {
            let _ = writeln!(
                out,
                "\n{}: {} recorded decision(s) mark no point shown (by run id, or an older row by day and with): {}",
                item.item,
                item.unmatched.len(),
                item.unmatched
                    .iter()
                    .map(|r| format!(
                        "{} {} {} {}",
                        r.date,
                        r.pr,
                        fmt_score(r.after),
                        r.outcome.as_str()
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
    }
    if history.skipped_wiki_rows > 0 {
        let _ = writeln!(
            out,
            "\n{} malformed row(s) of wiki/skill-impact.md skipped: `bob-eval check-wiki` names them",
            history.skipped_wiki_rows
        );
    }
    crate::text::block(&out).into_owned()
}
