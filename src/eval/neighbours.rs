//! `--neighbours`: the trigger pair's prompts run again with the item among
//! other items, and each run says which item fired.
//!
//! After the suite's own runs, the `fires` and `quiet` prompts (the trigger
//! pair, found by name as `check` finds it) run on one arm (`--ablation
//! none`) in a plugin holding the item and its neighbours: every other item
//! of the source, or those named. bob-eval replaces the two cases' graders by
//! one `tool_used` grader per loaded item ([`plugin::FIRED`]), so each run's
//! graders say which items fired. These runs are bought fresh every time (the
//! evidence store keys runs by the item alone), under what the suite's runs
//! left of the ceiling, and counted in the document's `cost_usd`.

use crate::document::{FiredCount, NeighbourCase, Neighbours, PartialReason, round4};
use crate::error::{Error, Result};
use crate::event::{Event, Observer};
use crate::item::Item;
use crate::platform::result::PlatformResult;
use crate::platform::{self, Platform, RunOptions};
use crate::plugin::{self, Plugin};
use camino::Utf8Path;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The trigger pair's case names.
pub const CASES: [&str; 2] = ["fires", "quiet"];

/// A competition ready to run: its plugin and what it holds.
#[derive(Debug)]
pub struct Competition {
    plugin: Plugin,
    /// Every item loaded, the item first.
    items: Vec<String>,
    /// The trigger cases it runs, with their runs each.
    cases: Vec<(String, u32)>,
}

impl Competition {
    /// The plugin folder (kept under `--keep`).
    pub fn plugin_dir(&self) -> &Utf8Path {
        &self.plugin.dir
    }

    /// What the competition will run, said before anything is spent.
    pub fn announce(&self, ceiling: f64) -> String {
        let runs: u32 = self.cases.iter().map(|(_, n)| n).sum();
        let cases: Vec<String> = self
            .cases
            .iter()
            .map(|(name, n)| format!("{name} × {n}"))
            .collect();
        let shown: Vec<&str> = self.items.iter().take(8).map(String::as_str).collect();
        let more = if self.items.len() > shown.len() {
            format!(" and {} more", self.items.len() - shown.len())
        } else {
            String::new()
        };
        format!(
            "{}: --neighbours: after the suite, {runs} more run(s) on one arm ({}) with {} items loaded ({}{more}); they are paid from what the suite leaves of the ${ceiling:.2} ceiling and stop there",
            self.items[0],
            cases.join(", "),
            self.items.len(),
            shown.join(", "),
        )
    }
}

/// What a competition would run, decided before anything is assembled or
/// spent ([`plan`]): what `--dry-run` counts and [`prepare`] assembles.
#[derive(Debug, Clone)]
pub struct CompetitionPlan {
    /// The neighbours loaded beside the item.
    neighbours: Vec<Item>,
    /// The trigger cases run, with their runs each.
    pub cases: Vec<(String, u32)>,
    /// Each trigger case's folder.
    dirs: Vec<(String, camino::Utf8PathBuf)>,
}

impl CompetitionPlan {
    /// Every run the competition buys (on its one arm).
    pub fn runs(&self) -> u32 {
        self.cases.iter().map(|(_, n)| n).sum()
    }

    /// How many items it loads, the item included.
    pub fn items(&self) -> usize {
        self.neighbours.len() + 1
    }
}

/// The neighbours of `found`: `names` (each an item of the source, the item
/// itself left out), or every other item of the source when `names` is
/// empty, and the trigger cases with `runs` each (each its own when `None`).
/// Refused before anything is spent: an unknown name, no neighbour at all, a
/// suite without its trigger pair, a trigger case written as a `case.yaml`
/// (its graders could not be replaced).
pub fn plan(
    source: &Utf8Path,
    found: &Item,
    names: &[String],
    runs: Option<u32>,
) -> Result<CompetitionPlan> {
    let neighbours: Vec<Item> = if names.is_empty() {
        crate::item::all(source)
            .into_iter()
            .filter(|i| i.name != found.name)
            .collect()
    } else {
        let mut picked: Vec<Item> = Vec::new();
        for name in names {
            let item = crate::config::ItemName::new(name)
                .and_then(|name| crate::item::find(source, &name))
                .map_err(|e| Error::Usage(format!("--neighbours: {e}")))?;
            if item.name != found.name && !picked.iter().any(|p| p.name == item.name) {
                picked.push(item);
            }
        }
        picked
    };
    if neighbours.is_empty() {
        return Err(Error::Usage(format!(
            "--neighbours: no other item to load beside `{}` ({})",
            found.name,
            if names.is_empty() {
                "the source holds no other skill, command or agent"
            } else {
                "name items other than the one under test"
            }
        )));
    }
    let suite = crate::suite::load(source, &found.name)?;
    let mut cases = Vec::new();
    let mut dirs = Vec::new();
    for name in CASES {
        let Some(case) = suite.cases.iter().find(|c| c.name == name) else {
            continue;
        };
        if let Some(yaml) = &case.case_file {
            return Err(Error::Usage(format!(
                "--neighbours: {yaml}: the trigger case is a case.yaml, whose graders bob-eval cannot replace; write it as prompt.md + graders/"
            )));
        }
        let n = runs.unwrap_or_else(|| u32::try_from(case.runs()).unwrap_or(u32::MAX));
        cases.push((name.to_string(), n));
        dirs.push((name.to_string(), case.dir.clone()));
    }
    if cases.is_empty() {
        return Err(Error::Usage(format!(
            "--neighbours runs the trigger pair, and evals/{} has neither a `fires` nor a `quiet` case",
            found.name
        )));
    }
    Ok(CompetitionPlan {
        neighbours,
        cases,
        dirs,
    })
}

