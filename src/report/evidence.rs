//! Human output of `bob-eval evidence list`.

use crate::evidence::ListEntry;
use camino::Utf8Path;

/// A table (the same one scripts' `table` draws): item, case, arm, model,
/// runs, first and last day, cost; then a total.
pub fn list(path: &Utf8Path, entries: &[ListEntry]) -> String {
    if entries.is_empty() {
        return format!("{path}: no runs kept\n");
    }
    let headers: Vec<String> = [
        "item", "case", "arm", "model", "runs", "first", "last", "cost",
    ]
    .map(String::from)
    .to_vec();
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            vec![
                e.item.clone(),
                e.case.chars().take(60).collect(),
                e.arm.as_str().to_string(),
                e.model.clone(),
                e.runs.to_string(),
                e.first.format("%Y-%m-%d").to_string(),
                e.last.format("%Y-%m-%d").to_string(),
                format!("${:.4}", e.cost_usd),
            ]
        })
        .collect();
    let runs: u64 = entries.iter().map(|e| e.runs).sum();
    let cost = crate::document::sum_usd(entries.iter().map(|e| e.cost_usd));
    format!(
        "{}\n{runs} run(s) kept in {path}, ${cost:.4} in all\n",
        crate::script::table::render(&headers, &rows)
    )
}
