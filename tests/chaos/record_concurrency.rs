//! 16 `bob-eval gate --record` processes on one suite at once: nothing is lost,
//! the best is the highest accepted score, every row replays in order.

use crate::support;

use bob_eval::wiki::{self, Outcome};
use camino::Utf8PathBuf;
use serde_json::Value;
use std::fs;
use std::process::Stdio;
use support::cmd::bob;

const N: usize = 16;

fn data(name: &str) -> Utf8PathBuf {
    Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gate")
        .join(name)
}

fn result_doc(with: f64, i: usize) -> Value {
    let mut doc: Value =
        serde_json::from_str(&fs::read_to_string(data("result-accept.json")).unwrap()).unwrap();
    let without = 0.5;
    doc["with"] = with.into();
    doc["without"] = without.into();
    doc["delta"] = bob_eval::document::round4(with - without).into();
    doc["verdict"] = "improved".into();
    doc["run"] = format!("eval-commit-20261202T0000{i:02}Z").into();
    doc
}

#[test]
fn sixteen_recorders_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    fs::create_dir_all(root.join("evals/commit")).unwrap();
    fs::create_dir_all(root.join("wiki/patterns")).unwrap();
    fs::write(root.join("wiki/patterns/commit-skipped-hook.md"), "# x\n").unwrap();
    fs::copy(
        data("baseline.json"),
        root.join("evals/commit/baseline.json"),
    )
    .unwrap();

    // Scores 0.60, 0.62, … 0.90 (some below the recorded best 0.83), started in a scrambled order.
    let scores: Vec<f64> = (0..N)
        .map(|i| 0.60 + 0.02 * ((i * 7) % N) as f64)
        .map(bob_eval::document::round4)
        .collect();
    let mut children = vec![];
    for (i, score) in scores.iter().enumerate() {
        let path = root.join(format!("result-{i}.json"));
        fs::write(
            &path,
            serde_json::to_string(&result_doc(*score, i)).unwrap(),
        )
        .unwrap();
        let child = bob(root.as_std_path(), root.join("home").as_std_path())
            .args([
                "gate",
                "commit",
                path.as_str(),
                "--json",
                "--record",
                "--pr",
            ])
            .arg(format!("#{i}"))
            .args(["--pages", "commit-skipped-hook"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        children.push(child);
    }
    let mut exit_codes = vec![];
    for child in children {
        let out = child.wait_with_output().unwrap();
        let code = out.status.code().unwrap();
        assert!(
            code == 0 || code == 1,
            "exit {code}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let decision: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(decision["accepted"], code == 0);
        exit_codes.push(code);
    }

    // 16 whole rows; replaying them in file order gives every before/outcome.
    let text = fs::read_to_string(root.join("wiki/skill-impact.md")).unwrap();
    assert!(text.starts_with(wiki::HEADER));
    let rows: Vec<_> = wiki::row_lines(&text)
        .map(|(_, l)| wiki::parse_row(l).unwrap())
        .collect();
    assert_eq!(rows.len(), N, "{text}");
    let mut best = 0.83;
    let mut seen = [false; N];
    for row in &rows {
        let i: usize = row.pr.trim_start_matches('#').parse().unwrap();
        assert!(!seen[i], "two rows for #{i}");
        seen[i] = true;
        assert_eq!(row.after, scores[i]);
        assert_eq!(row.before, Some(best), "{text}");
        let accepted = row.after > best;
        assert_eq!(row.outcome == Outcome::Accepted, accepted, "{text}");
        assert_eq!(
            exit_codes[i] == 0,
            accepted,
            "exit code of #{i} disagrees with its row"
        );
        if accepted {
            best = row.after;
        }
    }

    let baseline = bob_eval::document::load_baseline(&root, &"commit".parse().unwrap()).unwrap();
    let max = scores.iter().cloned().fold(0.0, f64::max);
    assert_eq!(best, max);
    assert_eq!(baseline.best["claude-sonnet-5-5"].score, max);
    assert!(bob_eval::wiki::check_wiki(&root).unwrap().is_empty());
}
