//! Benchmark: `check_suites` over 1,000 generated suites of 4 cases each.
//! Run with `cargo bench --bench check`; prints the median of several runs
//! and the cost per suite.

use bob_eval::check::check_suites;
use camino::Utf8PathBuf;
use std::fs;
use std::time::{Duration, Instant};

const SUITES: usize = 1000;
const ITERATIONS: usize = 7;

fn write(root: &Utf8PathBuf, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, text).expect("write");
}

fn generate(root: &Utf8PathBuf) {
    for n in 0..SUITES {
        let item = format!("item-{n:04}");
        let pin = format!(r#"'"skill"\s*:\s*"(?:[\w-]+:)?{item}"'"#);
        write(
            root,
            &format!("skills/{item}/SKILL.md"),
            // Each its own purpose: `check` warns about items described alike.
            &format!(
                "---\nname: {item}\ndescription: Bench item for the k{n}a k{n}b k{n}c task.\n---\n\nBody.\n"
            ),
        );
        let base = format!("evals/{item}");
        write(
            root,
            &format!("{base}/baseline.json"),
            &format!(r#"{{"schema":"skill-eval-baseline/1","item":"{item}","best":{{}}}}"#),
        );
        for case in ["fires", "quiet", "edge", "yaml"] {
            let dir = format!("{base}/{case}");
            if case == "yaml" {
                write(
                    root,
                    &format!("{dir}/case.yaml"),
                    "schema_version: \"1.1\"\nname: yaml\nruns: 2\nexecution:\n  prompt: Explain the thing.\n  max_turns: 4\n  env:\n    EVAL_MODE: fast\ngraders:\n  - name: mentions\n    type: regex\n    pattern: '\\bthing\\b'\n    flags: i\n",
                );
            } else {
                write(
                    root,
                    &format!("{dir}/prompt.md"),
                    "---\ndescription: A case.\ntags: [trigger]\nmax_turns: 6\nallowed_tools: [Skill, Read, Glob, Grep]\n---\n\nDo the thing with this context pasted in.\n",
                );
            }
            match case {
                "fires" => write(
                    root,
                    &format!("{dir}/graders/fires.md"),
                    &format!("---\ntype: tool_used\ntool: Skill\ninput_match: {pin}\n---\n"),
                ),
                "quiet" => write(
                    root,
                    &format!("{dir}/graders/quiet.md"),
                    &format!(
                        "---\ntype: tool_used\ntool: Skill\ninput_match: {pin}\nmin: 0\nmax: 0\narm: both\n---\n"
                    ),
                ),
                _ => {}
            }
            if case != "yaml" {
                write(
                    root,
                    &format!("{dir}/graders/subject.md"),
                    "---\ntype: regex\npattern: '^\\W{0,3}(feat|fix)(\\([a-z0-9._/-]+\\))?!?: \\S.{0,70}$'\nflags: m\n---\n",
                );
                write(
                    root,
                    &format!("{dir}/graders/why.md"),
                    "---\ntype: llm\n---\n\nThe message says why.\n",
                );
            }
        }
    }
}

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = Utf8PathBuf::from_path_buf(tmp.path().to_owned()).expect("utf-8 temp path");
    generate(&root);
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..ITERATIONS {
        let start = Instant::now();
        let report = check_suites(&root, &[]).expect("check");
        times.push(start.elapsed());
        assert_eq!(report.suites.len(), SUITES);
        assert_eq!(report.case_count(), SUITES * 4);
        assert!(
            report.diagnostics.is_empty(),
            "{:?}",
            report.diagnostics.first()
        );
    }
    times.sort();
    let median = times[ITERATIONS / 2];
    println!(
        "check_suites: {SUITES} suites x 4 cases: median {:.1} ms over {ITERATIONS} runs (min {:.1} ms, max {:.1} ms), {:.1} µs per suite",
        median.as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        times[ITERATIONS - 1].as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e6 / SUITES as f64
    );
    let secs = median.as_secs_f64();
    println!(
        "RESULT check of {SUITES} suites x 4 cases: {secs:.3} s (target <= 0.5 s) {}",
        if secs <= 0.5 { "PASS" } else { "MISS" }
    );
}
