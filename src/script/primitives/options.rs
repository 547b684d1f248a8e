//! `options()` and `opts`: the command's options as a script reads and
//! changes them ([`Options`], typed), and a script's own `opts` map read
//! into evaluation options. Both go through [`set_key`], one rule per key.

use super::{
    Array, Dynamic, EvalOptions, ImmutableString, Map, Options, PipelineOptions, Utf8PathBuf,
    confined, create_inside, eval, opt_int, opt_str,
};

/// The keys `options()` has, in order: the command line's (`suites` is
/// `()` but under `sweep --shard`, `report` until the script sets one).
pub const KEYS: &[&str] = &[
    "item",
    "model",
    "runs",
    "max_cost_usd",
    "confidence",
    "rule",
    "max_cost_ratio",
    "judge_model",
    "jobs",
    "keep",
    "platform_result",
    "platform_timeout",
    "pr",
    "pages",
    "json",
    "trust_imported",
    "format",
    "fresh",
    "dry_run",
    "scaffold",
    "cases",
    "suites",
    "tags",
    "allow_tools",
    "disallow_tools",
    "platform_env",
    "neighbours",
    "report",
];

impl Options {
    /// The options a pipeline was started with (`options()`).
    pub fn of(pipeline: &PipelineOptions, results_dir: &camino::Utf8Path) -> Self {
        Options {
            pipeline: pipeline.clone(),
            results_dir: results_dir.to_owned(),
            report: None,
        }
    }
}

fn strings(v: &[String]) -> Dynamic {
    v.iter()
        .map(|s| Dynamic::from(s.clone()))
        .collect::<Array>()
        .into()
}

/// The value of `key` (one of [`KEYS`]) as a script reads it; `None` for
/// any other key.
pub fn property(o: &Options, key: &str) -> Option<Dynamic> {
    let (p, q) = (&o.pipeline.eval, &o.pipeline);
    Some(match key {
        "item" => opt_str(&q.item),
        "model" => opt_str(&p.model),
        "runs" => match p.auto {
            Some(max) => format!("auto:{max}").into(),
            None => opt_int(p.runs),
        },
        "max_cost_usd" => opt_str(&p.max_cost_usd.map(|c| c.to_string())),
        "confidence" => p.confidence.map_or(Dynamic::UNIT, Dynamic::from_float),
        "rule" => match p.rule {
            Some(crate::stats::confidence::RuleChoice::Bare) => "bare".into(),
            Some(crate::stats::confidence::RuleChoice::Confidence) => "confidence".into(),
            None => Dynamic::UNIT,
        },
        "max_cost_ratio" => p.max_cost_ratio.map_or(Dynamic::UNIT, Dynamic::from_float),
        "judge_model" => opt_str(&p.judge_model),
        "jobs" => opt_int(q.suite_jobs.or(p.jobs)),
        "keep" => p.keep.into(),
        "platform_result" => p
            .platform_result
            .as_ref()
            .map_or(Dynamic::UNIT, |c| c.to_string().into()),
        "platform_timeout" => p
            .platform_timeout
            .map_or(Dynamic::UNIT, |t| Dynamic::from_float(t.as_secs_f64())),
        "pr" => opt_str(&q.pr),
        "pages" => strings(&q.pages),
        "json" => q.json.into(),
        "trust_imported" => q.trust_imported.into(),
        "format" => format_of(q).into(),
        "fresh" => p.fresh.into(),
        "dry_run" => p.dry_run.into(),
        "scaffold" => p.scaffold.map_or(Dynamic::UNIT, Dynamic::from),
        "cases" => strings(&p.cases),
        "suites" => q.suites.as_deref().map_or(Dynamic::UNIT, strings),
        "tags" => strings(&p.tags),
        "allow_tools" => strings(&p.allow_tools),
        "disallow_tools" => strings(&p.disallow_tools),
        "platform_env" => strings(&p.platform_env),
        // `true` for every item of the source, the names when some were given.
        "neighbours" => match &p.neighbours {
            None => Dynamic::UNIT,
            Some(names) if names.is_empty() => true.into(),
            Some(names) => strings(names),
        },
        "report" => opt_str(&o.report),
        _ => return None,
    })
}

