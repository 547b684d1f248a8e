//! The two sides of `compare`: each argument (a document file, a kept
//! evaluation's run id, `best`, `last`, `last~N`) resolved to a `skill-eval/1`
//! document, what it was held to and the stored runs behind each case's arms.

use super::Conditions;
use crate::config::{Context, ItemName};
use crate::document::SkillEval;
use crate::error::{Error, Result};
use crate::evidence::{Arm, Evaluation, Store, StoredRun};
use crate::reduce::{FoldCase, ReduceContext, Totals};
use camino::{Utf8Path, Utf8PathBuf};
use std::collections::{BTreeMap, HashMap};

/// One argument of `compare`, as parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SideSpec {
    /// A `skill-eval/1` document on disk.
    File(Utf8PathBuf),
    /// The run id of an evaluation the evidence store keeps.
    Id(String),
    /// The best recorded in `baseline.json` for the model.
    Best,
    /// The item's kept evaluation this many before the last (`last` is 0).
    Last(u32),
}

impl SideSpec {
    /// `best`, `last`, `last~N`, an existing file (or one ending in `.json`),
    /// else a run id (`eval-…`). A file named `best` is `./best`.
    pub fn parse(text: &str) -> Result<SideSpec> {
        let text = text.trim();
        if text == "best" {
            return Ok(SideSpec::Best);
        }
        if text == "last" {
            return Ok(SideSpec::Last(0));
        }
        if let Some(n) = text.strip_prefix("last~") {
            return n.parse::<u32>().map(SideSpec::Last).map_err(|_| {
                Error::Usage(format!(
                    "{text:?}: after `last~` give how many evaluations before the last (last~1 is the one before it)"
                ))
            });
        }
        let path = Utf8Path::new(text);
        if text.ends_with(".json") || path.exists() {
            return Ok(SideSpec::File(path.to_owned()));
        }
        if text.starts_with("eval-") {
            return Ok(SideSpec::Id(text.to_string()));
        }
        Err(Error::Usage(format!(
            "{text:?} is no file, no run id (eval-<item>-<time>), nor best, last or last~N"
        )))
    }
}

/// What the command gives beside the two arguments.
#[derive(Debug, Clone, Copy)]
pub struct Want<'a> {
    /// The source tree (for `baseline.json`).
    pub ctx: &'a Context,
    /// `--item`: the item `best` and `last` refer to, when no side names it.
    pub item: Option<&'a ItemName>,
    /// `--model`: the model of `best` and `last`.
    pub model: Option<&'a str>,
    /// The evidence store, when there is one.
    pub store: Option<&'a Store>,
}

/// One side resolved.
#[derive(Debug, Clone)]
pub struct ResolvedSide {
    /// The argument as given.
    pub spec: String,
    /// Where it was read, in words.
    pub source: String,
    /// The evaluation's document (rebuilt from its stored runs for an id,
    /// `best` and `last`).
    pub doc: SkillEval,
    /// What it was held to, as far as it says.
    pub conditions: Conditions,
    /// The stored runs behind each case's arm, by id (none for a document
    /// the store does not keep).
    pub runs: BTreeMap<(String, Arm), Vec<String>>,
}

impl ResolvedSide {
    /// The first stored run of `case` on `arm`.
    pub fn first_run(&self, case: &str, arm: Arm) -> Option<&str> {
        self.runs
            .get(&(case.to_string(), arm))
            .and_then(|ids| ids.first())
            .map(String::as_str)
    }
}

/// The final answer the model gave on the stored run `run_id`, when the store
/// keeps its transcript ([`crate::evidence::transcript::answer`]); `None` for
/// a run bought before transcripts were kept, or with no store (the one place
/// `compare` reads answers). A store that cannot be read answers nothing.
pub fn kept_answer(store: Option<&Store>, run_id: &str) -> Option<String> {
    crate::evidence::transcript::answer(store?, run_id)
        .ok()
        .flatten()
}

