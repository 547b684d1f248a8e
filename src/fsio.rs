//! File writes that never leave a torn file, and the lock that serializes
//! recorders. The one atomic writer of the crate: `run --out`, a script's
//! `write_result` and the recorder all go through [`Staged`].
//!
//! A regular file (or a missing one) is replaced whole: the new bytes go to a
//! temp file in the same folder (`.<name>.<pid>.<thread>.tmp`), are fsynced, renamed
//! over the target, and the folder is fsynced, so a reader (or a crash) sees the
//! old file or the whole new one. A symlink is followed: its target is replaced
//! that way and the link stays. Something that is not a regular file (a device,
//! a FIFO, `/dev/stdout`) is written through, never replaced.

use crate::error::{Error, Result};
use camino::{Utf8Path, Utf8PathBuf};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Where bytes for `path` really go: the path itself, or a symlink's final target.
fn resolve(path: &Utf8Path) -> Result<Utf8PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => match fs::canonicalize(path) {
            Ok(real) => Utf8PathBuf::from_path_buf(real).map_err(|p| {
                Error::Usage(format!("{path} links to a non-UTF-8 path {}", p.display()))
            }),
            // A dangling link: create its target (relative to the link's folder).
            Err(_) => {
                let target =
                    fs::read_link(path).map_err(|e| Error::io(path, "reading the link", e))?;
                let target = Utf8PathBuf::from_path_buf(target).map_err(|p| {
                    Error::Usage(format!("{path} links to a non-UTF-8 path {}", p.display()))
                })?;
                Ok(match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                })
            }
        },
        _ => Ok(path.to_owned()),
    }
}

/// The folder a file is written in (`.` for a bare name).
fn folder(path: &Utf8Path) -> &Utf8Path {
    match path.parent() {
        Some(p) if !p.as_str().is_empty() => p,
        _ => Utf8Path::new("."),
    }
}

/// Where bytes for `path` go and what is there now; an empty path or a folder
/// is refused (the one rule `check_writable` and `Staged::write` share).
fn destination(path: &Utf8Path) -> Result<(Utf8PathBuf, Option<fs::Metadata>)> {
    if path.as_str().is_empty() {
        return Err(Error::Usage("the output path is empty".into()));
    }
    let target = resolve(path)?;
    let existing = fs::metadata(&target).ok();
    if existing.as_ref().is_some_and(fs::Metadata::is_dir) {
        return Err(Error::Usage(format!(
            "{path} is a folder: give a file name inside it"
        )));
    }
    Ok((target, existing))
}

/// Refuse, before anything is spent, a destination that cannot be written:
/// an empty path, a folder, a missing or unwritable parent folder.
pub fn check_writable(path: &Utf8Path) -> Result<()> {
    let (target, existing) = destination(path)?;
    match existing {
        Some(meta) if !meta.file_type().is_file() => {
            // A device or FIFO is written through: it must open for writing.
            return OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&target)
                .map(drop)
                .or_else(|e| {
                    // A FIFO without a reader refuses O_NONBLOCK opens; that is fine.
                    if e.raw_os_error() == Some(libc::ENXIO) {
                        Ok(())
                    } else {
                        Err(Error::Usage(format!("cannot write {path}: {e}")))
                    }
                });
        }
        _ => {}
    }
    let dir = folder(&target);
    let meta = fs::metadata(dir).map_err(|e| {
        Error::Usage(format!(
            "cannot write {path}: its folder {dir} is not there ({e}); create it first"
        ))
    })?;
    if !meta.is_dir() {
        return Err(Error::Usage(format!(
            "{dir} is not a folder: cannot write {path}"
        )));
    }
    // SAFETY: access(2) with a NUL-terminated path we own.
    let c = std::ffi::CString::new(dir.as_str())
        .map_err(|_| Error::Usage(format!("{dir}: the path holds a NUL byte")))?;
    if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
        return Err(Error::Usage(format!(
            "cannot write {path}: its folder {dir} is not writable ({})",
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

/// New bytes for a file, written and fsynced but not yet in place. Dropped
/// without [`Staged::commit`], the temp file is removed.
#[derive(Debug)]
pub struct Staged {
    /// The temp file (`None` when the target is written through).
    temp: Option<Utf8PathBuf>,
    /// The file replaced (a symlink's target, not the link).
    target: Utf8PathBuf,
    /// What the caller named, for messages.
    shown: Utf8PathBuf,
    /// Bytes for a target that is written through at commit.
    through: Option<Vec<u8>>,
}

impl Staged {
    /// Write `bytes` for `path` to a temp file beside its target and fsync it.
    /// A replaced file keeps its mode; a new one gets 0644 less the umask.
    pub fn write(path: &Utf8Path, bytes: &[u8]) -> Result<Staged> {
        let (target, existing) = destination(path)?;
        // Not a folder (refused) nor a regular file: a device, FIFO or socket.
        if existing.as_ref().is_some_and(|m| !m.file_type().is_file()) {
            return Ok(Staged {
                temp: None,
                target,
                shown: path.to_owned(),
                through: Some(bytes.to_vec()),
            });
        }
        let mode = existing.as_ref().map(|m| m.permissions().mode() & 0o7777);
        let temp = temp_path(&target);
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode.unwrap_or(0o644))
            .open(&temp)
            .map_err(|e| Error::io(path, "writing (a temp file in its folder)", e))?;
        let staged = Staged {
            temp: Some(temp),
            target,
            shown: path.to_owned(),
            through: None,
        };
        if let Some(mode) = mode {
            // The umask may have cut the mode at creation: put the exact one back.
            file.set_permissions(fs::Permissions::from_mode(mode))
                .map_err(|e| Error::io(path, "setting permissions", e))?;
        }
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io(path, "writing (a temp file in its folder)", e))?;
        Ok(staged)
    }

    /// Put the new bytes in place: rename over the target and fsync the folder
    /// (or write through a device or FIFO).
    pub fn commit(mut self) -> Result<()> {
        if let Some(bytes) = self.through.take() {
            let mut file = OpenOptions::new()
                .write(true)
                .open(&self.target)
                .map_err(|e| Error::io(&self.shown, "opening for writing", e))?;
            return file
                .write_all(&bytes)
                .and_then(|()| file.flush())
                .map_err(|e| Error::io(&self.shown, "writing", e));
        }
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        if let Err(e) = fs::rename(&temp, &self.target) {
            let _ = fs::remove_file(&temp);
            return Err(Error::io(&self.shown, "replacing", e));
        }
        let dir = folder(&self.target);
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io(dir, "syncing the folder", e))
    }

    /// The file that [`Staged::commit`] replaces (a symlink's target).
    pub fn target(&self) -> &Utf8Path {
        &self.target
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = fs::remove_file(temp);
        }
    }
}

