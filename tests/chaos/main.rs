//! The chaos tier: processes killed and signalled at random moments, and
//! many at once: evidence-store writers SIGKILLed mid-transaction,
//! recorders SIGKILLed mid-write, 16 recorders at once, every signal at
//! every stage of a run (on the stub and, when installed, the real
//! platform). Needs only Rust; slow by nature. `cargo test --test chaos`.

/// What the tests here share (see tests/support/README.md): the command
/// builder, included once, and the testkit's modules they use.
#[path = "../support"]
mod support {
    pub mod cmd;
    pub use bob_eval_testkit::{data, fake_api, real, stub, tier, tree};
}

mod evidence_store;
mod record_concurrency;
mod record_kill;
mod signals;
mod signals_real;
