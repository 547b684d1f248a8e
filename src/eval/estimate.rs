//! `--dry-run`: what an evaluation would buy and reuse, and what it would
//! cost, from the evidence store alone. No platform call (not even `claude
//! --version`): the platform version, part of every key, is assumed to be the
//! one of the item's last stored run.

use super::neighbours::CompetitionPlan;
use super::options::resolve_keeping;
use super::plan::{self, Plan};
use super::{EvalOptions, evidence_path};
use crate::config::ItemName;
use crate::config::{self, Context};
use crate::document::round4;
use crate::error::{Error, Result};
use crate::evidence::{Arm, PastCosts, Store};
use serde::{Deserialize, Serialize};

/// The `schema` of an estimate in `--json`.
pub const SCHEMA: &str = "bob-eval-estimate/1";

/// What a dry run found for one item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemEstimate {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// The item.
    pub item: String,
    /// The model as asked.
    pub model: String,
    /// The platform version the lookup assumed: that of the item's last
    /// stored run; `None` when none is stored (then nothing is reused).
    pub platform_version: Option<String>,
    /// `--fresh`: nothing reused.
    pub fresh: bool,
    /// `--runs auto:MAX`: the estimate is for MAX runs per arm, an upper bound.
    pub auto_max: Option<u32>,
    /// Per case, in suite order.
    pub cases: Vec<CaseEstimate>,
    /// The platform calls the evaluation would make.
    pub calls: Vec<CallEstimate>,
    /// Runs that would be bought.
    pub buy_runs: u32,
    /// Runs that would be reused from the store.
    pub reuse_runs: u32,
    /// Estimated dollars for the runs with a basis; `None` when no bought run has one.
    pub estimate_usd: Option<f64>,
    /// Runs bought with no basis for an estimate (nothing stored on the model).
    pub unestimated_runs: u32,
    /// The ceiling the run would be held to.
    pub max_cost_usd: f64,
    /// True when the estimate exceeds the ceiling: the run would stop part way.
    pub exceeds_ceiling: bool,
    /// What a decision on the suite costs at the minimum effect of interest,
    /// from the store's cost per run ([`super::price::price`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<super::price::Price>,
    /// `--neighbours`: the trigger pair's runs among the neighbours, bought
    /// after the suite's (counted in `buy_runs` and the estimate).
    #[serde(default)]
    pub neighbours: Option<NeighboursEstimate>,
    /// `--runs auto`: the runs the first round buys (every case's first
    /// look, less what the store holds); later rounds depend on what it finds.
    #[serde(default)]
    pub first_round_buy: Option<u32>,
    /// The model the judge's part is priced at (the platform judges with
    /// the main model when `--judge-model` is not given); `None` when no
    /// case is judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_priced_at: Option<String>,
    /// True when some bought run is priced roughly ([`Basis::rough`]).
    #[serde(default)]
    pub rough: bool,
    /// `--runs auto`: its rounds and the range it may cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<AutoEstimate>,
    /// Fresh without-arm runs bought per case beside the stored ones they
    /// renew, on the cases that buy any: under fixed runs once a later
    /// evaluation has compared those again (`plan::fixed_top_up`), under
    /// auto in its first round; 0 when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub top_up: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// What `--runs auto` may buy: a first round, then a look after each later
/// round while the call is open, up to MAX runs per arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutoEstimate {
    /// Runs per arm of each case at each look, the first round's first.
    pub looks: Vec<u32>,
    /// MAX: runs per arm of a case at most.
    pub max_per_arm: u32,
    /// Runs the first round buys (less what the store holds).
    pub least_runs: u32,
    /// Dollars of the first round: the least it costs.
    pub least_usd: Option<f64>,
    /// Runs bought when every case runs to MAX.
    pub most_runs: u32,
    /// Dollars at MAX: the most it costs (before the ceiling).
    pub most_usd: Option<f64>,
    /// The confidence mode's level its stopping rule is planned at; absent
    /// under the bare rule's defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence_mode: Option<f64>,
}

