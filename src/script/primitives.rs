//! The primitives: the Rust functions a pipeline may call. They are the only way
//! a script reaches files, processes or the network. Library errors they raise
//! travel through the script as an opaque `Error` value and, when they stop it,
//! become the command's error (and exit code) unchanged.

use super::types::{
    CaseResult, EvalResult, GateDecision, PlatformRun, PluginHandle, cases, opt_f64,
};
use super::{Failure, Host, ItemOutcome, Options, Published};
use crate::error::Error;
use crate::eval::{self, EvalOptions};
use camino::Utf8PathBuf;
use rhai::{Array, Dynamic, Engine, EvalAltResult, ImmutableString, Map, Position};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Every primitive name; a script defining a function with one of these names is refused.
pub const NAMES: &[&str] = &[
    "assemble_plugin",
    "run_platform",
    "reduce",
    "gate",
    "record",
    "check_record_args",
    "evaluate",
    "evaluate_all",
    "estimate",
    "options",
    "option",
    "args",
    "list_suites",
    "load_suite",
    "check",
    "load_result",
    "load_baseline",
    "write_result",
    "evidence",
    "env",
    "to_json",
    "output",
    "table",
    "fixed",
    "publish",
];

type RResult<T> = Result<T, Box<EvalAltResult>>;

/// A library error raised by a primitive, as scripts see it (`Error`): `message`
/// and `exit_code`; the error itself stays in the host.
#[derive(Debug, Clone)]
pub struct Raised {
    /// Index of the stashed error in the host.
    pub id: usize,
    /// Its message.
    pub message: String,
    /// Its exit code.
    pub exit_code: u8,
}

fn raise(host: &Host, err: Error) -> Box<EvalAltResult> {
    let message = err.to_string();
    let exit_code = err.exit_code();
    let id = host.stash_failure(err);
    EvalAltResult::ErrorRuntime(
        Dynamic::from(Raised {
            id,
            message,
            exit_code,
        }),
        Position::NONE,
    )
    .into()
}

/// A script mistake (wrong key, wrong value): reported at the calling line, exit 2.
fn misuse(message: impl Into<String>) -> Box<EvalAltResult> {
    EvalAltResult::ErrorRuntime(message.into().into(), Position::NONE).into()
}

fn opt_str(s: &Option<String>) -> Dynamic {
    s.as_ref().map_or(Dynamic::UNIT, |s| s.clone().into())
}

fn opt_int(n: Option<u32>) -> Dynamic {
    n.map_or(Dynamic::UNIT, |n| Dynamic::from_int(i64::from(n)))
}

/// The options as the map `options()` returns.
pub fn options_map(o: &Options) -> Map {
    let p = &o.eval;
    let mut m = Map::new();
    m.insert("item".into(), opt_str(&o.item));
    m.insert("model".into(), opt_str(&p.model));
    m.insert(
        "runs".into(),
        match p.auto {
            Some(max) => format!("auto:{max}").into(),
            None => opt_int(p.runs),
        },
    );
    m.insert("max_cost_usd".into(), opt_str(&p.max_cost_usd));
    m.insert(
        "confidence".into(),
        p.confidence.map_or(Dynamic::UNIT, Dynamic::from_float),
    );
    m.insert("judge_model".into(), opt_str(&p.judge_model));
    m.insert("jobs".into(), opt_int(o.suite_jobs.or(p.jobs)));
    m.insert("keep".into(), p.keep.into());
    m.insert(
        "platform_result".into(),
        p.platform_result
            .as_ref()
            .map_or(Dynamic::UNIT, |c| c.to_string().into()),
    );
    m.insert(
        "platform_timeout".into(),
        p.platform_timeout
            .map_or(Dynamic::UNIT, |t| Dynamic::from_float(t.as_secs_f64())),
    );
    m.insert("pr".into(), opt_str(&o.pr));
    m.insert(
        "pages".into(),
        o.pages
            .iter()
            .map(|p| Dynamic::from(p.clone()))
            .collect::<Array>()
            .into(),
    );
    m.insert("json".into(), o.json.into());
    m.insert("trust_imported".into(), o.trust_imported.into());
    m.insert("format".into(), format_of(o).into());
    m.insert("fresh".into(), p.fresh.into());
    m.insert("dry_run".into(), p.dry_run.into());
    let strings = |v: &[String]| -> Dynamic {
        v.iter()
            .map(|s| Dynamic::from(s.clone()))
            .collect::<Array>()
            .into()
    };
    m.insert("cases".into(), strings(&p.cases));
    // Only under `sweep --shard`: the map is also a valid `opts` for `evaluate`.
    if let Some(suites) = &o.suites {
        m.insert("suites".into(), strings(suites));
    }
    m.insert("tags".into(), strings(&p.tags));
    m.insert("allow_tools".into(), strings(&p.allow_tools));
    m.insert("disallow_tools".into(), strings(&p.disallow_tools));
    // `true` for every item of the source, the names when some were given.
    m.insert(
        "neighbours".into(),
        match &p.neighbours {
            None => Dynamic::UNIT,
            Some(names) if names.is_empty() => true.into(),
            Some(names) => strings(names),
        },
    );
    m
}

/// `options().format`: the `--format` given, else `json` under `--json`, else `human`.
pub fn format_of(o: &Options) -> &'static str {
    o.format.unwrap_or(if o.json { "json" } else { "human" })
}

/// Keys of an options map that are not platform options (ignored by `evaluate`).
const NOT_PLATFORM: &[&str] = &["item", "pr", "pages", "json", "format", "trust_imported"];

