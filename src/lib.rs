//! bob-eval: prove that a change to a Claude Code skill really helps.
//!
//! The modules follow the data flow of one eval:
//! [`suite`] (load `evals/<item>/`) → [`check`] (static checks) → [`item`] (find
//! the item) → [`plugin`] (assemble a throwaway plugin) → [`platform`] (run
//! `claude plugin eval`) → [`reduce`] (to `skill-eval/1`) → [`gate`] (the fixed
//! rule) → [`record`] (`baseline.json` and [`wiki`]). [`script`] hosts the Rhai
//! pipelines that compose them; [`report`] renders human output.

pub mod check;
pub mod cli;
pub mod config;
pub mod document;
pub mod error;
pub mod gate;
pub mod item;
pub mod platform;
pub mod plugin;
pub mod record;
pub mod reduce;
pub mod report;
pub mod run;
pub mod schema;
pub mod script;
pub mod stats;
pub mod suite;
pub mod wiki;

pub use error::{Error, Result};

use camino::{Utf8Path, Utf8PathBuf};

/// Where a command works: the source tree and the operator's home.
#[derive(Debug, Clone)]
pub struct Context {
    /// The tree holding `evals/`, the items and `wiki/`.
    pub source: Utf8PathBuf,
    /// The operator's settings folder.
    pub home: Utf8PathBuf,
}

impl Context {
    /// Resolve the source and home from flags, environment and defaults.
    pub fn new(source: Option<&Utf8Path>, home: Option<&Utf8Path>) -> Result<Self> {
        Ok(Context {
            source: config::source_dir(source)?,
            home: config::home_dir(home),
        })
    }
}