/// The `--neighbours` part of an [`ItemEstimate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeighboursEstimate {
    /// Items loaded, the item included.
    pub items: usize,
    /// The trigger cases run, each with its runs (on one arm, never reused).
    pub cases: Vec<NeighbourCaseEstimate>,
    /// Runs bought in all.
    pub buy: u32,
    /// Estimated dollars per run (the trigger cases' past with-arm runs,
    /// else every run's on the model).
    pub per_run_usd: Option<f64>,
    /// `buy` × `per_run_usd`.
    pub cost_usd: Option<f64>,
}

/// One trigger case of a [`NeighboursEstimate`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeighbourCaseEstimate {
    /// `fires` or `quiet`.
    pub case: String,
    /// Runs bought.
    pub runs: u32,
}

/// One case of an [`ItemEstimate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseEstimate {
    /// The case.
    pub case: String,
    /// With, then without.
    pub arms: Vec<ArmEstimate>,
}

/// One arm of a case in an [`ItemEstimate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmEstimate {
    /// The arm.
    pub arm: Arm,
    /// Runs the document would be made from.
    pub runs: u32,
    /// Runs that would be bought.
    pub buy: u32,
    /// Runs that would be reused.
    pub reuse: u32,
    /// Estimated dollars per bought run.
    pub per_run_usd: Option<f64>,
    /// Where `per_run_usd` comes from.
    pub basis: Basis,
    /// `buy` × `per_run_usd`.
    pub cost_usd: Option<f64>,
}

/// Where a per-run estimate comes from ([`super::rates::per_run`]), the
/// nearest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The mean of this case's past runs on the model (this arm's, else either arm's).
    Case,
    /// The mean per run of every past run on the model.
    Model,
    /// Rough: runs on other models (or at another judge) priced for this one.
    Scaled,
    /// Rough: no run stored at all; a typical run at the model's price
    /// ([`super::rates`]).
    Default,
    /// A model of no known price and nothing stored on it: no estimate.
    None,
}

impl Basis {
    /// True when the estimate is not this model's own measure.
    pub fn rough(self) -> bool {
        self >= Basis::Scaled
    }
}

/// One platform call of an [`ItemEstimate`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallEstimate {
    /// `--case`, or `None` for the whole suite.
    pub case: Option<String>,
    /// `--runs`, or `None`: each case its own.
    pub runs: Option<u32>,
    /// `with-without`, or `none` (the with arm alone).
    pub ablation: String,
}

