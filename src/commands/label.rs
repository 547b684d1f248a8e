//! `bob-eval label ITEM`: a person's PASS/FAIL on stored runs of the item's
//! judged graders, in a terminal or through a file (`--export`, `--import`),
//! saved beside each grader as `graders/<grader>.labels.json`; and how many
//! labels calibration still needs (`--dry-run`). See docs/judges.md.

use super::args::ArmArg;
use crate::config::{Context, ItemName};
use crate::error::exit::Conclusion;
use crate::error::{Error, Result};
use crate::evidence::{Arm, Store};
use crate::ops::label::{self, Candidate, Filter, Pool};
use crate::report::label as words;
use crate::suite::labels::LabelVerdict;
use camino::Utf8PathBuf;
use clap::Args;
use serde_json::json;
use std::io::{BufRead, IsTerminal, Write};

/// `label`.
#[derive(Debug, Args)]
#[command(after_help = "\
Shows a stored run of an llm (or baseline) grader: the criterion and what the \
judge saw, never the judge's verdict, and asks PASS or FAIL; the judge's verdict \
is shown once you answer. Each answer is saved at once in \
evals/<item>/<case>/graders/<grader>.labels.json (commit it: the team shares \
its labels, and an edited criterion makes them stale). Runs come in turn from \
four groups per grader, arm (with, without) × the judge's verdict (pass, fail), \
so both kinds of judge error are sampled. Runs already labelled for the current \
criterion are skipped. Only runs stored with what the judge saw can be labelled.

Examples:
  bob-eval label commit                             label in the terminal
  bob-eval label commit --grader why --count 20     twenty runs of one grader
  bob-eval label commit --export batch.jsonl        a batch to fill in (human: pass|fail)
  bob-eval label commit --import batch.jsonl        read it back
  bob-eval label commit --dry-run                   labels so far, and how many more calibration needs")]
pub struct LabelArgs {
    /// The item whose graders to label
    #[arg(value_name = "ITEM")]
    pub item: String,
    /// Only this case
    #[arg(long, value_name = "NAME")]
    pub case: Option<String>,
    /// Only this grader
    #[arg(long, value_name = "NAME")]
    pub grader: Option<String>,
    /// Only runs of this arm
    #[arg(long, value_enum, value_name = "ARM")]
    pub arm: Option<ArmArg>,
    /// At most N runs (terminal or export) [default: every unlabelled run]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub count: Option<u32>,
    /// Write a batch to fill in (JSON Lines: set each `human` to pass or fail) and stop
    #[arg(long, value_name = "FILE", value_parser = super::path_arg, conflicts_with_all = ["import", "dry_run"])]
    pub export: Option<Utf8PathBuf>,
    /// Read a filled-in batch back into the labels files (blank `human`: skipped)
    #[arg(long, value_name = "FILE", value_parser = super::path_arg, conflicts_with = "dry_run")]
    pub import: Option<Utf8PathBuf>,
    /// Label nothing: say what each grader has and how many more labels calibration needs
    #[arg(long)]
    pub dry_run: bool,
    /// Who gives the labels (kept in each label's `by`)
    #[arg(long, value_name = "NAME")]
    pub by: Option<String>,
    /// Print the outcome as JSON on stdout (--export, --import, --dry-run)
    #[arg(long)]
    pub json: bool,
    /// The evidence store [default: $BOB_EVIDENCE, else <home>/evidence.db]
    #[arg(long, value_name = "PATH", value_parser = super::path_arg)]
    pub evidence: Option<Utf8PathBuf>,
}

