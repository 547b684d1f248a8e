//! Writable copies of fixture trees.

use std::path::Path;

/// Copy the tree `from` into `to` (regular files and folders only).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create copy target");
    for entry in std::fs::read_dir(from).expect("read fixture folder") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy fixture file");
        }
    }
}

/// Every path under `dir` (folders and files, symbolic links not followed),
/// in no set order: what a test asserts is or is not in a tree.
pub fn list_tree(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read folder") {
        let entry = entry.expect("folder entry");
        out.push(entry.path());
        if entry.file_type().expect("file type").is_dir() {
            out.extend(list_tree(&entry.path()));
        }
    }
    out
}
