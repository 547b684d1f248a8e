use super::{
    Answered, Grader, Label, LabelVerdict, Labels, Utf8Path, criterion_digest, is_labels_file,
    load, parse, path, save, stale_words,
};
use crate::suite::Entry;
use std::collections::BTreeMap;

fn grader(criteria: &str) -> Grader {
    let mut fields = BTreeMap::new();
    fields.insert(
        "criteria".to_owned(),
        Entry {
            value: serde_norway::Value::String(criteria.to_owned()),
            file: "g.md".into(),
            line: Some(1),
        },
    );
    Grader {
        name: "tone".into(),
        file: "g.md".into(),
        line: Some(1),
        fields,
    }
}

fn label(run: &str, human: LabelVerdict, judge: LabelVerdict) -> Label {
    Label {
        run: run.into(),
        arm: "with".into(),
        human,
        judge,
        at: "2026-12-05T08:00:00Z".into(),
        by: None,
        criterion_digest: None,
        judge_model: None,
    }
}

#[test]
fn the_digest_is_sha256_of_the_criterion_text() {
    // sha256("abc"), the FIPS 180-2 test vector.
    assert_eq!(
        criterion_digest(&grader("abc")),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_ne!(
        criterion_digest(&grader("abc")),
        criterion_digest(&grader("abc "))
    );
}

#[test]
fn paths_sit_beside_the_grader_and_refuse_unsafe_names() {
    let suite = Utf8Path::new("evals/commit");
    assert_eq!(
        path(suite, "fires".into(), "tone").unwrap(),
        "evals/commit/fires/graders/tone.labels.json"
    );
    assert_eq!(
        path(suite, "evals/commit/group/fires".into(), "tone.v2").unwrap(),
        "evals/commit/group/fires/graders/tone.v2.labels.json"
    );
    for bad in ["", "grader #1", "../x", "a/b", ".hidden", "é"] {
        let err = path(suite, "fires".into(), bad).unwrap_err().to_string();
        assert!(err.contains("`name:`"), "{bad:?}: {err}");
    }
    assert!(is_labels_file("tone.labels.json"));
    assert!(!is_labels_file(".labels.json"));
    assert!(!is_labels_file("tone.md"));
}

#[test]
fn stale_labels_do_not_count_and_are_counted() {
    let mut labels = Labels::new("tone", "sha256:old");
    labels.answer(
        label("r1", LabelVerdict::Pass, LabelVerdict::Pass),
        "sha256:old",
    );
    labels.answer(
        label("r2", LabelVerdict::Fail, LabelVerdict::Pass),
        "sha256:old",
    );
    let (current, stale) = labels.current("sha256:old");
    assert_eq!((current.len(), stale), (2, 0));
    assert_eq!(labels.current("sha256:new").1, 2);

    // A label under the new criterion keeps the old ones, stale.
    labels.answer(
        label("r3", LabelVerdict::Pass, LabelVerdict::Fail),
        "sha256:new",
    );
    assert_eq!(labels.criterion_digest, "sha256:new");
    let (current, stale) = labels.current("sha256:new");
    assert_eq!(current.len(), 1);
    assert_eq!(current[0].run, "r3");
    assert_eq!(stale, 2);
    assert!(stale_words(stale).contains("2 labels were given for an earlier criterion"));
    // The old criterion back: its labels count again.
    let (current, stale) = labels.current("sha256:old");
    assert_eq!((current.len(), stale), (2, 1));
    assert!(labels.current_for("r1", "sha256:old").is_some());
    assert!(labels.current_for("r1", "sha256:new").is_none());
}

#[test]
fn a_second_answer_for_a_run_replaces_the_first() {
    let mut labels = Labels::new("tone", "sha256:a");
    assert_eq!(
        labels.answer(
            label("r1", LabelVerdict::Pass, LabelVerdict::Fail),
            "sha256:a"
        ),
        Answered::Added
    );
    let again = labels.answer(
        label("r1", LabelVerdict::Fail, LabelVerdict::Fail),
        "sha256:a",
    );
    assert!(matches!(again, Answered::Replaced(ref old) if old.human == LabelVerdict::Pass));
    assert_eq!(labels.labels.len(), 1);
    assert_eq!(labels.labels[0].human, LabelVerdict::Fail);
    // A stale label of the run is replaced by the answer under the new criterion.
    let again = labels.answer(
        label("r1", LabelVerdict::Pass, LabelVerdict::Fail),
        "sha256:b",
    );
    assert!(matches!(again, Answered::Replaced(_)));
    assert_eq!(labels.current("sha256:b"), (vec![&labels.labels[0]], 0));
}

#[test]
fn save_then_load_round_trips_and_validates() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let file = path(root, "case".into(), "tone").unwrap();
    assert_eq!(load(&file).unwrap(), None);
    let digest = criterion_digest(&grader("Is it polite?"));
    let mut labels = Labels::new("tone", &digest);
    let mut l = label("eval-x-1", LabelVerdict::Pass, LabelVerdict::Fail);
    l.by = Some("ana".into());
    labels.answer(l, &digest);
    labels.answer(
        label("eval-x-2", LabelVerdict::Fail, LabelVerdict::Fail),
        &digest,
    );
    save(&file, &labels).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().filter(|l| l.contains("\"run\"")).count(), 2);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(crate::schema::labels_violations(&doc).is_empty());
    assert_eq!(load(&file).unwrap(), Some(labels.clone()));
    let empty = Labels::new("tone", &digest);
    save(&file, &empty).unwrap();
    assert_eq!(load(&file).unwrap(), Some(empty));
}

#[test]
fn errors_name_the_file_and_line() {
    let p = Utf8Path::new("g/tone.labels.json");
    let head = r#"{
  "format": "bob-eval-labels/1",
  "grader": "tone",
  "criterion_digest": "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  "labels": [
"#;
    let good = r#"    {"run":"r1","arm":"with","human":"pass","judge":"fail","at":"2026-12-05T08:00:00Z"}"#;
    let bad = r#"    {"run":"r2","arm":"with","human":"maybe","judge":"fail","at":"2026-12-05T08:00:00Z"}"#;
    let text = format!("{head}{good},\n{bad}\n  ]\n}}\n");
    let err = parse(&text, p).unwrap_err().to_string();
    assert!(err.starts_with("g/tone.labels.json:7: "), "{err}");
    assert!(err.contains("/labels/1/human"), "{err}");

    let twice = format!("{head}{good},\n{good}\n  ]\n}}\n");
    let err = parse(&twice, p).unwrap_err().to_string();
    assert!(err.starts_with("g/tone.labels.json:7: "), "{err}");
    assert!(err.contains("labelled twice"), "{err}");

    let err = parse("{\n  \"format\": ,\n}", p).unwrap_err().to_string();
    assert!(
        err.starts_with("g/tone.labels.json:2: not valid JSON"),
        "{err}"
    );

    let err = parse(r#"{"format": "bob-eval-labels/2", "grader": "tone", "criterion_digest": "sha256:x", "labels": []}"#, p)
        .unwrap_err()
        .to_string();
    assert!(err.contains("g/tone.labels.json:1: not a valid"), "{err}");
}

#[test]
fn verdicts_parse_in_any_case() {
    assert_eq!(LabelVerdict::parse(" PASS "), Some(LabelVerdict::Pass));
    assert_eq!(LabelVerdict::parse("Fail"), Some(LabelVerdict::Fail));
    assert_eq!(LabelVerdict::parse("yes"), None);
    assert_eq!(LabelVerdict::from_passed(true), LabelVerdict::Pass);
    assert!(!LabelVerdict::Fail.passed());
}
