//! `history --html`: one self-contained page of inline SVG charts, a colour per model, time on the x axis, decisions marked on their runs.

use super::{
    BEST_GAP, CHAR, DateTime, Frame, History, ItemHistory, KEY_WIDTH, LEFT, LEGEND_ROW, LEGEND_Y,
    MARK_CHAR, MARK_GAP, Outcome, PR_LANES, Palette, Point, RIGHT, Series, Utc, WIDTH, Write,
    empty_message, escape, fmt_score, interval, kind, labelled, score, time_labels, x_of,
};

/// The page: a chart and a table of points per item. Every chart is an
/// `<svg class="chart" data-item=ITEM data-points=N>` (N points, each a dot
/// per arm); every point a `<circle class="point" data-arm=with|without
/// data-model data-run data-kind>` with a `<title>` (run, numbers, interval,
/// runs, cost); an interval a `<line class="interval">`; the best a
/// `<path class="best">`; a decision a `<g class="mark" data-outcome
/// data-run data-pr>` over the point of the run it gated; an x label a
/// `<text class="tick">`.
pub fn html(history: &History) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>bob-eval history</title>\n<style>\n\
         body{font-family:system-ui,sans-serif;margin:24px;color:#222;background:#fff}\n\
         h1{font-size:22px}h2{font-size:18px;margin-top:32px}\n\
         svg.chart{width:100%;max-width:960px;height:auto;border:1px solid #ddd;background:#fcfcfc}\n\
         svg text{font-size:12px;fill:#333}\n\
         svg .mark text{font-size:13px;font-weight:600}\n\
         svg circle.point:hover{stroke-width:4}\n\
         table.points{border-collapse:collapse;font-size:13px;margin-top:8px;width:100%;max-width:100%}\n\
         table.points td,table.points th{border:1px solid #ddd;padding:2px 6px;text-align:left;overflow-wrap:anywhere}\n\
         .accepted{color:#2a7d2a}.rejected{color:#b22}.kind{color:#777}\n\
         </style>\n</head>\n<body>\n<h1>bob-eval history</h1>\n",
    );
    let shown = if history.all {
        "every evaluation, those of some cases only (<code>--case</code>, <code>--tag</code>) and partial ones marked"
    } else {
        "every evaluation of the whole suite (<code>--all</code> adds those of some cases only and partial ones)"
    };
    let _ = writeln!(
        out,
        "<p class=\"about\">From <code>{}</code>: {shown}. Each chart is one item; each point one evaluation with the numbers its document had, in time order (UTC). For each model (one colour on every page): <b>with</b> (filled dots, solid line), <b>without</b> (rings, dashed line), each with its interval as a whisker; the wide pale line is the recorded best. Above the plot, ✓ marks a change accepted and ✗ one rejected by a <em>recorded</em> decision (<code>gate --record</code>, <code>propose</code>; a <code>gate</code> that records nothing leaves no mark), at the x of the run it decided on, with its PR where there is room. Hover a dot for its run, numbers, interval, runs and cost.</p>",
        escape(history.evidence.as_str())
    );
    if let Some(message) = empty_message(history) {
        let _ = writeln!(out, "<p class=\"empty\">{}</p>", escape(&message));
    }
    let palette = Palette::of_history(history);
    for item in &history.items {
        item_section(&mut out, item, &palette);
    }
    out.push_str("</body>\n</html>\n");
    out
}

pub(super) fn item_section(out: &mut String, item: &ItemHistory, palette: &Palette) {
    let name = escape(&item.item);
    let _ = writeln!(
        out,
        "<section class=\"item\" id=\"item-{name}\" data-item=\"{name}\">\n<h2>{name}</h2>"
    );
    if item.series.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"empty\">No evaluation or run kept for {name}.</p>"
        );
    } else {
        chart(out, item, palette);
        points_table(out, item, palette);
    }
    if item.hidden > 0 {
        let _ = writeln!(
            out,
            "<p class=\"hidden\">{} evaluation(s) of some cases only or partial not shown (<code>--all</code> shows them).</p>",
            item.hidden
        );
    }
    if !item.unmatched.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"unmatched\">{} recorded decision(s) mark no point shown: {}</p>",
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
pub(super) fn slots(item: &ItemHistory) -> Vec<(usize, usize)> {
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

pub(super) fn chart(out: &mut String, item: &ItemHistory, palette: &Palette) {
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
    let legend = legend_layout(&item.series);
    let marks = place_marks(item, &xs);
    let frame = Frame {
        legend_rows: legend.rows,
        lanes: marks.iter().map(|m| m.lane + 1).max().unwrap_or(0),
    };
    let _ = writeln!(
        out,
        "<svg class=\"chart\" data-item=\"{name}\" data-points=\"{n}\" viewBox=\"0 0 {WIDTH} {}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"{name}: with and without over time\">",
        frame.height()
    );
    axes(out, item, &order, &frame);
    draw_legend(out, &item.series, &legend, palette);
    // Every model's best first, so no line of another model hides under it.
    let mut ends = Vec::new();
    for (i, s) in item.series.iter().enumerate() {
        if let Some(end) = best_line(out, s, &xs[i], &frame, palette) {
            ends.push((s.model.as_str(), end));
        }
    }
    best_labels(out, &ends, &frame, palette);
    for (i, s) in item.series.iter().enumerate() {
        series(out, s, &xs[i], &frame, palette);
    }
    draw_marks(out, &marks, &frame);
    out.push_str("</svg>\n");
}

pub(super) fn axes(out: &mut String, item: &ItemHistory, order: &[(usize, usize)], frame: &Frame) {
    out.push_str("<g class=\"axis y\">\n");
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let y = frame.y(tick);
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
        frame.y(0.5),
        frame.y(0.5)
    );
    out.push_str("<g class=\"axis x\">\n");
    let n = order.len();
    let times: Vec<DateTime<Utc>> = order
        .iter()
        .map(|&(s, p)| item.series[s].points[p].time)
        .collect();
    let labels = time_labels(&times);
    let base = frame.base();
    for slot in 0..n {
        let x = x_of(slot, n);
        let _ = writeln!(
            out,
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{base:.1}\" y2=\"{:.1}\" stroke=\"#999\"/>",
            base + 5.0
        );
    }
    for slot in labelled(n) {
        let x = x_of(slot, n);
        let (day, time) = &labels[slot];
        let (s, p) = order[slot];
        let under = time.as_ref().map_or_else(String::new, |t| {
            format!("<tspan x=\"{x:.1}\" dy=\"15\">{}</tspan>", escape(t))
        });
        let _ = writeln!(
            out,
            "<text class=\"tick\" data-run=\"{}\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}{under}</text>",
            escape(&item.series[s].points[p].run),
            base + 19.0,
            escape(day)
        );
    }
    let _ = writeln!(
        out,
        "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{base:.1}\" y2=\"{base:.1}\" stroke=\"#999\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">evaluations in time order (UTC); a tick per evaluation</text>\n</g>",
        WIDTH - RIGHT,
        LEFT + (WIDTH - LEFT - RIGHT) / 2.0,
        frame.height() - 10.0
    );
}

/// Where the legend's entries go: a model's entry (its `with` and `without`
/// lines) at `(x, row)`, rows wrapping at the chart's right edge, and the
/// key (best, interval, marks) after the last entry, on a row of its own
/// when it does not fit there.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendLayout {
    /// Each series' entry: its left edge and its row.
    pub entries: Vec<(f64, usize)>,
    /// The key's left edge and row.
    pub key: (f64, usize),
    /// Rows in all.
    pub rows: usize,
}

/// The width of a legend entry: its swatch and the longer of its labels
/// (`MODEL without`), at [`CHAR`] per character.
pub fn entry_width(model: &str) -> f64 {
    40.0 + CHAR * (model.chars().count() as f64 + 8.0)
}

/// The legend's layout for `series` (see [`LegendLayout`]).
pub fn legend_layout(series: &[Series]) -> LegendLayout {
    let right = WIDTH - 8.0;
    let (mut x, mut row) = (LEFT, 0);
    let mut entries = Vec::new();
    for s in series {
        let w = entry_width(&s.model);
        if x > LEFT && x + w > right {
            (x, row) = (LEFT, row + 1);
        }
        entries.push((x, row));
        x += w;
    }
    if x > LEFT && x + KEY_WIDTH > right {
        (x, row) = (LEFT, row + 1);
    }
    LegendLayout {
        entries,
        key: (x, row),
        rows: row + 1,
    }
}

pub(super) fn draw_legend(
    out: &mut String,
    series: &[Series],
    layout: &LegendLayout,
    palette: &Palette,
) {
    out.push_str("<g class=\"legend\">\n");
    for (s, &(x, row)) in series.iter().zip(&layout.entries) {
        let colour = palette.colour(&s.model);
        let model = escape(&s.model);
        let y = LEGEND_Y + LEGEND_ROW * row as f64;
        let _ = writeln!(
            out,
            "<g class=\"legend-model\" data-model=\"{model}\" data-colour=\"{colour}\"><line x1=\"{x:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"2\"/><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{colour}\"/><text x=\"{:.1}\" y=\"{:.1}\">{model} with</text><line x1=\"{x:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"2\" stroke-dasharray=\"5 4\"/><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#fff\" stroke=\"{colour}\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\">{model} without</text></g>",
            x + 28.0,
            y + 10.0,
            y + 10.0,
            x + 14.0,
            y + 10.0,
            x + 34.0,
            y + 14.0,
            x + 28.0,
            y + 30.0,
            y + 30.0,
            x + 14.0,
            y + 30.0,
            x + 34.0,
            y + 34.0,
        );
    }
    let (x, row) = layout.key;
    let y = LEGEND_Y + LEGEND_ROW * row as f64;
    let has_best = series
        .iter()
        .any(|s| s.best.is_some() || s.points.iter().any(|p| p.best.is_some()));
    if has_best {
        let _ = writeln!(
            out,
            "<g class=\"legend-best\"><path d=\"M{x:.1} {:.1} h12 v-8 h16\" fill=\"none\" stroke=\"#888\" stroke-width=\"8\" opacity=\"0.3\"/><text x=\"{:.1}\" y=\"{:.1}\">best recorded</text></g>",
            y + 14.0,
            x + 34.0,
            y + 14.0
        );
    }
    let _ = writeln!(
        out,
        "<g class=\"legend-interval\"><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#666\" stroke-width=\"1.5\"/><text x=\"{:.1}\" y=\"{:.1}\">interval</text></g>",
        x + 14.0,
        x + 14.0,
        y + 24.0,
        y + 36.0,
        x + 34.0,
        y + 34.0
    );
    if series
        .iter()
        .any(|s| s.points.iter().any(|p| p.decision.is_some()))
    {
        let _ = writeln!(
            out,
            "<g class=\"legend-marks\"><text x=\"{:.1}\" y=\"{:.1}\" style=\"fill:#2a7d2a\">✓ accepted</text><text x=\"{:.1}\" y=\"{:.1}\" style=\"fill:#b22\">✗ rejected (recorded)</text></g>",
            x + 140.0,
            y + 14.0,
            x + 140.0,
            y + 34.0
        );
    }
    out.push_str("</g>\n");
}

/// `filtered`, `partial`, `runs` or empty: what the point is when not a
/// complete evaluation of the whole suite.
pub(super) fn data_kind(p: &Point) -> &'static str {
    if p.filtered {
        "filtered"
    } else if p.partial {
        "partial"
    } else if p.from == "runs" {
        "runs"
    } else {
        ""
    }
}

