//! The primitives that call into the library (plugin, platform, reduce, gate, record, suites).

use super::{
    Api, Arc, Array, Dynamic, Error, EstimateHandle, EvalOptions, EvalResult, GateDecision, Host,
    Map, Mutex, Options, OutcomeRow, PluginHandle, RResult, RunHandle, Utf8PathBuf, choice,
    create_inside, eval, eval_options, gate_again, gate_at, misuse, raise, results_path, strings,
    to_dynamic,
};
use crate::config::ItemName;

/// `evaluate_all`'s outcome as script rows, one per item in the order given.
fn rows(done: Vec<eval::ItemOutcome>) -> Array {
    done.into_iter()
        .map(|outcome| {
            Dynamic::from(OutcomeRow {
                outcome: Arc::new(outcome),
            })
        })
        .collect()
}

fn run_platform(host: &Host, plugin: &PluginHandle) -> crate::Result<RunHandle> {
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
    Ok(RunHandle {
        run: Arc::new(run),
        options: plugin.options.clone(),
    })
}

fn load_result(path: &str) -> crate::Result<EvalResult> {
    let path = Utf8PathBuf::from(path);
    let text = crate::fsio::read_text(&path, crate::config::MAX_INPUT_FILE)
        .map_err(|e| Error::unreadable(&path, e))?;
    let item = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("item").and_then(|i| i.as_str()).map(str::to_owned))
        .ok_or_else(|| {
            Error::invalid(
                &path,
                "not a skill-eval/1 document (no \"item\"); write one with `bob-eval run --out`",
            )
        })?;
    crate::document::load_result(&path, &item).map(EvalResult::new)
}

fn suite_summary(host: &Host, item: &str) -> crate::Result<Map> {
    let suite = crate::suite::load(&host.ctx.source, &ItemName::new(item)?)?;
    let mut m = Map::new();
    m.insert("item".into(), suite.item.to_string().into());
    m.insert("dir".into(), suite.dir.to_string().into());
    let names: Array = suite
        .cases
        .iter()
        .map(|c| Dynamic::from(c.name.clone()))
        .collect();
    m.insert("cases".into(), names.into());
    Ok(m)
}

/// `assemble_plugin`: check the suite, start the version probe, assemble the plugin.
fn assemble(h: &Host, item: &str, opts: &EvalOptions) -> RResult<PluginHandle> {
    let assembled = h
        .timed(|| eval::assemble_plugin(&h.ctx, &ItemName::new(item)?, opts, h.observer.as_ref()))
        .map_err(|e| raise(h, e))?;
    Ok(PluginHandle {
        assembled: Arc::new(Mutex::new(Some(assembled))),
        item: item.to_string(),
        options: Arc::new(opts.clone()),
    })
}

/// `evaluate`: the three steps in one call, as `run` makes them
/// ([`crate::ops::run`], no file written).
fn evaluate(h: &Host, item: &str, opts: &EvalOptions) -> RResult<EvalResult> {
    h.timed(|| {
        let request = crate::ops::RunItemRequest {
            item: ItemName::new(item)?,
            options: opts.clone(),
            out: None,
        };
        crate::ops::run(&h.ctx, &request, h.observer.clone())
    })
    .map(|ran| EvalResult {
        options: Some(Arc::new(opts.clone())),
        complete: ran.complete.map(Arc::new),
        invocation: h.invocation.clone(),
        ..EvalResult::new(ran.doc)
    })
    .map_err(|e| raise(h, e))
}

