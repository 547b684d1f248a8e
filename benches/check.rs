//! Benchmark: `check` over generated suites of 4 cases each. In process,
//! `check_suites` over 1,000 suites (median, cost per suite); as a process,
//! `bob-eval check` over 250 and over 1,000 suites: the growth (linear is
//! 4.0) and the 1,000-suite time as a multiple of `node -e 0`'s start.
//! In process too, over 250, 500, 1,000 and 2,000 suites: the CPU per suite
//! (user and system time of this process, from `/proc/self/stat`, so Linux
//! only) and whether it stays flat (linear).
//! Run with `cargo bench --bench check`.

/// The parts of tests/support this bench uses (see tests/support/README.md).
#[path = "../tests/support"]
mod support {
    pub mod cmd;
}

use bob_eval::check::check_suites;
use camino::Utf8PathBuf;
use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::cmd::bob;

const SUITES: usize = 1000;
const FEW: usize = 250;
const ITERATIONS: usize = 7;
/// Rounds of the process timings (each round: 250 suites, 1,000 suites, node).
const ROUNDS: usize = 11;
/// Growth from 250 to 1,000 suites called near-linear (linear is 4.0).
const NEAR_LINEAR: f64 = 5.0;
/// The 1,000-suite `check` as a multiple of `node -e 0`'s start (issue 22).
const NODE_TARGET: f64 = 6.5;

fn write(root: &Utf8PathBuf, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, text).expect("write");
}

fn generate(root: &Utf8PathBuf, suites: usize) {
    generate_named(root, suites, "item");
}