pub(super) fn series(out: &mut String, s: &Series, xs: &[f64], frame: &Frame, palette: &Palette) {
    let model = escape(&s.model);
    let colour = palette.colour(&s.model);
    // The whiskers first, beside the dot (with left, without right).
    for (p, x) in s.points.iter().zip(xs) {
        let Some(i) = p.intervals else { continue };
        for (arm, band, dx, dash) in [
            ("with", i.with, -3.0, ""),
            ("without", i.without, 3.0, " stroke-dasharray=\"3 2\""),
        ] {
            let (x, top, bottom) = (x + dx, frame.y(band.high), frame.y(band.low));
            let _ = writeln!(
                out,
                "<g class=\"interval\" data-arm=\"{arm}\" data-model=\"{model}\" data-run=\"{}\" stroke=\"{colour}\" stroke-width=\"1.5\" opacity=\"0.7\"{dash}><line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{top:.1}\" y2=\"{bottom:.1}\"/><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{top:.1}\" y2=\"{top:.1}\"/><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{bottom:.1}\" y2=\"{bottom:.1}\"/></g>",
                escape(&p.run),
                x - 3.0,
                x + 3.0,
                x - 3.0,
                x + 3.0,
            );
        }
    }
    // The without arm first, as rings, so that a with dot at the same place shows inside.
    for (arm, dash, fill, r) in [
        ("without", " stroke-dasharray=\"5 4\"", "#fff", 6),
        ("with", "", colour, 5),
    ] {
        let value = |p: &Point| if arm == "with" { p.with } else { p.without };
        // Lines join the complete evaluations of the whole suite only.
        let line: Vec<(f64, f64)> = s
            .points
            .iter()
            .zip(xs)
            .filter(|(p, _)| !p.filtered && !p.partial)
            .filter_map(|(p, x)| value(p).map(|v| (*x, frame.y(v))))
            .collect();
        match line.as_slice() {
            [] => {}
            // One point: a short level stroke through it, so it reads as a series.
            [(x, y)] => {
                let _ = writeln!(
                    out,
                    "<line class=\"line single\" data-arm=\"{arm}\" data-model=\"{model}\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" stroke-width=\"3\"{dash}/>",
                    x - 18.0,
                    x + 18.0
                );
            }
            _ => {
                let points: Vec<String> =
                    line.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
                let _ = writeln!(
                    out,
                    "<polyline class=\"line\" data-arm=\"{arm}\" data-model=\"{model}\" points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/>",
                    points.join(" ")
                );
            }
        }
        // A point with no usable run on this arm has no dot there (the table says —).
        for (p, x) in s.points.iter().zip(xs) {
            let Some(v) = value(p) else { continue };
            let kind = data_kind(p);
            // A filtered or partial evaluation is a hollow dotted dot.
            let (fill, extra) = if kind == "filtered" || kind == "partial" {
                ("#fff", " stroke-dasharray=\"2 2\"")
            } else {
                (fill, "")
            };
            let _ = writeln!(
                out,
                "<circle class=\"point\" data-arm=\"{arm}\" data-model=\"{model}\" data-run=\"{}\" data-kind=\"{kind}\" data-value=\"{}\" cx=\"{x:.1}\" cy=\"{:.1}\" r=\"{r}\" fill=\"{fill}\" stroke=\"{colour}\" stroke-width=\"2\"{extra}><title>{}</title></circle>",
                escape(&p.run),
                fmt_score(v),
                frame.y(v),
                escape(&tooltip(s, p)),
            );
        }
    }
    if s.points.len() == 1
        && let (Some(p), Some(x)) = (s.points.first(), xs.first())
        && let Some(v) = p.with
    {
        let _ = writeln!(
            out,
            "<text class=\"value\" data-model=\"{model}\" x=\"{:.1}\" y=\"{:.1}\" style=\"fill:{colour}\">{}</text>",
            x + 24.0,
            frame.y(v) + 4.0,
            fmt_score(v)
        );
    }
}