/// `measure_best(r)`: the recorded best for `r`'s item and model measured
/// again from its kept files, head to head with `r` (with the options `r`
/// was evaluated with, when it was evaluated here, on as many runs per arm
/// of each case as `r` has, its with arm bought anew); `()` when no best is
/// recorded or `r` is the best's own version; else the words saying why it
/// cannot be measured again (it is then compared as recorded).
fn measure_best(h: &Host, r: &EvalResult) -> RResult<Dynamic> {
    let doc = &r.doc;
    let look = || -> crate::Result<Option<Result<EvalOptions, String>>> {
        let baseline = crate::document::load_baseline(&h.ctx.source, &doc.item)?;
        let Some(best) = baseline.best.get(&doc.model) else {
            return Ok(None);
        };
        if best.item_digest.is_some() && best.item_digest == doc.item_digest {
            return Ok(None);
        }
        if best.item_digest.is_none() {
            return Ok(Some(Err(crate::gate::best_not_kept(best))));
        }
        let found = crate::item::find(&h.ctx.source, &doc.item)?;
        let store = eval::evidence_path(&h.ctx, &h.options.eval);
        match eval::best_version(&h.ctx, &found, &doc.model, &store) {
            Err(crate::Error::Usage(why)) => {
                Ok(Some(Err(why.trim_start_matches("--best: ").to_string())))
            }
            Err(e) => Err(e),
            Ok(_) => {
                let runs = doc
                    .stats
                    .as_ref()
                    .map_or(3, |s| s.suite.runs_per_arm.ceil().max(1.0) as u32);
                Ok(Some(Ok(EvalOptions {
                    best: true,
                    runs: Some(runs),
                    auto: None,
                    model: (doc.model != "default").then(|| doc.model.clone()),
                    neighbours: None,
                    report: None,
                    // As `r` was evaluated, so the two compare like for like.
                    ..r.options.as_deref().unwrap_or(&h.options.eval).clone()
                })))
            }
        }
    };
    match look().map_err(|e| raise(h, e))? {
        None => Ok(Dynamic::UNIT),
        Some(Err(why)) => Ok(why.into()),
        Some(Ok(opts)) => evaluate(h, &doc.item, &opts).map(Dynamic::from),
    }
}

/// `estimate`: what `evaluate` would buy, reuse and cost: the estimate of
/// a dry run ([`crate::ops::estimate`]), typed.
fn estimate(h: &Host, item: &str, opts: &EvalOptions) -> RResult<EstimateHandle> {
    let estimated = h
        .timed(|| crate::ops::estimate(&h.ctx, &ItemName::new(item)?, opts))
        .map_err(|e| raise(h, e))?;
    Ok(EstimateHandle {
        estimate: Arc::new(estimated.estimate),
    })
}

/// `evaluate_all`: many items, `jobs` suites at once ([`crate::ops::evaluate_all`]).
fn evaluate_all(h: &Host, items: &Array, opts: &EvalOptions, jobs: i64) -> RResult<Array> {
    let items = strings(items, "evaluate_all items")?;
    let request = crate::ops::EvaluateAllRequest::new(items, opts.clone(), jobs)
        .map_err(|e| misuse(format!("evaluate_all: {e}")))?;
    h.timed(|| crate::ops::evaluate_all(&h.ctx, &request, h.observer.clone()))
        .map(rows)
        .map_err(|e| raise(h, e))
}

/// A step's `opts` map, read over the command's options ([`eval_options`]).
fn read_opts(h: &Host, opts: &Map) -> RResult<EvalOptions> {
    eval_options(opts, &h.options.eval, &h.results_dir).map_err(misuse)
}

/// Registers `name(item)`, `name(item, options())` and `name(item, #{…})`:
/// `step` on the command's options, on typed ones, or on a map read over
/// the command's.
fn per_item<T: Clone + Send + Sync + 'static>(
    api: &mut Api,
    host: &Arc<Host>,
    name: &'static str,
    step: fn(&Host, &str, &EvalOptions) -> RResult<T>,
) {
    let h = host.clone();
    api.primitive(name, move |item: &str| -> RResult<T> {
        step(&h, item, &h.options.eval)
    });
    let h = host.clone();
    api.primitive(name, move |item: &str, o: Options| -> RResult<T> {
        step(&h, item, &o.pipeline.eval)
    });
    let h = host.clone();
    api.primitive(name, move |item: &str, opts: Map| -> RResult<T> {
        step(&h, item, &read_opts(&h, &opts)?)
    });
}

