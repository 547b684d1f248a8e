//! What the Rhai host adds over `run`: engine start, compiling and running
//! `pipelines/exam.rhai` on top of the same evaluation, versus the evaluation
//! alone (`eval::evaluate` with a recorded platform document, so no platform
//! runs and the difference is the host). Also the same as whole processes
//! (`bob-eval exam` vs `bob-eval run`). `cargo bench --bench engine`.

use bob_eval::config::Context;
use bob_eval::eval::EvalOptions;
use bob_eval::event::Silent;
use bob_eval::script::{Host, PipelineOptions, engine};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/pipelines/aggregate-result.json"
);
const SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/real-source");
const ROUNDS: u32 = 200;
const PROCESS_ROUNDS: u32 = 30;

fn mean(total: Duration, n: u32) -> f64 {
    total.as_secs_f64() * 1000.0 / f64::from(n)
}

fn main() {
    let home = tempfile::tempdir().unwrap();
    let ctx = Context {
        source: SOURCE.into(),
        home: home.path().to_str().unwrap().into(),
        env: Default::default(),
    };
    let args = EvalOptions {
        platform_result: Some(FIXTURE.into()),
        ..EvalOptions::default()
    };

    let mut run_alone = Duration::ZERO;
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let doc =
            bob_eval::eval::evaluate(&ctx, &"commit".parse().unwrap(), &args, Arc::new(Silent))
                .unwrap();
        run_alone += t.elapsed();
        let _ = std::hint::black_box(doc);
    }

    // exam.rhai as `bob-eval exam` runs it: a fresh engine, compile, run (its
    // two output lines go to stdout, as the CLI's do).
    let (_, path, text) = bob_eval::script::engine::EMBEDDED[0];
    let mut exam = Duration::ZERO;
    for _ in 0..ROUNDS {
        let options = PipelineOptions {
            item: Some("commit".into()),
            eval: args.clone(),
            json: false,
            ..PipelineOptions::default()
        };
        let t = Instant::now();
        let host = Arc::new(Host::new(
            ctx.clone(),
            options,
            Vec::new(),
            None,
            Arc::new(Silent),
        ));
        let engine = engine(host.clone());
        let ast = bob_eval::script::engine::compile(&engine, path, text).unwrap();
        let value = bob_eval::script::engine::run(&engine, &host, &ast).unwrap();
        exam += t.elapsed();
        let _ = std::hint::black_box(value);
    }
    let (alone, with_host) = (mean(run_alone, ROUNDS), mean(exam, ROUNDS));
    eprintln!();
    println!(
        "engine (in process, {ROUNDS} rounds): eval::evaluate {alone:.3} ms; engine + compile + exam.rhai {with_host:.3} ms; added {:.3} ms",
        with_host - alone
    );

    let bin = env!("CARGO_BIN_EXE_bob-eval");
    let time = |command: &str| -> f64 {
        let mut total = Duration::ZERO;
        for _ in 0..PROCESS_ROUNDS {
            let t = Instant::now();
            let status = Command::new(bin)
                .args(["--source", SOURCE, "--home"])
                .arg(home.path())
                .args([command, "commit", "--platform-result", FIXTURE])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            total += t.elapsed();
            assert!(status.success(), "{command} failed");
        }
        mean(total, PROCESS_ROUNDS)
    };
    let (run, exam) = (time("run"), time("exam"));
    println!(
        "engine (processes, {PROCESS_ROUNDS} rounds): bob-eval run {run:.2} ms; bob-eval exam {exam:.2} ms; added {:.2} ms",
        exam - run
    );
    println!(
        "RESULT engine + exam.rhai over run, as processes: {:.2} ms added (target: a few ms, <= 5 ms) {}",
        exam - run,
        if exam - run <= 5.0 { "PASS" } else { "MISS" }
    );
}