/// A decision's mark, placed: over the x of the run it decided on, in a lane
/// of the strip above the plot, labelled with its PR where there is room.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedMark {
    /// The mark's x (its centre).
    pub x: f64,
    /// Its lane, 0 nearest the plot.
    pub lane: usize,
    /// `✓ #12`, or the sign alone where the PR does not fit.
    pub label: String,
    /// `accepted` or `rejected`.
    pub class: &'static str,
    /// The model.
    pub model: String,
    /// The run it decided on.
    pub run: String,
    /// Its PR (empty for a best from `baseline.json`).
    pub pr: String,
    /// How it was joined to its point.
    pub joined: &'static str,
}

/// The width of a mark's label at 13px: [`MARK_CHAR`] per character.
pub fn mark_width(label: &str) -> f64 {
    MARK_CHAR * label.chars().count() as f64
}

/// Every decision of `item` placed so that no two marks overlap: in x order,
/// each in the lowest lane where it clears the mark before it by
/// [`MARK_GAP`]. Marks say their PR when all of them fit that way in
/// [`PR_LANES`] lanes; otherwise each is its sign alone (the PR is in its
/// tooltip), in as many lanes as that takes.
pub fn place_marks(item: &ItemHistory, xs: &[Vec<f64>]) -> Vec<PlacedMark> {
    let mut marks: Vec<(f64, &Point, &Series)> = item
        .series
        .iter()
        .zip(xs)
        .flat_map(|(s, xs)| {
            s.points
                .iter()
                .zip(xs)
                .filter(|(p, _)| p.decision.is_some())
                .map(move |(p, x)| (*x, p, s))
        })
        .collect();
    marks.sort_by(|a, b| a.0.total_cmp(&b.0));
    let place = |with_pr: bool| -> Vec<PlacedMark> {
        let mut ends: Vec<f64> = Vec::new();
        let mut placed = Vec::new();
        for &(x, p, s) in &marks {
            let Some(d) = &p.decision else { continue };
            let (sign, class) = match d.outcome {
                Outcome::Accepted => ("✓", "accepted"),
                Outcome::Rejected => ("✗", "rejected"),
            };
            let label = if with_pr {
                format!("{sign} {}", d.pr.as_deref().unwrap_or("baseline"))
            } else {
                sign.to_string()
            };
            let half = mark_width(&label) / 2.0;
            let lane = (0..=ends.len())
                .find(|&l| ends.get(l).is_none_or(|end| x - half >= end + MARK_GAP))
                .expect("a new lane always has room");
            match ends.get_mut(lane) {
                Some(e) => *e = x + half,
                None => ends.push(x + half),
            }
            placed.push(PlacedMark {
                x,
                lane,
                label,
                class,
                model: s.model.clone(),
                run: p.run.clone(),
                pr: d.pr.clone().unwrap_or_default(),
                joined: d.joined,
            });
        }
        placed
    };
    let with_pr = place(true);
    if with_pr.iter().all(|m| m.lane < PR_LANES) {
        with_pr
    } else {
        place(false)
    }
}

