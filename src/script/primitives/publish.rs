//! `publish`: the typed values a pipeline hands to its command to word.

use super::{
    Api, Arc, Array, Dynamic, EstimateHandle, EvalResult, Failure, GateDecision, Host,
    ImmutableString, ItemOutcome, Map, OutcomeRow, Published, RResult, misuse,
};

/// `rows` as estimates, when they are `estimate`'s (all or none): each an
/// `Estimate` as it is, or a map of the `bob-eval-estimate/1` schema read
/// back into one.
pub(super) fn published_estimates(
    rows: &Array,
) -> RResult<Option<Vec<crate::eval::estimate::ItemEstimate>>> {
    let is_estimate = |v: &Dynamic| {
        v.is::<EstimateHandle>()
            || v.read_lock::<Map>().is_some_and(|m| {
                m.get("schema")
                    .and_then(|s| s.clone().try_cast::<ImmutableString>())
                    .is_some_and(|s| s == crate::eval::estimate::SCHEMA)
            })
    };
    if rows.is_empty() || !rows.iter().all(is_estimate) {
        return Ok(None);
    }
    rows.iter()
        .map(|v| match v.clone().try_cast::<EstimateHandle>() {
            Some(e) => Ok((*e.estimate).clone()),
            None => rhai::serde::from_dynamic(v)
                .map_err(|e| misuse(format!("publish: not an `estimate` map: {e}"))),
        })
        .collect::<RResult<Vec<_>>>()
        .map(Some)
}

/// One element of `publish([…])`: an `evaluate_all` row, a map written
/// like one, or a result.
pub(super) fn published_row(value: &Dynamic) -> RResult<ItemOutcome> {
    if let Some(r) = value.clone().try_cast::<EvalResult>() {
        return Ok(ItemOutcome {
            item: r.doc.item.to_string(),
            outcome: Ok(r.doc),
        });
    }
    if let Some(row) = value.read_lock::<OutcomeRow>() {
        return Ok((*row.outcome).clone());
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
pub(super) fn register_publish(api: &mut Api, host: &Arc<Host>) {
    fn set(host: &Host, published: Published) {
        *host.published.lock().unwrap_or_else(|p| p.into_inner()) = Some(published);
    }
    let h = host.clone();
    api.primitive("publish", move |rows: Array| -> RResult<()> {
        if let Some(estimates) = published_estimates(&rows)? {
            set(&h, Published::Estimates(estimates));
            return Ok(());
        }
        let rows = rows.iter().map(published_row).collect::<RResult<_>>()?;
        set(&h, Published::Outcomes(rows));
        Ok(())
    });
    let h = host.clone();
    api.primitive("publish", move |result: EvalResult| {
        set(
            &h,
            Published::Outcomes(vec![ItemOutcome {
                item: result.doc.item.to_string(),
                outcome: Ok(result.doc),
            }]),
        );
    });
    let h = host.clone();
    api.primitive(
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
