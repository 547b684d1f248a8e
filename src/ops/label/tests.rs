use super::{
    Arm, Candidate, ENTRY_FORMAT, JudgedGrader, LabelVerdict, Pool, THRESHOLD, Utf8PathBuf,
    class_need, entry_id, import, need, new_label, read_entries, stratified,
};
use crate::suite::labels::LabelVerdict::{Fail, Pass};
use camino::Utf8Path;

fn cand(n: usize, grader: &str, arm: Arm, judge: LabelVerdict) -> Candidate {
    let run = format!("run{n:03}");
    Candidate {
        entry: entry_id(&run, "fires", grader),
        run,
        case: "fires".into(),
        grader: grader.into(),
        arm,
        criterion: "c".into(),
        saw: "s".into(),
        judge,
        judge_model: "default".into(),
    }
}

#[test]
fn every_stratum_comes_early_however_rare() {
    // 40 runs the judge passed on the with arm, 2 failed, 5 and 5 without.
    let mut all = Vec::new();
    for n in 0..40 {
        all.push(cand(n, "why", Arm::With, Pass));
    }
    for n in 40..42 {
        all.push(cand(n, "why", Arm::With, Fail));
    }
    for n in 42..47 {
        all.push(cand(n, "why", Arm::Without, Pass));
    }
    for n in 47..52 {
        all.push(cand(n, "why", Arm::Without, Fail));
    }
    let order = stratified(all.clone());
    assert_eq!(order.len(), all.len());
    let first: std::collections::BTreeSet<_> =
        order[..4].iter().map(|c| (c.arm, c.judge)).collect();
    assert_eq!(first.len(), 4, "the first four are one of each stratum");
    // The rare stratum is used up within its share of the first draws.
    let rare = order
        .iter()
        .rposition(|c| c.arm == Arm::With && c.judge == Fail)
        .unwrap();
    assert!(rare < 8, "{rare}");
    // The same runs give the same order, whatever order they came in.
    let mut reversed = all;
    reversed.reverse();
    assert_eq!(stratified(reversed), order);
}

#[test]
fn graders_take_turns() {
    let mut all = Vec::new();
    for n in 0..6 {
        all.push(cand(n, "why", Arm::With, Pass));
        all.push(cand(n + 10, "tone", Arm::With, Pass));
    }
    let order = stratified(all);
    let names: Vec<&str> = order.iter().take(4).map(|c| c.grader.as_str()).collect();
    assert_eq!(names, ["tone", "why", "tone", "why"]);
}

#[test]
fn entry_ids_are_opaque_and_stable() {
    let a = entry_id("run1", "fires", "why");
    assert_eq!(a, entry_id("run1", "fires", "why"));
    assert_ne!(a, entry_id("run1", "fires", "tone"));
    assert_eq!(a.len(), 17);
    assert!(a.starts_with('e') && !a.contains("run1"));
}

fn write_batch(lines: &[String]) -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = Utf8PathBuf::from_path_buf(dir.path().join("batch.jsonl")).unwrap();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (dir, path)
}

fn line(entry: &str, human: &str) -> String {
    serde_json::json!({"format": ENTRY_FORMAT, "entry": entry, "item": "commit", "case": "fires",
        "grader": "why", "arm": "with", "criterion": "c", "saw": "s", "human": human})
    .to_string()
}

#[test]
fn a_batch_is_read_with_blanks_skipped_and_bad_lines_named() {
    let (_d, path) = write_batch(&[
        line("e1", "PASS"),
        String::new(),
        line("e2", ""),
        line("e3", " fail "),
    ]);
    let answers = read_entries(&path, "commit").unwrap();
    let got: Vec<(usize, Option<LabelVerdict>)> =
        answers.iter().map(|a| (a.line, a.human)).collect();
    assert_eq!(got, [(1, Some(Pass)), (3, None), (4, Some(Fail))]);

    let (_d, path) = write_batch(&[line("e1", "pass"), line("e2", "maybe")]);
    let err = read_entries(&path, "commit").unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{path}:2: `human` is \"maybe\"")),
        "{err}"
    );

    let (_d, path) = write_batch(&[line("e1", "pass"), line("e1", "fail")]);
    let err = read_entries(&path, "commit").unwrap_err().to_string();
    assert!(
        err.contains(":2: entry e1 is given twice (also line 1)"),
        "{err}"
    );

    let (_d, path) = write_batch(&[line("e1", "pass"), "{not json".into()]);
    let err = read_entries(&path, "commit").unwrap_err().to_string();
    assert!(
        err.contains(":2: not a bob-eval-label-entry/1 line"),
        "{err}"
    );

    let (_d, path) = write_batch(&[line("e1", "pass")]);
    let err = read_entries(&path, "ship").unwrap_err().to_string();
    assert!(
        err.contains(":1: this entry is for item \"commit\", not \"ship\""),
        "{err}"
    );
}

fn pool_with(dir: &Utf8Path, candidates: Vec<Candidate>) -> Pool {
    Pool {
        graders: vec![JudgedGrader {
            case: "fires".into(),
            grader: "why".into(),
            criterion: "c".into(),
            digest: crate::suite::labels::text_digest("c"),
            path: dir.join("fires/graders/why.labels.json"),
            labels: None,
        }],
        todo: candidates,
        done: Vec::new(),
        older: Vec::new(),
        no_evidence: 0,
        other_version: 0,
        unnamed: Vec::new(),
    }
}

