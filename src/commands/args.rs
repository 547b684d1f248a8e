//! Flags shared by the commands that run the platform, turned into the
//! library's [`EvalOptions`] once, `--platform-timeout` falling back to its
//! variable from the [`Environment`]. Their limits are the library's
//! ([`crate::eval::runs_from`], …), so the command line and scripts agree.

use crate::config::Environment;
use crate::error::{Error, Result};
use crate::eval::{self, EvalOptions};
use camino::Utf8PathBuf;
use clap::{Args, ValueEnum};

/// Options shared by everything that runs the platform.
#[derive(Debug, Clone, Args, Default)]
pub struct PlatformArgs {
    /// Model to run [default: $ANTHROPIC_MODEL, else settings.json `model`, else the platform's default]
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Runs per case and arm, 1-50 (the platform's default is the case's `runs`,
    /// else 3); or `auto` / `auto:MAX` (MAX 2-100): buy runs in rounds while
    /// the call is within noise, until it is settled or (without --confidence)
    /// the change is clearly smaller than --min-effect either way. Plain `auto`
    /// plans MAX for 80 % power at --min-effect (at most 100; `auto:MAX` caps
    /// it). Stored runs of the same key count: N reuses each case's newest N
    /// per arm, `auto` every stored without-arm run; both top the without arm
    /// up with 1 fresh run a case (N once a later evaluation compared it again)
    #[arg(long, value_name = "N|auto[:MAX]", value_parser = |s: &str| s.parse::<crate::stats::RunsSpec>().map_err(|e| e.to_string()))]
    pub runs: Option<crate::stats::RunsSpec>,
    /// Cost ceiling in dollars for the whole run; must be above 0
    /// [default: settings.json `_workflow.eval_max_cost_usd`, else 2]
    #[arg(long, value_name = "USD", allow_negative_numbers = true)]
    pub max_cost_usd: Option<crate::config::Ceiling>,
    /// Model of the judge of llm and baseline graders [default: the platform's
    /// own choice]; only the cases such a grader grades are keyed by it, so
    /// naming a judge never buys again the runs of a case no judge reads
    #[arg(long, value_name = "M")]
    pub judge_model: Option<String>,
    /// Agent runs at once (1-8)
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = |s: &str| eval::parse_count(s, eval::jobs_from))]
    pub jobs: Option<u32>,
    /// The claude binary [default: $BOB_EVAL_CLAUDE, else `claude` on PATH]
    #[arg(long, value_name = "PATH", value_parser = super::path_arg)]
    pub claude: Option<Utf8PathBuf>,
    /// Keep the temporary plugin folder (platform result, report.html, stderr log) and print its path
    #[arg(long)]
    pub keep: bool,
    /// Save the platform's HTML report (report.html: scores, prompts, grader
    /// verdicts) here, atomically, once the evaluation succeeded; with
    /// --platform-result, the report.html beside that file
    #[arg(long, value_name = "FILE", value_parser = super::path_arg)]
    pub report: Option<Utf8PathBuf>,
    /// Reduce this existing platform result (aggregate-result.json) instead of running the platform
    #[arg(long, value_name = "FILE", value_parser = super::path_arg)]
    pub platform_result: Option<Utf8PathBuf>,
    /// Stop the platform after this many seconds: SIGTERM to it and everything it
    /// started, SIGKILL 5 s later; the run then fails with exit 3 and writes nothing
    /// [default: $BOB_EVAL_PLATFORM_TIMEOUT, else no limit]
    #[arg(long, value_name = "SECONDS", value_parser = eval::parse_timeout, allow_negative_numbers = true)]
    pub platform_timeout: Option<std::time::Duration>,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Buy every run anew instead of reusing runs kept in the evidence store
    #[arg(long)]
    pub fresh: bool,
    /// The evidence store [default: $BOB_EVIDENCE, else <home>/evidence.db]
    #[arg(long, value_name = "PATH", value_parser = super::path_arg)]
    pub evidence: Option<Utf8PathBuf>,
    /// Run nothing: print, per case and arm, the runs that would be bought and
    /// those reused from the evidence store (and the --neighbours runs, and
    /// --runs auto's first round), and an estimate of the cost from the
    /// store's past runs beside the ceiling (no platform call: the platform
    /// version is assumed to be the item's last stored one; the store is only
    /// read)
    #[arg(long)]
    pub dry_run: bool,
    /// After the suite, run its fires and quiet prompts again on one arm with
    /// other items loaded beside the item (every item of the source, or the
    /// ones named: `--neighbours changelog,tidy`), and report which item fired
    /// on each run; paid from the same ceiling, never reused from the store
    #[arg(long, value_name = "ITEM", num_args = 0.., value_delimiter = ',')]
    pub neighbours: Option<Vec<String>>,
    /// The smallest change in the suite's score worth detecting, 0.01-1:
    /// `--runs auto` stops once the change is clearly smaller (its interval
    /// all below it), and the document records it [default: settings.json
    /// `_workflow.min_effect`, else 0.2]
    #[arg(long, value_name = "D", value_parser = crate::stats::parse_min_effect)]
    pub min_effect: Option<f64>,
}

