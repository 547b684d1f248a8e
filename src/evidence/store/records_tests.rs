//! Unit tests of the records beside the runs: evaluations and decisions
//! round trips, and which stored runs later evaluations compared again.

use super::super::kept::{KeptDecision, RecordProvenance};
use super::super::tests::sample;
use super::super::{Arm, Origin, StoredRun};
use super::tests::{evaluation, temp};
use super::{Added, Store};

#[test]
fn evaluations_and_decisions_round_trip_through_the_store_and_the_export() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let runs = [
        sample("fires", Arm::With, 0, "eval-commit-20261202T094337Z"),
        sample("fires", Arm::Without, 1, "eval-commit-20261202T094337Z"),
    ];
    let doc = crate::document::SkillEval::sample(0.8, 0.5);
    let at = runs[0].outcome.started_at;
    let mut evaluation = evaluation(&doc.run, runs.iter().map(|r| r.id.clone()).collect());
    evaluation.started_at = at;
    let baseline = crate::document::Baseline::empty("commit");
    let decision = KeptDecision::of(
        &doc,
        &crate::gate::decide(&doc, &baseline),
        "#12",
        &["p".into(), "p".into()],
        at,
    );
    assert_eq!(decision.pages, ["p"], "pages once each");
    assert_eq!(decision.mode, "rule");
    let confident = KeptDecision::of(
        &doc,
        &crate::gate::decide_at(&doc, &baseline, Some(0.95)),
        "#12",
        &[],
        at,
    );
    assert_eq!(confident.mode, "confidence:0.95");
    let added = store
        .insert_all(
            &[(Origin::Bought, &runs[..])],
            std::slice::from_ref(&evaluation),
            std::slice::from_ref(&decision),
        )
        .unwrap();
    assert_eq!(
        added,
        Added {
            runs: 2,
            evaluations: 1,
            decisions: 1
        }
    );
    assert_eq!(store.evaluations(&[]).unwrap(), vec![evaluation.clone()]);
    assert_eq!(store.decisions(&[]).unwrap(), vec![decision.clone()]);
    assert!(store.evaluations(&["tidy".into()]).unwrap().is_empty());

    let mut out = Vec::new();
    assert_eq!(store.export(&[], &mut out, "-".into()).unwrap(), 2);
    let text = String::from_utf8(out.clone()).unwrap();
    let kinds: Vec<&str> = text
        .lines()
        .map(|l| {
            if l.contains(r#""kind":"evaluation""#) {
                "evaluation"
            } else if l.contains(r#""kind":"decision""#) {
                "decision"
            } else {
                "run"
            }
        })
        .collect();
    assert_eq!(kinds, ["run", "run", "evaluation", "decision"]);
    let mut own = Vec::new();
    store.export_own(&[], &mut own, "-".into()).unwrap();
    assert_eq!(own, out, "a shard hands its evaluations and decisions on");
    let other = path.with_file_name("other.db");
    let mut fresh = Store::open(&other).unwrap();
    let report = fresh.import(&out[..], "x.jsonl".into()).unwrap();
    assert_eq!(
        (
            report.added,
            report.evaluations_added,
            report.decisions_added
        ),
        (2, 1, 1)
    );
    let again = fresh.import(&out[..], "x.jsonl".into()).unwrap();
    assert_eq!(
        (
            again.already,
            again.evaluations_added,
            again.decisions_added
        ),
        (2, 0, 0),
        "importing twice adds nothing"
    );
    let imported = |p: &mut RecordProvenance| *p = RecordProvenance::Imported;
    let (mut e, mut d) = (evaluation.clone(), decision.clone());
    imported(&mut e.provenance);
    imported(&mut d.provenance);
    assert_eq!(fresh.evaluations(&[]).unwrap(), vec![e], "marked imported");
    assert_eq!(fresh.decisions(&[]).unwrap(), vec![d]);

    // An export of runs only (before kinds) still imports.
    let runs_only: String = text
        .lines()
        .filter(|l| !l.contains(r#""kind":"#))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut third = Store::open(&path.with_file_name("third.db")).unwrap();
    let report = third
        .import(runs_only.as_bytes(), "old.jsonl".into())
        .unwrap();
    assert_eq!((report.added, report.evaluations), (2, 0));
    // A kind of a newer bob-eval is refused with its line.
    let newer = format!(
        "{}\n{{\"schema\":\"bob-eval-evidence/1\",\"kind\":\"verdict\"}}\n",
        text.lines().next().unwrap()
    );
    let err = third
        .import(newer.as_bytes(), "new.jsonl".into())
        .unwrap_err();
    assert!(err.to_string().starts_with("new.jsonl:2: "), "{err}");
    assert!(err.to_string().contains("verdict"), "{err}");
}

/// A decision's place in its item's sequence is kept, exported and imported
/// with it; one without (the bare rule, or kept before) reads back as none.
#[test]
fn a_decision_s_sequence_round_trips_through_the_store_and_the_export() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let doc = crate::document::SkillEval::sample(0.8, 0.5);
    let baseline = crate::document::Baseline::empty("commit");
    let sequence = crate::stats::sequence::Sequence::next(0.05, None);
    let decided = crate::gate::decide_in_sequence(
        &doc,
        &baseline,
        false,
        crate::gate::Mode::Confidence(0.95),
        None,
        Some(sequence),
    );
    let at = chrono::Utc::now() - chrono::Duration::seconds(5);
    let held = KeptDecision::of(&doc, &decided, "#13", &[], at);
    assert_eq!(held.sequence, Some(sequence));
    assert_eq!(
        held.mode, "confidence:0.95",
        "the mode's level, not the held one"
    );
    // Recorded a second later: the store reads decisions back in time order.
    let later = at + chrono::Duration::seconds(1);
    let bare = KeptDecision::of(
        &doc,
        &crate::gate::decide(&doc, &baseline),
        "#14",
        &[],
        later,
    );
    store
        .insert_decisions(&[held.clone(), bare.clone()])
        .unwrap();
    assert_eq!(store.decisions(&[]).unwrap(), vec![held.clone(), bare]);
    let line = crate::evidence::kept::decision_line(&held);
    assert!(line.contains(r#""sequence":{"proposal":1"#), "{line}");
    let mut out = Vec::new();
    store.export(&[], &mut out, "-".into()).unwrap();
    let mut other = Store::open(&path.with_file_name("other.db")).unwrap();
    other.import(&out[..], "x.jsonl".into()).unwrap();
    assert_eq!(other.decisions(&[]).unwrap()[0].sequence, Some(sequence));
}

#[test]
fn stored_without_arm_runs_are_compared_again_by_a_later_evaluation_buying_their_case_with_arm() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let without = [
        sample("fires", Arm::Without, 0, "eval-commit-1"),
        sample("fires", Arm::Without, 1, "eval-commit-1"),
    ];
    let first_with = sample("fires", Arm::With, 2, "eval-commit-1");
    let quiet_with = sample("quiet", Arm::With, 3, "eval-commit-2");
    let new_with = sample("fires", Arm::With, 4, "eval-commit-3");
    let all = [
        &without[..],
        &[first_with.clone(), quiet_with.clone(), new_with.clone()],
    ]
    .concat();
    store.insert(&all, &Origin::Bought).unwrap();
    let ids = |runs: &[&StoredRun]| runs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    let keep = |store: &mut Store, run: &str, used: Vec<String>| {
        store
            .keep_evaluation(&evaluation(run, used), &mut |_| {})
            .unwrap();
    };
    assert!(
        !store.compared_again(&without).unwrap(),
        "nothing used them"
    );
    assert!(!store.compared_again(&[]).unwrap());
    // Their buyer's evaluation, and a repeat of it buying nothing, compare nothing anew.
    keep(
        &mut store,
        "eval-commit-1",
        ids(&[&without[0], &without[1], &first_with]),
    );
    keep(
        &mut store,
        "eval-commit-r",
        ids(&[&without[0], &without[1], &first_with]),
    );
    assert!(!store.compared_again(&without).unwrap());
    // Nor does an evaluation that bought another case's with arm beside them.
    keep(
        &mut store,
        "eval-commit-2",
        ids(&[&without[1], &quiet_with]),
    );
    assert!(!store.compared_again(&without).unwrap());
    // One that bought their case's with arm does, for the runs it used.
    keep(&mut store, "eval-commit-3", ids(&[&without[1], &new_with]));
    assert!(store.compared_again(&without).unwrap());
    assert!(
        !store.compared_again(&without[..1]).unwrap(),
        "the other was not used"
    );
}
