use super::html::slots;
use super::layout::{BOTTOM, HEIGHT, LABEL_GAP, PAD, TOP, hsl_hex};
use super::{
    BEST_GAP, Frame, History, ItemHistory, KEY_WIDTH, LEFT, LEGEND_ROW, LEGEND_Y, MARK_GAP,
    Outcome, PALETTE, Palette, Point, RIGHT, SPARK_MAX, Series, Utc, WIDTH, best_label_ys,
    entry_width, html, labelled, legend_layout, mark_width, place_marks, sparkline, table,
    time_labels, x_of, y_of,
};
use crate::history::{Best, RecordedDecision};
use chrono::DateTime;

fn point(run: &str, day: u32, with: Option<f64>, decision: Option<Outcome>) -> Point {
    Point {
        run: run.into(),
        time: DateTime::from_timestamp(1_796_000_000 + i64::from(day) * 86_400, 0).unwrap(),
        date: format!("2026-12-{day:02}"),
        from: "evaluation",
        with,
        without: Some(0.5),
        delta: None,
        trigger_rate: Some(1.0),
        cost_usd: 0.25,
        reused_cost_usd: Some(0.0),
        runs: 4,
        cases: 2,
        filtered: false,
        partial: false,
        partial_reason: None,
        intervals: None,
        used_runs: vec![],
        decision: decision
            .map(|outcome| wiki_decision(outcome, &format!("#{day}"), with.unwrap_or(0.0))),
        best: None,
        imported: false,
    }
}

fn wiki_decision(outcome: Outcome, pr: &str, after: f64) -> RecordedDecision {
    RecordedDecision {
        outcome,
        pr: Some(pr.into()),
        before: None,
        after,
        source: "wiki",
        joined: "run",
        run: None,
        mode: Some("rule".into()),
        pages: vec![],
        recorded_at: None,
        imported: false,
    }
}

fn history(points: Vec<Point>) -> History {
    History {
        schema: crate::history::SCHEMA,
        evidence: "/home/op/.bob/evidence.db".into(),
        skipped_wiki_rows: 0,
        all: false,
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
                risk: None,
            }],
            unmatched: vec![],
            hidden: 0,
        }],
        warnings: vec![],
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
        "no runs kept in /home/op/.bob/evidence.db for commit: `bob-eval run` keeps every run it buys and every evaluation there, then `bob-eval history` shows them\n"
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
    a.decision = Some(wiki_decision(Outcome::Accepted, "<b>&", 0.5));
    let page = html(&history(vec![a, b]));
    // Two marks side by side: one lane above the plot.
    let frame = Frame {
        legend_rows: 1,
        lanes: 1,
    };
    let y = format!("{:.1}", frame.y(0.5));
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
fn every_model_of_a_page_has_a_colour_of_its_own() {
    let p = Palette::of(["claude-sonnet-5-5", "haiku", "claude-sonnet-5-5"]);
    assert_ne!(p.colour("claude-sonnet-5-5"), p.colour("haiku"));
    assert!(p.colour("x").starts_with('#') && p.colour("x").len() == 7);
    // Its name picks the colour: the same on a page without the other.
    assert_eq!(
        Palette::of(["haiku"]).colour("haiku"),
        Palette::of(["haiku", "zz"]).colour("haiku")
    );
    for n in [10, 12, 14] {
        let models: Vec<String> = (0..n).map(|i| format!("model-{i}")).collect();
        let p = Palette::of(models.iter().map(String::as_str));
        let colours: std::collections::BTreeSet<&str> =
            models.iter().map(|m| p.colour(m)).collect();
        assert_eq!(colours.len(), n, "{n} models, {n} colours");
        if n <= PALETTE.len() {
            assert!(colours.iter().all(|c| PALETTE.contains(c)), "{colours:?}");
        }
    }
    assert_eq!(hsl_hex(0.0, 1.0, 0.5), "#ff0000");
    assert_eq!(hsl_hex(120.0, 1.0, 0.5), "#00ff00");
    assert_eq!(hsl_hex(240.0, 1.0, 0.25), "#000080");
}

#[test]
fn labels_keep_their_distance_and_the_ends() {
    for n in 0..60 {
        let keep = labelled(n);
        assert_eq!(keep.first().copied(), (n > 0).then_some(0), "n={n}");
        assert_eq!(keep.last().copied(), n.checked_sub(1), "n={n}");
        for pair in keep.windows(2) {
            let gap = x_of(pair[1], n) - x_of(pair[0], n);
            assert!(gap >= LABEL_GAP, "n={n}: {pair:?} only {gap} apart");
        }
    }
    assert_eq!(labelled(3), [0, 1, 2], "few points: each labelled");
}

#[test]
fn labels_say_the_time_when_points_share_a_day() {
    let t = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
    let days = [t("2026-12-01T10:00:00Z"), t("2026-12-02T10:00:00Z")];
    assert_eq!(
        time_labels(&days),
        [("2026-12-01".into(), None), ("2026-12-02".into(), None)]
    );
    let same_day = [t("2026-12-01T10:00:00Z"), t("2026-12-01T14:30:00Z")];
    assert_eq!(time_labels(&same_day)[1].1.as_deref(), Some("14:30 UTC"));
    let same_minute = [t("2026-12-01T10:00:05Z"), t("2026-12-01T10:00:09Z")];
    assert_eq!(time_labels(&same_minute)[1].1.as_deref(), Some("10:00:09"));
}

