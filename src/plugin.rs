//! Plugin assembly: a throwaway plugin holding the item and a copy of its suite.
//! (Issue #3 fills this in.)

use crate::error::Result;
use crate::item::Item;
use camino::{Utf8Path, Utf8PathBuf};

/// An assembled plugin in a private temp folder, removed on drop unless kept.
#[derive(Debug)]
pub struct Plugin {
    /// The plugin root (holds `.claude-plugin/plugin.json`).
    pub dir: Utf8PathBuf,
    /// `bob-eval-<item>`.
    pub name: String,
    /// The item inside.
    pub item: Item,
}

/// Assemble the plugin for `item` from `source`.
pub fn assemble(source: &Utf8Path, item: &Item) -> Result<Plugin> {
    let _ = (source, item);
    todo!("issue #3")
}