/// What evaluating `item` under `opts` would buy, reuse and cost. Refuses
/// what the evaluation would refuse for free (the item, the options, a suite
/// `check` refuses); never starts the platform and never creates the store.
pub fn estimate(ctx: &Context, item: &ItemName, opts: &EvalOptions) -> Result<ItemEstimate> {
    if opts.platform_result.is_some() {
        return Err(Error::Usage(
            "--dry-run with --platform-result: nothing would be bought (the result is reduced as it is)".into(),
        ));
    }
    let asked = opts;
    let mut opts = opts.clone();
    if let Some(max) = opts.auto {
        opts.runs = Some(max);
    }
    let (run, settings) = resolve_keeping(ctx, &opts)?;
    let found = crate::item::find(&ctx.source, item)?;
    config::existing_suite(&ctx.source, item)?;
    crate::check::preflight(&ctx.source, item)?;
    let mut plan = super::plan(ctx, &found, &opts, &run)?;
    // As the evaluation decides them: the neighbours' runs from `--runs` as
    // given (each case its own under auto), auto's rounds from its policy.
    let competition = match &asked.neighbours {
        Some(names) => Some(super::neighbours::plan(
            &ctx.source,
            &found,
            names,
            asked.runs,
        )?),
        None => None,
    };
    // As the evaluation resolves it: `--rule bare` drops the settings' level.
    let level = config::resolve_mode(asked.confidence, asked.rule, false, &settings)?.level();
    let min_effect = config::resolve_min_effect(asked.min_effect, &settings)?;
    let path = evidence_path(ctx, &opts);
    // Read, never written: a dry run neither upgrades nor creates the store.
    let store = if path.exists() {
        Some(Store::open_read_only(&path)?)
    } else {
        None
    };
    let held = super::buying_level(level, asked, item, &run.model, || match &store {
        Some(store) => store.decisions(&[item.to_string()]),
        None => Ok(Vec::new()),
    })?;
    let level = held.map(|(level, _)| level);
    let sequence = held.and_then(|(_, sequence)| sequence);
    let version = match &store {
        Some(store) => store.last_platform_version(item)?,
        None => None,
    };
    // Auto's MAX as the evaluation plans it: the runs per arm it may buy,
    // planned again from the stored without-arm runs it would count.
    let mut archive: Vec<Vec<f64>> = Vec::new();
    let policy = match asked.auto {
        Some(max) => {
            let mut policy = super::auto_policy(max, level, plan.cases.len(), min_effect);
            if let (Some(store), Some(version)) = (&store, &version) {
                let found =
                    super::auto::archive_from_store(store, &plan, version, &policy, opts.fresh)?;
                (archive, policy.top_up) = (found.scores(), found.policy.top_up);
                policy.max_per_arm = policy.for_archive(plan.cases.len(), &archive).max_per_arm;
            }
            Some(policy)
        }
        None => None,
    };
    if let Some(policy) = &policy
        && opts.runs != Some(policy.max_per_arm)
    {
        opts.runs = Some(policy.max_per_arm);
        opts.auto = Some(policy.max_per_arm);
        plan = super::plan(ctx, &found, &opts, &run)?;
    }
    let looks = policy.map(|p| p.schedule());
    let stored = match (&store, &version) {
        (Some(store), Some(version)) if !opts.fresh => {
            let most = plan.cases.iter().map(|c| c.runs).max().unwrap_or(1) as usize;
            store.lookup(&plan.keys(version), most)?
        }
        _ => vec![Vec::new(); plan.cases.len() * 2],
    };
    let costs = match &store {
        Some(store) => store.past_costs(item, &plan.model)?,
        None => PastCosts::default(),
    };
    // The top-up fixed runs buy, as the purchase decides it (auto's rounds
    // are priced from its policy, which holds its own).
    let need = match &store {
        Some(store) if opts.auto.is_none() => {
            plan::fixed_need(store, &plan, &stored, (opts.fresh, opts.best))?
        }
        _ => plan::missing(&plan, &stored),
    };
    let calls = plan::calls(&plan, &need, opts.runs);
    let top_up = match &policy {
        Some(policy) if archive.iter().any(|a| !a.is_empty()) => policy.top_up,
        Some(_) => 0,
        None => plan::renewed(&plan, &stored, &need)
            .iter()
            .map(|&(_, n)| n)
            .max()
            .unwrap_or(0),
    };
    let cases: Vec<String> = plan.cases.iter().map(|c| c.name.clone()).collect();
    let most = opts
        .auto
        .unwrap_or_else(|| plan.cases.iter().map(|c| c.runs).max().unwrap_or(1));
    let price = super::price::price_held(
        &costs,
        &cases,
        min_effect,
        sequence.as_ref(),
        &super::price::Archive {
            scores: &archive,
            auto: policy.as_ref(),
        },
        most,
        run.max_cost_usd,
    );
    let have: Vec<usize> = stored.iter().map(Vec::len).collect();
    let mut estimate = tally(
        &plan,
        &have,
        &calls,
        &costs,
        Header {
            version,
            fresh: opts.fresh,
            auto_max: opts.auto,
            max_cost_usd: run.max_cost_usd,
        },
    );
    estimate.price = Some(price.or_rough(&estimate));
    estimate.top_up = top_up;
    if let (Some(looks), Some(max)) = (looks, opts.auto) {
        let (least_runs, least_usd) = first_round(&plan, &have, looks[0], &estimate);
        estimate.first_round_buy = Some(least_runs);
        estimate.auto = Some(AutoEstimate {
            looks,
            max_per_arm: max,
            least_runs,
            least_usd: least_usd.map(round4),
            most_runs: estimate.buy_runs,
            most_usd: estimate.estimate_usd,
            confidence_mode: level,
        });
    }
    if let Some(competition) = competition {
        add_neighbours(&mut estimate, &plan, &competition, &costs);
    }
    Ok(estimate)
}

