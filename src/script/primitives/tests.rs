use super::{
    Arc, Array, Dynamic, EvalOptions, Host, KEYS, Map, Options, PipelineOptions, create_inside,
    eval_keys, eval_options, names, property, results_path, set, set_key,
};
use std::collections::BTreeSet;

/// The primitives docs/pipelines.md lists (the first column of its table of
/// primitives) are exactly those registered: the registration is the one list
/// of names, and the page cannot drift from it.
#[test]
fn the_documented_primitives_are_exactly_the_registered_ones() {
    let host = Host::new(
        crate::config::Context {
            source: "/nonexistent/source".into(),
            home: "/nonexistent/home".into(),
            env: Default::default(),
        },
        PipelineOptions::default(),
        Vec::new(),
        None,
        Arc::new(crate::event::Silent),
    );
    let _engine = crate::script::engine::engine(Arc::new(host));
    let registered: BTreeSet<&str> = names().iter().copied().collect();
    assert!(registered.contains("evaluate") && registered.contains("publish"));
    let page = include_str!("../../../docs/pipelines.md");
    let call = regex::Regex::new(r"`([a-z_]+)\(").unwrap();
    let documented: BTreeSet<&str> = page
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('|').nth(1))
        .flat_map(|cell| call.captures_iter(cell).map(|c| c.get(1).unwrap().as_str()))
        .collect();
    assert_eq!(registered, documented);
}

#[test]
fn a_script_may_not_name_the_platform_binary() {
    let mut map = Map::new();
    map.insert("claude".into(), "/bin/bash".into());
    let base = EvalOptions {
        claude: Some("/opt/claude".into()),
        ..EvalOptions::default()
    };
    let err = eval_options(&map, &base, camino::Utf8Path::new("/nonexistent/results")).unwrap_err();
    assert!(err.contains("operator"), "{err}");
    let opts = eval_options(
        &Map::new(),
        &base,
        camino::Utf8Path::new("/nonexistent/results"),
    )
    .unwrap();
    assert_eq!(
        opts.claude.as_deref(),
        Some(camino::Utf8Path::new("/opt/claude"))
    );
}

#[test]
fn opts_neighbours_is_true_a_name_or_names_and_round_trips() {
    let base = EvalOptions::default();
    let with = |v: Dynamic| {
        let mut map = Map::new();
        map.insert("neighbours".into(), v);
        eval_options(&map, &base, camino::Utf8Path::new("/nonexistent/results"))
    };
    assert_eq!(with(true.into()).unwrap().neighbours, Some(vec![]));
    assert_eq!(with(false.into()).unwrap().neighbours, None);
    assert_eq!(with(Dynamic::UNIT).unwrap().neighbours, None);
    assert_eq!(
        with("changelog".into()).unwrap().neighbours,
        Some(vec!["changelog".to_string()])
    );
    let names: Array = vec!["a".into(), "b".into()];
    assert_eq!(
        with(names.into()).unwrap().neighbours,
        Some(vec!["a".to_string(), "b".to_string()])
    );
    assert!(with(Dynamic::from(3_i64)).is_err());
    // `options().neighbours` reads in the form `opts` takes, and set back
    // as it was read it changes nothing.
    for given in [None, Some(vec![]), Some(vec!["changelog".to_string()])] {
        let mut o = options_with(EvalOptions {
            neighbours: given.clone(),
            ..EvalOptions::default()
        });
        let read = property(&o, "neighbours").unwrap();
        assert_eq!(with(read.clone()).unwrap().neighbours, given);
        set(&mut o, "neighbours", &read).unwrap();
        assert_eq!(o.pipeline.eval.neighbours, given);
    }
}

#[test]
fn opts_runs_takes_a_count_or_auto() {
    let base = EvalOptions::default();
    let with = |v: Dynamic| {
        let mut map = Map::new();
        map.insert("runs".into(), v);
        eval_options(&map, &base, camino::Utf8Path::new("/nonexistent/results"))
    };
    let auto = with("auto:6".into()).unwrap();
    assert_eq!((auto.auto, auto.runs), (Some(6), None));
    assert_eq!(
        with("auto".into()).unwrap().auto,
        Some(crate::stats::runs::DEFAULT_AUTO_MAX)
    );
    let fixed = with(Dynamic::from(3_i64)).unwrap();
    assert_eq!((fixed.auto, fixed.runs), (None, Some(3)));
    for bad in ["auto:0", "auto:x", "sometimes"] {
        assert!(with(bad.into()).is_err(), "{bad}");
    }
}