/// Write `bytes` to `path` atomically (see the module docs).
pub fn write_atomically(path: &Utf8Path, bytes: &[u8]) -> Result<()> {
    Staged::write(path, bytes)?.commit()
}

/// The temp file for `target` written by this thread: `.<name>.<pid>.<thread>.tmp`
/// beside it (one writer per thread at a time, so never shared).
pub(crate) fn temp_path(target: &Utf8Path) -> Utf8PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static THREAD: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    let thread = THREAD.with(|t| *t);
    folder(target).join(format!(
        "{}{}.{thread}.tmp",
        temp_prefix(target),
        std::process::id()
    ))
}

/// The prefix of temp files for `target`: `.<name>.`.
fn temp_prefix(target: &Utf8Path) -> String {
    format!(".{}.", target.file_name().unwrap_or("file"))
}

/// Remove temp files for `target` that killed writers left. Call it only while
/// holding the lock that every writer of `target` takes.
pub fn remove_stale_temps(target: &Utf8Path) {
    let Ok(target) = resolve(target) else { return };
    let prefix = temp_prefix(&target);
    let Ok(entries) = fs::read_dir(folder(&target)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(&prefix) && name.ends_with(".tmp") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Take an exclusive lock on `path`, creating the file when needed. The lock is
/// released when the returned file is dropped (or the process dies).
pub fn lock(path: &Utf8Path) -> Result<File> {
    let file = match OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
    {
        Ok(file) => file,
        Err(e) => File::open(path).map_err(|_| {
            Error::io(
                path,
                "creating the lock that serializes recorders (is the folder writable?)",
                e,
            )
        })?,
    };
    file.lock().map_err(|e| Error::io(path, "locking", e))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    fn names(dir: &Utf8Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let path = root.join("r.json");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(names(root), vec!["r.json"]);
        assert!(write_atomically(&root.join("missing/r.json"), b"x").is_err());
        assert!(write_atomically(root, b"x").is_err());
        assert!(write_atomically(Utf8Path::new(""), b"x").is_err());
    }

    #[test]
    fn a_symlink_is_written_at_its_target_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        fs::create_dir(root.join("real")).unwrap();
        fs::write(root.join("real/b.json"), "old").unwrap();
        std::os::unix::fs::symlink("real/b.json", root.join("link.json")).unwrap();
        write_atomically(&root.join("link.json"), b"new").unwrap();
        assert!(
            fs::symlink_metadata(root.join("link.json"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(root.join("real/b.json")).unwrap(), "new");
        assert_eq!(names(&root.join("real")), vec!["b.json"]);
    }

    #[test]
    fn a_device_is_written_through_never_replaced() {
        write_atomically(Utf8Path::new("/dev/null"), b"x").unwrap();
        let meta = fs::metadata("/dev/null").unwrap();
        assert!(meta.file_type().is_char_device());
        check_writable(Utf8Path::new("/dev/null")).unwrap();
    }

    #[test]
    fn a_dropped_stage_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let staged = Staged::write(&root.join("x"), b"x").unwrap();
        drop(staged);
        assert!(names(root).is_empty());
    }

    #[test]
    fn writable_checks_refuse_what_cannot_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        check_writable(&root.join("new.json")).unwrap();
        assert!(check_writable(root).is_err());
        assert!(check_writable(&root.join("missing/x.json")).is_err());
        assert!(check_writable(Utf8Path::new("")).is_err());
    }

    #[test]
    fn a_replaced_file_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let path = root.join("m");
        fs::write(&path, "a").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomically(&path, b"b").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}
