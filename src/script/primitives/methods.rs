//! The opaque types scripts hold, with their read-only properties and methods.

use super::{
    Array, CaseResult, Dynamic, Engine, EstimateHandle, EvalResult, GateDecision, KEYS, Map,
    Options, OutcomeRow, PluginHandle, ROW_KEYS, RResult, Raised, RunHandle, cases, misuse,
    opt_f64, opt_int, opt_str, options_value, property, row_property, set, status_str, to_dynamic,
};

/// A copy of `value` as a Rhai map (`()` when absent): the script reads the
/// intervals and advisories, and what it changes in its copy changes nothing.
pub(super) fn read_only<T: serde::Serialize>(value: &Option<T>) -> Dynamic {
    value
        .as_ref()
        .and_then(|v| to_dynamic(v).ok())
        .unwrap_or(Dynamic::UNIT)
}

/// The properties a script may read, per opaque type, in the order
/// registered; filled by [`register_types`] from the registration itself.
static PROPERTIES: std::sync::OnceLock<Vec<(&'static str, Vec<&'static str>)>> =
    std::sync::OnceLock::new();

/// Each opaque type's name and the properties a script may read on it (an
/// unknown one is an error that lists these); empty until an engine was built.
pub fn properties() -> &'static [(&'static str, Vec<&'static str>)] {
    PROPERTIES.get().map_or(&[], Vec::as_slice)
}

/// An engine being given its opaque types: each type and getter is registered
/// and named at once.
struct Props<'e> {
    engine: &'e mut Engine,
    types: Vec<(std::any::TypeId, &'static str, Vec<&'static str>)>,
}

impl Props<'_> {
    /// Register `T` under the name scripts see.
    fn of<T: std::any::Any + Clone + Send + Sync>(&mut self, name: &'static str) {
        self.engine.register_type_with_name::<T>(name);
        self.types
            .push((std::any::TypeId::of::<T>(), name, Vec::new()));
    }

    /// Register the read-only property `name` of `T` (registered first with [`Props::of`]).
    fn get<T, R>(
        &mut self,
        name: &'static str,
        getter: impl Fn(&mut T) -> R + Send + Sync + 'static,
    ) where
        T: std::any::Any + Clone + Send + Sync,
        R: std::any::Any + Clone + Send + Sync,
    {
        let id = std::any::TypeId::of::<T>();
        let (_, _, names) = self
            .types
            .iter_mut()
            .find(|(t, _, _)| *t == id)
            .expect("a type is registered before its properties");
        names.push(name);
        self.engine.register_get(name, getter);
    }
}

pub(super) fn register_types(engine: &mut Engine) {
    let mut props = Props {
        engine,
        types: Vec::new(),
    };
    register_result(&mut props);
    register_case(&mut props);
    register_decision(&mut props);
    register_handles(&mut props);
    register_options(&mut props);
    register_estimate(&mut props);
    register_row(&mut props);
    PROPERTIES.get_or_init(|| {
        props
            .types
            .into_iter()
            .map(|(_, name, names)| (name, names))
            .collect()
    });
}