#[test]
fn write_result_writes_only_under_the_results_folder() {
    let dir = camino::Utf8Path::new("/src/results");
    assert_eq!(
        results_path(dir, "history/x.json").unwrap(),
        camino::Utf8Path::new("/src/results/history/x.json")
    );
    for bad in [
        "",
        "../baseline.json",
        "/etc/passwd",
        "a/../../wiki/skill-impact.md",
        "./x",
    ] {
        assert!(results_path(dir, bad).is_err(), "{bad:?} accepted");
    }
}

#[test]
fn folders_leading_out_of_the_results_folder_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = camino::Utf8Path::from_path(tmp.path()).unwrap();
    let results = root.join("results");
    create_inside("write_result", &results, &results.join("a/b/x.json")).unwrap();
    assert!(results.join("a/b").is_dir());
    std::os::unix::fs::symlink(root, results.join("out")).unwrap();
    assert!(create_inside("write_result", &results, &results.join("out/x.json")).is_err());
}

#[test]
fn a_script_report_goes_under_the_results_folder_and_the_operators_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let root = camino::Utf8Path::from_path(tmp.path()).unwrap();
    let results = root.join("results");
    let base = EvalOptions {
        report: Some("/operator/report.html".into()),
        ..EvalOptions::default()
    };
    let kept = eval_options(&Map::new(), &base, &results).unwrap();
    assert_eq!(kept.report, base.report);
    let mut map = Map::new();
    map.insert("report".into(), "reports/commit.html".into());
    let opts = eval_options(&map, &base, &results).unwrap();
    assert_eq!(opts.report, Some(results.join("reports/commit.html")));
    assert!(results.join("reports").is_dir());
    std::os::unix::fs::symlink(root, results.join("out")).unwrap();
    for bad in ["../r.html", "/tmp/r.html", "out/r.html", ""] {
        map.insert("report".into(), bad.into());
        let err = eval_options(&map, &base, &results).unwrap_err();
        assert!(err.contains("option `report`"), "{bad:?}: {err}");
    }
}

#[test]
fn opts_max_cost_ratio_is_a_number_checked_and_round_trips() {
    let base = EvalOptions::default();
    let with = |v: Dynamic| {
        let mut map = Map::new();
        map.insert("max_cost_ratio".into(), v);
        eval_options(&map, &base, camino::Utf8Path::new("/nonexistent/results"))
    };
    assert_eq!(
        with(Dynamic::from_float(1.5)).unwrap().max_cost_ratio,
        Some(1.5)
    );
    assert_eq!(with("2".into()).unwrap().max_cost_ratio, Some(2.0));
    assert_eq!(with(Dynamic::UNIT).unwrap().max_cost_ratio, None);
    let err = with(Dynamic::from_float(0.0)).unwrap_err();
    assert!(err.contains("option `max_cost_ratio`"), "{err}");
    let mut o = options_with(EvalOptions {
        max_cost_ratio: Some(1.25),
        ..EvalOptions::default()
    });
    let read = property(&o, "max_cost_ratio").unwrap();
    assert_eq!(with(read.clone()).unwrap().max_cost_ratio, Some(1.25));
    let err = set(&mut o, "max_cost_ratio", &Dynamic::from_float(0.0)).unwrap_err();
    assert!(err.contains("option `max_cost_ratio`"), "{err}");
    assert_eq!(
        o.pipeline.eval.max_cost_ratio,
        Some(1.25),
        "a refused value changes nothing"
    );
}

/// `options()` of a command whose evaluation options are `eval`.
fn options_with(eval: EvalOptions) -> Options {
    let pipeline = PipelineOptions {
        eval,
        ..PipelineOptions::default()
    };
    Options::of(&pipeline, camino::Utf8Path::new("/nonexistent/results"))
}

