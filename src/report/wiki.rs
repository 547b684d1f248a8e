//! Human output of `bob-eval check-wiki`.

use crate::wiki::WikiReport;
use std::fmt::Write;

/// One line per bad row (with the row itself), then a count; or one line saying all is well.
pub fn render(report: &WikiReport) -> String {
    let mut out = String::new();
    let (file, rows) = (&report.file, report.rows);
    if report.problems.is_empty() {
        let _ = writeln!(
            out,
            "{file}: {rows} row(s), all well-formed, every cited page exists"
        );
        return out;
    }
    for p in &report.problems {
        let _ = writeln!(
            out,
            "{file}:{}: {}\n    {}",
            p.line,
            p.message,
            crate::text::line(p.text.trim())
        );
    }
    let _ = writeln!(out, "{} problem(s) in {rows} row(s)", report.problems.len());
    out
}
