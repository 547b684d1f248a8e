//! Plugin assembly: a throwaway plugin holding the item and a copy of its suite.
//!
//! The platform only runs the with/without ablation against a folder it can
//! recognise as a plugin: a real (not symlinked) `.claude-plugin/plugin.json`
//! in a folder nobody else may write to. The item itself is symlinked, so the
//! plugin always holds the source tree's current text; the suite is copied so
//! that `baseline.json` and old `results/` never reach the platform.
//!
//! A plugin holds an [`interrupt::Guard`] from before its folder exists until
//! after the folder is removed: a signal never ends the process in between,
//! and assembly stops at the next step once one is caught.

use crate::error::interrupt;
use crate::error::{Error, Result};
use crate::item::Item;
use camino::{Utf8Path, Utf8PathBuf};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// An assembled plugin in a private temp folder, removed on drop unless kept.
#[derive(Debug)]
pub struct Plugin {
    /// The plugin root (holds `.claude-plugin/plugin.json`).
    pub dir: Utf8PathBuf,
    /// `bob-eval-<item>`.
    pub name: String,
    /// The item inside.
    pub item: Item,
    /// The platform's temp folder (its `TMPDIR`), beside the plugin and not
    /// inside it, so that the sandboxes the platform makes there are removed
    /// with the plugin whatever way the run ends, and no sandbox has the
    /// suite's graders above it. Its config folder is there too
    /// (`platform::run`): the platform rewrites it while its runs screen
    /// the plugin's tree.
    pub scratch: Utf8PathBuf,
    /// The temp folder; `None` once kept.
    temp: Option<tempfile::TempDir>,
    /// The platform's temp folder; `None` once kept.
    scratch_temp: Option<tempfile::TempDir>,
    /// Released after the folder is removed (fields drop in this order).
    _guard: interrupt::Guard,
}

impl Plugin {
    /// Keep the folder, and the platform's temp folder beside it, after this
    /// value is dropped (`--keep`); returns the plugin folder's path.
    pub fn keep(&mut self) -> Utf8PathBuf {
        if let Some(temp) = self.temp.take() {
            let _ = temp.keep();
        }
        if let Some(temp) = self.scratch_temp.take() {
            let _ = temp.keep();
        }
        self.dir.clone()
    }

    /// True once [`Plugin::keep`] was called: the folder outlives this value.
    pub fn is_kept(&self) -> bool {
        self.temp.is_none()
    }
}

/// Assemble the plugin for `item` from `source` in a new private folder
/// under `temp` (the environment's temp folder,
/// [`crate::config::Environment::temp_dir`]): manifest, item symlink, suite
/// copy. A signal caught meanwhile stops it with [`Error::Interrupted`] at
/// the next step, and the folder is removed.
pub fn assemble(source: &Utf8Path, temp: &Path, item: &Item) -> Result<Plugin> {
    let suite = crate::config::existing_suite(source, &item.name)?;
    build(temp, item, std::slice::from_ref(item), |evals| {
        copy_suite(&suite, &evals.join(&item.name), true)
    })
}

/// The grader name prefix of `run --neighbours`: the grader
/// `<FIRED>-<name>` passes on a run where the item `name` fired.
pub const FIRED: &str = "bob-eval-fired";

/// The plugin of `run --neighbours`: `item` and `neighbours` linked, and a
/// suite holding only `cases` (the trigger pair's case folders, by name), each
/// with its graders replaced by one `tool_used` grader per loaded item that
/// passes when that item fired ([`FIRED`]), so a run says which fired. The
/// suite-level `mocks/` is copied too. Its folders are made under `temp`,
/// as [`assemble`]'s are.
pub fn assemble_competition(
    source: &Utf8Path,
    temp: &Path,
    item: &Item,
    neighbours: &[Item],
    cases: &[(String, Utf8PathBuf)],
) -> Result<Plugin> {
    let suite = crate::config::existing_suite(source, &item.name)?;
    let mut loaded = vec![item.clone()];
    loaded.extend(neighbours.iter().cloned());
    let graders: Vec<(String, String)> = loaded
        .iter()
        .map(|it| {
            let (tool, pin) = crate::check::traps::fired_through(it.kind, &it.name);
            (
                format!("{FIRED}-{}.md", it.name),
                format!("---\ntype: tool_used\ntool: {tool}\ninput_match: {pin}\n---\n"),
            )
        })
        .collect();
    build(temp, item, &loaded, |evals| {
        let to = evals.join(&item.name);
        make_dir(&to)?;
        let mocks = suite.join("mocks");
        if mocks.is_dir() {
            copy_suite(&mocks, &to.join("mocks"), false)?;
        }
        for (name, dir) in cases {
            let case = to.join(name);
            copy_suite(dir, &case, false)?;
            let graders_dir = case.join("graders");
            if graders_dir.exists() {
                fs::remove_dir_all(&graders_dir)
                    .map_err(|e| Error::io(&graders_dir, "removing", e))?;
            }
            make_dir(&graders_dir)?;
            for (file, text) in &graders {
                let path = graders_dir.join(file);
                fs::write(&path, text).map_err(|e| Error::io(&path, "writing", e))?;
            }
        }
        Ok(())
    })
}