/// The steps of an evaluation and their compositions: `assemble_plugin`,
/// `run_platform`, `reduce`, `evaluate`, `estimate`, `evaluate_all`. Each
/// step that runs the platform takes the command's options as they are
/// (`f(item)`), the script's `Options` as it holds them (`f(item, o)`), or
/// a script's `opts` map read over them (`f(item, opts)`).
pub(super) fn register_steps(api: &mut Api, host: &Arc<Host>) {
    per_item(api, host, "assemble_plugin", assemble);
    let h = host.clone();
    api.primitive(
        "run_platform",
        move |plugin: PluginHandle| -> RResult<RunHandle> {
            h.timed(|| run_platform(&h, &plugin))
                .map_err(|e| raise(&h, e))
        },
    );
    let h = host.clone();
    api.primitive("reduce", move |run: RunHandle| -> RResult<EvalResult> {
        h.timed(|| eval::reduce(&run.run))
            .map(|doc| {
                let complete =
                    crate::ops::Completion::of(&h.ctx, &run.run.item, &run.options, &doc, None);
                EvalResult {
                    options: Some(run.options.clone()),
                    complete: complete.map(Arc::new),
                    invocation: h.invocation.clone(),
                    ..EvalResult::new(doc)
                }
            })
            .map_err(|e| raise(&h, e))
    });
    per_item(api, host, "evaluate", evaluate);
    per_item(api, host, "estimate", estimate);
    let h = host.clone();
    api.primitive(
        "evaluate_all",
        move |items: Array, jobs: i64| -> RResult<Array> {
            evaluate_all(&h, &items, &h.options.eval, jobs)
        },
    );
    let h = host.clone();
    api.primitive(
        "evaluate_all",
        move |items: Array, o: Options, jobs: i64| -> RResult<Array> {
            evaluate_all(&h, &items, &o.pipeline.eval, jobs)
        },
    );
    let h = host.clone();
    api.primitive(
        "evaluate_all",
        move |items: Array, opts: Map, jobs: i64| -> RResult<Array> {
            evaluate_all(&h, &items, &read_opts(&h, &opts)?, jobs)
        },
    );
}

/// What `gate(result, opts)` asks of the rule: `opts`' `confidence`,
/// `rule` and `max_cost_ratio`, each falling back to the command's.
fn asked(h: &Host, opts: &EvalOptions) -> crate::ops::Choice {
    let base = choice(h, &h.options.eval);
    crate::ops::Choice {
        confidence: opts.confidence.or(base.confidence),
        rule: opts.rule.or(base.rule),
        max_cost_ratio: opts.max_cost_ratio.or(base.max_cost_ratio),
        ..base
    }
}

