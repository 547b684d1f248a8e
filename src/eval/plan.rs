//! What an evaluation needs from the evidence store: the suite's cases as the
//! run will count them (selected by `--case`/`--tag`, their runs per arm,
//! their contents' digests), the key of each case and arm, and which runs to
//! buy. Then the document made from exactly the runs used.

use crate::document::SkillEval;
use crate::error::{Error, Result};
use crate::evidence::{Arm, CaseKey, RunKey, Store, StoredRun};
use crate::platform::Ablation;
use crate::reduce::{FoldCase, ReduceContext, Totals, TriggerDef};
use crate::stats::TOP_UP;
use camino::Utf8Path;

/// One case of the suite as the evaluation counts it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCase {
    /// Its name.
    pub name: String,
    /// Digest of its folder.
    pub digest: String,
    /// Runs per arm the document is made from (`--runs`, else the case's `runs`, else 3).
    pub runs: u32,
    /// Its trigger graders (`tool_used` on `Skill`).
    pub triggers: Vec<PlannedTrigger>,
    /// True when every grader of the case is a with-only indicator: the
    /// platform then scores them all (the case is scored by its trigger).
    pub only_with_only: bool,
    /// Its `context.scaffold_script`, when it has one: then whether the
    /// script ran (`--scaffold`) or not (`--no-scaffold`) is in its key.
    pub scaffold_script: Option<String>,
    /// Its graders a judge model grades (`llm`, `baseline`): what the
    /// judge's part of an estimate counts.
    pub judges: u32,
}

/// A trigger grader (`tool_used` on `Skill`) of a planned case.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedTrigger {
    /// The grader's name.
    pub name: String,
    /// Quiet-side (`max: 0`).
    pub quiet: bool,
    /// Its `arm:`, when set (`both` keeps it scored on both arms).
    pub arm: Option<String>,
}

/// The cases of one evaluation and what keys their runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The item.
    pub item: crate::config::ItemName,
    /// Digest of the item's files.
    pub item_digest: String,
    /// The selected cases, in suite order.
    pub cases: Vec<PlannedCase>,
    /// True when `--case`/`--tag` left some of the suite's cases out.
    pub filtered: bool,
    /// The key parts of every case of the suite ([`case_key`]), selected or
    /// not: a platform result holding more cases than asked for is still
    /// kept whole.
    pub all_cases: std::collections::BTreeMap<String, CaseKey>,
    /// The model as asked.
    pub model: String,
    /// The judge model as asked (`default` when not named).
    pub judge_model: String,
    /// Each judged grader's record against its labels (every case of the
    /// suite): documents carry them with the corrected scores.
    pub judge_records: Vec<crate::suite::judges::JudgeRecord>,
    /// The tool grants (`--allow-tools`, then `!`-marked `--disallow-tools`).
    pub tools: Vec<String>,
    /// Digest of the other options that change an outcome.
    pub options: String,
    /// The variables opted into with `--platform-env` (in `options`).
    pub platform_env: std::collections::BTreeMap<String, String>,
    /// Whether scaffold scripts run (`--scaffold`); keyed only for the cases
    /// that have one.
    pub scaffold: bool,
}

/// The judge model in the key of a case no judge grades: what a run bought
/// without `--judge-model` was keyed with, so such runs stay reusable.
pub const NO_JUDGE: &str = "default";

/// The one rule for a case's own key parts: its folder's `digest`; the judge
/// model only when a judge grades it (`judged`: an `llm` or `baseline`
/// grader), else [`NO_JUDGE`]; and the scaffold choice in its options only
/// when it has a scaffold script (`scaffolded`). Runs are stored and looked
/// up under these parts alike.
pub fn case_key(
    digest: String,
    judged: bool,
    scaffolded: bool,
    judge_model: &str,
    options: &str,
    scaffold: bool,
) -> CaseKey {
    CaseKey {
        digest,
        judge_model: if judged { judge_model } else { NO_JUDGE }.to_string(),
        options: if scaffolded {
            crate::evidence::options_digest(&[
                ("options", options),
                ("scaffold", if scaffold { "run" } else { "skipped" }),
            ])
        } else {
            options.to_string()
        },
    }
}

