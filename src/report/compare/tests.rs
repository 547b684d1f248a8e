use super::*;
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