/// Read a script's `opts` map as [`EvalOptions`]: the same validation as the
/// command line ([`eval::runs_from`], …). Unknown keys and wrong types are
/// mistakes. The platform binary is the operator's: `base.claude` is kept and
/// a script may not name one. The operator's `--report` is kept unless the
/// script names its own `report`, which is written under `results_dir` only
/// (the rule of `write_result`).
pub fn eval_options(
    map: &Map,
    base: &EvalOptions,
    results_dir: &camino::Utf8Path,
) -> Result<EvalOptions, String> {
    // The platform binary, the evidence store, a sweep's budget and the
    // operator's report are the operator's choices.
    let mut opts = EvalOptions {
        claude: base.claude.clone(),
        evidence: base.evidence.clone(),
        max_total_usd: base.max_total_usd,
        report: base.report.clone(),
        // The operator's --dry-run holds whatever the script asks.
        dry_run: base.dry_run,
        ..EvalOptions::default()
    };
    let text = |key: &str, v: &Dynamic| -> Result<Option<String>, String> {
        if v.is_unit() {
            Ok(None)
        } else if let Some(s) = v.clone().try_cast::<ImmutableString>() {
            Ok(Some(s.to_string()))
        } else if let Ok(f) = v.as_float() {
            Ok(Some(f.to_string()))
        } else if let Ok(i) = v.as_int() {
            Ok(Some(i.to_string()))
        } else {
            Err(format!(
                "option `{key}` must be a string or number, not {}",
                v.type_name()
            ))
        }
    };
    let list = |key: &str, v: &Dynamic| -> Result<Vec<String>, String> {
        if v.is_unit() {
            return Ok(Vec::new());
        }
        if let Some(s) = v.clone().try_cast::<ImmutableString>() {
            return Ok(vec![s.to_string()]);
        }
        let arr = v
            .read_lock::<Array>()
            .ok_or_else(|| format!("option `{key}` must be a string or an array of strings"))?;
        arr.iter()
            .map(|x| {
                x.clone()
                    .try_cast::<ImmutableString>()
                    .map(|s| s.to_string())
                    .ok_or_else(|| {
                        format!("option `{key}` must hold strings, not {}", x.type_name())
                    })
            })
            .collect()
    };
    let count = |key: &str, v: &Dynamic, check: fn(i64) -> Result<u32, String>| {
        if v.is_unit() {
            return Ok(None);
        }
        let n = v
            .as_int()
            .map_err(|t| format!("option `{key}` must be an integer, not {t}"))?;
        check(n)
            .map(Some)
            .map_err(|e| format!("option `{key}`: {e}"))
    };
    for (key, v) in map {
        match key.as_str() {
            "model" => opts.model = text(key, v)?,
            "runs" => match v.clone().try_cast::<ImmutableString>() {
                Some(text) => opts
                    .set_runs(&text)
                    .map_err(|e| format!("option `runs`: {e}"))?,
                None => opts.runs = count(key, v, eval::runs_from)?,
            },
            "max_cost_usd" => opts.max_cost_usd = text(key, v)?,
            "confidence" => {
                opts.confidence = match text(key, v)? {
                    None => None,
                    Some(level) => Some(
                        crate::stats::confidence::parse_level(&level)
                            .map_err(|e| format!("option `confidence`: {e}"))?,
                    ),
                }
            }
            "judge_model" => opts.judge_model = text(key, v)?,
            "jobs" => opts.jobs = count(key, v, eval::jobs_from)?,
            "platform_result" => opts.platform_result = text(key, v)?.map(Utf8PathBuf::from),
            "report" => {
                opts.report = match text(key, v)? {
                    None => None,
                    Some(path) => {
                        let target = confined("option `report`", results_dir, &path)?;
                        create_inside("option `report`", results_dir, &target)
                            .map_err(|e| e.to_string())?;
                        // A link planted as the file itself is refused, never followed.
                        crate::fsio::check_writable_as(&target, crate::fsio::Links::Refuse)
                            .map_err(|e| format!("option `report`: {e}"))?;
                        Some(target)
                    }
                }
            }
            "platform_timeout" => {
                opts.platform_timeout = if v.is_unit() {
                    None
                } else {
                    let secs = v
                        .as_float()
                        .or_else(|_| v.as_int().map(|i| i as f64))
                        .map_err(|t| {
                            format!(
                                "option `platform_timeout` must be a number of seconds, not {t}"
                            )
                        })?;
                    Some(
                        eval::timeout_from(secs)
                            .map_err(|e| format!("option `platform_timeout`: {e}"))?,
                    )
                }
            }
            "keep" | "fresh" | "dry_run" => {
                let flag = v
                    .as_bool()
                    .map_err(|t| format!("option `{key}` must be true or false, not {t}"))?;
                match key.as_str() {
                    "keep" => opts.keep = flag,
                    "fresh" => opts.fresh = flag,
                    // A script may ask for a dry run, never undo the operator's.
                    _ => opts.dry_run |= flag,
                }
            }
            "cases" => opts.cases = list(key, v)?,
            "tags" => opts.tags = list(key, v)?,
            "allow_tools" => opts.allow_tools = list(key, v)?,
            "disallow_tools" => opts.disallow_tools = list(key, v)?,
            "neighbours" => {
                opts.neighbours = match v.as_bool() {
                    Ok(all) => all.then(Vec::new),
                    Err(_) if v.is_unit() => None,
                    Err(_) => Some(list(key, v)?),
                }
            }
            "claude" => {
                return Err(
                    "option `claude`: the platform binary is the operator's choice (--claude or BOB_EVAL_CLAUDE), not a script's".into(),
                );
            }
            k if NOT_PLATFORM.contains(&k) => {}
            other => {
                return Err(format!(
                    "unknown option `{other}`; known: model, runs, max_cost_usd, confidence, judge_model, jobs, keep, fresh, dry_run, platform_result, platform_timeout, report, cases, tags, allow_tools, disallow_tools, neighbours"
                ));
            }
        }
    }
    Ok(opts)
}

