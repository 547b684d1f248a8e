//! The rules for every file bob-eval reads or writes, in one place: the
//! bounded reader, the atomic writer, the step summary's appender, the lock
//! that serializes recorders and the folder written whole or not at all.
//!
//! **Reading** ([`read_regular`], [`read`], [`read_text`]): only a regular
//! file is ever read. It is opened with `O_NONBLOCK` (a FIFO never blocks the
//! open), looked at once open (`fstat`: what was opened is what is read), and
//! refused, naming the path, when it is a FIFO, socket, device or folder; a
//! symlink is refused when the caller says so ([`Links::Refuse`]: files of a
//! suite); the read stops after a limit whatever the file claims, so a file
//! that grows cannot grow memory. A read of a regular file of bounded size
//! ends, so a script's `--script-timeout` acts once it returns.
//!
//! **Writing** ([`Staged`], [`write_atomically`]): a regular file (or a
//! missing one) is replaced whole: the new bytes go to a temp file in the same
//! folder (`.<name>.<pid>.<thread>.tmp`), are fsynced, renamed over the
//! target, and the folder is fsynced, so a reader (or a crash) sees the old
//! file or the whole new one. For a path the operator named (`--out`,
//! `--report`), a symlink is followed (its target is replaced that way and the
//! link stays) and a device or FIFO (`/dev/stdout`) is written through, never
//! replaced; that write never blocks a signal out ([`write_through`]). A path
//! a script chose ([`Links::Refuse`]) must be a regular file or missing: a
//! symlink planted there is refused, never followed. An empty path is refused
//! by every writer. A file named before a run and written after it
//! (`--report`) is [`Pinned`] before anything is spent: the final write goes
//! where the path led then, replacing (never following) a link planted at
//! its name during the run, and refusing a folder swapped for a link.

use crate::error::{Error, Result, interrupt};
use camino::{Utf8Path, Utf8PathBuf};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// What a reader or writer does with a symlink at the path itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Follow it: the operator named the path (`--out`, `--platform-result`).
    Follow,
    /// Refuse it: a suite's file, or a path a script chose under its results.
    Refuse,
}

/// Why a file was not read; [`std::io::Error`] from it carries the words.
#[derive(Debug)]
pub enum ReadError {
    /// The system refused (missing, permissions, …).
    Io(std::io::Error),
    /// A symlink where [`Links::Refuse`] was asked.
    Link,
    /// A folder.
    Folder,
    /// A FIFO, socket or device (its kind in words): never read.
    NotRegular(&'static str),
    /// More than the limit (`len` is what was seen, at least `limit + 1`).
    TooLarge {
        /// Bytes seen.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// Not UTF-8 ([`read_text`]).
    NotUtf8,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Link => f.write_str("it is a symlink, which bob-eval does not follow here"),
            ReadError::Folder => f.write_str("it is a folder"),
            ReadError::NotRegular(kind) => write!(
                f,
                "it is {kind}, not a regular file: bob-eval reads regular files only"
            ),
            ReadError::TooLarge { len, limit } => {
                write!(f, "{len} bytes or more, above the limit of {limit}")
            }
            ReadError::NotUtf8 => f.write_str("not UTF-8 text"),
        }
    }
}

impl From<ReadError> for std::io::Error {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

/// What `kind` is, in words, when it is not a regular file nor a folder.
pub fn unusual_kind(kind: fs::FileType) -> Option<&'static str> {
    if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else if kind.is_symlink() {
        Some("a symlink")
    } else {
        None
    }
}

/// Open `path` for reading when it is a regular file (see the module docs):
/// the file and what `fstat` says of it.
pub fn open_regular(
    path: &Utf8Path,
    links: Links,
) -> std::result::Result<(File, fs::Metadata), ReadError> {
    if path.as_str().is_empty() {
        return Err(ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the path is empty",
        )));
    }
    let mut flags = libc::O_NONBLOCK;
    if links == Links::Refuse {
        flags |= libc::O_NOFOLLOW;
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) && links == Links::Refuse {
                ReadError::Link
            } else {
                ReadError::Io(e)
            }
        })?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(ReadError::Folder);
    }
    if let Some(kind) = unusual_kind(kind) {
        return Err(ReadError::NotRegular(kind));
    }
    Ok((file, meta))
}

