//! Recorders killed (SIGKILL) at random points never leave a torn `baseline.json`
//! or a torn wiki row: each file is always the old or a new whole document.

use crate::support;

use bob_eval::wiki;
use camino::{Utf8Path, Utf8PathBuf};
use serde_json::Value;
use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};
use support::cmd::bob;

const ITERATIONS: usize = 150;

fn data(name: &str) -> Utf8PathBuf {
    Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gate")
        .join(name)
}

/// A small xorshift generator; the seed is printed so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn write_result(path: &Utf8Path, with: f64, i: usize) {
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(data("result-accept.json")).unwrap()).unwrap();
    doc["with"] = with.into();
    doc["without"] = 0.1.into();
    doc["delta"] = bob_eval::document::round4(with - 0.1).into();
    doc["run"] = format!("eval-commit-20261202T{i:06}Z").into();
    fs::write(path, serde_json::to_string(&doc).unwrap()).unwrap();
}

fn recorder(root: &Utf8Path, result: &Utf8Path, i: usize) -> Command {
    let mut cmd = bob(root.as_std_path(), root.join("home").as_std_path());
    cmd.args(["gate", "commit", result.as_str(), "--record", "--pr"])
        .arg(format!("#{i}"))
        .args(["--pages", "commit-skipped-hook"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Every line of the wiki is the header or a whole row; the file ends with a newline.
fn wiki_rows(root: &Utf8Path) -> usize {
    let text = fs::read_to_string(root.join("wiki/skill-impact.md"))
        .unwrap_or_else(|_| wiki::HEADER.into());
    assert!(
        text.starts_with(wiki::HEADER) && text.ends_with('\n'),
        "torn wiki:\n{text}"
    );
    let body = &text[wiki::HEADER.len()..];
    for line in body.lines() {
        wiki::parse_row(line).unwrap_or_else(|e| panic!("torn row {line:?}: {e}"));
    }
    body.lines().count()
}

/// Temp files (`.<name>.<pid>.tmp`) in the two folders a recorder writes.
fn temp_files(root: &Utf8Path) -> impl Iterator<Item = String> {
    ["wiki", "evals/commit"]
        .into_iter()
        .flat_map(|d| fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
}

#[test]
fn killed_recorders_leave_whole_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    fs::create_dir_all(root.join("evals/commit")).unwrap();
    fs::create_dir_all(root.join("wiki/patterns")).unwrap();
    fs::write(root.join("wiki/patterns/commit-skipped-hook.md"), "# x\n").unwrap();
    let baseline_path = root.join("evals/commit/baseline.json");
    fs::write(
        &baseline_path,
        r#"{"schema": "skill-eval-baseline/1", "item": "commit", "best": {}}"#,
    )
    .unwrap();

    // How long one whole recorder takes here (median of 5): half the kill delays
    // are spread over all of it, half over its end, where the writes happen.
    let result = root.join("result.json");
    let mut took = vec![];
    for i in 0..5 {
        write_result(&result, 0.2 + 0.001 * i as f64, i);
        let start = Instant::now();
        assert!(
            recorder(&root, &result, i)
                .status()
                .unwrap()
                .code()
                .is_some()
        );
        took.push(start.elapsed().as_micros() as u64);
    }
    took.sort_unstable();
    let typical = took[2].max(10);
    let span = typical * 6 / 5;

    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("seed {seed}, a whole recorder takes ~{typical}µs");
    let mut rng = Rng(seed);
    let (mut killed, mut finished) = (0, 0);
    let mut left_temps = 0;
    for i in 5..ITERATIONS + 5 {
        let old = fs::read_to_string(&baseline_path).unwrap();
        let rows_before = wiki_rows(&root);
        let with = bob_eval::document::round4(0.21 + 0.005 * i as f64);
        write_result(&result, with, i);

        let mut child = recorder(&root, &result, i).spawn().unwrap();
        let delay = if i % 2 == 0 {
            rng.next() % span
        } else {
            typical * 7 / 10 + rng.next() % (typical * 2 / 5)
        };
        std::thread::sleep(Duration::from_micros(delay));
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.code().is_some() {
            finished += 1
        } else {
            killed += 1
        }

        if temp_files(&root).next().is_some() {
            left_temps += 1;
        }
        let now = fs::read_to_string(&baseline_path).unwrap();
        let rows_after = wiki_rows(&root);
        assert!(
            rows_after == rows_before || rows_after == rows_before + 1,
            "iteration {i}: rows {rows_before} → {rows_after}"
        );
        if now != old {
            let doc: Value = serde_json::from_str(&now)
                .unwrap_or_else(|e| panic!("iteration {i}: torn baseline ({e}):\n{now}"));
            bob_eval::schema::validate_baseline(&doc, &baseline_path).unwrap();
            assert_eq!(
                doc["best"]["claude-sonnet-5-5"]["score"], with,
                "iteration {i}"
            );
            assert_eq!(
                rows_after,
                rows_before + 1,
                "iteration {i}: the best was raised without its row"
            );
        }
    }
    eprintln!(
        "{killed} killed, {finished} finished, {left_temps} killed while writing (left a temp file)"
    );

    // One last recorder cleans up what killed ones left and leaves a clean wiki.
    write_result(&result, 0.99, 9999);
    assert_eq!(
        recorder(&root, &result, 9999).status().unwrap().code(),
        Some(0)
    );
    let temps: Vec<_> = temp_files(&root).collect();
    assert!(temps.is_empty(), "{temps:?}");
    assert!(wiki::check_wiki(&root).unwrap().is_empty());
    assert_eq!(
        bob_eval::document::load_baseline(&root, &"commit".parse().unwrap())
            .unwrap()
            .best["claude-sonnet-5-5"]
            .score,
        0.99
    );
}
