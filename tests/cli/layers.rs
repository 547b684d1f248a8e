//! The library's layers hold: no module under `src/` refers to a module of a
//! layer above its own, nor to a later module of its own layer
//! (`bob_eval::LAYERS` states the order once). Read from every `crate::name`
//! path in the source, `use` lines and inline paths alike, tests included.

use std::collections::HashMap;
use std::path::Path;

/// Each module's rank in the order of `LAYERS`.
fn ranks() -> HashMap<&'static str, usize> {
    bob_eval::LAYERS
        .iter()
        .flat_map(|(_, modules)| modules.iter().copied())
        .enumerate()
        .map(|(i, m)| (m, i))
        .collect()
}

/// Every `.rs` file under `dir`, with the top-level module it belongs to.
fn sources(dir: &Path, top: Option<&str>, out: &mut Vec<(String, std::path::PathBuf)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        if path.is_dir() {
            sources(&path, Some(top.unwrap_or(&name)), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((top.map_or(name, str::to_string), path));
        }
    }
}

/// The modules `text` refers to as `crate::<module>`.
fn referred(text: &str) -> Vec<(usize, String)> {
    let mut found = vec![];
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `crate::{a, b}` groups.
            if after.starts_with('{') {
                let group = &after[1..after.find('}').unwrap_or(after.len())];
                for part in group.split(',') {
                    let m: String = part
                        .trim()
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !m.is_empty() {
                        found.push((n + 1, m));
                    }
                }
            } else if !name.is_empty() {
                found.push((n + 1, name));
            }
            rest = after;
        }
    }
    found
}

#[test]
fn no_module_imports_one_above_it() {
    let ranks = ranks();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    sources(&root, None, &mut files);
    let mut wrong = vec![];
    for (module, path) in &files {
        if module == "lib" || module == "main" {
            continue;
        }
        let own = *ranks.get(module.as_str()).unwrap_or_else(|| {
            panic!(
                "{}: module `{module}` is missing from LAYERS",
                path.display()
            )
        });
        let text = std::fs::read_to_string(path).unwrap();
        for (line, target) in referred(&text) {
            // The crate root re-exports `Error` and `Result` from `error`.
            let target = match target.as_str() {
                "Error" | "Result" => "error".to_string(),
                other => other.to_string(),
            };
            let Some(&rank) = ranks.get(target.as_str()) else {
                wrong.push(format!(
                    "{}:{line}: crate::{target} is not a module in LAYERS",
                    path.display()
                ));
                continue;
            };
            if rank > own {
                wrong.push(format!(
                    "{}:{line}: `{module}` refers to `{target}`, which is above it",
                    path.display()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
}

#[test]
fn the_reader_sees_paths_and_groups() {
    assert_eq!(
        referred("use crate::{error::Result, config};\nlet x = crate::eval::evaluate();"),
        vec![
            (1, "error".into()),
            (1, "config".into()),
            (2, "eval".into())
        ]
    );
}

#[test]
fn clap_is_imported_only_by_the_commands() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    sources(&root, None, &mut files);
    for (module, path) in files {
        if module == "commands" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("clap::") && !text.contains("use clap"),
            "{} uses clap; only commands/ and main.rs may",
            path.display()
        );
    }
}

/// docs/architecture.md's "Every file" table names every file of `src/`
/// (a `tests.rs` aside) and no file that is gone.
#[test]
fn the_architecture_page_lists_every_source_file() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let table = &page[page
        .find("## Every file")
        .expect("an \"Every file\" section")..];
    let listed: std::collections::BTreeSet<String> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    let mut files = std::collections::BTreeSet::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                let rel = path.strip_prefix(root.join("src")).unwrap();
                files.insert(rel.to_string_lossy().into_owned());
            }
        }
    }
    let missing: Vec<_> = files.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&files).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "docs/architecture.md, \"Every file\": not listed {missing:?}; listed but gone {gone:?}"
    );
}

/// `report/` words what the library returns, the pipelines' outcomes
/// included (`ops::Published`), without knowing the script host: no file of
/// it refers to `crate::script`.
#[test]
fn report_does_not_know_the_script_host() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src/report"), Some("report"), &mut files);
    assert!(!files.is_empty());
    let offenders: Vec<String> = files
        .iter()
        .flat_map(|(_, path)| {
            let text = std::fs::read_to_string(path).unwrap();
            referred(&text)
                .into_iter()
                .filter(|(_, m)| m == "script")
                .map(move |(n, _)| format!("{}:{n}", path.display()))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "report/ refers to the script host at {offenders:?}"
    );
}

/// The process environment is read in one file, `config/environment.rs`
/// (`Environment::from_process`, once at start): everywhere else takes the
/// values it reads from the `Environment` it is handed. That holds for the
/// reads that do not say `var`: clap's `env = "…"` attribute (a flag's
/// variable is read from the `Environment` by the command, as
/// `--platform-timeout`'s is) and `std::env::temp_dir` (`$TMPDIR`: the
/// plugin's folders go where `Environment::temp_dir` says).
#[test]
fn the_environment_is_read_in_one_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let reader = root.join("config").join("environment.rs");
    let mut files = Vec::new();
    sources(&root, None, &mut files);
    assert!(files.iter().any(|(_, path)| *path == reader));
    let clap_env = regex::Regex::new(r#"#\[(arg|command)\(.*\benv\b"#).unwrap();
    let reads = |line: &str| {
        ["env::var", "var_os(", "vars_os(", "env::temp_dir("]
            .iter()
            .any(|read| line.contains(read))
            || clap_env.is_match(line)
    };
    // The test can fail: each way of reading is seen.
    for line in [
        "let v = std::env::var(\"X\");",
        "std::env::temp_dir()",
        r#"#[arg(long, env = "BOB_X")]"#,
    ] {
        assert!(reads(line), "{line}");
    }
    assert!(!reads(r#"#[arg(long, value_name = "SECONDS")]"#));
    let offenders: Vec<String> = files
        .iter()
        .filter(|(_, path)| *path != reader)
        .flat_map(|(_, path)| {
            let text = std::fs::read_to_string(path).unwrap();
            text.lines()
                .enumerate()
                .filter(|(_, line)| reads(line))
                .map(|(n, _)| format!("{}:{}", path.display(), n + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "the environment is read outside config/environment.rs at {offenders:?}"
    );
}

/// Only the front end writes to stderr: no `eprintln!` or `eprint!` under
/// `src/` outside `commands/` and `main.rs` (the library hands warnings,
/// progress and a script's `print` to an observer or returns them).
#[test]
fn only_the_commands_write_to_stderr() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, None, &mut files);
    let offenders: Vec<String> = files
        .iter()
        .filter(|(module, _)| module != "commands" && module != "main")
        .flat_map(|(_, path)| {
            let text = std::fs::read_to_string(path).unwrap();
            text.lines()
                .enumerate()
                .filter(|(_, line)| line.contains("eprintln!") || line.contains("eprint!"))
                .map(|(n, _)| format!("{}:{}", path.display(), n + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "stderr written outside commands/ and main.rs at {offenders:?}"
    );
}
