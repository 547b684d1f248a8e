//! Output of `bob-eval history`: a table with a sparkline per item and model
//! and a table of points for the terminal, and one self-contained HTML page
//! (inline SVG, no script, no network) with a chart per item.

use super::junit::escape;
use crate::document::fmt_score;
use crate::history::{History, ItemHistory, Point, Series};
use crate::wiki::Outcome;
use std::fmt::Write;

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
        "no runs kept in {}{which}: `bob-eval run` keeps every run it buys there, then `bob-eval history` shows them",
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
        "History from {} — `with over time`: one bar per run that bought evidence, oldest left, ▁ 0 … █ 1; marks: ✓ accepted, ✗ rejected, - not gated\n\n",
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
    out.push_str(&crate::script::table::render(&headers, &rows));
    out.push_str("\n(a point: what one `bob-eval run` bought; with, without, trigger: the latest point's; best: baseline.json's)\n");

    let headers = [
        "date", "item", "model", "run", "with", "without", "trigger", "cost", "decision",
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
                    score(p.without),
                    score(p.trigger_rate),
                    format!("${:.4}", p.cost_usd),
                    decision(p),
                ]);
            }
        }
    }
    out.push_str("\nPoints by item and model, oldest first:\n\n");
    out.push_str(&crate::script::table::render(&headers, &rows));
    out.push('\n');
    for item in &history.items {
        if item.series.is_empty() {
            let _ = writeln!(out, "\n{}: no runs kept", item.item);
        }
        if !item.unmatched.is_empty() {
            let _ = writeln!(
                out,
                "\n{}: {} wiki row(s) match no kept run (same day and with): {}",
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

/// The chart's size and plot area, in SVG units.
const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 360.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 40.0;
/// Space between the plot's edges and its first and last point.
const PAD: f64 = 40.0;
const TOP: f64 = 80.0;
const BOTTOM: f64 = 56.0;

/// Line colours, one per model in turn.
const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
];

/// The x of slot `i` of `n` slots across the plot; one slot sits in the middle.
pub fn x_of(i: usize, n: usize) -> f64 {
    let width = WIDTH - LEFT - RIGHT - 2.0 * PAD;
    if n <= 1 {
        LEFT + PAD + width / 2.0
    } else {
        LEFT + PAD + width * i.min(n - 1) as f64 / (n - 1) as f64
    }
}

/// The y of a score, 0 at the bottom of the plot and 1 at its top; a value
/// out of 0..1 (or not a number) is held to the nearest edge.
pub fn y_of(v: f64) -> f64 {
    let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - v)
}

/// The page: a chart and a table of points per item. Every chart is an
/// `<svg class="chart" data-item=ITEM data-points=N>` (N points, each a dot
/// per arm with a usable run); every point a
/// `<circle class="point" data-arm=with|without data-model data-run>` with a
/// `<title>`; the best a `<path class="best">`; a decision a
/// `<g class="mark" data-outcome=accepted|rejected>` with a visible label.
pub fn html(history: &History) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>bob-eval history</title>\n<style>\n\
         body{font-family:system-ui,sans-serif;margin:24px;color:#222;background:#fff}\n\
         h1{font-size:22px}h2{font-size:18px;margin-top:32px}\n\
         svg.chart{width:100%;max-width:960px;height:auto;border:1px solid #ddd;background:#fcfcfc}\n\
         svg text{font-size:12px;fill:#333}\n\
         table.points{border-collapse:collapse;font-size:13px;margin-top:8px}\n\
         table.points td,table.points th{border:1px solid #ddd;padding:2px 8px;text-align:left}\n\
         .accepted{color:#2a7d2a}.rejected{color:#b22}\n\
         </style>\n</head>\n<body>\n<h1>bob-eval history</h1>\n",
    );
    let _ = writeln!(
        out,
        "<p class=\"about\">From <code>{}</code>. Each chart is one item: for each model, the <b>with</b> arm (filled dots, solid line) and the <b>without</b> arm (hollow dots, dashed line) of every run that bought evidence, in time order; the grey step line is the recorded best; ✓ marks an accepted change, ✗ a rejected one. Hover a dot for its run and PR.</p>",
        escape(history.evidence.as_str())
    );
    if let Some(message) = empty_message(history) {
        let _ = writeln!(out, "<p class=\"empty\">{}</p>", escape(&message));
    }
    for item in &history.items {
        item_section(&mut out, item);
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn item_section(out: &mut String, item: &ItemHistory) {
    let name = escape(&item.item);
    let _ = writeln!(
        out,
        "<section class=\"item\" id=\"item-{name}\" data-item=\"{name}\">\n<h2>{name}</h2>"
    );
    if item.series.is_empty() {
        let _ = writeln!(out, "<p class=\"empty\">No runs kept for {name}.</p>");
    } else {
        chart(out, item);
        points_table(out, item);
    }
    if !item.unmatched.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"unmatched\">{} wiki row(s) match no kept run (same day and with): {}</p>",
            item.unmatched.len(),
            escape(
                &item
                    .unmatched
                    .iter()
                    .map(|r| format!("{} {} {}", r.date, r.pr, r.outcome.as_str()))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        );
    }
    out.push_str("</section>\n");
}

/// The item's points of every model in one time order: (series, point).
fn slots(item: &ItemHistory) -> Vec<(usize, usize)> {
    let mut order: Vec<(usize, usize)> = item
        .series
        .iter()
        .enumerate()
        .flat_map(|(s, x)| (0..x.points.len()).map(move |p| (s, p)))
        .collect();
    order.sort_by(|a, b| {
        let (pa, pb) = (&item.series[a.0].points[a.1], &item.series[b.0].points[b.1]);
        pa.time.cmp(&pb.time).then_with(|| a.cmp(b))
    });
    order
}

fn chart(out: &mut String, item: &ItemHistory) {
    let name = escape(&item.item);
    let order = slots(item);
    let n = order.len();
    let mut xs: Vec<Vec<f64>> = item
        .series
        .iter()
        .map(|s| vec![0.0; s.points.len()])
        .collect();
    for (slot, &(s, p)) in order.iter().enumerate() {
        xs[s][p] = x_of(slot, n);
    }
    let _ = writeln!(
        out,
        "<svg class=\"chart\" data-item=\"{name}\" data-points=\"{}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"{name}: with and without over time\">",
        n
    );
    axes(out, item, &order);
    legend(out, &item.series);
    for (i, s) in item.series.iter().enumerate() {
        series(out, s, &xs[i], COLOURS[i % COLOURS.len()]);
    }
    out.push_str("</svg>\n");
}

fn axes(out: &mut String, item: &ItemHistory, order: &[(usize, usize)]) {
    out.push_str("<g class=\"axis y\">\n");
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let y = y_of(tick);
        let _ = writeln!(
            out,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#e3e3e3\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{tick:.2}</text>",
            WIDTH - RIGHT,
            LEFT - 8.0,
            y + 4.0
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"14\" y=\"{:.1}\" transform=\"rotate(-90 14 {:.1})\" text-anchor=\"middle\">score</text>\n</g>",
        y_of(0.5),
        y_of(0.5)
    );
    out.push_str("<g class=\"axis x\">\n");
    let n = order.len();
    // At most 8 date labels, evenly spread, the first and the last always.
    let every = n.div_ceil(8).max(1);
    for (slot, &(s, p)) in order.iter().enumerate() {
        let x = x_of(slot, n);
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#999\"/>",
            HEIGHT - BOTTOM,
            HEIGHT - BOTTOM + 5.0
        );
        if slot % every == 0 || slot + 1 == n {
            let _ = writeln!(
                out,
                "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                HEIGHT - BOTTOM + 20.0,
                escape(&item.series[s].points[p].date)
            );
        }
    }
    let _ = writeln!(
        out,
        "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#999\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">runs that bought evidence, in time order</text>\n</g>",
        WIDTH - RIGHT,
        HEIGHT - BOTTOM,
        HEIGHT - BOTTOM,
        LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
        HEIGHT - 12.0
    );
}

fn legend(out: &mut String, series: &[Series]) {
    out.push_str("<g class=\"legend\">\n");
    let mut x = LEFT;
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let model = escape(&s.model);
        let _ = writeln!(
            out,
            "<g class=\"legend-model\" data-model=\"{model}\"><line x1=\"{x:.1}\" x2=\"{:.1}\" y1=\"18\" y2=\"18\" stroke=\"{colour}\" stroke-width=\"2\"/><circle cx=\"{:.1}\" cy=\"18\" r=\"4\" fill=\"{colour}\"/><text x=\"{:.1}\" y=\"22\">{model} with</text><line x1=\"{x:.1}\" x2=\"{:.1}\" y1=\"38\" y2=\"38\" stroke=\"{colour}\" stroke-width=\"2\" stroke-dasharray=\"5 4\"/><circle cx=\"{:.1}\" cy=\"38\" r=\"4\" fill=\"#fff\" stroke=\"{colour}\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"42\">{model} without</text></g>",
            x + 28.0,
            x + 14.0,
            x + 34.0,
            x + 28.0,
            x + 14.0,
            x + 34.0,
        );
        x += 40.0 + 8.0 * (s.model.chars().count() as f64 + 8.0);
    }
    let has_best = series
        .iter()
        .any(|s| s.best.is_some() || s.points.iter().any(|p| p.best.is_some()));
    if has_best {
        let _ = writeln!(
            out,
            "<g class=\"legend-best\"><path d=\"M{x:.1} 22 h12 v-8 h16\" fill=\"none\" stroke=\"#888\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"22\">best recorded</text></g>",
            x + 34.0
        );
    }
    if series
        .iter()
        .any(|s| s.points.iter().any(|p| p.decision.is_some()))
    {
        let _ = writeln!(
            out,
            "<g class=\"legend-marks\"><text x=\"{x:.1}\" y=\"42\" style=\"fill:#2a7d2a\">✓ accepted</text><text x=\"{:.1}\" y=\"42\" style=\"fill:#b22\">✗ rejected</text></g>",
            x + 80.0
        );
    }
    out.push_str("</g>\n");
}

fn series(out: &mut String, s: &Series, xs: &[f64], colour: &str) {
    let model = escape(&s.model);
    best_line(out, s, xs);
    // The without arm first, as rings, so that a with dot at the same place shows inside.
    for (arm, dash, fill, r) in [
        ("without", " stroke-dasharray=\"5 4\"", "#fff", 6),
        ("with", "", colour, 4),
    ] {
        let value = |p: &Point| if arm == "with" { p.with } else { p.without };
        let line: Vec<String> = s
            .points
            .iter()
            .zip(xs)
            .filter_map(|(p, x)| value(p).map(|v| format!("{x:.1},{:.1}", y_of(v))))
            .collect();
        if line.len() > 1 {
            let _ = writeln!(
                out,
                "<polyline class=\"line\" data-arm=\"{arm}\" data-model=\"{model}\" points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/>",
                line.join(" ")
            );
        }
        // A point with no usable run on this arm has no dot there (the table says —).
        for (p, x) in s.points.iter().zip(xs) {
            let Some(v) = value(p) else { continue };
            let _ = writeln!(
                out,
                "<circle class=\"point\" data-arm=\"{arm}\" data-model=\"{model}\" data-run=\"{}\" data-value=\"{}\" cx=\"{x:.1}\" cy=\"{:.1}\" r=\"{r}\" fill=\"{fill}\" stroke=\"{colour}\" stroke-width=\"2\"><title>{}</title></circle>",
                escape(&p.run),
                fmt_score(v),
                y_of(v),
                escape(&tooltip(s, p, arm, Some(v))),
            );
        }
    }
    for (p, x) in s.points.iter().zip(xs) {
        let Some(d) = &p.decision else { continue };
        let (sign, class) = match d.outcome {
            Outcome::Accepted => ("✓", "accepted"),
            Outcome::Rejected => ("✗", "rejected"),
        };
        let label = d.pr.as_deref().unwrap_or("baseline");
        let y = y_of(p.with.unwrap_or(d.after)) - 12.0;
        let _ = writeln!(
            out,
            "<g class=\"mark {class}\" data-outcome=\"{class}\" data-model=\"{model}\" data-run=\"{}\"><text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"middle\" class=\"{class}\" style=\"fill:{}\">{sign} {}</text></g>",
            escape(&p.run),
            if class == "accepted" {
                "#2a7d2a"
            } else {
                "#b22"
            },
            escape(label)
        );
    }
}

/// The step line of the best: flat from each point to the next, stepping at
/// the point that changed it, on to the plot's right edge.
fn best_line(out: &mut String, s: &Series, xs: &[f64]) {
    let mut d = String::new();
    let mut last: Option<f64> = None;
    for (p, x) in s.points.iter().zip(xs) {
        match (last, p.best) {
            (None, Some(b)) => {
                let _ = write!(d, "M{x:.1} {:.1}", y_of(b));
            }
            (Some(_), Some(b)) => {
                let _ = write!(d, " H{x:.1} V{:.1}", y_of(b));
            }
            _ => {}
        }
        if p.best.is_some() {
            last = p.best;
        }
    }
    let end = s.best.as_ref().map(|b| b.score).or(last);
    match (last, end) {
        (Some(_), Some(end)) => {
            let _ = write!(d, " V{:.1} H{:.1}", y_of(end), WIDTH - RIGHT);
        }
        (None, Some(end)) => {
            let _ = write!(d, "M{LEFT} {:.1} H{:.1}", y_of(end), WIDTH - RIGHT);
        }
        _ => return,
    }
    let _ = writeln!(
        out,
        "<path class=\"best\" data-model=\"{}\" d=\"{d}\" fill=\"none\" stroke=\"#888\" stroke-width=\"2\" opacity=\"0.8\"><title>best recorded for {}</title></path>",
        escape(&s.model),
        escape(&s.model)
    );
}

fn tooltip(s: &Series, p: &Point, arm: &str, v: Option<f64>) -> String {
    let mut text = format!(
        "{}\n{} · {} · {arm} {}\nwithout {} · trigger {} · ${:.4} · {} runs",
        p.run,
        p.date,
        s.model,
        score(v),
        score(p.without),
        score(p.trigger_rate),
        p.cost_usd,
        p.runs
    );
    if let Some(d) = &p.decision {
        let _ = write!(
            text,
            "\n{} · PR {}",
            d.outcome.as_str(),
            d.pr.as_deref().unwrap_or("— (baseline.json)")
        );
    }
    text
}

fn points_table(out: &mut String, item: &ItemHistory) {
    out.push_str(
        "<table class=\"points\">\n<tr><th>date</th><th>model</th><th>run</th><th>with</th><th>without</th><th>trigger</th><th>cost</th><th>decision</th><th>PR</th></tr>\n",
    );
    for &(s, p) in &slots(item) {
        let series = &item.series[s];
        let point = &series.points[p];
        let (outcome, pr) = match &point.decision {
            Some(d) => (d.outcome.as_str(), d.pr.clone().unwrap_or_default()),
            None => ("", String::new()),
        };
        let _ = writeln!(
            out,
            "<tr data-run=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>${:.4}</td><td class=\"{outcome}\">{outcome}</td><td>{}</td></tr>",
            escape(&point.run),
            escape(&point.date),
            escape(&series.model),
            escape(&point.run),
            score(point.with),
            score(point.without),
            score(point.trigger_rate),
            point.cost_usd,
            escape(&pr)
        );
    }
    out.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{Best, Decision};
    use chrono::DateTime;

    fn point(run: &str, day: u32, with: Option<f64>, decision: Option<Outcome>) -> Point {
        Point {
            run: run.into(),
            time: DateTime::from_timestamp(1_796_000_000 + i64::from(day) * 86_400, 0).unwrap(),
            date: format!("2026-12-{day:02}"),
            with,
            without: Some(0.5),
            trigger_rate: Some(1.0),
            cost_usd: 0.25,
            runs: 4,
            cases: 2,
            decision: decision.map(|outcome| Decision {
                outcome,
                pr: Some(format!("#{day}")),
                before: None,
                after: with.unwrap_or(0.0),
                source: "wiki",
            }),
            best: None,
        }
    }

    fn history(points: Vec<Point>) -> History {
        History {
            schema: crate::history::SCHEMA,
            evidence: "/home/op/.bob/evidence.db".into(),
            skipped_wiki_rows: 0,
            items: vec![ItemHistory {
                item: "commit".into(),
                series: vec![Series {
                    model: "claude-sonnet-5-5".into(),
                    best: Some(Best {
                        score: 0.9,
                        run: "eval-commit-20261202T000000Z".into(),
                        date: "2026-12-02".into(),
                    }),
                    points,
                }],
                unmatched: vec![],
            }],
        }
    }

    #[test]
    fn sparkline_is_a_fixed_scale_from_zero_to_one() {
        assert_eq!(sparkline(&[]), "");
        let all: Vec<Option<f64>> = (0..8).map(|i| Some(f64::from(i) / 7.0)).collect();
        assert_eq!(sparkline(&all), "▁▂▃▄▅▆▇█");
        assert_eq!(
            sparkline(&[Some(0.5), Some(0.5), Some(0.5)]),
            "▅▅▅",
            "equal values are equal bars, not a stretched range"
        );
        assert_eq!(
            sparkline(&[Some(-1.0), Some(2.0), None, Some(f64::NAN)]),
            "▁█··"
        );
        let many = vec![Some(1.0); 50];
        let line = sparkline(&many);
        assert!(line.starts_with('…'));
        assert_eq!(line.chars().count(), SPARK_MAX + 1);
    }

    #[test]
    fn scaling_holds_one_point_in_the_middle_and_scores_in_the_plot() {
        let middle = LEFT + (WIDTH - LEFT - RIGHT) / 2.0;
        assert_eq!(x_of(0, 1), middle);
        assert_eq!(x_of(0, 0), middle);
        assert_eq!(x_of(0, 2), LEFT + PAD);
        assert_eq!(x_of(1, 2), WIDTH - RIGHT - PAD);
        assert_eq!(
            x_of(5, 2),
            x_of(1, 2),
            "past the last slot is the last slot"
        );
        assert_eq!(y_of(1.0), TOP);
        assert_eq!(y_of(0.0), HEIGHT - BOTTOM);
        assert_eq!(y_of(7.0), TOP);
        assert_eq!(y_of(f64::NAN), HEIGHT - BOTTOM);
        assert_eq!(y_of(-1.0), HEIGHT - BOTTOM);
    }

    #[test]
    fn an_empty_history_says_so_in_both_forms() {
        let mut h = history(vec![]);
        h.items[0].series.clear();
        let text = table(&h);
        assert_eq!(
            text,
            "no runs kept in /home/op/.bob/evidence.db for commit: `bob-eval run` keeps every run it buys there, then `bob-eval history` shows them\n"
        );
        let page = html(&h);
        assert!(
            page.contains("<p class=\"empty\">no runs kept in "),
            "{page}"
        );
        assert!(!page.contains("<svg"));
        h.items.clear();
        assert!(table(&h).starts_with("no runs kept in /home/op/.bob/evidence.db: "));
    }

    #[test]
    fn one_point_is_a_chart_with_one_dot_per_arm_and_no_lines() {
        let mut p = point(
            "eval-commit-20261202T000000Z",
            2,
            Some(0.9),
            Some(Outcome::Accepted),
        );
        p.best = Some(0.9);
        let page = html(&history(vec![p]));
        assert_eq!(page.matches("<svg class=\"chart\"").count(), 1);
        assert!(page.contains("data-item=\"commit\" data-points=\"1\""));
        assert_eq!(page.matches("<circle class=\"point\"").count(), 2);
        assert_eq!(page.matches("<polyline").count(), 0);
        let x = format!("cx=\"{:.1}\"", x_of(0, 1));
        assert_eq!(page.matches(&x).count(), 2, "both dots in the middle");
        assert_eq!(page.matches("class=\"mark accepted\"").count(), 1);
        assert!(page.contains("✓ #2</text>"));
        assert_eq!(page.matches("<path class=\"best\"").count(), 1);
        assert!(page.contains("class=\"legend-best\"") && page.contains("class=\"legend-marks\""));
    }

    #[test]
    fn equal_values_draw_a_flat_line_and_text_is_escaped() {
        let mut a = point("eval-commit-<a>", 1, Some(0.5), None);
        let b = point("eval-commit-b", 2, Some(0.5), Some(Outcome::Rejected));
        a.decision = Some(Decision {
            outcome: Outcome::Accepted,
            pr: Some("<b>&".into()),
            before: None,
            after: 0.5,
            source: "wiki",
        });
        let page = html(&history(vec![a, b]));
        let y = format!("{:.1}", y_of(0.5));
        let line = page
            .lines()
            .find(|l| l.starts_with("<polyline class=\"line\" data-arm=\"with\""))
            .unwrap();
        assert_eq!(line.matches(&format!(",{y}")).count(), 2, "{line}");
        assert!(page.contains("✓ &lt;b&gt;&amp;"));
        assert!(page.contains("data-run=\"eval-commit-&lt;a&gt;\""));
        assert!(!page.contains("<b>&"));
    }

    #[test]
    fn an_arm_without_a_value_has_no_dot() {
        let mut p = point("eval-commit-a", 1, Some(0.5), None);
        p.without = None;
        let page = html(&history(vec![p, point("eval-commit-b", 2, None, None)]));
        assert!(page.contains("data-points=\"2\""));
        assert_eq!(page.matches("data-arm=\"with\" data-model").count(), 1);
        assert_eq!(
            page.matches("<circle class=\"point\" data-arm=\"without\"")
                .count(),
            1
        );
    }

    #[test]
    fn table_shows_each_series_and_point() {
        let points = vec![
            point(
                "eval-commit-20261201T000000Z",
                1,
                Some(0.5),
                Some(Outcome::Accepted),
            ),
            point("eval-commit-20261202T000000Z", 2, None, None),
            point(
                "eval-commit-20261203T000000Z",
                3,
                Some(1.0),
                Some(Outcome::Rejected),
            ),
        ];
        insta::assert_snapshot!(table(&history(points)));
    }
}