/// A result's properties (`EvalResult`): the document's figures, read-only.
fn register_result(props: &mut Props) {
    props.of::<EvalResult>("EvalResult");
    props.get("item", |r: &mut EvalResult| r.doc.item.to_string());
    props.get("run", |r: &mut EvalResult| r.doc.run.clone());
    props.get("date", |r: &mut EvalResult| r.doc.date.clone());
    props.get("model", |r: &mut EvalResult| r.doc.model.clone());
    props.get("with_score", |r: &mut EvalResult| r.doc.with);
    props.get("without_score", |r: &mut EvalResult| r.doc.without);
    props.get("delta", |r: &mut EvalResult| r.doc.delta);
    props.get("verdict", |r: &mut EvalResult| {
        r.doc.verdict.as_str().to_string()
    });
    props.get("trigger_rate", |r: &mut EvalResult| {
        opt_f64(r.doc.trigger_rate)
    });
    props.get("fires_rate", |r: &mut EvalResult| opt_f64(r.doc.fires_rate));
    props.get("quiet_rate", |r: &mut EvalResult| opt_f64(r.doc.quiet_rate));
    props.get("trigger_problem", |r: &mut EvalResult| {
        r.doc
            .trigger_problem()
            .map_or(Dynamic::UNIT, |w| w.to_string().into())
    });
    props.get("cost_usd", |r: &mut EvalResult| r.doc.cost_usd);
    props.get("noise", |r: &mut EvalResult| -> Dynamic {
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
    // The same command again on the runs that would settle a delta within noise.
    props.get("settle", |r: &mut EvalResult| -> Dynamic {
        crate::ops::next::settle(&r.invocation, &r.doc, r.options.as_deref(), None)
            .map_or(Dynamic::UNIT, Dynamic::from)
    });
    // The same command again under a ceiling that completes a result it cut short.
    props.get("complete", |r: &mut EvalResult| -> Dynamic {
        r.complete
            .as_ref()
            .map_or(Dynamic::UNIT, |c| c.command(&r.invocation).into())
    });
    props.get("stats", |r: &mut EvalResult| read_only(&r.doc.stats));
    props.get("efficiency", |r: &mut EvalResult| {
        read_only(&r.doc.efficiency)
    });
    props.get("efficiency_finding", |r: &mut EvalResult| {
        r.doc
            .efficiency_headline()
            .map_or(Dynamic::UNIT, Dynamic::from)
    });
    props.get("scored_by_trigger", |r: &mut EvalResult| -> Array {
        r.doc
            .scored_by_trigger()
            .map(|c| crate::document::scored_by_trigger_words(&c.name).into())
            .collect()
    });
    props.get("neighbours", |r: &mut EvalResult| {
        read_only(&r.doc.neighbours)
    });
    props.get("neighbour_findings", |r: &mut EvalResult| -> Array {
        r.doc
            .neighbours
            .as_ref()
            .map(crate::eval::neighbours::findings)
            .unwrap_or_default()
            .into_iter()
            .map(Dynamic::from)
            .collect()
    });
    props.get("suite_errors", |r: &mut EvalResult| -> Array {
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
    props.get("reused_runs", |r: &mut EvalResult| {
        i64::from(r.doc.reused_runs.unwrap_or(0))
    });
    props.get("imported_runs", |r: &mut EvalResult| {
        i64::from(r.doc.imported_runs.unwrap_or(0))
    });
    props.get("reused_cost_usd", |r: &mut EvalResult| {
        r.doc.reused_cost_usd.unwrap_or(0.0)
    });
    props.get("max_cost_usd", |r: &mut EvalResult| r.doc.max_cost_usd);
    props.get("partial", |r: &mut EvalResult| r.doc.partial);
    props.get("partial_reason", |r: &mut EvalResult| {
        r.doc
            .partial_reason
            .as_ref()
            .map_or(Dynamic::UNIT, |r| r.to_string().into())
    });
    props.get("cases", |r: &mut EvalResult| cases(&r.doc));
    props.engine.register_fn("to_string", |r: &mut EvalResult| {
        format!(
            "EvalResult({} {} on {}: with {} without {})",
            r.doc.item,
            r.doc.verdict.as_str(),
            r.doc.model,
            r.doc.with,
            r.doc.without
        )
    });
    props.engine.register_fn("to_debug", |r: &mut EvalResult| {
        format!("EvalResult({})", r.doc.run)
    });
}

/// A case's properties (`Case`, from `result.cases`).
fn register_case(props: &mut Props) {
    props.of::<CaseResult>("Case");
    props.get("name", |c: &mut CaseResult| c.case.name.clone());
    props.get("with_score", |c: &mut CaseResult| c.case.with);
    props.get("without_score", |c: &mut CaseResult| {
        opt_f64(c.case.without)
    });
    props.get("delta", |c: &mut CaseResult| opt_f64(c.case.delta));
    props.get("verdict", |c: &mut CaseResult| {
        c.case.verdict.map_or(Dynamic::UNIT, |v| v.as_str().into())
    });
    props.get("trigger_rate", |c: &mut CaseResult| {
        opt_f64(c.case.trigger_rate)
    });
    props.get("fires_rate", |c: &mut CaseResult| {
        opt_f64(c.case.fires_rate)
    });
    props.get("quiet_rate", |c: &mut CaseResult| {
        opt_f64(c.case.quiet_rate)
    });
    props.get("cost_usd", |c: &mut CaseResult| c.case.cost_usd);
    props.get("runs", |c: &mut CaseResult| i64::from(c.case.runs));
    props.get("graders", |c: &mut CaseResult| -> Array {
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
    props.get("stats", |c: &mut CaseResult| read_only(&c.case.stats));
    props.engine.register_fn("to_string", |c: &mut CaseResult| {
        format!("Case({} {})", c.case.name, c.case.with)
    });
    props.engine.register_fn("to_debug", |c: &mut CaseResult| {
        format!("Case({})", c.case.name)
    });
}

/// A decision's properties (`GateDecision`), with its reasons and advice.
fn register_decision(props: &mut Props) {
    props.of::<GateDecision>("GateDecision");
    props.get("accepted", |d: &mut GateDecision| d.decision.accepted);
    // The code `gate` and `propose` exit with for it, from the one mapping.
    props.get("exit_code", |d: &mut GateDecision| {
        i64::from(crate::error::exit::code(
            &crate::error::exit::Conclusion::Decided {
                accepted: d.decision.accepted,
            },
        ))
    });
    props.get("reasons", |d: &mut GateDecision| -> Array {
        d.decision
            .reasons()
            .into_iter()
            .map(Dynamic::from)
            .collect()
    });
    props.get("conditions", |d: &mut GateDecision| -> Array {
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
    props.get("best", |d: &mut GateDecision| -> Dynamic {
        d.decision
            .best
            .as_ref()
            .and_then(|b| rhai::serde::to_dynamic(b).ok())
            .unwrap_or(Dynamic::UNIT)
    });
    props.get("item", |d: &mut GateDecision| d.decision.item.clone());
    props.get("confidence", |d: &mut GateDecision| -> Dynamic {
        d.decision
            .confidence
            .map_or(Dynamic::UNIT, Dynamic::from_float)
    });
    props.get("advice", |d: &mut GateDecision| -> Array {
        ["beats-best", "helps", "trigger-rate"]
            .into_iter()
            .filter_map(|name| {
                d.decision
                    .advice_words(name)
                    .map(|words| Dynamic::from(format!("{name}: {words}")))
            })
            .collect()
    });
    props.get("saturated", |d: &mut GateDecision| {
        d.decision
            .saturated
            .clone()
            .map_or(Dynamic::UNIT, Into::into)
    });
    props.get("advisories", |d: &mut GateDecision| {
        read_only(&d.decision.advice)
    });
    props.get("suite_change", |d: &mut GateDecision| {
        d.decision
            .suite_change
            .clone()
            .map_or(Dynamic::UNIT, Into::into)
    });
    props.get("model", |d: &mut GateDecision| d.decision.model.clone());
    props.get("rule", |d: &mut GateDecision| -> Dynamic {
        serde_json::to_value(d.decision.rule)
            .ok()
            .and_then(|v| v.as_str().map(|s| Dynamic::from(s.to_string())))
            .unwrap_or(Dynamic::UNIT)
    });
    props.get("may_be_luck", |d: &mut GateDecision| -> Array {
        if d.decision.accepted && d.decision.confidence.is_none() {
            d.decision
                .within_noise()
                .into_iter()
                .map(|n| Dynamic::from(n.to_string()))
                .collect()
        } else {
            Array::new()
        }
    });
    props.get("next", |d: &mut GateDecision| -> Array {
        d.decision.next.iter().cloned().map(Dynamic::from).collect()
    });
    props.get("best_measured", |d: &mut GateDecision| {
        d.decision
            .best_measured
            .clone()
            .map_or(Dynamic::UNIT, Into::into)
    });
    props
        .engine
        .register_fn("to_string", |d: &mut GateDecision| {
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
    props
        .engine
        .register_fn("to_debug", |d: &mut GateDecision| {
            format!("GateDecision({})", d.decision.item)
        });
}

/// The handles between steps (`Plugin`, `PlatformOutput`) and a raised `Error`.
fn register_handles(props: &mut Props) {
    props.of::<PluginHandle>("Plugin");
    props.get("name", |p: &mut PluginHandle| {
        crate::item::plugin_name(&p.item)
    });
    props.get("item", |p: &mut PluginHandle| p.item.clone());
    props.of::<RunHandle>("PlatformOutput");
    props.get("exit_code", |p: &mut RunHandle| -> Dynamic {
        p.run
            .output
            .as_ref()
            .map_or(Dynamic::UNIT, |o| Dynamic::from_int(i64::from(o.exit_code)))
    });

    props.of::<Raised>("Error");
    props.get("message", |e: &mut Raised| e.message.clone());
    props.get("exit_code", |e: &mut Raised| i64::from(e.exit_code));
    props
        .engine
        .register_fn("to_string", |e: &mut Raised| e.message.clone());
    props
        .engine
        .register_fn("to_debug", |e: &mut Raised| format!("Error({})", e.message));
}

/// The command's options (`Options`, from `options()`): every key read as a
/// property or by index, and set the same two ways under the rule of `opts`
/// (a bad value stops the script at the assignment).
fn register_options(props: &mut Props) {
    props.of::<Options>("Options");
    for &key in KEYS {
        props.get(key, move |o: &mut Options| {
            property(o, key).unwrap_or(Dynamic::UNIT)
        });
        props
            .engine
            .register_set(key, move |o: &mut Options, v: Dynamic| -> RResult<()> {
                set(o, key, &v).map_err(misuse)
            });
    }
    let unknown = |key: &str| {
        misuse(format!(
            "Options has no `{key}`; it has: {}",
            KEYS.join(", ")
        ))
    };
    props
        .engine
        .register_indexer_get(move |o: &mut Options, key: &str| -> RResult<Dynamic> {
            property(o, key).ok_or_else(|| unknown(key))
        });
    props.engine.register_indexer_set(
        move |o: &mut Options, key: &str, v: Dynamic| -> RResult<()> {
            if !KEYS.contains(&key) {
                return Err(unknown(key));
            }
            set(o, key, &v).map_err(misuse)
        },
    );
    props.engine.register_fn("to_string", |o: &mut Options| {
        let shown = options_value(o, 0).unwrap_or_default();
        format!("Options({shown})")
    });
    props.engine.register_fn("to_debug", |o: &mut Options| {
        format!("Options({})", o.pipeline.item.as_deref().unwrap_or(""))
    });
}

/// A dry run's estimate (`Estimate`): each key of its document read by
/// index (`e["cases"]`) or, through Rhai's fallback to the indexer, as a
/// property (`e.buy_runs`), a copy as a map would give it.
fn register_estimate(props: &mut Props) {
    props.of::<EstimateHandle>("Estimate");
    props
        .engine
        .register_indexer_get(|e: &mut EstimateHandle, key: &str| -> RResult<Dynamic> {
            let doc = to_dynamic(&*e.estimate)?.cast::<Map>();
            doc.get(key).cloned().ok_or_else(|| {
                let known: Vec<&str> = doc.keys().map(|k| k.as_str()).collect();
                misuse(format!(
                    "Estimate has no `{key}`; it has: {}",
                    known.join(", ")
                ))
            })
        });
    props
        .engine
        .register_fn("to_string", |e: &mut EstimateHandle| {
            format!(
                "Estimate({}: buy {}, reuse {})",
                e.estimate.item, e.estimate.buy_runs, e.estimate.reuse_runs
            )
        });
    props
        .engine
        .register_fn("to_debug", |e: &mut EstimateHandle| {
            format!("Estimate({})", e.estimate.item)
        });
}

/// An `evaluate_all` row (`Row`): each key of the map it replaces read as
/// a property or by index ([`row_property`]), and `"error" in row` as for a
/// map (the key of the two it lacks reads `()` and is not in it).
fn register_row(props: &mut Props) {
    props.of::<OutcomeRow>("Row");
    for &key in ROW_KEYS {
        props.get(key, move |r: &mut OutcomeRow| {
            row_property(r, key).unwrap_or(Dynamic::UNIT)
        });
    }
    props
        .engine
        .register_indexer_get(|r: &mut OutcomeRow, key: &str| -> RResult<Dynamic> {
            row_property(r, key).ok_or_else(|| {
                misuse(format!(
                    "Row has no `{key}`; it has: {}",
                    ROW_KEYS.join(", ")
                ))
            })
        });
    props
        .engine
        .register_fn("contains", |r: &mut OutcomeRow, key: &str| {
            row_property(r, key).is_some_and(|v| !v.is_unit())
        });
    props.engine.register_fn("to_string", |r: &mut OutcomeRow| {
        let o = &r.outcome;
        match &o.outcome {
            Ok(doc) => format!("Row({}: {})", o.item, doc.verdict.as_str()),
            Err(failure) => format!("Row({} failed: {})", o.item, failure.message),
        }
    });
    props.engine.register_fn("to_debug", |r: &mut OutcomeRow| {
        format!("Row({})", r.outcome.item)
    });
}
