//! The walk of a suite's folder: which folders are cases, bounded in depth,
//! refusing links and special files.

use super::{
    BTreeSet, Diagnostic, HashMap, MAX_DEPTH, MAX_SUITE_FILE, SKIPPED_DIRS, Utf8Path, Utf8PathBuf,
    not_a_file, problem, too_large,
};
use crate::diagnostic::Code;

/// A case folder found by the scan, with which of its two files it holds
/// (present as any kind of entry: one that is refused still makes the case).
pub(super) struct CaseDir {
    pub(super) dir: Utf8PathBuf,
    pub(super) prompt: bool,
    pub(super) yaml: bool,
}

/// How the scan treats a folder.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Walk {
    /// Searching for case folders.
    Search,
    /// Inside a case (or a skipped folder): only looking at the entries.
    Look,
}

/// Deepest folder nesting the scan enters below a suite (case folders are
/// searched for only [`MAX_DEPTH`] deep).
pub(super) const MAX_SCAN_DEPTH: usize = 64;

/// The scan of a suite folder: its case folders, and every entry it refuses.
#[derive(Default)]
pub(super) struct Scan {
    pub(super) cases: Vec<CaseDir>,
    pub(super) problems: Vec<Diagnostic>,
    /// Entries reported here and never to be opened.
    pub(super) refused: BTreeSet<Utf8PathBuf>,
    /// The regular files of every `graders` folder, so the loader need not
    /// list it again.
    pub(super) graders: HashMap<Utf8PathBuf, Vec<String>>,
    pub(super) incomplete: bool,
    /// An entry named `mocks` was seen.
    pub(super) mocks: bool,
}

impl Scan {
    /// `dir` could not be listed (wholly or part way): a problem, and the
    /// scan is incomplete.
    fn unreadable(&mut self, dir: &Utf8Path, e: &std::io::Error) {
        self.problems.push(problem(
            Code::Unreadable,
            dir,
            None,
            format!("cannot read the folder: {e}"),
            "make it readable or remove it",
        ));
        self.incomplete = true;
    }

    /// Look at every entry of `dir` (one listing, one `lstat` per file, no link
    /// ever followed) and descend; `top` is the suite folder itself, `graders`
    /// a case's `graders` folder. A file the loader opens (a case's
    /// `prompt.md` or `case.yaml`, a grader's `.md`) is not looked at here:
    /// it is measured once open, with the same finding (a system call less
    /// per file).
    pub(super) fn folder(
        &mut self,
        dir: &Utf8Path,
        depth: usize,
        walk: Walk,
        top: bool,
        graders: bool,
    ) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => return self.unreadable(dir, &e),
        };
        let (mut prompt, mut yaml) = (false, false);
        let mut subdirs: Vec<String> = Vec::new();
        let mut files: Vec<String> = Vec::new();
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    self.unreadable(dir, &e);
                    break;
                }
            };
            let kind = entry.file_type().ok();
            let name = match entry.file_name().into_string() {
                Ok(name) => name,
                Err(raw) => {
                    let shown = raw.to_string_lossy().into_owned();
                    self.problems.push(problem(
                        Code::NonUtf8Name,
                        &dir.join(&shown),
                        None,
                        format!(
                            "the name {shown:?} is not UTF-8: neither the platform nor bob-eval can name it"
                        ),
                        "rename it with a UTF-8 name, or remove it",
                    ));
                    if walk == Walk::Search && kind.is_none_or(|k| k.is_dir()) {
                        self.incomplete = true;
                    }
                    continue;
                }
            };
            let path = dir.join(&name);
            self.mocks |= name == "mocks";
            let marker = matches!(name.as_str(), "prompt.md" | "case.yaml");
            match kind {
                Some(k) if k.is_dir() => {
                    subdirs.push(name);
                    continue;
                }
                Some(k) if k.is_file() => {
                    let opened = if marker {
                        walk == Walk::Search
                    } else {
                        graders && name.ends_with(".md")
                    };
                    let len = if opened {
                        0
                    } else {
                        entry.metadata().map(|m| m.len()).unwrap_or(0)
                    };
                    if len > MAX_SUITE_FILE {
                        self.problems.push(too_large(&path, len));
                        self.refused.insert(path);
                    } else if !marker {
                        files.push(name.clone());
                    }
                }
                other => {
                    let symlink = other.is_some_and(|k| k.is_symlink());
                    self.problems.push(if symlink {
                        problem(
                            Code::Symlink,
                            &path,
                            None,
                            "a symlink in a suite: bob-eval never follows one (`run` refuses the suite)".into(),
                            "copy the target into the suite in its place",
                        )
                    } else {
                        not_a_file(&path)
                    });
                    self.refused.insert(path);
                    if walk == Walk::Search && !marker {
                        // It may stand for a folder holding cases.
                        self.incomplete = true;
                    }
                    if !marker {
                        continue;
                    }
                }
            }
            if marker && walk == Walk::Search && kind.is_some() {
                if name == "prompt.md" {
                    prompt = true;
                } else {
                    yaml = true;
                }
            }
        }
        if dir.file_name() == Some("graders") {
            self.graders.insert(dir.to_owned(), files);
        }
        let case = walk == Walk::Search && (prompt || yaml);
        let walk = if case {
            self.cases.push(CaseDir {
                dir: dir.to_owned(),
                prompt,
                yaml,
            });
            Walk::Look
        } else {
            walk
        };
        subdirs.sort();
        for name in subdirs {
            // `run` copies all but the results of earlier runs.
            if top && name == "results" {
                continue;
            }
            let sub = dir.join(&name);
            let sub_walk = if SKIPPED_DIRS.contains(&name.as_str()) {
                Walk::Look
            } else {
                walk
            };
            let limit = if sub_walk == Walk::Search {
                MAX_DEPTH
            } else {
                MAX_SCAN_DEPTH
            };
            if depth >= limit {
                let what = if sub_walk == Walk::Search {
                    "case folders"
                } else {
                    "folders"
                };
                self.problems.push(problem(
                    Code::TooDeep,
                    &sub,
                    None,
                    format!("{what} nest deeper than {limit} levels"),
                    "flatten the folders",
                ));
                self.incomplete |= sub_walk == Walk::Search;
                continue;
            }
            let graders = case && name == "graders";
            self.folder(&sub, depth + 1, sub_walk, false, graders);
        }
    }
}
