//! The commands a result's advice names, built from the command that
//! evaluated it ([`Invocation`]) and the options that produced it
//! ([`EvalOptions::again_flags`]): a command printed after `run`, `exam`,
//! `propose` or `sweep` evaluates what was evaluated (the same cases,
//! judge, store and platform) and so reuses the runs the evidence store
//! keeps, with only what the advice changes: more runs ([`settle`]) or a
//! ceiling that completes a result cut short ([`Completion`]). The gate,
//! which reads a result from a file and not its options, names its own
//! ([`crate::gate`]'s `next`) from the flags the document records.

use crate::config::{Context, ItemName};
use crate::document::SkillEval;
use crate::eval::EvalOptions;
use crate::eval::estimate::ItemEstimate;
use camino::Utf8PathBuf;

/// How the command that evaluated a result is called again: its verb and
/// the flags of its own beside the evaluation's (`propose`'s `--pr`,
/// `--pages`, …), so the command its advice names is the same command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// `run`, `exam` or `propose`.
    pub verb: &'static str,
    /// Its own flags, each value one shell word.
    pub flags: Vec<String>,
}

impl Invocation {
    /// `bob-eval run`: what a result's advice names when no command of its
    /// own evaluated it (a script's, or a result read from a file).
    pub fn run() -> Invocation {
        Invocation {
            verb: "run",
            flags: Vec::new(),
        }
    }

    /// The command behind the embedded pipeline `name` run with `options`:
    /// `exam`, `propose` (its `--pr`, `--pages`, `--trust-imported` and
    /// `--require-calibrated` given again), else `run` (`sweep` evaluates
    /// each suite as `run` would).
    pub fn of(name: &str, options: &super::PipelineOptions) -> Invocation {
        use crate::text::shell_word as word;
        let mut flags = Vec::new();
        let verb = match name {
            "exam" => "exam",
            "proposer" => {
                if let Some(pr) = &options.pr {
                    flags.extend(["--pr".to_string(), word(pr)]);
                }
                if !options.pages.is_empty() {
                    flags.extend(["--pages".to_string(), word(&options.pages.join(","))]);
                }
                if options.trust_imported {
                    flags.push("--trust-imported".into());
                }
                "propose"
            }
            _ => "run",
        };
        if options.require_calibrated && verb != "run" {
            flags.push("--require-calibrated".into());
        }
        Invocation { verb, flags }
    }
}

/// `bob-eval VERB ITEM FLAGS [--out FILE]`.
fn command(
    invocation: &Invocation,
    item: &ItemName,
    flags: &[String],
    out: Option<&Utf8PathBuf>,
) -> String {
    let mut line = format!("bob-eval {} {item}", invocation.verb);
    for f in invocation.flags.iter().chain(flags) {
        line.push(' ');
        line.push_str(f);
    }
    if let Some(out) = out {
        line.push_str(" --out ");
        line.push_str(&crate::text::shell_word(out.as_str()));
    }
    line
}

/// `options`, the model named as `doc` ran on when the options left it to
/// the environment or settings (unless the platform's default): a command
/// printed now runs on that model wherever it is run.
fn with_model(options: &EvalOptions, doc: &SkillEval) -> EvalOptions {
    let model = options
        .model
        .clone()
        .or_else(|| crate::config::named_model(&doc.model).map(str::to_owned));
    EvalOptions {
        model,
        ..options.clone()
    }
}