/// Does glob `pattern` (`*`, `?`, `[…]`) match the whole of `name`?
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let mut re = String::from("^");
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            '[' => {
                let mut class = String::new();
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                    class.push(d);
                }
                let class = class.replacen('!', "^", usize::from(class.starts_with('!')));
                re.push('[');
                re.push_str(&class.replace('\\', "\\\\"));
                re.push(']');
            }
            other => re.push_str(&regex::escape(&other.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).is_ok_and(|r| r.is_match(name))
}

impl Plan {
    /// The key of `case`'s runs on `arm` at `platform_version`, as stored
    /// (no item digest on the without arm).
    pub fn key(&self, case: &PlannedCase, arm: Arm, platform_version: &str) -> RunKey {
        let own = self.all_cases.get(&case.name).cloned().unwrap_or_else(|| {
            case_key(
                case.digest.clone(),
                true,
                false,
                &self.judge_model,
                &self.options,
                self.scaffold,
            )
        });
        RunKey {
            item: self.item.to_string(),
            item_digest: self.item_digest.clone(),
            case: case.name.clone(),
            case_digest: own.digest,
            arm,
            model: self.model.clone(),
            judge_model: own.judge_model,
            platform_version: platform_version.to_string(),
            tools: self.tools.clone(),
            options: own.options,
        }
        .normalized()
    }

    /// Digest of the cases measured: their names and contents.
    pub fn suite_digest(&self) -> String {
        let parts: Vec<String> = self
            .cases
            .iter()
            .map(|c| format!("{}={}", c.name, c.digest))
            .collect();
        crate::evidence::options_digest(
            &parts
                .iter()
                .map(|p| ("case", p.as_str()))
                .collect::<Vec<_>>(),
        )
    }

    /// Every key, case by case, with arm before without.
    pub fn keys(&self, platform_version: &str) -> Vec<RunKey> {
        self.cases
            .iter()
            .flat_map(|c| [Arm::With, Arm::Without].map(|arm| self.key(c, arm, platform_version)))
            .collect()
    }
}

/// One platform call an evaluation makes to buy what the store lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// The planned case it runs (the platform's `--case`); `None`: the whole suite.
    pub case: Option<usize>,
    /// The platform's `--runs`; `None`: each case its own number.
    pub runs: Option<u32>,
    /// Both arms, or the with arm alone.
    pub ablation: Ablation,
}

/// Runs per arm each planned case lacks, `[with, without]`: its planned runs
/// less the `stored` ones (one entry per key of [`Plan::keys`]).
pub fn missing(plan: &Plan, stored: &[Vec<StoredRun>]) -> Vec<[u32; 2]> {
    plan.cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            [0, 1].map(|arm| {
                let have = stored.get(2 * i + arm).map_or(0, Vec::len);
                c.runs
                    .saturating_sub(u32::try_from(have).unwrap_or(u32::MAX))
            })
        })
        .collect()
}

/// [`missing`] with the top-up: case c, when its with arm lacks runs while
/// its stored without arm holds them all, buys `top_up[c]` fresh
/// without-arm runs beside them (no more than its with arm lacks; none when
/// `top_up` has no entry for it), and the document counts the newest
/// planned number, the fresh ones first. A case bought whole ([`missing`]'s
/// without arm lacking runs) renews its window anyway.
pub fn topped_up(plan: &Plan, stored: &[Vec<StoredRun>], top_up: &[u32]) -> Vec<[u32; 2]> {
    let mut need = missing(plan, stored);
    for (i, [with, without]) in need.iter_mut().enumerate() {
        let kept = stored.get(2 * i + 1).is_some_and(|runs| !runs.is_empty());
        if *with > 0 && *without == 0 && kept {
            *without = top_up.get(i).copied().unwrap_or(0).min(*with);
        }
    }
    need
}