/// [`generate`] with items named `<prefix>-0000`, …: a tree whose patterns
/// no earlier check in this process has seen (`check` keeps each pattern's
/// compiled engine for the process).
fn generate_named(root: &Utf8PathBuf, suites: usize, prefix: &str) {
    for n in 0..suites {
        let item = format!("{prefix}-{n:04}");
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

/// One `bob-eval check` of the suites under `root`, as a process.
fn check_process(root: &Utf8PathBuf, home: &std::path::Path) -> Duration {
    let start = Instant::now();
    let status = bob(root.as_std_path(), home)
        .arg("check")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn bob-eval");
    let took = start.elapsed();
    assert!(status.success(), "check failed: {status}");
    took
}

/// CPU time (user + system) this process has used, from `/proc/self/stat`.
fn cpu_time() -> Option<Duration> {
    let stat = fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (in parentheses, which may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // The kernel reports in USER_HZ, 100 on Linux.
    Some(Duration::from_millis(ticks * 10))
}

/// In process, over trees of several sizes, each with items of its own: the
/// first run's wall and CPU (what one `bob-eval check` pays: no pattern seen
/// before) and the median of 5 runs (patterns compiled by the first), and
/// the first run's CPU per suite (flat when `check` is linear).
fn cpu_per_suite(tmp: &std::path::Path) {
    const RUNS: usize = 5;
    let mut per_suite = Vec::new();
    for n in [250usize, 500, 1000, 2000] {
        let root =
            Utf8PathBuf::from_path_buf(tmp.join(format!("cpu-{n}"))).expect("utf-8 temp path");
        generate_named(&root, n, &format!("s{n}"));
        let (mut wall, mut cpu) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let (start, before) = (Instant::now(), cpu_time());
            let report = check_suites(&root, &[]).expect("check");
            wall.push(start.elapsed());
            if let (Some(a), Some(b)) = (before, cpu_time()) {
                cpu.push(b.saturating_sub(a));
            }
            assert_eq!(report.suites.len(), n);
        }
        let (first_wall, first_cpu) = (wall[0], cpu.first().copied().unwrap_or_default());
        wall.sort();
        cpu.sort();
        let Some(cpu) = cpu.get(RUNS / 2).copied() else {
            println!("check_suites: CPU per suite n/a (no /proc/self/stat)");
            return;
        };
        let us = first_cpu.as_secs_f64() * 1e6 / n as f64;
        per_suite.push((n, us));
        println!(
            "check_suites: {n} suites in process: first run {:.1} ms wall, {:.1} ms CPU, {us:.0} µs CPU per suite; median of {RUNS} runs {:.1} ms wall, {:.1} ms CPU",
            first_wall.as_secs_f64() * 1e3,
            first_cpu.as_secs_f64() * 1e3,
            wall[RUNS / 2].as_secs_f64() * 1e3,
            cpu.as_secs_f64() * 1e3
        );
    }
    let at_1000 = per_suite
        .iter()
        .find(|(n, _)| *n == 1000)
        .map_or(f64::NAN, |p| p.1);
    println!(
        "RESULT check CPU per suite, 1,000 suites in process, first run: {at_1000:.0} µs (target <= 250 µs) {}",
        if at_1000 <= 250.0 { "PASS" } else { "MISS" }
    );
    let (lo, hi) = per_suite
        .iter()
        .fold((f64::MAX, 0f64), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    println!(
        "RESULT check CPU per suite from 250 to 2,000 suites: {lo:.0} to {hi:.0} µs, {:.2}x (flat is 1.0; target <= 1.5) {}",
        hi / lo,
        if hi / lo <= 1.5 { "PASS" } else { "MISS" }
    );
}

fn main() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = Utf8PathBuf::from_path_buf(tmp.path().join("big")).expect("utf-8 temp path");
    let few = Utf8PathBuf::from_path_buf(tmp.path().join("few")).expect("utf-8 temp path");
    generate(&root, SUITES);
    generate(&few, FEW);
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
    let median_in = times[ITERATIONS / 2];
    println!(
        "check_suites: {SUITES} suites x 4 cases: median {:.1} ms over {ITERATIONS} runs (min {:.1} ms, max {:.1} ms), {:.1} µs per suite",
        median_in.as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        times[ITERATIONS - 1].as_secs_f64() * 1e3,
        median_in.as_secs_f64() * 1e6 / SUITES as f64
    );
    let secs = median_in.as_secs_f64();
    cpu_per_suite(tmp.path());
    println!(
        "RESULT check of {SUITES} suites x 4 cases: {secs:.3} s (target <= 0.5 s) {}",
        if secs <= 0.5 { "PASS" } else { "MISS" }
    );

    // The three processes timed in turn, round after round, so that the
    // ratio to `node -e 0` is taken at the same moments: another build
    // starting between two separate series would move it either way.
    let home = tmp.path().join("home");
    let node_start = || -> Option<Duration> {
        let start = Instant::now();
        match Command::new("node")
            .args(["-e", "0"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        {
            Ok(s) if s.success() => Some(start.elapsed()),
            _ => None,
        }
    };
    check_process(&few, &home);
    check_process(&root, &home);
    let _ = node_start();
    let (mut few_t, mut all_t, mut node_t, mut ratios) = (vec![], vec![], vec![], vec![]);
    for _ in 0..ROUNDS {
        few_t.push(check_process(&few, &home));
        let all = check_process(&root, &home);
        all_t.push(all);
        if let Some(node) = node_start() {
            node_t.push(node);
            ratios.push(all.as_secs_f64() / node.as_secs_f64());
        }
    }
    let ms = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1e3
    };
    let (few_ms, all_ms) = (ms(few_t), ms(all_t));
    let growth = all_ms / few_ms;
    println!(
        "check_suites: bob-eval check, {FEW} suites median {few_ms:.1} ms, {SUITES} suites median {all_ms:.1} ms over {ROUNDS} rounds"
    );
    println!(
        "RESULT check growth {FEW} -> {SUITES} suites: {growth:.2}x (linear 4.0; target <= {NEAR_LINEAR}) {}",
        if growth <= NEAR_LINEAR {
            "PASS"
        } else {
            "MISS"
        }
    );
    if node_t.is_empty() {
        println!(
            "RESULT check of {SUITES} suites / node start: n/a (node not found; target <= {NODE_TARGET}) MISS"
        );
    } else {
        let node_ms = ms(node_t);
        ratios.sort_by(f64::total_cmp);
        let ratio = ratios[ratios.len() / 2];
        println!(
            "check_suites: node -e 0 median {node_ms:.1} ms; per-round ratios {:.2}x to {:.2}x",
            ratios[0],
            ratios[ratios.len() - 1]
        );
        println!(
            "RESULT check of {SUITES} suites / node start: {ratio:.2}x (median of {} rounds, each timing both in turn; medians {all_ms:.1} ms / {node_ms:.1} ms; target <= {NODE_TARGET}) {}",
            ratios.len(),
            if ratio <= NODE_TARGET { "PASS" } else { "MISS" }
        );
    }
}
