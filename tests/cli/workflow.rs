//! `.github/workflows/evals.yml`, the nightly sharded sweep: its triggers,
//! its matrix, and every `bob-eval` command it runs, parsed by the real
//! command line (`Cli::try_parse_from`) for each shard of the matrix.

use bob_eval::commands::{Cli, Command};
use clap::Parser;
use serde_norway::Value;

fn workflow() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/.github/workflows/evals.yml");
    let text = std::fs::read_to_string(path).expect("the workflow is in the repository");
    serde_norway::from_str(&text).expect("the workflow is YAML")
}

/// The steps of a job.
fn steps<'a>(wf: &'a Value, job: &str) -> &'a [Value] {
    wf["jobs"][job]["steps"]
        .as_sequence()
        .unwrap_or_else(|| panic!("job {job} has steps"))
}

/// The `bob-eval` command lines of a job's `run:` scripts, with `${{ matrix.shard }}` as `shard`.
fn commands(wf: &Value, job: &str, shard: &str) -> Vec<Vec<String>> {
    steps(wf, job)
        .iter()
        .filter_map(|s| s["run"].as_str())
        .flat_map(|script| {
            script
                .replace("\\\n", " ")
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .map(|line| line.replace("${{ matrix.shard }}", shard))
        .filter(|line| line.trim_start().starts_with("bob-eval "))
        .map(|line| {
            assert!(!line.contains("${{"), "an expression left in {line:?}");
            line.split_whitespace().map(str::to_string).collect()
        })
        .collect()
}

fn uses<'a>(wf: &'a Value, job: &str) -> Vec<&'a str> {
    steps(wf, job)
        .iter()
        .filter_map(|s| s["uses"].as_str())
        .collect()
}

#[test]
fn the_workflow_runs_nightly_and_by_hand() {
    let wf = workflow();
    let on = &wf["on"];
    assert!(on.get("workflow_dispatch").is_some(), "{on:?}");
    let cron = on["schedule"][0]["cron"]
        .as_str()
        .expect("a nightly schedule");
    assert_eq!(cron.split_whitespace().count(), 5, "{cron}");
}

#[test]
fn every_shard_sweeps_its_part_and_collect_gets_every_folder() {
    let wf = workflow();
    let matrix: Vec<String> = wf["jobs"]["shard"]["strategy"]["matrix"]["shard"]
        .as_sequence()
        .expect("a matrix over the shards")
        .iter()
        .map(|v| v.as_u64().expect("shard numbers").to_string())
        .collect();
    let n = matrix.len();
    assert!(n > 1, "{matrix:?}");
    assert_eq!(matrix, (1..=n).map(|k| k.to_string()).collect::<Vec<_>>());
    let setup = steps(&wf, "shard")
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        setup.contains("scripts/install-claude.sh"),
        "the shards install the platform"
    );
    for k in &matrix {
        let lines = commands(&wf, "shard", k);
        assert_eq!(lines.len(), 1, "one sweep per shard: {lines:?}");
        let cli = Cli::try_parse_from(&lines[0]).unwrap_or_else(|e| panic!("{:?}: {e}", lines[0]));
        let Command::Sweep(args) = cli.command else {
            panic!("the shard job sweeps: {:?}", lines[0]);
        };
        let shard = args.shard.expect("--shard");
        assert_eq!(
            (shard.index.to_string(), shard.count as usize),
            (k.clone(), n)
        );
        assert_eq!(
            args.out_dir.as_deref().map(|p| p.as_str()),
            Some(&*format!("shard-{k}"))
        );
    }
    let upload = steps(&wf, "shard")
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .expect("the shard's folder is uploaded");
    assert_eq!(
        upload["with"]["path"].as_str(),
        Some("shard-${{ matrix.shard }}")
    );
    assert_eq!(
        upload["with"]["name"].as_str(),
        Some("shard-${{ matrix.shard }}")
    );

    let lines = commands(&wf, "collect", "");
    assert_eq!(lines.len(), 1, "one collect: {lines:?}");
    let cli = Cli::try_parse_from(&lines[0]).unwrap_or_else(|e| panic!("{:?}: {e}", lines[0]));
    let Command::Collect(args) = cli.command else {
        panic!("the collect job collects: {:?}", lines[0]);
    };
    let dirs: Vec<&str> = args.dirs.iter().map(|d| d.as_str()).collect();
    let expected: Vec<String> = matrix.iter().map(|k| format!("shards/shard-{k}")).collect();
    assert_eq!(dirs, expected);
    assert!(
        uses(&wf, "collect")
            .iter()
            .any(|u| u.starts_with("actions/download-artifact@"))
    );
}

#[test]
fn the_evidence_store_is_carried_between_nights() {
    let wf = workflow();
    let store = wf["env"]["BOB_EVIDENCE"]
        .as_str()
        .expect("BOB_EVIDENCE for every job");
    for job in ["shard", "collect"] {
        let restore = steps(&wf, job)
            .iter()
            .find(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/cache/restore@"))
            })
            .unwrap_or_else(|| panic!("{job} restores the store"));
        let path = restore["with"]["path"].as_str().unwrap();
        assert!(
            store.contains(&format!("/{path}/")),
            "{store} lies in the cached {path}"
        );
        assert!(
            restore["with"]["restore-keys"].as_str().is_some(),
            "last night's store"
        );
    }
    let saved = uses(&wf, "collect");
    assert!(
        saved.iter().any(|u| u.starts_with("actions/cache/save@")),
        "{saved:?}"
    );
}