#[test]
fn an_arm_without_a_value_has_no_dot() {
    let mut p = point("eval-commit-a", 1, Some(0.5), None);
    p.without = None;
    let page = html(&history(vec![p, point("eval-commit-b", 2, None, None)]));
    assert!(page.contains("data-points=\"2\""));
    assert_eq!(
        page.matches("<circle class=\"point\" data-arm=\"with\"")
            .count(),
        1
    );
    assert_eq!(
        page.matches("<line class=\"line single\" data-arm=\"with\"")
            .count(),
        1,
        "one with value: a short stroke through it, not a stray dot"
    );
    assert_eq!(
        page.matches("<circle class=\"point\" data-arm=\"without\"")
            .count(),
        1
    );
}

#[test]
fn table_shows_each_series_and_point() {
    let mut points = vec![
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
    let band = |low, high| crate::history::Band { low, high };
    points[0].intervals = Some(crate::history::Intervals {
        confidence: 0.95,
        with: band(0.3, 0.7),
        without: band(0.3, 0.7),
        delta: band(-0.3, 0.3),
    });
    points[1].filtered = true;
    points[1].partial = true;
    points[1].partial_reason = Some("filtered".into());
    let mut h = history(points);
    h.items[0].hidden = 2;
    insta::assert_snapshot!(table(&h));
}

/// `models` series of `points` each, every point decided, in one time order.
fn crowded(models: usize, points: usize) -> ItemHistory {
    let series = (0..models)
        .map(|m| Series {
            model: format!("claude-model-number-{m}"),
            best: Some(Best {
                score: 0.9 + 0.01 * (m % 3) as f64,
                run: "eval-commit-20261202T000000Z".into(),
                date: "2026-12-02".into(),
            }),
            points: (0..points)
                .map(|i| {
                    let day = u32::try_from(i * models + m).unwrap();
                    let outcome = if i % 2 == 0 {
                        Outcome::Accepted
                    } else {
                        Outcome::Rejected
                    };
                    let mut p = point(&format!("eval-commit-{day}"), day, Some(0.5), Some(outcome));
                    p.decision = Some(wiki_decision(outcome, &format!("#{}", 1000 + day), 0.5));
                    p
                })
                .collect(),
            risk: None,
        })
        .collect();
    ItemHistory {
        item: "commit".into(),
        series,
        unmatched: vec![],
        hidden: 0,
    }
}

#[test]
fn a_hundred_marks_never_overlap_and_say_their_pr_where_there_is_room() {
    for (models, points) in [(1, 3), (10, 10), (10, 12), (4, 40)] {
        let item = crowded(models, points);
        let order = slots(&item);
        let mut xs: Vec<Vec<f64>> = item
            .series
            .iter()
            .map(|s| vec![0.0; s.points.len()])
            .collect();
        for (slot, &(s, p)) in order.iter().enumerate() {
            xs[s][p] = x_of(slot, order.len());
        }
        let marks = place_marks(&item, &xs);
        assert_eq!(marks.len(), models * points);
        for (i, a) in marks.iter().enumerate() {
            for b in &marks[i + 1..] {
                let apart = (a.x - b.x).abs()
                    >= (mark_width(&a.label) + mark_width(&b.label)) / 2.0 + MARK_GAP;
                assert!(a.lane != b.lane || apart, "{a:?} overlaps {b:?}");
            }
            assert!(a.label.starts_with('✓') || a.label.starts_with('✗'));
        }
        if models * points <= 3 {
            assert!(marks.iter().all(|m| m.label.contains('#')), "{marks:?}");
        }
        let lanes = marks.iter().map(|m| m.lane + 1).max().unwrap();
        assert!(lanes <= 3, "{models}×{points}: {lanes} lanes");
    }
}

#[test]
fn the_legend_wraps_inside_the_chart_and_the_plot_moves_down_for_it() {
    let item = crowded(10, 1);
    let layout = legend_layout(&item.series);
    assert!(layout.rows > 1, "{layout:?}");
    for (s, (x, _)) in item.series.iter().zip(&layout.entries) {
        assert!(x + entry_width(&s.model) <= WIDTH - 8.0, "{x}");
    }
    assert!(layout.key.0 + KEY_WIDTH <= WIDTH - 8.0);
    let frame = Frame {
        legend_rows: layout.rows,
        lanes: 2,
    };
    let legend_bottom = LEGEND_Y + LEGEND_ROW * layout.rows as f64;
    assert!(
        frame.lane_y(1) - 13.0 >= legend_bottom,
        "marks under the legend"
    );
    assert!(frame.lane_y(0) < frame.top(), "marks above the plot");
    assert_eq!(
        frame.height() - frame.top(),
        HEIGHT - TOP,
        "the plot keeps its size"
    );
    let page = html(&History {
        items: vec![item],
        ..history(vec![])
    });
    assert!(page.contains(&format!("viewBox=\"0 0 {WIDTH} {}\"", frame_height(&page))));
}

/// The height a page's first chart declares.
fn frame_height(page: &str) -> String {
    let at = page.find("viewBox=\"0 0 ").unwrap() + "viewBox=\"0 0 ".len();
    let rest = &page[at..];
    let rest = &rest[rest.find(' ').unwrap() + 1..];
    rest[..rest.find('"').unwrap()].to_string()
}

#[test]
fn best_labels_keep_apart_inside_the_plot() {
    let frame = Frame::PLAIN;
    let ys = best_label_ys(&[0.9, 0.91, 0.92, 0.9, 0.0, 0.01], &frame);
    let mut sorted = ys.clone();
    sorted.sort_by(f64::total_cmp);
    for pair in sorted.windows(2) {
        assert!(pair[1] - pair[0] >= BEST_GAP - 1e-9, "{ys:?}");
    }
    assert!(
        ys.iter()
            .all(|y| *y >= frame.y(1.0) && *y <= frame.base() + 4.0),
        "{ys:?}"
    );
    // One best sits beside its line.
    assert_eq!(best_label_ys(&[0.5], &frame), [frame.y(0.5) + 4.0]);
}
