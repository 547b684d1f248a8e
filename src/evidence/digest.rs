//! Content digests for the evidence key: an item's files, a case folder, and
//! the run options that change an outcome. SHA-256, lower-case hex.
//!
//! A file digest covers each file's path (relative, `/`-separated) and
//! contents, in byte order of the paths, so renaming a file changes the digest
//! and listing order never does.

use crate::error::{Error, Result};
use camino::{Utf8Path, Utf8PathBuf};
use sha2::{Digest, Sha256};

/// Folders nested deeper than this under a digested folder are refused (a
/// symlink loop would otherwise never end).
const MAX_DEPTH: usize = 32;

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

/// SHA-256 of `parts`, each followed by a NUL so `["ab", "c"]` and `["a", "bc"]` differ.
pub fn digest_parts<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0u8]);
    }
    hex(&hasher.finalize())
}

/// Digest of the files at `paths` (relative to `root`): names and contents.
///
/// The order of `paths` does not matter; a path given twice counts once. A
/// missing or unreadable file is an error naming it.
pub fn digest_files(root: &Utf8Path, paths: &[Utf8PathBuf]) -> Result<String> {
    let mut rel: Vec<String> = paths.iter().map(|p| slashed(p)).collect();
    rel.sort();
    rel.dedup();
    let mut hasher = Sha256::new();
    for name in &rel {
        hash_file(&mut hasher, name, &root.join(name))?;
    }
    Ok(hex(&hasher.finalize()))
}

/// Digest of every file under `dir` (following symlinks), names relative to `dir`.
pub fn digest_dir(dir: &Utf8Path) -> Result<String> {
    let mut files = Vec::new();
    walk(dir, Utf8Path::new(""), 0, &mut files)?;
    digest_files(dir, &files)
}

/// Digest of the options that change an outcome beyond the key's named
/// fields: `name=value` pairs, order-insensitive. No options gives a fixed digest.
pub fn options_digest(options: &[(&str, &str)]) -> String {
    let mut pairs: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
    pairs.sort();
    digest_parts(std::iter::once("bob-eval-options/1").chain(pairs.iter().map(String::as_str)))
}

/// Hash `name`, the length and the bytes of the regular file at `path`,
/// streamed. Only a regular file is read ([`crate::fsio::open_regular`]): a
/// FIFO, socket or device in an item's folder is refused, never waited on,
/// and a file that changes length while it is read is an error.
fn hash_file(hasher: &mut Sha256, name: &str, path: &Utf8Path) -> Result<()> {
    use crate::fsio::ReadError;
    use std::io::Read;
    let (file, meta) =
        crate::fsio::open_regular(path, crate::fsio::Links::Follow).map_err(|e| match e {
            ReadError::NotRegular(kind) => Error::invalid(
                path,
                format!(
                    "{kind} in a digested folder: bob-eval reads regular files only; remove it"
                ),
            ),
            other => Error::io(path, "reading for its digest", other.into()),
        })?;
    let len = meta.len();
    hasher.update(name.as_bytes());
    hasher.update([0u8]);
    hasher.update(len.to_le_bytes());
    let mut reader = file.take(len);
    let mut buf = [0u8; 64 * 1024];
    let mut seen = 0u64;
    loop {
        let n = reader
            .read(&mut buf)
            .map_err(|e| Error::io(path, "reading for its digest", e))?;
        if n == 0 {
            break;
        }
        seen += n as u64;
        hasher.update(&buf[..n]);
    }
    if seen != len {
        return Err(Error::io(
            path,
            "reading for its digest",
            std::io::Error::other(format!("it changed while read ({seen} of {len} bytes)")),
        ));
    }
    Ok(())
}

fn slashed(path: &Utf8Path) -> String {
    path.components()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join("/")
}

fn walk(root: &Utf8Path, rel: &Utf8Path, depth: usize, out: &mut Vec<Utf8PathBuf>) -> Result<()> {
    let dir = root.join(rel);
    if depth > MAX_DEPTH {
        return Err(Error::invalid(
            dir,
            format!("folders nest deeper than {MAX_DEPTH} levels (a symlink loop?)"),
        ));
    }
    let entries = std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, "listing", e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(&dir, "listing", e))?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|name| Error::invalid(&dir, format!("file name {name:?} is not UTF-8")))?;
        let child = rel.join(&name);
        let path = root.join(&child);
        // Follows symlinks: a symlinked file counts by its contents.
        let meta = std::fs::metadata(&path).map_err(|e| Error::io(&path, "reading", e))?;
        if meta.is_dir() {
            walk(root, &child, depth + 1, out)?;
        } else {
            out.push(child);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn temp() -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
        (dir, path)
    }

    #[test]
    fn hex_is_lower_case() {
        assert_eq!(hex(&[0, 0xab, 0x7f]), "00ab7f");
    }

    #[test]
    fn files_digest_ignores_order_and_sees_names_and_contents() {
        let (_t, root) = temp();
        fs::write(root.join("a"), "one").unwrap();
        fs::write(root.join("b"), "two").unwrap();
        let ab = digest_files(&root, &["a".into(), "b".into()]).unwrap();
        let ba = digest_files(&root, &["b".into(), "a".into(), "a".into()]).unwrap();
        assert_eq!(ab, ba);
        assert_eq!(ab.len(), 64);
        fs::write(root.join("b"), "two!").unwrap();
        assert_ne!(ab, digest_files(&root, &["a".into(), "b".into()]).unwrap());
        fs::rename(root.join("b"), root.join("c")).unwrap();
        fs::write(root.join("c"), "two").unwrap();
        assert_ne!(ab, digest_files(&root, &["a".into(), "c".into()]).unwrap());
    }

    #[test]
    fn contents_cannot_slide_into_names() {
        let (_t, root) = temp();
        fs::write(root.join("ab"), "").unwrap();
        fs::write(root.join("a"), "b").unwrap();
        assert_ne!(
            digest_files(&root, &["ab".into()]).unwrap(),
            digest_files(&root, &["a".into()]).unwrap()
        );
    }

    #[test]
    fn dir_digest_walks_subfolders() {
        let (_t, root) = temp();
        fs::create_dir_all(root.join("case/graders")).unwrap();
        fs::write(root.join("case/prompt.md"), "hi").unwrap();
        fs::write(root.join("case/graders/g.md"), "---\ntype: regex\n---\n").unwrap();
        let d1 = digest_dir(&root.join("case")).unwrap();
        assert_eq!(
            d1,
            digest_files(
                &root.join("case"),
                &["prompt.md".into(), "graders/g.md".into()]
            )
            .unwrap()
        );
        fs::write(root.join("case/graders/g.md"), "---\ntype: llm\n---\n").unwrap();
        assert_ne!(d1, digest_dir(&root.join("case")).unwrap());
    }

    #[test]
    fn missing_file_names_it() {
        let (_t, root) = temp();
        let err = digest_files(&root, &["nope.md".into()]).unwrap_err();
        assert!(err.to_string().contains("nope.md"), "{err}");
    }

    #[test]
    fn options_digest_is_order_insensitive() {
        let a = options_digest(&[("max_turns", "5"), ("timeout", "60")]);
        let b = options_digest(&[("timeout", "60"), ("max_turns", "5")]);
        assert_eq!(a, b);
        assert_ne!(a, options_digest(&[("timeout", "61"), ("max_turns", "5")]));
        assert_eq!(options_digest(&[]), options_digest(&[]));
    }
}