/// The keys an unknown key's error lists are the keys `set_key` takes.
#[test]
fn the_keys_an_unknown_option_names_are_the_keys_set_key_takes() {
    let dir = camino::Utf8PathBuf::from("/tmp/results");
    let said = set_key(&mut EvalOptions::default(), "colour", &"red".into(), &dir).unwrap_err();
    let keys: Vec<&str> = eval_keys().collect();
    assert!(said.ends_with(&keys.join(", ")), "{said}");
    assert!(
        keys.contains(&"min_effect") && !keys.contains(&"item"),
        "{keys:?}"
    );
    for key in keys {
        // A value of the wrong type: refused by the key's own rule, never as unknown.
        let err = set_key(&mut EvalOptions::default(), key, &Dynamic::from(()), &dir)
            .err()
            .unwrap_or_default();
        assert!(!err.contains("unknown option"), "{key}: {err}");
    }
}

/// The options a script holds stay typed: every key reads, what `opts`
/// would refuse is refused at the assignment, what it takes is set (and a
/// fixed count replaces `auto`), and fields no key names (`--best`,
/// `--min-effect`, `--mocks`) pass to a step untouched, which the map a
/// script used to get back could not carry.
#[test]
fn options_are_read_and_set_key_by_key_and_keep_what_no_key_names() {
    let mut o = options_with(EvalOptions {
        auto: Some(8),
        best: true,
        min_effect: Some(0.1),
        claude: Some("/opt/claude".into()),
        servers: crate::platform::McpServers {
            mocks_off: true,
            allow_real_servers: false,
        },
        ..EvalOptions::default()
    });
    for key in KEYS {
        assert!(property(&o, key).is_some(), "{key}");
    }
    assert!(property(&o, "claude").is_none());
    assert_eq!(property(&o, "runs").unwrap().to_string(), "auto:8");
    set(&mut o, "runs", &Dynamic::from_int(3)).unwrap();
    assert_eq!(
        (o.pipeline.eval.runs, o.pipeline.eval.auto),
        (Some(3), None)
    );
    set(&mut o, "model", &"haiku".into()).unwrap();
    set(&mut o, "item", &"commit".into()).unwrap();
    assert_eq!(o.pipeline.item.as_deref(), Some("commit"));
    for (key, value, said) in [
        ("runs", Dynamic::from_int(0), "option `runs`"),
        ("claude", "/bin/bash".into(), "operator"),
        ("trust_imported", true.into(), "operator"),
        ("format", "yaml".into(), "option `format`"),
        ("colour", "red".into(), "unknown option `colour`"),
    ] {
        let err = set(&mut o, key, &value).unwrap_err();
        assert!(err.contains(said), "{key}: {err}");
    }
    let eval = &o.pipeline.eval;
    assert_eq!(eval.model.as_deref(), Some("haiku"));
    assert_eq!(eval.runs, Some(3));
    assert!(eval.best && eval.servers.mocks_off);
    assert_eq!(eval.min_effect, Some(0.1));
    assert_eq!(
        eval.claude.as_deref(),
        Some(camino::Utf8Path::new("/opt/claude"))
    );
    assert!(!o.pipeline.trust_imported);
}

/// A host on the test source (`tests/data/real-source`, the suite `commit`)
/// whose store lives under `home`.
fn real_source_host(home: &camino::Utf8Path) -> Host {
    Host::new(
        crate::config::Context {
            source: concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/real-source").into(),
            home: home.to_owned(),
            env: Default::default(),
        },
        PipelineOptions::default(),
        Vec::new(),
        None,
        Arc::new(crate::event::Silent),
    )
}

/// `evaluate_all`'s rows are typed, so a sweep of thousands of suites
/// never meets the sandbox's map limit (Rhai counts the entries of every
/// map an array holds against it: four per row reached 10,000 at 2,501
/// rows). The names here are invalid, so each item fails at once.
#[test]
fn evaluate_all_returns_a_row_for_each_of_thousands_of_items() {
    let tmp = tempfile::tempdir().unwrap();
    let home = camino::Utf8Path::from_path(tmp.path()).unwrap();
    let script = r#"
        let names = [];
        for i in 0..3000 { names.push(`not a name ${i}`); }
        let rows = evaluate_all(names, 4);
        if rows.len() != 3000 { throw `rows: ${rows.len()}`; }
        for i in 0..3000 {
            let row = rows[i];
            if row.item != names[i] || row.ok || row.exit_code == 0 || row.result != () {
                throw `row ${i}: ${row}`;
            }
            if !row.error.contains(names[i]) { throw row.error; }
        }
        publish(rows);
        0
    "#;
    let code = crate::script::run_pipeline(real_source_host(home), "rows.rhai", script);
    assert_eq!(code.unwrap(), 0);
}