/// The competition [`plan`] decides, its plugin assembled (in the
/// environment's temp folder).
pub fn prepare(
    ctx: &crate::config::Context,
    found: &Item,
    names: &[String],
    runs: Option<u32>,
) -> Result<Competition> {
    let CompetitionPlan {
        neighbours,
        cases,
        dirs,
    } = plan(&ctx.source, found, names, runs)?;
    let temp = ctx.env.temp_dir();
    let plugin = plugin::assemble_competition(&ctx.source, &temp, found, &neighbours, &dirs)?;
    let mut items = vec![found.name.to_string()];
    items.extend(neighbours.into_iter().map(|i| i.name.into()));
    Ok(Competition {
        plugin,
        items,
        cases,
    })
}

/// Keep the competition's plugin folder and the platform's temp folder
/// beside it (`--keep`); returns their paths.
pub fn keep(competition: &mut Competition) -> (camino::Utf8PathBuf, camino::Utf8PathBuf) {
    let dir = competition.plugin.keep();
    (dir, competition.plugin.scratch.clone())
}

/// The competition's progress: its runs are reported as neighbour runs, not
/// as the item's with arm, and without a score that would read as a verdict.
struct Relabel(Arc<dyn Observer>);

impl Observer for Relabel {
    fn event(&self, event: &Event) {
        match event {
            Event::RunDone {
                item,
                case,
                which,
                cost,
                ..
            } => self.0.event(&Event::NeighbourRunDone {
                item: item.clone(),
                case: case.clone(),
                which: which.clone(),
                cost: *cost,
            }),
            other => self.0.event(other),
        }
    }
}

/// Run the competition under `remaining` dollars (what the suite left of the
/// ceiling): nothing when none is left (`partial_reason: cost_ceiling`).
pub fn run(
    claude: &Platform,
    competition: &Competition,
    base: &RunOptions,
    remaining: f64,
    observer: Arc<dyn Observer>,
) -> Result<Neighbours> {
    let mut outcome = Neighbours {
        items: competition.items.clone(),
        cost_usd: 0.0,
        partial_reason: None,
        cases: Vec::new(),
    };
    let remaining = round4(remaining);
    if remaining <= 0.0 {
        outcome.partial_reason = Some(crate::document::PartialReason::CostCeiling);
        return Ok(outcome);
    }
    let same = competition.cases.windows(2).all(|w| w[0].1 == w[1].1);
    let case = match competition.cases.as_slice() {
        [(name, _)] => Some(name.clone()),
        _ => None,
    };
    let opts = RunOptions {
        max_cost_usd: remaining,
        // Each case its own runs, unless both ask the same number.
        runs: if same {
            competition.cases.first().map(|c| c.1)
        } else {
            None
        },
        case,
        tags: Vec::new(),
        // The judge is never asked: every grader here is a `tool_used`.
        report: None,
        ablation: platform::Ablation::WithOnly,
        ..base.clone()
    };
    let out = platform::run(
        claude,
        &competition.plugin,
        &opts,
        Arc::new(Relabel(observer)),
    )?;
    let doc = crate::platform::result::read(&out.document).map_err(|e| Error::PlatformFailed {
        message: format!("its --neighbours result is not usable: {e}"),
        details: vec![],
    })?;
    let plugin_loaded = doc.suite.plugins.iter().any(|p| {
        p.name == competition.plugin.name && p.problem.as_ref().is_none_or(|v| v.is_null())
    });
    if !plugin_loaded {
        return Err(Error::PlatformFailed {
            message: format!(
                "the --neighbours plugin {} did not load on the platform",
                competition.plugin.name
            ),
            details: vec![],
        });
    }
    outcome.cost_usd = round4(doc.cost_usd);
    if doc.partial {
        outcome.partial_reason = Some(PartialReason::from_platform(doc.partial_reason.as_deref()));
    }
    outcome.cases = read(&doc, &competition.items);
    Ok(outcome)
}

