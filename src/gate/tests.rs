//! Unit tests of the module.
use super::{
    Baseline, BestEntry, Decision, SkillEval, Status, decide, decide_at, decide_with,
    effective_level, fmt_level,
};

fn result(with: f64, without: f64, trigger: Option<f64>, partial: Option<&str>) -> SkillEval {
    SkillEval {
        trigger_rate: trigger,
        partial: partial.is_some(),
        partial_reason: partial.map(Into::into),
        ..SkillEval::sample(with, without)
    }
}

fn baseline(model: &str, score: f64, trigger: Option<f64>) -> Baseline {
    let mut b = Baseline::empty("commit");
    b.best.insert(
        model.into(),
        BestEntry::bare(
            score,
            0.5,
            trigger,
            "eval-commit-20261009T084444Z",
            "2026-10-09",
        ),
    );
    b
}

const M: &str = "claude-sonnet-5-5";
use Status::{Fail as F, Pass as P, Skipped as S};

#[test]
fn imported_runs_are_accepted_on_only_when_trusted() {
    let mut r = result(0.83, 0.67, Some(1.0), None);
    let empty = Baseline::empty("commit");
    let names = |d: &Decision| d.conditions.iter().map(|c| c.name).collect::<Vec<_>>();
    let own = decide(&r, &empty);
    assert!(own.accepted);
    assert!(
        !names(&own).contains(&"bought-here"),
        "no condition without imported runs"
    );
    r.imported_runs = Some(0);
    assert_eq!(decide(&r, &empty), own);

    r.imported_runs = Some(3);
    let d = decide(&r, &empty);
    assert!(!d.accepted);
    assert_eq!(names(&d)[..2], ["not-partial", "bought-here"]);
    let reasons = d.reasons();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].contains("3 of its runs were imported"),
        "{reasons:?}"
    );
    assert!(reasons[0].contains("--trust-imported"), "{reasons:?}");

    let trusted = decide_with(&r, &empty, true);
    assert!(trusted.accepted && trusted.trust_imported);
    assert_eq!(trusted.conditions[1].status, Status::Pass);
    assert!(
        trusted.conditions[1]
            .text
            .contains("under --trust-imported")
    );
    // Trust lets imported runs count; it does not accept what the rule rejects.
    r.with = 0.5;
    assert!(!decide_with(&r, &empty, true).accepted);
}

/// (case, result, baseline, accepted, statuses of not-partial, beats-best, helps, trigger-rate)
#[allow(clippy::type_complexity)]
fn table() -> Vec<(&'static str, SkillEval, Baseline, bool, [Status; 4])> {
    let empty = Baseline::empty("commit");
    vec![
        (
            "first baseline beats its without",
            result(0.83, 0.67, Some(1.0), None),
            empty.clone(),
            true,
            [P, P, P, S],
        ),
        (
            "first baseline equal to without",
            result(0.67, 0.67, Some(1.0), None),
            empty.clone(),
            false,
            [P, F, F, S],
        ),
        (
            "first baseline below without",
            result(0.5, 0.67, None, None),
            empty.clone(),
            false,
            [P, F, F, S],
        ),
        (
            "beats the best",
            result(0.91, 0.67, Some(1.0), None),
            baseline(M, 0.83, Some(1.0)),
            true,
            [P, P, P, P],
        ),
        (
            "equal to the best",
            result(0.83, 0.67, Some(1.0), None),
            baseline(M, 0.83, Some(1.0)),
            false,
            [P, F, P, P],
        ),
        (
            "equal as written (4 decimals)",
            result_t(0.83334, 0.5, Some(1.0)),
            baseline(M, 0.8333, Some(1.0)),
            false,
            [P, F, P, P],
        ),
        (
            "regression below the best",
            result(0.7, 0.5, Some(1.0), None),
            baseline(M, 0.83, Some(1.0)),
            false,
            [P, F, P, P],
        ),
        (
            "beats best but does not help",
            result(0.9, 0.95, Some(1.0), None),
            baseline(M, 0.83, Some(1.0)),
            false,
            [P, P, F, P],
        ),
        (
            "trigger drop",
            result(0.91, 0.67, Some(0.5), None),
            baseline(M, 0.83, Some(1.0)),
            false,
            [P, P, P, F],
        ),
        (
            "trigger equal",
            result(0.91, 0.67, Some(0.5), None),
            baseline(M, 0.83, Some(0.5)),
            true,
            [P, P, P, P],
        ),
        (
            "result trigger null",
            result(0.91, 0.67, None, None),
            baseline(M, 0.83, Some(1.0)),
            true,
            [P, P, P, S],
        ),
        (
            "best trigger null (legacy)",
            result(0.91, 0.67, Some(0.0), None),
            baseline(M, 0.83, None),
            true,
            [P, P, P, S],
        ),
        (
            "both trigger null",
            result(0.91, 0.67, None, None),
            baseline(M, 0.83, None),
            true,
            [P, P, P, S],
        ),
        (
            "partial is never accepted",
            result(0.99, 0.1, Some(1.0), Some("cost_ceiling")),
            empty.clone(),
            false,
            [F, P, P, S],
        ),
        (
            "partial and worse",
            result(0.5, 0.6, Some(0.0), Some("run_errors")),
            baseline(M, 0.83, Some(1.0)),
            false,
            [F, F, F, F],
        ),
        (
            "best for another model only",
            result(0.6, 0.5, Some(0.0), None),
            baseline("haiku", 0.9, Some(1.0)),
            true,
            [P, P, P, S],
        ),
        (
            "another model only, no help",
            result(0.5, 0.5, Some(1.0), None),
            baseline("haiku", 0.1, Some(1.0)),
            false,
            [P, F, F, S],
        ),
    ]
}

