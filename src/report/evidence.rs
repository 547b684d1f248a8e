//! Human output of `bob-eval evidence list`.

use crate::evidence::ListEntry;
use camino::Utf8Path;
use std::fmt::Write;

/// A table: item, case, arm, model, runs, first and last day, cost; then a total.
pub fn list(path: &Utf8Path, entries: &[ListEntry]) -> String {
    let mut out = String::new();
    if entries.is_empty() {
        let _ = writeln!(out, "{path}: no runs kept");
        return out;
    }
    let headers = [
        "item", "case", "arm", "model", "runs", "first", "last", "cost",
    ];
    let rows: Vec<[String; 8]> = entries
        .iter()
        .map(|e| {
            [
                e.item.clone(),
                e.case.clone(),
                e.arm.as_str().to_string(),
                e.model.clone(),
                e.runs.to_string(),
                e.first.format("%Y-%m-%d").to_string(),
                e.last.format("%Y-%m-%d").to_string(),
                format!("${:.4}", e.cost_usd),
            ]
        })
        .collect();
    let mut widths = headers.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count().min(60));
        }
    }
    let line = |cells: Vec<&str>| -> String {
        cells
            .iter()
            .zip(widths)
            .map(|(c, w)| {
                let c: String = c.chars().take(60).collect();
                let pad = w.saturating_sub(c.chars().count());
                format!("{c}{}", " ".repeat(pad))
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let _ = writeln!(out, "{}", line(headers.to_vec()));
    for row in &rows {
        let _ = writeln!(out, "{}", line(row.iter().map(String::as_str).collect()));
    }
    let runs: u64 = entries.iter().map(|e| e.runs).sum();
    let cost: f64 = entries.iter().map(|e| e.cost_usd).sum();
    let _ = writeln!(out, "{runs} run(s) kept in {path}, ${cost:.4} in all");
    out
}