pub(super) fn draw_marks(out: &mut String, marks: &[PlacedMark], frame: &Frame) {
    for m in marks {
        let colour = if m.class == "accepted" {
            "#2a7d2a"
        } else {
            "#b22"
        };
        let pr = if m.pr.is_empty() {
            "— (baseline.json)"
        } else {
            &m.pr
        };
        let _ = writeln!(
            out,
            "<g class=\"mark {class}\" data-outcome=\"{class}\" data-model=\"{}\" data-run=\"{}\" data-pr=\"{}\" data-joined=\"{}\"><title>{} · {} · {class} · PR {}</title><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"{class}\" style=\"fill:{colour}\">{}</text></g>",
            escape(&m.model),
            escape(&m.run),
            escape(&m.pr),
            m.joined,
            escape(&m.run),
            escape(&m.model),
            escape(pr),
            m.x,
            frame.lane_y(m.lane),
            escape(&m.label),
            class = m.class,
        );
    }
}

/// The step line of the best, wide and pale in the model's colour and drawn
/// under the lines: where it meets `with` it shows on both sides of it. Flat
/// from each point to the next, stepping at the point that changed it, on
/// to the plot's right edge. Returns the value it ends on, which
/// [`best_labels`] writes there.
pub(super) fn best_line(
    out: &mut String,
    s: &Series,
    xs: &[f64],
    frame: &Frame,
    palette: &Palette,
) -> Option<f64> {
    let mut d = String::new();
    let mut last: Option<f64> = None;
    for (p, x) in s.points.iter().zip(xs) {
        match (last, p.best) {
            (None, Some(b)) => {
                let _ = write!(d, "M{x:.1} {:.1}", frame.y(b));
            }
            (Some(_), Some(b)) => {
                let _ = write!(d, " H{x:.1} V{:.1}", frame.y(b));
            }
            _ => {}
        }
        if p.best.is_some() {
            last = p.best;
        }
    }
    let end = s.best.as_ref().map(|b| b.score).or(last);
    let right = WIDTH - RIGHT;
    match (last, end) {
        (Some(_), Some(end)) => {
            let _ = write!(d, " V{:.1} H{right:.1}", frame.y(end));
        }
        (None, Some(end)) => {
            let _ = write!(d, "M{LEFT} {:.1} H{right:.1}", frame.y(end));
        }
        _ => return None,
    }
    let model = escape(&s.model);
    let colour = palette.colour(&s.model);
    let _ = writeln!(
        out,
        "<path class=\"best\" data-model=\"{model}\" d=\"{d}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"9\" stroke-linejoin=\"round\" opacity=\"0.22\"><title>best recorded for {model}</title></path>",
    );
    end
}

