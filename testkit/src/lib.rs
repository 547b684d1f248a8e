//! What bob-eval's integration tests and benches share, as a library so that
//! each test uses what it needs and nothing is dead code:
//!
//! - [`stub`]: the stub platform, one stub `claude` with switches and records;
//! - [`fake_api`]: a fake Anthropic Messages API playing a scripted model
//!   (loopback only, every request loop bounded);
//! - [`real`]: the real `claude`, its offline environment, a fixture source copy;
//! - [`expect`]: an independent reduction of platform documents;
//! - [`pty`]: a command on a terminal (`script(1)`), with its transcript;
//! - [`data`], [`tree`], [`item`]: fixtures and copies of them;
//! - [`tier`]: the tools some tiers need beyond Rust, and the one rule for a
//!   test whose tool is missing (skip with a line, or fail where required);
//! - [`world`]: a temp source tree, home and stub platform, the stage of most
//!   stub tests, and [`world::outcome`], a finished command as code and texts.
//!
//! The command builder stays in `tests/support/cmd.rs`: it needs the path of
//! the built `bob-eval`, which only the project's own tests know.

pub mod data;
pub mod expect;
pub mod fake_api;
pub mod item;
pub mod pty;
pub mod real;
pub mod stub;
pub mod tier;
pub mod tree;
pub mod world;