/// A plugin named for `item` holding `items` (linked at their places) and
/// the suite `write_suite` writes under its `evals/`, in new folders under `temp`.
fn build(
    temp_root: &Path,
    item: &Item,
    items: &[Item],
    write_suite: impl FnOnce(&Utf8Path) -> Result<()>,
) -> Result<Plugin> {
    // Taken first, so it is released last: after `temp` removed the folder.
    let guard = interrupt::guard()?;
    let temp = temp_dir(temp_root, &format!("bob-eval-{}-", item.name))?;
    let scratch_temp = temp_dir(temp_root, &format!("bob-eval-{}-tmp-", item.name))?;
    // The real path: the platform does not load plugins reached through symlinks.
    let dir = real_path(&temp)?;
    let scratch = real_path(&scratch_temp)?;
    // The platform refuses a plugin folder that others may write to.
    set_mode(&dir, 0o700)?;
    set_mode(&scratch, 0o700)?;
    interrupt::check()?;
    let name = crate::item::plugin_name(&item.name);

    let manifest_dir = dir.join(".claude-plugin");
    make_dir(&manifest_dir)?;
    let manifest = serde_json::json!({
        "name": name,
        "version": "0.0.0",
        "description": format!("bob-eval: the {} {} and its eval suite", item.name, item.kind.as_str()),
    });
    let text = serde_json::to_string_pretty(&manifest).expect("a JSON value serialises") + "\n";
    let manifest_path = manifest_dir.join("plugin.json");
    fs::write(&manifest_path, text).map_err(|e| Error::io(&manifest_path, "writing", e))?;
    interrupt::check()?;

    for it in items {
        let target = fs::canonicalize(&it.path).map_err(|e| Error::io(&it.path, "resolving", e))?;
        let link = dir.join(&it.plugin_path);
        if let Some(parent) = link.parent() {
            make_dir(parent)?;
        }
        std::os::unix::fs::symlink(&target, &link)
            .map_err(|e| Error::io(&link, "linking the item", e))?;
    }

    let evals = dir.join("evals");
    make_dir(&evals)?;
    write_suite(&evals)?;
    interrupt::check()?;

    Ok(Plugin {
        dir,
        name,
        item: item.clone(),
        scratch,
        temp: Some(temp),
        scratch_temp: Some(scratch_temp),
        _guard: guard,
    })
}

/// A new private folder in `root` (the temp folder), named `prefix…`.
fn temp_dir(root: &Path, prefix: &str) -> Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(root)
        .map_err(|e| Error::io(root.display().to_string(), "creating a temp folder", e))
}

/// The real (symlink-free) UTF-8 path of `temp`.
fn real_path(temp: &tempfile::TempDir) -> Result<Utf8PathBuf> {
    let real = fs::canonicalize(temp.path())
        .map_err(|e| Error::io(temp.path().display().to_string(), "resolving", e))?;
    utf8(&real)
}

fn utf8(path: &std::path::Path) -> Result<Utf8PathBuf> {
    Utf8PathBuf::from_path_buf(path.to_owned()).map_err(|p| {
        Error::Usage(format!(
            "the temp folder {} is not UTF-8: set TMPDIR",
            p.display()
        ))
    })
}

fn set_mode(path: &Utf8Path, mode: u32) -> Result<()> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| Error::io(path, "setting permissions", e))
}

