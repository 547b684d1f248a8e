//! `bob-eval compare A B`: two evaluations of an item side by side, case by
//! case. Each side is resolved ([`resolve`]) to a `skill-eval/1` document and
//! what it was held to; [`compare`] is the pure comparison the command
//! renders: each arm's score with its interval, the delta of deltas (B's
//! delta minus A's, with a score interval over the four arms), the graders
//! whose pass shares changed, the answers kept for each arm, and every way
//! the two are not like for like.

mod resolve;

pub use resolve::{ResolvedSide, SideSpec, Want, kept_answer, resolve};

use crate::document::{ArmCount, CaseEval, Figures, GraderEval, SkillEval, SuiteFigures};
use crate::evidence::Arm;
use crate::stats::{CONFIDENCE, Part, score_interval};
use serde::Serialize;

/// The `schema` of `compare --json`.
pub const SCHEMA: &str = "bob-eval-compare/1";

/// The method of every interval shown, in words (stated once per output).
pub const METHOD: &str = "an arm's mean: Wilson score interval; a delta and the delta of deltas: continuity-corrected score interval over the arms' runs (docs/statistics.md)";

/// Two evaluations compared (`compare --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalComparison {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The confidence of the intervals computed here (the delta of deltas);
    /// each side's own intervals carry theirs.
    pub confidence: f64,
    /// [`METHOD`].
    pub method: &'static str,
    /// The first evaluation (the reference).
    pub a: SideSummary,
    /// The second (the one compared with it).
    pub b: SideSummary,
    /// True when nothing in [`EvalComparison::differences`] stands between them.
    pub like_for_like: bool,
    /// What differs between the two besides the item's own files.
    pub differences: Vec<Difference>,
    /// Whether the item's files differ (the change under study): `null` when
    /// a side does not say.
    pub item_changed: Option<bool>,
    /// B's suite delta minus A's, with its interval when both sides kept
    /// their cases' intervals.
    pub delta_of_deltas: CompareFigure,
    /// Every case of either side, A's order first.
    pub cases: Vec<CaseComparison>,
    /// True when some answer was kept for some run compared.
    pub answers_kept: bool,
}

/// A number and, when known, its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CompareFigure {
    /// The estimate.
    pub value: f64,
    /// Lower limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    /// Upper limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
}

impl CompareFigure {
    /// A bare number.
    pub fn bare(value: f64) -> CompareFigure {
        CompareFigure {
            value,
            low: None,
            high: None,
        }
    }

    fn of(e: &crate::stats::Estimate) -> CompareFigure {
        CompareFigure {
            value: e.value,
            low: Some(e.interval.low),
            high: Some(e.interval.high),
        }
    }
}

/// One side as the output names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideSummary {
    /// The argument as given (`best`, `last~1`, a file, a run id).
    pub spec: String,
    /// Where the evaluation was read, in words.
    pub source: String,
    /// The evaluation's run id.
    pub run: String,
    /// The item.
    pub item: String,
    /// The model.
    pub model: String,
    /// Its day.
    pub date: String,
    /// The suite's `with`.
    pub with: CompareFigure,
    /// The suite's `without`.
    pub without: CompareFigure,
    /// The suite's `delta`.
    pub delta: CompareFigure,
    /// The confidence of the side's own intervals, when it states them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// The with arm's trigger rate.
    pub trigger_rate: Option<f64>,
    /// True when not every case ran comparably.
    pub partial: bool,
    /// What it was held to, as far as it says.
    pub conditions: Conditions,
    /// The suite's cost, turns and duration per run per arm with their
    /// ratios, as the document states them; absent when it has none
    /// (written before bob-eval measured efficiency).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<SideEfficiency>,
}

/// A side's suite efficiency and the confidence of its intervals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideEfficiency {
    /// The confidence of its intervals, as the document states it.
    pub confidence: f64,
    /// The suite's figures.
    #[serde(flatten)]
    pub suite: SuiteFigures,
}