/// `settle it on more runs: bob-eval VERB ITEM FLAGS (…)`: `invocation`
/// and the evaluation of `doc` (with `options` when known, a ceiling given
/// included; else on its model and the flags it records) again, on the
/// runs per arm that settle its delta within noise
/// ([`crate::gate::runs_to_settle`]), so the headline's "about N more runs"
/// can be followed as printed. `None` when nothing more would settle it.
pub fn settle(
    invocation: &Invocation,
    doc: &SkillEval,
    options: Option<&EvalOptions>,
    out: Option<&Utf8PathBuf>,
) -> Option<String> {
    let runs = crate::gate::runs_to_settle(doc)?;
    let (flags, left_out) = match options {
        Some(options) => {
            let mut flags = EvalOptions {
                runs: Some(runs),
                auto: None,
                ..with_model(options, doc)
            }
            .again_flags();
            // A ceiling the user chose holds for the runs that settle it too.
            if let Some(ceiling) = options.max_cost_usd {
                flags.extend(["--max-cost-usd".to_string(), ceiling.to_string()]);
            }
            (flags, None)
        }
        // Known from the document alone: the flags it records it was
        // evaluated with, or why they were left out.
        None => {
            let (words, left_out) = crate::document::flags::same_evaluation(doc, &["runs"]);
            let runs = ["--runs".to_string(), runs.to_string()];
            (runs.into_iter().chain(words).collect(), left_out)
        }
    };
    let left_out = left_out.map(|said| format!("; {said}")).unwrap_or_default();
    Some(format!(
        "settle it on more runs: {} (the runs kept in the evidence store are reused{left_out})",
        command(invocation, &doc.item, &flags, out)
    ))
}

/// How to complete an evaluation the cost ceiling cut short: the same
/// evaluation again ([`EvalOptions::again_flags`]) under a ceiling priced
/// from the evidence store, which now keeps the runs it bought, so only
/// the missing runs are bought.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The item.
    pub item: ItemName,
    /// The flags that evaluate the same thing again.
    pub flags: Vec<String>,
    /// The ceiling to complete it under.
    pub ceiling_usd: f64,
    /// `--out FILE` of the evaluation cut short: the completed one goes there.
    pub out: Option<Utf8PathBuf>,
    /// Why that ceiling, in words.
    pub why: String,
}

impl Completion {
    /// `complete it: bob-eval VERB ITEM FLAGS --max-cost-usd C (why)`, the
    /// command `invocation`.
    pub fn command(&self, invocation: &Invocation) -> String {
        format!(
            "complete it: {} --max-cost-usd {:.2} ({})",
            command(invocation, &self.item, &self.flags, self.out.as_ref()),
            self.ceiling_usd,
            self.why
        )
    }

    /// The completion of `doc` evaluated with `options` (and written to
    /// `out`), when the ceiling cut it short (a result replayed from a file
    /// is not completed), priced ([`price`]) from the dry run's estimate of
    /// the same evaluation now and what this result's costliest case paid a
    /// run (a run the ceiling cut short is not kept, so the store may hold
    /// none); twice the ceiling, saying why, when nothing prices the runs or
    /// the estimate fails. Never above the most a ceiling may be.
    pub fn of(
        ctx: &Context,
        item: &ItemName,
        options: &EvalOptions,
        doc: &SkillEval,
        out: Option<&Utf8PathBuf>,
    ) -> Option<Completion> {
        use crate::document::PartialReason;
        if doc.partial_reason != Some(PartialReason::CostCeiling)
            || options.platform_result.is_some()
        {
            return None;
        }
        // Dollars a run as this result paid them, its costliest case's: the
        // runs the ceiling cut short are not kept, so the store may hold none.
        let here = doc
            .cases
            .iter()
            .filter(|c| c.runs > 0)
            .map(|c| c.cost_usd / f64::from(c.runs))
            .fold(0.0, f64::max);
        let twice = |why: String| {
            (
                2.0 * doc.max_cost_usd,
                format!("twice the ceiling: {why}; the runs kept are reused"),
            )
        };
        let (usd, why) = match crate::eval::estimate::estimate(ctx, item, options) {
            Err(e) => twice(format!("the dry run's estimate of the rest failed ({e})")),
            Ok(e) => price(&e, here, doc.max_cost_usd)
                .unwrap_or_else(|| twice("nothing prices the runs still missing".into())),
        };
        let ceiling_usd = crate::config::cents_up(usd).clamp(0.01, crate::config::MAX_COST_USD);
        Some(Completion {
            item: item.clone(),
            flags: with_model(options, doc).again_flags(),
            ceiling_usd,
            out: out.cloned(),
            why,
        })
    }
}

