//! The command line: one file per subcommand, each with its clap arguments
//! and an `exec` that parses nothing further, calls the library and renders.
//! Only this layer (and `main.rs`) knows clap, and only it prints.

pub mod args;
pub mod check;
pub mod check_wiki;
pub mod collect;
pub mod compare;
pub mod completions;
pub mod evidence;
pub mod exam;
pub mod gate;
pub mod history;
pub mod init;
pub mod label;
pub mod progress;
pub mod propose;
pub mod run;
pub mod script;
pub mod show;
pub mod sweep;

use crate::config::{Context, Environment};
use crate::error::exit::Conclusion;
use crate::error::{Error, Result, Warning};
use camino::Utf8PathBuf;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;

/// Prove that a change to a Claude Code skill really helps.
///
/// bob-eval checks eval suites (evals/<item>/), runs `claude plugin eval` on each
/// case with the item loaded and without it under a mandatory cost ceiling,
/// reduces the outcome to a small skill-eval/1 document, gates a proposed change
/// against the best score recorded for the model, and records it in
/// baseline.json and wiki/skill-impact.md.
///
/// Exit codes: 0 done (gate: accepted) · 1 gate rejected, check found problems,
/// sweep could not run a suite · 2 usage or invalid input · 3 could not run
/// (platform missing, too old or failed; item did not load) · 4 sweep
/// incomplete (--max-total-usd left suites unlaunched) · 130 interrupted.
#[derive(Debug, Parser)]
#[command(
    name = "bob-eval",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Source tree holding evals/, skills/, commands/, agents/, registry/ and wiki/
    /// [default: $BOB_SOURCE, else the current directory]
    #[arg(long, global = true, value_name = "DIR", value_parser = path_arg)]
    pub source: Option<Utf8PathBuf>,

    /// Operator home holding settings.json [default: $BOB_HOME, else ~/.bob]
    #[arg(long, global = true, value_name = "DIR", value_parser = path_arg)]
    pub home: Option<Utf8PathBuf>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check eval suites before any money is spent.
    ///
    /// Finds what the platform would refuse (unknown keys, bad types, out-of-range
    /// runs, env keys, paths escaping the case), the traps it silently accepts
    /// (grader files without frontmatter, unknown case.yaml keys, regexes
    /// JavaScript would not compile, a `tool:` naming a skill, a grader on a file
    /// no allowed tool can write, …) and a missing or loose trigger pair.
    /// `--plugin DIR` checks a plugin's own `claude plugin eval` suites in the
    /// platform's layout instead.
    ///
    /// Example: bob-eval check commit --json
    /// Example: bob-eval check --plugin ./my-plugin
    Check(check::CheckArgs),
    /// Run an item's suite with and without the item and print a skill-eval/1 document.
    ///
    /// Before buying, the first line says what a decision costs from this
    /// store's own cost per run ("detecting +0.20 at 80 % power: about $X,
    /// at most $Y"; `--dry-run` says it and buys nothing). The summary goes
    /// to stderr; a delta within noise says it may be luck and ends with the
    /// command that settles it ("next: settle it on more runs: …").
    ///
    /// Example: bob-eval run commit --model haiku --runs 1 --max-cost-usd 0.2 --out /tmp/commit.json
    Run(run::RunArgs),
    /// Decide whether a result beats the best recorded for its model; optionally record it.
    ///
    /// Example: bob-eval gate commit /tmp/commit.json --record --pr '#4300' --pages commit-skipped-hook
    Gate(gate::GateArgs),
    /// Start a suite: evals/ITEM/ with the trigger pair, a scoring case to fill in and baseline.json.
    ///
    /// Never overwrites anything; the scoring case's TODO placeholders fail
    /// `check` until filled. --bare CASE adds one blank case to an existing suite.
    ///
    /// Example: bob-eval init commit
    Init(init::InitArgs),
    /// Check wiki/skill-impact.md: every row well-formed, every cited page present.
    CheckWiki(check_wiki::CheckWikiArgs),
    /// Examine an item before it is disposed: run its suite and say what it means (pipelines/exam.rhai).
    ///
    /// Example: bob-eval exam commit --runs 1 --max-cost-usd 0.2
    Exam(exam::ExamArgs),
    /// Validate a proposed edit: run, gate against the recorded best, record (pipelines/proposer.rhai).
    ///
    /// Example: bob-eval propose commit --pr '#4300' --pages commit-skipped-hook
    Propose(propose::ProposeArgs),
    /// Run every suite once and summarise the verdicts (pipelines/sweep.rhai; `make evals`).
    ///
    /// Skips unless EVALS=1. EVALS_MODEL sets the model, EVALS_MAX_COST_USD the
    /// per-suite ceiling (default 0.50). On a CI matrix, each of N jobs sweeps
    /// one shard into a folder and `collect` merges the folders.
    ///
    /// Exit codes: 0 every suite ran (whatever the verdicts) · 1 a suite could
    /// not run · 4 incomplete: --max-total-usd left suites unlaunched.
    ///
    /// Example: EVALS=1 bob-eval sweep --jobs 4
    ///
    /// Example: EVALS=1 bob-eval sweep --shard 2/4 --jobs 8 --out-dir shard-2 --max-total-usd 20
    Sweep(sweep::SweepArgs),
    /// Merge the folders of a sharded sweep: import their runs, print the sweep.
    ///
    /// Prints what the unsharded sweep prints (the table, --json, --format
    /// junit|markdown, $GITHUB_STEP_SUMMARY) and exits with its code. Refused,
    /// with nothing imported: a missing shard, a shard given twice, a suite two
    /// shards ran, folders written for another source tree (another suite list,
    /// or a case edited since it was measured).
    ///
    /// Example: bob-eval collect shard-1 shard-2 shard-3 shard-4 --format markdown
    Collect(collect::CollectArgs),
    /// Run an operator's own Rhai pipeline with the same primitives as exam and propose.
    ///
    /// Example: bob-eval script my-pipeline.rhai commit --runs 1
    Script(script::ScriptArgs),
    /// The runs kept in the evidence store: list them, export them, import another machine's.
    ///
    /// Example: bob-eval evidence list commit
    Evidence(evidence::EvidenceArgs),
    /// Each item's with, without, trigger rate and cost over time, with the gate's decisions.
    ///
    /// Example: bob-eval history commit --html history.html
    History(history::HistoryArgs),
    /// Label stored runs of an item's llm graders PASS or FAIL, to measure the judge.
    ///
    /// In a terminal, one run at a time (the judge's verdict shown after your
    /// answer), or through a file: --export a batch, fill it in, --import it.
    /// Labels are saved beside each grader (graders/<grader>.labels.json).
    ///
    /// Example: bob-eval label commit --export batch.jsonl
    Label(label::LabelArgs),
    /// Two evaluations case by case: scores with intervals, graders that changed, answers.
    ///
    /// A and B are each a skill-eval/1 file, a kept evaluation's run id, `best`,
    /// `last` or `last~N`; says when the two are not like for like.
    ///
    /// Example: bob-eval compare best last --format markdown
    Compare(compare::CompareArgs),
    /// One stored run as a person reads it: prompt, tool calls, answer, each grader's verdict.
    ///
    /// RUN is a run id; `show ITEM --case NAME [--arm without]` shows that
    /// case's last run. Runs bought before transcripts were kept say so.
    ///
    /// Example: bob-eval show commit --case fires --arm without
    Show(show::ShowArgs),
    /// Print shell completions.
    ///
    /// Example: bob-eval completions bash > ~/.local/share/bash-completion/completions/bob-eval
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff), subcommands included.
    ///
    /// Example: bob-eval man > bob-eval.1 && man ./bob-eval.1
    Man(completions::ManArgs),
}

