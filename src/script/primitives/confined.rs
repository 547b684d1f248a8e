//! Paths a script may write: only under the results folder, never through a link.

use super::{Error, Utf8PathBuf};

/// Where `write_result(r, path)` writes: `path` relative to the results folder
/// (a plain relative path: no `..`, not absolute, not empty). The folder is the
/// only place a script writes, so it can never replace `baseline.json`, the wiki
/// or an item.
pub fn results_path(results_dir: &camino::Utf8Path, path: &str) -> Result<Utf8PathBuf, String> {
    confined("write_result", results_dir, path)
}

/// `path` under the results folder, for `what` (a primitive or an option).
pub(super) fn confined(
    what: &str,
    results_dir: &camino::Utf8Path,
    path: &str,
) -> Result<Utf8PathBuf, String> {
    let rel = camino::Utf8Path::new(path);
    let plain = !path.is_empty()
        && rel.is_relative()
        && rel
            .components()
            .all(|c| matches!(c, camino::Utf8Component::Normal(_)));
    if !plain {
        return Err(format!(
            "{what}: {path:?} must be a plain relative path (no `..`, not absolute): it is written under {results_dir}"
        ));
    }
    Ok(results_dir.join(rel))
}

/// Create the folders of `target` inside `root` (`root` too), refusing any
/// that is a symlink leading out of `root`.
pub(super) fn create_inside(
    what: &str,
    root: &camino::Utf8Path,
    target: &camino::Utf8Path,
) -> crate::Result<()> {
    let Some(parent) = target.parent() else {
        return Ok(());
    };
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, "creating", e))?;
    let (real_root, real_parent) = (
        root.canonicalize_utf8()
            .map_err(|e| Error::io(root, "resolving", e))?,
        parent
            .canonicalize_utf8()
            .map_err(|e| Error::io(parent, "resolving", e))?,
    );
    if !real_parent.starts_with(&real_root) {
        return Err(Error::Usage(format!(
            "{what}: {parent} leads outside the results folder {root}"
        )));
    }
    Ok(())
}
