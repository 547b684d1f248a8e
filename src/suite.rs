//! Suite loading: read `evals/<item>/` exactly as the platform reads it.
//! (Issue #2 fills this in.)

use crate::error::Result;
use camino::{Utf8Path, Utf8PathBuf};

/// `evals/<item>/` under `source`.
pub fn dir(source: &Utf8Path, item: &str) -> Utf8PathBuf {
    source.join("evals").join(item)
}

/// The names of every suite under `source/evals/`, sorted.
pub fn list(source: &Utf8Path) -> Result<Vec<String>> {
    let _ = source;
    todo!("issue #2")
}
