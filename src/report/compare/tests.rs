use super::{NO_ANSWERS, NO_EFFICIENCY, changed, html, markdown, text};
use crate::document::{ArmCount, GraderEval, GraderRole, SkillEval};
use crate::ops::compare::{Conditions, ResolvedSide, compare};
use std::collections::BTreeMap;

fn grader(name: &str, with: u32, without: u32, runs: u32) -> GraderEval {
    GraderEval {
        name: name.into(),
        kind: GraderRole::Scored,
        with: ArmCount { passed: with, runs },
        without: Some(ArmCount {
            passed: without,
            runs,
        }),
        error: false,
        failure: None,
        split_votes: None,
    }
}

/// A side measured on `arms` (two cases) on the date its run id names; the
/// first case's grader `names-the-hook` passes `passes` of 3 with the item,
/// the second case's graders are the same on every side.
fn side(
    spec: &str,
    run: &str,
    arms: &[(&[f64], &[f64])],
    passes: u32,
    platform: &str,
) -> ResolvedSide {
    let mut doc = SkillEval::measured(arms, None);
    doc.run = run.into();
    doc.date = crate::document::run_id_date("commit", run).unwrap_or_default();
    for (i, case) in doc.cases.iter_mut().enumerate() {
        case.name = ["fires", "explains"][i].into();
        case.digest = Some(format!("digest-{i}"));
        case.graders = Some(if i == 0 {
            vec![
                grader("names-the-hook", passes, 0, 3),
                grader("polite", 3, 3, 3),
            ]
        } else {
            vec![grader("cites-docs", 2, 0, 3)]
        });
    }
    ResolvedSide {
        spec: spec.into(),
        source: format!("test {spec}"),
        doc,
        conditions: Conditions {
            judge_model: Some("default".into()),
            platform_version: Some(platform.into()),
            item_digest: Some(format!("item-{run}")),
            ..Conditions::default()
        },
        runs: BTreeMap::new(),
    }
}

fn pair(platform_b: &str) -> crate::ops::compare::EvalComparison {
    let a = side(
        "best",
        "eval-commit-20261201T100000Z",
        &[
            (&[1.0, 1.0, 1.0], &[0.0, 0.0, 1.0]),
            (&[1.0, 0.5, 1.0], &[0.5, 0.5, 0.0]),
        ],
        3,
        "2.1.3",
    );
    let b = side(
        "last",
        "eval-commit-20261202T100000Z",
        &[
            (&[1.0, 0.0, 0.0], &[0.0, 0.0, 1.0]),
            (&[1.0, 0.5, 1.0], &[0.5, 0.5, 0.0]),
        ],
        1,
        platform_b,
    );
    compare(&a, &b, None)
}

#[test]
fn terminal_text_of_a_regression_on_another_platform() {
    let c = pair("2.1.4");
    assert!(!c.like_for_like);
    assert_eq!(c.differences.len(), 1, "{:?}", c.differences);
    assert_eq!(c.differences[0].what, "platform_version");
    insta::assert_snapshot!(text(&c));
}

#[test]
fn like_for_like_says_so_and_the_delta_of_deltas_holds_its_value() {
    let c = pair("2.1.3");
    assert!(c.like_for_like);
    let fires = &c.cases[0];
    let dd = fires.delta_of_deltas.unwrap();
    let (a, b) = (fires.a.as_ref().unwrap(), fires.b.as_ref().unwrap());
    let expected = b.delta.unwrap().value - a.delta.unwrap().value;
    assert!((dd.value - expected).abs() < 1e-4, "{dd:?} vs {expected}");
    assert!(dd.low.unwrap() <= dd.value && dd.value <= dd.high.unwrap());
    let moved: Vec<&str> = changed(fires).map(|g| g.name.as_str()).collect();
    assert_eq!(
        moved,
        ["names-the-hook"],
        "3/3 → 1/3 moved, 3/3 → 3/3 did not"
    );
    assert_eq!(
        changed(&c.cases[1]).count(),
        0,
        "the grader list is per case: explains' grader held"
    );
    assert_eq!(c.cases[1].graders.len(), 1);
    assert!(text(&c).contains("Like for like"));
    assert!(text(&c).contains(NO_ANSWERS));
}

