//! What to do next after a decision: every piece of advice the gate gives
//! comes with a command that can be run as it stands (docs/gate.md).

use super::{Condition, SkillEval, Status};

/// The most runs per arm of a case one `--runs` asks for.
const MAX_RUNS: u32 = 50;

/// The commands a decision's advice points to, for one result: its item,
/// model, runs per arm of each case, and the flags it records as evaluated
/// with (the judge, the cases, the store, …), so each command evaluates
/// what was evaluated and reuses the runs kept.
#[derive(Debug, Clone)]
pub(super) struct Commands {
    item: String,
    runs: u32,
    /// ` --model M --flag value …` (no model for the platform's default),
    /// each value one shell word.
    flags: String,
    /// When the flags the result records were left out: the words saying so.
    left_out: Option<String>,
    /// The result measured the best again (`--best` is among its flags).
    best: bool,
}

impl Commands {
    /// The commands for `result`.
    pub(super) fn of(result: &SkillEval) -> Commands {
        let runs = result
            .stats
            .as_ref()
            .map(|s| s.suite.runs_per_arm.ceil().max(1.0) as u32)
            .unwrap_or(3);
        // Its runs are named anew by each command.
        let (words, left_out) = crate::document::flags::same_evaluation(result, &["runs"]);
        let flags = words.iter().map(|w| format!(" {w}")).collect();
        let best = left_out.is_none()
            && result
                .flags
                .as_deref()
                .is_some_and(|f| f.iter().any(|f| f == "--best"));
        Commands {
            item: crate::text::line(&result.item).into_owned(),
            runs,
            flags,
            left_out,
            best,
        }
    }

    /// ` (…)` after a command when the result's flags were left out of it.
    fn caveat(&self) -> String {
        self.left_out
            .as_ref()
            .map(|said| format!(" ({said})"))
            .unwrap_or_default()
    }

    /// Runs per arm after `more` more, at most [`MAX_RUNS`].
    fn total(&self, more: u32) -> u32 {
        self.runs.saturating_add(more).min(MAX_RUNS)
    }

    /// Measure this version again on `more` more runs per arm of each case
    /// (the runs kept in the evidence store are reused: only the new ones are bought).
    pub(super) fn more_runs(&self, more: u32) -> String {
        format!(
            "bob-eval run {} --runs {}{} --out {}-more.json{}",
            self.item,
            self.total(more),
            self.flags,
            self.item,
            self.caveat()
        )
    }

    /// Measure the recorded best's kept version again, fresh, head to head.
    pub(super) fn best_again(&self, more: u32) -> String {
        // A result that measured the best again records `--best` already.
        let best = if self.best { "" } else { " --best" };
        format!(
            "bob-eval run {}{best} --runs {}{} --out {}-best.json{}",
            self.item,
            self.total(more).max(self.runs),
            self.flags,
            self.item,
            self.caveat()
        )
    }

    /// The next steps, each a command: settle a condition within noise on
    /// more runs (the largest number any condition asks for), measure the
    /// best again when the best's own runs are what holds a call back.
    pub(super) fn next(
        &self,
        conditions: &[Condition],
        advice: Option<&crate::stats::GateAdvice>,
        mode: bool,
    ) -> Vec<String> {
        use crate::stats::Advisory;
        let mut more: Option<u32> = None;
        let mut best_again = false;
        let mut no_runs = false;
        for c in conditions {
            if c.status != Status::Fail {
                continue;
            }
            if let Some(n) = c.runs_needed {
                more = Some(more.map_or(n, |m| m.max(n)));
            }
            if c.text.contains("measure the best again") {
                best_again = true;
            }
            if c.text.contains("keeps no runs per case") {
                no_runs = true;
            }
        }
        if !mode && let Some(a) = advice {
            for x in [Some(a.beats_best), Some(a.helps), a.trigger_rate]
                .into_iter()
                .flatten()
            {
                match x {
                    Advisory::WithinNoise {
                        runs_needed: Some(n),
                        ..
                    } => more = Some(more.map_or(n, |m| m.max(n))),
                    Advisory::WithinNoise {
                        runs_needed: None,
                        against_runs: true,
                        ..
                    } => best_again = true,
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        if no_runs {
            out.push(format!(
                "measure it with per-case runs: bob-eval run {}{} --out {}-more.json{}, then gate that file",
                self.item,
                self.flags,
                self.item,
                self.caveat()
            ));
        }
        if let Some(n) = more {
            out.push(format!(
                "settle it on more runs: {} (the runs already kept are reused, so it buys about {} more per arm of each case), then gate that file",
                self.more_runs(n),
                self.total(n) - self.runs.min(self.total(n))
            ));
        }
        if best_again {
            out.push(format!(
                "measure the best again: {}, then bob-eval gate {} RESULT --best-again {}-best.json",
                self.best_again(more.unwrap_or(0)),
                self.item,
                self.item
            ));
        }
        out
    }
}

/// The runs per arm of each case that settle `result`'s suite delta when
/// it is within noise and more runs of this result would settle it: its
/// runs and the more the advisory asks for, at most the most one `--runs`
/// asks for. `None` when the delta is clear, no number of runs would settle
/// it, or the result already holds that most (a command would buy nothing).
/// What `run` and `exam` name the command for (`ops::next::settle`).
pub fn runs_to_settle(result: &SkillEval) -> Option<u32> {
    use crate::stats::Advisory;
    let Some(Advisory::WithinNoise {
        runs_needed: Some(n),
        against_runs: false,
        ..
    }) = result.stats.as_ref().map(|s| &s.suite.advisory)
    else {
        return None;
    };
    let commands = Commands::of(result);
    let total = commands.total(*n);
    (total > commands.runs).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::Commands;
    use crate::document::SkillEval;

    #[test]
    fn measuring_the_best_again_names_best_once() {
        let mut r = SkillEval::measured(&[(&[1.0, 0.0, 1.0], &[0.0, 0.0, 1.0])], None);
        r.model = "default".into();
        let plain = Commands::of(&r).best_again(2);
        assert_eq!(
            plain,
            format!(
                "bob-eval run {0} --best --runs 5 --out {0}-best.json",
                r.item
            )
        );
        // A result that measured the best again already records `--best`.
        r.flags = Some(
            ["--best", "--evidence", "/srv/e.db"]
                .map(String::from)
                .to_vec(),
        );
        assert_eq!(
            Commands::of(&r).best_again(2),
            format!(
                "bob-eval run {0} --runs 5 --best --evidence /srv/e.db --out {0}-best.json",
                r.item
            )
        );
    }
}