/// What fixed runs buy for `plan` ([`topped_up`]), with the top-up `store`
/// calls for ([`fixed_top_up`]) unless nothing stored counts (`fresh`) or a
/// kept version is measured again (`best`: the without arm it reuses is
/// the one the evaluation it is compared with just renewed).
pub fn fixed_need(
    store: &Store,
    plan: &Plan,
    stored: &[Vec<StoredRun>],
    (fresh, best): (bool, bool),
) -> Result<Vec<[u32; 2]>> {
    let top_up = if fresh || best {
        Vec::new()
    } else {
        fixed_top_up(store, plan, stored)?
    };
    Ok(topped_up(plan, stored, &top_up))
}

/// The cases [`topped_up`]'s `need` renews, by index, with the fresh
/// without-arm runs each buys beyond what [`missing`] asks.
pub fn renewed(plan: &Plan, stored: &[Vec<StoredRun>], need: &[[u32; 2]]) -> Vec<(usize, u32)> {
    missing(plan, stored)
        .iter()
        .zip(need)
        .enumerate()
        .filter(|(_, (m, n))| n[1] > m[1])
        .map(|(i, (m, n))| (i, n[1] - m[1]))
        .collect()
}

/// The top-up fixed runs buy per case ([`topped_up`]) from `store`:
/// [`TOP_UP`] once one of the without-arm runs the case would reuse (the
/// newest of `stored`, its planned number) has been compared again, beside
/// a with arm of the case an evaluation other than its buyer bought
/// ([`Store::compared_again`]); else none. A top-up within one evaluation
/// barely moves its error given the stored runs; what it buys is their
/// renewal over a sequence of comparisons, and runs no later comparison has
/// used have nothing to renew: so an edit right after an evaluation still
/// buys the with arm alone, half the runs, and so does one after a mere
/// repeat (`docs/statistics.md`, "The without arm from the store").
fn fixed_top_up(store: &Store, plan: &Plan, stored: &[Vec<StoredRun>]) -> Result<Vec<u32>> {
    plan.cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let runs = stored.get(2 * i + 1).map_or(&[][..], Vec::as_slice);
            let window = &runs[..runs.len().min(case.runs as usize)];
            Ok(if store.compared_again(window)? {
                TOP_UP
            } else {
                0
            })
        })
        .collect()
}

/// The platform calls that buy what `need` ([`missing`]) lacks. A case that
/// lacks without-arm runs is bought on both arms (`with-without`, as many as
/// the without arm lacks) and on the with arm alone for the with-arm runs
/// it lacks beyond those ([`case_calls`]); a case that lacks with-arm runs
/// only (its item was edited) is bought on the with arm alone. One call for
/// the whole suite when every case lacks all its runs of the same arms and
/// nothing is filtered (`runs` is then `--runs` as given); else one or two
/// per case, [`merged`] into calls of the whole suite when every case asks
/// the same.
pub fn calls(plan: &Plan, need: &[[u32; 2]], runs: Option<u32>) -> Vec<Call> {
    let all = |with: bool, without: bool| {
        plan.cases.iter().zip(need).all(|(c, n)| {
            n[0] == if with { c.runs } else { 0 } && n[1] == if without { c.runs } else { 0 }
        })
    };
    if !plan.filtered && !plan.cases.is_empty() {
        for (with, without, ablation) in [
            (true, true, Ablation::WithWithout),
            (true, false, Ablation::WithOnly),
        ] {
            if all(with, without) {
                return vec![Call {
                    case: None,
                    runs,
                    ablation,
                }];
            }
        }
    }
    merged(
        plan,
        need.iter()
            .enumerate()
            .flat_map(|(i, &need)| case_calls(i, need))
            .collect(),
    )
}

