//! Bounded reads of a suite's files: regular files only, opened without
//! waiting, at most 16 MiB.

use super::{Diagnostic, MAX_SUITE_FILE, Utf8Path, problem};
use crate::diagnostic::Code;

pub(super) fn too_large(path: &Utf8Path, len: u64) -> Diagnostic {
    problem(
        Code::FileTooLarge,
        path,
        None,
        format!("{len} bytes, more than the {MAX_SUITE_FILE} a suite file may hold"),
        "keep suite files small: trim it, or generate it in a scaffold_script",
    )
}

pub(super) fn not_a_file(path: &Utf8Path) -> Diagnostic {
    problem(
        Code::NotAFile,
        path,
        None,
        "not a regular file (a FIFO, socket or device): it is never opened (`run` refuses the suite)".into(),
        "replace it with a regular file, or remove it",
    )
}

/// Why `meta` (of `path`, not followed when it is a link) is not a file a
/// suite may hold, if it is not.
pub fn refusal(path: &Utf8Path, meta: &std::fs::Metadata) -> Option<Diagnostic> {
    let kind = meta.file_type();
    if kind.is_symlink() {
        Some(problem(
            Code::Symlink,
            path,
            None,
            "a symlink in a suite: bob-eval never follows one (`run` refuses the suite)".into(),
            "copy the target into the suite in its place",
        ))
    } else if kind.is_dir() {
        Some(problem(
            Code::Unreadable,
            path,
            None,
            "cannot read: it is a folder".into(),
            "make it a file, or fix the path",
        ))
    } else if !kind.is_file() {
        Some(not_a_file(path))
    } else if meta.len() > MAX_SUITE_FILE {
        Some(too_large(path, meta.len()))
    } else {
        None
    }
}

/// Read a UTF-8 text file of at most [`MAX_SUITE_FILE`] bytes. Only a regular
/// file is ever opened (a FIFO, socket or device never is), a symlink is refused
/// unless `follow` is set, and the read stops after the limit whatever the
/// file claims, so a file that grows (or a device swapped in) cannot grow memory.
pub fn read_text(path: &Utf8Path, follow: bool) -> std::result::Result<String, Diagnostic> {
    let cannot = |e: std::io::Error| {
        problem(
            Code::Unreadable,
            path,
            None,
            format!("cannot read: {e}"),
            "make it readable or remove it",
        )
    };
    let meta = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }
    .map_err(cannot)?;
    if let Some(d) = refusal(path, &meta) {
        return Err(d);
    }
    read_opened(path, follow)
}

/// [`read_text`] for a file already looked at (a regular file when it was):
/// opened without following a link (unless `follow`) nor waiting on a FIFO,
/// and refused after all unless what was opened is a regular file of bounded
/// size, with the finding [`read_text`] would give.
pub fn read_opened(path: &Utf8Path, follow: bool) -> std::result::Result<String, Diagnostic> {
    use crate::fsio::{Links, ReadError};
    let links = if follow { Links::Follow } else { Links::Refuse };
    let unreadable =
        |message: String, fix: &str| problem(Code::Unreadable, path, None, message, fix);
    let bytes = crate::fsio::read_regular(path, links, MAX_SUITE_FILE).map_err(|e| match e {
        ReadError::Link => problem(
            Code::Symlink,
            path,
            None,
            "a symlink in a suite: bob-eval never follows one (`run` refuses the suite)".into(),
            "copy the target into the suite in its place",
        ),
        ReadError::NotRegular(_) => not_a_file(path),
        ReadError::TooLarge { len, .. } => too_large(path, len),
        ReadError::Folder => unreadable(
            "cannot read: it is a folder".into(),
            "make it a file, or fix the path",
        ),
        other => unreadable(
            format!("cannot read: {other}"),
            "make it readable or remove it",
        ),
    })?;
    String::from_utf8(bytes).map_err(|_| {
        problem(
            Code::Unreadable,
            path,
            None,
            "not UTF-8 text".into(),
            "save the file as UTF-8",
        )
    })
}

/// Read a suite file the scan has seen as a regular file (and, unless the
/// loader opens it, measured); `None` (with a problem recorded) when it cannot
/// be read. A file too large is that finding, as the scan would have made
/// it, even when it could not be opened either.
pub(super) fn read(path: &Utf8Path, problems: &mut Vec<Diagnostic>) -> Option<String> {
    read_opened(path, false)
        .map_err(|d| {
            let large = (d.code == Code::Unreadable.as_str())
                .then(|| std::fs::symlink_metadata(path).ok())
                .flatten()
                .filter(|m| m.is_file() && m.len() > MAX_SUITE_FILE);
            problems.push(large.map_or(d, |m| too_large(path, m.len())));
        })
        .ok()
}
