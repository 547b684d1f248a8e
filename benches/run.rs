//! `bob-eval run` against an instant stub platform, vs the stub alone (the
//! ratio is the harness's own overhead) and vs `node -e 0` (for scale).
//! Run with `cargo bench --bench run`.

#[path = "../tests/stub/mod.rs"]
mod stub;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ITERATIONS: usize = 30;

fn time(mut make: impl FnMut() -> Command) -> Vec<Duration> {
    for _ in 0..3 {
        let status = make()
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("spawn");
        assert!(status.success(), "warm-up failed: {status}");
    }
    (0..ITERATIONS)
        .map(|_| {
            let start = Instant::now();
            let status = make()
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("spawn");
            let took = start.elapsed();
            assert!(status.success(), "{status}");
            took
        })
        .collect()
}

fn median(mut xs: Vec<Duration>) -> f64 {
    xs.sort();
    xs[xs.len() / 2].as_secs_f64() * 1000.0
}

fn main() {
    let bob = env!("CARGO_BIN_EXE_bob-eval");
    let stub = stub::Stub::new();
    stub.fixture(&stub::data("platform/run1_main.json"));
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let source = stub::data("source");

    let bob_ms = median(time(|| {
        let mut c = Command::new(bob);
        c.current_dir(work.path())
            .env_remove("ANTHROPIC_MODEL")
            .arg("--source")
            .arg(&source)
            .arg("--home")
            .arg(home.path())
            .args(["run", "commit", "--claude"])
            .arg(&stub.bin)
            .arg("--out")
            .arg(work.path().join("out.json"));
        c
    }));

    // The stub alone, called as bob-eval calls it: once for --version, once for the eval.
    let plugin = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(plugin.path().join(".claude-plugin")).unwrap();
    std::fs::write(plugin.path().join(".claude-plugin/plugin.json"), "{}").unwrap();
    let p = plugin.path().to_str().unwrap().to_string();
    let out_dir = format!("{p}/.bob-eval/out");
    let eval_args = [
        "plugin",
        "eval",
        &p,
        "--ablation",
        "with-without",
        "--output-dir",
        &out_dir,
        "--threshold",
        "0",
        "--max-cost-usd",
        "2",
        "--trust-plugin",
        "--no-publish",
    ];
    let stub_ms = median(time(|| {
        let mut c = Command::new("sh");
        let script = format!(
            "{bin} --version >/dev/null && {bin} {args}",
            bin = stub.bin.display(),
            args = eval_args
                .iter()
                .map(|a| format!("'{a}'"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        c.args(["-c", &script]).current_dir(work.path());
        c
    }));
    let sh_ms = median(time(|| {
        let mut c = Command::new("sh");
        c.args(["-c", "true"]);
        c
    }));

    println!("run: bob-eval run (stub platform)      median {bob_ms:8.2} ms over {ITERATIONS}");
    println!(
        "run: stub alone (--version + eval)     median {stub_ms:8.2} ms (incl. {sh_ms:.2} ms for the wrapping sh)"
    );
    println!(
        "run: harness overhead                  {:8.2} ms; ratio bob-eval / stub = {:.2}",
        bob_ms - stub_ms + sh_ms,
        bob_ms / (stub_ms - sh_ms).max(0.001)
    );
    if Path::new("/usr/bin/node").exists() || which("node") {
        let node_ms = median(time(|| {
            let mut c = Command::new("node");
            c.args(["-e", "0"]);
            c
        }));
        println!(
            "run: node -e 0                         median {node_ms:8.2} ms; ratio bob-eval / node = {:.2}",
            bob_ms / node_ms
        );
    } else {
        println!("run: node not found; no node comparison");
    }
}

fn which(name: &str) -> bool {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .any(|d| Path::new(d).join(name).is_file())
}