/// What an evaluation was held to: the fields two evaluations must share to
/// be like for like. `None`: the side does not say.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Conditions {
    /// The suite's digest.
    pub suite_digest: Option<String>,
    /// The item's digest (its version).
    pub item_digest: Option<String>,
    /// The judge model as asked.
    pub judge_model: Option<String>,
    /// The platform's version.
    pub platform_version: Option<String>,
    /// The digest of the options that change an outcome.
    pub options: Option<String>,
    /// The tool grants and denials.
    pub tools: Option<Vec<String>>,
    /// `--runs` as asked.
    pub runs: Option<String>,
    /// True when `--case`/`--tag` left cases out.
    pub filtered: Option<bool>,
    /// `--platform-env` variables, `k=v`.
    pub platform_env: Option<String>,
    /// `--scaffold` / `--no-scaffold`.
    pub scaffold: Option<String>,
    /// `--mocks off` / `--allow-real-servers`.
    pub mcp_servers: Option<String>,
}

/// One way the two sides are not like for like.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// What differs (`item`, `model`, `suite`, `judge_model`, …).
    pub what: &'static str,
    /// A's value, in words.
    pub a: String,
    /// B's value, in words.
    pub b: String,
}

/// Which sides hold a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Presence {
    /// Both.
    Both,
    /// A only (removed, or left out of B).
    OnlyA,
    /// B only (added, or left out of A).
    OnlyB,
}

/// One case compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseComparison {
    /// The case's name.
    pub name: String,
    /// Which sides hold it.
    pub presence: Presence,
    /// True when its folder's digest differs between the sides (it was
    /// edited); `null` when either side does not say or holds it not.
    pub edited: Option<bool>,
    /// A's numbers.
    pub a: Option<CaseSideFigures>,
    /// B's numbers.
    pub b: Option<CaseSideFigures>,
    /// B's delta minus A's, when both have one.
    pub delta_of_deltas: Option<CompareFigure>,
    /// Every grader of either side, with its passes per arm on each.
    pub graders: Vec<GraderChange>,
    /// The first answer kept of each arm on each side.
    pub answers: Answers,
}

/// A case's numbers on one side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseSideFigures {
    /// Mean with-arm score.
    pub with: CompareFigure,
    /// Mean without-arm score, when that arm ran.
    pub without: Option<CompareFigure>,
    /// `with - without`.
    pub delta: Option<CompareFigure>,
    /// Runs per arm, when the side says (`[with, without]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<[u32; 2]>,
    /// The case's cost, turns and duration per run and their ratios, when
    /// the side's document measured them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<Figures>,
}

/// One grader's passes on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraderChange {
    /// The grader's name.
    pub name: String,
    /// Its passes per arm on A; absent when A has no such grader (or no detail).
    pub a: Option<GraderArms>,
    /// The same on B.
    pub b: Option<GraderArms>,
    /// True when its pass share moved on either arm, or only one side has it.
    pub changed: bool,
}

/// A grader's passes on both arms of one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GraderArms {
    /// With the item.
    pub with: ArmCount,
    /// Without it.
    pub without: Option<ArmCount>,
}

/// The answers kept for a case, per arm and side (`None`: not kept).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Answers {
    /// With arm: A's, then B's.
    pub with: [Option<String>; 2],
    /// Without arm: A's, then B's.
    pub without: [Option<String>; 2],
}