/// The gate and the record: `gate` (under the command's rule or a script's
/// `opts`, against the best as recorded or measured again), `measure_best`,
/// `check_record_args`, `record`.
pub(super) fn register_gate(api: &mut Api, host: &Arc<Host>) {
    let h = host.clone();
    api.primitive("gate", move |result: EvalResult| -> RResult<GateDecision> {
        gate_at(&h, &result, choice(&h, &h.options.eval))
    });
    let h = host.clone();
    api.primitive(
        "gate",
        move |result: EvalResult, o: Options| -> RResult<GateDecision> {
            gate_at(&h, &result, asked(&h, &o.pipeline.eval))
        },
    );
    let h = host.clone();
    api.primitive(
        "gate",
        move |result: EvalResult, opts: Map| -> RResult<GateDecision> {
            gate_at(&h, &result, asked(&h, &read_opts(&h, &opts)?))
        },
    );
    let h = host.clone();
    api.primitive(
        "gate",
        move |result: EvalResult, best: EvalResult| -> RResult<GateDecision> {
            gate_again(&h, &result, choice(&h, &h.options.eval), Some(Ok(&best)))
        },
    );
    let h = host.clone();
    api.primitive(
        "gate",
        move |result: EvalResult, why: rhai::ImmutableString| -> RResult<GateDecision> {
            gate_again(
                &h,
                &result,
                choice(&h, &h.options.eval),
                Some(Err(why.as_str())),
            )
        },
    );
    let h = host.clone();
    api.primitive(
        "measure_best",
        move |result: EvalResult| -> RResult<Dynamic> { measure_best(&h, &result) },
    );
    let h = host.clone();
    api.primitive(
        "check_record_args",
        move |pr: &str, pages: Array| -> RResult<()> {
            let pages = strings(&pages, "pages")?;
            crate::record::check_record_args(&h.ctx.source, Some(pr), &pages)
                .map_err(|e| raise(&h, e))
        },
    );
    let h = host.clone();
    api.primitive(
        "record",
        move |result: EvalResult, decision: GateDecision, pr: &str, pages: Array| -> RResult<GateDecision> {
            if !decision.is_for(&result) {
                return Err(misuse(
                    "record: this decision was not made by `gate` for this result; gate the result first",
                ));
            }
            let pages = strings(&pages, "pages")?;
            let store = crate::eval::evidence_path(&h.ctx, &h.options.eval);
            let crate::ops::Recording { recorded, warnings } = crate::ops::record(
                &h.ctx,
                &result.doc,
                &decision.decision,
                pr,
                &pages,
                &store,
                decision.again.as_deref(),
            )
            .map_err(|e| raise(&h, e))?;
            for warning in warnings {
                h.observer.event(&crate::event::Event::Warning(warning));
            }
            if let Some(note) = recorded.revised_note() {
                h.observer.event(&crate::event::Event::Notice(note));
            }
            Ok(GateDecision {
                decision: Arc::new(recorded.decision),
                result: result.doc.clone(),
                again: decision.again.clone(),
            })
        },
    );
}

/// The source tree and the store, read (and `results/`, written):
/// `list_suites`, `load_suite`, `check`, `evidence`, `load_result`,
/// `load_baseline`, `write_result`.
pub(super) fn register_tree(api: &mut Api, host: &Arc<Host>) {
    let h = host.clone();
    api.primitive("list_suites", move || -> RResult<Array> {
        let names = crate::suite::list(&h.ctx.source).map_err(|e| raise(&h, e))?;
        Ok(names.into_iter().map(Dynamic::from).collect())
    });
    let h = host.clone();
    api.primitive("load_suite", move |item: &str| -> RResult<Map> {
        suite_summary(&h, item).map_err(|e| raise(&h, e))
    });
    let h = host.clone();
    api.primitive("check", move |item: &str| -> RResult<Map> {
        let report = crate::config::ItemName::new(item)
            .and_then(|item| crate::check::check_suites(&h.ctx.source, &[item]))
            .map_err(|e| raise(&h, e))?;
        let mut m = Map::new();
        m.insert("ok".into(), (!report.has_errors()).into());
        m.insert("report".into(), to_dynamic(&report)?);
        Ok(m)
    });
    let h = host.clone();
    api.primitive("evidence", move |item: &str| -> RResult<Dynamic> {
        let summary = || -> crate::Result<Vec<crate::evidence::ListEntry>> {
            let item = crate::config::ItemName::new(item)?;
            let path = crate::eval::evidence_path(&h.ctx, &h.options.eval);
            if !path.exists() {
                return Ok(Vec::new());
            }
            crate::evidence::Store::open_read_only(&path)?.list(&[item.into()])
        };
        let entries = summary().map_err(|e| raise(&h, e))?;
        to_dynamic(&entries)
    });
    let h = host.clone();
    api.primitive("load_result", move |path: &str| -> RResult<EvalResult> {
        load_result(path).map_err(|e| raise(&h, e))
    });
    let h = host.clone();
    api.primitive("load_baseline", move |item: &str| -> RResult<Dynamic> {
        let baseline = crate::config::ItemName::new(item)
            .and_then(|item| crate::document::load_baseline(&h.ctx.source, &item))
            .map_err(|e| raise(&h, e))?;
        to_dynamic(&baseline)
    });
    let h = host.clone();
    api.primitive(
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
