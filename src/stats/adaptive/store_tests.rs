//! The without arm from the store: stored runs counted, topped up, the budget spent by information, false calls given an archive.

use super::tests::{HALF, HALF_LATE, ONE, Script, ZERO};
use super::{
    AutoPolicy, CaseRuns, Round, RunRequest, RunSource, Stop, adaptive_from, plan::PLANNED_CAP,
};

#[test]
fn stored_without_runs_count_and_the_first_round_tops_them_up() {
    // Twenty stored without-arm runs of each case: the first round buys 3
    // with-arm runs and a top-up of 1 fresh without-arm run per case; the
    // later rounds buy the with arms alone (the without arm has more runs
    // than any look asks of the with arm).
    let stored = vec![vec![0.0, 1.0, 1.0, 0.0, 1.0]; 2]
        .into_iter()
        .map(|a| a.repeat(4))
        .collect::<Vec<_>>();
    let mut s = Script::new(&[(HALF, HALF_LATE), (HALF_LATE, HALF)]);
    let p = AutoPolicy::new(16);
    let o = adaptive_from(&mut s, 2, &p, 100.0, None, &stored).unwrap();
    let topped = |case| RunRequest {
        case,
        with: 3,
        without: 1,
    };
    assert_eq!(s.log[0], [topped(0), topped(1)]);
    assert!(s.log.len() > 1, "{:?}", o.stop);
    for round in &s.log[1..] {
        assert!(
            round.iter().all(|r| r.without == 0 && r.with == 1),
            "{round:?}"
        );
    }
    // The stored runs come first and are not counted as bought.
    assert_eq!(o.samples[0].without.len(), 21);
    assert_eq!(o.samples[0].without[..20], stored[0][..]);
    let bought: u64 = s.log.iter().flatten().map(RunRequest::runs).sum();
    assert_eq!(o.runs, bought);
    // A top-up of 0 (an evaluation repeated) buys the with arms alone.
    let mut s = Script::new(&[(HALF, HALF_LATE), (HALF_LATE, HALF)]);
    let none = AutoPolicy { top_up: 0, ..p };
    adaptive_from(&mut s, 2, &none, 100.0, None, &stored).unwrap();
    assert!(
        s.log.iter().flatten().all(|r| r.without == 0),
        "{:?}",
        s.log
    );
    // Fewer stored runs than the first round: the without arm still gets
    // its first round's worth, fresh.
    let mut s = Script::new(&[(ONE, ZERO)]);
    adaptive_from(&mut s, 1, &p, 100.0, None, &[vec![0.0]]).unwrap();
    assert_eq!(
        s.log[0],
        [RunRequest {
            case: 0,
            with: 3,
            without: 2
        }]
    );
}

#[test]
fn stored_runs_spend_the_budget_by_information() {
    let p = AutoPolicy::new(16);
    // No stored runs: the fractions are runs over MAX, as before.
    assert_eq!(p.confidences_from(&[0, 0]), p.confidences());
    assert_eq!(p.confidences_from(&[3, 2]), p.confidences());
    // 23 without-arm runs a case: the first look (3 with-arm runs) holds
    // 1/(1/3 + 1/23) / (1/(1/16 + 1/23)) = 0.28 of the information, not
    // 3/16, so it spends more of the budget; the last look less.
    let fresh = p.confidences().unwrap();
    let stored = p.confidences_from(&[23, 23]).unwrap();
    let t1 = (1.0 / (1.0 / 3.0 + 1.0 / 23.0)) / (1.0 / (1.0 / 16.0 + 1.0 / 23.0));
    assert!((1.0 - stored[0] - 0.05 * t1).abs() < 1e-9, "{stored:?}");
    assert!(stored[0] < fresh[0]);
    assert!(stored[stored.len() - 1] > fresh[fresh.len() - 1]);
}

#[test]
fn from_the_store_false_calls_hold_their_level_given_archives() {
    // Four coin-flip cases, no difference. For each of 40 archives of 20
    // stored without-arm runs a case, 100 evaluations (fresh with-arm runs
    // and top-ups): the false-call rate over all stays under 5 %, and the
    // rate given an archive exceeds 10 % for few archives (a fixed seed).
    struct Coin(u64);
    impl Coin {
        fn flip(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            f64::from(u8::from(self.0 >> 63 == 1))
        }
    }
    impl RunSource for Coin {
        type Error = String;
        fn run(&mut self, requests: &[RunRequest], _: f64) -> Result<Round, String> {
            let cases = requests
                .iter()
                .map(|r| CaseRuns {
                    case: r.case,
                    with: (0..r.with).map(|_| self.flip()).collect(),
                    without: (0..r.without).map(|_| self.flip()).collect(),
                    cost_usd: 0.0,
                    trigger: Default::default(),
                })
                .collect();
            Ok(Round {
                cases,
                partial_reason: None,
            })
        }
    }
    let p = AutoPolicy::new(16);
    let (mut calls, mut heavy) = (0, 0);
    for a in 0..40u64 {
        let mut archive_source = Coin(0xA4C1 + a * 7919);
        let archive: Vec<Vec<f64>> = (0..4)
            .map(|_| (0..20).map(|_| archive_source.flip()).collect())
            .collect();
        let mut given = 0;
        for r in 0..100u64 {
            let mut s = Coin(0x5EED ^ (a << 32) ^ (r << 8));
            let o = adaptive_from(&mut s, 4, &p, 1e9, None, &archive).unwrap();
            given += usize::from(o.comparison.suite.advisory.is_clear());
        }
        calls += given;
        heavy += usize::from(given > 10);
    }
    let rate = calls as f64 / 4000.0;
    assert!(rate <= 0.05, "{rate}");
    assert!(heavy <= 4, "{heavy} of 40 archives over 10 %");
}

#[test]
fn the_trigger_pair_after_an_edit_is_called_from_the_archive() {
    // What the real platform's pair leaves after a first auto: fires' 6
    // without-arm runs at 0, quiet's 5 at 1. Plain auto plans MAX again
    // from them, tops each case up with 1 fresh run, and calls the suite
    // clear on no more with-arm runs than with MAX planned for the
    // noisiest suite.
    let stored = [vec![0.0; 6], vec![1.0; 5]];
    let with_runs = |p: AutoPolicy| {
        let mut s = Script::new(&[(ONE, ZERO), (ONE, ONE)]);
        let o = adaptive_from(&mut s, 2, &p, 100.0, None, &stored).unwrap();
        assert_eq!(o.stop, Stop::SuiteClear);
        assert_eq!(o.samples[1].without.len(), 6, "{:?}", s.log);
        o.samples[0].with.len()
    };
    let planned = AutoPolicy::new(PLANNED_CAP).planned_for(2, 0.2);
    assert!(planned.for_archive(2, &stored).max_per_arm < planned.max_per_arm);
    let replanned = with_runs(planned);
    let as_given = with_runs(AutoPolicy {
        planned_effect: None,
        ..planned
    });
    assert!(replanned <= as_given, "{replanned} {as_given}");
    assert!(replanned <= 8, "{replanned}");
}
