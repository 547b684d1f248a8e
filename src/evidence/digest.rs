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

/// Every file under `dir` (following symlinks), relative to it: what [`digest_dir`] covers.
pub fn files_under(dir: &Utf8Path) -> Result<Vec<Utf8PathBuf>> {
    let mut files = Vec::new();
    walk(dir, Utf8Path::new(""), 0, &mut files)?;
    Ok(files)
}

/// Digest of the item's files: its skill folder, or its command or agent file
/// (the same digest a run's key and a document's `item_digest` hold).
pub fn item_digest(item: &crate::item::Item) -> Result<String> {
    if item.path.is_dir() {
        digest_dir(&item.path)
    } else {
        let (dir, file) = (
            item.path.parent().unwrap_or(Utf8Path::new(".")),
            item.path.file_name().unwrap_or_default(),
        );
        digest_files(dir, &[file.into()])
    }
}

/// The folder name that holds mock responders at every level of a suite.
const MOCKS: &str = "mocks";

/// Digest of everything the platform reads for the case in `case_dir` of
/// the suite (or eval folder) at `root` (docs/runs.md, "What keys a run"):
/// the case's path under `root` (cases are keyed by their folder, never by
/// a `name:` two cases can share), every file of its folder (`prompt.md`,
/// `case.yaml`, `graders/`, the scaffold script, history and baseline files,
/// added folders, fixtures, its own `mocks/`), and the `mocks/` folder of
/// every folder above it up to `root` (the group and suite layers the
/// platform applies to the case).
pub fn case_digest(root: &Utf8Path, case_dir: &Utf8Path) -> Result<String> {
    let rel = case_dir.strip_prefix(root).unwrap_or(case_dir);
    let mut parts = vec![
        "bob-eval-case/2".to_string(),
        slashed(rel),
        digest_case_files(case_dir)?,
    ];
    let mut at = root.to_owned();
    let mut layers = vec![at.join(MOCKS)];
    let mut components: Vec<&str> = rel.components().map(|c| c.as_str()).collect();
    // The case folder's own `mocks/` is in its digest already.
    components.pop();
    for part in components {
        at.push(part);
        layers.push(at.join(MOCKS));
    }
    for layer in layers {
        let meta = match std::fs::metadata(&layer) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&layer, "reading for its digest", e)),
        };
        let digest = if meta.is_dir() {
            digest_dir(&layer)?
        } else {
            digest_files(
                root,
                &[layer.strip_prefix(root).unwrap_or(&layer).to_owned()],
            )?
        };
        parts.push(slashed(layer.strip_prefix(root).unwrap_or(&layer)));
        parts.push(digest);
    }
    Ok(digest_parts(parts.iter().map(String::as_str)))
}

/// [`digest_dir`] of a case folder less its labels files
/// (`graders/*.labels.json`): the platform never reads them, so labelling a
/// run leaves the case's runs reusable.
fn digest_case_files(case_dir: &Utf8Path) -> Result<String> {
    let mut files = files_under(case_dir)?;
    files.retain(|f| !crate::suite::labels::is_labels_path(f));
    digest_files(case_dir, &files)
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
    use super::{case_digest, digest_dir, digest_files, hex, options_digest};
    use camino::{Utf8Path, Utf8PathBuf};
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

    /// Every layer the platform reads for a case changes its digest: its own
    /// files, and the `mocks/` of its group and of the suite; a sibling's
    /// files and another group's mocks do not; the same files in another
    /// folder are another case.
    #[test]
    fn case_digest_covers_every_mocks_layer_and_the_folder() {
        let (_t, suite) = temp();
        let case = suite.join("group/fires");
        for dir in [
            "group/fires/graders",
            "group/fires/mocks/db",
            "group/mocks/db",
            "mocks/db",
            "other/mocks/db",
            "quiet",
        ] {
            fs::create_dir_all(suite.join(dir)).unwrap();
        }
        for (file, text) in [
            ("group/fires/prompt.md", "hi"),
            ("group/fires/graders/g.md", "---\ntype: regex\n---\n"),
            ("group/fires/mocks/db/query.md", "case"),
            ("group/mocks/db/query.md", "group"),
            ("mocks/db/query.md", "suite"),
            ("other/mocks/db/query.md", "other"),
            ("quiet/prompt.md", "sibling"),
        ] {
            fs::write(suite.join(file), text).unwrap();
        }
        let d = || case_digest(&suite, &case).unwrap();
        let mut seen = vec![d()];
        for (file, text) in [
            ("group/fires/prompt.md", "hi!"),
            ("group/fires/graders/g.md", "---\ntype: llm\n---\n"),
            ("group/fires/mocks/db/query.md", "case!"),
            ("group/mocks/db/query.md", "group!"),
            ("mocks/db/query.md", "suite!"),
            ("mocks/db/_server.md", "new"),
            ("group/fires/fixture.txt", "new fixture"),
        ] {
            fs::write(suite.join(file), text).unwrap();
            let now = d();
            assert!(!seen.contains(&now), "{file} did not change the digest");
            seen.push(now);
        }
        let before = d();
        fs::write(suite.join("other/mocks/db/query.md"), "other!").unwrap();
        // Labels of a grader are the person's, never the platform's input.
        fs::write(suite.join("group/fires/graders/g.labels.json"), "{}").unwrap();
        fs::write(suite.join("quiet/prompt.md"), "sibling!").unwrap();
        assert_eq!(
            before,
            d(),
            "another group's mocks, a sibling and a labels file do not count"
        );
        support_copy(&suite.join("group/fires"), &suite.join("group/fires-2"));
        assert_ne!(
            before,
            case_digest(&suite, &suite.join("group/fires-2")).unwrap()
        );
    }

    fn support_copy(from: &Utf8Path, to: &Utf8Path) {
        fs::create_dir_all(to).unwrap();
        for entry in fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if entry.file_type().unwrap().is_dir() {
                support_copy(&from.join(&name), &to.join(&name));
            } else {
                fs::copy(from.join(&name), to.join(&name)).unwrap();
            }
        }
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