/// `gate(result[, opts])`: the rule, and the confidence mode at `flag`,
/// else at the house rule (settings `_workflow.gate_confidence`).
fn gate_at(h: &Host, result: &EvalResult, flag: Option<f64>) -> RResult<GateDecision> {
    let decide = || -> crate::Result<crate::gate::Decision> {
        let label = camino::Utf8PathBuf::from(format!("<result {}>", result.doc.run));
        eval::measured_on_this_item(&h.ctx, &result.doc, &label)?;
        let settings = crate::config::Settings::load(&h.ctx.home)?;
        let level = crate::config::resolve_confidence(flag, &settings)?;
        let baseline = crate::document::load_baseline(&h.ctx.source, &result.doc.item)?;
        // Trusting imported runs is the operator's flag, never a script's.
        Ok(crate::gate::decide_full(
            &result.doc,
            &baseline,
            h.options.trust_imported,
            level,
        ))
    };
    let decision = decide().map_err(|e| raise(h, e))?;
    Ok(GateDecision {
        decision: Arc::new(decision),
        result: result.doc.clone(),
    })
}

/// The result document as a script map (for `to_json`).
fn result_value(r: &EvalResult) -> serde_json::Value {
    serde_json::to_value(&*r.doc).unwrap_or(serde_json::Value::Null)
}

/// The decision as JSON: the gate's own serialization plus its reasons.
fn decision_value(d: &GateDecision) -> serde_json::Value {
    let mut value = serde_json::to_value(&*d.decision).unwrap_or(serde_json::Value::Null);
    if let Some(map) = value.as_object_mut() {
        map.insert("reasons".into(), d.decision.reasons().into());
    }
    value
}

fn status_str(status: crate::gate::Status) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Any script value as JSON (results and decisions as their documents).
/// Nesting deeper than [`MAX_VALUE_DEPTH`](super::engine::MAX_VALUE_DEPTH) is
/// refused; values are read in place, never copied level by level.
pub fn to_value(v: &Dynamic) -> Result<serde_json::Value, String> {
    to_value_at(v, 0)
}

