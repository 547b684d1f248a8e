//! The other auto policies of earlier rounds, measured beside the default
//! when named (`alternatives`, `ADAPTIVE_POLICIES`).

use bob_eval::stats::{AutoPolicy, Spending};

/// Other policies, each a change of one thing from the default (or the
/// earlier default), measured on the same suites.
pub(crate) fn alternatives() -> Vec<(String, AutoPolicy)> {
    let d = AutoPolicy::growing_rounds(16);
    let now = AutoPolicy::new(16);
    // The previous default with a look after every run from 4, to MAX.
    let every_run = |max| AutoPolicy {
        growth: 1.0,
        ..AutoPolicy::growing_rounds(max)
    };
    let looks = |p: &AutoPolicy| {
        let s: Vec<String> = p.schedule().iter().map(u32::to_string).collect();
        s.join(", ")
    };
    let mut v: Vec<(String, AutoPolicy)> = vec![
        (
            "earlier default: 2, 4, 8, 10; interim 0.001".into(),
            AutoPolicy::haybittle_peto(),
        ),
        (
            "earlier default at MAX 16 (2, 4, 8, 16)".into(),
            AutoPolicy {
                max_per_arm: 16,
                ..AutoPolicy::haybittle_peto()
            },
        ),
    ];
    for max in [10, 12, 20] {
        let p = AutoPolicy::new(max);
        v.push((format!("auto:{max} ({} looks)", p.schedule().len()), p));
    }
    for (name, p) in [
        (
            "futility planned on the score test's variance alone",
            AutoPolicy {
                futility_shuffled: false,
                ..now
            },
        ),
        (
            "auto:14, margin at 95 %",
            AutoPolicy {
                max_per_arm: 14,
                margin_confidence: 0.95,
                ..now
            },
        ),
        (
            "auto:14, margin at 95 %, futility on the score test alone",
            AutoPolicy {
                max_per_arm: 14,
                margin_confidence: 0.95,
                futility_shuffled: false,
                ..now
            },
        ),
        ("no margin", AutoPolicy { margin: 0.0, ..now }),
        (
            "margin at 95 %",
            AutoPolicy {
                margin_confidence: 0.95,
                ..now
            },
        ),
        (
            "predictive futility 0.2",
            AutoPolicy {
                futility: 0.2,
                ..now
            },
        ),
        (
            "first round 4",
            AutoPolicy {
                first_round: 4,
                futility_from: 4,
                ..now
            },
        ),
        (
            "previous default: 4, 6, 9, 13, 16; futility 0.2; no margin",
            d,
        ),
    ] {
        v.push((name.to_string(), p));
    }
    for max in [10, 12, 20] {
        let p = AutoPolicy::growing_rounds(max);
        v.push((format!("previous default at auto:{max} ({})", looks(&p)), p));
    }
    for (name, p) in [
        (
            "no allocation",
            AutoPolicy {
                allocate: false,
                ..d
            },
        ),
        (
            "cases clear on their own resolved",
            AutoPolicy {
                resolve_cases: true,
                ..d
            },
        ),
        (
            "spending rho 2",
            AutoPolicy {
                spending: Spending::Power(2.0),
                ..d
            },
        ),
        (
            "futility on conditional power 0.1",
            AutoPolicy {
                futility: 0.1,
                predictive: false,
                ..d
            },
        ),
        ("predictive futility 0.1", AutoPolicy { futility: 0.1, ..d }),
        ("predictive futility 0.3", AutoPolicy { futility: 0.3, ..d }),
        (
            "first round 2",
            AutoPolicy {
                first_round: 2,
                growth: 1.6,
                ..d
            },
        ),
        (
            "first round 3",
            AutoPolicy {
                first_round: 3,
                growth: 1.5,
                futility_from: 3,
                ..d
            },
        ),
        (
            "first round 3, conditional futility 0.1 (the candidate before)",
            AutoPolicy {
                first_round: 3,
                growth: 1.5,
                futility_from: 3,
                futility: 0.1,
                predictive: false,
                ..d
            },
        ),
        (
            "Neyman allocation, smoothed",
            AutoPolicy { neyman: true, ..d },
        ),
        ("growth 2", AutoPolicy { growth: 2.0, ..d }),
        ("more looks: growth 1.25", AutoPolicy { growth: 1.25, ..d }),
        (
            "more looks: every run from 4",
            AutoPolicy { growth: 1.0, ..d },
        ),
        ("more looks: every run from 4, auto:18", every_run(18)),
        ("more looks: every run from 4, auto:20", every_run(20)),
        (
            "more looks: every run from 4, auto:20, predictive futility 0.3",
            AutoPolicy {
                futility: 0.3,
                ..every_run(20)
            },
        ),
        ("more looks: every run from 4, auto:24", every_run(24)),
        (
            "3 looks",
            AutoPolicy {
                first_round: 5,
                growth: 2.0,
                ..d
            },
        ),
        (
            "margin 0.2, every run from 4, auto:20",
            AutoPolicy {
                margin: 0.2,
                ..every_run(20)
            },
        ),
        (
            "margin 0.2, auto:20",
            AutoPolicy {
                margin: 0.2,
                ..AutoPolicy::growing_rounds(20)
            },
        ),
        ("auto:14", AutoPolicy::growing_rounds(14)),
        ("auto:13", AutoPolicy::growing_rounds(13)),
        (
            "Neyman allocation, Jeffreys smoothing",
            AutoPolicy {
                neyman: true,
                neyman_prior: 0.5,
                ..d
            },
        ),
        (
            "Neyman allocation, auto:14",
            AutoPolicy {
                neyman: true,
                ..AutoPolicy::growing_rounds(14)
            },
        ),
        (
            "interim continuity correction halved",
            AutoPolicy {
                interim_continuity: 0.5,
                ..d
            },
        ),
        (
            "interim continuity correction off",
            AutoPolicy {
                interim_continuity: 0.0,
                ..d
            },
        ),
        (
            "Neyman allocation, interim continuity correction halved",
            AutoPolicy {
                neyman: true,
                interim_continuity: 0.5,
                ..d
            },
        ),
        (
            "Neyman allocation, interim continuity correction off",
            AutoPolicy {
                neyman: true,
                interim_continuity: 0.0,
                ..d
            },
        ),
        (
            "Neyman allocation, auto:14, interim continuity correction off",
            AutoPolicy {
                neyman: true,
                interim_continuity: 0.0,
                ..AutoPolicy::growing_rounds(14)
            },
        ),
        (
            "Neyman allocation, growth 2",
            AutoPolicy {
                neyman: true,
                growth: 2.0,
                ..d
            },
        ),
    ] {
        v.push((format!("{name} ({})", looks(&p)), p));
    }
    for (at, level) in [
        ("the look's level", 0.0),
        ("90 %", 0.9),
        ("95 %", 0.95),
        ("98 %", 0.98),
    ] {
        let p = AutoPolicy {
            margin: 0.2,
            margin_confidence: level,
            ..d
        };
        v.push((format!("margin 0.2 at {at} ({})", looks(&p)), p));
    }
    v
}

/// [`alternatives`], only those [`policy_filter`] names when it is set.
pub(crate) fn chosen_alternatives() -> Vec<(String, AutoPolicy)> {
    let filter = policy_filter();
    if filter.is_none() && !std::env::args().any(|a| a == "alternatives") {
        // Measured in earlier rounds; their tables are kept as they came.
        return vec![];
    }
    alternatives()
        .into_iter()
        .filter(|(name, _)| {
            filter
                .as_ref()
                .is_none_or(|f| f.iter().any(|part| name.contains(part.as_str())))
        })
        .collect()
}

/// `ADAPTIVE_POLICIES`: comma-separated parts of alternative policy names.
/// When set, only the alternatives whose names contain one of them are
/// measured: the shapes section runs them beside the default on both seeds
/// and on the no-difference suites, the main section on its grid and on the
/// single no-difference suites (exploring); unset, every alternative on the
/// main grid and the shapes' first seed, as published.
pub(crate) fn policy_filter() -> Option<Vec<String>> {
    std::env::var("ADAPTIVE_POLICIES")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
}