/// Run a parsed command; `Ok` holds the exit code of a completed command.
pub fn dispatch(cli: Cli) -> Result<u8> {
    conclude(cli).map(|conclusion| crate::error::exit::code(&conclusion))
}

/// Run the command `cli` names: how it ended.
fn conclude(cli: Cli) -> Result<Conclusion<'static>> {
    let Cli {
        source,
        home,
        command,
    } = cli;
    // The one read of the process environment; the rest is handed it.
    let env = std::sync::Arc::new(Environment::from_process());
    // Resolved only by the commands that work on a source tree.
    let ctx = || Context::new(source.as_deref(), home.as_deref(), env.clone());
    match command {
        Command::Check(args) => check::exec(&ctx()?, &args),
        Command::Run(args) => run::exec(&ctx()?, &args),
        Command::Gate(args) => gate::exec(&ctx()?, &args),
        Command::CheckWiki(args) => check_wiki::exec(&ctx()?, &args),
        Command::Init(args) => init::exec(&ctx()?, &args),
        Command::Exam(args) => exam::exec(&ctx()?, &args),
        Command::Propose(args) => propose::exec(&ctx()?, &args),
        Command::Sweep(args) => sweep::exec(&ctx()?, &args),
        Command::Collect(args) => collect::exec(&ctx()?, &args),
        Command::Script(args) => script::exec(&ctx()?, &args),
        Command::Evidence(args) => evidence::exec(&ctx()?, &args),
        Command::History(args) => history::exec(&ctx()?, &args),
        Command::Label(args) => label::exec(&ctx()?, &args),
        Command::Compare(args) => compare::exec(&ctx()?, &args),
        Command::Show(args) => show::exec(&ctx()?, &args),
        Command::Completions(args) => completions::exec(&args),
        Command::Man(args) => completions::exec_man(&args),
    }
}

