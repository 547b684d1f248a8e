//! Values between Rust and Rhai: documents and decisions as maps, JSON, lists of strings.

use super::{
    Arc, Array, CaseResult, Dynamic, EstimateHandle, EvalResult, GateDecision, Host,
    ImmutableString, Map, Options, OutcomeRow, RResult, Raised, misuse, raise, shown,
};

/// What a pipeline's `gate` asks of the rule: `confidence`, `rule` and
/// `max_cost_ratio` from `opts` (the command's options, or a script's read
/// over them), else the house rule (settings `_workflow.gate_confidence`,
/// `_workflow.gate_rule`); a pipeline that records (`propose`: it has a
/// `pr`) decides as a decision that records does.
pub(super) fn choice(h: &Host, opts: &crate::eval::EvalOptions) -> crate::ops::Choice {
    crate::ops::Choice {
        confidence: opts.confidence,
        rule: opts.rule,
        records: h.options.pr.is_some(),
        max_cost_ratio: opts.max_cost_ratio,
        // A pipeline follows the settings (`_workflow.require_calibrated`).
        require_calibrated: false,
    }
}

/// `gate(result[, opts])`: the decision under `choice` ([`choice`]).
pub(super) fn gate_at(
    h: &Host,
    result: &EvalResult,
    choice: crate::ops::Choice,
) -> RResult<GateDecision> {
    gate_again(h, result, choice, None)
}

/// [`gate_at`] against the best measured again: `best` a fresh measurement
/// of its kept version (`measure_best`), or the words saying why it was not.
pub(super) fn gate_again(
    h: &Host,
    result: &EvalResult,
    choice: crate::ops::Choice,
    best: Option<Result<&EvalResult, &str>>,
) -> RResult<GateDecision> {
    let label = camino::Utf8PathBuf::from(format!("<result {}>", result.doc.run));
    let best_label = best
        .and_then(Result::ok)
        .map(|b| camino::Utf8PathBuf::from(format!("<best measured again {}>", b.doc.run)));
    let again = match (best, &best_label) {
        (Some(Ok(b)), Some(label)) => Some(crate::ops::Again::Measured(&b.doc, label)),
        (Some(Err(why)), _) => Some(crate::ops::Again::Not(why)),
        _ => None,
    };
    // Trusting imported runs is the operator's flag, never a script's.
    let decision = crate::ops::decide(
        &h.ctx,
        &result.doc,
        &label,
        choice,
        h.options.trust_imported,
        again,
        &crate::eval::evidence_path(&h.ctx, &h.options.eval),
    )
    .map_err(|e| raise(h, e))?;
    Ok(GateDecision {
        decision: Arc::new(decision),
        result: result.doc.clone(),
        again: best.and_then(Result::ok).map(|b| b.doc.clone()),
    })
}

/// The keys of an `evaluate_all` row, in order: `result` when the item
/// was evaluated, `error` when it could not be.
pub(super) const ROW_KEYS: &[&str] = &["item", "ok", "exit_code", "result", "error"];

/// The value of `key` of a row as a script reads it (`()` for the one of
/// `result` and `error` it lacks); `None` for a key not in [`ROW_KEYS`].
pub(super) fn row_property(row: &OutcomeRow, key: &str) -> Option<Dynamic> {
    let o = &row.outcome;
    Some(match (key, &o.outcome) {
        ("item", _) => o.item.clone().into(),
        ("ok", outcome) => outcome.is_ok().into(),
        ("exit_code", Ok(_)) => Dynamic::from_int(0),
        ("exit_code", Err(failure)) => Dynamic::from_int(i64::from(failure.exit_code)),
        ("result", Ok(doc)) => Dynamic::from(EvalResult::shared(doc.clone())),
        ("error", Err(failure)) => failure.message.clone().into(),
        ("result" | "error", _) => Dynamic::UNIT,
        _ => return None,
    })
}

/// A row as JSON: the map it reads as, without the key it lacks.
fn row_value(row: &OutcomeRow, depth: usize) -> Result<serde_json::Value, String> {
    ROW_KEYS
        .iter()
        .filter_map(|key| {
            row_property(row, key)
                .filter(|v| !v.is_unit())
                .map(|v| (key, v))
        })
        .map(|(key, v)| Ok((key.to_string(), to_value_at(&v, depth + 1)?)))
        .collect::<Result<serde_json::Map<_, _>, String>>()
        .map(serde_json::Value::Object)
}