/// Which cases run and with which tools: shared by `run`, `exam`, `propose`
/// and `sweep`.
#[derive(Debug, Clone, Args, Default)]
pub struct FilterArgs {
    /// Only the cases whose names match this glob (`*`, `?`, `[…]`; repeatable).
    /// A filtered result is partial (`filtered`): the gate never accepts it
    #[arg(long = "case", value_name = "GLOB")]
    pub cases: Vec<String>,
    /// Only the cases holding this tag (repeatable); partial like --case
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Grant gated tools to every case (Bash, Write, Edit, WebFetch, mcp__*;
    /// `Tool(pattern:*)` works), passed to the platform as it spells them
    #[arg(long, value_name = "TOOL", num_args = 1.., value_delimiter = ',')]
    pub allow_tools: Vec<String>,
    /// Keep built-in tools from the model in every case, even if granted
    #[arg(long, value_name = "TOOL", num_args = 1.., value_delimiter = ',')]
    pub disallow_tools: Vec<String>,
    /// Pass this variable to the platform (repeatable): bob-eval otherwise
    /// keeps every ANTHROPIC_* and CLAUDE_* variable but the credential and
    /// the API's address (and MAX_THINKING_TOKENS and kin) from it, and your
    /// settings' `env` blocks; NAME alone passes your value. Each is part of
    /// the evidence key and shown in the document (docs/platform.md)
    #[arg(long, value_name = "NAME[=VALUE]")]
    pub platform_env: Vec<String>,
    /// Run each case's `context.scaffold_script` (the platform's --scaffold):
    /// author-supplied bash that builds the case's workspace, run as you, so
    /// read it first [default: settings.json `_workflow.scaffold`]. A suite
    /// with such a case is refused without --scaffold or --no-scaffold
    #[arg(long, overrides_with = "no_scaffold")]
    pub scaffold: bool,
    /// Measure the cases that have a scaffold script without it, knowingly
    /// (their workspace starts empty); keyed apart from runs with it
    #[arg(long, overrides_with = "scaffold")]
    pub no_scaffold: bool,
    /// `--mocks off`: run with no MCP stand-ins (the platform's default,
    /// `record`, serves a plugin's server from the case's `mocks/<server>/`
    /// and does not start one without a mock). Keyed apart
    #[arg(long, value_name = "MODE", value_parser = ["record", "off"])]
    pub mocks: Option<String>,
    /// Start a plugin's real MCP server where it has no mock, as you,
    /// outside the sandbox that confines shell tools (the platform's
    /// --allow-real-servers). Without it, calls to such a server are counted
    /// as unmocked and the run does not count. Keyed apart
    #[arg(long)]
    pub allow_real_servers: bool,
}

impl FilterArgs {
    /// `--mocks` and `--allow-real-servers`.
    pub fn servers(&self) -> crate::platform::McpServers {
        crate::platform::McpServers {
            mocks_off: self.mocks.as_deref() == Some("off"),
            allow_real_servers: self.allow_real_servers,
        }
    }