/// Which of `items` fired on each run of the trigger cases of a platform
/// document: a run's grader `<FIRED>-<item>` passed.
pub fn read(doc: &PlatformResult, items: &[String]) -> Vec<NeighbourCase> {
    let mut out = Vec::new();
    for case in &doc.cases {
        let name = case.name.as_str();
        if !CASES.contains(&name) {
            continue;
        }
        let runs = &case.arms.with;
        let mut fired: BTreeMap<&str, u32> = BTreeMap::new();
        let mut none = 0u32;
        for run in runs {
            let mut any = false;
            for g in &run.graders {
                let Some(item) = g
                    .name
                    .strip_prefix(plugin::FIRED)
                    .and_then(|n| n.strip_prefix('-'))
                    .and_then(|n| items.iter().find(|i| *i == n))
                else {
                    continue;
                };
                if g.passed {
                    *fired.entry(item.as_str()).or_default() += 1;
                    any = true;
                }
            }
            if !any {
                none += 1;
            }
        }
        let total = u32::try_from(runs.len()).unwrap_or(u32::MAX);
        let rate = |k: u32| {
            if total == 0 {
                0.0
            } else {
                round4(f64::from(k) / f64::from(total))
            }
        };
        let mut fired: Vec<FiredCount> = fired
            .into_iter()
            .map(|(item, k)| FiredCount {
                item: item.to_string(),
                runs: k,
                rate: rate(k),
            })
            .collect();
        // Most often first; the item before its neighbours on a tie.
        fired.sort_by(|a, b| {
            b.runs
                .cmp(&a.runs)
                .then((a.item != items[0]).cmp(&(b.item != items[0])))
                .then(a.item.cmp(&b.item))
        });
        out.push(NeighbourCase {
            name: name.to_string(),
            runs: total,
            fired,
            none,
            none_rate: rate(none),
        });
    }
    out
}

/// What `exam` and `propose` report: each neighbour that fired on the item's
/// fires prompt, and each item (the item included) that fired on its quiet
/// prompt, e.g. "`changelog` fired on `commit`'s fires prompt in 3 of 3 runs".
pub fn findings(n: &Neighbours) -> Vec<String> {
    let item = n.items.first().map_or("", String::as_str);
    let mut out = Vec::new();
    for case in &n.cases {
        for f in &case.fired {
            let line = match case.name.as_str() {
                "fires" if f.item != item => format!(
                    "`{}` fired on `{item}`'s fires prompt in {} of {} runs",
                    f.item, f.runs, case.runs
                ),
                "quiet" => format!(
                    "`{}` fired on `{item}`'s quiet prompt in {} of {} runs (a misfire)",
                    f.item, f.runs, case.runs
                ),
                _ => continue,
            };
            out.push(line);
        }
    }
    if let Some(reason) = &n.partial_reason {
        out.push(format!(
            "the --neighbours runs stopped short ({reason}): raise --max-cost-usd to see them all"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{findings, read};
    use crate::document::Neighbours;
    use crate::platform::result::PlatformResult;
    use crate::plugin::{self};
    use serde_json::json;

    fn run(fired: &[(&str, bool)]) -> serde_json::Value {
        let graders: Vec<serde_json::Value> = fired
            .iter()
            .map(|(item, passed)| json!({"name": format!("{}-{item}", plugin::FIRED), "passed": passed}))
            .chain([json!({"name": "other", "passed": true})])
            .collect();
        json!({"score": 1, "graders": graders})
    }

    #[test]
    fn reads_which_item_fired_per_run_and_words_it() {
        let items: Vec<String> = ["commit", "changelog", "tidy"].map(String::from).to_vec();
        let doc: PlatformResult = serde_json::from_value(json!({"schemaVersion": 1, "cases": [
            {"name": "fires", "arms": {"with": [
                run(&[("commit", false), ("changelog", true), ("tidy", false)]),
                run(&[("commit", true), ("changelog", true), ("tidy", false)]),
                run(&[("commit", false), ("changelog", false), ("tidy", false)]),
            ]}},
            {"name": "quiet", "arms": {"with": [
                run(&[("commit", false), ("changelog", false), ("tidy", true)]),
                run(&[("commit", false), ("changelog", false), ("tidy", false)]),
            ]}},
            {"name": "scoring", "arms": {"with": [run(&[("commit", true)])]}},
        ]}))
        .unwrap();
        let cases = read(&doc, &items);
        assert_eq!(cases.len(), 2);
        let fires = &cases[0];
        assert_eq!(
            (fires.name.as_str(), fires.runs, fires.none),
            ("fires", 3, 1)
        );
        assert_eq!(fires.none_rate, 0.3333);
        let fired: Vec<(&str, u32, f64)> = fires
            .fired
            .iter()
            .map(|f| (f.item.as_str(), f.runs, f.rate))
            .collect();
        assert_eq!(fired, [("changelog", 2, 0.6667), ("commit", 1, 0.3333)]);
        assert_eq!(cases[1].fired[0].item, "tidy");
        assert_eq!((cases[1].runs, cases[1].none), (2, 1));

        let n = Neighbours {
            items,
            cost_usd: 0.1,
            partial_reason: None,
            cases,
        };
        assert_eq!(
            findings(&n),
            [
                "`changelog` fired on `commit`'s fires prompt in 2 of 3 runs",
                "`tidy` fired on `commit`'s quiet prompt in 1 of 2 runs (a misfire)",
            ]
        );
    }
}