fn result_t(with: f64, without: f64, trigger: Option<f64>) -> SkillEval {
    result(with, without, trigger, None)
}

#[test]
fn every_branch_of_the_rule() {
    for (case, r, b, accepted, statuses) in table() {
        let d = decide(&r, &b);
        let got: Vec<Status> = d.conditions.iter().map(|c| c.status).collect();
        assert_eq!(got, statuses, "{case}: {:#?}", d.conditions);
        assert_eq!(d.accepted, accepted, "{case}");
        let names: Vec<&str> = d.conditions.iter().map(|c| c.name).collect();
        assert_eq!(
            names,
            ["not-partial", "beats-best", "helps", "trigger-rate"],
            "{case}"
        );
        assert_eq!(
            d.reasons().len(),
            statuses.iter().filter(|s| **s == F).count(),
            "{case}"
        );
        assert_eq!(d.reasons().is_empty(), accepted, "{case}");
    }
}

#[test]
fn a_best_at_the_ceiling_is_named_saturated() {
    // A best of 1.00: no result can beat it, and the advice says why
    // instead of asking for more runs.
    let d = decide(&result_t(1.0, 0.5, Some(1.0)), &baseline(M, 1.0, Some(1.0)));
    assert!(!d.accepted);
    let saturated = d.saturated.clone().expect("saturated");
    assert!(
        saturated.contains("the suite can no longer tell a better item apart"),
        "{saturated}"
    );
    // The advice names the command that starts such a case.
    let item = &result_t(1.0, 0.5, Some(1.0)).item;
    assert!(
        saturated.contains(&format!(
            "add a case the item does not yet pass (`bob-eval init {item} --bare CASE` starts one)"
        )),
        "{saturated}"
    );
    let words = d.advice_words("beats-best").expect("advice");
    assert_eq!(words, saturated);
    assert!(!words.contains("no number of runs"), "{words}");
    // A first result at 1.00 is accepted, and says the suite is now full.
    let d = decide(&result_t(1.0, 0.5, Some(1.0)), &Baseline::empty("commit"));
    assert!(d.accepted);
    assert!(
        d.saturated
            .is_some_and(|s| s.contains("once it is the best"))
    );
    // A result below a best at the ceiling is a regression, said as such:
    // the saturation is not its explanation.
    let d = decide(
        &result_t(0.33, 0.5, Some(1.0)),
        &baseline(M, 1.0, Some(1.0)),
    );
    assert!(!d.accepted);
    assert!(
        d.reasons()
            .iter()
            .any(|r| r.contains("is below the best 1.00") && r.contains("a regression")),
        "{:?}",
        d.reasons()
    );
    assert!(
        d.advice_words("beats-best")
            .is_none_or(|w| !w.contains("saturated")),
        "{:?}",
        d.advice_words("beats-best")
    );
    // Below the ceiling, nothing is said.
    let d = decide(&result_t(0.9, 0.5, Some(1.0)), &baseline(M, 0.8, Some(1.0)));
    assert_eq!(d.saturated, None);
}

