//! What `sweep` prints on stdout, and `collect` prints again from the shards'
//! folders: the table of verdicts (human) or the rows as JSON.

use crate::document::{Efficiency, FigureKind, SkillEval};
use crate::error::exit;
use crate::eval::ItemOutcome;

/// The verdict column of a suite that did not run.
pub fn not_run_word(exit_code: u8) -> &'static str {
    if exit_code == exit::INCOMPLETE {
        "not run (budget)"
    } else {
        "could not run"
    }
}

fn fixed(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

/// The columns of the sweep's table: those of `run`'s case table, per suite.
const COLUMNS: [&str; 8] = [
    "item", "with", "without", "delta", "verdict", "trigger", "runs", "cost",
];

/// The efficiency columns, added when some suite's document measured it:
/// the cost and turns ratios with/without ([`super::efficiency::ratio_cell`]).
const EFFICIENCY_COLUMNS: [&str; 2] = ["cost×", "turns×"];

/// True when some row's document states its efficiency (documents written
/// before bob-eval measured it do not: their table stays as it was).
fn any_efficiency(rows: &[ItemOutcome]) -> bool {
    rows.iter()
        .any(|r| matches!(&r.outcome, Ok(d) if d.efficiency.is_some()))
}

/// A row's two efficiency cells: `—` for a suite that did not run or whose
/// document has no efficiency.
fn efficiency_cells(doc: Option<&SkillEval>) -> Vec<String> {
    let Some(e) = doc.and_then(|d| d.efficiency.as_ref()) else {
        return vec!["—".to_string(), "—".to_string()];
    };
    [FigureKind::Cost, FigureKind::Turns]
        .iter()
        .map(|k| super::efficiency::ratio_cell(e.suite.figures.get(*k)))
        .collect()
}

/// The human table, a line per suite that could not run, and a line for the
/// suites the budget left unlaunched; each line ends with a newline. The
/// numbers are written as `run` writes them (4 decimals, a signed delta).
/// When some suite measured its efficiency, two columns more (the cost and
/// turns ratios) and their legend under the table.
pub fn human(rows: &[ItemOutcome]) -> String {
    let efficiency = any_efficiency(rows);
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            let mut cells = cells(row);
            if efficiency {
                cells.extend(efficiency_cells(row.outcome.as_deref().ok()));
            }
            cells
        })
        .collect();
    let mut headers: Vec<String> = COLUMNS.iter().map(|h| h.to_string()).collect();
    if efficiency {
        headers.extend(EFFICIENCY_COLUMNS.iter().map(|h| h.to_string()));
    }
    let mut out = crate::text::table(&headers, &lines) + "\n";
    if efficiency {
        out += &super::efficiency::ratio_legend();
        out += "\n";
    }
    let mut unlaunched = Vec::new();
    for row in rows {
        if let Err(f) = &row.outcome {
            if f.unlaunched() {
                unlaunched.push(f);
            } else {
                out += &format!(
                    "{}: could not run (exit {}): {}\n",
                    row.item, f.exit_code, f.message
                );
            }
        }
    }
    if let Some(first) = unlaunched.first() {
        out += &format!("{} suite(s) {}\n", unlaunched.len(), first.message);
    }
    crate::text::block(&out).into_owned()
}

/// A row's cells under [`COLUMNS`].
fn cells(row: &ItemOutcome) -> Vec<String> {
    use super::run::{rate, signed};
    let none = || "—".to_string();
    match &row.outcome {
        Ok(r) => vec![
            crate::text::line(&r.item).into_owned(),
            fixed(r.with, 4),
            fixed(r.without, 4),
            signed(r.delta),
            if r.partial {
                format!("{} (partial)", r.verdict.as_str())
            } else {
                r.verdict.as_str().to_string()
            },
            rate(r.trigger_rate),
            r.cases.iter().map(|c| c.runs).sum::<u32>().to_string(),
            format!("${}", fixed(r.cost_usd, 4)),
        ],
        Err(f) => vec![
            row.item.clone(),
            none(),
            none(),
            none(),
            not_run_word(f.exit_code).to_string(),
            none(),
            none(),
            none(),
        ],
    }
}

