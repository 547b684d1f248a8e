//! The command-line flags a `skill-eval/1` document records (`flags`): the
//! ones that picked and keyed its runs (the judge, the cases, the tools, the
//! store, …), so that a command built from the document alone (the gate's
//! advice) evaluates the same thing again and reuses the runs kept. One
//! list, read by the writer (`EvalOptions::recorded_flags`) and by every
//! reader. Not recorded: `--runs` and `--model` (the document states
//! them), and how one machine ran the platform (`--claude`, `-j`,
//! `--platform-timeout`): a document read elsewhere names no program to run.

/// What follows a recorded flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// Nothing (`--best`).
    Nothing,
    /// One value (`--case GLOB`).
    Value,
    /// A value or none (`--neighbours [ITEMS]`).
    MaybeValue,
}

/// Every flag a document may record, by its long name.
pub const RECORDED: &[(&str, Takes)] = &[
    ("judge-model", Takes::Value),
    ("case", Takes::Value),
    ("tag", Takes::Value),
    ("allow-tools", Takes::Value),
    ("disallow-tools", Takes::Value),
    ("platform-env", Takes::Value),
    ("evidence", Takes::Value),
    ("mocks", Takes::Value),
    ("allow-real-servers", Takes::Nothing),
    ("scaffold", Takes::Nothing),
    ("no-scaffold", Takes::Nothing),
    ("min-effect", Takes::Value),
    ("neighbours", Takes::MaybeValue),
    ("confidence", Takes::Value),
    ("rule", Takes::Value),
    ("max-cost-ratio", Takes::Value),
    ("best", Takes::Nothing),
];

/// What follows `--name`, when a document may record it.
pub fn takes(name: &str) -> Option<Takes> {
    RECORDED.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// `flags` as a document recorded them, checked: each a `--name` of
/// [`RECORDED`] followed by what it takes. `Err` names the first argument
/// that is not, so a reader uses none of them (a command missing one flag
/// would evaluate something else without saying so).
pub fn checked(flags: &[String]) -> Result<&[String], String> {
    let mut rest = flags.iter().peekable();
    while let Some(arg) = rest.next() {
        let what = arg.strip_prefix("--").and_then(takes).ok_or_else(|| {
            format!(
                "`{}` is not a flag bob-eval records",
                crate::text::line(arg)
            )
        })?;
        let is_value = |v: &&String| !v.starts_with("--");
        match what {
            Takes::Nothing => {}
            Takes::Value => {
                rest.next_if(is_value)
                    .ok_or_else(|| format!("`{arg}` has no value"))?;
            }
            Takes::MaybeValue => {
                rest.next_if(is_value);
            }
        }
    }
    Ok(flags)
}

#[cfg(test)]
mod tests {
    use super::checked;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_string()).collect()
    }

    #[test]
    fn a_document_records_only_known_flags_with_their_values() {
        let good = args(&[
            "--judge-model",
            "haiku",
            "--case",
            "fires",
            "--neighbours",
            "--best",
            "--neighbours",
            "tidy,changelog",
            "--scaffold",
        ]);
        assert_eq!(checked(&good), Ok(good.as_slice()));
        assert_eq!(checked(&[]), Ok(&[][..]));
        // A program to run is never taken from a document.
        assert_eq!(
            checked(&args(&["--claude", "/tmp/evil"])),
            Err("`--claude` is not a flag bob-eval records".into())
        );
        // A value alone, a flag missing its value.
        assert!(checked(&args(&["haiku"])).is_err());
        assert_eq!(
            checked(&args(&["--case", "--best"])),
            Err("`--case` has no value".into())
        );
        assert!(checked(&args(&["--best", "--case"])).is_err());
    }
}