#[test]
fn texts_say_what_was_compared() {
    let d = decide(
        &result_t(0.83, 0.67, Some(1.0)),
        &baseline(M, 0.83, Some(1.0)),
    );
    assert_eq!(
        d.reasons(),
        ["with 0.83 is not above the best 0.83 recorded for claude-sonnet-5-5"]
    );

    let d = decide(
        &result(0.9, 0.1, Some(1.0), Some("cost_ceiling")),
        &Baseline::empty("commit"),
    );
    assert_eq!(
        d.reasons(),
        ["the result is partial (cost_ceiling) and a partial result is never accepted"]
    );
    assert_eq!(
        d.conditions[3].text,
        "trigger check skipped: no best recorded for claude-sonnet-5-5 yet"
    );

    let d = decide(
        &result_t(0.91, 0.67, Some(0.5)),
        &baseline(M, 0.83, Some(1.0)),
    );
    assert_eq!(
        d.reasons(),
        ["trigger rate 0.50 is below the best's 1.00 recorded for claude-sonnet-5-5"]
    );

    let d = decide(&result_t(0.91, 0.67, Some(0.5)), &baseline(M, 0.83, None));
    assert!(
        d.conditions[3]
            .text
            .contains("best recorded for claude-sonnet-5-5 has no trigger rate")
    );

    let d = decide(&result_t(0.6, 0.6, None), &Baseline::empty("commit"));
    assert_eq!(
        d.reasons(),
        [
            "no best recorded for claude-sonnet-5-5 yet: with 0.60 is not above its own without 0.60, the floor for a first baseline",
            "with 0.60 is not above without 0.60: the item does not help",
        ]
    );
}

#[test]
fn decision_carries_written_numbers_and_the_best() {
    let d = decide(
        &result_t(0.833349, 0.66666, Some(0.99999)),
        &baseline(M, 0.8, Some(1.0)),
    );
    assert_eq!(
        (d.with, d.without, d.trigger_rate),
        (0.8333, 0.6667, Some(1.0))
    );
    assert_eq!(d.best.as_ref().map(|b| b.score), Some(0.8));
    assert_eq!((d.item.as_str(), d.model.as_str()), ("commit", M));
}

#[test]
fn a_trigger_reject_names_the_fires_quiet_split() {
    let never = SkillEval {
        trigger_rate: Some(0.5),
        fires_rate: Some(0.0),
        quiet_rate: Some(1.0),
        ..SkillEval::sample(0.95, 0.67)
    };
    let d = decide(&never, &baseline(M, 0.83, Some(1.0)));
    let reasons = d.reasons().join("\n");
    assert!(
        reasons.contains("fired on 0.00 of its fires results and held quiet on 1.00 (never fired where it should)"),
        "{reasons}"
    );
}

#[test]
fn the_decision_says_how_sure_each_condition_is() {
    use crate::stats::{Advisory, CaseRuns, compare};
    let noisy = compare(
        &[CaseRuns {
            case: 0,
            with: vec![1.0, 1.0, 0.0],
            without: vec![0.0, 1.0, 0.0],
            cost_usd: 0.0,
            trigger: Default::default(),
        }],
        crate::stats::CONFIDENCE,
    );
    let result = SkillEval {
        stats: Some(crate::document::Stats {
            confidence: noisy.confidence,
            suite: noisy.suite,
            trigger: None,
            auto: None,
            min_effect: None,
        }),
        ..SkillEval::sample(0.6667, 0.3333)
    };
    let d = decide(&result, &Baseline::empty("commit"));
    assert!(d.accepted, "the rule is unchanged: 2 of 3 beats 1 of 3");
    let advice = d.advice.expect("advice for a result with intervals");
    assert!(
        matches!(advice.helps, Advisory::WithinNoise { .. }),
        "{advice:?}"
    );
    assert!(
        advice
            .helps
            .in_words()
            .starts_with("within noise: 95 % interval [")
    );
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["advice"]["helps"]["advisory"], "within-noise");
}