/// Write `text` to stdout. A reader that went away (`| head`) is
/// [`Error::BrokenPipe`], which the binary ends on quietly.
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                Error::BrokenPipe
            } else {
                Error::io("<stdout>", "writing", e)
            }
        })
}

/// `--format`: how a command prints its outcome on stdout (human text on
/// stderr, progress and warnings are the same in every format).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    /// Text for people
    #[default]
    Human,
    /// One JSON document (the same as --json)
    Json,
    /// JUnit XML for CI test reporters: a testsuite per item, a testcase per case or finding
    Junit,
    /// GitHub-flavoured Markdown tables for a pull request comment or a step summary
    Markdown,
}

impl Format {
    /// The name a pipeline reads as `options().format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Json => "json",
            Format::Junit => "junit",
            Format::Markdown => "markdown",
        }
    }
}

/// `--format FORMAT` and its alias `--json`, for `check`, `gate` and `sweep`.
#[derive(Debug, Clone, Args, Default)]
pub struct FormatArgs {
    /// What to print on stdout
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Human)]
    pub format: Format,
    /// The same as --format json
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

impl FormatArgs {
    /// The format asked for.
    pub fn format(&self) -> Format {
        if self.json { Format::Json } else { self.format }
    }
}

/// Append `markdown` to the file `$GITHUB_STEP_SUMMARY` names, when it is set
/// and not empty: created if missing, never truncated (GitHub Actions shows it
/// on the run's summary page). The path is the operator's (the CI's), never a
/// script's. A failure is a warning on stderr: the command's work is done.
/// Only a regular file is appended to ([`crate::fsio::append`]): a FIFO or
/// device there is the same warning, never waited on.
pub fn append_step_summary(ctx: &Context, markdown: &str) {
    let Some(path) = ctx
        .env
        .get_os("GITHUB_STEP_SUMMARY")
        .filter(|p| !p.is_empty())
    else {
        return;
    };
    let mut text = markdown.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let shown = std::path::Path::new(&path).display().to_string();
    let appended = match camino::Utf8Path::from_path(std::path::Path::new(&path)) {
        Some(path) => crate::fsio::append(path, text.as_bytes()),
        None => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the path is not UTF-8",
        )),
    };
    if let Err(e) = appended {
        warn(&[Warning::new(format!(
            "could not append the summary to $GITHUB_STEP_SUMMARY ({shown}): {e}"
        ))]);
    }
}

/// Print `warnings` on stderr, one [`Warning::line`] each: the one way a
/// command says a warning (progress shows its events' warnings as the same
/// lines).
pub fn warn(warnings: &[Warning]) {
    for warning in warnings {
        eprintln!("{}", warning.line());
    }
}