/// What `--runs auto`'s first round buys: every case `first` runs per arm,
/// served first from the `have` runs stored per key, as the round does; and
/// its dollars at the per-run estimates of `priced` (`None` when a bought
/// run has none).
fn first_round(
    plan: &Plan,
    have: &[usize],
    first: u32,
    priced: &ItemEstimate,
) -> (u32, Option<f64>) {
    let mut usd = Some(0.0);
    let runs = (0..plan.cases.len())
        .map(|i| {
            let lacking = [0, 1].map(|arm| {
                let stored =
                    u32::try_from(have.get(2 * i + arm).copied().unwrap_or(0)).unwrap_or(u32::MAX);
                first.saturating_sub(stored)
            });
            let bought = plan::bought_by_calls(plan, &plan::case_calls(i, lacking), i);
            for (arm, n) in bought.into_iter().enumerate() {
                let per_run = priced.cases[i].arms[arm].per_run_usd;
                usd = match (usd, per_run) {
                    (_, _) if n == 0 => usd,
                    (Some(u), Some(p)) => Some(u + p * f64::from(n)),
                    _ => None,
                };
            }
            bought.iter().sum::<u32>()
        })
        .sum();
    (runs, usd)
}

/// Count the `--neighbours` runs of `competition` in `estimate`: bought every
/// time (never reused), each trigger case priced as its with arm is.
fn add_neighbours(
    estimate: &mut ItemEstimate,
    plan: &Plan,
    competition: &CompetitionPlan,
    costs: &PastCosts,
) {
    let buy = competition.runs();
    let mut priced = competition.cases.iter().map(|(case, runs)| {
        let judges = plan
            .cases
            .iter()
            .find(|c| &c.name == case)
            .map_or(0, |c| c.judges);
        let (per_run, basis) = super::rates::per_run(
            costs,
            case,
            Arm::With,
            judges,
            &plan.model,
            &plan.judge_model,
        );
        (per_run.map(|x| x * f64::from(*runs)), basis)
    });
    let (cost, rough) = priced
        .try_fold((0.0, false), |(usd, rough), (cost, basis)| {
            Some((usd + cost?, rough || basis.rough()))
        })
        .map_or((None, false), |(usd, rough)| (Some(usd), rough));
    estimate.rough |= rough;
    let per_run = cost.filter(|_| buy > 0).map(|c| c / f64::from(buy));
    estimate.buy_runs += buy;
    match cost {
        Some(c) => {
            estimate.estimate_usd = Some(round4(estimate.estimate_usd.unwrap_or(0.0) + c));
        }
        None => estimate.unestimated_runs += buy,
    }
    estimate.exceeds_ceiling = estimate
        .estimate_usd
        .is_some_and(|e| e > estimate.max_cost_usd);
    estimate.neighbours = Some(NeighboursEstimate {
        items: competition.items(),
        cases: competition
            .cases
            .iter()
            .map(|(case, runs)| NeighbourCaseEstimate {
                case: case.clone(),
                runs: *runs,
            })
            .collect(),
        buy,
        per_run_usd: per_run.map(round4),
        cost_usd: cost.map(round4),
    });
}

/// What an [`ItemEstimate`] says beyond the plan and the store.
struct Header {
    version: Option<String>,
    fresh: bool,
    auto_max: Option<u32>,
    max_cost_usd: f64,
}