/// The rows as pretty JSON (`--json`): per suite `item`, `ok`, `exit_code`,
/// and `result` (its `skill-eval/1` document) or `error`; when the document
/// measured its efficiency, `efficiency` too: the suite's cost and turns
/// ratios ([`efficiency_json`]).
pub fn json(rows: &[ItemOutcome]) -> String {
    let values: Vec<serde_json::Value> = rows
        .iter()
        .map(|row| {
            // Keys in the order the sweep pipeline always printed them (sorted).
            let mut m = serde_json::Map::new();
            match &row.outcome {
                Ok(doc) => {
                    if let Some(e) = &doc.efficiency {
                        m.insert("efficiency".into(), efficiency_json(e));
                    }
                    m.insert("exit_code".into(), 0.into());
                    m.insert("item".into(), row.item.clone().into());
                    m.insert("ok".into(), true.into());
                    m.insert(
                        "result".into(),
                        serde_json::to_value(&**doc).expect("a document serialises"),
                    );
                }
                Err(f) => {
                    m.insert("error".into(), f.message.clone().into());
                    m.insert("exit_code".into(), f.exit_code.into());
                    m.insert("item".into(), row.item.clone().into());
                    m.insert("ok".into(), false.into());
                }
            }
            m.into()
        })
        .collect();
    serde_json::to_string_pretty(&values).expect("rows serialise") + "\n"
}

/// `{"cost_ratio": {...}, "turns_ratio": {...}}`: each suite ratio
/// with/without per run, its interval and `excludes_one` (`null` without an
/// interval); a ratio the document could not form is `null`.
fn efficiency_json(e: &Efficiency) -> serde_json::Value {
    let ratio = |k: FigureKind| -> serde_json::Value {
        e.suite
            .figures
            .get(k)
            .ratio
            .map_or(serde_json::Value::Null, |r| {
                serde_json::json!({
                    "value": r.value,
                    "low": r.low,
                    "high": r.high,
                    "excludes_one": super::efficiency::excludes_one(&r),
                })
            })
    };
    serde_json::json!({
        "confidence": e.confidence,
        "cost_ratio": ratio(FigureKind::Cost),
        "turns_ratio": ratio(FigureKind::Turns),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Failure;

    fn failed(item: &str, exit_code: u8) -> ItemOutcome {
        ItemOutcome {
            item: item.into(),
            outcome: Err(Failure {
                message: format!("{item} failed"),
                exit_code,
            }),
        }
    }

    #[test]
    fn unlaunched_suites_are_one_line() {
        let text = human(&[failed("a", 4), failed("b", 4), failed("c", 3)]);
        assert!(
            text.contains("a     —     —        —      not run (budget)"),
            "{text}"
        );
        assert!(
            text.contains("c: could not run (exit 3): c failed\n"),
            "{text}"
        );
        assert!(text.ends_with("2 suite(s) a failed\n"), "{text}");
    }

    fn ran(item: &str, doc: SkillEval) -> ItemOutcome {
        ItemOutcome {
            item: item.into(),
            outcome: Ok(std::sync::Arc::new(doc)),
        }
    }

    #[test]
    fn the_table_shows_cost_and_turns_ratios_when_a_suite_measured_them() {
        use crate::report::efficiency::tests::doc;
        let dearer = doc(
            (&[0.03, 0.031, 0.029], &[0.01, 0.011, 0.009]),
            (&[3.0; 3], &[3.0; 3]),
        );
        let old = SkillEval::sample(0.9, 0.5);
        let rows = [ran("dearer", dearer), ran("old", old), failed("gone", 3)];
        let text = human(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with("cost×     turns×"), "{text}");
        assert!(lines[2].ends_with("3.00× >1  1.00× ~1"), "{text}");
        // A document written before efficiency was measured, and a suite
        // that did not run: a dash.
        assert!(lines[3].ends_with("—         —"), "{text}");
        assert!(lines[4].ends_with("—         —"), "{text}");
        assert!(
            lines[5].starts_with("cost×, turns×: with/without per run"),
            "{text}"
        );

        let v: serde_json::Value = serde_json::from_str(&json(&rows)).unwrap();
        let e = &v[0]["efficiency"];
        assert_eq!(e["cost_ratio"]["value"], 3.0);
        assert_eq!(e["cost_ratio"]["excludes_one"], true);
        assert_eq!(e["turns_ratio"]["excludes_one"], false);
        assert!(v[1].get("efficiency").is_none(), "{v}");
    }

    #[test]
    fn old_documents_keep_the_table_they_had() {
        let rows = [ran("old", SkillEval::sample(0.9, 0.5)), failed("gone", 3)];
        let text = human(&rows);
        assert!(
            text.lines().next().unwrap().ends_with("runs  cost"),
            "{text}"
        );
        assert!(!text.contains("cost×"), "{text}");
        assert!(!json(&rows).contains("efficiency"));
    }
}
