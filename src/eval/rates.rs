//! Model prices for `--dry-run`'s estimates: past runs on one model priced
//! for another, and a rough first estimate when the store holds no run at
//! all (`docs/running.md`, "Knowing the price first").
//!
//! The platform bills tokens; the store keeps each run's dollars. Within a
//! family the input and output prices keep one ratio (opus 5 : sonnet 3 :
//! haiku 1, both ways), so a run's dollars on one model times the ratio of
//! the prices is what the same tokens cost on another.

use super::estimate::Basis;
use crate::evidence::{Arm, CostGroup, PastCosts};

/// Dollars per million tokens, input and output.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenPrice {
    /// Per million input tokens.
    pub input: f64,
    /// Per million output tokens.
    pub output: f64,
}

/// The model families and their list prices (dollars per million tokens,
/// input then output); a model is priced by the family its name contains.
pub const FAMILIES: [(&str, TokenPrice); 3] = [
    (
        "opus",
        TokenPrice {
            input: 5.0,
            output: 25.0,
        },
    ),
    (
        "sonnet",
        TokenPrice {
            input: 3.0,
            output: 15.0,
        },
    ),
    (
        "haiku",
        TokenPrice {
            input: 1.0,
            output: 5.0,
        },
    ),
];

/// The family the platform runs when no `--model` is named (seen: opus).
pub const PLATFORM_DEFAULT_FAMILY: &str = "opus";

/// The tokens of a typical run's agent (input, output) for the first
/// estimate: a few turns of a Claude Code session.
pub const DEFAULT_AGENT_TOKENS: (f64, f64) = (30_000.0, 1_000.0);

/// The tokens one judging grader (`llm`, `baseline`) costs per run (input,
/// output): three judge requests, each the transcript and a verdict.
pub const DEFAULT_JUDGE_TOKENS: (f64, f64) = (12_000.0, 30.0);

/// The price of `model` (`default`: the platform's own), or `None` for a
/// name of no known family.
pub fn rate(model: &str) -> Option<TokenPrice> {
    let name = model.trim().to_ascii_lowercase();
    let family = if name == "default" {
        PLATFORM_DEFAULT_FAMILY
    } else {
        FAMILIES
            .iter()
            .map(|(f, _)| *f)
            .find(|f| name.contains(f))?
    };
    FAMILIES.iter().find(|(f, _)| *f == family).map(|(_, r)| *r)
}

/// The model that judges: `judge` as asked, or the agent's `model` when it
/// is `default` (the platform judges with the main model when none is named).
pub fn judge_of<'a>(judge: &'a str, model: &'a str) -> &'a str {
    if judge.trim().eq_ignore_ascii_case("default") {
        model
    } else {
        judge
    }
}

/// `usd` spent on `from` priced on `to`, when both are of a known family.
pub fn scale(usd: f64, from: &str, to: &str) -> Option<f64> {
    let (from, to) = (rate(from)?, rate(to)?);
    Some(usd * to.input / from.input)
}

/// `tokens` (input, output) priced on `model`.
fn priced(tokens: (f64, f64), model: &str) -> Option<f64> {
    rate(model).map(|r| (tokens.0 * r.input + tokens.1 * r.output) / 1e6)
}

/// The first estimate of a run's agent on `model` ([`DEFAULT_AGENT_TOKENS`]).
pub fn default_agent_usd(model: &str) -> Option<f64> {
    priced(DEFAULT_AGENT_TOKENS, model)
}

/// The first estimate of one judging grader per run on `judge` ([`DEFAULT_JUDGE_TOKENS`]).
pub fn default_judge_usd(judge: &str) -> Option<f64> {
    priced(DEFAULT_JUDGE_TOKENS, judge)
}

/// What one run of `case` on `arm` costs on `model`, judged by `judge_model`
/// when `judges` (its `llm` and `baseline` graders) is above 0, from the
/// past runs in `costs`, and where that comes from. The agent: this case's
/// runs on the model (that arm's, else both), else every run on the model,
/// else this case's (else every) run on other models scaled by the prices,
/// else [`default_agent_usd`]. The judge, only for a judged case: this
/// case's past judge dollars at the same judge, else at another judge
/// scaled, else [`default_judge_usd`] per judging grader.
pub fn per_run(
    costs: &PastCosts,
    case: &str,
    arm: Arm,
    judges: u32,
    model: &str,
    judge_model: &str,
) -> (Option<f64>, Basis) {
    let (agent, agent_basis) = agent(costs, case, arm, model, judges == 0);
    if judges == 0 {
        return (agent, agent_basis);
    }
    let (judge, judge_basis) = judge(costs, case, judges, judge_of(judge_model, model));
    match (agent, judge) {
        (Some(a), Some(j)) => (Some(a + j), agent_basis.max(judge_basis)),
        _ => (None, Basis::None),
    }
}