fn to_value_at(v: &Dynamic, depth: usize) -> Result<serde_json::Value, String> {
    if depth > super::engine::MAX_VALUE_DEPTH {
        return Err(format!(
            "to_json: the value nests deeper than {} arrays or maps",
            super::engine::MAX_VALUE_DEPTH
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

fn to_dynamic<T: serde::Serialize>(x: &T) -> RResult<Dynamic> {
    rhai::serde::to_dynamic(x)
}

fn strings(arr: &Array, what: &str) -> RResult<Vec<String>> {
    arr.iter()
        .map(|v| {
            v.clone()
                .try_cast::<ImmutableString>()
                .map(|s| s.to_string())
                .ok_or_else(|| misuse(format!("{what} must be strings")))
        })
        .collect()
}

/// Register the opaque types and every primitive on `engine`, bound to `host`.
pub fn register(engine: &mut Engine, host: Arc<Host>) {
    register_types(engine);

    let h = host.clone();
    engine.register_fn("options", move || -> RResult<Map> {
        match &h.options.problem {
            Some(problem) => Err(raise(
                &h,
                Error::Usage(format!("pipeline arguments: {problem}")),
            )),
            None => Ok(options_map(&h.options)),
        }
    });
    let h = host.clone();
    engine.register_fn("option", move |name: &str| -> Dynamic {
        options_map(&h.options)
            .get(name)
            .cloned()
            .unwrap_or(Dynamic::UNIT)
    });
    let h = host.clone();
    engine.register_fn("args", move || -> Array {
        h.args.iter().map(|a| Dynamic::from(a.clone())).collect()
    });
    engine.register_fn("env", |name: &str| -> RResult<Dynamic> {
        if name != "EVALS" && !name.starts_with("EVALS_") {
            return Err(misuse(format!(
                "env({name:?}): scripts may read only EVALS and EVALS_* variables"
            )));
        }
        Ok(std::env::var(name).map_or(Dynamic::UNIT, Into::into))
    });
    fn json(v: &Dynamic) -> RResult<String> {
        let value = to_value(v).map_err(misuse)?;
        let text =
            serde_json::to_string_pretty(&value).map_err(|e| misuse(format!("to_json: {e}")))?;
        if text.len() > super::engine::MAX_STRING_SIZE {
            return Err(misuse(format!(
                "to_json: the JSON would be {} bytes, more than a string may hold ({})",
                text.len(),
                super::engine::MAX_STRING_SIZE
            )));
        }
        Ok(text)
    }
    // Maps and arrays too: the standard package's own `to_json(map)` would
    // otherwise win for them and cannot see inside opaque values.
    engine.register_fn("to_json", |v: Dynamic| json(&v));
    engine.register_fn("to_json", |v: Map| json(&v.into()));
    engine.register_fn("to_json", |v: Array| json(&v.into()));
    engine.register_fn("output", |text: &str| {
        // Names and explanations in it may come from imported runs.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", crate::text::block(text));
    });
    engine.register_fn("table", |headers: Array, rows: Array| -> RResult<String> {
        let headers = strings(&headers, "table headers")?;
        let rows = rows
            .iter()
            .map(|r| {
                let r = r
                    .clone()
                    .try_cast::<Array>()
                    .ok_or_else(|| misuse("table rows must be arrays"))?;
                Ok(r.iter()
                    .map(|c| {
                        if c.is_unit() {
                            "—".to_string()
                        } else {
                            c.to_string()
                        }
                    })
                    .collect())
            })
            .collect::<RResult<Vec<Vec<String>>>>()?;
        Ok(super::table::render(&headers, &rows))
    });
    engine.register_fn("fixed", |x: f64, decimals: i64| -> String {
        format!("{x:.*}", decimals.clamp(0, 12) as usize)
    });
    engine.register_fn("fixed", |x: i64, decimals: i64| -> String {
        format!("{:.*}", decimals.clamp(0, 12) as usize, x as f64)
    });
    engine.register_fn("fixed", |_: (), _: i64| -> String { "—".into() });

    register_publish(engine, &host);
    library::register(engine, host);
}

/// One element of `publish([…])`: an `evaluate_all` row or a result.
/// `rows` as estimates, when they are `estimate` maps (all or none).
fn published_estimates(rows: &Array) -> RResult<Option<Vec<crate::eval::estimate::Estimate>>> {
    let is_estimate = |v: &Dynamic| {
        v.read_lock::<Map>().is_some_and(|m| {
            m.get("schema")
                .and_then(|s| s.clone().try_cast::<ImmutableString>())
                .is_some_and(|s| s == crate::eval::estimate::SCHEMA)
        })
    };
    if rows.is_empty() || !rows.iter().all(is_estimate) {
        return Ok(None);
    }
    rows.iter()
        .map(|v| {
            rhai::serde::from_dynamic(v)
                .map_err(|e| misuse(format!("publish: not an `estimate` map: {e}")))
        })
        .collect::<RResult<Vec<_>>>()
        .map(Some)
}

fn published_row(value: &Dynamic) -> RResult<ItemOutcome> {
    if let Some(r) = value.clone().try_cast::<EvalResult>() {
        return Ok(ItemOutcome {
            item: r.doc.item.clone(),
            outcome: Ok(r.doc),
        });
    }
    let not_a_row = || {
        misuse(format!(
            "publish: each element must be an evaluate_all row (#{{item, ok, result or error, exit_code}}) or a result, not {}",
            value.type_name()
        ))
    };
    let row = value.read_lock::<Map>().ok_or_else(not_a_row)?;
    let item = row
        .get("item")
        .and_then(|i| i.clone().try_cast::<ImmutableString>())
        .ok_or_else(not_a_row)?
        .to_string();
    if let Some(r) = row
        .get("result")
        .and_then(|r| r.clone().try_cast::<EvalResult>())
    {
        return Ok(ItemOutcome {
            item,
            outcome: Ok(r.doc),
        });
    }
    let message = row
        .get("error")
        .map(|e| e.to_string())
        .ok_or_else(not_a_row)?;
    let exit_code = row
        .get("exit_code")
        .and_then(|c| c.as_int().ok())
        .and_then(|c| u8::try_from(c).ok())
        .unwrap_or(crate::error::exit::FAILED);
    Ok(ItemOutcome {
        item,
        outcome: Err(Failure { message, exit_code }),
    })
}

/// `publish(rows)`, `publish(result)`, `publish(result, decision)`: hand the
/// pipeline's outcome to the command, which renders it (`--format
/// junit|markdown`, `$GITHUB_STEP_SUMMARY`). The script picks what, never where.
fn register_publish(engine: &mut Engine, host: &Arc<Host>) {
    fn set(host: &Host, published: Published) {
        *host.published.lock().unwrap_or_else(|p| p.into_inner()) = Some(published);
    }
    let h = host.clone();
    engine.register_fn("publish", move |rows: Array| -> RResult<()> {
        if let Some(estimates) = published_estimates(&rows)? {
            set(&h, Published::Estimates(estimates));
            return Ok(());
        }
        let rows = rows.iter().map(published_row).collect::<RResult<_>>()?;
        set(&h, Published::Outcomes(rows));
        Ok(())
    });
    let h = host.clone();
    engine.register_fn("publish", move |result: EvalResult| {
        set(
            &h,
            Published::Outcomes(vec![ItemOutcome {
                item: result.doc.item.clone(),
                outcome: Ok(result.doc),
            }]),
        );
    });
    let h = host.clone();
    engine.register_fn(
        "publish",
        move |result: EvalResult, decision: GateDecision| -> RResult<()> {
            if !decision.is_for(&result) {
                return Err(misuse(
                    "publish: this decision was not made by `gate` for this result; gate the result first",
                ));
            }
            set(
                &h,
                Published::Decided {
                    result: result.doc,
                    decision: decision.decision,
                },
            );
            Ok(())
        },
    );
}

/// A copy of `value` as a Rhai map (`()` when absent): the script reads the
/// intervals and advisories, and what it changes in its copy changes nothing.
fn read_only<T: serde::Serialize>(value: &Option<T>) -> Dynamic {
    value
        .as_ref()
        .and_then(|v| to_dynamic(v).ok())
        .unwrap_or(Dynamic::UNIT)
}

fn register_types(engine: &mut Engine) {
    engine.register_type_with_name::<EvalResult>("EvalResult");
    engine.register_get("item", |r: &mut EvalResult| r.doc.item.clone());
    engine.register_get("run", |r: &mut EvalResult| r.doc.run.clone());
    engine.register_get("date", |r: &mut EvalResult| r.doc.date.clone());
    engine.register_get("model", |r: &mut EvalResult| r.doc.model.clone());
    engine.register_get("with_score", |r: &mut EvalResult| r.doc.with);
    engine.register_get("without_score", |r: &mut EvalResult| r.doc.without);
    engine.register_get("delta", |r: &mut EvalResult| r.doc.delta);
    engine.register_get("verdict", |r: &mut EvalResult| {
        r.doc.verdict.as_str().to_string()
    });
    engine.register_get("trigger_rate", |r: &mut EvalResult| {
        opt_f64(r.doc.trigger_rate)
    });
    engine.register_get("fires_rate", |r: &mut EvalResult| opt_f64(r.doc.fires_rate));
    engine.register_get("quiet_rate", |r: &mut EvalResult| opt_f64(r.doc.quiet_rate));
    engine.register_get("trigger_problem", |r: &mut EvalResult| {
        r.doc
            .trigger_problem()
            .map_or(Dynamic::UNIT, |w| w.to_string().into())
    });
    engine.register_get("cost_usd", |r: &mut EvalResult| r.doc.cost_usd);
    engine.register_get("noise", |r: &mut EvalResult| -> Dynamic {
        match r.doc.stats.as_ref().map(|s| &s.suite.advisory) {
            Some(a @ crate::stats::Advisory::WithinNoise { .. }) => format!(
                "delta {} is {}",
                crate::document::fmt_score(r.doc.delta),
                a.in_words()
            )
            .into(),
            _ => Dynamic::UNIT,
        }
    });
    engine.register_get("stats", |r: &mut EvalResult| read_only(&r.doc.stats));
    engine.register_get("scored_by_trigger", |r: &mut EvalResult| -> Array {
        r.doc
            .scored_by_trigger()
            .map(|c| crate::document::scored_by_trigger_words(&c.name).into())
            .collect()
    });
    engine.register_get("neighbours", |r: &mut EvalResult| {
        read_only(&r.doc.neighbours)
    });
    engine.register_get("neighbour_findings", |r: &mut EvalResult| -> Array {
        r.doc
            .neighbours
            .as_ref()
            .map(crate::eval::neighbours::findings)
            .unwrap_or_default()
            .into_iter()
            .map(Dynamic::from)
            .collect()
    });
    engine.register_get("suite_errors", |r: &mut EvalResult| -> Array {
        r.doc
            .cases
            .iter()
            .flat_map(|c| {
                c.grader_errors().map(move |g| {
                    format!(
                        "case {}, grader {} threw instead of judging ({})",
                        c.name,
                        g.name,
                        g.why()
                    )
                    .into()
                })
            })
            .collect()
    });
    engine.register_get("reused_runs", |r: &mut EvalResult| {
        i64::from(r.doc.reused_runs.unwrap_or(0))
    });
    engine.register_get("imported_runs", |r: &mut EvalResult| {
        i64::from(r.doc.imported_runs.unwrap_or(0))
    });
    engine.register_get("reused_cost_usd", |r: &mut EvalResult| {
        r.doc.reused_cost_usd.unwrap_or(0.0)
    });
    engine.register_get("max_cost_usd", |r: &mut EvalResult| r.doc.max_cost_usd);
    engine.register_get("partial", |r: &mut EvalResult| r.doc.partial);
    engine.register_get("partial_reason", |r: &mut EvalResult| {
        r.doc
            .partial_reason
            .clone()
            .map_or(Dynamic::UNIT, Into::into)
    });
    engine.register_get("cases", |r: &mut EvalResult| cases(&r.doc));
    engine.register_fn("to_string", |r: &mut EvalResult| {
        format!(
            "EvalResult({} {} on {}: with {} without {})",
            r.doc.item,
            r.doc.verdict.as_str(),
            r.doc.model,
            r.doc.with,
            r.doc.without
        )
    });
    engine.register_fn("to_debug", |r: &mut EvalResult| {
        format!("EvalResult({})", r.doc.run)
    });

    engine.register_type_with_name::<CaseResult>("Case");
    engine.register_get("name", |c: &mut CaseResult| c.case.name.clone());
    engine.register_get("with_score", |c: &mut CaseResult| c.case.with);
    engine.register_get("without_score", |c: &mut CaseResult| {
        opt_f64(c.case.without)
    });
    engine.register_get("delta", |c: &mut CaseResult| opt_f64(c.case.delta));
    engine.register_get("verdict", |c: &mut CaseResult| {
        c.case.verdict.map_or(Dynamic::UNIT, |v| v.as_str().into())
    });
    engine.register_get("trigger_rate", |c: &mut CaseResult| {
        opt_f64(c.case.trigger_rate)
    });
    engine.register_get("fires_rate", |c: &mut CaseResult| {
        opt_f64(c.case.fires_rate)
    });
    engine.register_get("quiet_rate", |c: &mut CaseResult| {
        opt_f64(c.case.quiet_rate)
    });
    engine.register_get("cost_usd", |c: &mut CaseResult| c.case.cost_usd);
    engine.register_get("runs", |c: &mut CaseResult| i64::from(c.case.runs));
    engine.register_get("graders", |c: &mut CaseResult| -> Array {
        c.case
            .graders
            .iter()
            .flatten()
            .map(|g| {
                let mut m = Map::new();
                m.insert("name".into(), g.name.clone().into());
                m.insert("kind".into(), g.kind.as_str().into());
                m.insert("with_passed".into(), i64::from(g.with.passed).into());
                m.insert("with_runs".into(), i64::from(g.with.runs).into());
                let (passed, runs) = g.without.map_or((Dynamic::UNIT, Dynamic::UNIT), |w| {
                    (i64::from(w.passed).into(), i64::from(w.runs).into())
                });
                m.insert("without_passed".into(), passed);
                m.insert("without_runs".into(), runs);
                m.insert("error".into(), g.error.into());
                m.insert("failure".into(), opt_str(&g.failure));
                Dynamic::from_map(m)
            })
            .collect()
    });
    engine.register_get("stats", |c: &mut CaseResult| read_only(&c.case.stats));
    engine.register_fn("to_string", |c: &mut CaseResult| {
        format!("Case({} {})", c.case.name, c.case.with)
    });
    engine.register_fn("to_debug", |c: &mut CaseResult| {
        format!("Case({})", c.case.name)
    });

    engine.register_type_with_name::<GateDecision>("GateDecision");
    engine.register_get("accepted", |d: &mut GateDecision| d.decision.accepted);
    engine.register_get("reasons", |d: &mut GateDecision| -> Array {
        d.decision
            .reasons()
            .into_iter()
            .map(Dynamic::from)
            .collect()
    });
    engine.register_get("conditions", |d: &mut GateDecision| -> Array {
        d.decision
            .conditions
            .iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("name".into(), c.name.to_string().into());
                m.insert("status".into(), status_str(c.status).into());
                m.insert("text".into(), c.text.clone().into());
                m.insert("runs_needed".into(), opt_int(c.runs_needed));
                Dynamic::from_map(m)
            })
            .collect()
    });
    engine.register_get("best", |d: &mut GateDecision| -> Dynamic {
        d.decision
            .best
            .as_ref()
            .and_then(|b| rhai::serde::to_dynamic(b).ok())
            .unwrap_or(Dynamic::UNIT)
    });
    engine.register_get("item", |d: &mut GateDecision| d.decision.item.clone());
    engine.register_get("confidence", |d: &mut GateDecision| -> Dynamic {
        d.decision
            .confidence
            .map_or(Dynamic::UNIT, Dynamic::from_float)
    });
    engine.register_get("advice", |d: &mut GateDecision| -> Array {
        ["beats-best", "helps", "trigger-rate"]
            .into_iter()
            .filter_map(|name| {
                d.decision
                    .advice_words(name)
                    .map(|words| Dynamic::from(format!("{name}: {words}")))
            })
            .collect()
    });
    engine.register_get("saturated", |d: &mut GateDecision| {
        d.decision
            .saturated
            .clone()
            .map_or(Dynamic::UNIT, Into::into)
    });
    engine.register_get("advisories", |d: &mut GateDecision| {
        read_only(&d.decision.advice)
    });
    engine.register_get("suite_change", |d: &mut GateDecision| {
        d.decision
            .suite_change
            .clone()
            .map_or(Dynamic::UNIT, Into::into)
    });
    engine.register_get("model", |d: &mut GateDecision| d.decision.model.clone());
    engine.register_fn("to_string", |d: &mut GateDecision| {
        format!(
            "GateDecision({} {})",
            d.decision.item,
            if d.decision.accepted {
                "accepted"
            } else {
                "rejected"
            }
        )
    });
    engine.register_fn("to_debug", |d: &mut GateDecision| {
        format!("GateDecision({})", d.decision.item)
    });

    engine.register_type_with_name::<PluginHandle>("Plugin");
    engine.register_get("name", |p: &mut PluginHandle| {
        crate::item::plugin_name(&p.item)
    });
    engine.register_get("item", |p: &mut PluginHandle| p.item.clone());
    engine.register_type_with_name::<PlatformRun>("PlatformOutput");
    engine.register_get("exit_code", |p: &mut PlatformRun| -> Dynamic {
        p.run
            .output
            .as_ref()
            .map_or(Dynamic::UNIT, |o| Dynamic::from_int(i64::from(o.exit_code)))
    });

    engine.register_type_with_name::<Raised>("Error");
    engine.register_get("message", |e: &mut Raised| e.message.clone());
    engine.register_get("exit_code", |e: &mut Raised| i64::from(e.exit_code));
    engine.register_fn("to_string", |e: &mut Raised| e.message.clone());
    engine.register_fn("to_debug", |e: &mut Raised| format!("Error({})", e.message));
}

/// Where `write_result(r, path)` writes: `path` relative to the results folder
/// (a plain relative path: no `..`, not absolute, not empty). The folder is the
/// only place a script writes, so it can never replace `baseline.json`, the wiki
/// or an item.
pub fn results_path(results_dir: &camino::Utf8Path, path: &str) -> Result<Utf8PathBuf, String> {
    confined("write_result", results_dir, path)
}

/// `path` under the results folder, for `what` (a primitive or an option).
fn confined(what: &str, results_dir: &camino::Utf8Path, path: &str) -> Result<Utf8PathBuf, String> {
    let rel = camino::Utf8Path::new(path);
    let plain = !path.is_empty()
        && rel.is_relative()
        && rel
            .components()
            .all(|c| matches!(c, camino::Utf8Component::Normal(_)));
    if !plain {
        return Err(format!(
            "{what}: {path:?} must be a plain relative path (no `..`, not absolute): it is written under {results_dir}"
        ));
    }
    Ok(results_dir.join(rel))
}

/// Create the folders of `target` inside `root` (`root` too), refusing any
/// that is a symlink leading out of `root`.
fn create_inside(
    what: &str,
    root: &camino::Utf8Path,
    target: &camino::Utf8Path,
) -> crate::Result<()> {
    let Some(parent) = target.parent() else {
        return Ok(());
    };
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, "creating", e))?;
    let (real_root, real_parent) = (
        root.canonicalize_utf8()
            .map_err(|e| Error::io(root, "resolving", e))?,
        parent
            .canonicalize_utf8()
            .map_err(|e| Error::io(parent, "resolving", e))?,
    );
    if !real_parent.starts_with(&real_root) {
        return Err(Error::Usage(format!(
            "{what}: {parent} leads outside the results folder {root}"
        )));
    }
    Ok(())
}

