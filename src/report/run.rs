//! The human summary of a `skill-eval/1` document, printed on stderr by `run`
//! (stdout carries only the JSON).

use crate::document::{ArmCount, CaseEval, GraderEval, GraderReading, SkillEval};
use std::fmt::Write;

/// A rate to 4 decimals, `—` when absent (also the sweep's table).
pub(crate) fn rate(r: Option<f64>) -> String {
    r.map_or_else(|| "—".to_string(), |r| format!("{r:.4}"))
}

/// A delta to 4 decimals with its sign (also the sweep's table).
pub(crate) fn signed(d: f64) -> String {
    if d > 0.0 {
        format!("+{d:.4}")
    } else {
        format!("{d:.4}")
    }
}

/// The fires/quiet split next to the trigger rate, with the failure in words:
/// ` (fires 0.0000, quiet 1.0000: never fired where it should)`.
fn trigger_split(doc: &SkillEval) -> String {
    if doc.fires_rate.is_none() && doc.quiet_rate.is_none() {
        return String::new();
    }
    let words = doc
        .trigger_problem()
        .map_or_else(String::new, |w| format!(": {w}"));
    format!(
        " (fires {}, quiet {}{words})",
        rate(doc.fires_rate),
        rate(doc.quiet_rate)
    )
}

/// The longest case name a table shows; a longer one ends in `…`.
const MAX_NAME: usize = 60;

/// `name` made safe for a terminal ([`crate::text::line`]), cut to
/// [`MAX_NAME`] characters.
fn clip(name: &str) -> String {
    crate::text::clip(&crate::text::line(name), MAX_NAME).into_owned()
}

/// The graders of `case` that failed where they should pass
/// ([`GraderEval::is_failure`]), errors first.
pub fn failed_graders(case: &CaseEval) -> Vec<&GraderEval> {
    let mut failed: Vec<&GraderEval> = case
        .graders
        .iter()
        .flatten()
        .filter(|g| g.is_failure())
        .collect();
    failed.sort_by_key(|g| !g.error);
    failed
}

fn count(c: ArmCount) -> String {
    format!("{}/{}", c.passed, c.runs)
}

/// One grader in one line: its passes per arm, what they mean, and the
/// failure's words for the arm it failed on: `✗ subject (scored) with 0/2,
/// without 0/2: fails on both arms; with the item: pattern not found`. `✓`
/// tells the arms apart, `·` neither fails nor measures, `✗` failed where it
/// should pass, `!` threw (an error of the suite).
pub fn grader_line(g: &GraderEval) -> String {
    let kind = g.kind.as_str();
    let without = g
        .without
        .map_or_else(String::new, |w| format!(", without {}", count(w)));
    let reading = g.reading();
    let failure = reading.is_failure(g);
    let mark = match reading {
        GraderReading::Threw => "!",
        _ if failure => "✗",
        GraderReading::TellsApart | GraderReading::IndicatorHeld | GraderReading::PassedWith => "✓",
        _ => "·",
    };
    let why = crate::text::line(g.why());
    let why = why.as_ref();
    let tail = if g.error {
        let why = why
            .trim_start()
            .strip_prefix(crate::platform::result::GRADER_THREW)
            .map_or(why, str::trim_start);
        format!(": {why}")
    } else if failure {
        format!("; {}: {why}", g.failure_arm())
    } else {
        String::new()
    };
    let votes = g
        .split_votes
        .filter(|v| v.split > 0)
        .map_or_else(String::new, |v| {
            format!(" (judge split its votes in {}/{} runs)", v.split, v.runs)
        });
    format!(
        "{mark} {} ({kind}) with {}{without}: {}{tail}{votes}",
        clip(&g.name),
        count(g.with),
        reading.words()
    )
}

/// Advice when a judged grader's votes split often beyond doubt (the Wilson
/// interval's lower limit above [`crate::document::SPLIT_VOTE_ALARM`]):
/// `JUDGE UNSURE: grader `clear` of case `c` split its votes in 4 of 10 runs
/// (40 %, 95 % Wilson CI 17–69 %): its criterion may be ambiguous; …`.
pub fn judge_unsure(case: &str, g: &GraderEval) -> Option<String> {
    let v = g.split_votes.filter(|v| v.is_alarming())?;
    let pct = |x: f64| format!("{:.0}", x * 100.0);
    Some(format!(
        "JUDGE UNSURE: grader `{}` of case `{}` split its votes in {} of {} runs ({} %, 95 % Wilson CI {}–{} %): its criterion may be ambiguous; say plainly what passes and what fails",
        clip(&g.name),
        clip(case),
        v.split,
        v.runs,
        pct(v.rate),
        pct(v.low),
        pct(v.high),
    ))
}