#[test]
fn markdown_of_a_regression() {
    insta::assert_snapshot!(markdown(&pair("2.1.4")));
}

#[test]
fn the_page_escapes_outside_text() {
    let mut a = side(
        "a.json",
        "eval-commit-20261201T100000Z",
        &[(&[1.0], &[0.0]), (&[1.0], &[1.0])],
        3,
        "<b>2.1.3</b>",
    );
    a.doc.cases[0].name = "<script>alert(1)</script>".into();
    let b = side(
        "b.json",
        "eval-commit-20261202T100000Z",
        &[(&[1.0], &[0.0]), (&[1.0], &[1.0])],
        3,
        "\"2.1.4\"",
    );
    let page = html(&compare(&a, &b, None));
    assert!(!page.contains("<script"), "{page}");
    assert!(!page.contains("<b>2.1.3"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("&quot;2.1.4&quot;"));
    let md = markdown(&compare(&a, &b, None));
    assert!(md.contains("\\<script\\>"), "{md}");
}

/// The pair of [`pair`] where A (and B unless `only_a`) measured its
/// efficiency: A's with arm costs the same as its without arm, B's twice.
fn measured_pair(only_a: bool) -> crate::ops::compare::EvalComparison {
    use crate::report::efficiency::tests::doc;
    let mut a = side(
        "best",
        "eval-commit-20261201T100000Z",
        &[(&[1.0, 1.0, 1.0], &[0.0, 0.0, 1.0])],
        3,
        "2.1.3",
    );
    let mut b = side(
        "last",
        "eval-commit-20261202T100000Z",
        &[(&[1.0, 0.0, 0.0], &[0.0, 0.0, 1.0])],
        1,
        "2.1.3",
    );
    a.doc.efficiency = doc(
        (&[0.01, 0.011, 0.009], &[0.01, 0.011, 0.009]),
        (&[2.0; 3], &[2.0; 3]),
    )
    .efficiency;
    if !only_a {
        b.doc.efficiency = doc(
            (&[0.02, 0.021, 0.019], &[0.01, 0.011, 0.009]),
            (&[4.0, 5.0, 4.0], &[2.0; 3]),
        )
        .efficiency;
    }
    compare(&a, &b, None)
}

#[test]
fn efficiency_side_by_side_in_every_format() {
    let c = measured_pair(false);
    let t = text(&c);
    insta::assert_snapshot!("efficiency_side_by_side", t);
    assert!(
        t.contains("with/without per run: cost A 1.00× ~1 · B 2.00× >1"),
        "{t}"
    );
    let md = markdown(&c);
    assert!(
        md.contains("| cost | B | $0.0200 \\[0.0175, 0.0225\\] |"),
        "{md}"
    );
    let page = html(&c);
    assert!(
        page.contains("<tr data-figure=\"turns\" data-side=\"b\">"),
        "{page}"
    );
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(v["b"]["efficiency"]["cost_usd"]["ratio"]["value"], 2.0);
    assert_eq!(v["a"]["efficiency"]["confidence"], 0.95);
    assert_eq!(
        v["cases"][0]["b"]["efficiency"]["turns"]["with"]["mean"],
        4.3333
    );
}

#[test]
fn a_side_without_efficiency_says_so_and_two_old_sides_say_nothing() {
    let c = measured_pair(true);
    let t = text(&c);
    assert!(
        t.contains(&format!("turns     B     {NO_EFFICIENCY}")),
        "{t}"
    );
    assert!(t.contains("cost A 1.00× ~1 · B —"), "{t}");
    assert!(
        serde_json::to_value(&c).unwrap()["b"]
            .get("efficiency")
            .is_none()
    );
    let old = pair("2.1.3");
    for out in [text(&old), markdown(&old), html(&old)] {
        assert!(!out.contains("efficiency"), "{out}");
        assert!(!out.contains("with/without"), "{out}");
    }
}
