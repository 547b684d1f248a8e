//! bob-eval: prove that a change to a Claude Code skill really helps.
//!
//! The modules are layered; each imports only the layers below it (the order
//! is stated once, in [`LAYERS`], and a test holds the code to it):
//!
//! - foundations: [`text`], [`diagnostic`], [`error`], [`stats`], [`parallel`],
//!   [`schema`], [`fsio`], [`config`], [`document`], [`event`];
//! - domain: [`suite`], [`item`], [`check`], [`plugin`], [`platform`],
//!   [`reduce`], [`gate`], [`wiki`], [`record`], [`scaffold`], [`evidence`],
//!   [`history`];
//! - [`eval`]: the steps composed (`assemble_plugin` → `run_platform` → `reduce`);
//!   [`shard`]: a sweep split over machines and merged back;
//! - [`ops`]: the operations a user asks for, shared by commands and primitives;
//! - [`script`]: the Rhai host and its primitives;
//! - [`report`]: human output;
//! - [`commands`]: clap, one file per subcommand.
//!
//! See `docs/architecture.md`.

pub mod check;
pub mod commands;
pub mod config;
pub mod diagnostic;
pub mod document;
pub mod error;
pub mod eval;
pub mod event;
pub mod evidence;
pub mod fsio;
pub mod gate;
pub mod history;
pub mod item;
pub mod ops;
pub mod parallel;
pub mod platform;
pub mod plugin;
pub mod record;
pub mod reduce;
pub mod report;
pub mod scaffold;
pub mod schema;
pub mod script;
pub mod shard;
pub mod stats;
pub mod suite;
pub mod text;
pub mod wiki;

pub use error::{Error, Result};

/// The modules bottom up, by layer: a module may import the modules of the
/// layers below its own and those before it in its own layer, nothing later.
pub const LAYERS: &[(&str, &[&str])] = &[
    (
        "foundations",
        &[
            "text",
            "diagnostic",
            "error",
            "stats",
            "parallel",
            "schema",
            "fsio",
            "config",
            "document",
            "event",
        ],
    ),
    (
        "domain",
        &[
            "suite", "item", "check", "plugin", "platform", "reduce", "gate", "wiki", "record",
            "scaffold", "evidence", "history",
        ],
    ),
    ("eval", &["eval", "shard"]),
    ("ops", &["ops"]),
    ("script", &["script"]),
    ("report", &["report"]),
    ("commands", &["commands"]),
];
