//! More items for a source tree: the real-source `commit` suite under other names.

use crate::data::data;
use crate::tree::copy_tree;
use std::path::Path;

/// Add item `item` to `source`: the fixture's commit skill and suite
/// (tests/data/real-source), renamed (skill name, trigger graders'
/// input_match, baseline) and described as itself (`check` warns about items
/// described alike), so that it passes `bob-eval check` as an item of its own.
pub fn add_item(source: &Path, item: &str) {
    let real = data("real-source");
    let skill = source.join("skills").join(item);
    std::fs::create_dir_all(&skill).expect("create skill folder");
    let text = std::fs::read_to_string(real.join("skills/commit/SKILL.md")).expect("fixture skill");
    std::fs::write(
        skill.join("SKILL.md"),
        text.replace("name: commit", &format!("name: {item}"))
            .lines()
            .map(|line| {
                if line.starts_with("description:") {
                    format!("description: The {item} fixture.\n")
                } else {
                    format!("{line}\n")
                }
            })
            .collect::<String>(),
    )
    .expect("write skill");
    let suite = source.join("evals").join(item);
    copy_tree(&real.join("evals/commit"), &suite);
    for grader in ["fires/graders/fires.md", "quiet/graders/quiet.md"] {
        let path = suite.join(grader);
        let text = std::fs::read_to_string(&path).expect("fixture grader");
        std::fs::write(&path, text.replace(")?commit\"", &format!(")?{item}\"")))
            .expect("write grader");
    }
    std::fs::write(
        suite.join("baseline.json"),
        format!(
            "{{\"schema\": \"skill-eval-baseline/1\", \"item\": \"{item}\", \"best\": {{}}}}\n"
        ),
    )
    .expect("write baseline");
}