/// Per-case `calls` as calls of the whole suite when nothing is filtered and
/// every planned case asks the same runs of the same arms, in the same
/// order: each `claude plugin eval` process costs as much as a run, so one
/// per step beats one per case. Else `calls` as they are.
pub fn merged(plan: &Plan, calls: Vec<Call>) -> Vec<Call> {
    let n = plan.cases.len();
    if plan.filtered || n < 2 {
        return calls;
    }
    let mut per_case: Vec<Vec<(Option<u32>, Ablation)>> = vec![Vec::new(); n];
    for call in &calls {
        match call.case {
            Some(i) if i < n => per_case[i].push((call.runs, call.ablation)),
            _ => return calls,
        }
    }
    if per_case[0].is_empty() || per_case.iter().any(|asks| *asks != per_case[0]) {
        return calls;
    }
    per_case[0]
        .iter()
        .map(|&(runs, ablation)| Call {
            case: None,
            runs,
            ablation,
        })
        .collect()
}

/// The calls that buy what planned case `index` lacks, `need` `[with,
/// without]`: both arms as many runs as the without arm lacks, and the with
/// arm alone for the rest (a request for both arms runs both alike, so a
/// with arm lacking more is not bought as both); none when it lacks nothing.
pub fn case_calls(index: usize, [with, without]: [u32; 2]) -> Vec<Call> {
    let call = |runs: u32, ablation| Call {
        case: Some(index),
        runs: Some(runs),
        ablation,
    };
    let mut calls = Vec::with_capacity(2);
    if without > 0 {
        calls.push(call(without, Ablation::WithWithout));
    }
    if with > without {
        calls.push(call(with - without, Ablation::WithOnly));
    }
    calls
}

/// Runs `calls` buy for planned case `index` on each arm, `[with, without]`.
pub fn bought_by_calls(plan: &Plan, calls: &[Call], index: usize) -> [u32; 2] {
    let mut out = [0, 0];
    for call in calls.iter().filter(|c| c.case.is_none_or(|i| i == index)) {
        let n = call.runs.unwrap_or(plan.cases[index].runs);
        out[0] += n;
        if call.ablation == Ablation::WithWithout {
            out[1] += n;
        }
    }
    out
}

/// The runs one case is judged on.
#[derive(Debug, Clone, Default)]
pub struct UsedRuns {
    /// With the item.
    pub with: Vec<StoredRun>,
    /// Without it.
    pub without: Vec<StoredRun>,
    /// Runs this invocation bought that the platform marked with an error
    /// (either arm): never counted, but they make the document partial and
    /// say why.
    pub errored: Vec<StoredRun>,
}

/// The errored runs of `used` on `arm`.
fn errored(used: &UsedRuns, arm: Arm) -> impl Iterator<Item = &StoredRun> {
    used.errored.iter().filter(move |r| r.key.arm == arm)
}

/// The document made from exactly `used` (one entry per planned case, in
/// order), started at `started`: the reduction's fold over them. `cost_usd`
/// is left to the caller (what this invocation spent).
pub fn document(
    plan: &Plan,
    used: &[UsedRuns],
    ctx: &ReduceContext,
    started: chrono::DateTime<chrono::Utc>,
    label: &Utf8Path,
) -> Result<SkillEval> {
    let cases: Vec<FoldCase> = plan
        .cases
        .iter()
        .zip(used)
        .filter(|(_, u)| !u.with.is_empty() || !u.without.is_empty() || !u.errored.is_empty())
        .map(|(c, u)| FoldCase {
            name: &c.name,
            triggers: c
                .triggers
                .iter()
                .map(|t| TriggerDef {
                    name: t.name.clone(),
                    quiet: t.quiet,
                })
                .collect(),
            only_with_only: c.only_with_only,
            with: u
                .with
                .iter()
                .chain(errored(u, Arm::With))
                .map(|r| &r.outcome)
                .collect(),
            without: u
                .without
                .iter()
                .chain(errored(u, Arm::Without))
                .map(|r| &r.outcome)
                .collect(),
            advisories: Vec::new(),
        })
        .collect();
    let totals = Totals {
        cost_usd: 0.0,
        partial: None,
    };
    crate::reduce::fold(&cases, ctx, started, &totals, label).map_err(|e| match e {
        Error::PlatformFailed { message, details } => Error::PlatformFailed {
            message: format!("{message} (from the evidence store)"),
            details,
        },
        other => other,
    })
}