/// Gather the runs, then label them as the flags say.
pub fn exec(ctx: &Context, args: &LabelArgs) -> Result<Conclusion<'static>> {
    let item = ItemName::new(&args.item)?;
    let interactive = args.export.is_none() && args.import.is_none() && !args.dry_run;
    if interactive && args.json {
        return Err(Error::Usage(
            "--json goes with --export, --import or --dry-run: labelling in the terminal prints for a person".into(),
        ));
    }
    if let Some(path) = &args.export {
        crate::fsio::check_writable(path)?;
    }
    let suite = crate::suite::load(&ctx.source, &item)?;
    let path = Store::default_path(args.evidence.as_deref(), ctx);
    let store = super::evidence::open_existing(&path)?;
    let filter = Filter {
        case: args.case.clone(),
        grader: args.grader.clone(),
        arm: args.arm.map(|a| match a {
            ArmArg::With => Arm::With,
            ArmArg::Without => Arm::Without,
        }),
    };
    refuse_unknown(&suite, &filter)?;
    if let Some(file) = &args.import {
        // Every entry of the batch is looked up, whatever the filter.
        let pool = label::gather(&suite, &store, &Filter::default())?;
        return import(args, item.as_str(), pool, file);
    }
    let pool = label::gather(&suite, &store, &filter)?;
    let batch: Vec<Candidate> = pool
        .todo
        .iter()
        .take(args.count.map_or(usize::MAX, |n| n as usize))
        .cloned()
        .collect();
    if let Some(file) = &args.export {
        return export(args, item.as_str(), &pool, &batch, file);
    }
    if args.dry_run {
        return report(args, &pool, json!({"mode": "dry-run"}));
    }
    interact(args, pool, batch)
}

/// A `--case` or `--grader` that names nothing is a typo, not an empty batch.
fn refuse_unknown(suite: &crate::suite::Suite, filter: &Filter) -> Result<()> {
    if let Some(case) = &filter.case
        && !suite.cases.iter().any(|c| c.name == *case)
    {
        let names: Vec<&str> = suite.cases.iter().map(|c| c.name.as_str()).collect();
        return Err(Error::Usage(format!(
            "no case {case:?} in {}: its cases are {}",
            suite.dir,
            names.join(", ")
        )));
    }
    if let Some(grader) = &filter.grader {
        let judged: Vec<&str> = suite
            .cases
            .iter()
            .filter(|c| filter.case.as_ref().is_none_or(|n| *n == c.name))
            .flat_map(|c| &c.graders)
            .filter(|g| g.kind().is_some_and(|k| k.asks_judge()))
            .map(|g| g.name.as_str())
            .collect();
        if !judged.contains(&grader.as_str()) {
            return Err(Error::Usage(format!(
                "no llm or baseline grader {grader:?} here: the judged graders are {}",
                if judged.is_empty() {
                    "none".to_owned()
                } else {
                    judged.join(", ")
                }
            )));
        }
    }
    Ok(())
}

fn export(
    args: &LabelArgs,
    item: &str,
    pool: &Pool,
    batch: &[Candidate],
    file: &Utf8PathBuf,
) -> Result<Conclusion<'static>> {
    let entries = label::export_entries(item, batch);
    let mut text = String::new();
    for e in &entries {
        text.push_str(&serde_json::to_string(e).expect("an entry serializes"));
        text.push('\n');
    }
    crate::fsio::write_atomically(file, text.as_bytes())?;
    if !args.json {
        eprint!("{}", words::notes(pool));
        eprintln!(
            "bob-eval: wrote {} run(s) to label to {file}: set each `human` to pass or fail (blank skips it), then `bob-eval label {item} --import {file}`",
            entries.len()
        );
    }
    report(
        args,
        pool,
        json!({"mode": "export", "file": file, "exported": entries.len()}),
    )
}

fn import(
    args: &LabelArgs,
    item: &str,
    pool: Pool,
    file: &Utf8PathBuf,
) -> Result<Conclusion<'static>> {
    let answers = label::read_entries(file, item)?;
    let done = label::import(pool, file, answers, args.by.as_deref(), chrono::Utc::now())?;
    if !args.json {
        eprint!("{}", words::imported(&done.report));
    }
    let report_json = serde_json::to_value(&done.report).expect("a report serializes");
    report(
        args,
        &done.pool,
        json!({"mode": "import", "import": report_json}),
    )
}

