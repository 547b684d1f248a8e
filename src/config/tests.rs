//! Unit tests of `config`.
use super::{
    Ceiling, Context, DEFAULT_MAX_COST_USD, Environment, ItemName, Mode, RuleChoice, Settings,
    Utf8Path, Value, canonical_model, did_you_mean, home_dir, resolve_ceiling, resolve_confidence,
    resolve_judge_threshold, resolve_max_cost_ratio, resolve_min_effect, resolve_mode,
    resolve_model,
};

#[test]
fn the_judge_threshold_comes_from_the_settings() {
    let settings = |v: Value| Settings {
        judge_threshold: Some(v),
        ..Settings::default()
    };
    assert_eq!(resolve_judge_threshold(&Settings::default()).unwrap(), 0.8);
    assert_eq!(
        resolve_judge_threshold(&settings(serde_json::json!(0.9))).unwrap(),
        0.9
    );
    let err = resolve_judge_threshold(&settings(serde_json::json!(1.5)))
        .unwrap_err()
        .to_string();
    assert!(err.contains("_workflow.judge_threshold"), "{err}");
}

#[test]
fn the_minimum_effect_comes_from_the_flag_then_the_settings() {
    let settings = |v: Value| Settings {
        min_effect: Some(v),
        ..Settings::default()
    };
    let none = Settings::default();
    assert_eq!(resolve_min_effect(None, &none).unwrap(), 0.2);
    assert_eq!(resolve_min_effect(Some(0.1), &none).unwrap(), 0.1);
    let house = settings(serde_json::json!(0.3));
    assert_eq!(resolve_min_effect(None, &house).unwrap(), 0.3);
    assert_eq!(resolve_min_effect(Some(0.1), &house).unwrap(), 0.1);
    assert!(resolve_min_effect(Some(0.0), &none).is_err());
    let bad = resolve_min_effect(None, &settings(serde_json::json!("big"))).unwrap_err();
    assert!(bad.to_string().contains("_workflow.min_effect"), "{bad}");
    assert!(resolve_min_effect(None, &settings(serde_json::json!(2))).is_err());
}

#[test]
fn a_typo_gets_the_nearest_name() {
    let known = ["pr-title", "commit", "changelog"];
    assert_eq!(
        did_you_mean("pr-titel", &known).as_deref(),
        Some("pr-title")
    );
    assert_eq!(did_you_mean("comit", &known).as_deref(), Some("commit"));
    assert_eq!(did_you_mean("deploy", &known), None);
    assert_eq!(
        did_you_mean("commit", &known),
        None,
        "the name itself is no suggestion"
    );
    assert_eq!(did_you_mean("x", &[] as &[&str]), None);
}

#[test]
fn the_rule_a_decision_is_made_under() {
    let none = Settings::default();
    // A decision that records is made under the mode by default; a check keeps the bare rule.
    assert_eq!(
        resolve_mode(None, None, true, &none).unwrap(),
        Mode::Confidence(0.95)
    );
    assert_eq!(
        resolve_mode(None, None, false, &none).unwrap(),
        Mode::BareCheck
    );
    // The bare rule is one flag away, and recorded as chosen.
    assert_eq!(
        resolve_mode(None, Some(RuleChoice::Bare), true, &none).unwrap(),
        Mode::Bare
    );
    assert!(resolve_mode(Some(0.9), Some(RuleChoice::Bare), true, &none).is_err());
    assert_eq!(
        resolve_mode(Some(0.99), None, false, &none).unwrap(),
        Mode::Confidence(0.99)
    );
    let bare = Settings {
        gate_rule: Some(Value::String("bare".into())),
        ..Settings::default()
    };
    assert_eq!(resolve_mode(None, None, true, &bare).unwrap(), Mode::Bare);
    // The flag beats the setting.
    assert_eq!(
        resolve_mode(Some(0.9), None, true, &bare).unwrap(),
        Mode::Confidence(0.9)
    );
    let house = Settings {
        gate_rule: Some(Value::String("confidence".into())),
        gate_confidence: Some(serde_json::json!(0.99)),
        ..Settings::default()
    };
    assert_eq!(
        resolve_mode(None, None, false, &house).unwrap(),
        Mode::Confidence(0.99)
    );
    let bad = Settings {
        gate_rule: Some(Value::String("lenient".into())),
        ..Settings::default()
    };
    let err = resolve_mode(None, None, true, &bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("_workflow.gate_rule"), "{err}");
}