/// Resolve `a` and `b` (as given) under `want`: files and run ids first, so
/// that `best` and `last` take their item (and `best` its model) from them.
pub fn resolve(a: &str, b: &str, want: Want<'_>) -> Result<[ResolvedSide; 2]> {
    let specs = [SideSpec::parse(a)?, SideSpec::parse(b)?];
    let texts = [a, b];
    let mut sides: [Option<ResolvedSide>; 2] = [None, None];
    for i in 0..2 {
        sides[i] = match &specs[i] {
            SideSpec::File(path) => Some(from_file(texts[i], path, want)?),
            SideSpec::Id(id) => Some(from_id(texts[i], id, want)?),
            _ => None,
        };
    }
    let item = match want.item {
        Some(item) => item.clone(),
        None => match sides.iter().flatten().next() {
            Some(side) => side.doc.item.clone(),
            None => {
                return Err(Error::Usage(
                    "`best` and `last` need an item: give --item ITEM (or compare with a document or a run id)".into(),
                ));
            }
        },
    };
    // `last` before `best`, so `best` can take the model of `last`.
    for i in [0, 1] {
        if let SideSpec::Last(n) = specs[i] {
            sides[i] = Some(from_last(texts[i], &item, n, want)?);
        }
    }
    for i in [0, 1] {
        if specs[i] == SideSpec::Best {
            let model = want
                .model
                .map(str::to_string)
                .or_else(|| sides.iter().flatten().next().map(|s| s.doc.model.clone()));
            sides[i] = Some(from_best(texts[i], &item, model.as_deref(), want)?);
        }
    }
    let [x, y] = sides;
    Ok([
        x.expect("every side resolved"),
        y.expect("every side resolved"),
    ])
}

fn store_for<'a>(want: Want<'a>, spec: &str) -> Result<&'a Store> {
    want.store.ok_or_else(|| {
        Error::Usage(format!(
            "{spec:?} is read from the evidence store, and there is none: runs are kept there by `bob-eval run` (or give --evidence PATH)"
        ))
    })
}

/// A document on disk; the store's record of the same run (if any) adds
/// what it was held to and its runs.
fn from_file(spec: &str, path: &Utf8Path, want: Want<'_>) -> Result<ResolvedSide> {
    let item = peek_item(path);
    let doc = crate::document::load_result(path, &item)?;
    let mut conditions = document_conditions(&doc);
    let mut runs = BTreeMap::new();
    let mut source = format!("file {path}");
    if let Some(store) = want.store
        && let Some(e) = find_evaluation(store, &doc.run, Some(doc.item.as_str()))?
    {
        let used = used_runs(store, &e)?;
        merge(&mut conditions, evaluation_conditions(&e, &used));
        runs = run_ids(&used);
        source.push_str(&format!(" (kept in {})", store.path()));
    }
    merge(&mut conditions, flag_conditions(&doc));
    Ok(ResolvedSide {
        spec: spec.to_string(),
        source,
        doc,
        conditions,
        runs,
    })
}

