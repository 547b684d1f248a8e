//! Reduce a ~50 MB platform document: `reduce_file` (read to memory +
//! `from_slice`) vs a `BufReader` + `from_reader` parse vs `jq -c .`, with the
//! peak memory of each. Run with `cargo bench --bench reduce`.

use bob_eval::platform::result::PlatformResult;
use bob_eval::reduce::{ReduceContext, ResultSource, reduce, reduce_file};
use camino::Utf8PathBuf;
use serde_json::{Value, json};
use std::io::BufReader;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TARGET_BYTES: usize = 50 * 1024 * 1024;

fn ctx() -> ReduceContext {
    ReduceContext {
        item: "commit".parse().expect("a valid name"),
        model: "default".into(),
        max_cost_usd: 2.0,
        started: Some(chrono::Utc::now()),
    }
}

fn run_value(i: usize, arm: &str) -> Value {
    let evidence = format!("{arm} run {i}: ").repeat(150);
    json!({
        "score": if arm == "with" { 1.0 } else { (i % 3) as f64 / 3.0 },
        "passed": true, "turns": 3, "costUsd": 0.0123, "judgeCostUsd": 0.004, "durationSeconds": 2,
        "startedAt": "2026-12-02T09:39:15.099Z", "error": null,
        "tracePath": format!("/var/tmp/claude-eval-{i}/out/trace.jsonl"), "skippedPaidGraders": false,
        "graders": [
            {"name": "fires", "passed": !i.is_multiple_of(4), "weight": 1, "explanation": "Skill called 1x (expected 1..∞)", "withOnly": true, "scored": false},
            {"name": "subject", "passed": true, "weight": 1, "explanation": "matched ^(feat|fix)", "withOnly": false, "scored": true},
            {"name": "why", "passed": i.is_multiple_of(2), "weight": 1, "explanation": "judge votes: PASS PASS FAIL", "withOnly": false,
             "scored": true, "judgeVotes": [true, true, false], "evidence": evidence}
        ]
    })
}

fn generate(path: &std::path::Path) -> usize {
    let mut cases = Vec::new();
    let mut size = 0;
    let mut c = 0;
    while size < TARGET_BYTES {
        let with: Vec<Value> = (0..10).map(|i| run_value(i, "with")).collect();
        let without: Vec<Value> = (0..10).map(|i| run_value(i, "without")).collect();
        let case = json!({
            "name": format!("case-{c}"), "dir": format!("evals/commit/case-{c}"), "source": "prose",
            "promptMarkdown": "Write a commit message. ".repeat(40), "runsPerCase": 10, "timeoutSeconds": 300, "maxTurns": 6,
            "graders": [
                {"name": "fires", "type": "tool_used", "weight": 1, "config": {"tool": "Skill", "input_match": "commit"}},
                {"name": "subject", "type": "regex", "weight": 1, "config": {"pattern": "^(feat|fix)", "flags": "m"}},
                {"name": "why", "type": "llm", "weight": 1, "graderMarkdown": "says why", "config": {"criteria": "says why"}}
            ],
            "arms": {"with": with, "without": without},
            "aggregates": {"score": 1, "passRate": 1, "scoreWithout": 0.3, "passRateWithout": 0, "delta": 0.7}
        });
        size += serde_json::to_vec(&case).unwrap().len();
        cases.push(case);
        c += 1;
    }
    let doc = json!({
        "schemaVersion": 1, "claudeVersion": "2.1.328", "startedAt": "2026-12-02T09:39:15.075Z", "durationSeconds": 900,
        "costUsd": 1.5, "partial": false,
        "suite": {"root": "/srv/demo/plugin", "ablation": "with-without", "threshold": 0, "concurrency": 1,
                  "plugins": [{"name": "bob-eval-commit", "version": "0.0.0", "path": "/srv/demo/plugin"}]},
        "cases": cases,
        "aggregates": {"casesTotal": c, "casesPassed": c, "overallScore": 1, "overallPassRate": 1, "meanDelta": 0.5}
    });
    // Compact, as the platform writes it.
    let bytes = serde_json::to_vec(&doc).unwrap();
    std::fs::write(path, &bytes).unwrap();
    bytes.len()
}