#[test]
fn the_cost_limit_comes_from_the_flag_else_the_settings() {
    let none = Settings::default();
    assert_eq!(resolve_max_cost_ratio(None, &none).unwrap(), None);
    let house = Settings {
        max_cost_ratio: Some(serde_json::json!(1.5)),
        path: Some("home/settings.json".into()),
        ..Settings::default()
    };
    assert_eq!(resolve_max_cost_ratio(None, &house).unwrap(), Some(1.5));
    assert_eq!(
        resolve_max_cost_ratio(Some(2.0), &house).unwrap(),
        Some(2.0)
    );
    let bad = Settings {
        max_cost_ratio: Some(serde_json::json!("lots")),
        path: Some("home/settings.json".into()),
        ..Settings::default()
    };
    let err = resolve_max_cost_ratio(None, &bad).unwrap_err().to_string();
    assert!(
        err.contains("home/settings.json") && err.contains("_workflow.max_cost_ratio"),
        "{err}"
    );
}

#[test]
fn ceilings_refused() {
    for bad in [
        "0", "-1", "NaN", "inf", "", "two", "1e400", "1e308", "10000.01",
    ] {
        assert!(bad.parse::<Ceiling>().is_err(), "{bad:?} accepted");
    }
    assert_eq!("0.5".parse::<Ceiling>().map(Ceiling::usd), Ok(0.5));
    assert!(Ceiling::new(f64::NAN).is_err() && Ceiling::new(0.0).is_err());
}

#[test]
fn ceiling_from_settings() {
    let dir = tempfile::tempdir().unwrap();
    let home = Utf8Path::from_path(dir.path()).unwrap();
    std::fs::write(
        home.join("settings.json"),
        r#"{"model":"haiku","_workflow":{"eval_max_cost_usd":0.25}}"#,
    )
    .unwrap();
    let s = Settings::load(home).unwrap();
    assert_eq!(s.model.as_deref(), Some("haiku"));
    assert_eq!(resolve_ceiling(None, &s).unwrap().usd(), 0.25);
    assert_eq!(resolve_ceiling(Some(Ceiling(1.0)), &s).unwrap().usd(), 1.0);
    std::fs::write(
        home.join("settings.json"),
        r#"{"_workflow":{"eval_max_cost_usd":0}}"#,
    )
    .unwrap();
    let err = resolve_ceiling(None, &Settings::load(home).unwrap()).unwrap_err();
    assert_eq!(err.exit_code(), crate::error::exit::USAGE);
    assert!(err.to_string().contains("settings.json"), "{err}");
    std::fs::write(home.join("settings.json"), "{\n  \"model\": ,\n}").unwrap();
    let err = Settings::load(home).unwrap_err().to_string();
    assert!(err.contains("settings.json:2"), "{err}");
}

#[test]
fn confidence_flag_beats_the_house_rule() {
    let dir = tempfile::tempdir().unwrap();
    let home = Utf8Path::from_path(dir.path()).unwrap();
    let none = Settings::load(home).unwrap();
    assert_eq!(resolve_confidence(None, &none).unwrap(), None);
    std::fs::write(
        home.join("settings.json"),
        r#"{"_workflow":{"gate_confidence":0.95}}"#,
    )
    .unwrap();
    let s = Settings::load(home).unwrap();
    assert_eq!(resolve_confidence(None, &s).unwrap(), Some(0.95));
    assert_eq!(resolve_confidence(Some(0.99), &s).unwrap(), Some(0.99));
    let err = resolve_confidence(Some(95.0), &s).unwrap_err();
    assert_eq!(err.exit_code(), crate::error::exit::USAGE);
    assert!(err.to_string().contains("did you mean 0.95"), "{err}");
    std::fs::write(
        home.join("settings.json"),
        r#"{"_workflow":{"gate_confidence":"high"}}"#,
    )
    .unwrap();
    let err = resolve_confidence(None, &Settings::load(home).unwrap()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("settings.json") && text.contains("gate_confidence"),
        "{text}"
    );
}

