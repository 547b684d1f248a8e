//! Where the test fixtures are.

use std::path::{Path, PathBuf};

/// `tests/data/<rel>` in this project.
pub fn data(rel: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("tests/data")
        .join(rel)
}