/// Each grader's status: words on stdout, or `head` and the status as JSON.
fn report(
    args: &LabelArgs,
    pool: &Pool,
    mut head: serde_json::Value,
) -> Result<Conclusion<'static>> {
    let rows = label::status(pool);
    if args.json {
        head["item"] = json!(args.item);
        head["graders"] = serde_json::to_value(&rows).expect("statuses serialize");
        head["no_evidence"] = json!(pool.no_evidence);
        head["other_version"] = json!(pool.other_version);
        head["stale"] = json!(pool.stale());
        head["unnamed"] = json!(pool.unnamed);
        head["threshold"] = json!(label::THRESHOLD);
        head["confidence"] = json!(label::CONFIDENCE);
        head["seconds_per_label"] = json!(label::SECONDS_PER_LABEL);
        super::print(&super::json(&head))?;
    } else {
        if head["mode"] == "dry-run" {
            eprint!("{}", words::notes(pool));
        }
        super::print(&words::status(&rows))?;
    }
    Ok(Conclusion::Done)
}

/// What a person typed.
enum Reply {
    Answer(LabelVerdict),
    Skip,
    Quit,
}

fn parse_reply(line: &str) -> Option<Reply> {
    match line.trim().to_ascii_lowercase().as_str() {
        "p" | "pass" => Some(Reply::Answer(LabelVerdict::Pass)),
        "f" | "fail" => Some(Reply::Answer(LabelVerdict::Fail)),
        "s" | "skip" => Some(Reply::Skip),
        "q" | "quit" => Some(Reply::Quit),
        _ => None,
    }
}

fn interact(
    args: &LabelArgs,
    mut pool: Pool,
    batch: Vec<Candidate>,
) -> Result<Conclusion<'static>> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(Error::Usage(format!(
            "labelling in the terminal needs one: use `bob-eval label {0} --export FILE`, fill it in, then `bob-eval label {0} --import FILE`",
            args.item
        )));
    }
    eprint!("{}", words::notes(&pool));
    let total = batch.len();
    if total == 0 {
        eprintln!(
            "bob-eval: nothing to label: every run with evidence is labelled for the current criterion"
        );
    }
    let mut input = stdin.lock();
    let mut quit = false;
    for (i, candidate) in batch.iter().enumerate() {
        eprint!("{}", words::prompt(candidate, i + 1, total));
        let reply = loop {
            eprint!("{}", words::QUESTION);
            let _ = std::io::stderr().flush();
            let mut line = String::new();
            let read = input
                .read_line(&mut line)
                .map_err(|e| Error::io("<stdin>", "reading", e))?;
            if read == 0 {
                break Reply::Quit;
            }
            match parse_reply(&line) {
                Some(reply) => break reply,
                None => eprintln!("answer p (pass), f (fail), s (skip) or q (quit)"),
            }
        };
        match reply {
            Reply::Answer(human) => {
                let grader = pool
                    .graders
                    .iter_mut()
                    .find(|g| g.case == candidate.case && g.grader == candidate.grader)
                    .expect("a candidate's grader is in the pool");
                let answered = label::answer(
                    grader,
                    candidate,
                    human,
                    args.by.as_deref(),
                    chrono::Utc::now(),
                )?;
                pool.todo.retain(|c| c.entry != candidate.entry);
                eprint!("{}", words::revealed(human, candidate.judge, &answered));
            }
            Reply::Skip => {}
            Reply::Quit => {
                quit = true;
                break;
            }
        }
    }
    if quit {
        eprintln!(
            "bob-eval: stopped; every answer so far is saved (run `bob-eval label {}` again to go on)",
            args.item
        );
    }
    super::print(&words::status(&label::status(&pool)))?;
    Ok(Conclusion::Done)
}