/// The bytes of the regular file at `path`, at most `limit` of them.
pub fn read_regular(
    path: &Utf8Path,
    links: Links,
    limit: u64,
) -> std::result::Result<Vec<u8>, ReadError> {
    let (file, meta) = open_regular(path, links)?;
    if meta.len() > limit {
        return Err(ReadError::TooLarge {
            len: meta.len(),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            len: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// [`read_regular`] following a symlink, as an I/O error for the caller to word.
pub fn read(path: &Utf8Path, limit: u64) -> std::io::Result<Vec<u8>> {
    Ok(read_regular(path, Links::Follow, limit)?)
}

/// [`read`] of UTF-8 text.
pub fn read_text(path: &Utf8Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read(path, limit)?).map_err(|_| ReadError::NotUtf8.into())
}

/// How often a write that would block looks for a signal.
const POLL: Duration = Duration::from_millis(50);

/// Write `bytes` through the device or FIFO at `target` (never replaced) as a
/// shell's `>` would, but without ever blocking a signal out: the open waits
/// for a FIFO's reader and each write for room, a little at a time, and
/// return [`Error::Interrupted`] once a signal was caught (under an
/// [`interrupt::Guard`], which then cleans up and exits).
pub fn write_through(target: &Utf8Path, shown: &Utf8Path, bytes: &[u8]) -> Result<()> {
    let file = open_through(target, shown)?;
    write_polling(&file, shown, bytes)
}

/// Open the device or FIFO at `target` for [`write_through`], waiting for a
/// FIFO's reader a little at a time.
fn open_through(target: &Utf8Path, shown: &Utf8Path) -> Result<File> {
    let fifo = fs::metadata(target).is_ok_and(|m| m.file_type().is_fifo());
    loop {
        match OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(target)
        {
            Ok(file) => return Ok(file),
            // A FIFO without a reader yet (a socket says the same, for good).
            Err(e) if fifo && e.raw_os_error() == Some(libc::ENXIO) => {
                interrupt::check()?;
                std::thread::sleep(POLL);
            }
            Err(e) => return Err(Error::io(shown, "opening for writing", e)),
        }
    }
}

/// Write `bytes` to `file` (opened non-blocking), waiting for room a little
/// at a time and giving way to a caught signal.
fn write_polling(file: &File, shown: &Utf8Path, bytes: &[u8]) -> Result<()> {
    let mut rest = bytes;
    while !rest.is_empty() {
        match (&*file).write(rest) {
            Ok(0) => {
                return Err(Error::io(
                    shown,
                    "writing",
                    std::io::ErrorKind::WriteZero.into(),
                ));
            }
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                interrupt::check()?;
                wait_writable(file);
            }
            Err(e) => return Err(Error::io(shown, "writing", e)),
        }
    }
    interrupt::check()
}

/// Wait until `file` takes more bytes, or [`POLL`] passed.
fn wait_writable(file: &File) {
    use std::os::fd::AsRawFd;
    let mut fd = libc::pollfd {
        fd: file.as_raw_fd(),
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: poll(2) on one pollfd we own, for a bounded time.
    unsafe { libc::poll(&mut fd, 1, POLL.as_millis() as libc::c_int) };
}

/// Append `bytes` to the file at `path` (created if missing, never
/// truncated), as one write to a regular file: a FIFO, device or socket is
/// refused (never waited on) with an error naming what it is.
pub fn append(path: &Utf8Path, bytes: &[u8]) -> std::io::Result<()> {
    if path.as_str().is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the path is empty",
        ));
    }
    let mut file = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o644)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ENXIO) {
                ReadError::NotRegular("a FIFO").into()
            } else {
                e
            }
        })?;
    let kind = file.metadata()?.file_type();
    if let Some(kind) = unusual_kind(kind) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {kind}, not a regular file: bob-eval appends to regular files only"),
        ));
    }
    file.write_all(bytes)
}

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
/// is refused (the one rule `check_writable` and `Staged::write` share), and
/// under [`Links::Refuse`] a symlink, FIFO, socket or device too.
fn destination(path: &Utf8Path, links: Links) -> Result<(Utf8PathBuf, Option<fs::Metadata>)> {
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

/// A file named before a run and written after it (`--report`): where its
/// bytes go is settled when it is pinned, before anything is spent (a link
/// the operator named is followed then, once), and the final write follows
/// nothing planted during the run. A link, FIFO or device put at the file's
/// name is replaced, never written through; a folder put in its folder's
/// place (a link to elsewhere) is refused. A device or FIFO pinned is
/// written through only while it is the same one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pinned {
    /// What the caller named, for messages.
    shown: Utf8PathBuf,
    /// The file replaced: the path, or what the link it was pointed at.
    target: Utf8PathBuf,
    /// The device and inode of the target's folder when pinned.
    folder: (u64, u64),
    /// The device and inode of a device or FIFO written through.
    through: Option<(u64, u64)>,
}

