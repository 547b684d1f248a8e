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

mod read;
pub use read::{open_regular, read, read_regular, read_text, unusual_kind};
mod through;
pub use through::{append, write_through};
use through::{open_through, write_polling};
mod atomic;
pub(crate) use atomic::temp_path;
pub use atomic::{
    Staged, check_writable, check_writable_as, remove_stale_temps, write_atomically, write_confined,
};
use atomic::{destination, folder};
mod pinned;
pub use pinned::Pinned;
mod new_dir;
pub use new_dir::{refuse_existing, write_new_dir};
#[cfg(test)]
mod tests;

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