/// The mean of `(dollars, runs)` pairs, `None` when there is no run.
fn mean(pairs: impl Iterator<Item = (f64, u64)>) -> Option<f64> {
    let (usd, n) = pairs.fold((0.0, 0u64), |(u, n), (du, dn)| (u + du, n + dn));
    (n > 0).then(|| (usd / n as f64).max(0.0))
}

/// The agent's part of [`per_run`].
/// `whole`: the case has no judge now, so its past judge dollars (kept by
/// the platform all the same) count as the run's.
fn agent(
    costs: &PastCosts,
    case: &str,
    arm: Arm,
    model: &str,
    whole: bool,
) -> (Option<f64>, Basis) {
    let usd = |g: &CostGroup| g.agent_usd + if whole { g.judge_usd } else { 0.0 };
    let mine = |g: &&CostGroup| g.case.as_deref() == Some(case);
    let on = |g: &&CostGroup| g.model == model;
    let own = |gs: Vec<&CostGroup>| mean(gs.into_iter().map(|g| (usd(g), g.runs)));
    let scaled = |gs: Vec<&CostGroup>| {
        mean(
            gs.into_iter()
                .filter_map(|g| Some((scale(usd(g), &g.model, model)?, g.runs))),
        )
    };
    let groups = &costs.groups;
    let measured = [
        own(groups
            .iter()
            .filter(mine)
            .filter(on)
            .filter(|g| g.arm == arm)
            .collect()),
        own(groups.iter().filter(mine).filter(on).collect()),
    ];
    if let Some(x) = measured.into_iter().flatten().next() {
        return (Some(x), Basis::Case);
    }
    if let Some(x) = own(groups.iter().filter(on).collect()) {
        return (Some(x), Basis::Model);
    }
    let other = |g: &&CostGroup| g.model != model;
    let scaled_from = [
        scaled(groups.iter().filter(mine).filter(other).collect()),
        scaled(groups.iter().filter(other).collect()),
    ];
    if let Some(x) = scaled_from.into_iter().flatten().next() {
        return (Some(x), Basis::Scaled);
    }
    match default_agent_usd(model) {
        Some(x) => (Some(x), Basis::Default),
        None => (None, Basis::None),
    }
}

/// The judge's part of [`per_run`], `judge` the model that judges.
fn judge(costs: &PastCosts, case: &str, judges: u32, judge: &str) -> (Option<f64>, Basis) {
    let mine: Vec<&CostGroup> = costs
        .groups
        .iter()
        .filter(|g| g.case.as_deref() == Some(case))
        .collect();
    let past = |g: &CostGroup| judge_of(&g.judge_model, &g.model).to_string();
    let same = mean(
        mine.iter()
            .filter(|g| past(g) == judge)
            .map(|g| (g.judge_usd, g.runs)),
    );
    if let Some(x) = same {
        return (Some(x), Basis::Case);
    }
    let scaled = mean(
        mine.iter()
            .filter_map(|g| Some((scale(g.judge_usd, &past(g), judge)?, g.runs))),
    );
    if let Some(x) = scaled {
        return (Some(x), Basis::Scaled);
    }
    match default_judge_usd(judge) {
        Some(x) => (Some(x * f64::from(judges)), Basis::Default),
        None => (None, Basis::None),
    }
}

#[cfg(test)]
mod tests {
    use super::{default_agent_usd, default_judge_usd, judge_of, per_run, rate, scale};
    use crate::eval::estimate::Basis;
    use crate::evidence::{Arm, CostGroup, PastCosts};

