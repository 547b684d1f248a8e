//! The command-line flags a `skill-eval/1` document records (`flags`): the
//! ones that picked and keyed its runs (the judge, the cases, the tools, the
//! store, …), so that a command built from the document alone (the gate's
//! advice) evaluates the same thing again and reuses the runs kept. One
//! list, read by the writer (`EvalOptions::recorded_flags`) and by every
//! reader. `--runs` is recorded as asked (a result the ceiling cut short
//! holds fewer). Not recorded: `--model` (the document states the model
//! that ran), and how one machine ran the platform (`--claude`, `-j`,
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

/// Every flag a document may record, by its long name: what follows it,
/// and whether it changes what a run measures (it is part of the runs'
/// key: the judge, the cases, the tools, the platform's variables and
/// servers, the scaffold), as opposed to where the runs are kept or how
/// they are decided on.
pub const RECORDED: &[(&str, Takes, bool)] = &[
    ("runs", Takes::Value, false),
    ("judge-model", Takes::Value, true),
    ("case", Takes::Value, true),
    ("tag", Takes::Value, true),
    ("allow-tools", Takes::Value, true),
    ("disallow-tools", Takes::Value, true),
    ("platform-env", Takes::Value, true),
    ("evidence", Takes::Value, false),
    ("mocks", Takes::Value, true),
    ("allow-real-servers", Takes::Nothing, true),
    ("scaffold", Takes::Nothing, true),
    ("no-scaffold", Takes::Nothing, true),
    ("min-effect", Takes::Value, false),
    ("neighbours", Takes::MaybeValue, false),
    ("confidence", Takes::Value, false),
    ("rule", Takes::Value, false),
    ("max-cost-ratio", Takes::Value, false),
    ("best", Takes::Nothing, false),
];

/// The entry of [`RECORDED`] for `--name`, when a document may record it.
fn entry(name: &str) -> Option<&'static (&'static str, Takes, bool)> {
    RECORDED.iter().find(|(n, ..)| *n == name)
}

/// Whether a document may record `--name`.
pub fn is_recorded(name: &str) -> bool {
    entry(name).is_some()
}

/// One recorded flag: its entry in [`RECORDED`] and its value.
type Flag<'a> = (&'static (&'static str, Takes, bool), Option<&'a String>);

/// `flags` read against [`RECORDED`]: each a `--name` of it followed by
/// what it takes. `Err` names the first argument that is not.
fn parse(flags: &[String]) -> Result<Vec<Flag<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = flags.iter().peekable();
    while let Some(arg) = rest.next() {
        let entry = arg.strip_prefix("--").and_then(entry).ok_or_else(|| {
            format!(
                "`{}` is not a flag bob-eval records",
                crate::text::line(arg)
            )
        })?;
        let is_value = |v: &&String| !v.starts_with("--");
        let value = match entry.1 {
            Takes::Nothing => None,
            Takes::Value => Some(
                rest.next_if(is_value)
                    .ok_or_else(|| format!("`{arg}` has no value"))?,
            ),
            Takes::MaybeValue => rest.next_if(is_value),
        };
        out.push((entry, value));
    }
    Ok(out)
}

/// `flags` as a document recorded them, checked ([`parse`]), but those
/// named in `names` and their values: what a command that gives them anew
/// passes on (its own `--runs`, say). `Err` names the first argument that
/// is not a recorded flag or lacks its value, so a reader uses none of them
/// (a command missing one flag would evaluate something else without
/// saying so).
pub fn but(flags: &[String], names: &[&str]) -> Result<Vec<String>, String> {
    Ok(parse(flags)?
        .into_iter()
        .filter(|((name, ..), _)| !names.contains(name))
        .flat_map(|((name, ..), value)| std::iter::once(format!("--{name}")).chain(value.cloned()))
        .collect())
}

/// The values of every `--name` in `flags`, in order. `Err` as [`but`].
pub fn values<'a>(flags: &'a [String], name: &str) -> Result<Vec<&'a String>, String> {
    Ok(parse(flags)?
        .into_iter()
        .filter(|((n, ..), _)| *n == name)
        .filter_map(|(_, value)| value)
        .collect())
}

