//! The platform-document reducer: any bytes either fail cleanly, naming the
//! file, or reduce to a document whose numbers keep the contract's invariants.
#![no_main]

use bob_eval::platform::result::parse as parse_doc;
use bob_eval::reduce::{ReduceContext, reduce_named};
use camino::Utf8Path;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let path = Utf8Path::new("aggregate-result.json");
    let ctx = ReduceContext {
        item: "commit".parse().expect("a valid name"),
        model: "default".into(),
        max_cost_usd: 2.0,
        started: Some(chrono::DateTime::UNIX_EPOCH),
    };
    let out = match parse_doc(bytes, path).and_then(|doc| reduce_named(&doc, &ctx, path)) {
        Ok(out) => out,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let in01 = |x: f64| (0.0..=1.0).contains(&x);
    assert!(in01(out.with) && in01(out.without));
    assert!((out.delta - (out.with - out.without)).abs() < 1e-9);
    assert!(out.trigger_rate.is_none_or(in01));
    for case in &out.cases {
        assert!(in01(case.with) && case.without.is_none_or(in01));
        if let (Some(without), Some(delta)) = (case.without, case.delta) {
            assert!((delta - (case.with - without)).abs() < 1e-9);
        }
        assert!(case.trigger_rate.is_none_or(in01));
    }
});
