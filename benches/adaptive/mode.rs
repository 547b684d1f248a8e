//! `mode`: the gate's confidence mode against the rule, and sequences of
//! proposals on one item.

use crate::figures::{Moments, estimate, mean, share};
use crate::grid::NULLS;
use crate::sim::{Buy, CASES, MAIN, SEED, Simulated, SplitMix, Truth, best_of, document};
use crate::tally::{on_cores, pct, verdict};
use bob_eval::document::Baseline;
use bob_eval::gate::{Status, decide_at};
use bob_eval::stats::AutoPolicy;

/// What the gate accepts of a set of suites, the rule and the mode read
/// from the same outcomes (one simulation per suite for both).
#[derive(Default)]
pub(crate) struct Acceptance {
    pub(crate) suites: usize,
    pub(crate) rule: usize,
    pub(crate) mode: usize,
    pub(crate) runs: u64,
    pub(crate) runs_m: Moments,
}

impl Acceptance {
    /// Share the rule accepts, in %.
    pub(crate) fn rule(&self) -> f64 {
        pct(self.rule, self.suites)
    }
    /// Share the mode at the level accepts, in %.
    pub(crate) fn mode(&self) -> f64 {
        pct(self.mode, self.suites)
    }
    /// Mean runs per suite.
    pub(crate) fn runs(&self) -> f64 {
        self.runs as f64 / self.suites.max(1) as f64
    }
}

/// The rule's and the mode's (at `level`) acceptance of `truths`, bought by
/// `buy`, and the runs.
pub(crate) fn acceptance(truths: &[Truth], buy: Buy, level: Option<f64>) -> Acceptance {
    let empty = Baseline::empty("sim");
    let parts = on_cores(truths, |first, block| {
        let mut a = Acceptance::default();
        for (i, t) in block.iter().enumerate() {
            let mut source = Simulated::new(t, first + i, MAIN);
            let o = buy.run(&mut source, None);
            let doc = document(&o);
            a.suites += 1;
            a.rule += usize::from(decide_at(&doc, &empty, None).accepted);
            a.mode += usize::from(decide_at(&doc, &empty, level).accepted);
            a.runs += o.runs;
            a.runs_m.push(o.runs as f64);
        }
        a
    });
    let mut a = Acceptance::default();
    for p in parts {
        a.suites += p.suites;
        a.rule += p.rule;
        a.mode += p.mode;
        a.runs += p.runs;
        a.runs_m.add(p.runs_m);
    }
    a
}

/// The figures of one row of the mode's tables.
fn acceptance_figures(id: &str, acc: &Acceptance, what: &str) {
    share(&format!("{id}/rule"), acc.rule, acc.suites, 1, what);
    share(&format!("{id}/mode"), acc.mode, acc.suites, 2, what);
    mean(&format!("{id}/runs"), acc.runs_m, 1, "", "suites");
}

/// The sequence of proposals: the item starts at with 0.3 = without on every
/// case; each proposal is a real improvement (every case's with +0.1, up to
/// 1.0) with probability 0.4, else a change that does nothing. Accepted
/// proposals are merged (the item's truth becomes theirs) and their measured
/// `with` becomes the best. Auto settles against that best.
pub(crate) const SEQUENCES: usize = 2_000;
pub(crate) const PROPOSALS: usize = 20;

#[derive(Default, Clone, Copy)]
pub(crate) struct SeqTally {
    real: usize,
    real_accepted: usize,
    null: usize,
    null_accepted: usize,
    /// Real improvements rejected on beats-best while the best in force
    /// records a score at or above the improvement's own true `with`: a best
    /// the item never truly had blocked a real gain.
    blocked_by_luck: usize,
    final_with_tenths: i64,
    runs: u64,
    /// Per sequence: the final true `with` in tenths, and the runs bought.
    final_m: Moments,
    runs_m: Moments,
}