fn measured(arms: &[(&[f64], &[f64])], trigger: Option<(u32, u32)>) -> SkillEval {
    SkillEval::measured(arms, trigger)
}

fn ones(n: usize) -> Vec<f64> {
    vec![1.0; n]
}

fn passes(x: usize, n: usize) -> Vec<f64> {
    crate::stats::interval::testing::arm(x, n)
}

fn names(d: &Decision) -> Vec<(&str, Status)> {
    d.conditions.iter().map(|c| (c.name, c.status)).collect()
}

#[test]
fn the_mode_only_adds_conditions() {
    let r = measured(&[(&passes(2, 3), &passes(1, 3))], Some((3, 3)));
    for b in [Baseline::empty("commit"), baseline(M, 0.5, Some(1.0))] {
        let rule = decide(&r, &b);
        let mode = decide_at(&r, &b, Some(0.95));
        assert_eq!(rule.confidence, None);
        assert_eq!(mode.confidence, Some(0.95));
        assert_eq!(rule.conditions[..], mode.conditions[..4]);
        assert_eq!(mode.conditions.len(), 7);
        // A reject under the rule is a reject under the mode.
        assert!(mode.accepted <= rule.accepted);
    }
    let json = serde_json::to_value(decide(&r, &Baseline::empty("commit"))).unwrap();
    assert!(json.get("confidence").is_none(), "{json}");
}

#[test]
fn the_mode_refuses_luck_and_says_what_would_settle_it() {
    // 2 of 3 against 1 of 3: the rule accepts, the mode cannot tell it from chance.
    let r = measured(&[(&passes(2, 3), &passes(1, 3))], Some((3, 3)));
    let b = Baseline::empty("commit");
    assert!(decide(&r, &b).accepted);
    let d = decide_at(&r, &b, Some(0.95));
    assert!(!d.accepted);
    assert_eq!(
        names(&d)[4..],
        [
            ("beats-best-clearly", F),
            ("helps-clearly", F),
            ("trigger-rate-not-clearly-below", S)
        ]
    );
    let helps = &d.conditions[5];
    let more = helps.runs_needed.expect("a positive effect can be settled");
    assert!(more > 3, "{helps:?}");
    assert!(
        helps
            .text
            .starts_with("delta 0.3333 is within noise at 95 %: its one-sided bound -0.")
            && helps.text.ends_with(&format!(
                "about {more} more runs per arm of each case would settle an effect this size"
            )),
        "{}",
        helps.text
    );
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["confidence"], 0.95);
    assert_eq!(json["conditions"][5]["runs_needed"], more);
}

#[test]
fn a_clear_change_passes_the_mode() {
    let r = measured(
        &[
            (&ones(10), &passes(0, 10)),
            (&passes(9, 10), &passes(2, 10)),
        ],
        Some((10, 10)),
    );
    let d = decide_at(&r, &Baseline::empty("commit"), Some(0.95));
    assert!(d.accepted, "{:#?}", d.conditions);
    assert!(d.conditions[5].text.contains("clearly above 0 at 95 %"));
    // An old best (no runs kept) is an exact line.
    let d = decide_at(&r, &baseline(M, 0.8, Some(1.0)), Some(0.95));
    assert!(
        !d.accepted,
        "0.95 against an exact 0.8 on 20 runs is not clear"
    );
    assert!(
        d.conditions[4].text.contains("exact line"),
        "{}",
        d.conditions[4].text
    );
    let d = decide_at(&r, &baseline(M, 0.6, Some(1.0)), Some(0.95));
    assert!(d.accepted, "{:#?}", d.conditions);
    assert_eq!(d.conditions[6].status, P, "{:#?}", d.conditions[6]);
}