fn vm_hwm_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn reduce_reader(path: &std::path::Path) {
    let file = std::fs::File::open(path).unwrap();
    let doc: PlatformResult = serde_json::from_reader(BufReader::new(file)).unwrap();
    reduce(&doc, &ctx()).unwrap();
}

fn best_and_median(mut f: impl FnMut(), n: usize) -> (f64, f64) {
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    (
        times[0].as_secs_f64() * 1000.0,
        times[n / 2].as_secs_f64() * 1000.0,
    )
}

fn child_peak(mode: &str, file: &std::path::Path) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([mode, file.to_str().unwrap()])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, mode, file] = args.as_slice() {
        match mode.as_str() {
            "--child-slice" => {
                reduce_file(
                    &Utf8PathBuf::from(file.as_str()),
                    ResultSource::File,
                    &ctx(),
                )
                .unwrap();
                println!("{}", vm_hwm_kb());
                return;
            }
            "--child-reader" => {
                reduce_reader(std::path::Path::new(file));
                println!("{}", vm_hwm_kb());
                return;
            }
            _ => {}
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("aggregate-result.json");
    let size = generate(&path);
    let utf8 = Utf8PathBuf::from_path_buf(path.clone()).unwrap();
    println!(
        "reduce: generated compact document {:.1} MB",
        size as f64 / 1048576.0
    );

    let (slice_best, slice_med) = best_and_median(
        || drop(reduce_file(&utf8, ResultSource::File, &ctx()).unwrap()),
        7,
    );
    let (reader_best, reader_med) = best_and_median(|| reduce_reader(&path), 3);
    println!(
        "reduce: reduce_file (read + from_slice)  best {slice_best:8.1} ms  median {slice_med:8.1} ms"
    );
    println!(
        "reduce: BufReader + from_reader          best {reader_best:8.1} ms  median {reader_med:8.1} ms"
    );

    let slice_peak: f64 = child_peak("--child-slice", &path)
        .parse()
        .unwrap_or(f64::NAN);
    let reader_peak: f64 = child_peak("--child-reader", &path)
        .parse()
        .unwrap_or(f64::NAN);
    println!(
        "reduce: peak RSS (child process) reduce_file {slice_peak} kB, BufReader {reader_peak} kB"
    );
    let mem_ratio = slice_peak * 1024.0 / size as f64;
    println!(
        "RESULT reduce peak memory / file size: {mem_ratio:.2} ({:.1} MB / {:.1} MB; target <= 3) {}",
        slice_peak / 1024.0,
        size as f64 / 1048576.0,
        if mem_ratio <= 3.0 { "PASS" } else { "MISS" }
    );

    let jq = Command::new("jq")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if jq.is_ok_and(|s| s.success()) {
        let (jq_best, jq_med) = best_and_median(
            || {
                let s = Command::new("sh")
                    .args(["-c", &format!("jq -c . '{}' > /dev/null", path.display())])
                    .status()
                    .unwrap();
                assert!(s.success());
            },
            3,
        );
        println!(
            "reduce: jq -c . FILE > /dev/null        best {jq_best:8.1} ms  median {jq_med:8.1} ms"
        );
        let ratio = jq_med / slice_med;
        println!(
            "RESULT reduce speed, jq -c . time / bob-eval reduce time: {ratio:.2} ({jq_med:.0} ms / {slice_med:.0} ms, medians; target > 1) {}",
            if ratio > 1.0 { "PASS" } else { "MISS" }
        );
        let peak = Command::new("/usr/bin/time")
            .args(["-f", "%M", "jq", "-c", ".", path.to_str().unwrap()])
            .stdout(Stdio::null())
            .output();
        match peak {
            Ok(out) => println!(
                "reduce: peak RSS jq {} kB",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            Err(_) => println!("reduce: /usr/bin/time not available; no jq peak memory"),
        }
    } else {
        println!("reduce: jq not installed (apt-get install -y jq); no jq comparison");
        println!(
            "RESULT reduce speed, jq -c . time / bob-eval reduce time: n/a (no jq; target > 1) MISS"
        );
    }
}
