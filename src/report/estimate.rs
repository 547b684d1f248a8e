//! Human output of `--dry-run`: per case and arm, the runs a run would buy
//! and reuse, the estimate beside the ceiling.

use crate::eval::estimate::{Basis, ItemEstimate};

/// Dry runs of many items (a sweep's): each, then the total beside the
/// sweep's budget, with a warning when the estimate exceeds it.
pub fn estimates(all: &[ItemEstimate], budget: Option<f64>) -> String {
    let mut out: String = all.iter().map(estimate).collect::<Vec<_>>().join("\n");
    let buy: u32 = all.iter().map(|e| e.buy_runs).sum();
    let reuse: u32 = all.iter().map(|e| e.reuse_runs).sum();
    // From +0.0: an empty sum of floats is -0.0, printed "$-0.0000".
    let usd: f64 = all
        .iter()
        .filter_map(|e| e.estimate_usd)
        .fold(0.0, |a, b| a + b);
    let unknown: u32 = all.iter().map(|e| e.unestimated_runs).sum();
    let rough = if all.iter().any(|e| e.rough) {
        " (rough for some suites: see each)"
    } else {
        ""
    };
    let amount = if unknown > 0 {
        format!("at least ${usd:.4}{rough}; the cost of {unknown} run(s) cannot be estimated")
    } else {
        format!("${usd:.4}{rough}")
    };
    let limit = budget.map_or_else(
        || "no --max-total-usd".to_string(),
        |b| format!("budget ${b:.4}"),
    );
    out.push_str(&format!(
        "\n{} suite(s): {buy} run(s) to buy, {reuse} reused; estimate {amount}; {limit}\n",
        all.len()
    ));
    if budget.is_some_and(|b| usd > b) {
        out.push_str(
            "WARNING: the estimate exceeds the budget: suites would be left \"not run (budget)\"\n",
        );
    }
    out
}