pub(crate) fn sequences(buy: Buy, level: Option<f64>) -> SeqTally {
    let ids: Vec<usize> = (0..SEQUENCES).collect();
    let parts = on_cores(&ids, |_, block| {
        let mut t = SeqTally::default();
        for &seq in block {
            sequence(seq, buy, level, &mut t);
        }
        t
    });
    let mut t = SeqTally::default();
    for p in parts {
        t.real += p.real;
        t.real_accepted += p.real_accepted;
        t.null += p.null;
        t.null_accepted += p.null_accepted;
        t.blocked_by_luck += p.blocked_by_luck;
        t.final_with_tenths += p.final_with_tenths;
        t.runs += p.runs;
        t.final_m.add(p.final_m);
        t.runs_m.add(p.runs_m);
    }
    t
}

pub(crate) fn sequence(seq: usize, buy: Buy, level: Option<f64>, t: &mut SeqTally) {
    let mut rng = SplitMix(SEED ^ 0x5E0 ^ ((seq as u64) << 24));
    let mut item = 3i64;
    let mut baseline = Baseline::empty("sim");
    let mut runs = 0u64;
    for p in 0..PROPOSALS {
        let real = rng.unit() < 0.4 && item < 10;
        let proposed = if real { item + 1 } else { item };
        let truth = Truth(vec![(proposed, 3); CASES]);
        let mut source = Simulated::new(&truth, 1_000_000 + seq * PROPOSALS + p, MAIN);
        let best = baseline.best.get("sim").map(bob_eval::eval::auto::against);
        let o = buy.run(&mut source, best.as_ref());
        t.runs += o.runs;
        runs += o.runs;
        let result = document(&o);
        let d = decide_at(&result, &baseline, level);
        if real {
            t.real += 1;
            t.real_accepted += usize::from(d.accepted);
            let beaten = d
                .conditions
                .iter()
                .any(|c| c.name.starts_with("beats-best") && c.status == Status::Fail);
            let lucky = baseline
                .best
                .get("sim")
                .is_some_and(|b| b.score * 10.0 >= proposed as f64 - 1e-9);
            t.blocked_by_luck += usize::from(!d.accepted && beaten && lucky);
        } else {
            t.null += 1;
            t.null_accepted += usize::from(d.accepted);
        }
        if d.accepted {
            item = proposed;
            baseline.best.insert("sim".into(), best_of(&result));
        }
    }
    t.final_with_tenths += item;
    t.final_m.push(item as f64);
    t.runs_m.push(runs as f64);
}