/// The ceiling that completes an evaluation the dry run estimated as `e`,
/// and why: the runs it would buy (under `--runs auto` the most it can
/// buy) at the store's mean cost per run (of the runs it could price), or
/// at `here` (what the result cut short paid a run) when that is dearer,
/// and a quarter more; `ceiling` when it buys nothing. `None` when nothing
/// prices a run.
fn price(e: &ItemEstimate, here: f64, ceiling: f64) -> Option<(f64, String)> {
    if e.buy_runs == 0 {
        return Some((
            ceiling,
            "every run it needs is kept now: it buys nothing".to_string(),
        ));
    }
    let (runs, usd, most) = match &e.auto {
        Some(auto) => (auto.most_runs, auto.most_usd, "at most "),
        None => (e.buy_runs, e.estimate_usd, ""),
    };
    // A run the store cannot price is not in the estimate's dollars.
    let priced = runs.saturating_sub(e.unestimated_runs);
    let stored = usd.filter(|_| priced > 0).map(|u| u / f64::from(priced));
    let (per_run, basis) = match stored {
        Some(s) if s >= here && e.rough => (s, "a rough estimate"),
        Some(s) if s >= here => (s, "the evidence store's mean"),
        _ if here > 0.0 => (here, "what this result's costliest case paid"),
        _ => return None,
    };
    let kept = match e.reuse_runs {
        0 => String::new(),
        n => format!("; the {n} kept are reused"),
    };
    Some((
        1.25 * f64::from(runs) * per_run,
        format!(
            "{most}{runs} runs to buy at ${per_run:.4} a run, {basis}, and a quarter more{kept}"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::{Invocation, settle};
    use crate::document::SkillEval;
    use crate::eval::EvalOptions;

    /// `k` passes of `n` runs.
    fn passes(k: usize, n: usize) -> Vec<f64> {
        (0..n).map(|i| if i < k { 1.0 } else { 0.0 }).collect()
    }

    #[test]
    fn the_settle_command_is_the_same_evaluation_on_more_runs() {
        // 2 of 3 against 1 of 3 on two cases: within noise.
        let two = passes(2, 3);
        let one = passes(1, 3);
        let mut noisy = SkillEval::measured(&[(&two, &one), (&two, &one)], None);
        let total = crate::gate::runs_to_settle(&noisy).expect("more runs settle it");
        // Known only from the document: its model, unless the platform's default.
        noisy.model = "default".into();
        let exam = Invocation::of(
            "exam",
            &crate::ops::PipelineOptions {
                pr: Some("ignored".into()),
                ..Default::default()
            },
        );
        assert_eq!(
            settle(&exam, &noisy, None, None).unwrap(),
            format!(
                "settle it on more runs: bob-eval exam {} --runs {total} (the runs kept in the evidence store are reused)",
                noisy.item
            )
        );
        noisy.model = "haiku".into();
        assert!(
            settle(&Invocation::run(), &noisy, None, None)
                .unwrap()
                .contains(&format!(" --runs {total} --model haiku ("))
        );
        // And the flags it records it was evaluated with, quoted.
        let mut recorded = noisy.clone();
        recorded.flags = Some(
            ["--judge-model", "judge", "--case", "fires *"]
                .map(String::from)
                .to_vec(),
        );
        assert!(
            settle(&Invocation::run(), &recorded, None, None)
                .unwrap()
                .contains(&format!(
                    " --runs {total} --model haiku --judge-model judge --case 'fires *' ("
                ))
        );
        // Flags this version does not record: none of them, saying so.
        recorded.flags = Some(["--claude", "/tmp/x"].map(String::from).to_vec());
        let step = settle(&Invocation::run(), &recorded, None, None).unwrap();
        assert!(
            !step.contains("/tmp/x")
                && step.ends_with(
                    "(the runs kept in the evidence store are reused; without the flags the result records: `--claude` is not a flag bob-eval records)"
                ),
            "{step}"
        );
        // With the options it ran with, what picks and keys its runs goes
        // along (the judge, the store, the cases), `--runs` replaced, the
        // ceiling and `--fresh` left out, the output file kept.
        let options = EvalOptions {
            runs: Some(3),
            max_cost_usd: Some("5".parse().unwrap()),
            judge_model: Some("judge".into()),
            evidence: Some("/srv/e.db".into()),
            cases: vec!["fires".into()],
            fresh: true,
            ..EvalOptions::default()
        };
        let out = camino::Utf8PathBuf::from("my result.json");
        let step = settle(&Invocation::run(), &noisy, Some(&options), Some(&out)).unwrap();
        assert!(
            step.contains(&format!(
                "bob-eval run {} --model haiku --runs {total} --judge-model judge --case fires --evidence /srv/e.db --max-cost-usd 5 --out 'my result.json' (",
                noisy.item
            )),
            "{step}"
        );
        assert!(!step.contains("--fresh"), "{step}");
        // A clear delta: nothing to settle.
        let clear = SkillEval::measured(&[(&[1.0; 20], &[0.0; 20])], None);
        assert_eq!(
            settle(&Invocation::run(), &clear, Some(&options), None),
            None
        );
    }

    #[test]
    fn propose_is_called_again_with_its_own_flags() {
        let options = crate::ops::PipelineOptions {
            pr: Some("#12".into()),
            pages: vec!["commit-skipped-hook".into(), "faq".into()],
            trust_imported: true,
            require_calibrated: true,
            ..Default::default()
        };
        let again = Invocation::of("proposer", &options);
        assert_eq!(again.verb, "propose");
        assert_eq!(
            again.flags,
            [
                "--pr",
                "'#12'",
                "--pages",
                "commit-skipped-hook,faq",
                "--trust-imported",
                "--require-calibrated"
            ]
        );
        // `sweep` evaluates each suite as `run` does; an unknown name too.
        assert_eq!(Invocation::of("sweep", &options), Invocation::run());
    }

    #[test]
    fn the_completion_is_priced_at_the_dearer_of_the_store_and_the_result() {
        use super::price;
        let e: crate::eval::estimate::ItemEstimate = serde_json::from_value(serde_json::json!({
            "schema": "bob-eval-estimate/1", "item": "commit", "model": "haiku",
            "platform_version": null, "fresh": false, "auto_max": null, "cases": [],
            "calls": [], "buy_runs": 8, "reuse_runs": 4, "estimate_usd": 0.8,
            "unestimated_runs": 0, "max_cost_usd": 2.0, "exceeds_ceiling": false,
            "price": null, "rough": false
        }))
        .unwrap();
        // The store's $0.10 a run is dearer than the $0.05 the result paid.
        let (usd, why) = price(&e, 0.05, 2.0).unwrap();
        assert!((usd - 1.0).abs() < 1e-9, "{usd}");
        assert_eq!(
            why,
            "8 runs to buy at $0.1000 a run, the evidence store's mean, and a quarter more; the 4 kept are reused"
        );
        // The result paid more: its price.
        let (usd, why) = price(&e, 0.4, 2.0).unwrap();
        assert!((usd - 4.0).abs() < 1e-9, "{usd}");
        assert!(
            why.contains("what this result's costliest case paid"),
            "{why}"
        );
        // Half the runs unpriced: the store's mean is of the priced half.
        let half = crate::eval::estimate::ItemEstimate {
            unestimated_runs: 4,
            ..e.clone()
        };
        assert!(price(&half, 0.0, 2.0).unwrap().1.contains("$0.2000 a run"));
        // Nothing priced, nothing paid: no price.
        let none = crate::eval::estimate::ItemEstimate {
            estimate_usd: None,
            unestimated_runs: 8,
            ..e.clone()
        };
        assert_eq!(price(&none, 0.0, 2.0), None);
        // Nothing to buy: the ceiling as it was.
        let kept = crate::eval::estimate::ItemEstimate { buy_runs: 0, ..e };
        assert_eq!(price(&kept, 0.4, 2.0).unwrap().0, 2.0);
    }
}
