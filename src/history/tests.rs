use super::{
    Arm, BTreeMap, Baseline, DateTime, Evaluation, History, KeptDecision, Outcome, Records, Row,
    SCHEMA, Store, StoredRun, Utf8Path, gather, load, round4,
};
use crate::document::BestEntry;
use crate::evidence::tests::sample;

/// A run of `commit` bought by `by`, `second`s into the sample day.
fn run(case: &str, arm: Arm, score: f64, second: u32, by: &str) -> StoredRun {
    let mut r = sample(case, arm, second, by);
    r.outcome.score = score;
    r
}

fn row(date: &str, after: f64, outcome: Outcome, pr: &str) -> Row {
    Row {
        date: date.into(),
        item: "commit".into(),
        pr: pr.into(),
        pages: vec!["p".into()],
        before: Some(0.5),
        after,
        outcome,
    }
}

/// What a store from before kept evaluations holds: `runs` only.
fn only(runs: &[StoredRun]) -> Records {
    Records {
        runs: runs.to_vec(),
        ..Records::default()
    }
}

fn items() -> Vec<String> {
    vec!["commit".into()]
}

#[test]
fn a_point_per_buyer_and_model_with_case_means() {
    let day = "eval-commit-20261208T000000Z";
    let runs = vec![
        run("fires", Arm::With, 1.0, 0, day),
        run("fires", Arm::With, 0.5, 1, day),
        run("other", Arm::With, 0.0, 2, day),
        run("fires", Arm::Without, 0.25, 3, day),
        run("fires", Arm::With, 0.9, 100, "eval-commit-20261209T000000Z"),
    ];
    let h = gather(&only(&runs), &items(), &BTreeMap::new(), &[], false);
    let points = &h[0].series[0].points;
    assert_eq!(points.len(), 2);
    let p = &points[0];
    assert_eq!(p.run, day);
    assert_eq!(p.date, "2026-12-08", "the day is the run id's");
    assert_eq!(p.with, Some(0.375), "mean of the case means 0.75 and 0");
    assert_eq!(p.without, Some(0.25));
    assert_eq!((p.runs, p.cases), (4, 2));
    assert!((p.cost_usd - 0.12).abs() < 1e-9);
    assert_eq!(points[1].without, None);
    assert_eq!(p.time, runs[0].outcome.started_at);
}

#[test]
fn models_are_series_and_unusable_runs_only_cost() {
    let mut other = run("fires", Arm::With, 0.2, 0, "b");
    other.key.model = "haiku".into();
    let mut broken = run("fires", Arm::With, 0.0, 1, "b");
    broken.outcome.error = Some("api".into());
    broken.outcome.graders.clear();
    let runs = vec![other, broken, run("fires", Arm::With, 1.0, 2, "b")];
    let h = gather(&only(&runs), &items(), &BTreeMap::new(), &[], false);
    let models: Vec<&str> = h[0].series.iter().map(|s| s.model.as_str()).collect();
    assert_eq!(models, ["claude-sonnet-5-5", "haiku"]);
    let p = &h[0].series[0].points[0];
    assert_eq!((p.with, p.runs, p.cases), (Some(1.0), 2, 1));
    assert_eq!(p.date, "2026-11-30", "no run id stamp: the time's day");
}

#[test]
fn trigger_rate_from_the_pair_graders_on_the_with_arm() {
    let mut fires = run("fires", Arm::With, 1.0, 0, "b");
    fires.outcome.graders[0].name = "fires".into();
    let mut missed = fires.clone();
    missed.outcome.graders[0].passed = false;
    let mut quiet = run("quiet", Arm::With, 1.0, 1, "b");
    quiet.outcome.graders[0].name = "quiet".into();
    let mut without = quiet.clone();
    without.key.arm = Arm::Without;
    without.outcome.graders[0].passed = false;
    let h = gather(
        &only(&[fires.clone(), missed, quiet, without]),
        &items(),
        &BTreeMap::new(),
        &[],
        false,
    );
    assert_eq!(h[0].series[0].points[0].trigger_rate, Some(0.6667));
    let plain = run("subject", Arm::With, 1.0, 0, "b");
    let h = gather(&only(&[plain]), &items(), &BTreeMap::new(), &[], false);
    assert_eq!(h[0].series[0].points[0].trigger_rate, None);
}