/// Compare `a` with `b`, the two resolved sides; `store` is read only for
/// the answers kept ([`kept_answer`]).
pub fn compare(
    a: &ResolvedSide,
    b: &ResolvedSide,
    store: Option<&crate::evidence::Store>,
) -> EvalComparison {
    let differences = differences(a, b);
    let item_changed = match (&a.conditions.item_digest, &b.conditions.item_digest) {
        (Some(x), Some(y)) => Some(x != y),
        _ => None,
    };
    let mut names: Vec<&str> = a.doc.cases.iter().map(|c| c.name.as_str()).collect();
    for c in &b.doc.cases {
        if !names.contains(&c.name.as_str()) {
            names.push(&c.name);
        }
    }
    let cases: Vec<CaseComparison> = names.iter().map(|n| case(a, b, n, store)).collect();
    let answers_kept = cases.iter().any(|c| {
        c.answers
            .with
            .iter()
            .chain(&c.answers.without)
            .any(Option::is_some)
    });
    EvalComparison {
        schema: SCHEMA,
        confidence: CONFIDENCE,
        method: METHOD,
        a: summary(a),
        b: summary(b),
        like_for_like: differences.is_empty(),
        differences,
        item_changed,
        delta_of_deltas: suite_delta_of_deltas(&a.doc, &b.doc),
        cases,
        answers_kept,
    }
}

fn summary(side: &ResolvedSide) -> SideSummary {
    let doc = &side.doc;
    let suite = doc.stats.as_ref().map(|s| &s.suite);
    let fig = |e: Option<&crate::stats::Estimate>, v: f64| {
        e.map_or(CompareFigure::bare(v), CompareFigure::of)
    };
    SideSummary {
        spec: side.spec.clone(),
        source: side.source.clone(),
        run: doc.run.clone(),
        item: doc.item.to_string(),
        model: doc.model.clone(),
        date: doc.date.clone(),
        with: fig(suite.map(|s| &s.with), doc.with),
        without: fig(suite.map(|s| &s.without), doc.without),
        delta: fig(suite.map(|s| &s.delta), doc.delta),
        confidence: doc.stats.as_ref().map(|s| s.confidence),
        trigger_rate: doc.trigger_rate,
        partial: doc.partial,
        conditions: side.conditions.clone(),
        efficiency: doc.efficiency.as_ref().map(|e| SideEfficiency {
            confidence: e.confidence,
            suite: e.suite.clone(),
        }),
    }
}

/// Every way `a` and `b` are not like for like: a field both state and
/// state differently, the suite's cases (added, removed, edited) among them.
fn differences(a: &ResolvedSide, b: &ResolvedSide) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut push = |what: &'static str, x: Option<String>, y: Option<String>| {
        if let (Some(x), Some(y)) = (x, y)
            && x != y
        {
            out.push(Difference { what, a: x, b: y });
        }
    };
    let (ca, cb) = (&a.conditions, &b.conditions);
    push(
        "item",
        Some(a.doc.item.to_string()),
        Some(b.doc.item.to_string()),
    );
    push(
        "model",
        Some(crate::config::canonical_model(&a.doc.model)),
        Some(crate::config::canonical_model(&b.doc.model)),
    );
    if let Some((x, y)) = suite_words(a, b) {
        push("suite", Some(x), Some(y));
    }
    push(
        "judge_model",
        ca.judge_model.clone(),
        cb.judge_model.clone(),
    );
    push(
        "platform_version",
        ca.platform_version.clone(),
        cb.platform_version.clone(),
    );
    push("options", ca.options.clone(), cb.options.clone());
    let tools = |c: &Conditions| c.tools.as_ref().map(|t| t.join(" "));
    push("tools", tools(ca), tools(cb));
    let filtered = |c: &Conditions| {
        c.filtered
            .map(|f| if f { "some cases" } else { "every case" }.to_string())
    };
    push("filtered", filtered(ca), filtered(cb));
    let or_none = |v: &Option<String>| Some(v.clone().unwrap_or_else(|| "none".into()));
    for (what, x, y) in [
        ("platform_env", &ca.platform_env, &cb.platform_env),
        ("scaffold", &ca.scaffold, &cb.scaffold),
        ("mcp_servers", &ca.mcp_servers, &cb.mcp_servers),
    ] {
        push(what, or_none(x), or_none(y));
    }
    out
}