/// The rows of `evaluate_all` read, index, print and publish as the maps
/// they replace did: `to_json` of a row is that of the map written with
/// its keys, and the result a row hands out is the one `gate` decides on.
#[test]
fn an_evaluate_all_row_reads_as_the_map_it_replaces() {
    let tmp = tempfile::tempdir().unwrap();
    let home = camino::Utf8Path::from_path(tmp.path()).unwrap();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/pipelines/aggregate-result.json"
    );
    let script = format!(
        r#"
        let rows = evaluate_all(["commit", "Not A Name"], #{{ platform_result: "{fixture}" }}, 1);
        let ok = rows[0];
        let bad = rows[1];
        if !ok.ok || ok.item != "commit" || ok["item"] != "commit" || ok.exit_code != 0 {{ return 1; }}
        if ok.error != () || type_of(ok.result) != "EvalResult" || ok.result.item != "commit" {{ return 2; }}
        if bad.ok || bad.item != "Not A Name" || bad.exit_code == 0 || bad.result != () {{ return 3; }}
        if !bad.error.contains("Not A Name") || bad["error"] != bad.error {{ return 4; }}
        if !("result" in ok) || "error" in ok || !("error" in bad) || "result" in bad {{ return 5; }}
        let as_map = #{{ item: ok.item, ok: ok.ok, exit_code: ok.exit_code, result: ok.result }};
        if to_json(ok) != to_json(as_map) {{ return 6; }}
        let as_map = #{{ item: bad.item, ok: bad.ok, exit_code: bad.exit_code, error: bad.error }};
        if to_json(bad) != to_json(as_map) {{ return 7; }}
        if !to_json(rows).contains(`"verdict": "${{ok.result.verdict}}"`) {{ return 8; }}
        let r = ok.result;
        let d = gate(r);
        if d.item != "commit" {{ return 9; }}
        publish(rows);
        publish([ok, as_map]);
        0
    "#
    );
    let code = crate::script::run_pipeline(real_source_host(home), "rows.rhai", &script);
    assert_eq!(code.unwrap(), 0);
}

#[test]
fn opts_min_effect_is_the_flags_rule() {
    let base = EvalOptions::default();
    let with = |v: Dynamic| {
        let mut map = Map::new();
        map.insert("min_effect".into(), v);
        eval_options(&map, &base, camino::Utf8Path::new("/nonexistent/results"))
    };
    assert_eq!(
        with(Dynamic::from_float(0.1)).unwrap().min_effect,
        Some(0.1)
    );
    assert_eq!(with("0.3".into()).unwrap().min_effect, Some(0.3));
    assert_eq!(with(Dynamic::from_int(1)).unwrap().min_effect, Some(1.0));
    assert_eq!(with(Dynamic::UNIT).unwrap().min_effect, None);
    for bad in [
        Dynamic::from_float(0.0),
        Dynamic::from_float(1.5),
        Dynamic::from_float(-0.2),
        "a lot".into(),
        true.into(),
    ] {
        let err = with(bad.clone()).unwrap_err();
        assert!(err.contains("option `min_effect`"), "{bad}: {err}");
    }
}

/// A script's `min_effect` reaches the step: the estimate prices a
/// decision at it, and a value out of range stops the script naming the key.
#[test]
fn a_scripts_min_effect_reaches_the_estimate() {
    let tmp = tempfile::tempdir().unwrap();
    let home = camino::Utf8Path::from_path(tmp.path()).unwrap();
    let script = r#"
        let asked = estimate("commit", #{ min_effect: 0.1 });
        let plain = estimate("commit");
        if asked.price.min_effect != 0.1 { throw `asked: ${asked.price}`; }
        if plain.price.min_effect == 0.1 { throw `plain: ${plain.price}`; }
        if asked.price.runs_per_arm <= plain.price.runs_per_arm { throw "a smaller effect needs more runs"; }
        0
    "#;
    let code = crate::script::run_pipeline(real_source_host(home), "effect.rhai", script);
    assert_eq!(code.unwrap(), 0);
    let err = crate::script::run_pipeline(
        real_source_host(home),
        "effect.rhai",
        "estimate(\"commit\", #{ min_effect: 1.5 })",
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("option `min_effect`"), "{err}");
}