/// The estimate from the plan, the runs stored per key, the calls and the past costs.
fn tally(
    plan: &Plan,
    stored: &[usize],
    calls: &[plan::Call],
    costs: &PastCosts,
    header: Header,
) -> ItemEstimate {
    let mut cases = Vec::with_capacity(plan.cases.len());
    let (mut buy_runs, mut reuse_runs, mut unestimated, mut total) = (0, 0, 0, None::<f64>);
    let mut rough = false;
    for (i, case) in plan.cases.iter().enumerate() {
        let bought = plan::bought_by_calls(plan, calls, i);
        let arms = [Arm::With, Arm::Without]
            .into_iter()
            .enumerate()
            .map(|(a, arm)| {
                let have =
                    u32::try_from(stored.get(2 * i + a).copied().unwrap_or(0)).unwrap_or(u32::MAX);
                let buy = bought[a];
                let reuse = have.min(case.runs.saturating_sub(buy));
                let (per_run, basis) = super::rates::per_run(
                    costs,
                    &case.name,
                    arm,
                    case.judges,
                    &plan.model,
                    &plan.judge_model,
                );
                rough |= buy > 0 && basis.rough();
                let cost = per_run.map(|x| x * f64::from(buy));
                buy_runs += buy;
                reuse_runs += reuse;
                match cost {
                    Some(c) if buy > 0 => *total.get_or_insert(0.0) += c,
                    None => unestimated += buy,
                    _ => {}
                }
                ArmEstimate {
                    arm,
                    runs: case.runs,
                    buy,
                    reuse,
                    per_run_usd: per_run.map(round4),
                    basis,
                    cost_usd: cost.map(round4),
                }
            })
            .collect();
        cases.push(CaseEstimate {
            case: case.name.clone(),
            arms,
        });
    }
    if buy_runs == 0 {
        total = Some(0.0);
    }
    let estimate_usd = total.map(round4);
    ItemEstimate {
        schema: SCHEMA.into(),
        item: plan.item.to_string(),
        model: plan.model.clone(),
        platform_version: header.version,
        fresh: header.fresh,
        auto_max: header.auto_max,
        cases,
        calls: calls
            .iter()
            .map(|c| CallEstimate {
                case: c.case.map(|i| plan.cases[i].name.clone()),
                runs: c.runs,
                ablation: c.ablation.as_str().to_string(),
            })
            .collect(),
        buy_runs,
        reuse_runs,
        estimate_usd,
        unestimated_runs: unestimated,
        max_cost_usd: header.max_cost_usd,
        price: None,
        exceeds_ceiling: estimate_usd.is_some_and(|e| e > header.max_cost_usd),
        neighbours: None,
        first_round_buy: None,
        judge_priced_at: plan
            .cases
            .iter()
            .any(|c| c.judges > 0)
            .then(|| super::rates::judge_of(&plan.judge_model, &plan.model).to_string()),
        rough,
        auto: None,
        top_up: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::{self, Plan};
    use super::{Basis, Header, tally};
    use crate::document::round4;
    use crate::eval::plan::PlannedCase;
    use crate::evidence::{Arm, CostGroup, PastCosts};

    fn plan() -> Plan {
        Plan {
            item: crate::config::item_name("commit"),
            item_digest: "i".into(),
            cases: ["fires", "quiet"]
                .iter()
                .map(|n| PlannedCase {
                    name: n.to_string(),
                    digest: "d".into(),
                    runs: 3,
                    triggers: vec![],
                    only_with_only: false,
                    scaffold_script: None,
                    judges: 0,
                })
                .collect(),
            filtered: false,
            all_cases: Default::default(),
            model: "haiku".into(),
            judge_model: "default".into(),
            judge_records: vec![],
            tools: vec![],
            options: String::new(),
            platform_env: Default::default(),
            scaffold: false,
        }
    }

    fn group(case: Option<&str>, arm: Arm, model: &str, usd: f64, runs: u64) -> CostGroup {
        CostGroup {
            case: case.map(str::to_owned),
            arm,
            model: model.into(),
            judge_model: "default".into(),
            agent_usd: usd,
            judge_usd: 0.0,
            runs,
        }
    }

    fn header(ceiling: f64) -> Header {
        Header {
            version: Some("2.1.328".into()),
            fresh: false,
            auto_max: None,
            max_cost_usd: ceiling,
        }
    }

    #[test]
    fn an_edited_item_buys_the_with_arm_at_the_cases_past_cost() {
        let p = plan();
        let stored = [0, 3, 0, 3];
        let calls = plan::calls(&p, &[[3, 0], [3, 0]], Some(3));
        let costs = PastCosts {
            groups: vec![
                group(Some("fires"), Arm::With, "haiku", 0.09, 3),
                group(Some("quiet"), Arm::Without, "haiku", 0.03, 3),
                group(None, Arm::With, "haiku", 0.88, 4),
            ],
            ..PastCosts::default()
        };
        let e = tally(&p, &stored, &calls, &costs, header(0.05));
        assert_eq!((e.buy_runs, e.reuse_runs), (6, 6));
        let fires = &e.cases[0].arms;
        assert_eq!((fires[0].buy, fires[0].reuse), (3, 0));
        assert_eq!((fires[1].buy, fires[1].reuse), (0, 3));
        assert_eq!(fires[0].per_run_usd, Some(0.03));
        assert_eq!(fires[0].basis, Basis::Case);
        // quiet's with arm: no with run stored, its without runs stand in.
        assert_eq!(e.cases[1].arms[0].per_run_usd, Some(0.01));
        assert_eq!(e.estimate_usd, Some(0.12));
        assert!(e.exceeds_ceiling);
        assert_eq!(e.calls[0].ablation, "none");
        assert!(!e.rough);
    }

    #[test]
    fn without_a_basis_it_says_so() {
        let mut p = plan();
        p.model = "mystery-1".into();
        let calls = plan::calls(&p, &[[3, 3], [3, 3]], None);
        let e = tally(&p, &[0; 4], &calls, &PastCosts::default(), header(2.0));
        assert_eq!(e.estimate_usd, None);
        assert_eq!(e.unestimated_runs, 12);
        assert!(!e.exceeds_ceiling);
        let costs = PastCosts {
            groups: vec![group(None, Arm::With, "mystery-1", 0.4, 4)],
            ..PastCosts::default()
        };
        let e = tally(&p, &[0; 4], &calls, &costs, header(2.0));
        assert_eq!(e.estimate_usd, Some(1.2));
        assert_eq!(e.cases[0].arms[0].basis, Basis::Model);
        assert!(!e.rough);
        // Nothing to buy costs nothing, basis or not.
        let e = tally(&p, &[3; 4], &[], &PastCosts::default(), header(2.0));
        assert_eq!(
            (e.estimate_usd, e.buy_runs, e.reuse_runs),
            (Some(0.0), 0, 12)
        );
    }

    #[test]
    fn a_known_model_is_priced_roughly_from_other_models_or_the_table() {
        let mut p = plan();
        p.cases[0].judges = 1;
        p.judge_model = "haiku".into();
        let calls = plan::calls(&p, &[[3, 3], [3, 3]], None);
        // Nothing stored: the table, the judge priced at haiku for fires only.
        let e = tally(&p, &[0; 4], &calls, &PastCosts::default(), header(2.0));
        let agent = crate::eval::rates::default_agent_usd("haiku").unwrap();
        let judge = crate::eval::rates::default_judge_usd("haiku").unwrap();
        let want = round4(12.0 * agent + 6.0 * judge);
        assert_eq!((e.estimate_usd, e.unestimated_runs), (Some(want), 0));
        assert_eq!(e.cases[0].arms[0].basis, Basis::Default);
        assert_eq!(e.judge_priced_at.as_deref(), Some("haiku"));
        assert!(e.rough);
        // Runs on opus, a fifth of the price on haiku.
        let costs = PastCosts {
            groups: vec![group(Some("quiet"), Arm::With, "opus", 1.0, 10)],
            ..PastCosts::default()
        };
        let e = tally(&p, &[0; 4], &calls, &costs, header(2.0));
        assert_eq!(e.cases[1].arms[1].per_run_usd, Some(0.02));
        assert_eq!(e.cases[1].arms[1].basis, Basis::Scaled);
        assert!(e.rough);
    }
}