#[test]
fn an_import_looks_the_judge_up_and_refuses_unknown_entries_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let (a, b) = (
        cand(1, "why", Arm::With, Fail),
        cand(2, "why", Arm::Without, Pass),
    );
    let (_d, path) = write_batch(&[line(&a.entry, "pass"), line("e-unknown", "fail")]);
    let answers = read_entries(&path, "commit").unwrap();
    let err = import(
        pool_with(root, vec![a.clone(), b.clone()]),
        &path,
        answers,
        None,
        chrono::Utc::now(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains(":2: entry e-unknown"), "{err}");
    assert!(
        !root.join("fires/graders/why.labels.json").exists(),
        "nothing written"
    );

    let (_d, path) = write_batch(&[
        line(&a.entry, "pass"),
        line(&b.entry, ""),
        line(&b.entry.replace('e', "E"), ""),
    ]);
    let answers = read_entries(&path, "commit").unwrap();
    assert!(
        import(
            pool_with(root, vec![a.clone(), b.clone()]),
            &path,
            answers,
            None,
            chrono::Utc::now()
        )
        .is_err()
    );

    let (_d, path) = write_batch(&[line(&a.entry, "pass"), line(&b.entry, "")]);
    let answers = read_entries(&path, "commit").unwrap();
    let done = import(
        pool_with(root, vec![a.clone(), b]),
        &path,
        answers,
        Some("ana"),
        chrono::Utc::now(),
    )
    .unwrap();
    assert_eq!((done.report.added, done.report.skipped), (1, 1));
    let saved = crate::suite::labels::load(&root.join("fires/graders/why.labels.json"))
        .unwrap()
        .unwrap();
    assert_eq!(saved.labels.len(), 1);
    let l = &saved.labels[0];
    assert_eq!(
        (l.run.as_str(), l.human, l.judge, l.arm.as_str()),
        ("run001", Pass, Fail, "with")
    );
    assert_eq!(l.by.as_deref(), Some("ana"));
}

#[test]
fn an_answer_for_an_edited_criterion_is_kept_stale() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8Path::from_path(dir.path()).unwrap();
    let a = cand(1, "why", Arm::With, Fail);
    let edited = line(&a.entry, "fail").replace("\"criterion\":\"c\"", "\"criterion\":\"old\"");
    let (_d, path) = write_batch(&[edited]);
    let answers = read_entries(&path, "commit").unwrap();
    let done = import(
        pool_with(root, vec![a]),
        &path,
        answers,
        None,
        chrono::Utc::now(),
    )
    .unwrap();
    assert_eq!((done.report.added, done.report.stale), (0, 1));
    let (current, stale) = done.pool.graders[0].current();
    assert_eq!((current.len(), stale), (0, 1));
}

#[test]
fn the_need_follows_the_wilson_lower_limit() {
    // No labels: a judge that always agrees needs 16 of each class
    // (the Wilson 95 % lower limit of 16/16 is 0.806, of 15/15 0.796).
    let none = need(&[]);
    assert_eq!((none.pass.more, none.fail.more), (Some(16), Some(16)));
    assert!(!none.reached && none.reachable);
    // Agreeing on 9 in 10: more labels reach the threshold.
    let c = class_need(18, 20);
    let total = c.total_needed.unwrap();
    assert!(
        crate::stats::wilson_at((total as f64 * 0.9).floor() as u32, total, 0.95).low >= THRESHOLD
    );
    assert!(
        crate::stats::wilson_at(((total - 1) as f64 * 0.9).floor() as u32, total - 1, 0.95).low
            < THRESHOLD
    );
    assert_eq!(c.more, Some(total - 20));
    // Agreeing on 3 in 4 never does.
    assert_eq!(class_need(15, 20).total_needed, None);
    // Reached already.
    let done = class_need(40, 40);
    assert_eq!((done.more, done.total_needed), (Some(0), Some(40)));
}

#[test]
fn a_batch_may_be_one_json_array_with_booleans() {
    let entry = |id: &str, human: serde_json::Value| {
        serde_json::json!({"format": ENTRY_FORMAT, "entry": id, "item": "commit", "case": "fires",
            "grader": "why", "arm": "with", "criterion": "c", "saw": "s", "human": human})
    };
    let pretty = serde_json::to_string_pretty(&vec![
        entry("e1", true.into()),
        entry("e2", serde_json::Value::Null),
        entry("e3", "Fail".into()),
    ])
    .unwrap();
    let (_d, path) = write_batch(std::slice::from_ref(&pretty));
    let answers = read_entries(&path, "commit").unwrap();
    let got: Vec<(usize, Option<LabelVerdict>)> =
        answers.iter().map(|a| (a.line, a.human)).collect();
    // Each element of the pretty array spans 11 lines, after the `[`.
    assert_eq!(got, [(2, Some(Pass)), (13, None), (24, Some(Fail))]);

    let bad = pretty.replace("\"Fail\"", "3");
    let (_d, path) = write_batch(&[bad]);
    let err = read_entries(&path, "commit").unwrap_err().to_string();
    assert!(err.contains(":24: `human` is 3"), "{err}");
}

#[test]
fn a_label_keeps_the_judge_model_of_its_run() {
    let mut c = cand(1, "why", Arm::With, Pass);
    c.judge_model = "claude-opus-4-1".into();
    let label = new_label(&c, Fail, None, chrono::Utc::now());
    assert_eq!(label.judge_model.as_deref(), Some("claude-opus-4-1"));
    let text = serde_json::to_string(&label).unwrap();
    assert!(
        text.contains(r#""judge_model":"claude-opus-4-1""#),
        "{text}"
    );
}
