//! An independent reduction of a platform document, written from contracts.md
//! over raw JSON values, to check bob-eval's numbers against; and the captures
//! that must not reduce as the `commit` item's.

use serde_json::Value;

/// Captures in tests/data/platform/ that are not a with/without eval of
/// `bob-eval-commit` (another plugin, no manifest, a single arm): `commit` must refuse them.
pub const NOT_COMMIT_CAPTURES: [&str; 8] = [
    "run7_no_manifest.json",
    "run8_no_manifest_default_ablation.json",
    "run9_skill_dir_no_manifest.json",
    "all-grader-types.json",
    "with-without-prose.json",
    "auth-failed-partial.json",
    "cost-ceiling-partial.json",
    "single-arm-none.json",
];

fn r4(x: f64) -> f64 {
    let r = (x * 10_000.0).round() / 10_000.0;
    if r == 0.0 { 0.0 } else { r }
}

fn avg(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        None
    } else {
        Some(xs.iter().sum::<f64>() / xs.len() as f64)
    }
}

/// Expected numbers of one case.
#[derive(Debug, PartialEq)]
pub struct Case {
    pub name: String,
    pub with: f64,
    pub without: Option<f64>,
    pub delta: Option<f64>,
    pub trigger_rate: Option<f64>,
    pub cost: f64,
    pub runs: u64,
    /// Each grader the runs name, in order of first appearance.
    pub graders: Vec<Grader>,
}

/// Expected detail of one grader of a case.
#[derive(Debug, PartialEq)]
pub struct Grader {
    pub name: String,
    /// `scored` or `with-only`.
    pub kind: &'static str,
    /// (passed, results) on the with arm.
    pub with: (u64, u64),
    /// (passed, results) on the without arm, when it has results there.
    pub without: Option<(u64, u64)>,
    /// Some run's explanation starts `grader threw:`.
    pub error: bool,
    /// The first failure's explanation (the first thrown one, if any), on one
    /// line, cut to 300 characters (the last `…`).
    pub failure: Option<String>,
    /// (split, runs): results carrying `judgeVotes`, and those not unanimous.
    pub split_votes: Option<(u64, u64)>,
}

/// The graders of a case's runs, per contracts.md: counted per arm, the first
/// failure kept, a thrown one before a plain one.
fn graders(with: &[&Value], without: &[&Value]) -> Vec<Grader> {
    let mut out: Vec<Grader> = Vec::new();
    // (first failure, whether it threw) per grader.
    let mut first: Vec<Option<(String, bool)>> = Vec::new();
    for (arm, runs) in [(0, with), (1, without)] {
        for g in runs
            .iter()
            .flat_map(|r| r["graders"].as_array().into_iter().flatten())
        {
            let name = g["name"].as_str().unwrap().to_string();
            let i = out.iter().position(|e| e.name == name).unwrap_or_else(|| {
                let with_only = g["withOnly"] == true || g["scored"] == false;
                out.push(Grader {
                    name,
                    kind: if with_only { "with-only" } else { "scored" },
                    with: (0, 0),
                    without: None,
                    error: false,
                    failure: None,
                    split_votes: None,
                });
                first.push(None);
                out.len() - 1
            });
            let passed = g["passed"] == true;
            let count = if arm == 0 {
                &mut out[i].with
            } else {
                out[i].without.get_or_insert((0, 0))
            };
            count.1 += 1;
            count.0 += u64::from(passed);
            if let Some(votes) = g["judgeVotes"].as_array().filter(|v| !v.is_empty()) {
                let split = votes.iter().any(|v| v == true) && votes.iter().any(|v| v == false);
                let s = out[i].split_votes.get_or_insert((0, 0));
                s.0 += u64::from(split);
                s.1 += 1;
            }
            if passed {
                continue;
            }
            let words = g["explanation"].as_str().unwrap_or("");
            let threw = words.trim_start().starts_with("grader threw:");
            out[i].error |= threw;
            if first[i].is_none() || threw && first[i].as_ref().is_some_and(|(_, t)| !t) {
                first[i] = Some((words.to_string(), threw));
            }
        }
    }
    for (g, f) in out.iter_mut().zip(first) {
        g.failure = f.map(|(words, _)| {
            let line = words.split_whitespace().collect::<Vec<_>>().join(" ");
            if line.is_empty() {
                "no explanation given".to_string()
            } else if line.chars().count() > 300 {
                format!("{}…", line.chars().take(299).collect::<String>())
            } else {
                line
            }
        });
    }
    out
}