/// Create `path` (and missing parents) private to the user, without a chmod per folder.
fn make_dir(path: &Utf8Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(|e| Error::io(path, "creating", e))
}

/// A suite holds folders and regular files of bounded size only: a symlink
/// could lead out of the suite (or loop), a FIFO or device would hang or never
/// end, and `check` refuses them all before a run; this keeps `run` from
/// copying anything `check` did not read.
fn refuse_unusual(path: &Utf8Path, meta: &fs::Metadata) -> Result<()> {
    let kind = meta.file_type();
    let why = if kind.is_symlink() {
        "is a symlink: a suite holds its own files (copy the target in)".to_string()
    } else if !kind.is_dir() && !kind.is_file() {
        "is not a regular file (a FIFO, socket or device)".to_string()
    } else if kind.is_file() && meta.len() > crate::config::MAX_SUITE_FILE {
        format!(
            "is {} bytes, more than the {} a suite file may hold",
            meta.len(),
            crate::config::MAX_SUITE_FILE
        )
    } else {
        return Ok(());
    };
    Err(Error::invalid(path, why))
}

/// Copy `from` into `to`; at the top level leave out `baseline.json` and
/// `results/`, and everywhere the graders' labels files.
fn copy_suite(from: &Utf8Path, to: &Utf8Path, top: bool) -> Result<()> {
    make_dir(to)?;
    let entries = from
        .read_dir_utf8()
        .map_err(|e| Error::io(from, "reading", e))?;
    for entry in entries {
        interrupt::check()?;
        let entry = entry.map_err(|e| Error::io(from, "reading", e))?;
        let name = entry.file_name();
        let src = entry.path();
        let meta = fs::symlink_metadata(src).map_err(|e| Error::unreadable(src, e))?;
        refuse_unusual(src, &meta)?;
        if top
            && ((name == "baseline.json" && meta.is_file()) || (name == "results" && meta.is_dir()))
        {
            continue;
        }
        // A grader's labels stay in the source tree: the with arm never sees them.
        if meta.is_file() && crate::suite::labels::is_labels_path(src) {
            continue;
        }
        let dst = to.join(name);
        if meta.is_dir() {
            copy_suite(src, &dst, false)?;
        } else if meta.is_file() {
            fs::copy(src, &dst).map_err(|e| Error::io(src, "copying", e))?;
            // Nobody else may write into the plugin, whatever the source's modes
            // (the copy has the source's mode: change it only when that is needed).
            let mode = meta.permissions().mode() & 0o7777;
            let private = (mode & 0o755) | 0o600;
            if mode != private {
                set_mode(&dst, private)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item;

    fn write(root: &Utf8Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn source() -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().to_owned()).unwrap();
        write(
            &root,
            "skills/commit/SKILL.md",
            "---\nname: commit\ndescription: d\n---\nbody\n",
        );
        write(
            &root,
            "evals/commit/baseline.json",
            r#"{"schema": "skill-eval-baseline/1", "item": "commit", "best": {}}"#,
        );
        write(
            &root,
            "evals/commit/results/2026/aggregate-result.json",
            "{}",
        );
        write(&root, "evals/commit/fires/prompt.md", "write a commit\n");
        write(
            &root,
            "evals/commit/fires/graders/fires.md",
            "---\ntype: tool_used\ntool: Skill\ninput_match: '\"skill\"\\s*:\\s*\"(?:[\\w-]+:)?commit\"'\n---\n",
        );
        write(&root, "evals/commit/quiet/prompt.md", "hi\n");
        write(
            &root,
            "evals/commit/quiet/graders/quiet.md",
            "---\ntype: tool_used\ntool: Skill\ninput_match: '\"skill\"\\s*:\\s*\"(?:[\\w-]+:)?commit\"'\nmin: 0\nmax: 0\narm: both\n---\n",
        );
        write(
            &root,
            "evals/commit/quiet/results/keep.txt",
            "nested results are case data\n",
        );
        (dir, root)
    }

    #[test]
    fn assembles_manifest_link_and_suite_copy() {
        let (_d, root) = source();
        let it = item::find(&root, &crate::config::item_name("commit")).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let plugin = assemble(&root, tmp.path(), &it).unwrap();
        let dir = plugin.dir.clone();
        assert_eq!(plugin.name, "bob-eval-commit");

        let manifest = dir.join(".claude-plugin/plugin.json");
        let meta = fs::symlink_metadata(&manifest).unwrap();
        assert!(meta.file_type().is_file(), "manifest must be a real file");
        let doc: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&manifest).unwrap()).unwrap();
        assert_eq!(doc["name"], "bob-eval-commit");
        assert_eq!(doc["version"], "0.0.0");
        assert!(doc["description"].as_str().unwrap().contains("commit"));

        let link = dir.join("skills/commit");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let target = fs::read_link(&link).unwrap();
        assert!(target.is_absolute(), "{}", target.display());
        assert_eq!(
            target,
            fs::canonicalize(root.join("skills/commit")).unwrap()
        );

        assert!(dir.join("evals/commit/fires/graders/fires.md").is_file());
        assert!(dir.join("evals/commit/quiet/results/keep.txt").is_file());
        assert!(!dir.join("evals/commit/baseline.json").exists());
        assert!(!dir.join("evals/commit/results").exists());

        let mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);

        let scratch = plugin.scratch.clone();
        assert!(scratch.is_dir() && !scratch.starts_with(&dir));
        // Both in the temp folder the caller's environment chose.
        let chosen = fs::canonicalize(tmp.path()).unwrap();
        assert!(dir.starts_with(&chosen) && scratch.starts_with(&chosen));
        drop(plugin);
        assert!(!dir.exists(), "an unkept plugin is removed");
        assert!(!scratch.exists(), "so is the platform's temp folder");
    }

    #[test]
    fn labels_files_never_reach_the_plugin() {
        let (_d, root) = source();
        write(&root, "evals/commit/fires/graders/why.labels.json", "{}");
        write(
            &root,
            "evals/commit/fires/notes.labels.json",
            "kept: not a grader's",
        );
        let it = item::find(&root, &crate::config::item_name("commit")).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let plugin = assemble(&root, tmp.path(), &it).unwrap();
        let case = plugin.dir.join("evals/commit/fires");
        assert!(case.join("graders/fires.md").is_file());
        assert!(!case.join("graders/why.labels.json").exists());
        assert!(case.join("notes.labels.json").is_file());
    }

    #[test]
    fn kept_plugin_persists() {
        let (_d, root) = source();
        let it = item::find(&root, &crate::config::item_name("commit")).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let mut plugin = assemble(&root, tmp.path(), &it).unwrap();
        let dir = plugin.keep();
        let scratch = plugin.scratch.clone();
        drop(plugin);
        assert!(dir.join(".claude-plugin/plugin.json").is_file());
        assert!(scratch.is_dir(), "the platform's temp folder is kept too");
        fs::remove_dir_all(dir).unwrap();
        fs::remove_dir_all(scratch).unwrap();
    }

    #[test]
    fn no_suite_is_an_error() {
        let (_d, root) = source();
        write(&root, "commands/ship.md", "---\ndescription: s\n---\n");
        let it = item::find(&root, &crate::config::item_name("ship")).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let err = assemble(&root, tmp.path(), &it).unwrap_err();
        assert!(matches!(err, Error::NoSuite { .. }), "{err}");
        assert!(err.to_string().contains("evals/ship"), "{err}");
    }

    #[test]
    fn symlinks_and_unusual_files_in_a_suite_are_never_copied() {
        for make in ["link-out", "link-loop", "fifo"] {
            let (_d, root) = source();
            let at = root.join("evals/commit/fires/extra");
            match make {
                "link-out" => std::os::unix::fs::symlink("/usr/share", &at).unwrap(),
                "link-loop" => std::os::unix::fs::symlink(&at, &at).unwrap(),
                _ => {
                    let c = std::ffi::CString::new(at.as_str()).unwrap();
                    // SAFETY: mkfifo(3) on a NUL-terminated path we own.
                    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
                }
            }
            let found = item::find(&root, &crate::config::item_name("commit")).unwrap();
            let tmp = tempfile::tempdir().unwrap();
            let err = assemble(&root, tmp.path(), &found).unwrap_err();
            assert!(err.to_string().contains("fires/extra"), "{make}: {err}");
            assert_eq!(err.exit_code(), crate::error::exit::USAGE, "{make}");
        }
    }
}