/// One item's dry run: a heading, a table of cases and arms, the platform
/// calls, the estimate and the ceiling, a warning when it exceeds it.
pub fn estimate(e: &ItemEstimate) -> String {
    let version = match &e.platform_version {
        Some(v) => format!("platform {v}, the last stored for {}", e.item),
        None => format!(
            "no run of {} stored: every run is bought and the platform version is unknown",
            e.item
        ),
    };
    let mut out = format!(
        "{} on {}: dry run, nothing bought ({version})\n",
        e.item, e.model
    );
    if let Some(price) = &e.price {
        out.push_str(&format!("  {}\n", price.words()));
    }
    if e.fresh {
        out.push_str("  --fresh: no stored run is reused\n");
    }
    if let Some(judge) = &e.judge_priced_at {
        out.push_str(&format!(
            "  the judge priced at {judge}, for the cases an llm or baseline grader judges\n"
        ));
    }
    let headers: Vec<String> = ["case", "arm", "runs", "reuse", "buy", "per run", "cost"]
        .map(String::from)
        .to_vec();
    let money = |x: Option<f64>| x.map_or_else(|| "?".to_string(), |x| format!("${x:.4}"));
    let rows: Vec<Vec<String>> = e
        .cases
        .iter()
        .flat_map(|c| {
            c.arms.iter().map(|a| {
                let (per_run, cost) = if a.buy == 0 {
                    ("-".to_string(), "-".to_string())
                } else {
                    let basis = match a.basis {
                        Basis::Case | Basis::None => "",
                        Basis::Model => " (model mean)",
                        Basis::Scaled => " (rough: other models)",
                        Basis::Default => " (rough: typical run)",
                    };
                    (
                        format!("{}{basis}", money(a.per_run_usd)),
                        money(a.cost_usd),
                    )
                };
                vec![
                    c.case.chars().take(60).collect(),
                    a.arm.as_str().to_string(),
                    a.runs.to_string(),
                    a.reuse.to_string(),
                    a.buy.to_string(),
                    per_run,
                    cost,
                ]
            })
        })
        .collect();
    for line in crate::text::table(&headers, &rows).lines() {
        out.push_str(&format!("  {line}\n"));
    }
    match (e.calls.is_empty(), e.neighbours.is_some()) {
        (true, false) => out.push_str("  no platform call: every run is reused\n"),
        (true, true) => out.push_str(
            "  every run of the suite is reused: the one platform call is --neighbours'\n",
        ),
        _ => {}
    }
    for call in e.calls.iter().filter(|_| e.auto.is_none()) {
        let what = call
            .case
            .as_ref()
            .map_or_else(|| "the whole suite".to_string(), |c| format!("--case {c}"));
        let runs = call.runs.map_or_else(
            || "each case its runs".to_string(),
            |r| format!("--runs {r}"),
        );
        let arms = if call.ablation == "none" {
            "the with arm alone (--ablation none)"
        } else {
            "both arms"
        };
        out.push_str(&format!("  platform call: {what}, {runs}, {arms}\n"));
    }
    if e.top_up > 0 {
        out.push_str(&format!(
            "  top-up: {} fresh without-arm run(s) a case renew the stored ones (the without rows' buy)\n",
            e.top_up
        ));
    }
    let unknown = format!("{} has no known price and no run on it is stored", e.model);
    let rough = rough_words(e);
    let estimate = match (e.estimate_usd, e.unestimated_runs) {
        (Some(x), 0) if rough.is_empty() => format!("estimate ${x:.4}"),
        (Some(x), 0) => format!("estimate about ${x:.4} ({rough})"),
        (Some(x), n) => {
            format!("estimate at least ${x:.4} ({n} run(s) cannot be estimated: {unknown})")
        }
        (None, _) => format!("cannot estimate the cost: {unknown}"),
    };
    if let Some(n) = &e.neighbours {
        let cases: Vec<String> = n
            .cases
            .iter()
            .map(|c| format!("{} × {}", c.case, c.runs))
            .collect();
        out.push_str(&format!(
            "  --neighbours: {} more run(s) on one arm ({}) with {} items loaded, bought every time: {}\n",
            n.buy,
            cases.join(", "),
            n.items,
            money(n.cost_usd)
        ));
    }
    match &e.auto {
        Some(auto) => {
            let money = |x: Option<f64>| {
                x.map_or_else(
                    || "?".to_string(),
                    |x| format!("{}${x:.4}", if rough.is_empty() { "" } else { "about " }),
                )
            };
            let later = match auto.looks.get(1..) {
                Some(rest) if !rest.is_empty() => format!(
                    ", then, while the call is open, more rounds with a look at {} runs per arm",
                    looks_words(rest)
                ),
                _ => String::new(),
            };
            out.push_str(&format!(
                "  --runs auto:{max}: {rule}; a first round of {first} run(s) per arm of each case{later}; {max} per arm at most\n",
                max = auto.max_per_arm,
                rule = crate::eval::auto::stopping_rule(auto.confidence_mode),
                first = auto.looks.first().copied().unwrap_or(auto.max_per_arm),
            ));
            let rough = if rough.is_empty() {
                String::new()
            } else {
                format!(" ({rough})")
            };
            out.push_str(&format!(
                "  {} to {} run(s) to buy, {} reused; it may cost from {} (the first round alone) to {} (every case to {} per arm){rough}; ceiling ${:.4}\n",
                auto.least_runs,
                auto.most_runs,
                e.reuse_runs,
                money(auto.least_usd),
                money(auto.most_usd),
                auto.max_per_arm,
                e.max_cost_usd
            ));
        }
        None => out.push_str(&format!(
            "  {} run(s) to buy, {} reused; {estimate}; ceiling ${:.4}\n",
            e.buy_runs, e.reuse_runs, e.max_cost_usd
        )),
    }
    if e.exceeds_ceiling {
        let raise = match e.estimate_usd {
            Some(usd) => format!(
                "raise --max-cost-usd to at least {:.2}",
                crate::config::cents_up(usd)
            ),
            None => "raise --max-cost-usd".to_string(),
        };
        out.push_str(&format!(
            "  WARNING: the estimate exceeds the ceiling ${:.4}: the run would stop part way with a partial result; {raise}, or buy fewer runs (--runs, --case)\n",
            e.max_cost_usd
        ));
    }
    out
}