/// The baselines of the best labels at the plot's right edge: each beside its
/// line, moved apart by at least [`BEST_GAP`] where several bests are close,
/// and held inside the plot.
pub fn best_label_ys(ends: &[f64], frame: &Frame) -> Vec<f64> {
    let mut order: Vec<usize> = (0..ends.len()).collect();
    order.sort_by(|&a, &b| ends[b].total_cmp(&ends[a]));
    let (top, bottom) = (frame.y(1.0) + 4.0, frame.base() + 4.0);
    let mut ys = vec![0.0; ends.len()];
    let mut next = f64::NEG_INFINITY;
    for &i in &order {
        let y = (frame.y(ends[i]) + 4.0).max(next).max(top);
        ys[i] = y;
        next = y + BEST_GAP;
    }
    // Pushed past the bottom: move the stack up, never above the top.
    if let Some(&last) = order.last()
        && ys[last] > bottom
    {
        let shift = ys[last] - bottom;
        for y in &mut ys {
            *y = (*y - shift).max(top);
        }
    }
    ys
}

pub(super) fn best_labels(
    out: &mut String,
    ends: &[(&str, f64)],
    frame: &Frame,
    palette: &Palette,
) {
    let values: Vec<f64> = ends.iter().map(|e| e.1).collect();
    for ((model, end), y) in ends.iter().zip(best_label_ys(&values, frame)) {
        let _ = writeln!(
            out,
            "<text class=\"best-value\" data-model=\"{}\" x=\"{:.1}\" y=\"{y:.1}\" style=\"fill:{}\">best {}</text>",
            escape(model),
            WIDTH - RIGHT + 4.0,
            palette.colour(model),
            fmt_score(*end)
        );
    }
}