/// How the two suites differ, each side in words, when they do: cases
/// only on one side, cases edited between them, or (when neither says per
/// case) the digests.
fn suite_words(a: &ResolvedSide, b: &ResolvedSide) -> Option<(String, String)> {
    let names = |d: &SkillEval| -> Vec<String> { d.cases.iter().map(|c| c.name.clone()).collect() };
    let (na, nb) = (names(&a.doc), names(&b.doc));
    let only = |x: &[String], y: &[String]| -> Vec<String> {
        x.iter().filter(|n| !y.contains(n)).cloned().collect()
    };
    let edited: Vec<String> = a
        .doc
        .cases
        .iter()
        .filter(|c| case_edited(c, b.doc.cases.iter().find(|d| d.name == c.name)) == Some(true))
        .map(|c| c.name.clone())
        .collect();
    let (only_a, only_b) = (only(&na, &nb), only(&nb, &na));
    if only_a.is_empty() && only_b.is_empty() && edited.is_empty() {
        let (x, y) = (&a.conditions.suite_digest, &b.conditions.suite_digest);
        return match (x, y) {
            (Some(x), Some(y)) if x != y => Some((short(x), short(y))),
            _ => None,
        };
    }
    let words = |only: &[String], side: &str| {
        let mut parts = Vec::new();
        if !only.is_empty() {
            parts.push(format!("only {side} has {}", only.join(", ")));
        }
        if !edited.is_empty() {
            parts.push(format!("edited: {}", edited.join(", ")));
        }
        if parts.is_empty() {
            parts.push(format!(
                "{} case(s)",
                if side == "A" { na.len() } else { nb.len() }
            ));
        }
        parts.join("; ")
    };
    Some((words(&only_a, "A"), words(&only_b, "B")))
}

/// A digest cut to 12 characters for people.
fn short(digest: &str) -> String {
    digest.chars().take(12).collect()
}

/// Whether `c`'s folder differs from `other`'s; `None` when either does not say.
fn case_edited(c: &CaseEval, other: Option<&CaseEval>) -> Option<bool> {
    Some(c.digest.as_ref()? != other?.digest.as_ref()?)
}

fn case(
    a: &ResolvedSide,
    b: &ResolvedSide,
    name: &str,
    store: Option<&crate::evidence::Store>,
) -> CaseComparison {
    let ca = a.doc.cases.iter().find(|c| c.name == name);
    let cb = b.doc.cases.iter().find(|c| c.name == name);
    let presence = match (ca, cb) {
        (Some(_), Some(_)) => Presence::Both,
        (Some(_), None) => Presence::OnlyA,
        _ => Presence::OnlyB,
    };
    let answer = |side: &ResolvedSide, arm: Arm| {
        side.first_run(name, arm)
            .and_then(|id| kept_answer(store, id))
    };
    CaseComparison {
        name: name.to_string(),
        presence,
        edited: ca.and_then(|c| case_edited(c, cb)),
        a: ca.map(|c| arms(&a.doc, c)),
        b: cb.map(|c| arms(&b.doc, c)),
        delta_of_deltas: ca.zip(cb).and_then(|(x, y)| case_delta_of_deltas(x, y)),
        graders: graders(ca, cb),
        answers: Answers {
            with: [answer(a, Arm::With), answer(b, Arm::With)],
            without: [answer(a, Arm::Without), answer(b, Arm::Without)],
        },
    }
}

fn arms(doc: &SkillEval, c: &CaseEval) -> CaseSideFigures {
    let s = c.stats.as_ref();
    CaseSideFigures {
        with: s.map_or(CompareFigure::bare(c.with), |s| CompareFigure::of(&s.with)),
        without: c
            .without
            .map(|v| s.map_or(CompareFigure::bare(v), |s| CompareFigure::of(&s.without))),
        delta: c
            .delta
            .map(|v| s.map_or(CompareFigure::bare(v), |s| CompareFigure::of(&s.delta))),
        runs: s.map(|s| [s.runs_with, s.runs_without]),
        efficiency: doc
            .efficiency
            .as_ref()
            .and_then(|e| e.cases.iter().find(|f| f.name == c.name))
            .map(|f| f.figures.clone()),
    }
}

