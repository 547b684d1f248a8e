//! Writing through a device or FIFO (polling for signals instead of blocking), and appending.

use super::{
    Duration, Error, File, FileTypeExt, OpenOptions, OpenOptionsExt, ReadError, Result, Utf8Path,
    Write, fs, interrupt, unusual_kind,
};

/// How often a write that would block looks for a signal.
pub(super) const POLL: Duration = Duration::from_millis(50);

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
pub(super) fn open_through(target: &Utf8Path, shown: &Utf8Path) -> Result<File> {
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
pub(super) fn write_polling(file: &File, shown: &Utf8Path, bytes: &[u8]) -> Result<()> {
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
pub(super) fn wait_writable(file: &File) {
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