#[test]
fn rows_mark_the_point_of_their_day_and_score() {
    let runs = vec![
        run("fires", Arm::With, 0.5, 0, "eval-commit-20261130T000000Z"),
        run("fires", Arm::With, 0.8, 9, "eval-commit-20261130T000009Z"),
        run("fires", Arm::With, 0.7, 99, "eval-commit-20261201T000000Z"),
    ];
    let rows = [
        row("2026-11-30", 0.8, Outcome::Accepted, "#1"),
        row("2026-12-01", 0.7, Outcome::Rejected, "#2"),
        row("2026-12-01", 0.9, Outcome::Accepted, "#3"),
    ];
    let h = gather(&only(&runs), &items(), &BTreeMap::new(), &rows, false);
    let points = &h[0].series[0].points;
    assert_eq!(points[0].decision, None);
    let d = points[1].decision.as_ref().unwrap();
    assert_eq!(
        (d.outcome, d.pr.as_deref()),
        (Outcome::Accepted, Some("#1"))
    );
    assert_eq!(
        points[2].decision.as_ref().unwrap().outcome,
        Outcome::Rejected
    );
    assert_eq!(h[0].unmatched, vec![rows[2].clone()]);
    let bests: Vec<Option<f64>> = points.iter().map(|p| p.best).collect();
    assert_eq!(
        bests,
        [None, Some(0.8), Some(0.5)],
        "a reject's best is its before"
    );
}

#[test]
fn the_baselines_run_is_accepted_without_a_row() {
    let by = "eval-commit-20261130T000000Z";
    let runs = vec![run("fires", Arm::With, 0.6, 0, by)];
    let mut baseline = Baseline::empty("commit");
    baseline.best.insert(
        "claude-sonnet-5-5".into(),
        BestEntry::bare(0.6, 0.1, None, by, "2026-11-30"),
    );
    let baselines = BTreeMap::from([("commit".to_string(), baseline)]);
    let h = gather(&only(&runs), &items(), &baselines, &[], false);
    let s = &h[0].series[0];
    assert_eq!(s.best.as_ref().unwrap().run, by);
    let d = s.points[0].decision.as_ref().unwrap();
    assert_eq!(
        (d.outcome, d.source, d.pr.clone()),
        (Outcome::Accepted, "baseline", None)
    );
    assert_eq!(s.points[0].best, Some(0.6));
}

#[test]
fn an_item_without_runs_has_no_series_and_keeps_its_rows() {
    let rows = [row("2026-11-30", 0.8, Outcome::Accepted, "#1")];
    let h = gather(
        &Records::default(),
        &["commit".into(), "commit".into()],
        &BTreeMap::new(),
        &rows,
        false,
    );
    assert_eq!(h.len(), 1);
    assert!(h[0].series.is_empty());
    assert_eq!(h[0].unmatched.len(), 1);
}

#[test]
fn a_history_is_a_valid_document() {
    let runs = vec![
        run("fires", Arm::With, 0.8, 0, "eval-commit-20261130T000000Z"),
        run(
            "fires",
            Arm::Without,
            0.5,
            1,
            "eval-commit-20261201T000000Z",
        ),
    ];
    let rows = [
        row("2026-11-30", 0.8, Outcome::Accepted, "#1"),
        row("2026-12-09", 0.8, Outcome::Rejected, "#2"),
    ];
    let history = History {
        schema: SCHEMA,
        evidence: "/e.db".into(),
        skipped_wiki_rows: 1,
        all: false,
        items: gather(&only(&runs), &items(), &BTreeMap::new(), &rows, false),
        warnings: vec![],
    };
    let doc = serde_json::to_value(&history).unwrap();
    assert!(doc["items"][0]["series"][0]["points"][1]["with"].is_null());
    crate::schema::validate_history(&doc, "h.json".into()).unwrap();
    let mut bad = doc.clone();
    bad["items"][0]["series"][0]["points"][0]["with"] = 2.into();
    assert!(crate::schema::validate_history(&bad, "h.json".into()).is_err());
}