#[test]
fn one_model_one_spelling() {
    for (typed, canonical) in [
        ("opus", "opus"),
        ("OPUS", "opus"),
        ("Opus", "opus"),
        (" opus ", "opus"),
        ("\tSonnet[1M]\n", "sonnet[1m]"),
        ("Default", "default"),
        ("Claude-Sonnet-5-5", "claude-sonnet-5-5"),
        ("CLAUDE-3-5-HAIKU-20241022", "claude-3-5-haiku-20241022"),
        ("claude-custom-X", "claude-custom-X"),
        (" My-Gateway-Model ", "My-Gateway-Model"),
    ] {
        assert_eq!(canonical_model(typed), canonical, "{typed:?}");
        assert_eq!(canonical_model(canonical), canonical, "idempotent");
    }
    let settings = Settings {
        model: Some(" HAIKU".into()),
        ..Settings::default()
    };
    let env = Environment::default();
    assert_eq!(resolve_model(Some("OPUS "), &env, &settings), "opus");
    assert_eq!(resolve_model(None, &env, &settings), "haiku");
    let env = Environment::from_pairs([("ANTHROPIC_MODEL", "Sonnet")]);
    assert_eq!(resolve_model(None, &env, &settings), "sonnet");
    let blank = Environment::from_pairs([("ANTHROPIC_MODEL", " ")]);
    assert_eq!(resolve_model(None, &blank, &settings), "haiku");
}

#[test]
fn source_and_home_come_from_flags_then_the_environment_given() {
    let env = Environment::from_pairs([
        ("BOB_SOURCE", "/src"),
        ("BOB_HOME", ""),
        ("HOME", "/users/op"),
    ]);
    let ctx = Context::new(None, None, std::sync::Arc::new(env.clone())).unwrap();
    assert_eq!(ctx.source, "/src");
    assert_eq!(ctx.home, "/users/op/.bob");
    assert_eq!(home_dir(Some(Utf8Path::new("/h")), &env), "/h");
    let env = Environment::from_pairs([("BOB_HOME", "/ops")]);
    assert_eq!(home_dir(None, &env), "/ops");
    assert_eq!(home_dir(None, &Environment::default()), "./.bob");
}

#[test]
fn missing_settings_is_default() {
    let s = Settings::load(Utf8Path::new("/nonexistent/bob-home")).unwrap();
    assert_eq!(
        resolve_ceiling(None, &s).unwrap().usd(),
        DEFAULT_MAX_COST_USD
    );
}

#[test]
fn names() {
    for good in ["commit", "tdd-flow", "a", "0x", &"a".repeat(64)] {
        ItemName::new(good).unwrap();
    }
    for bad in ["", "-x", "Commit", "a/b", "..", "a_b", &"a".repeat(65), "é"] {
        let err = ItemName::new(bad).unwrap_err();
        assert_eq!(err.exit_code(), crate::error::exit::USAGE, "{bad}");
        // A name read from a document is held to the same rule.
        assert!(
            serde_json::from_value::<ItemName>(bad.into()).is_err(),
            "{bad}"
        );
    }
    let read: ItemName = serde_json::from_value("commit".into()).unwrap();
    assert_eq!(serde_json::to_value(&read).unwrap(), "commit");
    // Messages that debug-print a name quote it as text.
    assert_eq!(format!("{read:?} {read}"), "\"commit\" commit");
}