/// Every path argument's parser: an empty path is refused (`--out-dir ""`
/// would otherwise name the current folder and overwrite what is there).
pub fn path_arg(text: &str) -> std::result::Result<Utf8PathBuf, String> {
    if text.is_empty() {
        Err("give a path, not an empty string".into())
    } else {
        Ok(Utf8PathBuf::from(text))
    }
}

/// A value as pretty JSON plus a newline.
pub fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).expect("bob-eval's documents serialise") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    /// `EvalOptions::again_flags` is the command line's inverse: every
    /// option it writes, parsed back by `run` and by `exam`, gives the same
    /// options (the ceiling, output and progress aside, which it leaves out).
    #[test]
    fn again_flags_parse_back_to_the_same_options() {
        use crate::config::Environment;
        let env = Environment::default();
        // The flags as one printed line, split as a shell splits it.
        let parse = |verb: &str, flags: &[String]| -> crate::eval::EvalOptions {
            let line = format!("bob-eval {verb} commit {}", flags.join(" "));
            let argv = shlex::split(&line).unwrap_or_else(|| panic!("{line}"));
            match Cli::try_parse_from(&argv)
                .unwrap_or_else(|e| panic!("{argv:?}: {e}"))
                .command
            {
                Command::Run(a) => a.options(&env).unwrap(),
                Command::Exam(a) => a.options(&env).unwrap(),
                _ => unreachable!(),
            }
        };
        let given = [
            "--model",
            "claude-haiku-4-5",
            "--runs",
            "auto:24",
            "--judge-model",
            "judge-1",
            "--claude",
            "'/opt/my claude'",
            "-j",
            "3",
            "--platform-timeout",
            "90.5",
            "--case",
            "'fires*'",
            "--case",
            "quiet",
            "--tag",
            "smoke",
            "--allow-tools",
            "Bash,Write",
            "--disallow-tools",
            "WebFetch",
            "--platform-env",
            "\"GREETING=it's\"",
            "--evidence",
            "/tmp/e.db",
            "--mocks",
            "off",
            "--allow-real-servers",
            "--no-scaffold",
            "--min-effect",
            "0.15",
            "--neighbours",
            "a,b",
            "--confidence",
            "0.9",
            "--rule",
            "confidence",
        ]
        .map(String::from);
        for (verb, extra) in [("run", "--best"), ("exam", "--max-cost-ratio")] {
            let mut flags = given.to_vec();
            flags.push(extra.into());
            if verb == "exam" {
                flags.push("1.5".into());
            }
            let first = parse(verb, &flags);
            let again = parse(verb, &first.again_flags());
            assert_eq!(again, first, "{verb}: {:?}", first.again_flags());
            assert!(first.best || first.max_cost_ratio == Some(1.5), "{first:?}");
            // A document records them all but the model and how this
            // machine ran the platform; they parse back the same.
            let recorded = first.recorded_flags();
            assert_eq!(
                crate::document::flags::but(&recorded, &[]),
                Ok(recorded.clone())
            );
            let quoted: Vec<String> = recorded
                .iter()
                .map(|w| crate::text::shell_word(w))
                .collect();
            let expected = crate::eval::EvalOptions {
                model: None,
                claude: None,
                jobs: None,
                platform_timeout: None,
                ..first.clone()
            };
            assert_eq!(parse(verb, &quoted), expected, "{recorded:?}");
            let left_out: Vec<String> = first
                .again_flags()
                .into_iter()
                .filter(|w| w.starts_with("--") && !recorded.contains(w))
                .collect();
            assert_eq!(
                left_out,
                ["--model", "--claude", "--jobs", "--platform-timeout"]
            );
        }
        // Fixed runs, the other scaffold and servers, every neighbour: as given.
        let plain = [
            "--runs",
            "7",
            "--scaffold",
            "--neighbours",
            "--rule",
            "bare",
        ]
        .map(String::from);
        let first = parse("run", &plain);
        assert_eq!(parse("run", &first.again_flags()), first);
        assert_eq!((first.runs, first.scaffold), (Some(7), Some(true)));
        // Nothing given: nothing written.
        assert!(parse("run", &[]).again_flags().is_empty());
    }
}
