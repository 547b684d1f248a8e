//! Reduction of platform documents: every copied capture, checked against an
//! independent computation, and property tests on generated documents.

use crate::support;

use bob_eval::Error;
use bob_eval::platform::result::parse as parse_doc;
use bob_eval::reduce::{ReduceContext, ResultSource, reduce, reduce_file};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::{DateTime, Utc};
use proptest::prelude::*;
use serde_json::{Value, json};
use support::data::data;
use support::expect;

fn ctx(item: &str) -> ReduceContext {
    ReduceContext {
        item: item.parse().expect("a valid name"),
        model: "claude-sonnet-5-5".into(),
        max_cost_usd: 2.0,
        started: Some(
            DateTime::parse_from_rfc3339("2026-12-02T09:43:37Z")
                .unwrap()
                .with_timezone(&Utc),
        ),
    }
}

fn capture(name: &str) -> Utf8PathBuf {
    Utf8PathBuf::from_path_buf(data(&format!("platform/{name}"))).unwrap()
}

fn raw(path: &Utf8Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn captures_of_the_commit_plugin_reduce_to_independent_numbers() {
    for name in [
        "run1_main.json",
        "run2_table_no_json.json",
        "run5_partial_cost.json",
    ] {
        let path = capture(name);
        let doc = reduce_file(&path, ResultSource::File, &ctx("commit"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let value = serde_json::to_value(&doc).unwrap();
        expect::assert_matches(&value, &expect::expected(&raw(&path)));
        assert_eq!(doc.run, "eval-commit-20261202T094337Z");
        assert_eq!(doc.model, "claude-sonnet-5-5");
    }
}

#[test]
fn run1_reads_as_the_platform_says() {
    // Independent of any formula: what the capture's runs plainly show.
    let doc = reduce_file(
        &capture("run1_main.json"),
        ResultSource::File,
        &ctx("commit"),
    )
    .unwrap();
    let fires = &doc.cases[0];
    assert_eq!((fires.with, fires.without, fires.runs), (1.0, Some(0.0), 4));
    assert_eq!(fires.trigger_rate, Some(1.0));
    let quiet = &doc.cases[1];
    assert_eq!(
        (quiet.with, quiet.without, quiet.delta),
        (1.0, Some(1.0), Some(0.0))
    );
    assert_eq!((doc.with, doc.without, doc.delta), (1.0, 0.5, 0.5));
    assert!(!doc.partial);
}

#[test]
fn a_case_scored_by_its_trigger_alone_is_marked() {
    // Captured on the real platform (2.1.328): `fires` holds only its Skill
    // grader, so the platform scored it (withOnly false, scored true) and
    // the case reads +1.00 for firing alone.
    let path = capture("trigger-only-fires.json");
    let platform = raw(&path);
    let fires_run = &platform["cases"][0]["arms"]["with"][0]["graders"][0];
    assert_eq!(
        (&fires_run["withOnly"], &fires_run["scored"]),
        (&json!(false), &json!(true))
    );
    let doc = reduce_file(&path, ResultSource::File, &ctx("demo")).unwrap();
    let marked: Vec<&str> = doc.scored_by_trigger().map(|c| c.name.as_str()).collect();
    assert_eq!(
        marked,
        ["fires"],
        "quiet (arm: both) and scoring are scored as meant"
    );
    let fires = doc.cases.iter().find(|c| c.name == "fires").unwrap();
    assert_eq!((fires.with, fires.delta), (1.0, Some(1.0)));
    let value = serde_json::to_value(&doc).unwrap();
    assert_eq!(value["cases"][0]["scored_by_trigger"], json!(true));
    assert!(value["cases"][1].get("scored_by_trigger").is_none());
    // The platform's own run-1 capture (trigger graders beside scored ones) marks nothing.
    let run1 = reduce_file(
        &capture("run1_main.json"),
        ResultSource::File,
        &ctx("commit"),
    )
    .unwrap();
    assert_eq!(run1.scored_by_trigger().count(), 0);
}

#[test]
fn captures_of_other_plugins_or_single_arm_are_refused() {
    for name in expect::NOT_COMMIT_CAPTURES {
        let err = reduce_file(&capture(name), ResultSource::File, &ctx("commit")).unwrap_err();
        assert!(matches!(err, Error::PluginNotLoaded(_)), "{name}: {err}");
        assert_eq!(err.exit_code(), 3);
    }
}

#[test]
fn captures_of_hello_plug_reduce_under_their_own_name() {
    // The same documents, with the plugin renamed to what `hello` would get:
    // exercises all six grader types, an auth failure and a prose suite.
    for name in [
        "all-grader-types.json",
        "with-without-prose.json",
        "auth-failed-partial.json",
    ] {
        let mut value = raw(&capture(name));
        value["suite"]["plugins"][0]["name"] = json!("bob-eval-hello");
        let bytes = serde_json::to_vec(&value).unwrap();
        let doc = parse_doc(&bytes, Utf8Path::new(name)).unwrap();
        let out = reduce(&doc, &ctx("hello")).unwrap_or_else(|e| panic!("{name}: {e}"));
        expect::assert_matches(
            &serde_json::to_value(&out).unwrap(),
            &expect::expected(&value),
        );
    }
}

// ---- generated documents ----

fn arb_grader_result() -> impl Strategy<Value = (usize, bool)> {
    (0usize..4, any::<bool>())
}

fn arb_run() -> impl Strategy<Value = Value> {
    (
        prop_oneof![Just(0.0), Just(1.0), Just(0.5), Just(1.0 / 3.0), 0.0f64..=1.0],
        0.0f64..0.5,
        prop::collection::vec(arb_grader_result(), 0..4),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(score, cost, graders, broken)| {
            let names = ["fires", "quiet", "subject", "why"];
            let graders: Vec<Value> = if broken {
                vec![]
            } else {
                graders.iter().map(|(i, p)| json!({"name": names[*i], "passed": p, "evidence": "e".repeat(*i)})).collect()
            };
            let error = if broken { json!("api error 529") } else { Value::Null };
            json!({"score": if broken { 0.0 } else { score }, "costUsd": cost, "error": error, "graders": graders, "turns": 1})
        })
}

fn arb_case() -> impl Strategy<Value = Value> {
    (
        "[a-z]{1,8}",
        prop::collection::vec(arb_run(), 1..4),
        prop::collection::vec(arb_run(), 0..4),
        prop::collection::vec(0usize..4, 0..4),
    )
        .prop_map(|(name, with, without, grader_defs)| {
            let defs: Vec<Value> = grader_defs
                .iter()
                .map(|i| match i {
                    0 => json!({"name": "fires", "type": "tool_used", "config": {"tool": "Skill"}}),
                    1 => json!({"name": "quiet", "type": "tool_used", "config": {"tool": "Skill", "min": 0, "max": 0}}),
                    2 => json!({"name": "subject", "type": "tool_used", "config": {"tool": "Write"}}),
                    _ => json!({"name": "why", "type": "llm", "config": {"criteria": "x"}}),
                })
                .collect();
            json!({"name": name, "graders": defs, "arms": {"with": with, "without": without}})
        })
}

fn arb_doc() -> impl Strategy<Value = Value> {
    (prop::collection::vec(arb_case(), 1..5), 0.0f64..5.0, prop::option::of(prop_oneof![Just("cost_ceiling"), Just("auth_failed")]))
        .prop_map(|(cases, cost, partial)| {
            let mut doc = json!({
                "schemaVersion": 1, "startedAt": "2026-12-02T09:39:15.075Z", "costUsd": cost,
                "partial": partial.is_some(),
                "suite": {"ablation": "with-without", "plugins": [{"name": "bob-eval-commit", "version": "0.0.0"}]},
                "cases": cases,
            });
            if let Some(reason) = partial {
                doc["partialReason"] = json!(reason);
            }
            doc
        })
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        any::<i64>().prop_map(|i| json!(i)),
        prop_oneof![
            prop_oneof![
                Just("schemaVersion"),
                Just("with-without"),
                Just("bob-eval-commit")
            ]
            .prop_map(str::to_string),
            "[a-zA-Z]{0,6}"
        ]
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("schemaVersion"),
                        Just("suite"),
                        Just("ablation"),
                        Just("plugins"),
                        Just("name"),
                        Just("cases"),
                        Just("arms"),
                        Just("with"),
                        Just("without"),
                        Just("score"),
                        Just("graders"),
                        Just("costUsd"),
                        Just("partial"),
                        Just("error"),
                        Just("passed"),
                        Just("type"),
                        Just("config"),
                        Just("tool"),
                        Just("startedAt"),
                        Just("problem")
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_documents_keep_the_invariants(raw_doc in arb_doc()) {
        let bytes = serde_json::to_vec(&raw_doc).unwrap();
        let doc = parse_doc(&bytes, Utf8Path::new("gen.json")).unwrap();
        let out = reduce(&doc, &ctx("commit")).unwrap();
        let in01 = |x: f64| (0.0..=1.0).contains(&x);
        prop_assert!(in01(out.with) && in01(out.without));
        prop_assert!((out.delta - (out.with - out.without)).abs() < 1e-9);
        let sign = if out.delta > 0.0 { "improved" } else if out.delta < 0.0 { "regressed" } else { "no-signal" };
        prop_assert_eq!(out.verdict.as_str(), sign);
        prop_assert!(out.trigger_rate.is_none_or(in01));
        for c in &out.cases {
            prop_assert!(in01(c.with));
            prop_assert!(c.without.is_none_or(in01));
            match (c.without, c.delta) {
                (Some(w), Some(d)) => prop_assert!((d - (c.with - w)).abs() < 1e-9),
                (None, None) => prop_assert!(c.verdict.is_none()),
                other => prop_assert!(false, "without/delta mismatch {:?}", other),
            }
            prop_assert!(c.trigger_rate.is_none_or(in01));
        }
        if raw_doc["partial"] == true {
            let reason = out.partial_reason.as_ref().map(ToString::to_string);
            prop_assert_eq!(reason.as_deref(), raw_doc["partialReason"].as_str());
        }
        expect::assert_matches(&serde_json::to_value(&out).unwrap(), &expect::expected(&raw_doc));
    }

    #[test]
    fn out_of_range_scores_are_refused_or_kept_in_range(raw_doc in arb_doc(), score in prop_oneof![-2.0f64..3.0, Just(f64::MAX), Just(-0.0)], at in 0usize..2) {
        let mut raw_doc = raw_doc;
        let arm = if at == 0 { "with" } else { "without" };
        if raw_doc["cases"][0]["arms"][arm].as_array().is_some_and(|a| !a.is_empty()) {
            raw_doc["cases"][0]["arms"][arm][0]["score"] = json!(score);
        }
        let bytes = serde_json::to_vec(&raw_doc).unwrap();
        let in01 = |x: f64| (0.0..=1.0).contains(&x);
        let path = Utf8Path::new("range.json");
        match parse_doc(&bytes, path).and_then(|d| bob_eval::reduce::reduce_named(&d, &ctx("commit"), path)) {
            Ok(out) => {
                prop_assert!(in01(out.with) && in01(out.without), "{} {}", out.with, out.without);
                for c in &out.cases {
                    prop_assert!(in01(c.with) && c.without.is_none_or(in01));
                }
            }
            // Refused, naming the file and the number out of range.
            Err(e) => {
                let e = e.to_string();
                prop_assert!(e.contains("range.json"), "{}", e);
                prop_assert!(e.contains("is outside 0..1"), "{}", e);
            }
        }
    }

    #[test]
    fn arbitrary_json_never_panics(value in arb_json()) {
        let bytes = serde_json::to_vec(&value).unwrap();
        if let Ok(doc) = parse_doc(&bytes, Utf8Path::new("any.json")) {
            let _ = reduce(&doc, &ctx("commit"));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let parsed = parse_doc(&bytes, Utf8Path::new("any.json"));
        let looks_like_an_object = bytes.trim_ascii_start().first() == Some(&b'{');
        prop_assert!(parsed.is_err() || looks_like_an_object);
    }

    #[test]
    fn documents_with_a_wild_field_never_panic(raw_doc in arb_doc(), wild in arb_json(), at in 0usize..6) {
        let mut raw_doc = raw_doc;
        match at {
            0 => raw_doc["cases"][0]["arms"]["with"][0]["score"] = wild,
            1 => raw_doc["cases"][0]["graders"] = wild,
            2 => raw_doc["suite"]["plugins"] = wild,
            3 => raw_doc["costUsd"] = wild,
            4 => raw_doc["cases"][0]["arms"] = wild,
            _ => raw_doc["schemaVersion"] = wild,
        }
        let bytes = serde_json::to_vec(&raw_doc).unwrap();
        if let Ok(doc) = parse_doc(&bytes, Utf8Path::new("wild.json")) {
            let _ = reduce(&doc, &ctx("commit"));
        }
    }
}