/// The four parts of a case's delta on one side, weighted by `coef` (the
/// mean score times the runs is the score sum, to the document's 4 decimals).
fn delta_parts(c: &CaseEval, coef: f64) -> Option<[Part; 2]> {
    let s = c.stats.as_ref()?;
    let without = c.without?;
    if s.runs_with == 0 || s.runs_without == 0 {
        return None;
    }
    let part = |coef: f64, mean: f64, n: u32| Part {
        coef,
        sum: mean * f64::from(n),
        n: n as usize,
    };
    Some([
        part(coef, c.with, s.runs_with),
        part(-coef, without, s.runs_without),
    ])
}

fn case_delta_of_deltas(a: &CaseEval, b: &CaseEval) -> Option<CompareFigure> {
    let value = crate::document::round4(b.delta? - a.delta?);
    let interval = delta_parts(a, -1.0)
        .zip(delta_parts(b, 1.0))
        .map(|(x, y)| score_interval(&[x, y].concat(), CONFIDENCE).interval);
    Some(CompareFigure {
        value,
        low: interval.map(|i| crate::document::round4(i.low)),
        high: interval.map(|i| crate::document::round4(i.high)),
    })
}

/// The suite's delta of deltas: B's delta minus A's; its interval over every
/// case's arms of both sides (each a mean over its cases with a without
/// arm), when every such case kept its intervals.
fn suite_delta_of_deltas(a: &SkillEval, b: &SkillEval) -> CompareFigure {
    let value = crate::document::round4(b.delta - a.delta);
    let parts = |d: &SkillEval, sign: f64| -> Option<Vec<Part>> {
        let cases: Vec<&CaseEval> = d.cases.iter().filter(|c| c.without.is_some()).collect();
        if cases.is_empty() {
            return None;
        }
        let k = cases.len() as f64;
        let parts: Option<Vec<[Part; 2]>> =
            cases.iter().map(|c| delta_parts(c, sign / k)).collect();
        parts.map(|p| p.concat())
    };
    let interval = parts(a, -1.0)
        .zip(parts(b, 1.0))
        .map(|(x, y)| score_interval(&[x, y].concat(), CONFIDENCE).interval);
    CompareFigure {
        value,
        low: interval.map(|i| crate::document::round4(i.low)),
        high: interval.map(|i| crate::document::round4(i.high)),
    }
}

fn graders(a: Option<&CaseEval>, b: Option<&CaseEval>) -> Vec<GraderChange> {
    let list = |c: Option<&CaseEval>| -> Vec<GraderEval> {
        c.and_then(|c| c.graders.clone()).unwrap_or_default()
    };
    let (ga, gb) = (list(a), list(b));
    let mut names: Vec<&str> = ga.iter().map(|g| g.name.as_str()).collect();
    for g in &gb {
        if !names.contains(&g.name.as_str()) {
            names.push(&g.name);
        }
    }
    let find = |list: &[GraderEval], name: &str| {
        list.iter().find(|g| g.name == name).map(|g| GraderArms {
            with: g.with,
            without: g.without,
        })
    };
    names
        .into_iter()
        .map(|name| {
            let (x, y) = (find(&ga, name), find(&gb, name));
            let changed = match (x, y) {
                (Some(x), Some(y)) => {
                    share_moved(Some(x.with), Some(y.with)) || share_moved(x.without, y.without)
                }
                _ => true,
            };
            GraderChange {
                name: name.to_string(),
                a: x,
                b: y,
                changed,
            }
        })
        .collect()
}

/// True when the pass shares of two counts differ (3/3 and 5/5 do not).
fn share_moved(x: Option<ArmCount>, y: Option<ArmCount>) -> bool {
    match (x, y) {
        (Some(x), Some(y)) => {
            u64::from(x.passed) * u64::from(y.runs) != u64::from(y.passed) * u64::from(x.runs)
        }
        (None, None) => false,
        _ => true,
    }
}