    /// `--scaffold` (`Some(true)`), `--no-scaffold` (`Some(false)`) or neither.
    pub fn scaffold(&self) -> Option<bool> {
        match (self.scaffold, self.no_scaffold) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

/// The variable `--platform-timeout` falls back to.
pub const PLATFORM_TIMEOUT_VAR: &str = "BOB_EVAL_PLATFORM_TIMEOUT";

/// `--platform-timeout`, else `$BOB_EVAL_PLATFORM_TIMEOUT` from `env` (set
/// but not a timeout, even empty, is a usage error naming the variable),
/// else no limit.
pub fn platform_timeout(
    flag: Option<std::time::Duration>,
    env: &Environment,
) -> Result<Option<std::time::Duration>> {
    match (flag, env.var(PLATFORM_TIMEOUT_VAR)) {
        (Some(given), _) => Ok(Some(given)),
        (None, None) => Ok(None),
        (None, Some(text)) => eval::parse_timeout(text).map(Some).map_err(|e| {
            Error::Usage(format!(
                "{PLATFORM_TIMEOUT_VAR}={text:?}: {e} (or unset it, or give --platform-timeout)"
            ))
        }),
    }
}

impl PlatformArgs {
    /// The library's options, the variables the flags fall back to read
    /// from `env` ([`platform_timeout`]).
    pub fn options(&self, env: &Environment) -> Result<EvalOptions> {
        Ok(EvalOptions {
            model: self.model.clone(),
            runs: crate::eval::runs_fields(self.runs).0,
            auto: crate::eval::runs_fields(self.runs).1,
            max_cost_usd: self.max_cost_usd,
            judge_model: self.judge_model.clone(),
            jobs: self.jobs,
            claude: self.claude.clone(),
            keep: self.keep,
            platform_result: self.platform_result.clone(),
            platform_timeout: platform_timeout(self.platform_timeout, env)?,
            cases: self.filters.cases.clone(),
            tags: self.filters.tags.clone(),
            allow_tools: self.filters.allow_tools.clone(),
            disallow_tools: self.filters.disallow_tools.clone(),
            platform_env: self.filters.platform_env.clone(),
            fresh: self.fresh,
            evidence: self.evidence.clone(),
            max_total_usd: None,
            report: self.report.clone(),
            dry_run: self.dry_run,
            confidence: None,
            rule: None,
            max_cost_ratio: None,
            for_record: false,
            best: false,
            min_effect: self.min_effect,
            neighbours: self.neighbours.clone(),
            scaffold: self.filters.scaffold(),
            servers: self.filters.servers(),
        })
    }
}

/// `--dry-run` on `run`, `exam` and `propose`: print the estimate
/// ([`crate::ops::estimate`]) as text or (`json`) as a `bob-eval-estimate/1`
/// object, and what calibrating the judges would cost a person, apart.
pub fn print_estimate(
    estimated: &crate::ops::Estimated,
    json: bool,
) -> crate::error::Result<crate::error::exit::Conclusion<'static>> {
    if json {
        super::print(&super::json(&estimated.estimate))?;
    } else {
        super::print(&crate::report::estimate::estimate(&estimated.estimate))?;
    }
    let item = estimated.item.as_str();
    if let Some(line) = crate::report::label::calibration_cost(item, &estimated.calibration) {
        eprintln!("bob-eval: {line}");
    }
    super::warn(&estimated.warnings);
    Ok(crate::error::exit::Conclusion::Done)
}

/// `--confidence LEVEL` and `--rule bare|confidence`: the rule the gate
/// decides under, shared by `gate`, `propose` and `exam` (`run` has its
/// own, which set only when `--runs auto` stops buying).
#[derive(Debug, Clone, Copy, Args, Default)]
pub struct ConfidenceArg {
    /// Accept only what holds clearly at this level (e.g. 0.95): with above
    /// the best, delta above 0 and the trigger rate not below the best's,
    /// each by its one-sided bound, the best's own runs counted. Adds to the
    /// rule, never replaces it [default: settings.json
    /// `_workflow.gate_confidence`, else 0.95 for a decision that records
    /// (`gate --record`, `propose`) and the bare rule for a check]
    #[arg(long, value_name = "LEVEL", value_parser = crate::stats::confidence::parse_level)]
    pub confidence: Option<f64>,
    /// The rule: `confidence` (the mode above), or `bare`, the seed's bare
    /// rule (point estimates only: a change that does nothing passes it a
    /// third to half of the time on a few runs), recorded as such
    /// [default: settings.json `_workflow.gate_rule`, else `confidence` for a
    /// decision that records, `bare` for a check]
    #[arg(long, value_name = "RULE", value_parser = |s: &str| s.parse::<crate::stats::confidence::RuleChoice>())]
    pub rule: Option<crate::stats::confidence::RuleChoice>,
    /// Refuse a change whose runs with the item cost more than R times the
    /// runs without it (the model's mean cost per run, the judge's left
    /// out; e.g. 1.5). The rule reads the point ratio; the confidence mode
    /// also wants its one-sided upper bound at the level not above R
    /// [default: settings.json `_workflow.max_cost_ratio`, else no limit]
    #[arg(long, value_name = "R", value_parser = crate::stats::efficiency::parse_cost_ratio)]
    pub max_cost_ratio: Option<f64>,
    /// Refuse to call a change clear while a judged (llm) grader is not
    /// calibrated: both 95 % lower bounds of its TPR and TNR against
    /// people's labels at least 0.80 (`bob-eval label ITEM --grader NAME`
    /// gives them; docs/judges.md) [default: settings.json
    /// `_workflow.require_calibrated`]
    #[arg(long)]
    pub require_calibrated: bool,
}

impl ConfidenceArg {
    /// What the gate is asked for, for a decision that `records` or not.
    pub fn choice(&self, records: bool) -> crate::ops::Choice {
        crate::ops::Choice {
            confidence: self.confidence,
            rule: self.rule,
            records,
            max_cost_ratio: self.max_cost_ratio,
            require_calibrated: self.require_calibrated,
        }
    }
}

/// An arm, as `--arm` names it (`show`, `label`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ArmArg {
    /// The item loaded
    #[default]
    With,
    /// Without it
    Without,
}

/// For a result the cost ceiling cut short that records the flags it was
/// evaluated with (`gate RESULT`, `collect`): how to complete it, `bob-eval
/// run ITEM FLAGS --max-cost-usd C [--out FILE]`, priced as `run` prices it
/// ([`crate::ops::next::Completion`]), its flags read back by this command
/// line; in `store` when given (where `collect` put a shard's runs). `None`
/// for a document written before results recorded their flags (the runs it
/// asked for are unknown) or whose flags do not parse.
pub fn completion(
    ctx: &crate::config::Context,
    doc: &crate::document::SkillEval,
    out: Option<&Utf8PathBuf>,
    store: Option<&camino::Utf8Path>,
) -> Option<crate::ops::next::Completion> {
    if doc.partial_reason != Some(crate::document::PartialReason::CostCeiling) {
        return None;
    }
    let mut argv = vec!["bob-eval".to_string(), "run".into(), doc.item.to_string()];
    // The store given replaces the one the document records.
    let replaced: &[&str] = if store.is_some() { &["evidence"] } else { &[] };
    argv.extend(crate::document::flags::but(doc.flags.as_deref()?, replaced).ok()?);
    if let Some(store) = store {
        argv.extend(["--evidence".into(), store.to_string()]);
    }
    if let Some(model) = crate::config::named_model(&doc.model) {
        argv.extend(["--model".into(), model.to_string()]);
    }
    let super::Command::Run(args) = <super::Cli as clap::Parser>::try_parse_from(argv)
        .ok()?
        .command
    else {
        return None;
    };
    let options = args.options(&ctx.env).ok()?;
    crate::ops::next::Completion::of(ctx, &doc.item, &options, doc, out)
}