#[test]
fn load_reads_the_store_the_baselines_and_the_wiki() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let mut store = Store::open(&root.join("evidence.db")).unwrap();
    let mut odd = run("fires", Arm::With, 1.0, 1, "b");
    odd.key.item = "Not An Item".into();
    let odd = StoredRun::new(odd.key, odd.outcome);
    store
        .insert(
            &[
                run("fires", Arm::With, 0.8, 0, "eval-commit-20261130T000000Z"),
                odd,
            ],
            &crate::evidence::Origin::Bought,
        )
        .unwrap();
    std::fs::create_dir_all(root.join("wiki")).unwrap();
    std::fs::write(
        crate::config::impact_path(root),
        format!(
            "{}{}\n| bad |\n",
            crate::wiki::HEADER,
            crate::wiki::format_row(&row("2026-11-30", 0.8, Outcome::Accepted, "#1"))
        ),
    )
    .unwrap();
    let h = load(root, &store, &[], false).unwrap();
    let names: Vec<&str> = h.items.iter().map(|i| i.item.as_str()).collect();
    assert_eq!(
        names,
        ["Not An Item", "commit"],
        "an odd imported name has no baseline"
    );
    assert_eq!(h.skipped_wiki_rows, 1);
    let d = h.items[1].series[0].points[0].decision.as_ref().unwrap();
    assert_eq!(d.pr.as_deref(), Some("#1"));
    assert_eq!(
        load(root, &store, &["tidy".into()], false).unwrap().items[0].series,
        vec![]
    );
}
/// An evaluation of commit on sonnet, `second`s into the sample day.
fn evaluation(run: &str, second: i64, with: f64, used: &[&StoredRun]) -> Evaluation {
    let at = sample("fires", Arm::With, 0, "x").outcome.started_at;
    Evaluation {
        run: run.into(),
        item: "commit".into(),
        model: "claude-sonnet-5-5".into(),
        date: "2026-11-30".into(),
        started_at: at + chrono::Duration::seconds(second),
        options: crate::evidence::EvaluationOptions {
            judge_model: "default".into(),
            platform_version: Some("2.1.328".into()),
            tools: vec![],
            options: "o".into(),
            runs: "3".into(),
            fresh: false,
            cases: vec!["fires".into(), "quiet".into()],
        },
        filtered: false,
        partial: false,
        partial_reason: None,
        with,
        without: 0.25,
        delta: round4(with - 0.25),
        trigger_rate: Some(1.0),
        cost_usd: 0.5,
        reused_cost_usd: 0.25,
        suite_digest: None,
        stats: None,
        used: used.iter().map(|r| r.id.clone()).collect(),
        provenance: Default::default(),
    }
}

fn kept_decision(run: &str, pr: &str, after: f64, outcome: Outcome) -> KeptDecision {
    KeptDecision {
        run: run.into(),
        item: "commit".into(),
        model: "claude-sonnet-5-5".into(),
        date: "2026-11-30".into(),
        mode: crate::evidence::MODE_RULE.into(),
        rule: vec![],
        outcome,
        pr: pr.into(),
        pages: vec!["p".into()],
        before: Some(0.5),
        after,
        best_after: Some(after),
        sequence: None,
        recorded_at: DateTime::from_timestamp(1_796_000_999, 0).unwrap(),
        provenance: Default::default(),
    }
}

