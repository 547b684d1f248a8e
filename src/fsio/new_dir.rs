//! A new folder written whole or not at all (`init`), and the refusal to overwrite one.

use super::{
    AtomicU64, Error, File, OpenOptions, Ordering, Result, Utf8Path, Utf8PathBuf, Write, fs,
};

/// Refuse when anything (a folder, a file, a dangling link) is at `path`.
pub fn refuse_existing(path: &Utf8Path, message: impl FnOnce() -> String) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(_) => Err(Error::Usage(message())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, "looking at", e)),
    }
}

/// A folder written whole or not at all (`bob-eval init`): write `files`
/// (paths relative to `target`) into a hidden folder under `evals` (on the
/// same file system as `target`; `init` stages under `evals/`, which neither
/// `check` nor the platform reads), fsync them, and rename it to `target`,
/// which must not exist. Returns the paths written, under `target`.
pub fn write_new_dir(
    evals: &Utf8Path,
    target: &Utf8Path,
    files: &[(String, String)],
) -> Result<Vec<Utf8PathBuf>> {
    let parent = target.parent().unwrap_or(evals);
    fs::create_dir_all(evals).map_err(|e| Error::io(evals, "creating", e))?;
    let stage = Stage::new(evals, target)?;
    let mut written = Vec::new();
    let mut dirs = vec![stage.path.clone()];
    for (rel, text) in files {
        let path = stage.path.join(rel);
        if let Some(dir) = path.parent()
            && !dirs.iter().any(|d| d == dir)
        {
            fs::create_dir_all(dir).map_err(|e| Error::io(dir, "creating", e))?;
            dirs.push(dir.to_owned());
        }
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&path, "creating", e))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io(&path, "writing", e))?;
        written.push(target.join(rel));
    }
    for dir in dirs.iter().rev() {
        sync_dir(dir)?;
    }
    // Checked again just before the rename, which itself never replaces a
    // folder that holds anything (a race can lose at most an empty folder).
    refuse_existing(target, || {
        format!("{target} appeared meanwhile: nothing written")
    })?;
    fs::rename(&stage.path, target).map_err(|e| Error::io(target, "creating", e))?;
    stage.done();
    sync_dir(parent)?;
    if evals != parent {
        sync_dir(evals)?;
    }
    Ok(written)
}

pub(super) fn sync_dir(dir: &Utf8Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, "syncing the folder", e))
}

/// The hidden staging folder of [`write_new_dir`], removed unless [`Stage::done`].
pub(super) struct Stage {
    pub(super) path: Utf8PathBuf,
    pub(super) keep: bool,
}

impl Stage {
    pub(super) fn new(evals: &Utf8Path, target: &Utf8Path) -> Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = target.file_name().unwrap_or("suite");
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = evals.join(format!(".{name}.init.{}.{n}.tmp", std::process::id()));
        if path.exists() {
            // A stale folder from a killed init with a recycled pid.
            let _ = fs::remove_dir_all(&path);
        }
        fs::create_dir(&path).map_err(|e| Error::io(&path, "creating", e))?;
        Ok(Stage { path, keep: false })
    }

    pub(super) fn done(mut self) {
        self.keep = true;
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}
