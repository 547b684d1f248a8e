//! What one setting does over a set of suites, counted on every core.

use crate::figures::Moments;
use crate::sim::{Buy, Simulated, Truth, rule_accepts};
use bob_eval::stats::Direction;
use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What one setting did over a set of suites.
#[derive(Default, Clone)]
pub(crate) struct Tally {
    pub(crate) suites: usize,
    pub(crate) null: usize,
    pub(crate) big: usize,
    pub(crate) small: usize,
    pub(crate) false_calls: usize,
    pub(crate) null_false_calls: usize,
    pub(crate) resolved: usize,
    pub(crate) small_right: usize,
    pub(crate) runs: u64,
    /// Suites whose true change is exactly the minimum effect
    /// ([`Truth::at_minimum`]), and those called right: the power there.
    pub(crate) at_minimum: usize,
    pub(crate) at_minimum_right: usize,
    /// Runs bought on each kind of suite ([`Truth::kind`]).
    pub(crate) runs_by: [u64; 3],
    pub(crate) null_accepted: usize,
    pub(crate) stops: BTreeMap<String, usize>,
    /// Runs per suite, for the mean's Monte-Carlo error.
    pub(crate) runs_m: Moments,
    /// The big suites called right, by index (sorted once counted): the
    /// paired difference against another setting on the same suites.
    pub(crate) right_big: Vec<usize>,
}

impl Tally {
    pub(crate) fn add(&mut self, p: Tally) {
        self.suites += p.suites;
        self.null += p.null;
        self.big += p.big;
        self.small += p.small;
        self.false_calls += p.false_calls;
        self.null_false_calls += p.null_false_calls;
        self.resolved += p.resolved;
        self.small_right += p.small_right;
        self.runs += p.runs;
        self.at_minimum += p.at_minimum;
        self.at_minimum_right += p.at_minimum_right;
        for (mine, theirs) in self.runs_by.iter_mut().zip(p.runs_by) {
            *mine += theirs;
        }
        self.null_accepted += p.null_accepted;
        for (k, v) in p.stops {
            *self.stops.entry(k).or_default() += v;
        }
        self.runs_m.add(p.runs_m);
        self.right_big.extend(p.right_big);
    }

    pub(crate) fn a(&self) -> f64 {
        pct(self.false_calls, self.suites)
    }
    pub(crate) fn a0(&self) -> f64 {
        pct(self.null_false_calls, self.null)
    }
    pub(crate) fn b(&self) -> f64 {
        pct(self.resolved, self.big)
    }
    pub(crate) fn s(&self) -> f64 {
        pct(self.small_right, self.small)
    }
    pub(crate) fn c(&self) -> f64 {
        self.runs as f64 / self.suites.max(1) as f64
    }
    pub(crate) fn d(&self) -> f64 {
        pct(self.null_accepted, self.null)
    }
    /// Runs per suite of the no-difference, big and small suites.
    pub(crate) fn c_by(&self) -> String {
        let per = |runs: u64, n: usize| runs as f64 / n.max(1) as f64;
        format!(
            "{:.1} / {:.1} / {:.1}",
            per(self.runs_by[0], self.null),
            per(self.runs_by[1], self.big),
            per(self.runs_by[2], self.small)
        )
    }
}

/// Suites per block handed to a core: small enough that the cores finish
/// together, large enough that taking a block costs nothing.
const BLOCK: usize = 16;

/// `work(first, block)` over `items` in blocks of [`BLOCK`], on every core:
/// each thread takes the next block when it is done with one (a core slowed
/// by another process takes fewer), and the results come back in block
/// order, so whatever is combined from them does not depend on the split.
pub(crate) fn on_cores<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(usize, &[T]) -> R + Sync,
) -> Vec<R> {
    on_cores_by(items, BLOCK, work)
}

/// [`on_cores`] in blocks of `block` items.
pub(crate) fn on_cores_by<T: Sync, R: Send>(
    items: &[T],
    block: usize,
    work: impl Fn(usize, &[T]) -> R + Sync,
) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let block = block.max(1);
    let blocks = items.len().div_ceil(block);
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.min(blocks))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = vec![];
                    loop {
                        let b = next.fetch_add(1, Ordering::Relaxed);
                        if b >= blocks {
                            break mine;
                        }
                        let first = b * block;
                        let last = (first + block).min(items.len());
                        mine.push((b, work(first, &items[first..last])));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    done.sort_by_key(|(b, _)| *b);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Run every suite through `buy` and count, on every core (each suite has
/// its own streams, so the split changes nothing in the figures). A setting
/// already measured on the same suites with the same salt (the shapes'
/// fixed 10 and default auto, which `store` and `oracle` compare against
/// too) is counted once and its tally reused.
pub(crate) fn setting(truths: &[Truth], salt: u64, buy: Buy) -> Tally {
    let mut hasher = DefaultHasher::new();
    for t in truths {
        t.0.hash(&mut hasher);
    }
    let key = format!("{}/{:x}/{salt:x}/{buy:?}", truths.len(), hasher.finish());
    static MEMO: Mutex<BTreeMap<String, Tally>> = Mutex::new(BTreeMap::new());
    if let Some(t) = MEMO.lock().unwrap().get(&key) {
        return t.clone();
    }
    let mut t = Tally::default();
    for p in on_cores(truths, |first, block| tally(block, first, salt, buy)) {
        t.add(p);
    }
    MEMO.lock().unwrap().insert(key, t.clone());
    t
}

/// [`setting`] over one slice of suites whose first has index `first`.
pub(crate) fn tally(truths: &[Truth], first: usize, salt: u64, buy: Buy) -> Tally {
    let mut t = Tally::default();
    for (i, truth) in truths.iter().enumerate() {
        let mut source = Simulated::new(truth, first + i, salt);
        let o = buy.run(&mut source, None);
        let s = truth.diff_tenths();
        let call = o.comparison.suite.advisory.direction();
        let wrong = match call {
            Some(Direction::Above) => s <= 0,
            Some(Direction::Below) => s >= 0,
            None => false,
        };
        let right = call.is_some() && !wrong;
        t.suites += 1;
        t.false_calls += usize::from(wrong);
        if s == 0 {
            t.null += 1;
            t.null_false_calls += usize::from(wrong);
            t.null_accepted += usize::from(rule_accepts(&o));
        }
        if truth.big() {
            t.big += 1;
            t.resolved += usize::from(right);
            if right {
                t.right_big.push(first + i);
            }
        }
        if truth.at_minimum() {
            t.at_minimum += 1;
            t.at_minimum_right += usize::from(right);
        }
        if truth.small() {
            t.small += 1;
            t.small_right += usize::from(right);
        }
        t.runs += o.runs;
        t.runs_m.push(o.runs as f64);
        t.runs_by[truth.kind()] += o.runs;
        let stop = serde_json::to_value(&o.stop).unwrap()["stop"]
            .as_str()
            .unwrap()
            .to_string();
        *t.stops.entry(stop).or_default() += 1;
    }
    t
}

pub(crate) fn pct(n: usize, d: usize) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

pub(crate) fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "MISS" }
}
