//! Item versions kept beside the evidence store: the files of each version
//! of an item a best was recorded on, content-addressed by its item digest
//! ([`super::item_digest`], the digest its with-arm runs are keyed by), so
//! the best can be measured again, head to head, after the source tree has
//! moved on (docs/gate.md, "The best measured again").
//!
//! `<store>.items/<item digest>/<plugin path>`: `skills/<item>/…`, or
//! `commands/<item>.md`, `agents/<item>.md`; written into a temp folder and
//! renamed into place, so a version is whole or absent, and never rewritten
//! (the same digest is the same files).

use super::digest::{files_under, item_digest};
use crate::error::{Error, Result};
use crate::item::Item;
use camino::{Utf8Path, Utf8PathBuf};
use std::fs;

/// The folder of kept versions of the store at `store`: `<store>.items/`.
pub fn versions_dir(store: &Utf8Path) -> Utf8PathBuf {
    Utf8PathBuf::from(format!("{store}.items"))
}

/// True for a digest as [`item_digest`] writes it (64 lower-case hex
/// digits): a digest read from a file anyone can edit never becomes a path
/// outside the folder.
fn is_digest(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Keep `item`'s files as they are now beside the store at `store`; returns
/// their digest. A version already kept is left as it is.
pub fn keep_version(store: &Utf8Path, item: &Item) -> Result<String> {
    let digest = item_digest(item)?;
    let root = versions_dir(store);
    let dest = root.join(&digest);
    if dest.is_dir() {
        return Ok(digest);
    }
    fs::create_dir_all(&root).map_err(|e| Error::io(&root, "creating", e))?;
    let temp = tempfile::Builder::new()
        .prefix(".keeping-")
        .tempdir_in(&root)
        .map_err(|e| Error::io(&root, "creating a temp folder in", e))?;
    let staged = Utf8PathBuf::from_path_buf(temp.path().to_path_buf())
        .map_err(|p| Error::Usage(format!("{} is not UTF-8", p.display())))?;
    let to = staged.join(&item.plugin_path);
    if item.path.is_dir() {
        for rel in files_under(&item.path)? {
            copy(&item.path.join(&rel), &to.join(&rel))?;
        }
    } else {
        copy(&item.path, &to)?;
    }
    let copy_item = Item {
        path: to,
        ..item.clone()
    };
    let copied = item_digest(&copy_item)?;
    if copied != digest {
        return Err(Error::invalid(
            &item.path,
            "changed while it was being kept beside the evidence store: record again",
        ));
    }
    let kept = temp.keep();
    if let Err(e) = fs::rename(&kept, &dest) {
        let _ = fs::remove_dir_all(&kept);
        // Another recorder kept the same version first: it is the same files.
        if !dest.is_dir() {
            return Err(Error::io(&dest, "keeping the item's files at", e));
        }
    }
    Ok(digest)
}

/// The version of `item` whose digest is `digest`, as kept beside the store
/// at `store`: an [`Item`] whose files are the kept ones (a plugin links
/// them as it links the source tree's). `None` when it was never kept there
/// (a best recorded before versions were kept, or in another store). A kept
/// version whose files no longer match their digest is refused.
pub fn kept_version(store: &Utf8Path, item: &Item, digest: &str) -> Result<Option<Item>> {
    if !is_digest(digest) {
        return Ok(None);
    }
    let path = versions_dir(store).join(digest).join(&item.plugin_path);
    if !path.exists() {
        return Ok(None);
    }
    let kept = Item {
        path,
        ..item.clone()
    };
    if item_digest(&kept)? != digest {
        return Err(Error::invalid(
            &kept.path,
            format!(
                "this kept version of {} no longer matches its digest {digest}: it was edited; remove the folder and measure the best from its runs",
                item.name
            ),
        ));
    }
    Ok(Some(kept))
}

fn copy(from: &Utf8Path, to: &Utf8Path) -> Result<()> {
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(|e| Error::io(parent, "creating", e))?;
    }
    fs::copy(from, to).map_err(|e| Error::io(from, "copying", e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::digest::item_digest;
    use super::{keep_version, kept_version};
    use crate::item::Item;
    use camino::Utf8PathBuf;
    use std::fs;

    #[test]
    fn a_kept_version_is_found_by_its_digest_and_measures_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
        let skill = root.join("src/skills/commit");
        fs::create_dir_all(skill.join("scripts")).unwrap();
        fs::write(skill.join("SKILL.md"), "---\nname: commit\n---\nfirst\n").unwrap();
        fs::write(skill.join("scripts/x.sh"), "echo 1\n").unwrap();
        let item = Item {
            name: crate::config::item_name("commit"),
            kind: crate::item::ItemKind::Skill,
            path: skill.clone(),
            plugin_path: "skills/commit".into(),
        };
        let store = root.join("evidence.db");
        let first = keep_version(&store, &item).unwrap();
        assert_eq!(keep_version(&store, &item).unwrap(), first, "kept once");
        // The source moves on; the kept version stays.
        fs::write(skill.join("SKILL.md"), "---\nname: commit\n---\nsecond\n").unwrap();
        let kept = kept_version(&store, &item, &first).unwrap().unwrap();
        assert_eq!(item_digest(&kept).unwrap(), first);
        assert_ne!(item_digest(&item).unwrap(), first);
        assert_eq!(
            fs::read_to_string(kept.path.join("SKILL.md")).unwrap(),
            "---\nname: commit\n---\nfirst\n"
        );
        // Never kept, or not a digest: none.
        assert!(
            kept_version(&store, &item, &"0".repeat(64))
                .unwrap()
                .is_none()
        );
        assert!(kept_version(&store, &item, "../../etc").unwrap().is_none());
        // Edited after it was kept: refused.
        fs::write(kept.path.join("SKILL.md"), "tampered").unwrap();
        assert!(kept_version(&store, &item, &first).is_err());
    }
}