#[test]
fn evaluations_are_points_and_decisions_join_by_run_id() {
    // Bought before any evaluation was kept: a point of its own.
    let old = run("fires", Arm::With, 0.1, 0, "eval-commit-20261130T000000Z");
    // Bought by the first evaluation, which also reuses `old`.
    let first = run("fires", Arm::With, 1.0, 10, "eval-commit-20261130T000010Z");
    // Bought by a run that left no document, after evaluations were kept: no point.
    let lost = run("quiet", Arm::With, 0.0, 40, "eval-commit-20261130T000040Z");
    let kept = Records {
        runs: vec![old.clone(), first.clone(), lost],
        evaluations: vec![
            evaluation("eval-commit-20261130T000010Z", 10, 0.875, &[&first, &old]),
            evaluation("eval-commit-20261130T000020Z", 20, 0.875, &[&first, &old]),
            Evaluation {
                filtered: true,
                partial: true,
                partial_reason: Some("filtered".into()),
                ..evaluation("eval-commit-20261130T000030Z", 30, 0.0, &[&first])
            },
        ],
        decisions: vec![kept_decision(
            "eval-commit-20261130T000020Z",
            "#12",
            0.875,
            Outcome::Accepted,
        )],
    };
    let rows = [
        // The kept decision's own row: not matched a second time.
        row("2026-11-30", 0.875, Outcome::Accepted, "#12"),
        // An older row: matched by day and score, the first such point.
        row("2026-11-30", 0.875, Outcome::Rejected, "#9"),
    ];
    let h = gather(&kept, &items(), &BTreeMap::new(), &rows, false);
    let points = &h[0].series[0].points;
    let runs: Vec<(&str, &str)> = points.iter().map(|p| (p.run.as_str(), p.from)).collect();
    assert_eq!(
        runs,
        [
            ("eval-commit-20261130T000000Z", "runs"),
            ("eval-commit-20261130T000010Z", "evaluation"),
            ("eval-commit-20261130T000020Z", "evaluation"),
        ]
    );
    assert_eq!(h[0].hidden, 1, "the filtered evaluation is left out");
    let p = &points[1];
    assert_eq!(
        (p.with, p.without, p.runs, p.cases),
        (Some(0.875), Some(0.25), 2, 2)
    );
    assert_eq!(p.used_runs, vec![first.id.clone(), old.id.clone()]);
    let d = p.decision.as_ref().unwrap();
    assert_eq!((d.pr.as_deref(), d.joined), (Some("#9"), "day-and-score"));
    let d = points[2].decision.as_ref().unwrap();
    assert_eq!((d.pr.as_deref(), d.joined), (Some("#12"), "run"));
    assert_eq!(d.mode.as_deref(), Some("rule"));
    assert!(h[0].unmatched.is_empty(), "{:?}", h[0].unmatched);
    assert_eq!(points[2].best, Some(0.875));

    let all = gather(&kept, &items(), &BTreeMap::new(), &rows, true);
    let last = all[0].series[0].points.last().unwrap();
    assert!(last.filtered && last.partial, "{last:?}");
    assert_eq!(all[0].hidden, 0);
}

#[test]
fn a_decision_on_no_point_shown_is_unmatched() {
    let kept = Records {
        decisions: vec![kept_decision(
            "eval-commit-20261130T000030Z",
            "#13",
            0.5,
            Outcome::Rejected,
        )],
        ..Records::default()
    };
    let h = gather(&kept, &items(), &BTreeMap::new(), &[], false);
    assert!(h[0].series.is_empty());
    assert_eq!(h[0].unmatched.len(), 1);
    assert_eq!(h[0].unmatched[0].pr, "#13");
}

#[test]
fn a_history_with_evaluations_is_a_valid_document() {
    let first = run("fires", Arm::With, 1.0, 10, "eval-commit-20261130T000010Z");
    let mut e = evaluation("eval-commit-20261130T000010Z", 10, 0.875, &[&first]);
    let estimate = |v: f64| crate::stats::Estimate {
        value: v,
        interval: crate::stats::Interval {
            low: (v - 0.1).max(-1.0),
            high: (v + 0.1).min(1.0),
            confidence: 0.95,
            method: crate::stats::Method::Score,
        },
    };
    e.stats = Some(crate::document::Stats {
        confidence: 0.95,
        suite: crate::stats::SuiteStats {
            with: estimate(0.875),
            without: estimate(0.25),
            delta: estimate(0.625),
            advisory: crate::stats::advise(&estimate(0.625), 0.0, 3.0),
            runs_per_arm: 3.0,
        },
        trigger: None,
        auto: None,
        min_effect: None,
    });
    let kept = Records {
        runs: vec![first],
        evaluations: vec![e],
        decisions: vec![kept_decision(
            "eval-commit-20261130T000010Z",
            "#12",
            0.875,
            Outcome::Accepted,
        )],
    };
    let history = History {
        schema: SCHEMA,
        evidence: "/e.db".into(),
        skipped_wiki_rows: 0,
        all: true,
        items: gather(&kept, &items(), &BTreeMap::new(), &[], true),
        warnings: vec![],
    };
    let doc = serde_json::to_value(&history).unwrap();
    let point = &doc["items"][0]["series"][0]["points"][0];
    assert_eq!(point["intervals"]["with"]["high"], 0.975);
    assert_eq!(point["decision"]["joined"], "run");
    crate::schema::validate_history(&doc, "h.json".into()).unwrap();
}