/// Expected numbers of a document.
#[derive(Debug, PartialEq)]
pub struct Expected {
    pub with: f64,
    pub without: f64,
    pub delta: f64,
    pub trigger_rate: Option<f64>,
    pub cost: f64,
    pub partial_reason: Option<String>,
    pub cases: Vec<Case>,
}

fn runs<'a>(case: &'a Value, arm: &str) -> Vec<&'a Value> {
    case["arms"][arm]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

/// The platform's words when it marked `run` (its `error`, else its
/// `aborted`); `None` for a run that ended normally.
fn fault(run: &Value) -> Option<String> {
    let words = |v: &Value| match v {
        Value::Null | Value::Bool(false) => None,
        Value::String(s) => Some(s.clone()),
        Value::Object(o) if o.get("reason").and_then(Value::as_str).is_some() => Some(format!(
            "{}/{}: {}",
            o.get("server").and_then(Value::as_str).unwrap_or_default(),
            o.get("tool").and_then(Value::as_str).unwrap_or_default(),
            o["reason"].as_str().unwrap_or_default()
        )),
        other => Some(other.to_string()),
    };
    words(&run["error"]).or_else(|| words(&run["aborted"]).map(|w| format!("aborted: {w}")))
}

/// Reduce `doc` per contracts.md.
pub fn expected(doc: &Value) -> Expected {
    let mut cases = Vec::new();
    let (mut passed, mut total) = (0u64, 0u64);
    let mut run_errors = false;
    let (mut errored, mut all_runs) = (Vec::<String>::new(), 0usize);
    for case in doc["cases"].as_array().unwrap() {
        let trigger_names: Vec<&str> = case["graders"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["type"] == "tool_used" && g["config"]["tool"] == "Skill")
            .map(|g| g["name"].as_str().unwrap())
            .collect();
        // A run the platform marked (error set, or aborted) never counts.
        let mut marked = Vec::new();
        let mut counted = |arm: &str| -> Vec<&Value> {
            let all = runs(case, arm);
            all_runs += all.len();
            all.into_iter()
                .filter(|r| match fault(r) {
                    Some(words) => {
                        marked.push(words);
                        false
                    }
                    None => true,
                })
                .collect()
        };
        let with = counted("with");
        let without = counted("without");
        let all_cost = r4(runs(case, "with")
            .iter()
            .chain(&runs(case, "without"))
            .map(|r| r["costUsd"].as_f64().unwrap())
            .sum());
        if !marked.is_empty() {
            run_errors = true;
        }
        errored.extend(marked);
        let (mut p, mut t) = (0u64, 0u64);
        for run in &with {
            for g in run["graders"].as_array().unwrap() {
                if trigger_names.contains(&g["name"].as_str().unwrap()) {
                    t += 1;
                    if g["passed"] == true {
                        p += 1;
                    }
                }
            }
        }
        passed += p;
        total += t;
        if without.is_empty() {
            run_errors = true;
        }
        if with.is_empty() {
            // Left out: no counted run with the item.
            run_errors = true;
            continue;
        }
        let score = |rs: &[&Value]| {
            avg(&rs
                .iter()
                .map(|r| r["score"].as_f64().unwrap())
                .collect::<Vec<_>>())
            .map(r4)
        };
        let w = score(&with).unwrap();
        let wo = score(&without);
        cases.push(Case {
            name: case["name"].as_str().unwrap().to_string(),
            with: w,
            without: wo,
            delta: wo.map(|wo| r4(w - wo)),
            trigger_rate: (t > 0).then(|| r4(p as f64 / t as f64)),
            cost: all_cost,
            runs: (with.len() + without.len()) as u64,
            graders: graders(&with, &without),
        });
    }
    let with = r4(avg(&cases.iter().map(|c| c.with).collect::<Vec<_>>()).unwrap_or(0.0));
    let withouts: Vec<f64> = cases.iter().filter_map(|c| c.without).collect();
    let without = avg(&withouts).map(r4).unwrap_or(with);
    let partial_reason = if doc["partial"] == true {
        Some(
            doc["partialReason"]
                .as_str()
                .unwrap_or("unspecified")
                .to_string(),
        )
    } else if let Some(first) = errored.first() {
        let clean: String = first
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let mut words = clean.split_whitespace().collect::<Vec<_>>().join(" ");
        if words.chars().count() > 160 {
            words = format!("{}…", words.chars().take(159).collect::<String>());
        }
        let n = errored.len();
        Some(if n == all_runs {
            format!(
                "run_errors: every run ({n} of {all_runs}) ended on an error, so nothing was measured; the platform said: {words}"
            )
        } else {
            format!(
                "run_errors: {n} of {all_runs} runs ended on an error and were not counted; the platform said: {words}"
            )
        })
    } else if run_errors {
        Some("run_errors".to_string())
    } else {
        None
    };
    Expected {
        with,
        without,
        delta: r4(with - without),
        trigger_rate: (total > 0).then(|| r4(passed as f64 / total as f64)),
        cost: r4(doc["costUsd"].as_f64().unwrap()),
        partial_reason,
        cases,
    }
}

