//! `--runs auto` against a recorded best: `beats-best` and `trigger-rate` settled on the with arms.

use super::tests::{ONE, Script, ZERO};
use super::{
    Against, AutoPolicy, Round, RunRequest, RunSource, Stop, TriggerCount, adaptive_against,
};

#[test]
fn settles_beats_best_on_the_with_arms() {
    // Every case passes with the item and fails without: `helps` is
    // clear at the first look. The best scored 1.0 on 3 runs of each of
    // 2 cases, so `beats-best` (with 1.0 against it) can never be clear:
    // a tie with the best is no effect, and auto gives up at once.
    let best = Against {
        score: 1.0,
        with_arms: vec![(3.0, 3), (3.0, 3)],
        ..Against::default()
    };
    let p = AutoPolicy::new(16);
    let mut s = Script::new(&[(ONE, ZERO), (ONE, ZERO)]);
    let o = adaptive_against(&mut s, 2, &p, 100.0, Some(&best)).unwrap();
    assert!(o.comparison.suite.advisory.is_clear());
    assert_eq!((o.stop, s.log.len()), (Stop::Futile, 1));

    // Against a best of 0.75 on 4 runs a case: `helps` is clear at once;
    // `beats-best` needs more with-arm runs, and they come alone.
    let best = Against {
        score: 0.75,
        with_arms: vec![(3.0, 4); 4],
        ..Against::default()
    };
    let mut s = Script::new(&[(ONE, ZERO); 4]);
    let o = adaptive_against(&mut s, 4, &p, 100.0, Some(&best)).unwrap();
    assert!(o.comparison.suite.advisory.is_clear());
    assert!(s.log.len() > 1, "{:?}", s.log);
    assert!(
        s.log[1..]
            .iter()
            .flatten()
            .all(|r| r.without == 0 && r.with > 0),
        "{:?}",
        s.log
    );
    assert_ne!(o.stop, Stop::SuiteClear);

    // A best as an exact line below every score: clear at once; and a line
    // above every score: clearly failed, also at once.
    for (score, arms) in [(0.4, (ONE, ZERO)), (0.99, (ZERO, ZERO))] {
        let line = Against {
            score,
            ..Against::default()
        };
        let mut s = Script::new(&[arms; 4]);
        let o = adaptive_against(&mut s, 4, &p, 100.0, Some(&line)).unwrap();
        assert_eq!((o.stop, s.log.len()), (Stop::Settled, 1), "line {score}");
    }
}

#[test]
fn settles_a_trigger_rate_below_the_best_s() {
    // The trigger rate (2 of the first 3 results fired) is below the
    // best's 6 of 6 but not clearly (two-sample): once `helps` and
    // `beats-best` are clear, auto buys with-arm runs of the case with
    // trigger results only.
    struct Triggers(Script, Vec<bool>);
    impl RunSource for Triggers {
        type Error = String;
        fn run(&mut self, r: &[RunRequest], b: f64) -> Result<Round, String> {
            let mut round = self.0.run(r, b)?;
            for c in round.cases.iter_mut().filter(|c| c.case == 0) {
                let k = self.1.len().min(c.with.len());
                let drawn: Vec<bool> = self.1.drain(..k).collect();
                c.trigger = TriggerCount {
                    fired: drawn.iter().filter(|f| **f).count() as u32,
                    results: drawn.len() as u32,
                };
            }
            Ok(round)
        }
    }
    let draws: Vec<bool> = [true, false, true]
        .into_iter()
        .chain(std::iter::repeat_n(true, 60))
        .collect();
    let best = Against {
        score: 0.1,
        trigger_rate: Some(1.0),
        trigger: Some(TriggerCount {
            fired: 6,
            results: 6,
        }),
        ..Against::default()
    };
    let mut s = Triggers(Script::new(&[(ONE, ZERO), (ONE, ONE)]), draws);
    let o = adaptive_against(&mut s, 2, &AutoPolicy::new(16), 100.0, Some(&best)).unwrap();
    // `helps` settles at the fourth look (6 runs, as for the pair alone);
    // then every later round buys the firing case's with arm alone.
    let log = &s.0.log;
    assert_eq!(log.len(), 14, "{log:?}");
    assert!(
        log[4..]
            .iter()
            .flatten()
            .all(|r| r.case == 0 && r.without == 0 && r.with > 0),
        "{log:?}"
    );
    // Every later result fired: the rate climbs towards the best's but
    // stays below it (15 of 16 at MAX), never clearly below.
    assert_eq!(o.stop, Stop::MaxReached);
    assert_eq!(
        o.samples[0].trigger,
        TriggerCount {
            fired: 15,
            results: 16
        }
    );
}
