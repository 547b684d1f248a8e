//! The fast tier: `bob-eval` end to end on a stub `claude` (a shell script)
//! or no platform at all, with what it reads and writes checked file by
//! file. Needs only Rust, but for two tools whose tests skip (or, under
//! `BOB_EVAL_REQUIRE_TIERS=1`, fail) without them: Python's junitparser
//! (`ci_formats`) and Chromium (`history`). `cargo test --test cli`.

/// What the tests here share (see tests/support/README.md): the command
/// builder, included once, and the testkit's modules they use.
#[path = "../support"]
mod support {
    pub mod cmd;
    pub use bob_eval_testkit::{data, expect, item, pty, stub, tier, tree, world};
}

mod broken_pipe;
mod brought_in;
mod check;
mod check_mcp;
mod check_plugin;
mod check_sharp;
mod ci_formats;
mod compare;
mod completions;
mod counting;
mod decide;
mod docs_commands;
mod doors;
mod dry_run;
mod efficiency;
mod efficiency_formats;
mod estimates;
mod faults;
mod gate;
mod hardening;
mod history;
mod init;
mod judge_calibration;
mod judge_votes;
mod label;
mod layers;
mod manifests;
mod names;
mod pipelines;
mod provenance;
mod reduce;
mod run_confidence;
mod run_key;
mod run_stub;
mod script_sandbox;
mod sequence;
mod shard;
mod sweep_progress;
mod transcripts;
mod workflow;