/// Compare a bob-eval `skill-eval/1` document (as JSON) to the expectation.
pub fn assert_matches(out: &Value, exp: &Expected) {
    assert_eq!(out["with"].as_f64().unwrap(), exp.with, "with");
    assert_eq!(out["without"].as_f64().unwrap(), exp.without, "without");
    assert_eq!(out["delta"].as_f64().unwrap(), exp.delta, "delta");
    let verdict = if exp.delta > 0.0 {
        "improved"
    } else if exp.delta < 0.0 {
        "regressed"
    } else {
        "no-signal"
    };
    assert_eq!(out["verdict"], verdict, "verdict");
    assert_eq!(
        out["trigger_rate"].as_f64(),
        exp.trigger_rate,
        "trigger_rate"
    );
    assert_eq!(out["cost_usd"].as_f64().unwrap(), exp.cost, "cost_usd");
    assert_eq!(out["partial"], exp.partial_reason.is_some(), "partial");
    assert_eq!(
        out["partial_reason"].as_str(),
        exp.partial_reason.as_deref(),
        "partial_reason"
    );
    let cases = out["cases"].as_array().unwrap();
    assert_eq!(cases.len(), exp.cases.len(), "cases");
    for (got, want) in cases.iter().zip(&exp.cases) {
        assert_eq!(got["name"], want.name.as_str());
        assert_eq!(
            got["with"].as_f64().unwrap(),
            want.with,
            "{} with",
            want.name
        );
        assert_eq!(
            got["without"].as_f64(),
            want.without,
            "{} without",
            want.name
        );
        assert_eq!(got["delta"].as_f64(), want.delta, "{} delta", want.name);
        assert_eq!(
            got["trigger_rate"].as_f64(),
            want.trigger_rate,
            "{} trigger_rate",
            want.name
        );
        assert_eq!(
            got["cost_usd"].as_f64().unwrap(),
            want.cost,
            "{} cost",
            want.name
        );
        assert_eq!(
            got["runs"].as_u64().unwrap(),
            want.runs,
            "{} runs",
            want.name
        );
        let count = |v: &Value| (v["passed"].as_u64().unwrap(), v["runs"].as_u64().unwrap());
        let got_graders: Vec<Grader> = got["graders"]
            .as_array()
            .unwrap_or_else(|| panic!("{} has no graders", want.name))
            .iter()
            .map(|g| Grader {
                name: g["name"].as_str().unwrap().to_string(),
                kind: if g["kind"] == "with-only" {
                    "with-only"
                } else {
                    "scored"
                },
                with: count(&g["with"]),
                without: g.get("without").map(count),
                error: g["error"] == true,
                failure: g["failure"].as_str().map(str::to_string),
                split_votes: g
                    .get("split_votes")
                    .map(|v| (v["split"].as_u64().unwrap(), v["runs"].as_u64().unwrap())),
            })
            .collect();
        assert_eq!(got_graders, want.graders, "{} graders", want.name);
    }
}

/// The case named `name` of a `skill-eval/1` document (panics, showing the
/// document, when it has none).
pub fn case<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name} in {doc}"))
}
