//! Item lookup: find the one skill, command or agent a name refers to.

use crate::config::ItemName;
use crate::error::{Error, Result};
use camino::{Utf8Path, Utf8PathBuf};

/// What kind of item a name refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// `skills/<item>/SKILL.md` (the folder is the item).
    Skill,
    /// `commands/<item>.md`.
    Command,
    /// `agents/<item>.md`.
    Agent,
}

impl ItemKind {
    /// The word for the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Skill => "skill",
            ItemKind::Command => "command",
            ItemKind::Agent => "agent",
        }
    }
}

/// A found item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The name.
    pub name: ItemName,
    /// Its kind.
    pub kind: ItemKind,
    /// What the plugin links: the skill folder, or the command/agent file (absolute when the source is).
    pub path: Utf8PathBuf,
    /// Where it sits inside a plugin: `skills/<item>`, `commands/<item>.md`, `agents/<item>.md`.
    pub plugin_path: Utf8PathBuf,
}

/// The plugin name bob-eval gives an item's throwaway plugin: `bob-eval-<item>`.
pub fn plugin_name(item: &str) -> String {
    format!("bob-eval-{item}")
}

/// Every place an item of this name may live, in lookup order.
pub fn candidates(source: &Utf8Path, name: &str) -> Vec<(ItemKind, Utf8PathBuf, Utf8PathBuf)> {
    let mut out = Vec::new();
    for root in [source.to_owned(), source.join("registry")] {
        out.push((
            ItemKind::Skill,
            root.join("skills").join(name).join("SKILL.md"),
            root.join("skills").join(name),
        ));
        let command = root.join("commands").join(format!("{name}.md"));
        out.push((ItemKind::Command, command.clone(), command));
        let agent = root.join("agents").join(format!("{name}.md"));
        out.push((ItemKind::Agent, agent.clone(), agent));
    }
    out
}