/// The flags `doc` records that change what a run measures, each with
/// its value, in one order (the order given does not matter): two results
/// compare like for like only when theirs are the same. `--platform-env`
/// is read from the values the document states (`NAME` alone passes the
/// operator's value, which may differ between two runs). `Err` as
/// [`but`].
pub fn measuring(doc: &super::SkillEval) -> Result<Vec<String>, String> {
    let word = crate::text::shell_word;
    let mut out: Vec<String> = parse(doc.flags.as_deref().unwrap_or_default())?
        .into_iter()
        .filter(|((name, _, keyed), _)| *keyed && *name != "platform-env")
        .map(|((name, ..), value)| match value {
            Some(v) => format!("--{name} {}", word(v)),
            None => format!("--{name}"),
        })
        .collect();
    out.extend(
        doc.platform_env
            .iter()
            .flatten()
            .map(|(name, value)| format!("--platform-env {}", word(&format!("{name}={value}")))),
    );
    out.sort();
    Ok(out)
}

/// `doc`'s evaluation as command-line words: `--model M` (unless it ran
/// on the platform's default) and the flags it records but those named in
/// `names`, each value one shell word. With the model alone, and the words
/// a command says it with ("without the flags the result records: …"),
/// when its flags cannot be read; a document that records none gives the
/// model alone.
pub fn same_evaluation(doc: &super::SkillEval, names: &[&str]) -> (Vec<String>, Option<String>) {
    let mut words: Vec<String> = crate::config::named_model(&doc.model)
        .map(|m| vec!["--model".into(), crate::text::shell_word(m)])
        .unwrap_or_default();
    match but(doc.flags.as_deref().unwrap_or_default(), names) {
        Ok(flags) => {
            words.extend(flags.iter().map(|f| crate::text::shell_word(f)));
            (words, None)
        }
        Err(why) => (
            words,
            Some(format!("without the flags the result records: {why}")),
        ),
    }
}

/// How `theirs` (the flags of another result that change what a run
/// measures, [`measuring`]) differ from `mine`, in words: "--judge-model
/// a, this result none of them"; `None` when they are the same.
pub fn unlike(mine: &[String], theirs: &[String]) -> Option<String> {
    let words = |flags: &[String]| match flags {
        [] => "none of them".to_string(),
        flags => flags.join(" "),
    };
    (mine != theirs).then(|| format!("{}, this result {}", words(theirs), words(mine)))
}

#[cfg(test)]
mod tests {
    use super::{but, measuring};

    #[test]
    fn like_for_like_reads_the_flags_that_change_what_a_run_measures() {
        let doc = |words: &[&str]| crate::document::SkillEval {
            flags: Some(args(words)),
            ..crate::document::SkillEval::sample(0.9, 0.5)
        };
        let a = doc(&[
            "--case",
            "b",
            "--judge-model",
            "j",
            "--evidence",
            "x.db",
            "--best",
            "--case",
            "a",
        ]);
        let b = doc(&[
            "--judge-model",
            "j",
            "--case",
            "a",
            "--case",
            "b",
            "--rule",
            "bare",
        ]);
        assert_eq!(measuring(&a), measuring(&b));
        assert_eq!(
            measuring(&a).unwrap(),
            ["--case a", "--case b", "--judge-model j"]
        );
        assert_ne!(
            measuring(&a),
            measuring(&doc(&["--case", "a", "--case", "b"]))
        );
        assert!(measuring(&doc(&["--claude", "x"])).is_err());
        // The runs asked do not change what a run measures; a command with
        // runs of its own passes the rest on.
        let runs = args(&["--runs", "auto:24", "--judge-model", "j", "--neighbours"]);
        assert_eq!(
            measuring(&doc(&["--runs", "auto:24", "--judge-model", "j"])).unwrap(),
            ["--judge-model j"]
        );
        assert_eq!(
            but(&runs, &["runs"]).unwrap(),
            ["--judge-model", "j", "--neighbours"]
        );
        // A variable passed by name is compared by the value it had.
        let mut one = doc(&["--platform-env", "GREETING"]);
        one.platform_env = Some([("GREETING".to_string(), "hi there".to_string())].into());
        let mut other = one.clone();
        other.platform_env = Some([("GREETING".to_string(), "bye".to_string())].into());
        assert_eq!(
            measuring(&one).unwrap(),
            ["--platform-env 'GREETING=hi there'"]
        );
        assert_ne!(measuring(&one), measuring(&other));
    }

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
        assert_eq!(but(&good, &[]), Ok(good.clone()));
        assert_eq!(but(&[], &[]), Ok(vec![]));
        // A program to run is never taken from a document.
        assert_eq!(
            but(&args(&["--claude", "/tmp/evil"]), &[]),
            Err("`--claude` is not a flag bob-eval records".into())
        );
        // A value alone, a flag missing its value.
        assert!(but(&args(&["haiku"]), &[]).is_err());
        assert_eq!(
            but(&args(&["--case", "--best"]), &[]),
            Err("`--case` has no value".into())
        );
        assert!(but(&args(&["--best", "--case"]), &[]).is_err());
    }
}
