//! Each judged grader's record against its labels file
//! (`graders/<grader>.labels.json`, [`super::labels`]): what `check` shows,
//! what documents carry, what the gate's `--require-calibrated` reads.

use super::{Suite, labels};
use crate::error::Result;
use crate::stats::calibration::{self, Pair, Record};
use camino::Utf8PathBuf;

/// One judged grader of one case, with its record.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeRecord {
    /// The case's name.
    pub case: String,
    /// The grader's name, as documents name it.
    pub grader: String,
    /// Its labels file (which may not exist yet).
    pub file: Utf8PathBuf,
    /// Its record over the labels given for its current criterion (none: 0 labels).
    pub record: Record,
    /// Those labels, each with the arm of its run (`with`, `without`): what
    /// a document weighs back to its runs.
    pub labels: Vec<(String, Pair)>,
}

impl JudgeRecord {
    /// The command that labels this grader's runs.
    pub fn label_command(&self, item: &str) -> String {
        label_command(item, &self.case, &self.grader)
    }

    /// The record in words ([`words`]).
    pub fn words(&self) -> String {
        words(&self.record)
    }
}

/// The command that labels the runs of `grader` in `case`.
pub fn label_command(item: &str, case: &str, grader: &str) -> String {
    format!("bob-eval label {item} --case {case} --grader {grader}")
}

/// A record in words: labels, TPR and TNR with intervals, κ, the verdict,
/// and stale labels said.
pub fn words(r: &Record) -> String {
    let pct = |x: f64| format!("{:.0} %", x * 100.0);
    let rate = |name: &str, rate: Option<calibration::Rate>, kind: &str| match rate {
        Some(v) => format!("{name} {} [{}, {}]", pct(v.value), pct(v.low), pct(v.high)),
        None => format!("{name} unknown (no {kind} label)"),
    };
    let mut out = if r.labels == 0 {
        "no labels".to_string()
    } else {
        format!(
            "{} label(s): {}, {}, κ {}",
            r.labels,
            rate("TPR", r.tpr, "truly passing"),
            rate("TNR", r.tnr, "truly failing"),
            r.kappa.map_or("undefined".into(), |k| format!("{k:.2}"))
        )
    };
    let level = r.confidence * 100.0;
    out.push_str(&if r.calibrated {
        format!(
            "; calibrated (both {level:.0} % lower bounds ≥ {})",
            r.threshold
        )
    } else {
        format!(
            "; not calibrated (needs both {level:.0} % lower bounds ≥ {})",
            r.threshold
        )
    });
    let stale = labels::stale_words(r.stale as usize);
    if !stale.is_empty() {
        out.push_str("; ");
        out.push_str(&stale);
    }
    if r.other_models > 0 {
        out.push_str(&format!(
            "; {} label(s) were given under another judge model: not counted",
            r.other_models
        ));
    }
    if r.unmodelled > 0 {
        out.push_str(&format!(
            "; {} label(s) name no judge model (given before labels kept it): counted for any judge model",
            r.unmodelled
        ));
    }
    out
}

/// The record of every judged grader (`llm`, `baseline`) of `suite`, in
/// suite order, over all its labels whatever their judge model
/// ([`records_for`] with none asked): what `check` shows before any run.
pub fn records(suite: &Suite, threshold: f64) -> Result<Vec<JudgeRecord>> {
    records_for(suite, threshold, None)
}