/// Every item name in `source` (skills, commands and agents, registry too),
/// sorted and unique; for suggestions, not lookups.
pub fn names(source: &Utf8Path) -> Vec<String> {
    let mut out = Vec::new();
    for root in [source.to_owned(), source.join("registry")] {
        for kind in ["skills", "commands", "agents"] {
            out.extend(crate::config::folder_names(&root.join(kind)));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Find the item `name` in `source`: exactly one of the candidate places must exist.
pub fn find(source: &Utf8Path, name: &ItemName) -> Result<Item> {
    find_as(source, name, true, |marker| marker.is_file())
}

/// [`find`] for a caller that never shows a missing item's suggestion
/// (`check`, once per suite): the tree is not listed for one.
pub fn lookup(source: &Utf8Path, name: &ItemName) -> Result<Item> {
    find_as(source, name, false, |marker| marker.is_file())
}

/// [`lookup`] told by `is_file` which candidate files exist (`check` answers
/// from one listing of the tree instead of a `stat` per candidate).
pub fn lookup_with(
    source: &Utf8Path,
    name: &ItemName,
    is_file: impl Fn(&Utf8Path) -> bool,
) -> Result<Item> {
    find_as(source, name, false, is_file)
}

fn find_as(
    source: &Utf8Path,
    name: &ItemName,
    suggest: bool,
    is_file: impl Fn(&Utf8Path) -> bool,
) -> Result<Item> {
    let all = candidates(source, name);
    let found: Vec<_> = all
        .iter()
        .filter(|(_, marker, _)| is_file(marker))
        .collect();
    match found.as_slice() {
        [] => Err(Error::ItemNotFound {
            name: name.into(),
            suggestion: if suggest {
                crate::config::did_you_mean(name, &names(source))
            } else {
                None
            },
            source_dir: source.to_owned(),
            looked: all.iter().map(|(_, marker, _)| marker.clone()).collect(),
        }),
        [(kind, _, path)] => {
            let plugin_path = match kind {
                ItemKind::Skill => Utf8PathBuf::from("skills").join(name),
                ItemKind::Command => Utf8PathBuf::from("commands").join(format!("{name}.md")),
                ItemKind::Agent => Utf8PathBuf::from("agents").join(format!("{name}.md")),
            };
            Ok(Item {
                name: name.clone(),
                kind: *kind,
                path: path.clone(),
                plugin_path,
            })
        }
        many => Err(Error::ItemAmbiguous {
            name: name.into(),
            found: many.iter().map(|(_, marker, _)| marker.clone()).collect(),
        }),
    }
}

/// Every item of `source` that [`find`] finds (an ambiguous or invalid name
/// is left out), in name order: the skills, commands and agents a plugin
/// holding the whole source tree would offer.
pub fn all(source: &Utf8Path) -> Vec<Item> {
    all_known(source, |_| None)
}

/// [`all`], taking an item from `known` instead of looking for it again
/// when `known` has it (`check` found each suite's item already).
pub fn all_known(source: &Utf8Path, known: impl Fn(&str) -> Option<Item> + Sync) -> Vec<Item> {
    let mut names = std::collections::BTreeSet::new();
    for root in [source.to_owned(), source.join("registry")] {
        for (dir, suffix) in [("skills", ""), ("commands", ".md"), ("agents", ".md")] {
            let Ok(entries) = root.join(dir).read_dir_utf8() else {
                continue;
            };
            for entry in entries.flatten() {
                if let Some(name) = entry.file_name().strip_suffix(suffix) {
                    names.insert(name.to_owned());
                }
            }
        }
    }
    let names: Vec<ItemName> = names
        .into_iter()
        .filter_map(|name| ItemName::new(&name).ok())
        .collect();
    crate::parallel::map(&names, crate::parallel::cores_for(names.len()), |name| {
        known(name).or_else(|| lookup(source, name).ok())
    })
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::exit;

    fn tree(files: &[&str]) -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().to_owned()).unwrap();
        for f in files {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "---\nname: x\n---\n").unwrap();
        }
        (dir, root)
    }

    #[test]
    fn finds_each_kind_and_registry_twins() {
        let (_d, root) = tree(&[
            "skills/commit/SKILL.md",
            "registry/commands/ship.md",
            "agents/rev.md",
        ]);
        let skill = find(&root, &crate::config::item_name("commit")).unwrap();
        assert_eq!(
            (skill.kind, skill.plugin_path.as_str()),
            (ItemKind::Skill, "skills/commit")
        );
        assert_eq!(skill.path, root.join("skills/commit"));
        let cmd = find(&root, &crate::config::item_name("ship")).unwrap();
        assert_eq!(
            (cmd.kind, cmd.path.clone()),
            (ItemKind::Command, root.join("registry/commands/ship.md"))
        );
        assert_eq!(
            find(&root, &crate::config::item_name("rev"))
                .unwrap()
                .plugin_path
                .as_str(),
            "agents/rev.md"
        );
    }

    #[test]
    fn all_lists_every_found_item_once() {
        let (_d, root) = tree(&[
            "skills/commit/SKILL.md",
            "skills/empty/README.md",
            "registry/commands/ship.md",
            "agents/rev.md",
            "agents/notes.txt",
            "skills/twin/SKILL.md",
            "commands/twin.md",
            "commands/Bad.md",
        ]);
        let names: Vec<String> = all(&root).into_iter().map(|i| i.name.into()).collect();
        assert_eq!(names, ["commit", "rev", "ship"]);
    }

    #[test]
    fn missing_and_ambiguous() {
        let (_d, root) = tree(&[
            "skills/x/SKILL.md",
            "commands/x.md",
            "skills/empty/README.md",
        ]);
        let err = find(&root, &crate::config::item_name("x")).unwrap_err();
        assert!(
            matches!(err, Error::ItemAmbiguous { ref found, .. } if found.len() == 2),
            "{err}"
        );
        let err = find(&root, &crate::config::item_name("empty")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("no item named \"empty\""), "{msg}");
        assert!(msg.contains("registry/agents/empty.md"), "{msg}");
        assert_eq!(err.exit_code(), exit::USAGE);
    }
}
