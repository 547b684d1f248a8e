//! The real platform tier: the real `claude` binary (`make claude` installs
//! it in `.cache/claude-code`), fully offline against the fake Messages API
//! on 127.0.0.1. Without it each test skips, saying so (under
//! `BOB_EVAL_REQUIRE_TIERS=1`, as `make test` and CI set, it fails).
//! `cargo test --test real`.

/// What the tests here share (see tests/support/README.md): the command
/// builder, included once, and the testkit's modules they use.
#[path = "../support"]
mod support {
    pub mod cmd;
    pub use bob_eval_testkit::{data, expect, fake_api, real, tier, tree, world};
}

mod auto_real;
mod auto_store_real;
mod best_again_real;
mod calibration_real;
mod clean_room_real;
mod counting_real;
mod efficiency_real;
mod estimates_real;
mod evidence_real;
mod grader_guard_real;
mod graders_real;
mod init_real;
mod judge_votes_real;
mod labels_real;
mod neighbours_real;
mod payless_real;
mod pipelines_real;
mod platform_direct;
mod platform_env_real;
mod platform_surface;
mod plugin_corpus_real;
mod plugin_traps_real;
mod real_platform;
mod scaffold_real;
mod transcripts_real;
mod trigger_real;