/// The primitives that call into the library (plugin, platform, reduce, gate, record, suites).
mod library {
    use super::*;

    /// `evaluate_all`'s outcome as script maps, one per item in the order given.
    fn rows(done: Vec<eval::Evaluated>) -> Array {
        done.into_iter()
            .map(|e| {
                let mut row = Map::new();
                row.insert("item".into(), e.item.into());
                match e.outcome {
                    Ok(doc) => {
                        row.insert("ok".into(), true.into());
                        row.insert("exit_code".into(), Dynamic::from_int(0));
                        row.insert("result".into(), Dynamic::from(EvalResult::new(doc)));
                    }
                    Err(err) => {
                        row.insert("ok".into(), false.into());
                        row.insert(
                            "exit_code".into(),
                            Dynamic::from_int(i64::from(err.exit_code())),
                        );
                        row.insert("error".into(), err.to_string().into());
                    }
                }
                Dynamic::from_map(row)
            })
            .collect()
    }

    fn run_platform(host: &Host, plugin: &PluginHandle) -> crate::Result<PlatformRun> {
        let assembled = plugin
            .assembled
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .ok_or_else(|| {
                Error::Usage(format!(
                    "run_platform: the plugin of {} already ran; assemble it again with assemble_plugin",
                    plugin.item
                ))
            })?;
        let run = eval::run_platform(assembled, host.observer.clone())?;
        Ok(PlatformRun { run: Arc::new(run) })
    }