/// The keys of `o` a script sees whole (`to_json(options())`): every one
/// of [`KEYS`], but `suites` and `report` only when they hold something.
pub fn shown(o: &Options) -> impl Iterator<Item = (&'static str, Dynamic)> + '_ {
    KEYS.iter().filter_map(move |key| {
        let value = property(o, key)?;
        let hidden = matches!(*key, "suites" | "report") && value.is_unit();
        (!hidden).then_some((*key, value))
    })
}

/// `o.key = v`: the options' `key` set under the rule `opts` reads it by
/// ([`set_key`]), refused at once when `v` breaks it. The command line's
/// own keys (`item`, `pr`, `pages`, `json`, `format`, `suites`) take what
/// they hold; `trust_imported` is the operator's and cannot be set.
pub fn set(o: &mut Options, key: &str, v: &Dynamic) -> Result<(), String> {
    let q = &mut o.pipeline;
    match key {
        "item" => q.item = text(key, v)?,
        "pr" => q.pr = text(key, v)?,
        "pages" => q.pages = list(key, v)?,
        "json" => q.json = flag(key, v)?,
        "suites" => q.suites = (!v.is_unit()).then(|| list(key, v)).transpose()?,
        "format" => q.format = match text(key, v)? {
            None => None,
            Some(name) => Some(
                ["human", "json", "junit", "markdown"]
                    .into_iter()
                    .find(|f| *f == name)
                    .ok_or_else(|| {
                        format!(
                            "option `format` must be human, json, junit or markdown, not {name:?}"
                        )
                    })?,
            ),
        },
        "trust_imported" => {
            return Err(
                "option `trust_imported`: trusting imported runs is the operator's choice (--trust-imported); a script reads it and cannot set it".into(),
            );
        }
        "jobs" => {
            set_key(&mut q.eval, key, v, &o.results_dir)?;
            // `options().jobs` reads a sweep's suites at once first.
            if q.suite_jobs.is_some() {
                q.suite_jobs = q.eval.jobs;
            }
        }
        "report" => {
            set_key(&mut q.eval, key, v, &o.results_dir)?;
            o.report = text(key, v)?;
        }
        _ => set_key(&mut q.eval, key, v, &o.results_dir)?,
    }
    Ok(())
}

/// `options().format`: the `--format` given, else `json` under `--json`, else `human`.
pub fn format_of(o: &PipelineOptions) -> &'static str {
    o.format.unwrap_or(if o.json { "json" } else { "human" })
}

/// Keys of an options map that are not platform options (ignored by `evaluate`).
pub(super) const NOT_PLATFORM: &[&str] =
    &["item", "pr", "pages", "json", "format", "trust_imported"];

/// The evaluation settings a script's options map may set ([`set_key`]),
/// what an unknown key's error lists: the keys `options()` shows that are
/// the platform's (all but [`NOT_PLATFORM`] and `suites`, which only
/// `sweep --shard` fills), and `min_effect`, which it does not show.
pub(super) fn eval_keys() -> impl Iterator<Item = &'static str> {
    KEYS.iter()
        .copied()
        .filter(|k| !NOT_PLATFORM.contains(k) && *k != "suites")
        .chain(["min_effect"])
}

/// Read a script's `opts` map as [`EvalOptions`]: the same validation as the
/// command line ([`eval::runs_from`], …), key by key ([`set_key`]). Unknown
/// keys and wrong types are mistakes. The platform binary is the operator's:
/// `base.claude` is kept and a script may not name one. The operator's
/// `--report` is kept unless the script names its own `report`, which is
/// written under `results_dir` only (the rule of `write_result`).
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
    for (key, v) in map {
        set_key(&mut opts, key, v, results_dir)?;
    }
    Ok(opts)
}

fn text(key: &str, v: &Dynamic) -> Result<Option<String>, String> {
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
}

fn list(key: &str, v: &Dynamic) -> Result<Vec<String>, String> {
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
                .ok_or_else(|| format!("option `{key}` must hold strings, not {}", x.type_name()))
        })
        .collect()
}

fn count(
    key: &str,
    v: &Dynamic,
    check: fn(i64) -> Result<u32, String>,
) -> Result<Option<u32>, String> {
    if v.is_unit() {
        return Ok(None);
    }
    let n = v
        .as_int()
        .map_err(|t| format!("option `{key}` must be an integer, not {t}"))?;
    check(n)
        .map(Some)
        .map_err(|e| format!("option `{key}`: {e}"))
}

fn flag(key: &str, v: &Dynamic) -> Result<bool, String> {
    v.as_bool()
        .map_err(|t| format!("option `{key}` must be true or false, not {t}"))
}

/// Set `key` of `opts` from a script's value `v`, validated exactly as the
/// flag of the same name; the keys that are not the platform's
/// ([`NOT_PLATFORM`]) change nothing here. An unknown key is a mistake,
/// and so is `claude`: the platform binary is the operator's.
pub fn set_key(
    opts: &mut EvalOptions,
    key: &str,
    v: &Dynamic,
    results_dir: &camino::Utf8Path,
) -> Result<(), String> {
    match key {
        "model" => opts.model = text(key, v)?,
        "runs" => match v.clone().try_cast::<ImmutableString>() {
            Some(text) => opts
                .set_runs(&text)
                .map_err(|e| format!("option `runs`: {e}"))?,
            None => (opts.runs, opts.auto) = (count(key, v, eval::runs_from)?, None),
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
        "min_effect" => {
            opts.min_effect = text(key, v)?
                .map(|d| crate::stats::parse_min_effect(&d))
                .transpose()
                .map_err(|e| format!("option `min_effect`: {e}"))?
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
                        format!("option `platform_timeout` must be a number of seconds, not {t}")
                    })?;
                Some(
                    eval::timeout_from(secs)
                        .map_err(|e| format!("option `platform_timeout`: {e}"))?,
                )
            }
        }
        "keep" | "fresh" | "dry_run" => {
            let flag = flag(key, v)?;
            match key {
                "keep" => opts.keep = flag,
                "fresh" => opts.fresh = flag,
                // A script may ask for a dry run, never undo the operator's.
                _ => opts.dry_run |= flag,
            }
        }
        "scaffold" => {
            opts.scaffold =
                if v.is_unit() {
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
                "unknown option `{other}`; known: {}",
                eval_keys().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    Ok(())
}