/// Issue 24's proof: the rule against the confidence mode at 95 %.
pub(crate) fn confidence_mode(truths: &[Truth], nulls: &[Truth], results: &mut Vec<String>) {
    let level = Some(0.95);
    let auto_mode = |max| Buy::Auto(AutoPolicy::for_level(max, 0.95));
    println!();
    println!("Confidence mode (gate --confidence 0.95) against the rule, empty baseline:");
    println!();
    println!(
        "| setting | rule accepts, {NULLS} no-difference suites | mode accepts them | runs per suite |"
    );
    println!("| --- | --- | --- | --- |");
    let mut null_mode_auto = 0.0;
    for (name, buy) in [
        ("--runs 3", Buy::Fixed(3)),
        ("--runs 10", Buy::Fixed(10)),
        ("--runs auto (mode's policy)", auto_mode(16)),
        ("--runs auto:50 (mode's policy)", auto_mode(50)),
    ] {
        let acc = acceptance(nulls, buy, level);
        let (rule, mode, runs) = (acc.rule(), acc.mode(), acc.runs());
        if name.starts_with("--runs auto (") {
            null_mode_auto = mode;
        }
        println!("| {name} | {rule:.1} % | {mode:.2} % | {runs:.1} |");
        acceptance_figures(&format!("mode/nulls/{name}"), &acc, "no-difference suites");
    }
    let better: Vec<Truth> = truths
        .iter()
        .filter(|t| t.diff_tenths() >= 8)
        .cloned()
        .collect();
    println!();
    println!(
        "| setting | rule accepts, {} suites with a true improvement >= 0.2 | mode accepts them | runs per suite |",
        better.len()
    );
    println!("| --- | --- | --- | --- |");
    let mut rule10 = 0.0;
    let mut mode_auto = vec![];
    let conditional = |max| {
        Buy::Auto(AutoPolicy {
            predictive: false,
            ..AutoPolicy::for_level(max, 0.95)
        })
    };
    for (name, buy) in [
        ("--runs 3", Buy::Fixed(3)),
        ("--runs 10", Buy::Fixed(10)),
        ("--runs 20", Buy::Fixed(20)),
        ("--runs auto (mode's policy)", auto_mode(16)),
        ("--runs auto:32 (mode's policy)", auto_mode(32)),
        ("--runs auto:50 (mode's policy)", auto_mode(50)),
        (
            "--runs auto:50, futility on conditional power",
            conditional(50),
        ),
    ] {
        let acc = acceptance(&better, buy, level);
        let (rule, mode, runs) = (acc.rule(), acc.mode(), acc.runs());
        if name == "--runs 10" {
            rule10 = rule;
        }
        if name.starts_with("--runs auto") && name.contains("mode's policy") {
            mode_auto.push((name, mode, runs));
        }
        println!("| {name} | {rule:.1} % | {mode:.2} % | {runs:.1} |");
        acceptance_figures(&format!("mode/better/{name}"), &acc, "improved suites");
    }

    println!();
    println!(
        "Sequences: {SEQUENCES} x {PROPOSALS} proposals on one item (4 cases, with 0.3 = without at the start; 40 % real, +0.1 on every case; accepted ones merged and their with recorded as the best; auto settles against it):"
    );
    println!();
    println!(
        "| gate | runs | real accepted | null accepted | real blocked by a lucky best | final true with | runs per proposal |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (gate, lv) in [("rule", None), ("mode 95 %", level)] {
        let auto = match lv {
            None => Buy::Auto(AutoPolicy::new(16)),
            Some(_) => auto_mode(16),
        };
        for (name, buy) in [
            ("--runs 3", Buy::Fixed(3)),
            ("--runs 10", Buy::Fixed(10)),
            ("--runs auto", auto),
        ] {
            let t = sequences(buy, lv);
            println!(
                "| {gate} | {name} | {:.1} % | {:.1} % | {:.1} % of real | {:.2} | {:.1} |",
                pct(t.real_accepted, t.real),
                pct(t.null_accepted, t.null),
                pct(t.blocked_by_luck, t.real),
                t.final_with_tenths as f64 / SEQUENCES as f64 / 10.0,
                t.runs as f64 / (SEQUENCES * PROPOSALS) as f64,
            );
            let id = format!("seq/{gate}/{name}");
            share(
                &format!("{id}/real"),
                t.real_accepted,
                t.real,
                1,
                "real proposals",
            );
            share(
                &format!("{id}/null"),
                t.null_accepted,
                t.null,
                1,
                "null proposals",
            );
            share(
                &format!("{id}/blocked"),
                t.blocked_by_luck,
                t.real,
                1,
                "real proposals",
            );
            let basis = format!("{SEQUENCES} sequences");
            let (sequences, proposals) = (SEQUENCES as f64, (SEQUENCES * PROPOSALS) as f64);
            estimate(
                &format!("{id}/final"),
                t.final_with_tenths as f64 / sequences / 10.0,
                t.final_m.half() / 10.0,
                2,
                "",
                &basis,
            );
            estimate(
                &format!("{id}/runs"),
                t.runs as f64 / proposals,
                t.runs_m.half() / PROPOSALS as f64,
                1,
                "",
                &basis,
            );
        }
    }
    results.push(format!(
        "confidence mode: no-difference suites accepted with --runs auto at 95 %: {null_mode_auto:.2} % (target <= 5 %) {}",
        verdict(null_mode_auto <= 5.0)
    ));
    for (name, mode, runs) in mode_auto {
        results.push(format!(
            "confidence mode: true improvements >= 0.2 accepted, mode with {name}: {mode:.2} % for {runs:.1} runs vs the rule at fixed --runs 10: {rule10:.2} % (target >=) {}",
            verdict(mode >= rule10)
        ));
    }
}