#[test]
fn a_best_that_kept_its_runs_is_compared_as_measured() {
    let best_run = measured(&[(&passes(2, 3), &passes(0, 3))], Some((3, 3)));
    let mut b = baseline(M, 0.6667, Some(1.0));
    b.best.get_mut(M).unwrap().evidence = crate::document::BestEvidence::of(&best_run);
    let evidence = b.best[M].evidence.clone().unwrap();
    assert_eq!(
        evidence.cases[0].with,
        crate::document::ArmSum { runs: 3, sum: 2.0 }
    );
    assert_eq!(evidence.trigger.map(|t| t.results), Some(3));
    // 10 of 10 against a best of 2 of 3 measured on 3 runs: the rule
    // accepts; as an exact line 0.6667 it would be clear, but the best
    // itself could be 1.0 on its 3 runs.
    let r = measured(&[(&ones(10), &passes(0, 10))], Some((10, 10)));
    assert!(decide(&r, &b).accepted);
    let d = decide_at(&r, &b, Some(0.95));
    assert_eq!(d.conditions[4].status, F, "{:#?}", d.conditions);
    assert!(d.conditions[4].text.contains("the best's own runs counted"));
    assert!(
        d.conditions[4]
            .text
            .contains("no number of new runs would settle it"),
        "{}",
        d.conditions[4].text
    );
    // The rule's advisory beside `beats-best` reads the best the same way:
    // two samples, and no number of new runs would settle it.
    let beats = decide(&r, &b).advice.unwrap().beats_best;
    assert!(
        matches!(
            beats,
            crate::stats::Advisory::WithinNoise {
                against_runs: true,
                runs_needed: None,
                ..
            }
        ),
        "{beats:?}"
    );
    let words = decide(&r, &b).advice_words("beats-best").unwrap();
    assert!(
        words.contains("interval of the difference from the best"),
        "{words}"
    );
    let mut exact = b.clone();
    exact.best.get_mut(M).unwrap().evidence = None;
    assert_eq!(decide_at(&r, &exact, Some(0.95)).conditions[4].status, P);
    // Against the exact line the advisory is of `with` itself.
    let words = decide(&r, &exact).advice_words("beats-best").unwrap();
    assert!(!words.contains("difference"), "{words}");
    // A trigger rate clearly below the best's measured one fails the mode.
    let low = measured(&[(&ones(10), &passes(0, 10))], Some((0, 10)));
    let d = decide_at(&low, &b, Some(0.95));
    assert_eq!(d.conditions[6].status, F, "{:#?}", d.conditions[6]);
}

#[test]
fn an_auto_result_is_judged_at_its_last_look() {
    let mut r = measured(&[(&ones(4), &passes(0, 4))], None);
    assert_eq!(effective_level(&r, 0.95), 0.95);
    let stats = r.stats.as_mut().unwrap();
    stats.confidence = 0.999;
    stats.auto = Some(crate::document::AutoRounds {
        rounds: 2,
        stop: "the suite's call is clear".into(),
        confidence_mode: Some(0.95),
    });
    assert!((effective_level(&r, 0.95) - 0.9995).abs() < 1e-12);
    let d = decide_at(&r, &Baseline::empty("commit"), Some(0.95));
    // Stated at the one level asked for; the held level is data, said once
    // by the heading ([`Decision::held`]).
    assert!(
        d.conditions[5].text.contains("at 95 % over auto's looks"),
        "{}",
        d.conditions[5].text
    );
    let held = d.held.expect("held under auto");
    assert!((held.level - 0.9995).abs() < 1e-12 && held.looks == 2);
    assert!(
        decide_at(&r, &Baseline::empty("commit"), Some(0.9999))
            .held
            .is_none()
    );
    assert_eq!(fmt_level(0.95), "95 %");
}

#[test]
fn a_result_without_runs_per_case_fails_the_mode() {
    let r = SkillEval::sample(0.9, 0.1);
    let d = decide_at(&r, &Baseline::empty("commit"), Some(0.95));
    assert!(decide(&r, &Baseline::empty("commit")).accepted);
    assert!(!d.accepted);
    assert!(
        d.reasons()[0].contains("keeps no runs per case"),
        "{:?}",
        d.reasons()
    );
}

/// A result on `OPUS` is held to the best recorded on `opus`, and the
/// decision names the model in its one spelling.
#[test]
fn every_spelling_of_a_model_meets_its_best() {
    for (recorded, gated) in [("opus", "OPUS"), ("OPUS", " opus "), ("Opus", "opus")] {
        let r = SkillEval {
            model: gated.into(),
            ..result(0.9, 0.5, None, None)
        };
        let d = decide(&r, &baseline(recorded, 1.0, None));
        assert_eq!(d.model, "opus");
        assert_eq!(d.best.as_ref().map(|b| b.score), Some(1.0), "{gated}");
        assert!(!d.accepted, "{recorded} then {gated}: {d:?}");
    }
}

