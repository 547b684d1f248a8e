//! The embedded JSON Schemas and their validators, compiled once per process.

use crate::error::{Error, Result};
use camino::Utf8Path;
use jsonschema::Validator;
use serde_json::Value;
use std::sync::OnceLock;

/// `schemas/skill-eval.schema.json`, embedded.
pub const SKILL_EVAL_SCHEMA: &str = include_str!("../schemas/skill-eval.schema.json");
/// `schemas/skill-eval-baseline.schema.json`, embedded.
pub const BASELINE_SCHEMA: &str = include_str!("../schemas/skill-eval-baseline.schema.json");
/// `schemas/bob-eval-history.schema.json`, embedded.
pub const HISTORY_SCHEMA: &str = include_str!("../schemas/bob-eval-history.schema.json");
/// `schemas/bob-eval-shard.schema.json`, embedded.
pub const SHARD_SCHEMA: &str = include_str!("../schemas/bob-eval-shard.schema.json");
/// `schemas/bob-eval-compare.schema.json`, embedded.
pub const COMPARE_SCHEMA: &str = include_str!("../schemas/bob-eval-compare.schema.json");
/// `schemas/bob-eval-labels.schema.json`, embedded.
pub const LABELS_SCHEMA: &str = include_str!("../schemas/bob-eval-labels.schema.json");

fn compile(text: &str) -> Validator {
    let schema: Value = serde_json::from_str(text).expect("embedded schema is JSON");
    jsonschema::draft202012::new(&schema).expect("embedded schema compiles")
}

fn skill_eval() -> &'static Validator {
    static V: OnceLock<Validator> = OnceLock::new();
    V.get_or_init(|| compile(SKILL_EVAL_SCHEMA))
}

fn baseline() -> &'static Validator {
    static V: OnceLock<Validator> = OnceLock::new();
    V.get_or_init(|| compile(BASELINE_SCHEMA))
}

fn history() -> &'static Validator {
    static V: OnceLock<Validator> = OnceLock::new();
    V.get_or_init(|| compile(HISTORY_SCHEMA))
}

fn shard() -> &'static Validator {
    static V: OnceLock<Validator> = OnceLock::new();
    V.get_or_init(|| compile(SHARD_SCHEMA))
}

fn compare() -> &'static Validator {
    static V: OnceLock<Validator> = OnceLock::new();
    V.get_or_init(|| compile(COMPARE_SCHEMA))
}

fn labels() -> &'static Validator {
    static V: OnceLock<Validator> = OnceLock::new();
    V.get_or_init(|| compile(LABELS_SCHEMA))
}

/// Compile the `skill-eval/1` validator on a background thread, so that a
/// caller about to wait (for the platform) does not pay for it afterwards.
pub fn prepare_in_background() {
    let _ = std::thread::Builder::new().name("schema".into()).spawn(|| {
        skill_eval();
    });
}

/// Every violation of `validator` by `doc`, as `"/json/pointer: message"` lines.
fn violations(validator: &Validator, doc: &Value) -> Vec<String> {
    validator
        .iter_errors(doc)
        .map(|e| {
            let at = e.instance_path().to_string();
            let at = if at.is_empty() { "/".to_string() } else { at };
            format!("{at}: {e}")
        })
        .collect()
}

fn check(validator: &Validator, what: &str, doc: &Value, path: &Utf8Path) -> Result<()> {
    let errors = violations(validator, doc);
    if errors.is_empty() {
        return Ok(());
    }
    Err(Error::invalid(
        path,
        format!("not a valid {what} document:\n  {}", errors.join("\n  ")),
    ))
}

/// Validate a `skill-eval/1` document; `path` names it in the error.
pub fn validate_skill_eval(doc: &Value, path: &Utf8Path) -> Result<()> {
    check(skill_eval(), "skill-eval/1", doc, path)
}

/// Validate a `skill-eval-baseline/1` document; `path` names it in the error.
pub fn validate_baseline(doc: &Value, path: &Utf8Path) -> Result<()> {
    check(baseline(), "skill-eval-baseline/1", doc, path)
}

/// Validate a `bob-eval-history/1` document; `path` names it in the error.
pub fn validate_history(doc: &Value, path: &Utf8Path) -> Result<()> {
    check(history(), "bob-eval-history/1", doc, path)
}

/// Validate a `bob-eval-shard/1` manifest; `path` names it in the error.
pub fn validate_shard(doc: &Value, path: &Utf8Path) -> Result<()> {
    check(shard(), "bob-eval-shard/1", doc, path)
}

/// Validate a `bob-eval-compare/1` document; `path` names it in the error.
pub fn validate_compare(doc: &Value, path: &Utf8Path) -> Result<()> {
    check(compare(), "bob-eval-compare/1", doc, path)
}

/// Every violation of the `bob-eval-labels/1` schema by `doc`, as
/// `(json pointer, message)`, so the caller can name the line.
pub fn labels_violations(doc: &Value) -> Vec<(String, String)> {
    labels()
        .iter_errors(doc)
        .map(|e| (e.instance_path().to_string(), e.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Value {
        json!({
            "schema": "skill-eval/1", "item": "commit", "run": "eval-commit-20261202T094337Z",
            "date": "2026-12-02", "model": "claude-sonnet-5-5", "with": 0.8333, "without": 0.6667,
            "delta": 0.1667, "verdict": "improved", "trigger_rate": 1.0, "cost_usd": 0.4123,
            "max_cost_usd": 2.0, "partial": false,
            "cases": [{"name": "fires", "with": 1.0, "without": 0.3333, "delta": 0.6667,
                       "verdict": "improved", "trigger_rate": 1.0, "cost_usd": 0.31, "runs": 6}]
        })
    }

    #[test]
    fn contract_example_is_valid() {
        validate_skill_eval(&sample(), "x.json".into()).unwrap();
    }

    #[test]
    fn extra_field_and_out_of_range_score_are_refused() {
        let mut doc = sample();
        doc["extra"] = json!(1);
        doc["with"] = json!(1.5);
        let msg = validate_skill_eval(&doc, "r.json".into())
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("r.json: "), "{msg}");
        assert!(msg.contains("/with"), "{msg}");
        assert!(msg.contains("extra"), "{msg}");
    }

    #[test]
    fn partial_needs_a_reason() {
        let mut doc = sample();
        doc["partial"] = json!(true);
        assert!(validate_skill_eval(&doc, "r.json".into()).is_err());
        doc["partial_reason"] = json!("cost_ceiling");
        validate_skill_eval(&doc, "r.json".into()).unwrap();
    }

    #[test]
    fn baseline_without_trigger_rate_is_valid() {
        let doc = json!({"schema": "skill-eval-baseline/1", "item": "commit", "best": {
            "claude-sonnet-5-5": {"score": 0.83, "without": 0.67, "run": "eval-commit-20261009T084444Z", "date": "2026-10-09"}}});
        validate_baseline(&doc, "b.json".into()).unwrap();
        let bad = json!({"schema": "skill-eval-baseline/1", "item": "commit", "best": {"m": {"score": 2}}});
        assert!(validate_baseline(&bad, "b.json".into()).is_err());
    }
}
