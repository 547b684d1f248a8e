//! Unit tests of the module.
use super::{
    ArmValues, CaseFigures, Efficiency, Error, MAX_USD, SkillEval, Utf8Path, Verdict, fmt_score,
    load_baseline, load_result, new_run_id, round4, run_id, run_id_date, sum_usd,
};

#[test]
fn run_ids_and_their_dates_come_from_the_items_stamp_only() {
    use chrono::TimeZone;
    let started = chrono::Utc
        .with_ymd_and_hms(2026, 12, 2, 9, 43, 37)
        .unwrap();
    let id = run_id("commit", started);
    assert_eq!(id, "eval-commit-20261202T094337Z");
    assert_eq!(run_id_date("commit", &id).as_deref(), Some("2026-12-02"));
    assert_eq!(run_id_date("commit", "eval-other-20261202T094337Z"), None);
    assert_eq!(run_id_date("commit", "eval-commit-x"), None);
    // Minted ids: finer, never equal, sorted by start, still dated.
    let a = new_run_id("commit", started);
    let b = new_run_id("commit", started);
    assert_ne!(a, b);
    assert!(a.starts_with("eval-commit-20261202T094337.000000Z-"), "{a}");
    assert_eq!(run_id_date("commit", &a).as_deref(), Some("2026-12-02"));
    let later = new_run_id("commit", started + chrono::Duration::microseconds(1));
    assert!(later > a && later > b, "{later} sorts after {a}");
    assert_eq!(
        run_id_date("commit", &format!("{}x", &a[..a.len() - 1])),
        None
    );
    let schema = crate::schema::validate_skill_eval(
        &serde_json::to_value(SkillEval {
            run: a,
            ..SkillEval::sample(0.5, 0.5)
        })
        .unwrap(),
        Utf8Path::new("r.json"),
    );
    assert!(schema.is_ok(), "{schema:?}");
}

#[test]
fn sums_of_costs_stay_finite() {
    assert_eq!(sum_usd([0.5, 0.25]), 0.75);
    assert_eq!(sum_usd([1e308, 1e308]), MAX_USD);
    assert_eq!(sum_usd([f64::INFINITY, f64::NAN, -1.0]), MAX_USD);
    assert!(round4(sum_usd([1e308; 4])).is_finite());
}

#[test]
fn item_change_says_when_the_item_is_not_the_one_measured() {
    let doc = SkillEval {
        item_digest: Some("a".repeat(64)),
        ..SkillEval::sample(0.9, 0.5)
    };
    assert_eq!(doc.item_change(&"a".repeat(64)), None);
    let why = doc.item_change(&"b".repeat(64)).unwrap();
    assert!(why.contains("another version of `commit`"), "{why}");
    // It names the command that evaluates it again, as it was evaluated.
    let judged = SkillEval {
        model: "haiku".into(),
        flags: Some(
            ["--runs", "5", "--judge-model", "j 2"]
                .map(String::from)
                .to_vec(),
        ),
        ..doc.clone()
    };
    let why = judged.item_change(&"b".repeat(64)).unwrap();
    assert!(
        why.ends_with(
            "evaluate it again: bob-eval run commit --model haiku --runs 5 --judge-model 'j 2'"
        ),
        "{why}"
    );
    assert_eq!(SkillEval::sample(0.9, 0.5).item_change("b"), None);
}

#[test]
fn verdict_follows_sign() {
    assert_eq!(Verdict::of(0.1), Verdict::Improved);
    assert_eq!(Verdict::of(0.0), Verdict::NoSignal);
    assert_eq!(Verdict::of(-0.0001), Verdict::Regressed);
}

#[test]
fn round4_rounds_and_normalises_negative_zero() {
    assert_eq!(round4(2.0 / 3.0), 0.6667);
    assert_eq!(round4(0.83335), 0.8334);
    assert!(round4(-0.00001).is_sign_positive());
}

#[test]
fn load_baseline_takes_a_name_not_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let source = Utf8Path::from_path(dir.path()).unwrap().join("source");
    std::fs::create_dir_all(source.join("evals")).unwrap();
    for item in ["../outside", "a/b", ""] {
        let err = crate::config::ItemName::new(item).unwrap_err();
        assert!(
            matches!(err, Error::InvalidItemName { .. }),
            "{item}: {err:?}"
        );
    }
    assert!(
        load_baseline(&source, &crate::config::item_name("commit"))
            .unwrap()
            .best
            .is_empty()
    );
}

#[test]
fn fmt_score_keeps_two_to_four_decimals() {
    assert_eq!(fmt_score(0.83), "0.83");
    assert_eq!(fmt_score(1.0), "1.00");
    assert_eq!(fmt_score(0.0), "0.00");
    assert_eq!(fmt_score(0.5), "0.50");
    assert_eq!(fmt_score(2.0 / 3.0), "0.6667");
    assert_eq!(fmt_score(0.125), "0.125");
}

#[test]
fn a_result_dated_on_no_calendar_day_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = Utf8Path::from_path(dir.path()).unwrap().join("r.json");
    for (date, ok) in [
        ("2026-02-28", true),
        ("2026-02-30", false),
        ("2026-13-01", false),
    ] {
        let doc = SkillEval {
            date: date.into(),
            ..SkillEval::sample(0.9, 0.5)
        };
        std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
        let loaded = load_result(&path, "commit");
        assert_eq!(loaded.is_ok(), ok, "{date}: {loaded:?}");
    }
}

#[test]
fn efficiency_is_optional_old_documents_still_read_and_new_ones_validate() {
    let dir = tempfile::tempdir().unwrap();
    let path = Utf8Path::from_path(dir.path()).unwrap().join("old.json");
    // A document written before efficiency was measured: no such key.
    let mut old = serde_json::to_value(SkillEval::sample(0.9, 0.5)).unwrap();
    assert!(old.get("efficiency").is_none());
    old.as_object_mut().unwrap().remove("efficiency");
    std::fs::write(&path, old.to_string()).unwrap();
    let read = load_result(&path, "commit").unwrap();
    assert_eq!(read.efficiency, None);
    // A new one carries it, and the schema takes it.
    let values = |w: &'static [f64], wo: &'static [f64]| ArmValues {
        with: w,
        without: wo,
    };
    let case = CaseFigures::of(
        "fires",
        [
            values(&[0.02, 0.03], &[0.01, 0.01]),
            values(&[3.0, 3.0], &[1.0, 1.0]),
            values(&[2.0, 3.0], &[1.0, 1.0]),
        ],
        0.95,
    );
    let doc = SkillEval {
        efficiency: Efficiency::of(vec![case], 1, 0.95),
        ..SkillEval::sample(0.9, 0.5)
    };
    let value = serde_json::to_value(&doc).unwrap();
    assert_eq!(value["efficiency"]["suite"]["turns"]["ratio"]["value"], 3.0);
    assert_eq!(value["efficiency"]["cases"][0]["name"], "fires");
    let checked = crate::schema::validate_skill_eval(&value, Utf8Path::new("new.json"));
    assert!(checked.is_ok(), "{checked:?}");
    std::fs::write(&path, value.to_string()).unwrap();
    assert_eq!(load_result(&path, "commit").unwrap(), doc);
    // An unknown key inside it is refused, as elsewhere in the document.
    let mut bad = value.clone();
    bad["efficiency"]["suite"]["turns"]["with"]["median"] = 3.into();
    assert!(crate::schema::validate_skill_eval(&bad, Utf8Path::new("bad.json")).is_err());
}