/// A file's device and inode.
fn identity(meta: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// `name` as a C string for the `*at` calls.
fn c_name(name: &str) -> std::io::Result<std::ffi::CString> {
    std::ffi::CString::new(name)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte"))
}

impl Pinned {
    /// Check `path` as [`check_writable_as`] does and pin where it leads.
    pub fn new(path: &Utf8Path, links: Links) -> Result<Pinned> {
        check_writable_as(path, links)?;
        let (target, existing) = destination(path, links)?;
        let dir = folder(&target);
        let meta = fs::metadata(dir).map_err(|e| Error::io(dir, "looking at", e))?;
        Ok(Pinned {
            shown: path.to_owned(),
            folder: identity(&meta),
            through: existing
                .filter(|m| !m.file_type().is_file())
                .map(|m| identity(&m)),
            target,
        })
    }

    /// The path as the caller named it.
    pub fn path(&self) -> &Utf8Path {
        &self.shown
    }

    /// Write `bytes` where the path led when pinned: atomically, as
    /// [`write_atomically`] does, in the same folder (the very one, not what
    /// its path names now), replacing whatever is at the name now; or
    /// through the same device or FIFO.
    pub fn write(&self, bytes: &[u8]) -> Result<()> {
        let moved = |what: &str| {
            Error::io(
                &self.shown,
                "writing",
                std::io::Error::other(format!(
                    "not written: {what} changed during the run (a link planted there?), and bob-eval writes only where the path led when the run began"
                )),
            )
        };
        if let Some(pinned) = self.through {
            if fs::metadata(&self.target).map(|m| identity(&m)).ok() != Some(pinned) {
                return Err(moved(&format!("{}", self.target)));
            }
            let file = open_through(&self.target, &self.shown)?;
            let now = file
                .metadata()
                .map_err(|e| Error::io(&self.shown, "looking at", e))?;
            if identity(&now) != pinned {
                return Err(moved(&format!("{}", self.target)));
            }
            return write_polling(&file, &self.shown, bytes);
        }
        let dir_path = folder(&self.target);
        let dir = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(dir_path)
            .map_err(|e| Error::io(dir_path, "opening the folder", e))?;
        let meta = dir
            .metadata()
            .map_err(|e| Error::io(dir_path, "looking at", e))?;
        if identity(&meta) != self.folder {
            return Err(moved(&format!("its folder {dir_path}")));
        }
        let name = self.target.file_name().unwrap_or("");
        let temp_path = temp_path(&self.target);
        let temp = temp_path.file_name().unwrap_or("");
        self.replace_in(&dir, name, temp, bytes)
            .map_err(|e| Error::io(&self.shown, "writing", e))?;
        dir.sync_all()
            .map_err(|e| Error::io(dir_path, "syncing the folder", e))
    }

    /// Write `bytes` to `temp` in `dir`, fsync it and rename it over `name`;
    /// the temp file is removed on failure.
    fn replace_in(&self, dir: &File, name: &str, temp: &str, bytes: &[u8]) -> std::io::Result<()> {
        use std::os::fd::{AsRawFd, FromRawFd};
        let fd = dir.as_raw_fd();
        let (c_name, c_temp) = (c_name(name)?, c_name(temp)?);
        // A regular file there now keeps its mode; anything else is replaced.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstatat(2) on a folder we hold, a NUL-terminated name and a stat we own.
        let found =
            unsafe { libc::fstatat(fd, c_name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
        let mode = (found == 0 && st.st_mode & libc::S_IFMT == libc::S_IFREG)
            .then_some(st.st_mode & 0o7777);
        // SAFETY: unlinkat(2) of a stale temp name of ours in a folder we hold.
        unsafe { libc::unlinkat(fd, c_temp.as_ptr(), 0) };
        // SAFETY: openat(2) creating a new file (never following a link) in a folder we hold.
        let raw = unsafe {
            libc::openat(
                fd,
                c_temp.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                libc::c_uint::from(mode.unwrap_or(0o644)),
            )
        };
        if raw < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `raw` is a file descriptor we just opened and own alone.
        let mut file = unsafe { File::from_raw_fd(raw) };
        let written = (|| {
            if let Some(mode) = mode {
                // The umask may have cut the mode at creation: put the exact one back.
                file.set_permissions(fs::Permissions::from_mode(mode))?;
            }
            file.write_all(bytes)?;
            file.sync_all()?;
            // SAFETY: renameat(2) of our temp over the name, both in the folder we hold.
            if unsafe { libc::renameat(fd, c_temp.as_ptr(), fd, c_name.as_ptr()) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })();
        if written.is_err() {
            // SAFETY: unlinkat(2) of our own temp file.
            unsafe { libc::unlinkat(fd, c_temp.as_ptr(), 0) };
        }
        written
    }
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

fn sync_dir(dir: &Utf8Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, "syncing the folder", e))
}

/// The hidden staging folder of [`write_new_dir`], removed unless [`Stage::done`].
struct Stage {
    path: Utf8PathBuf,
    keep: bool,
}

impl Stage {
    fn new(evals: &Utf8Path, target: &Utf8Path) -> Result<Self> {
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

    fn done(mut self) {
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

    fn mkfifo(path: &Utf8Path) {
        let c = std::ffi::CString::new(path.as_str()).unwrap();
        // SAFETY: mkfifo(3) on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn only_a_regular_file_of_bounded_size_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        fs::write(root.join("f"), "12345").unwrap();
        assert_eq!(read(&root.join("f"), 5).unwrap(), b"12345");
        assert!(matches!(
            read_regular(&root.join("f"), Links::Follow, 4),
            Err(ReadError::TooLarge { len: 5, limit: 4 })
        ));
        // A FIFO nobody writes: refused at once, never waited on.
        mkfifo(&root.join("pipe"));
        let err = read(&root.join("pipe"), 10).unwrap_err();
        assert!(err.to_string().contains("a FIFO"), "{err}");
        // A device that never ends.
        assert!(matches!(
            read_regular(Utf8Path::new("/dev/zero"), Links::Follow, 10),
            Err(ReadError::NotRegular("a device"))
        ));
        assert!(matches!(
            read_regular(root, Links::Follow, 10),
            Err(ReadError::Folder)
        ));
        std::os::unix::fs::symlink(root.join("f"), root.join("link")).unwrap();
        assert_eq!(read(&root.join("link"), 5).unwrap(), b"12345");
        assert!(matches!(
            read_regular(&root.join("link"), Links::Refuse, 5),
            Err(ReadError::Link)
        ));
        assert!(read(Utf8Path::new(""), 5).is_err());
        fs::write(root.join("bin"), [0xff, 0xfe]).unwrap();
        assert!(read_text(&root.join("bin"), 5).is_err());
    }

    #[test]
    fn a_confined_write_refuses_a_planted_link_or_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        fs::write(root.join("outside"), "keep").unwrap();
        std::os::unix::fs::symlink(root.join("outside"), root.join("r.json")).unwrap();
        let err = write_confined(&root.join("r.json"), b"x").unwrap_err();
        assert!(err.to_string().contains("symlink"), "{err}");
        assert!(check_writable_as(&root.join("r.json"), Links::Refuse).is_err());
        assert_eq!(fs::read_to_string(root.join("outside")).unwrap(), "keep");
        mkfifo(&root.join("p.json"));
        assert!(write_confined(&root.join("p.json"), b"x").is_err());
        assert!(write_confined(Utf8Path::new("/dev/null"), b"x").is_err());
        write_confined(&root.join("new.json"), b"new").unwrap();
        write_confined(&root.join("new.json"), b"newer").unwrap();
        assert_eq!(fs::read_to_string(root.join("new.json")).unwrap(), "newer");
    }

    #[test]
    fn a_pinned_write_follows_nothing_planted_after_the_pin() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let kind = |p: &str| fs::symlink_metadata(root.join(p)).unwrap().file_type();
        fs::write(root.join("outside"), "keep").unwrap();
        // A link planted at the name is replaced, never written through.
        let pinned = Pinned::new(&root.join("r.html"), Links::Follow).unwrap();
        std::os::unix::fs::symlink(root.join("outside"), root.join("r.html")).unwrap();
        pinned.write(b"report").unwrap();
        assert_eq!(fs::read_to_string(root.join("outside")).unwrap(), "keep");
        assert!(kind("r.html").is_file());
        assert_eq!(fs::read_to_string(root.join("r.html")).unwrap(), "report");
        // So is a FIFO, never waited on; a regular file keeps its mode.
        let pinned = Pinned::new(&root.join("p.html"), Links::Follow).unwrap();
        mkfifo(&root.join("p.html"));
        pinned.write(b"x").unwrap();
        assert!(kind("p.html").is_file());
        fs::set_permissions(root.join("p.html"), fs::Permissions::from_mode(0o600)).unwrap();
        Pinned::new(&root.join("p.html"), Links::Follow)
            .unwrap()
            .write(b"y")
            .unwrap();
        assert_eq!(
            fs::metadata(root.join("p.html"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
        // A folder swapped for a link to elsewhere: refused, nothing written there.
        fs::create_dir(root.join("reports")).unwrap();
        fs::create_dir(root.join("elsewhere")).unwrap();
        let pinned = Pinned::new(&root.join("reports/r.html"), Links::Follow).unwrap();
        fs::rename(root.join("reports"), root.join("reports.old")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join("reports")).unwrap();
        let err = pinned.write(b"x").unwrap_err();
        assert!(err.to_string().contains("changed during the run"), "{err}");
        assert!(names(&root.join("elsewhere")).is_empty());
        assert!(names(&root.join("reports.old")).is_empty());
        // The operator's link is followed once, when pinned: retargeted since,
        // the first target is written and the link stays.
        fs::write(root.join("a.html"), "a").unwrap();
        fs::write(root.join("b.html"), "b").unwrap();
        std::os::unix::fs::symlink("a.html", root.join("link.html")).unwrap();
        let pinned = Pinned::new(&root.join("link.html"), Links::Follow).unwrap();
        fs::remove_file(root.join("link.html")).unwrap();
        std::os::unix::fs::symlink("b.html", root.join("link.html")).unwrap();
        pinned.write(b"new").unwrap();
        assert_eq!(fs::read_to_string(root.join("a.html")).unwrap(), "new");
        assert_eq!(fs::read_to_string(root.join("b.html")).unwrap(), "b");
        assert!(kind("link.html").is_symlink());
        // A device is written through; a FIFO swapped for a link is refused.
        Pinned::new(Utf8Path::new("/dev/null"), Links::Follow)
            .unwrap()
            .write(b"x")
            .unwrap();
        mkfifo(&root.join("q"));
        let pinned = Pinned::new(&root.join("q"), Links::Follow).unwrap();
        fs::remove_file(root.join("q")).unwrap();
        std::os::unix::fs::symlink(root.join("outside"), root.join("q")).unwrap();
        assert!(pinned.write(b"x").is_err());
        assert_eq!(fs::read_to_string(root.join("outside")).unwrap(), "keep");
        // No temp file is left behind.
        assert!(
            names(root).iter().all(|n| !n.ends_with(".tmp")),
            "{:?}",
            names(root)
        );
        assert!(Pinned::new(Utf8Path::new(""), Links::Follow).is_err());
    }

    #[test]
    fn append_writes_only_to_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        append(&root.join("s.md"), b"a\n").unwrap();
        append(&root.join("s.md"), b"b\n").unwrap();
        assert_eq!(fs::read_to_string(root.join("s.md")).unwrap(), "a\nb\n");
        mkfifo(&root.join("pipe"));
        // No reader: refused at once.
        let err = append(&root.join("pipe"), b"x").unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
        // A reader: still refused, nothing written.
        let reader = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(root.join("pipe"))
            .unwrap();
        let err = append(&root.join("pipe"), b"x").unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
        let mut got = Vec::new();
        let _ = (&reader).read_to_end(&mut got);
        assert!(got.is_empty());
        assert!(append(Utf8Path::new("/dev/null"), b"x").is_err());
        assert!(append(Utf8Path::new(""), b"x").is_err());
    }

    #[test]
    fn a_fifo_with_a_reader_is_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let pipe = root.join("pipe");
        mkfifo(&pipe);
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || fs::read(pipe).unwrap())
        };
        write_atomically(&pipe, b"through").unwrap();
        assert_eq!(reader.join().unwrap(), b"through");
        assert!(fs::symlink_metadata(&pipe).unwrap().file_type().is_fifo());
    }

    #[test]
    fn a_socket_is_refused_never_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let sock = root.join("s.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert!(check_writable(&sock).is_err());
        assert!(write_atomically(&sock, b"x").is_err());
        assert!(read(&sock, 10).is_err());
        assert!(append(&sock, b"x").is_err());
    }
}
