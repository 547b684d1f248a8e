//! The world most stub-platform tests stand in: a temp folder holding a
//! source tree (`source/`), a home (`home/`) and a stub `claude`.

use crate::stub::{Stub, Switches};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A temp folder with a source tree, a home and a stub platform; removed when dropped.
pub struct World {
    _dir: tempfile::TempDir,
    /// The temp folder, where commands run.
    pub root: PathBuf,
    /// The source tree (`--source`).
    pub source: PathBuf,
    /// The stub platform (`BOB_EVAL_CLAUDE`).
    pub stub: Stub,
}

impl World {
    /// A source tree with a suite and a skill for each of `items` and the
    /// wiki page `commit-skipped-hook` (what `--pages` cites), an empty home,
    /// and a stub answering as `switches` say.
    pub fn new(items: &[&str], switches: Switches) -> World {
        let world = World::empty(switches);
        for item in items {
            crate::item::add_item(&world.source, item);
        }
        world.write(
            "wiki/patterns/commit-skipped-hook.md",
            "# Commit skipped hook\n",
        );
        world
    }

    /// An empty source tree, an empty home, and a stub answering as
    /// `switches` say.
    pub fn empty(switches: Switches) -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let source = root.join("source");
        std::fs::create_dir_all(&source).unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        World {
            _dir: dir,
            root,
            source,
            stub: Stub::new(switches),
        }
    }

    /// A fresh copy of the fixture folder `fixture` (a `data(…)` path) as the
    /// source tree, an empty home, and a stub answering as `switches` say.
    pub fn copy_of(fixture: &Path, switches: Switches) -> World {
        let world = World::empty(switches);
        crate::tree::copy_tree(fixture, &world.source);
        world
    }

    /// Write `text` to `rel` under the source tree, making its folders.
    pub fn write(&self, rel: &str, text: &str) -> &World {
        let path = self.source.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    /// The home (`--home`).
    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    /// `base` (the test's `bob-eval --source <source> --home <home>`) with
    /// the stub as the platform, run in the world's folder, which is also its
    /// TMPDIR: what a run leaves there (`--keep`'s folders) goes with the world.
    pub fn command(&self, mut base: Command) -> Command {
        in_folder(&mut base, &self.root).env("BOB_EVAL_CLAUDE", &self.stub.bin);
        base
    }

    /// The arguments of every eval call the platform got, in order (the
    /// version probes left out).
    pub fn calls(&self) -> Vec<String> {
        self.lines("calls")
            .into_iter()
            .filter(|call| call != "--version")
            .collect()
    }

    /// The lines of the stub's record `name` (none if it never wrote it).
    pub fn lines(&self, name: &str) -> Vec<String> {
        self.stub
            .record(name)
            .map(|t| t.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    }

    /// `rel` under the world's folder, as a string for an argument.
    pub fn path(&self, rel: &str) -> String {
        self.root.join(rel).to_str().unwrap().to_owned()
    }
}

/// `cmd` run in `dir`, which is also its TMPDIR: what a run leaves there
/// (`--keep`'s folders, the plugins assembled) goes with the folder.
pub fn in_folder<'a>(cmd: &'a mut Command, dir: &Path) -> &'a mut Command {
    cmd.current_dir(dir).env("TMPDIR", dir)
}

/// The arguments of the command `text` prints after `before` (`next:
/// complete it: bob-eval `) at the start of a line, up to the words in
/// brackets after it, split on spaces (the tests' commands quote nothing).
/// The test fails, showing `text`, when no line holds it.
pub fn printed_args<'a>(text: &'a str, before: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix(before))
        .unwrap_or_else(|| panic!("no `{before}` in {text}"));
    line.split(" (").next().unwrap_or(line).split(' ').collect()
}

/// Run `cmd` and hold it to exit 0 (the failure shows the command and its
/// stderr); its output.
pub fn succeeds(mut cmd: Command) -> std::process::Output {
    let out = cmd.output().expect("the command starts");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Run `cmd`: its exit code (-1 when killed), stdout and stderr as text.
pub fn outcome(mut cmd: Command) -> (i32, String, String) {
    let out = cmd.output().expect("the command starts");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