/// The runs bought and reused, and what each cost, when the document says
/// (one made by an evaluation with the evidence store):
/// `runs: 2 bought ($0.0120), 4 reused from the evidence store (first paid
/// $0.0240); the case costs below are of every run used ($0.0360)`.
pub fn bought_and_reused(doc: &SkillEval) -> Option<String> {
    let reused = doc.reused_runs?;
    let used: u32 = doc.cases.iter().map(|c| c.runs).sum();
    // The `--neighbours` runs are bought too (every time), and in `cost_usd`.
    let neighbours = doc
        .neighbours
        .as_ref()
        .map_or(0, |n| n.cases.iter().map(|c| c.runs).sum::<u32>());
    let bought = used.saturating_sub(reused) + neighbours;
    let reused_cost = doc.reused_cost_usd.unwrap_or(0.0);
    let mut line = format!("runs: {bought} bought (${:.4})", doc.cost_usd);
    if let Some(n) = doc.neighbours.as_ref().filter(|_| neighbours > 0) {
        let _ = write!(
            line,
            " ({neighbours} of them for --neighbours, ${:.4})",
            n.cost_usd
        );
    }
    if reused > 0 {
        let cases: f64 = doc.cases.iter().map(|c| c.cost_usd).sum();
        let _ = write!(
            line,
            ", {reused} reused from the evidence store (first paid ${reused_cost:.4}); the case costs below are of every run used (${cases:.4})"
        );
    }
    Some(line)
}

/// A short summary: with, without, delta, verdict (and whether it may be
/// luck), trigger rate, cost and ceiling, each case and, under it, each
/// grader that failed and why.
/// `settle`, when given, is the command that settles a delta within noise
/// (`ops::next::settle`), said under the headline.
pub fn summary(doc: &SkillEval, settle: Option<&str>) -> String {
    summary_of(doc, false, settle)
}

/// [`summary`] of a document reduced from a platform result on disk
/// (`--platform-result`): its cost is what that run paid, nothing now.
pub fn replay_summary(doc: &SkillEval, settle: Option<&str>) -> String {
    summary_of(doc, true, settle)
}

/// The verdict as the headline says it: with the noise advisory when the
/// suite's delta is within noise, so a lucky run never reads as a finding.
pub fn verdict_words(doc: &SkillEval) -> String {
    // Bought under the confidence mode, the one level said is the mode's:
    // the interval is auto's last look's, held for that level over its looks.
    let held = doc
        .stats
        .as_ref()
        .and_then(|s| s.auto.as_ref())
        .and_then(|a| a.confidence_mode)
        .map(|level| {
            format!(
                "auto's last-look interval (held for {} over its looks)",
                crate::gate::fmt_level(level)
            )
        });
    match doc.stats.as_ref().map(|s| &s.suite.advisory) {
        Some(a @ crate::stats::Advisory::WithinNoise { .. }) => {
            format!(
                "{}, but may be luck: {}",
                doc.verdict.as_str(),
                a.in_words_as(held.as_deref())
            )
        }
        _ => doc.verdict.as_str().to_string(),
    }
}