/// The `calibration` of the runs `used` (one entry per planned case).
pub fn calibration(plan: &Plan, used: &[UsedRuns]) -> Option<crate::document::Calibration> {
    let cases: Vec<crate::reduce::CountedCase> = plan
        .cases
        .iter()
        .zip(used)
        .filter(|(_, u)| !u.with.is_empty())
        .map(|(c, u)| crate::reduce::CountedCase {
            name: &c.name,
            with: u.with.iter().map(|r| &r.outcome).collect(),
            without: u.without.iter().map(|r| &r.outcome).collect(),
        })
        .collect();
    crate::reduce::calibrate(&cases, &plan.judge_records)
}

/// A case with a scaffold script is measured as written only when the script
/// runs, and it runs as the operator: neither is done silently. Without
/// `--scaffold` or `--no-scaffold` (or the setting), such a suite is refused
/// before anything is spent, naming its cases and both ways out.
pub(super) fn refuse_unchosen_scaffolds(
    item: &crate::config::ItemName,
    cases: &[PlannedCase],
    scaffold: Option<bool>,
) -> crate::error::Result<()> {
    let scripted: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            c.scaffold_script
                .as_ref()
                .map(|s| format!("`{}` (scaffold_script: {s})", c.name))
        })
        .collect();
    if scripted.is_empty() || scaffold.is_some() {
        return Ok(());
    }
    Err(crate::error::Error::Usage(format!(
        "{} case(s) of evals/{item} build their workspace with a scaffold script: {}. The platform runs such a script only under --scaffold, as you (it is bash the suite's author wrote: read it first); without it the case is measured on an empty workspace. Pass --scaffold to run the scripts, or --no-scaffold to measure these cases without their fixtures knowingly (settings.json `_workflow.scaffold` says it once for all runs)",
        scripted.len(),
        scripted.join(", ")
    )))
}