/// The item a document names, or "" (then [`crate::document::load_result`]
/// refuses the file, naming what is wrong with it).
fn peek_item(path: &Utf8Path) -> String {
    crate::fsio::read_text(path, crate::config::MAX_INPUT_FILE)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|v| v.get("item")?.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn from_id(spec: &str, id: &str, want: Want<'_>) -> Result<ResolvedSide> {
    let store = store_for(want, spec)?;
    let e = find_evaluation(store, id, want.item.map(ItemName::as_str))?.ok_or_else(|| {
        Error::Usage(format!(
            "no evaluation {id} kept in {}: `bob-eval history --json` lists the kept ones",
            store.path()
        ))
    })?;
    from_evaluation(
        spec,
        format!("evaluation kept in {}", store.path()),
        store,
        &e,
    )
}

fn from_last(spec: &str, item: &ItemName, n: u32, want: Want<'_>) -> Result<ResolvedSide> {
    let store = store_for(want, spec)?;
    let mut all: Vec<Evaluation> = store
        .evaluations(&[item.to_string()])?
        .into_iter()
        .filter(|e| {
            want.model.is_none_or(|m| {
                crate::config::canonical_model(m) == crate::config::canonical_model(&e.model)
            })
        })
        .collect();
    all.sort_by(|x, y| (x.started_at, &x.run).cmp(&(y.started_at, &y.run)));
    let on = want.model.map(|m| format!(" on {m}")).unwrap_or_default();
    let index = all.len().checked_sub(1 + n as usize).ok_or_else(|| {
        Error::Usage(format!(
            "{spec}: {item} has {} kept evaluation(s){on} in {}, and {spec} needs {}",
            all.len(),
            store.path(),
            n + 1
        ))
    })?;
    let which = match n {
        0 => format!("the last evaluation of {item}{on}"),
        n => format!("{n} before the last evaluation of {item}{on}"),
    };
    from_evaluation(spec, which, store, &all[index])
}

fn from_best(
    spec: &str,
    item: &ItemName,
    model: Option<&str>,
    want: Want<'_>,
) -> Result<ResolvedSide> {
    let baseline = crate::document::load_baseline(&want.ctx.source, item)?;
    let path = crate::config::baseline_path(&want.ctx.source, item);
    let (model, entry) = match model {
        Some(m) => (
            m.to_string(),
            baseline.best_for(m).ok_or_else(|| {
                Error::Usage(format!(
                    "{path} records no best of {item} on {m} (it has: {})",
                    models(&baseline)
                ))
            })?,
        ),
        None => match baseline.best.iter().collect::<Vec<_>>().as_slice() {
            [(m, entry)] => ((*m).clone(), *entry),
            _ => {
                return Err(Error::Usage(format!(
                    "`best` of {item}: say which model with --model ({path} has: {})",
                    models(&baseline)
                )));
            }
        },
    };
    let store = store_for(want, spec)?;
    let e = find_evaluation(store, &entry.run, Some(item.as_str()))?.ok_or_else(|| {
        Error::Usage(format!(
            "the best of {item} on {model} is {} ({}), which {} does not keep: compare its document file instead",
            entry.run,
            entry.date,
            store.path()
        ))
    })?;
    let mut side = from_evaluation(
        spec,
        format!("the best of {item} on {model} ({path})"),
        store,
        &e,
    )?;
    if side.conditions.item_digest.is_none() {
        side.conditions.item_digest = entry.item_digest.clone();
    }
    Ok(side)
}

fn models(baseline: &crate::document::Baseline) -> String {
    if baseline.best.is_empty() {
        return "no best yet".into();
    }
    baseline.best.keys().cloned().collect::<Vec<_>>().join(", ")
}

/// The kept evaluation whose run id is `run` (of `item`, when given).
fn find_evaluation(store: &Store, run: &str, item: Option<&str>) -> Result<Option<Evaluation>> {
    let items: Vec<String> = item.map(str::to_string).into_iter().collect();
    Ok(store
        .evaluations(&items)?
        .into_iter()
        .find(|e| e.run == run))
}

/// The stored runs `e` used, in its order (a run the store no longer holds
/// is left out).
fn used_runs(store: &Store, e: &Evaluation) -> Result<Vec<StoredRun>> {
    let mut by_id: HashMap<String, StoredRun> = store
        .runs(std::slice::from_ref(&e.item))?
        .into_iter()
        .map(|r| (r.id.clone(), r))
        .collect();
    Ok(e.used.iter().filter_map(|id| by_id.remove(id)).collect())
}

fn run_ids(used: &[StoredRun]) -> BTreeMap<(String, Arm), Vec<String>> {
    let mut out: BTreeMap<(String, Arm), Vec<String>> = BTreeMap::new();
    for r in used {
        out.entry((r.key.case.clone(), r.key.arm))
            .or_default()
            .push(r.id.clone());
    }
    out
}

/// The document of a kept evaluation, folded again from exactly the runs it
/// used (the same fold the evaluation made), with its own numbers kept.
fn from_evaluation(
    spec: &str,
    source: String,
    store: &Store,
    e: &Evaluation,
) -> Result<ResolvedSide> {
    let used = used_runs(store, e)?;
    let label = store.path();
    if used.is_empty() {
        return Err(Error::invalid(
            label,
            format!(
                "evaluation {} used {} run(s), none of which the store holds any more",
                e.run,
                e.used.len()
            ),
        ));
    }
    let item = ItemName::new(&e.item)?;
    let on = |name: &str, arm: Arm| -> Vec<&crate::evidence::RunOutcome> {
        used.iter()
            .filter(|r| r.key.case == name && r.key.arm == arm)
            .map(|r| &r.outcome)
            .collect()
    };
    let cases: Vec<FoldCase> = e
        .options
        .cases
        .iter()
        .map(|name| FoldCase {
            name,
            triggers: Vec::new(),
            only_with_only: false,
            with: on(name, Arm::With),
            without: on(name, Arm::Without),
            advisories: Vec::new(),
        })
        .filter(|c| !c.with.is_empty() || !c.without.is_empty())
        .collect();
    let ctx = ReduceContext {
        item,
        model: e.model.clone(),
        max_cost_usd: crate::config::MAX_COST_USD,
        started: Some(e.started_at),
    };
    let totals = Totals {
        cost_usd: e.cost_usd,
        partial: None,
    };
    let mut doc = crate::reduce::fold(&cases, &ctx, e.started_at, &totals, label)?;
    doc.run = e.run.clone();
    doc.date = e.date.clone();
    doc.trigger_rate = e.trigger_rate;
    doc.partial |= e.partial;
    doc.suite_digest = e.suite_digest.clone();
    for case in &mut doc.cases {
        case.digest = used
            .iter()
            .find(|r| r.key.case == case.name)
            .map(|r| r.key.case_digest.clone());
    }
    doc.item_digest = used
        .iter()
        .find(|r| r.key.arm == Arm::With)
        .map(|r| r.key.item_digest.clone());
    let conditions = evaluation_conditions(e, &used);
    Ok(ResolvedSide {
        spec: spec.to_string(),
        source,
        conditions,
        runs: run_ids(&used),
        doc,
    })
}

/// What a document says it was held to.
fn document_conditions(doc: &SkillEval) -> Conditions {
    let env = doc.platform_env.as_ref().map_or_else(
        || "none".to_string(),
        |env| {
            env.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        },
    );
    let or_none = |v: &Option<String>| Some(v.clone().unwrap_or_else(|| "none".into()));
    Conditions {
        suite_digest: doc.suite_digest.clone(),
        item_digest: doc.item_digest.clone(),
        platform_env: Some(env),
        scaffold: or_none(&doc.scaffold),
        mcp_servers: or_none(&doc.mcp_servers),
        ..Conditions::default()
    }
}

/// What the flags a document records say it was held to (its judge, its
/// tools), spelt as a kept evaluation spells them: for a document whose
/// evaluation the store does not keep (a file from another machine). Nothing
/// for a document that records no flags, or flags this version cannot read.
fn flag_conditions(doc: &SkillEval) -> Conditions {
    use crate::document::flags::values;
    let Some(flags) = doc.flags.as_deref() else {
        return Conditions::default();
    };
    let (Ok(judge), Ok(grants), Ok(denials)) = (
        values(flags, "judge-model"),
        values(flags, "allow-tools"),
        values(flags, "disallow-tools"),
    ) else {
        return Conditions::default();
    };
    // `--allow-tools A,B` as the command line splits it.
    let split = |v: Vec<&String>| -> Vec<String> {
        v.iter()
            .flat_map(|s| s.split(','))
            .map(str::to_owned)
            .collect()
    };
    Conditions {
        judge_model: Some(
            judge
                .last()
                .map_or_else(|| "default".into(), |j| crate::config::canonical_model(j)),
        ),
        tools: Some(crate::evidence::RunKey::tool_list(
            &split(grants),
            &split(denials),
        )),
        ..Conditions::default()
    }
}

/// What a kept evaluation says it was held to.
fn evaluation_conditions(e: &Evaluation, used: &[StoredRun]) -> Conditions {
    Conditions {
        suite_digest: e.suite_digest.clone(),
        item_digest: used
            .iter()
            .find(|r| r.key.arm == Arm::With)
            .map(|r| r.key.item_digest.clone()),
        judge_model: Some(e.options.judge_model.clone()),
        platform_version: e.options.platform_version.clone(),
        options: Some(e.options.options.clone()),
        tools: Some(e.options.tools.clone()),
        runs: Some(e.options.runs.clone()),
        filtered: Some(e.filtered),
        ..Conditions::default()
    }
}

/// `into` with every field it does not state taken from `from`.
fn merge(into: &mut Conditions, from: Conditions) {
    macro_rules! fill {
        ($($f:ident),*) => { $( if into.$f.is_none() { into.$f = from.$f; } )* };
    }
    fill!(
        suite_digest,
        item_digest,
        judge_model,
        platform_version,
        options,
        tools,
        runs,
        filtered,
        platform_env,
        scaffold,
        mcp_servers
    );
}
