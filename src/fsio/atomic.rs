//! The one atomic writer: a staged temp file renamed over its target, a link's target written.

use super::{
    AtomicUsize, Error, File, FileTypeExt, Links, OpenOptions, OpenOptionsExt, Ordering,
    PermissionsExt, Result, Utf8Path, Utf8PathBuf, Write, fs, unusual_kind, write_through,
};

/// Where bytes for `path` really go: the path itself, or a symlink's final target.
pub(super) fn resolve(path: &Utf8Path) -> Result<Utf8PathBuf> {
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
pub(super) fn folder(path: &Utf8Path) -> &Utf8Path {
    match path.parent() {
        Some(p) if !p.as_str().is_empty() => p,
        _ => Utf8Path::new("."),
    }
}

/// Where bytes for `path` go and what is there now; an empty path or a folder
/// is refused (the one rule `check_writable` and `Staged::write` share), and
/// under [`Links::Refuse`] a symlink, FIFO, socket or device too.
pub(super) fn destination(
    path: &Utf8Path,
    links: Links,
) -> Result<(Utf8PathBuf, Option<fs::Metadata>)> {
    if path.as_str().is_empty() {
        return Err(Error::Usage("the output path is empty".into()));
    }
    let (target, existing) = match links {
        Links::Follow => {
            let target = resolve(path)?;
            let existing = fs::metadata(&target).ok();
            (target, existing)
        }
        Links::Refuse => {
            let existing = fs::symlink_metadata(path).ok();
            if let Some(kind) = existing.as_ref().and_then(|m| unusual_kind(m.file_type())) {
                return Err(Error::Usage(format!(
                    "{path} is {kind}: bob-eval writes only a regular file here, never through {kind} (remove it)"
                )));
            }
            (path.to_owned(), existing)
        }
    };
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
    check_writable_as(path, Links::Follow)
}

/// [`check_writable`] with the rule for links of `links`.
pub fn check_writable_as(path: &Utf8Path, links: Links) -> Result<()> {
    let (target, existing) = destination(path, links)?;
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
                    if meta.file_type().is_fifo() && e.raw_os_error() == Some(libc::ENXIO) {
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
    pub(super) temp: Option<Utf8PathBuf>,
    /// The file replaced (a symlink's target, not the link).
    pub(super) target: Utf8PathBuf,
    /// What the caller named, for messages.
    pub(super) shown: Utf8PathBuf,
    /// Bytes for a target that is written through at commit.
    pub(super) through: Option<Vec<u8>>,
}

impl Staged {
    /// Write `bytes` for `path` to a temp file beside its target and fsync it.
    /// A replaced file keeps its mode; a new one gets 0644 less the umask.
    pub fn write(path: &Utf8Path, bytes: &[u8]) -> Result<Staged> {
        Staged::write_as(path, bytes, Links::Follow)
    }

    /// [`Staged::write`] with the rule for links of `links`: under
    /// [`Links::Refuse`], `path` must be a regular file or missing, and the
    /// rename replaces the name itself (never what a link planted since names).
    pub fn write_as(path: &Utf8Path, bytes: &[u8], links: Links) -> Result<Staged> {
        let (target, existing) = destination(path, links)?;
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
            return write_through(&self.target, &self.shown, &bytes);
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

/// [`write_atomically`] at a path a script chose: a regular file or nothing
/// may be there (a symlink, FIFO or device is refused, never written through).
pub fn write_confined(path: &Utf8Path, bytes: &[u8]) -> Result<()> {
    Staged::write_as(path, bytes, Links::Refuse)?.commit()
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
pub(super) fn temp_prefix(target: &Utf8Path) -> String {
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
