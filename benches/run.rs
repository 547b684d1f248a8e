//! `bob-eval run` against an instant stub platform, vs the stub alone (the
//! ratio is the harness's own overhead) and vs `node -e 0` (for scale).
//! Run with `cargo bench --bench run`.

/// The parts of tests/support this bench uses (see tests/support/README.md).
#[path = "../tests/support"]
mod support {
    pub mod cmd;
    pub use bob_eval_testkit::data;
    pub use bob_eval_testkit::stub;
}

use support::cmd::bob;
use support::data::data;
use support::stub::{Stub, Switches};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ITERATIONS: usize = 41;

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
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let source = data("source");

    let bob_ms = median(time(|| {
        let mut c = bob(&source, home.path());
        c.current_dir(work.path())
            .args(["run", "commit", "--claude"])
            .arg(&stub.bin)
            .arg("--out")
            .arg(work.path().join("out.json"));
        c
    }));

    // The stub alone, doing the same work: called directly (no wrapping shell),
    // once for --version and once for the eval, with a fresh output folder each
    // time, exactly as bob-eval calls it: with the arguments bob-eval passed
    // (the stub recorded them), on a plugin made here like bob-eval's.
    let plugin = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(plugin.path().join(".claude-plugin")).unwrap();
    std::fs::write(
        plugin.path().join(".claude-plugin/plugin.json"),
        "{\n  \"description\": \"bob-eval: the commit skill and its eval suite\",\n  \"name\": \"bob-eval-commit\",\n  \"version\": \"0.0.0\"\n}\n",
    )
    .unwrap();
    // The item link too: the stub looks at it (and runs `readlink`) in both arms.
    std::fs::create_dir_all(plugin.path().join("skills")).unwrap();
    std::os::unix::fs::symlink(
        source.join("skills/commit"),
        plugin.path().join("skills/commit"),
    )
    .unwrap();
    let p = plugin.path().to_str().unwrap().to_string();
    let work_dir = format!("{p}/.bob-eval");
    let recorded = stub.record("argv").expect("bob-eval ran the stub");
    let mut eval_args: Vec<String> = recorded.lines().map(str::to_string).collect();
    let bob_plugin = eval_args[2].clone();
    for arg in &mut eval_args {
        if let Some(rest) = arg.strip_prefix(&bob_plugin) {
            *arg = format!("{p}{rest}");
        }
    }
    assert!(
        eval_args.contains(&format!("{work_dir}/out")),
        "the output folder is inside the plugin: {eval_args:?}"
    );
    let run_stub = || {
        let _ = std::fs::remove_dir_all(&work_dir);
        std::fs::create_dir_all(&work_dir).unwrap();
        let start = Instant::now();
        let version = Command::new(&stub.bin)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .expect("spawn");
        assert!(version.status.success());
        let status = Command::new(&stub.bin)
            .args(&eval_args)
            .current_dir(work.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("spawn");
        assert!(status.success(), "{status}");
        start.elapsed()
    };
    for _ in 0..3 {
        run_stub();
    }
    let stub_ms = median((0..ITERATIONS).map(|_| run_stub()).collect());
    let overhead = bob_ms - stub_ms;

    println!("run: bob-eval run (stub platform)      median {bob_ms:8.2} ms over {ITERATIONS}");
    println!("run: stub alone (--version + eval)     median {stub_ms:8.2} ms over {ITERATIONS}");
    println!(
        "run: harness overhead                  {overhead:8.2} ms; ratio bob-eval / stub = {:.2}",
        bob_ms / stub_ms
    );
    if which("node") {
        let node_ms = median(time(|| {
            let mut c = Command::new("node");
            c.args(["-e", "0"]);
            c
        }));
        let ratio = overhead / node_ms;
        println!("run: node -e 0                         median {node_ms:8.2} ms");
        println!(
            "RESULT run overhead / node start: {ratio:.3} ({overhead:.2} ms / {node_ms:.2} ms; target <= 0.1) {}",
            if ratio <= 0.1 { "PASS" } else { "MISS" }
        );
    } else {
        println!("RESULT run overhead / node start: n/a (node not found; target <= 0.1) MISS");
    }
}

fn which(name: &str) -> bool {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .any(|d| Path::new(d).join(name).is_file())
}