fn summary_of(doc: &SkillEval, replayed: bool, settle: Option<&str>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} on {} ({})",
        crate::text::line(&doc.item),
        crate::text::line(&doc.model),
        crate::text::line(&doc.run)
    );
    if let Some(env) = doc.platform_env.as_ref().filter(|e| !e.is_empty()) {
        let pairs: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(
            out,
            "  platform env (--platform-env, keyed) {}",
            crate::text::line(&pairs.join(" "))
        );
    }
    let _ = writeln!(
        out,
        "  with {:.4}  without {:.4}  delta {}  {}",
        doc.with,
        doc.without,
        signed(doc.delta),
        verdict_words(doc)
    );
    if let Some(step) = settle {
        let _ = writeln!(out, "  next: {step}");
    }
    calibration_words(&mut out, doc);
    let cost = if replayed {
        format!(
            "cost ${:.4} when that result ran (replayed from a file: nothing spent now)",
            doc.cost_usd
        )
    } else {
        format!(
            "cost ${:.4} of ${:.4} ceiling",
            doc.cost_usd, doc.max_cost_usd
        )
    };
    let _ = writeln!(
        out,
        "  trigger rate {}{}  {cost}",
        rate(doc.trigger_rate),
        trigger_split(doc),
    );
    if let Some(servers) = &doc.mcp_servers {
        let _ = writeln!(
            out,
            "  MCP servers: {} (keyed apart from the platform's default, record)",
            crate::text::line(servers)
        );
    }
    if let Some(line) = bought_and_reused(doc) {
        let _ = writeln!(out, "  {line}");
    }
    for line in super::efficiency::suite_lines(doc) {
        let _ = writeln!(out, "  {line}");
    }
    for c in doc.scored_by_trigger() {
        let _ = writeln!(
            out,
            "  SCORED BY TRIGGER: {}",
            crate::document::scored_by_trigger_words(&clip(&c.name))
        );
    }
    if doc.partial {
        let _ = writeln!(
            out,
            "  PARTIAL ({}): not every case ran comparably; the gate will not accept this result",
            crate::text::line(
                &doc.partial_reason
                    .as_ref()
                    .map_or_else(|| "unspecified".to_string(), ToString::to_string)
            )
        );
    }
    let errors: Vec<(&str, &str)> = doc
        .cases
        .iter()
        .flat_map(|c| {
            c.grader_errors()
                .map(|g| (c.name.as_str(), g.name.as_str()))
        })
        .collect();
    if !errors.is_empty() {
        let names: Vec<String> = errors
            .iter()
            .map(|(case, grader)| format!("{}/{}", clip(case), clip(grader)))
            .collect();
        let _ = writeln!(
            out,
            "  SUITE ERRORS: {} grader(s) threw instead of judging ({}): their results measure the suite or its setup, not the item; fix them and run again",
            errors.len(),
            names.join(", ")
        );
    }
    for c in &doc.cases {
        for g in c.graders.iter().flatten() {
            if let Some(line) = judge_unsure(&c.name, g) {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
    let width = doc
        .cases
        .iter()
        .map(|c| clip(&c.name).chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "  {:<width$}  {:>6}  {:>7}  {:>7}  {:<9}  {:>7}  {:>4}  {:>7}",
        "case", "with", "without", "delta", "verdict", "trigger", "runs", "cost"
    );
    for c in &doc.cases {
        let _ = writeln!(
            out,
            "  {:<width$}  {:>6.4}  {:>7}  {:>7}  {:<9}  {:>7}  {:>4}  {:>7}",
            clip(&c.name),
            c.with,
            c.without
                .map_or_else(|| "—".to_string(), |w| format!("{w:.4}")),
            c.delta.map_or_else(|| "—".to_string(), signed),
            c.verdict.map_or("—", |v| v.as_str()),
            rate(c.trigger_rate),
            c.runs,
            format!("${:.4}", c.cost_usd),
        );
        let mut graders: Vec<&GraderEval> = c.graders.iter().flatten().collect();
        graders.sort_by_key(|g| (!g.error, !g.is_failure()));
        for g in graders {
            let _ = writeln!(out, "      {}", grader_line(g));
        }
        if let Some(line) = super::efficiency::case_line(doc, &c.name) {
            let _ = writeln!(out, "      {line}");
        }
        if let Some(words) = &c.mocks {
            let _ = writeln!(out, "      MCP: {}", crate::text::line(words));
        }
        for words in &c.advisories {
            let _ = writeln!(out, "      platform advisory: {}", crate::text::line(words));
        }
    }
    if let Some(n) = &doc.neighbours {
        neighbours(&mut out, n);
    }
    crate::text::block(&out).into_owned()
}

/// The judged graders' records and the corrected scores, in words, once
/// some judged grader has labels (current or stale).
fn calibration_words(out: &mut String, doc: &SkillEval) {
    let Some(c) = &doc.calibration else {
        return;
    };
    if !c
        .graders
        .iter()
        .any(|g| g.record.labels > 0 || g.record.stale > 0)
    {
        return;
    }
    if let Some(k) = &c.corrected {
        let pair = |e: &crate::stats::calibration::Corrected| {
            format!("{:.4} [{:.4}, {:.4}]", e.value, e.low, e.high)
        };
        let clamped = if k.with.clamped || k.without.clamped || k.delta.clamped {
            " (a correction fell outside [0, 1] and was clamped: the labels and the runs disagree; more of either settles it)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  corrected for the judges' errors: with {}  without {}  delta {} (95 %, runs and labels){clamped}",
            pair(&k.with),
            pair(&k.without),
            pair(&k.delta)
        );
    } else {
        let _ = writeln!(
            out,
            "  not corrected for the judges' errors: no labelled grader could be (see each below)"
        );
    }
    for g in &c.graders {
        let not = g
            .uncorrected
            .as_deref()
            .map(|why| format!("; not corrected: {why}"))
            .unwrap_or_default();
        let fix = if g.record.calibrated {
            String::new()
        } else {
            format!(
                " — {}",
                crate::suite::judges::label_command(doc.item.as_str(), &g.case, &g.grader)
            )
        };
        let _ = writeln!(
            out,
            "  judge {}/{}: {}{not}{fix}",
            clip(&g.case),
            clip(&g.grader),
            crate::suite::judges::words(&g.record)
        );
    }
}

/// `--neighbours`: per trigger case, which item fired in how many runs.
fn neighbours(out: &mut String, n: &crate::document::Neighbours) {
    let stopped = n
        .partial_reason
        .as_ref()
        .map_or_else(String::new, |r| format!("; stopped short: {r}"));
    let _ = writeln!(
        out,
        "  neighbours: {} items loaded, ${:.4}{stopped}",
        n.items.len(),
        n.cost_usd
    );
    for case in &n.cases {
        let mut parts: Vec<String> = case
            .fired
            .iter()
            .map(|f| format!("{} {}/{}", f.item, f.runs, case.runs))
            .collect();
        parts.push(format!("none {}/{}", case.none, case.runs));
        let _ = writeln!(out, "    {}: {}", clip(&case.name), parts.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{CaseEval, GraderRole, Verdict};

    #[test]
    fn a_verdict_within_noise_says_it_may_be_luck_in_the_headline() {
        let lucky = SkillEval::measured(&[(&[1.0], &[0.0])], None);
        let text = summary(&lucky, None);
        let headline = text.lines().nth(1).unwrap();
        assert!(
            headline.contains("improved, but may be luck: within noise: 95 % interval"),
            "{text}"
        );
        let clear = SkillEval::measured(&[(&[1.0; 20], &[0.0; 20])], None);
        let text = summary(&clear, None);
        assert!(text.lines().nth(1).unwrap().ends_with("improved"), "{text}");
    }

    #[test]
    fn a_replay_spends_nothing_now() {
        let text = replay_summary(&doc(false), None);
        assert!(
            text.contains(
                "cost $0.4123 when that result ran (replayed from a file: nothing spent now)"
            ),
            "{text}"
        );
        assert!(!text.contains("ceiling"), "{text}");
    }

    fn doc(partial: bool) -> SkillEval {
        SkillEval {
            trigger_rate: Some(0.75),
            fires_rate: None,
            quiet_rate: None,
            cost_usd: 0.4123,
            partial,
            partial_reason: partial.then(|| "cost_ceiling".into()),
            cases: vec![
                CaseEval {
                    name: "fires".into(),
                    with: 1.0,
                    without: Some(0.3333),
                    delta: Some(0.6667),
                    verdict: Some(Verdict::Improved),
                    trigger_rate: Some(1.0),
                    fires_rate: None,
                    quiet_rate: None,
                    cost_usd: 0.31,
                    runs: 6,
                    digest: None,
                    stats: None,
                    graders: None,
                    scored_by_trigger: false,
                    mocks: None,
                    advisories: Vec::new(),
                },
                CaseEval {
                    name: "quiet".into(),
                    with: 0.6667,
                    without: if partial { None } else { Some(1.0) },
                    delta: if partial { None } else { Some(-0.3333) },
                    verdict: if partial {
                        None
                    } else {
                        Some(Verdict::Regressed)
                    },
                    trigger_rate: None,
                    fires_rate: None,
                    quiet_rate: None,
                    cost_usd: 0.1023,
                    runs: if partial { 3 } else { 6 },
                    digest: None,
                    stats: None,
                    graders: None,
                    scored_by_trigger: false,
                    mocks: None,
                    advisories: Vec::new(),
                },
            ],
            ..SkillEval::sample(0.8333, 0.6667)
        }
    }

    #[test]
    fn summary_complete() {
        insta::assert_snapshot!(summary(&doc(false), None));
    }

    #[test]
    fn summary_partial() {
        insta::assert_snapshot!(summary(&doc(true), None));
    }

    fn grader(
        name: &str,
        with: (u32, u32),
        without: Option<(u32, u32)>,
        failure: Option<&str>,
    ) -> GraderEval {
        GraderEval {
            name: name.into(),
            kind: GraderRole::Scored,
            with: ArmCount {
                passed: with.0,
                runs: with.1,
            },
            without: without.map(|(passed, runs)| ArmCount { passed, runs }),
            error: failure.is_some_and(|f| f.starts_with("grader threw")),
            failure: failure.map(str::to_string),
            split_votes: None,
        }
    }

    #[test]
    fn a_judge_that_splits_often_beyond_doubt_is_named_with_advice() {
        use crate::document::SplitVotes;
        let votes = |split, runs, low| SplitVotes {
            runs,
            split,
            rate: f64::from(split) / f64::from(runs),
            low,
            high: 0.6873,
        };
        let mut d = doc(false);
        d.cases[0].graders = Some(vec![
            GraderEval {
                split_votes: Some(votes(4, 10, 0.1682)),
                ..grader("clear", (3, 5), Some((2, 5)), Some("unclear"))
            },
            GraderEval {
                split_votes: Some(votes(1, 10, 0.0179)),
                ..grader("calm", (5, 5), Some((5, 5)), None)
            },
        ]);
        let text = summary(&d, None);
        assert!(
            text.contains("JUDGE UNSURE: grader `clear` of case `fires` split its votes in 4 of 10 runs (40 %, 95 % Wilson CI 17–69 %): its criterion may be ambiguous"),
            "{text}"
        );
        assert!(
            !text.contains("grader `calm`"),
            "a lower limit under 10 % is not flagged:\n{text}"
        );
        assert!(
            text.contains("(judge split its votes in 1/10 runs)"),
            "{text}"
        );
    }

    #[test]
    fn summary_lists_failed_graders_and_suite_errors() {
        let mut d = doc(false);
        d.cases[0].graders = Some(vec![
            GraderEval {
                kind: GraderRole::WithOnly,
                ..grader("fires", (3, 3), None, None)
            },
            grader(
                "subject",
                (3, 3),
                Some((1, 3)),
                Some("pattern not found in last_message"),
            ),
            grader(
                "close-to-reference",
                (0, 3),
                Some((0, 3)),
                Some(
                    "grader threw: failed to read baseline: JSON Parse error: Unexpected identifier \"not\"",
                ),
            ),
        ]);
        d.cases[1].graders = Some(vec![grader("quiet", (3, 3), Some((3, 3)), None)]);
        let text = summary(&d, None);
        assert!(
            text.contains("✓ subject (scored) with 3/3, without 1/3: tells the arms apart"),
            "a grader that passes more with the item is no failure:\n{text}"
        );
        assert!(
            text.contains("· quiet (scored) with 3/3, without 3/3: passes on both arms"),
            "{text}"
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn each_grader_says_what_its_passes_mean_and_only_misses_are_failures() {
        use crate::document::GraderReading as R;
        let with_only = |w| GraderEval {
            kind: GraderRole::WithOnly,
            ..grader("fires", w, None, Some("Skill called 0x"))
        };
        let why = Some("pattern not found");
        for (g, reading, failure) in [
            (grader("a", (3, 3), Some((0, 3)), why), R::TellsApart, false),
            (grader("b", (2, 3), Some((0, 3)), why), R::TellsApart, true),
            (
                grader("c", (3, 3), Some((3, 3)), None),
                R::PassesBoth,
                false,
            ),
            (grader("d", (0, 3), Some((0, 3)), why), R::FailsBoth, true),
            (
                grader("e", (1, 3), Some((3, 3)), why),
                R::BetterWithout,
                true,
            ),
            (
                grader("f", (1, 2), Some((2, 4)), why),
                R::NoDifference,
                true,
            ),
            (with_only((3, 3)), R::IndicatorHeld, false),
            (with_only((1, 3)), R::IndicatorFailed, true),
            (grader("g", (2, 2), None, None), R::PassedWith, false),
        ] {
            assert_eq!(g.reading(), reading, "{}", g.name);
            assert_eq!(g.is_failure(), failure, "{}", g.name);
            let line = grader_line(&g);
            assert_eq!(line.starts_with('✗'), failure, "{line}");
            assert!(line.contains(reading.words()), "{line}");
        }
        // The failure's words name the arm they come from.
        let line = grader_line(&grader("e", (3, 3), Some((1, 3)), why));
        assert!(!line.contains("pattern not found"), "{line}");
        let line = grader_line(&grader("e", (1, 3), Some((3, 3)), why));
        assert!(
            line.ends_with("; with the item: pattern not found"),
            "{line}"
        );
    }

    #[test]
    fn bought_and_reused_runs_are_said_and_the_case_costs_add_up() {
        let mut d = doc(false);
        assert_eq!(
            bought_and_reused(&d),
            None,
            "no evidence store, nothing to say"
        );
        d.reused_runs = Some(12);
        d.reused_cost_usd = Some(0.4123);
        d.cost_usd = 0.0;
        let line = bought_and_reused(&d).unwrap();
        let cases: f64 = d.cases.iter().map(|c| c.cost_usd).sum();
        assert_eq!(
            line,
            format!(
                "runs: 0 bought ($0.0000), 12 reused from the evidence store (first paid $0.4123); the case costs below are of every run used (${cases:.4})"
            )
        );
        assert!(summary(&d, None).contains(&line));
        d.reused_runs = Some(0);
        d.cost_usd = 0.41;
        assert_eq!(bought_and_reused(&d).unwrap(), "runs: 12 bought ($0.4100)");
    }

    #[test]
    fn the_neighbours_runs_are_counted_as_bought() {
        let mut d = doc(false);
        let used: u32 = d.cases.iter().map(|c| c.runs).sum();
        d.reused_runs = Some(used);
        d.reused_cost_usd = Some(0.1);
        d.cost_usd = 0.04;
        let case = |name: &str| crate::document::NeighbourCase {
            name: name.into(),
            runs: 3,
            fired: vec![],
            none: 3,
            none_rate: 1.0,
        };
        d.neighbours = Some(crate::document::Neighbours {
            items: vec!["commit".into(), "tidy".into()],
            cost_usd: 0.04,
            partial_reason: None,
            cases: vec![case("fires"), case("quiet")],
        });
        let line = bought_and_reused(&d).unwrap();
        assert!(
            line.starts_with("runs: 6 bought ($0.0400) (6 of them for --neighbours, $0.0400), "),
            "{line}"
        );
    }

    #[test]
    fn a_huge_case_name_is_cut_not_a_panic() {
        let mut doc = SkillEval::sample(1.0, 0.5);
        doc.cases = vec![CaseEval {
            name: "x".repeat(70_000),
            with: 1.0,
            without: Some(0.5),
            delta: Some(0.5),
            verdict: Some(Verdict::Improved),
            trigger_rate: None,
            fires_rate: None,
            quiet_rate: None,
            cost_usd: 0.1,
            runs: 2,
            digest: None,
            stats: None,
            graders: None,
            scored_by_trigger: false,
            mocks: None,
            advisories: Vec::new(),
        }];
        let text = summary(&doc, None);
        assert!(
            text.contains(&format!("{}…", "x".repeat(MAX_NAME - 1))),
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() < 200));
    }

    #[test]
    fn the_trigger_failure_is_said_in_words() {
        let mut d = doc(false);
        d.trigger_rate = Some(0.5);
        d.fires_rate = Some(0.0);
        d.quiet_rate = Some(1.0);
        let text = summary(&d, None);
        assert!(
            text.contains(
                "trigger rate 0.5000 (fires 0.0000, quiet 1.0000: never fired where it should)"
            ),
            "{text}"
        );
        d.fires_rate = Some(1.0);
        d.quiet_rate = Some(0.0);
        assert!(summary(&d, None).contains("fired where it should not"));
        d.quiet_rate = Some(1.0);
        assert!(summary(&d, None).contains("(fires 1.0000, quiet 1.0000)"));
    }
}