    #[test]
    fn models_are_priced_by_family_and_the_default_is_the_platform_s() {
        assert_eq!(rate("claude-haiku-5-5").unwrap().input, 1.0);
        assert_eq!(rate(" Sonnet ").unwrap().output, 15.0);
        assert_eq!(rate("default"), rate("opus"));
        assert_eq!(rate("gpt-7"), None);
        assert_eq!(judge_of("default", "haiku"), "haiku");
        assert_eq!(judge_of("sonnet", "haiku"), "sonnet");
        let x = scale(0.5, "claude-opus-5-5", "haiku").unwrap();
        assert!((x - 0.1).abs() < 1e-12, "{x}");
        assert_eq!(scale(0.5, "opus", "mystery"), None);
    }

    #[test]
    fn the_first_estimate_is_the_typical_tokens_at_the_model_s_price() {
        let opus = default_agent_usd("opus").unwrap();
        assert!((opus - 0.175).abs() < 1e-12, "30k × $5 + 1k × $25: {opus}");
        let haiku = default_judge_usd("haiku").unwrap();
        assert!(
            (haiku - 0.01215).abs() < 1e-12,
            "12k × $1 + 30 × $5: {haiku}"
        );
        assert_eq!(default_agent_usd("mystery"), None);
    }

    fn group(
        case: Option<&str>,
        arm: Arm,
        model: &str,
        judge: &str,
        usd: (f64, f64),
        runs: u64,
    ) -> CostGroup {
        CostGroup {
            case: case.map(str::to_owned),
            arm,
            model: model.into(),
            judge_model: judge.into(),
            agent_usd: usd.0,
            judge_usd: usd.1,
            runs,
        }
    }

    #[test]
    fn a_run_is_priced_from_the_nearest_past_and_says_how_near() {
        let costs = PastCosts {
            groups: vec![
                group(Some("fires"), Arm::With, "opus", "default", (0.5, 0.25), 5),
                group(None, Arm::With, "sonnet", "default", (0.3, 0.0), 3),
            ],
            ..PastCosts::default()
        };
        let near = |x: (Option<f64>, Basis)| (x.0.map(|u| (u * 1e6).round() / 1e6), x.1);
        // The same case on the model: measured, the judge at the same model.
        assert_eq!(
            near(per_run(&costs, "fires", Arm::With, 1, "opus", "default")),
            (Some(0.15), Basis::Case)
        );
        // A cheaper judge: the judge's part scaled from opus to haiku.
        assert_eq!(
            near(per_run(&costs, "fires", Arm::With, 1, "opus", "haiku")),
            (Some(0.11), Basis::Scaled)
        );
        // No judge grades the case now: the past runs' whole cost.
        assert_eq!(
            near(per_run(&costs, "fires", Arm::With, 0, "opus", "haiku")),
            (Some(0.15), Basis::Case)
        );
        // Another case on sonnet: the model's mean.
        assert_eq!(
            near(per_run(&costs, "quiet", Arm::With, 0, "sonnet", "default")),
            (Some(0.1), Basis::Model)
        );
        // A model with no run: this case's runs on opus, priced on haiku.
        assert_eq!(
            near(per_run(
                &costs,
                "fires",
                Arm::Without,
                0,
                "claude-haiku-5-5",
                "default"
            )),
            (Some(0.03), Basis::Scaled)
        );
        // An empty store: the default table; an unknown model: nothing.
        let empty = PastCosts::default();
        let (x, basis) = per_run(&empty, "fires", Arm::With, 2, "haiku", "default");
        let want = default_agent_usd("haiku").unwrap() + 2.0 * default_judge_usd("haiku").unwrap();
        assert_eq!(
            (near((x, basis)), basis),
            (near((Some(want), Basis::Default)), Basis::Default)
        );
        assert_eq!(
            per_run(&empty, "fires", Arm::With, 0, "mystery", "default"),
            (None, Basis::None)
        );
    }

    #[test]
    fn the_typical_run_table_in_docs_running_md_is_the_code_s() {
        let doc = include_str!("../../docs/running.md");
        for model in ["opus", "sonnet", "haiku"] {
            let row = doc
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("| {model}")))
                .unwrap_or_else(|| panic!("no row for {model} in docs/running.md"));
            let agent = format!("${:.4}", default_agent_usd(model).unwrap());
            let judge = format!("${:.4}", default_judge_usd(model).unwrap());
            assert!(
                row.contains(&agent) && row.contains(&judge),
                "{row}: {agent}, {judge}"
            );
        }
        assert_eq!(default_agent_usd("default"), default_agent_usd("opus"));
    }
}