    fn load_result(path: &str) -> crate::Result<EvalResult> {
        let path = Utf8PathBuf::from(path);
        let text = crate::fsio::read_text(&path, crate::config::MAX_INPUT_FILE)
            .map_err(|e| Error::unreadable(&path, e))?;
        let item = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("item").and_then(|i| i.as_str()).map(str::to_owned))
            .ok_or_else(|| Error::invalid(&path, "not a skill-eval/1 document (no \"item\"); write one with `bob-eval run --out`"))?;
        crate::document::load_result(&path, &item).map(EvalResult::new)
    }

    fn suite_summary(host: &Host, item: &str) -> crate::Result<Map> {
        let suite = crate::suite::load(&host.ctx.source, item)?;
        let mut m = Map::new();
        m.insert("item".into(), suite.item.clone().into());
        m.insert("dir".into(), suite.dir.to_string().into());
        let names: Array = suite
            .cases
            .iter()
            .map(|c| Dynamic::from(c.name.clone()))
            .collect();
        m.insert("cases".into(), names.into());
        Ok(m)
    }

    pub fn register(engine: &mut Engine, host: Arc<Host>) {
        let h = host.clone();
        engine.register_fn(
            "assemble_plugin",
            move |item: &str, opts: Map| -> RResult<PluginHandle> {
                let opts = eval_options(&opts, &h.options.eval, &h.results_dir).map_err(misuse)?;
                let assembled = h
                    .timed(|| eval::assemble_plugin(&h.ctx, item, &opts, h.observer.as_ref()))
                    .map_err(|e| raise(&h, e))?;
                Ok(PluginHandle {
                    assembled: Arc::new(Mutex::new(Some(assembled))),
                    item: item.to_string(),
                })
            },
        );
        let h = host.clone();
        engine.register_fn(
            "run_platform",
            move |plugin: PluginHandle| -> RResult<PlatformRun> {
                h.timed(|| run_platform(&h, &plugin))
                    .map_err(|e| raise(&h, e))
            },
        );
        let h = host.clone();
        engine.register_fn("reduce", move |run: PlatformRun| -> RResult<EvalResult> {
            h.timed(|| eval::reduce(&run.run))
                .map(EvalResult::new)
                .map_err(|e| raise(&h, e))
        });
        let h = host.clone();
        engine.register_fn(
            "evaluate",
            move |item: &str, opts: Map| -> RResult<EvalResult> {
                let opts = eval_options(&opts, &h.options.eval, &h.results_dir).map_err(misuse)?;
                h.timed(|| eval::evaluate(&h.ctx, item, &opts, h.observer.clone()))
                    .map(EvalResult::new)
                    .map_err(|e| raise(&h, e))
            },
        );
        let h = host.clone();
        engine.register_fn(
            "estimate",
            move |item: &str, opts: Map| -> RResult<Dynamic> {
                let opts = eval_options(&opts, &h.options.eval, &h.results_dir).map_err(misuse)?;
                let estimate = h
                    .timed(|| eval::estimate::estimate(&h.ctx, item, &opts))
                    .map_err(|e| raise(&h, e))?;
                rhai::serde::to_dynamic(&estimate)
            },
        );
        let h = host.clone();
        engine.register_fn(
            "evaluate_all",
            move |items: Array, opts: Map, jobs: i64| -> RResult<Array> {
                let items = strings(&items, "evaluate_all items")?;
                let opts = eval_options(&opts, &h.options.eval, &h.results_dir).map_err(misuse)?;
                if opts.report.is_some() && items.len() > 1 {
                    return Err(misuse(
                        "evaluate_all: `report` names one file, and this evaluates many items: evaluate them one at a time to save each report",
                    ));
                }
                if !(1..=64).contains(&jobs) {
                    return Err(misuse(format!(
                        "evaluate_all: jobs must be 1..=64, not {jobs}"
                    )));
                }
                h.timed(|| {
                    eval::evaluate_all(&h.ctx, &items, &opts, jobs as usize, h.observer.clone())
                })
                .map(rows)
                .map_err(|e| raise(&h, e))
            },
        );
        let h = host.clone();
        engine.register_fn("gate", move |result: EvalResult| -> RResult<GateDecision> {
            gate_at(&h, &result, h.options.eval.confidence)
        });
        let h = host.clone();
        engine.register_fn(
            "gate",
            move |result: EvalResult, opts: Map| -> RResult<GateDecision> {
                let opts = eval_options(&opts, &h.options.eval, &h.results_dir).map_err(misuse)?;
                gate_at(&h, &result, opts.confidence.or(h.options.eval.confidence))
            },
        );
        let h = host.clone();
        engine.register_fn(
            "check_record_args",
            move |pr: &str, pages: Array| -> RResult<()> {
                let pages = strings(&pages, "pages")?;
                crate::record::check_record_args(&h.ctx.source, Some(pr), &pages)
                    .map_err(|e| raise(&h, e))
            },
        );
        let h = host.clone();
        engine.register_fn(
            "record",
            move |result: EvalResult, decision: GateDecision, pr: &str, pages: Array| -> RResult<GateDecision> {
                if !decision.is_for(&result) {
                    return Err(misuse(
                        "record: this decision was not made by `gate` for this result; gate the result first",
                    ));
                }
                let pages = strings(&pages, "pages")?;
                if let Some(warning) = crate::record::default_model_warning(&result.doc.model) {
                    h.observer.event(&crate::event::Event::Notice(format!("warning: {warning}")));
                }
                let recorded = crate::record::record(&h.ctx.source, &result.doc, &decision.decision, pr, &pages)
                    .map_err(|e| raise(&h, e))?;
                if recorded.revised {
                    h.observer.event(&crate::event::Event::Notice(
                        "the best changed while recording; the decision was made again against it".into(),
                    ));
                }
                Ok(GateDecision { decision: Arc::new(recorded.decision), result: result.doc.clone() })
            },
        );
        let h = host.clone();
        engine.register_fn("list_suites", move || -> RResult<Array> {
            let names = crate::suite::list(&h.ctx.source).map_err(|e| raise(&h, e))?;
            Ok(names.into_iter().map(Dynamic::from).collect())
        });
        let h = host.clone();
        engine.register_fn("load_suite", move |item: &str| -> RResult<Map> {
            suite_summary(&h, item).map_err(|e| raise(&h, e))
        });
        let h = host.clone();
        engine.register_fn("check", move |item: &str| -> RResult<Map> {
            let report = crate::check::check_suites(&h.ctx.source, &[item.to_string()])
                .map_err(|e| raise(&h, e))?;
            let mut m = Map::new();
            m.insert("ok".into(), (!report.has_errors()).into());
            m.insert("report".into(), to_dynamic(&report)?);
            Ok(m)
        });
        let h = host.clone();
        engine.register_fn("evidence", move |item: &str| -> RResult<Dynamic> {
            let summary = || -> crate::Result<Vec<crate::evidence::ListEntry>> {
                crate::config::validate_item_name(item)?;
                let path = crate::eval::evidence_path(&h.ctx, &h.options.eval);
                if !path.exists() {
                    return Ok(Vec::new());
                }
                crate::evidence::Store::open(&path)?.list(&[item.to_string()])
            };
            let entries = summary().map_err(|e| raise(&h, e))?;
            to_dynamic(&entries)
        });
        let h = host.clone();
        engine.register_fn("load_result", move |path: &str| -> RResult<EvalResult> {
            load_result(path).map_err(|e| raise(&h, e))
        });
        let h = host.clone();
        engine.register_fn("load_baseline", move |item: &str| -> RResult<Dynamic> {
            let baseline =
                crate::document::load_baseline(&h.ctx.source, item).map_err(|e| raise(&h, e))?;
            to_dynamic(&baseline)
        });
        let h = host;
        engine.register_fn(
            "write_result",
            move |result: EvalResult, path: &str| -> RResult<()> {
                let target = results_path(&h.results_dir, path).map_err(misuse)?;
                let mut bytes = serde_json::to_vec_pretty(&*result.doc)
                    .map_err(|e| misuse(format!("write_result: {e}")))?;
                bytes.push(b'\n');
                create_inside("write_result", &h.results_dir, &target).map_err(|e| raise(&h, e))?;
                crate::fsio::write_confined(&target, &bytes).map_err(|e| raise(&h, e))
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every name this file registers with `register_fn` (type methods aside)
    /// is in [`NAMES`], and every name in it is registered: a script can never
    /// shadow a primitive that the list forgot.
    #[test]
    fn names_are_exactly_the_registered_primitives() {
        let source = include_str!("primitives.rs");
        let code = &source[..source.rfind("#[cfg(test)]").unwrap()];
        let re = regex::Regex::new(r#"register_fn\(\s*"([a-z_]+)""#).unwrap();
        let registered: BTreeSet<&str> = re
            .captures_iter(code)
            .map(|c| c.get(1).unwrap().as_str())
            .filter(|n| !["to_string", "to_debug"].contains(n))
            .collect();
        let listed: BTreeSet<&str> = NAMES.iter().copied().collect();
        assert_eq!(registered, listed);
    }

    #[test]
    fn a_script_may_not_name_the_platform_binary() {
        let mut map = Map::new();
        map.insert("claude".into(), "/bin/bash".into());
        let base = EvalOptions {
            claude: Some("/opt/claude".into()),
            ..EvalOptions::default()
        };
        let err =
            eval_options(&map, &base, camino::Utf8Path::new("/nonexistent/results")).unwrap_err();
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
        // `options()` hands the flag back in the form `opts` takes.
        for given in [None, Some(vec![]), Some(vec!["changelog".to_string()])] {
            let o = Options {
                eval: EvalOptions {
                    neighbours: given.clone(),
                    ..EvalOptions::default()
                },
                ..Options::default()
            };
            let map = options_map(&o);
            let back =
                eval_options(&map, &base, camino::Utf8Path::new("/nonexistent/results")).unwrap();
            assert_eq!(back.neighbours, given);
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
        assert_eq!(with("auto".into()).unwrap().auto, Some(16));
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
}