#[test]
fn a_delta_within_noise_says_the_runs_that_settle_it() {
    use super::runs_to_settle;
    // 2 of 3 against 1 of 3 on two cases: within noise, more runs would settle it.
    let noisy = measured(
        &[
            (&passes(2, 3), &passes(1, 3)),
            (&passes(2, 3), &passes(1, 3)),
        ],
        None,
    );
    let more = match noisy.stats.as_ref().map(|s| &s.suite.advisory) {
        Some(crate::stats::Advisory::WithinNoise {
            runs_needed: Some(n),
            ..
        }) => *n,
        other => panic!("{other:?}"),
    };
    assert_eq!(runs_to_settle(&noisy), Some((3 + more).min(50)));
    // A result that already holds the most runs one `--runs` asks for:
    // nothing a command would buy.
    let many = measured(
        &[
            (&passes(30, 60), &passes(28, 60)),
            (&passes(30, 60), &passes(28, 60)),
        ],
        None,
    );
    assert!(
        matches!(
            many.stats.as_ref().map(|s| &s.suite.advisory),
            Some(crate::stats::Advisory::WithinNoise {
                runs_needed: Some(_),
                ..
            })
        ),
        "{:?}",
        many.stats
    );
    assert_eq!(runs_to_settle(&many), None);
    // A clear delta needs nothing more.
    let clear = measured(
        &[(&ones(10), &passes(0, 10)), (&ones(10), &passes(0, 10))],
        None,
    );
    assert_eq!(runs_to_settle(&clear), None);
}

#[test]
fn the_advice_evaluates_what_the_result_records_it_was_evaluated_with() {
    // 2 of 3 against 1 of 3: within noise, so the mode names more runs.
    let mut r = measured(&[(&passes(2, 3), &passes(1, 3))], Some((3, 3)));
    r.model = "haiku".into();
    r.flags = Some(
        ["--judge-model", "judge 2", "--case", "fires", "--best"]
            .map(String::from)
            .to_vec(),
    );
    let b = Baseline::empty("commit");
    let d = decide_at(&r, &b, Some(0.95));
    let settle = d
        .next
        .iter()
        .find(|n| n.starts_with("settle it on more runs"))
        .unwrap_or_else(|| panic!("{:?}", d.next));
    assert!(
        settle.contains(&format!(
            "bob-eval run {} --runs {} --model haiku --judge-model 'judge 2' --case fires --best --out {}-more.json (",
            r.item,
            3 + d.conditions[5].runs_needed.unwrap(),
            r.item
        )),
        "{settle}"
    );
    // A flag this version does not record: the command says it left them out.
    r.flags = Some(["--claude", "/tmp/x"].map(String::from).to_vec());
    let d = decide_at(&r, &b, Some(0.95));
    let settle = d.next.iter().find(|n| n.starts_with("settle")).unwrap();
    assert!(!settle.contains("/tmp/x"), "{settle}");
    assert!(
        settle.contains(
            "(without the flags the result records: `--claude` is not a flag bob-eval records)"
        ),
        "{settle}"
    );
}

#[test]
fn a_best_measured_otherwise_is_named() {
    let mut r = measured(&[(&passes(3, 3), &passes(0, 3))], None);
    r.flags = Some(["--judge-model", "j2"].map(String::from).to_vec());
    let mut b = baseline(&r.model, 0.5, None);
    // A best recorded before bests kept their flags: nothing to say.
    assert_eq!(decide(&r, &b).suite_change, None);
    b.best.values_mut().next().unwrap().measured_with = Some(vec![]);
    let d = decide(&r, &b);
    assert_eq!(
        d.suite_change.as_deref(),
        Some(
            "the best (eval-commit-20261009T084444Z) was measured with other flags that change what a run measures: none of them, this result --judge-model j2; the comparison is not like for like"
        )
    );
    // Flags that do not change what a run measures: like for like.
    r.flags = Some(
        ["--evidence", "x.db", "--runs", "5"]
            .map(String::from)
            .to_vec(),
    );
    assert_eq!(decide(&r, &b).suite_change, None);
}
