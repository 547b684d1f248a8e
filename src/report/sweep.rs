//! What `sweep` prints on stdout, and `collect` prints again from the shards'
//! folders: the table of verdicts (human) or the rows as JSON.

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

/// The human table, a line per suite that could not run, and a line for the
/// suites the budget left unlaunched; each line ends with a newline. The
/// numbers are written as `run` writes them (4 decimals, a signed delta).
pub fn human(rows: &[ItemOutcome]) -> String {
    use super::run::{rate, signed};
    let none = || "—".to_string();
    let lines: Vec<Vec<String>> = rows
        .iter()
        .map(|row| match &row.outcome {
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
        })
        .collect();
    let headers: Vec<String> = COLUMNS.iter().map(|h| h.to_string()).collect();
    let mut out = crate::text::table(&headers, &lines) + "\n";
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

/// The rows as pretty JSON (`--json`): per suite `item`, `ok`, `exit_code`,
/// and `result` (its `skill-eval/1` document) or `error`.
pub fn json(rows: &[ItemOutcome]) -> String {
    let values: Vec<serde_json::Value> = rows
        .iter()
        .map(|row| {
            // Keys in the order the sweep pipeline always printed them (sorted).
            let mut m = serde_json::Map::new();
            match &row.outcome {
                Ok(doc) => {
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
}