/// A point's tooltip: its run, time, numbers with their intervals, runs and cost.
pub(super) fn tooltip(s: &Series, p: &Point) -> String {
    let with_band = |v: Option<f64>, band: Option<crate::history::Band>| match band {
        Some(b) => format!("{} [{}, {}]", score(v), fmt_score(b.low), fmt_score(b.high)),
        None => score(v),
    };
    let i = p.intervals;
    let mut text = format!(
        "{}\n{} UTC · {}\nwith {} · without {} · delta {}",
        p.run,
        p.time.format("%Y-%m-%d %H:%M:%S"),
        s.model,
        with_band(p.with, i.map(|i| i.with)),
        with_band(p.without, i.map(|i| i.without)),
        with_band(p.delta, i.map(|i| i.delta)),
    );
    if let Some(i) = i {
        let _ = write!(text, " ({:.0} % intervals)", i.confidence * 100.0);
    }
    let _ = write!(
        text,
        "\ntrigger {} · {} case(s) · {} run(s)",
        score(p.trigger_rate),
        p.cases,
        p.runs
    );
    match p.reused_cost_usd {
        Some(reused) if reused > 0.0 => {
            let _ = write!(text, " · ${:.4} spent, ${reused:.4} reused", p.cost_usd);
        }
        _ => {
            let _ = write!(text, " · ${:.4}", p.cost_usd);
        }
    }
    let kind = kind(p);
    if !kind.is_empty() {
        let _ = write!(text, "\n{kind}");
        if let Some(reason) = &p.partial_reason {
            let _ = write!(text, " ({reason})");
        }
    }
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

pub(super) fn points_table(out: &mut String, item: &ItemHistory, palette: &Palette) {
    out.push_str(
        "<table class=\"points\">\n<tr><th>time (UTC)</th><th>model</th><th>run</th><th>with</th><th>interval</th><th>without</th><th>trigger</th><th>runs</th><th>cost</th><th>kind</th><th>decision</th><th>PR</th></tr>\n",
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
            "<tr data-run=\"{}\"><td>{}</td><td><span style=\"color:{}\">■</span> {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>${:.4}</td><td class=\"kind\">{}</td><td class=\"{outcome}\">{outcome}</td><td>{}</td></tr>",
            escape(&point.run),
            point.time.format("%Y-%m-%d %H:%M:%S"),
            palette.colour(&series.model),
            escape(&series.model),
            escape(&point.run),
            score(point.with),
            interval(point),
            score(point.without),
            score(point.trigger_rate),
            point.runs,
            point.cost_usd,
            escape(&kind(point)),
            escape(&pr)
        );
    }
    out.push_str("</table>\n");
}
