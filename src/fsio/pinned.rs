//! A destination pinned before long work, so the final write follows nothing planted meanwhile.

use super::{
    Error, File, Links, OpenOptions, OpenOptionsExt, PermissionsExt, Result, Utf8Path, Utf8PathBuf,
    Write, check_writable_as, destination, folder, fs, open_through, temp_path, write_polling,
};

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
    pub(super) shown: Utf8PathBuf,
    /// The file replaced: the path, or what the link it was pointed at.
    pub(super) target: Utf8PathBuf,
    /// The device and inode of the target's folder when pinned.
    pub(super) folder: (u64, u64),
    /// The device and inode of a device or FIFO written through.
    pub(super) through: Option<(u64, u64)>,
}

/// A file's device and inode.
pub(super) fn identity(meta: &fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// `name` as a C string for the `*at` calls.
pub(super) fn c_name(name: &str) -> std::io::Result<std::ffi::CString> {
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
    pub(super) fn replace_in(
        &self,
        dir: &File,
        name: &str,
        temp: &str,
        bytes: &[u8],
    ) -> std::io::Result<()> {
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