/// The recorded best's version of `item` for `model`, as kept beside the
/// store at `store` (`--best`): refused, saying why and what to do, when no
/// best is recorded or its files were not kept.
pub fn best_version(
    ctx: &crate::config::Context,
    item: &crate::item::Item,
    model: &str,
    store: &Utf8Path,
) -> Result<crate::item::Item> {
    let baseline = crate::document::load_baseline(&ctx.source, &item.name)?;
    let Some(best) = baseline.best.get(model) else {
        return Err(Error::Usage(format!(
            "--best: no best is recorded for {} on {model} in evals/{}/baseline.json: there is nothing to measure again (name the model with --model)",
            item.name, item.name
        )));
    };
    let Some(digest) = best.item_digest.as_deref() else {
        return Err(Error::Usage(format!(
            "--best: {}",
            crate::gate::best_not_kept(best)
        )));
    };
    match crate::evidence::kept_version(store, item, digest)? {
        Some(kept) => Ok(kept),
        None => Err(Error::Usage(format!(
            "--best: the files of the best (run {}) are not kept beside the evidence store {store} (it was recorded with another store?): it is compared as recorded, on its stored runs; give the store it was recorded with (--evidence)",
            best.run
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        Call, NO_JUDGE, Plan, PlannedCase, bought_by_calls, calls, case_key, glob_matches, merged,
        renewed, topped_up,
    };
    use crate::evidence::{Arm, StoredRun};
    use crate::platform::Ablation;

    #[test]
    fn globs() {
        for (p, n, ok) in [
            ("fires", "fires", true),
            ("fi*", "fires", true),
            ("f?res", "fires", true),
            ("[fq]*", "quiet", true),
            ("[!f]*", "fires", false),
            ("fires", "fires-2", false),
            ("a.b", "axb", false),
            ("*", "", true),
        ] {
            assert_eq!(glob_matches(p, n), ok, "{p} ~ {n}");
        }
    }

    fn plan(runs: &[u32], filtered: bool) -> Plan {
        Plan {
            item: crate::config::item_name("commit"),
            item_digest: "i".into(),
            cases: runs
                .iter()
                .enumerate()
                .map(|(i, &runs)| PlannedCase {
                    name: format!("c{i}"),
                    digest: "d".into(),
                    runs,
                    triggers: vec![],
                    only_with_only: false,
                    scaffold_script: None,
                    judges: 0,
                })
                .collect(),
            filtered,
            all_cases: Default::default(),
            model: "default".into(),
            judge_model: "default".into(),
            judge_records: vec![],
            tools: vec![],
            options: String::new(),
            platform_env: Default::default(),
            scaffold: false,
        }
    }

    #[test]
    fn the_judge_keys_only_the_cases_a_judge_grades_and_the_scaffold_only_scripted_ones() {
        let mut p = plan(&[3, 3, 3], false);
        p.judge_model = "haiku".into();
        let options = crate::evidence::options_digest(&[]);
        for (i, (judged, scaffolded)) in [(false, false), (true, false), (false, true)]
            .into_iter()
            .enumerate()
        {
            let key = case_key("d".into(), judged, scaffolded, "haiku", &options, true);
            p.all_cases.insert(format!("c{i}"), key);
        }
        let key = |i: usize| p.key(&p.cases[i], Arm::With, "2.1.328");
        assert_eq!(key(0).judge_model, NO_JUDGE);
        assert_eq!(key(1).judge_model, "haiku");
        assert_eq!(key(0).options, options);
        assert_eq!(key(1).options, options);
        assert_ne!(
            key(2).options,
            options,
            "the scaffold choice keys a scripted case"
        );
        let skipped = case_key("d".into(), false, true, "haiku", &options, false);
        assert_ne!(
            skipped.options,
            key(2).options,
            "run and skipped are two keys"
        );
    }

    #[test]
    fn a_top_up_renews_a_reused_without_arm_beside_the_with_arm() {
        use crate::evidence::tests::sample;
        let p = plan(&[3, 3], false);
        let runs = |arm, n: u32| (0..n).map(|s| sample("c", arm, s, "eval-1")).collect();
        // Both cases edited in the item: the with arm lacks 3, the without arm is stored.
        let stored: Vec<Vec<StoredRun>> =
            vec![vec![], runs(Arm::Without, 3), vec![], runs(Arm::Without, 5)];
        assert_eq!(topped_up(&p, &stored, &[]), [[3, 0], [3, 0]]);
        assert_eq!(topped_up(&p, &stored, &[0, 1]), [[3, 0], [3, 1]]);
        let need = topped_up(&p, &stored, &[1, 1]);
        assert_eq!(need, [[3, 1], [3, 1]]);
        // One fresh without-arm run beside one with-arm run, the rest of
        // the with arm alone, as two calls of the whole suite.
        let call = |runs, ablation| Call {
            case: None,
            runs: Some(runs),
            ablation,
        };
        assert_eq!(
            calls(&p, &need, Some(3)),
            [call(1, Ablation::WithWithout), call(2, Ablation::WithOnly)]
        );
        // Never more than the with arm lacks; a case bought whole, or one
        // whose with arm is stored, is left as it is.
        assert_eq!(topped_up(&p, &stored, &[5, 5]), [[3, 3], [3, 3]]);
        let partly: Vec<Vec<StoredRun>> = vec![
            runs(Arm::With, 3),
            runs(Arm::Without, 3),
            vec![],
            runs(Arm::Without, 1),
        ];
        assert_eq!(topped_up(&p, &partly, &[1, 1]), [[0, 0], [3, 2]]);
        assert_eq!(renewed(&p, &stored, &need), [(0, 1), (1, 1)]);
        assert_eq!(renewed(&p, &partly, &[[0, 0], [3, 2]]), []);
    }

    #[test]
    fn an_edited_item_is_bought_on_the_with_arm_alone() {
        let p = plan(&[3, 3], false);
        let whole = |ablation| {
            vec![Call {
                case: None,
                runs: Some(3),
                ablation,
            }]
        };
        assert_eq!(
            calls(&p, &[[3, 3], [3, 3]], Some(3)),
            whole(Ablation::WithWithout)
        );
        assert_eq!(
            calls(&p, &[[3, 0], [3, 0]], Some(3)),
            whole(Ablation::WithOnly)
        );
        assert_eq!(calls(&p, &[[0, 0], [0, 0]], Some(3)), vec![]);
        // An edited case re-buys both arms; the other case its with arm only.
        let mixed = calls(&p, &[[3, 3], [3, 0]], Some(3));
        assert_eq!(
            mixed,
            vec![
                Call {
                    case: Some(0),
                    runs: Some(3),
                    ablation: Ablation::WithWithout
                },
                Call {
                    case: Some(1),
                    runs: Some(3),
                    ablation: Ablation::WithOnly
                },
            ]
        );
        assert_eq!(bought_by_calls(&p, &mixed, 0), [3, 3]);
        assert_eq!(bought_by_calls(&p, &mixed, 1), [3, 0]);
        // A case lacking without runs only is bought on both arms (the platform has no without-only mode).
        assert_eq!(
            calls(&p, &[[0, 2], [0, 0]], Some(3)),
            vec![Call {
                case: Some(0),
                runs: Some(2),
                ablation: Ablation::WithWithout
            }]
        );
        // A with arm lacking more than the without arm: both arms as many
        // as the without arm lacks, the with arm alone for the rest.
        let split = calls(&p, &[[3, 1], [0, 0]], Some(3));
        assert_eq!(
            split,
            vec![
                Call {
                    case: Some(0),
                    runs: Some(1),
                    ablation: Ablation::WithWithout
                },
                Call {
                    case: Some(0),
                    runs: Some(2),
                    ablation: Ablation::WithOnly
                },
            ]
        );
        assert_eq!(bought_by_calls(&p, &split, 0), [3, 1]);
        // Filtered: never the whole suite.
        let f = plan(&[3], true);
        assert_eq!(calls(&f, &[[3, 0]], None)[0].case, Some(0));
    }

    #[test]
    fn cases_that_ask_the_same_are_bought_in_one_call_per_step() {
        let call = |case, runs, ablation| Call {
            case,
            runs: Some(runs),
            ablation,
        };
        let p = plan(&[5, 5], false);
        // Every case lacks 2 runs of both arms (`--runs 5` after `--runs 3`):
        // one call, not one per case.
        assert_eq!(
            calls(&p, &[[2, 2], [2, 2]], Some(5)),
            vec![call(None, 2, Ablation::WithWithout)]
        );
        // Both arms, then the with arm alone, for the whole suite each.
        assert_eq!(
            calls(&p, &[[3, 1], [3, 1]], Some(5)),
            vec![
                call(None, 1, Ablation::WithWithout),
                call(None, 2, Ablation::WithOnly)
            ]
        );
        // Cases that ask differently, or a case that asks nothing: per case.
        let apart = [[[2, 2], [1, 1]], [[2, 2], [0, 0]]];
        for need in apart {
            assert!(calls(&p, &need, Some(5)).iter().all(|c| c.case.is_some()));
        }
        // Filtered: never the whole suite, even when every case asks the same.
        let per_case = vec![
            call(Some(0), 2, Ablation::WithWithout),
            call(Some(1), 2, Ablation::WithWithout),
        ];
        assert_eq!(merged(&plan(&[5, 5], true), per_case.clone()), per_case);
        assert_eq!(
            merged(&p, per_case),
            vec![call(None, 2, Ablation::WithWithout)]
        );
    }
}
