//! The prompt.md / grader frontmatter and YAML loader: split, key lines and
//! parse never panic, and a parse error always names the file.
#![no_main]

use bob_eval::suite;
use camino::Utf8Path;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let path = Utf8Path::new("evals/demo/fires/prompt.md");
    let _ = suite::key_lines(text, 1);
    match suite::split_markdown(text) {
        Ok(md) => {
            if let Some(front) = md.frontmatter {
                let _ = suite::key_lines(front, md.frontmatter_line);
                if let Err(d) = suite::parse_yaml(front, path, md.frontmatter_line) {
                    assert!(!d.message.is_empty() && !d.fix.is_empty());
                    assert_eq!(d.file, path);
                }
            }
        }
        Err(_) => {}
    }
    if let Err(d) = suite::parse_yaml(text, Utf8Path::new("case.yaml"), 1) {
        assert!(!d.message.is_empty());
    }
});
