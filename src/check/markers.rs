//! The item files of a source (`skills/<name>/SKILL.md`, `commands/<name>.md`
//! and `agents/<name>.md`, under the source and under `registry/`), looked at
//! once per `check`: each suite's item lookup answers from here instead of a
//! `stat` per candidate place (six per suite).

use crate::item::ItemKind;
use camino::{Utf8Path, Utf8PathBuf};
use std::collections::HashSet;

/// The item folders of a source, each listed once, and which of their
/// entries are item files.
#[derive(Debug, Default)]
pub struct Markers {
    /// The folders listed whole (a missing one holds nothing).
    listed: HashSet<Utf8PathBuf>,
    /// Every item file found a file, following links (as `is_file` does).
    files: HashSet<Utf8PathBuf>,
    /// The item names with a file, by folder in lookup order (source, then
    /// `registry/`; skills, commands, agents), each sorted.
    found: Vec<(ItemKind, Vec<String>)>,
}

impl Markers {
    /// Look at the item folders of `source`.
    pub fn new(source: &Utf8Path) -> Markers {
        let mut markers = Markers::default();
        for root in [source.to_owned(), source.join("registry")] {
            for (dir, kind) in [
                ("skills", ItemKind::Skill),
                ("commands", ItemKind::Command),
                ("agents", ItemKind::Agent),
            ] {
                let dir = root.join(dir);
                let (mut names, whole) = listing(&dir);
                if whole {
                    markers.listed.insert(dir.clone());
                }
                names.sort();
                let mut with_file = Vec::new();
                for name in names {
                    let (file, item) = match kind {
                        ItemKind::Skill => (dir.join(&name).join("SKILL.md"), name),
                        ItemKind::Command | ItemKind::Agent => match name.strip_suffix(".md") {
                            Some(stem) => (dir.join(&name), stem.to_owned()),
                            None => continue,
                        },
                    };
                    if file.is_file() {
                        markers.files.insert(file);
                        with_file.push(item);
                    }
                }
                markers.found.push((kind, with_file));
            }
        }
        markers
    }

    /// True when `marker` (a place [`crate::item::candidates`] names) is a
    /// file: from the listing when its folder was listed, else asked.
    pub fn is_file(&self, marker: &Utf8Path) -> bool {
        if self.files.contains(marker) {
            return true;
        }
        let folder = if marker.file_name() == Some("SKILL.md") {
            marker.parent().and_then(Utf8Path::parent)
        } else {
            marker.parent()
        };
        match folder {
            Some(folder) if self.listed.contains(folder) => false,
            _ => marker.is_file(),
        }
    }

    /// The item names with a file, folder by folder in lookup order.
    pub fn found(&self) -> &[(ItemKind, Vec<String>)] {
        &self.found
    }
}

/// The UTF-8 names `dir` lists, as far as it can be read, and whether the
/// listing answers for every name an item can have: read whole (a missing
/// folder holds nothing), every name ASCII without upper case (so a file
/// system that folds case could not match an item's name to another).
fn listing(dir: &Utf8Path) -> (Vec<String>, bool) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return (Vec::new(), e.kind() == std::io::ErrorKind::NotFound),
    };
    let mut whole = true;
    let mut names = Vec::new();
    for entry in entries {
        let Ok(entry) = entry else {
            whole = false;
            continue;
        };
        match entry.file_name().into_string() {
            Ok(name) => {
                whole &= name.is_ascii() && !name.bytes().any(|b| b.is_ascii_uppercase());
                names.push(name);
            }
            Err(_) => whole = false,
        }
    }
    (names, whole)
}

#[cfg(test)]
mod tests {
    use super::Markers;
    use crate::item::{ItemKind, candidates};
    use camino::Utf8PathBuf;
    use std::fs;

    /// Every candidate place of every name is a file by the listing exactly
    /// when `is_file` says so: skills, commands and agents under the source
    /// and `registry/`, links to files and to nothing, folders where a file
    /// is looked for, names in upper case.
    #[test]
    fn the_listing_answers_as_is_file_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().to_owned()).unwrap();
        let file = |rel: &str| {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "---\ndescription: x\n---\n").unwrap();
        };
        file("skills/a/SKILL.md");
        file("registry/skills/a/SKILL.md");
        file("commands/b.md");
        file("registry/agents/c.md");
        file("elsewhere/d.md");
        file("Upper/SKILL.md");
        fs::create_dir_all(root.join("skills/empty")).unwrap();
        fs::create_dir_all(root.join("agents/e.md")).unwrap();
        fs::create_dir_all(root.join("skills/f/SKILL.md")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere/d.md"), root.join("commands/d.md"))
            .unwrap();
        std::os::unix::fs::symlink(root.join("nothing.md"), root.join("agents/g.md")).unwrap();
        std::os::unix::fs::symlink(root.join("Upper"), root.join("registry/skills/h")).unwrap();
        let markers = Markers::new(&root);
        let mut files = 0;
        for name in ["a", "b", "c", "d", "e", "f", "g", "h", "missing", "empty"] {
            for (_, marker, _) in candidates(&root, name) {
                assert_eq!(markers.is_file(&marker), marker.is_file(), "{marker}");
                files += usize::from(marker.is_file());
            }
        }
        assert_eq!(files, 6);
        let found: Vec<(ItemKind, Vec<String>)> = markers.found().to_vec();
        let names = |i: usize| found[i].1.join(",");
        assert_eq!(
            (0..6).map(names).collect::<Vec<_>>(),
            ["a", "b,d", "", "a,h", "", "c"]
        );
    }

    /// A folder holding a name in upper case is not answered from the
    /// listing (a file system may fold case): `is_file` is asked.
    #[test]
    fn a_name_in_upper_case_leaves_the_folder_to_is_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().to_owned()).unwrap();
        fs::create_dir_all(root.join("commands")).unwrap();
        fs::write(root.join("commands/Ship.md"), "x").unwrap();
        let markers = Markers::new(&root);
        assert!(!markers.listed.contains(&root.join("commands")));
        assert!(markers.listed.contains(&root.join("skills")));
    }
}
