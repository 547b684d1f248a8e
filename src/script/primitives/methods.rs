//! The opaque types scripts hold, with their read-only properties and methods.

use super::*;

/// A copy of `value` as a Rhai map (`()` when absent): the script reads the
/// intervals and advisories, and what it changes in its copy changes nothing.
pub(super) fn read_only<T: serde::Serialize>(value: &Option<T>) -> Dynamic {
    value
        .as_ref()
        .and_then(|v| to_dynamic(v).ok())
        .unwrap_or(Dynamic::UNIT)
}

pub(super) fn register_types(engine: &mut Engine) {
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