/// The result document as a script map (for `to_json`).
pub(super) fn result_value(r: &EvalResult) -> serde_json::Value {
    serde_json::to_value(&*r.doc).unwrap_or(serde_json::Value::Null)
}

/// The decision as JSON: the gate's own serialization plus its reasons.
pub(super) fn decision_value(d: &GateDecision) -> serde_json::Value {
    let mut value = serde_json::to_value(&*d.decision).unwrap_or(serde_json::Value::Null);
    if let Some(map) = value.as_object_mut() {
        map.insert("reasons".into(), d.decision.reasons().into());
    }
    value
}

pub(super) fn status_str(status: crate::gate::Status) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Any script value as JSON (results and decisions as their documents).
/// Nesting deeper than [`MAX_VALUE_DEPTH`](crate::script::engine::MAX_VALUE_DEPTH) is
/// refused; values are read in place, never copied level by level.
pub fn to_value(v: &Dynamic) -> Result<serde_json::Value, String> {
    to_value_at(v, 0)
}

pub(super) fn to_value_at(v: &Dynamic, depth: usize) -> Result<serde_json::Value, String> {
    if depth > crate::script::engine::MAX_VALUE_DEPTH {
        return Err(format!(
            "to_json: the value nests deeper than {} arrays or maps",
            crate::script::engine::MAX_VALUE_DEPTH
        ));
    }
    if v.is::<EvalResult>() {
        return Ok(result_value(&v.clone().cast::<EvalResult>()));
    }
    if v.is::<GateDecision>() {
        return Ok(decision_value(&v.clone().cast::<GateDecision>()));
    }
    if v.is::<CaseResult>() {
        let c = v.clone().cast::<CaseResult>();
        return serde_json::to_value(&*c.case).map_err(|e| format!("to_json: {e}"));
    }
    if let Some(e) = v.read_lock::<EstimateHandle>() {
        return serde_json::to_value(&*e.estimate).map_err(|e| format!("to_json: {e}"));
    }
    if let Some(row) = v.read_lock::<OutcomeRow>() {
        return row_value(&row, depth);
    }
    if let Some(o) = v.read_lock::<Options>() {
        return options_value(&o, depth);
    }
    if v.is::<Raised>() {
        let e = v.clone().cast::<Raised>();
        return Ok(serde_json::json!({"error": e.message, "exit_code": e.exit_code}));
    }
    if let Some(map) = v.read_lock::<Map>() {
        let mut out = serde_json::Map::new();
        for (k, v) in map.iter() {
            out.insert(k.to_string(), to_value_at(v, depth + 1)?);
        }
        return Ok(out.into());
    }
    if let Some(arr) = v.read_lock::<Array>() {
        return arr
            .iter()
            .map(|v| to_value_at(v, depth + 1))
            .collect::<Result<Vec<_>, _>>()
            .map(serde_json::Value::Array);
    }
    if v.is_unit() {
        return Ok(serde_json::Value::Null);
    }
    if let Ok(f) = v.as_float() {
        return Ok(serde_json::Number::from_f64(f)
            .map_or(serde_json::Value::Null, serde_json::Value::Number));
    }
    rhai::serde::from_dynamic::<serde_json::Value>(v).map_err(|e| format!("to_json: {e}"))
}

/// The command's options as JSON: the keys a script sees ([`shown`]).
pub(super) fn options_value(o: &Options, depth: usize) -> Result<serde_json::Value, String> {
    shown(o)
        .map(|(key, v)| Ok((key.to_string(), to_value_at(&v, depth + 1)?)))
        .collect::<Result<serde_json::Map<_, _>, String>>()
        .map(serde_json::Value::Object)
}

pub(super) fn to_dynamic<T: serde::Serialize>(x: &T) -> RResult<Dynamic> {
    rhai::serde::to_dynamic(x)
}

pub(super) fn strings(arr: &Array, what: &str) -> RResult<Vec<String>> {
    arr.iter()
        .map(|v| {
            v.clone()
                .try_cast::<ImmutableString>()
                .map(|s| s.to_string())
                .ok_or_else(|| misuse(format!("{what} must be strings")))
        })
        .collect()
}
