//! `options()` and `opts`: the command's options as a script map, and a
//! script's `opts` map back into evaluation options.

use super::{
    Array, Dynamic, EvalOptions, ImmutableString, Map, PipelineOptions, Utf8PathBuf, confined,
    create_inside, eval, opt_int, opt_str,
};

/// The options as the map `options()` returns.
pub fn options_map(o: &PipelineOptions) -> Map {
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
    m.insert(
        "max_cost_usd".into(),
        opt_str(&p.max_cost_usd.map(|c| c.to_string())),
    );
    m.insert(
        "confidence".into(),
        p.confidence.map_or(Dynamic::UNIT, Dynamic::from_float),
    );
    m.insert(
        "rule".into(),
        match p.rule {
            Some(crate::stats::confidence::RuleChoice::Bare) => "bare".into(),
            Some(crate::stats::confidence::RuleChoice::Confidence) => "confidence".into(),
            None => Dynamic::UNIT,
        },
    );
    m.insert(
        "max_cost_ratio".into(),
        p.max_cost_ratio.map_or(Dynamic::UNIT, Dynamic::from_float),
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
    m.insert(
        "scaffold".into(),
        p.scaffold.map_or(Dynamic::UNIT, Dynamic::from),
    );
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
    m.insert("platform_env".into(), strings(&p.platform_env));
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
pub fn format_of(o: &PipelineOptions) -> &'static str {
    o.format.unwrap_or(if o.json { "json" } else { "human" })
}

/// Keys of an options map that are not platform options (ignored by `evaluate`).
pub(super) const NOT_PLATFORM: &[&str] =
    &["item", "pr", "pages", "json", "format", "trust_imported"];

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
        for_record: base.for_record,
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
            "max_cost_usd" => {
                opts.max_cost_usd = text(key, v)?
                    .map(|t| t.parse::<crate::config::Ceiling>())
                    .transpose()
                    .map_err(|e| format!("option `max_cost_usd`: {e}"))?
            }
            "confidence" => {
                opts.confidence = match text(key, v)? {
                    None => None,
                    Some(level) => Some(
                        crate::stats::confidence::parse_level(&level)
                            .map_err(|e| format!("option `confidence`: {e}"))?,
                    ),
                }
            }
            "max_cost_ratio" => {
                opts.max_cost_ratio = match text(key, v)? {
                    None => None,
                    Some(r) => Some(
                        crate::stats::efficiency::parse_cost_ratio(&r)
                            .map_err(|e| format!("option `max_cost_ratio`: {e}"))?,
                    ),
                }
            }
            "rule" => {
                opts.rule = text(key, v)?
                    .map(|r| r.parse::<crate::stats::confidence::RuleChoice>())
                    .transpose()
                    .map_err(|e| format!("option `rule`: {e}"))?
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
            "scaffold" => {
                opts.scaffold = if v.is_unit() {
                    None
                } else {
                    Some(v.as_bool().map_err(|t| {
                        format!("option `scaffold` must be true, false or (), not {t}")
                    })?)
                }
            }
            "cases" => opts.cases = list(key, v)?,
            "tags" => opts.tags = list(key, v)?,
            "allow_tools" => opts.allow_tools = list(key, v)?,
            "disallow_tools" => opts.disallow_tools = list(key, v)?,
            "platform_env" => opts.platform_env = list(key, v)?,
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
                    "unknown option `{other}`; known: model, runs, max_cost_usd, confidence, rule, max_cost_ratio, judge_model, jobs, keep, fresh, dry_run, platform_result, platform_timeout, report, cases, tags, allow_tools, disallow_tools, platform_env, neighbours, scaffold"
                ));
            }
        }
    }
    Ok(opts)
}