/// The record of every judged grader (`llm`, `baseline`) of `suite`, in
/// suite order, over its labels at 95 %, calibrated at `threshold`: those of
/// the judge model `judge_model` (the run's, as its key names it: `default`
/// or a model), and those that name none; all of them when `None`. A grader
/// whose name cannot name a file has no labels (`label` says why). A labels
/// file that cannot be read is an error naming it.
pub fn records_for(
    suite: &Suite,
    threshold: f64,
    judge_model: Option<&str>,
) -> Result<Vec<JudgeRecord>> {
    let mut out = Vec::new();
    for case in &suite.cases {
        for grader in &case.graders {
            if !grader.kind().is_some_and(|k| k.asks_judge()) {
                continue;
            }
            let Ok(file) = labels::path(&suite.dir, &case.dir, &grader.name) else {
                continue;
            };
            let (mut unmodelled, mut other_models) = (0, 0);
            let (given, stale) = match labels::load(&file)? {
                Some(given) => {
                    let (current, stale) = given.current(&labels::criterion_digest(grader));
                    let (counted, other): (Vec<&labels::Label>, Vec<&labels::Label>) =
                        current.into_iter().partition(|l| l.counts_for(judge_model));
                    other_models = other.len();
                    unmodelled = counted.iter().filter(|l| l.judge_model.is_none()).count();
                    let pairs: Vec<(String, Pair)> = counted
                        .iter()
                        .map(|l| {
                            let pair = Pair {
                                human: l.human.passed(),
                                judge: l.judge.passed(),
                            };
                            (l.arm.clone(), pair)
                        })
                        .collect();
                    (pairs, stale)
                }
                None => (Vec::new(), 0),
            };
            let pairs: Vec<Pair> = given.iter().map(|(_, p)| *p).collect();
            let mut record = calibration::record(&pairs, crate::stats::CONFIDENCE, threshold);
            record.stale = u32::try_from(stale).unwrap_or(u32::MAX);
            record.other_models = u32::try_from(other_models).unwrap_or(u32::MAX);
            record.unmodelled = u32::try_from(unmodelled).unwrap_or(u32::MAX);
            out.push(JudgeRecord {
                case: case.name.clone(),
                grader: grader.name.clone(),
                file,
                record,
                labels: given,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite_with_labels(labels_json: Option<&str>) -> (tempfile::TempDir, Suite) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Utf8PathBuf::from_path_buf(tmp.path().join("evals/demo")).unwrap();
        let graders = dir.join("one/graders");
        std::fs::create_dir_all(&graders).unwrap();
        std::fs::write(dir.join("one/prompt.md"), "Say hello.\n").unwrap();
        std::fs::write(
            graders.join("polite.md"),
            "---\ntype: llm\n---\nThe answer greets the user.\n",
        )
        .unwrap();
        std::fs::write(graders.join("hello.md"), "---\ntype: regex\n---\nhello\n").unwrap();
        let suite = crate::suite::load_dir(&dir, &"demo".parse().unwrap());
        if let Some(text) = labels_json {
            std::fs::write(graders.join("polite.labels.json"), text).unwrap();
        }
        (tmp, suite)
    }

    fn labels_text(suite: &Suite, digest_ok: bool, n: usize) -> String {
        let grader = &suite.cases[0]
            .graders
            .iter()
            .find(|g| g.name == "polite")
            .unwrap();
        let digest = if digest_ok {
            labels::criterion_digest(grader)
        } else {
            format!("sha256:{}", "0".repeat(64))
        };
        let labels: Vec<String> = (0..n)
            .map(|i| {
                let human = if i % 2 == 0 { "pass" } else { "fail" };
                format!(
                    r#"{{"run":"r{i}","arm":"with","human":"{human}","judge":"{human}","at":"2026-12-05T08:00:00Z"}}"#
                )
            })
            .collect();
        format!(
            r#"{{"format":"bob-eval-labels/1","grader":"polite","criterion_digest":"{digest}","labels":[{}]}}"#,
            labels.join(",")
        )
    }

    #[test]
    fn only_judged_graders_have_a_record_and_no_file_is_no_labels() {
        let (_tmp, suite) = suite_with_labels(None);
        let records = records(&suite, calibration::DEFAULT_THRESHOLD).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].grader, "polite");
        assert_eq!(records[0].record.labels, 0);
        assert!(!records[0].record.calibrated);
        assert!(records[0].file.ends_with("one/graders/polite.labels.json"));
        assert!(
            records[0].words().starts_with("no labels; not calibrated"),
            "{}",
            records[0].words()
        );
    }

    #[test]
    fn current_labels_count_and_stale_ones_are_said() {
        let (tmp, suite) = suite_with_labels(None);
        let file = tmp.path().join("evals/demo/one/graders/polite.labels.json");
        std::fs::write(&file, labels_text(&suite, true, 40)).unwrap();
        let r = &records(&suite, calibration::DEFAULT_THRESHOLD).unwrap()[0];
        assert_eq!((r.record.labels, r.record.stale), (40, 0));
        assert!(r.record.calibrated, "{}", r.words());
        std::fs::write(&file, labels_text(&suite, false, 12)).unwrap();
        let r = &records(&suite, calibration::DEFAULT_THRESHOLD).unwrap()[0];
        assert_eq!((r.record.labels, r.record.stale), (0, 12));
        assert!(
            r.words()
                .contains("12 labels were given for an earlier criterion; label again"),
            "{}",
            r.words()
        );
    }

    #[test]
    fn a_broken_labels_file_is_an_error_naming_it() {
        let (tmp, suite) = suite_with_labels(None);
        let file = tmp.path().join("evals/demo/one/graders/polite.labels.json");
        std::fs::write(&file, "{\n  \"format\": 3,\n").unwrap();
        let err = records(&suite, 0.8).unwrap_err().to_string();
        assert!(err.contains("polite.labels.json"), "{err}");
    }

    #[test]
    fn a_record_counts_the_labels_of_its_judge_model_and_those_naming_none() {
        let (tmp, suite) = suite_with_labels(None);
        let file = tmp.path().join("evals/demo/one/graders/polite.labels.json");
        // 40 labels: 16 under `opus`, 16 under `haiku`, 8 naming no model.
        let mut value: serde_json::Value =
            serde_json::from_str(&labels_text(&suite, true, 40)).unwrap();
        for (i, label) in value["labels"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            match i {
                0..16 => label["judge_model"] = "opus".into(),
                16..32 => label["judge_model"] = "haiku".into(),
                _ => {}
            }
        }
        std::fs::write(&file, value.to_string()).unwrap();
        let of = |model: Option<&str>| {
            records_for(&suite, calibration::DEFAULT_THRESHOLD, model).unwrap()[0].clone()
        };
        for model in ["opus", "haiku"] {
            let r = of(Some(model));
            assert_eq!(
                (r.record.labels, r.record.unmodelled, r.record.other_models),
                (24, 8, 16)
            );
            let words = r.words();
            assert!(
                words.contains("16 label(s) were given under another judge model: not counted"),
                "{words}"
            );
            assert!(
                words.contains("8 label(s) name no judge model (given before labels kept it): counted for any judge model"),
                "{words}"
            );
        }
        let none = of(Some("sonnet"));
        assert_eq!((none.record.labels, none.record.other_models), (8, 32));
        // No judge model asked (check, before any run): every label.
        let all = &records(&suite, calibration::DEFAULT_THRESHOLD).unwrap()[0];
        assert_eq!((all.record.labels, all.record.other_models), (40, 0));
    }
}