/// Why `e` is rough, in words, or empty when every bought run is priced
/// from this model's own runs.
fn rough_words(e: &ItemEstimate) -> String {
    let worst = e
        .cases
        .iter()
        .flat_map(|c| c.arms.iter().filter(|a| a.buy > 0).map(|a| a.basis))
        .filter(|b| b.rough())
        .max();
    let model = if e.model == "default" {
        format!(
            "the platform's default model ({})",
            crate::eval::rates::PLATFORM_DEFAULT_FAMILY
        )
    } else {
        e.model.clone()
    };
    match worst {
        Some(Basis::Default) => {
            format!("rough: no run is stored yet, so a typical run at {model}'s price")
        }
        Some(_) => format!(
            "rough: no runs of this suite on {model} yet, so runs on other models (or judges) at its price"
        ),
        None if e.rough => "rough: --neighbours' runs priced from other models".into(),
        None => String::new(),
    }
}

/// Looks in words: `4, 6, 9` or, when each is one more, `3, 4, …, 16`.
fn looks_words(looks: &[u32]) -> String {
    let steady = looks.windows(2).all(|w| w[1] == w[0] + 1);
    match looks {
        [first, second, .., last] if steady && looks.len() > 4 => {
            format!("{first}, {second}, …, {last}")
        }
        _ => looks
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::estimate::{ArmEstimate, CallEstimate, CaseEstimate, SCHEMA};
    use crate::evidence::Arm;

    fn arm(arm: Arm, buy: u32, reuse: u32, per_run: Option<f64>, basis: Basis) -> ArmEstimate {
        ArmEstimate {
            arm,
            runs: (buy + reuse).max(3),
            buy,
            reuse,
            per_run_usd: per_run,
            basis,
            cost_usd: per_run.map(|x| x * f64::from(buy)),
        }
    }

    #[test]
    fn an_edited_skill_over_its_ceiling() {
        let e = ItemEstimate {
            schema: SCHEMA.into(),
            item: "commit".into(),
            model: "claude-sonnet-5-5".into(),
            platform_version: Some("2.1.328".into()),
            fresh: false,
            auto_max: None,
            cases: vec![
                CaseEstimate {
                    case: "fires".into(),
                    arms: vec![
                        arm(Arm::With, 3, 0, Some(0.0243), Basis::Case),
                        arm(Arm::Without, 0, 3, Some(0.0123), Basis::Case),
                    ],
                },
                CaseEstimate {
                    case: "quiet".into(),
                    arms: vec![
                        arm(Arm::With, 3, 0, Some(0.0171), Basis::Model),
                        arm(Arm::Without, 0, 3, None, Basis::None),
                    ],
                },
            ],
            calls: vec![CallEstimate {
                case: None,
                runs: Some(3),
                ablation: "none".into(),
            }],
            buy_runs: 6,
            reuse_runs: 6,
            estimate_usd: Some(0.1242),
            unestimated_runs: 0,
            max_cost_usd: 0.1,
            exceeds_ceiling: true,
            price: Some(crate::eval::price::price(
                &crate::evidence::PastCosts {
                    cases: [(("fires".to_string(), Arm::With), (0.243, 10))].into(),
                    model: (0.243, 10),
                    groups: Vec::new(),
                },
                &["fires".into(), "quiet".into()],
                0.2,
                3,
                0.1,
            )),
            neighbours: None,
            first_round_buy: None,
            judge_priced_at: None,
            rough: false,
            auto: None,
            top_up: 0,
        };
        insta::assert_snapshot!(estimate(&e));
    }

    /// A model of no known price, nothing stored on it: no estimate, said so.
    #[test]
    fn nothing_stored() {
        let e = ItemEstimate {
            schema: SCHEMA.into(),
            item: "commit".into(),
            model: "mystery-1".into(),
            platform_version: None,
            fresh: false,
            auto_max: None,
            cases: vec![CaseEstimate {
                case: "fires".into(),
                arms: vec![
                    arm(Arm::With, 10, 0, None, Basis::None),
                    arm(Arm::Without, 10, 0, None, Basis::None),
                ],
            }],
            calls: vec![CallEstimate {
                case: None,
                runs: Some(10),
                ablation: "with-without".into(),
            }],
            buy_runs: 20,
            reuse_runs: 0,
            estimate_usd: None,
            unestimated_runs: 20,
            max_cost_usd: 2.0,
            exceeds_ceiling: false,
            price: Some(crate::eval::price::price(
                &crate::evidence::PastCosts::default(),
                &["fires".into()],
                0.2,
                10,
                2.0,
            )),
            neighbours: None,
            first_round_buy: None,
            judge_priced_at: None,
            rough: false,
            auto: None,
            top_up: 0,
        };
        insta::assert_snapshot!(estimate(&e));
    }

    /// The first `--runs auto` dry run of an empty store: rough, from the
    /// default table, its rounds and the range it may cost.
    #[test]
    fn a_first_auto_run_on_an_empty_store() {
        let (per_run, basis) = crate::eval::rates::per_run(
            &crate::evidence::PastCosts::default(),
            "fires",
            Arm::With,
            1,
            "haiku",
            "default",
        );
        let cost = |n: u32| per_run.map(|x| crate::document::round4(x * f64::from(n)));
        let mut e = ItemEstimate {
            schema: SCHEMA.into(),
            item: "commit".into(),
            model: "haiku".into(),
            platform_version: None,
            fresh: false,
            auto_max: Some(16),
            cases: vec![CaseEstimate {
                case: "fires".into(),
                arms: vec![
                    arm(Arm::With, 16, 0, per_run, basis),
                    arm(Arm::Without, 16, 0, per_run, basis),
                ],
            }],
            calls: vec![CallEstimate {
                case: None,
                runs: Some(16),
                ablation: "with-without".into(),
            }],
            buy_runs: 32,
            reuse_runs: 0,
            estimate_usd: cost(32),
            unestimated_runs: 0,
            max_cost_usd: 2.0,
            exceeds_ceiling: false,
            price: None,
            neighbours: None,
            first_round_buy: Some(6),
            judge_priced_at: Some("haiku".into()),
            rough: true,
            auto: Some(crate::eval::estimate::AutoEstimate {
                looks: (3..=16).collect(),
                max_per_arm: 16,
                least_runs: 6,
                least_usd: cost(6),
                most_runs: 32,
                most_usd: cost(32),
                confidence_mode: None,
            }),
            top_up: 0,
        };
        // Priced as the dry run prices auto: what the design is expected to buy.
        let policy =
            crate::stats::AutoPolicy::new(16).planned_for(1, crate::stats::DEFAULT_MIN_EFFECT);
        e.price = Some(
            crate::eval::price::price_held(
                &crate::evidence::PastCosts::default(),
                &["fires".into()],
                crate::stats::DEFAULT_MIN_EFFECT,
                None,
                &crate::eval::price::Archive {
                    scores: &[],
                    auto: Some(&policy),
                },
                16,
                2.0,
            )
            .or_rough(&e),
        );
        let text = estimate(&e);
        assert!(!text.contains("--runs 16"), "{text}");
        assert!(text.contains("--runs auto is expected to buy"), "{text}");
        insta::assert_snapshot!(text);
    }
}
