//! The options of an evaluation and their one set of validators, shared by the command line and scripts; `resolve` turns them into what a platform run is held to.

use super::{JOBS, MAX_TIMEOUT_SECS, RUNS};
use crate::config::{self, Context, Settings};
use crate::error::{Error, Result};
use crate::evidence::{self, Store};
use crate::platform::{self, RunOptions};
use camino::Utf8PathBuf;
use std::time::Duration;

/// The options of an evaluation as given, on the command line or in a
/// script's `opts` map: the one options type, validated by the functions
/// below whichever way it was given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalOptions {
    /// `--model` [default: `$ANTHROPIC_MODEL`, else settings `model`, else the platform's].
    pub model: Option<String>,
    /// `--runs` per case and arm.
    pub runs: Option<u32>,
    /// `--max-cost-usd`, checked where it was given; without it [`resolve`]
    /// takes the setting, else the default.
    pub max_cost_usd: Option<config::Ceiling>,
    /// `--judge-model`.
    pub judge_model: Option<String>,
    /// `-j`: agent runs at once.
    pub jobs: Option<u32>,
    /// `--claude`: the platform binary, the operator's choice (never a script's).
    pub claude: Option<Utf8PathBuf>,
    /// `--keep`: keep the plugin folder.
    pub keep: bool,
    /// `--platform-result`: reduce this file instead of running the platform.
    pub platform_result: Option<Utf8PathBuf>,
    /// `--platform-timeout`.
    pub platform_timeout: Option<Duration>,
    /// `--case GLOB…`: only the cases whose names match one of these.
    pub cases: Vec<String>,
    /// `--tag TAG…`: only the cases holding one of these tags.
    pub tags: Vec<String>,
    /// `--allow-tools TOOL…`: the operator's grant for gated tools.
    pub allow_tools: Vec<String>,
    /// `--disallow-tools TOOL…`: tools kept from the model in every case.
    pub disallow_tools: Vec<String>,
    /// `--platform-env NAME[=VALUE]…`: variables bob-eval otherwise keeps
    /// from the platform, passed to it (`NAME` alone: bob-eval's own value)
    /// and keyed ([`crate::platform::env`]).
    pub platform_env: Vec<String>,
    /// `--fresh`: buy every run anew instead of reusing stored ones.
    pub fresh: bool,
    /// `--evidence PATH`: the evidence store [default: `$BOB_EVIDENCE`, else `<home>/evidence.db`].
    pub evidence: Option<Utf8PathBuf>,
    /// `--runs auto[:MAX]`: buy runs in rounds until the comparison is settled,
    /// at most MAX per arm of each case (`runs` is then unset).
    pub auto: Option<u32>,
    /// `sweep --max-total-usd`: [`evaluate_all`] launches no suite once its
    /// suites have spent this much (the operator's, never a script's).
    pub max_total_usd: Option<f64>,
    /// `--report FILE`: save the platform's `report.html` there once the
    /// evaluation succeeded.
    pub report: Option<Utf8PathBuf>,
    /// `--dry-run`: say what would be bought, reused and spent
    /// ([`estimate::estimate`]); nothing runs.
    pub dry_run: bool,
    /// `--confidence LEVEL` (a script's `opts.confidence`): the gate's
    /// confidence mode ([`crate::gate::decide_at`]); `None` falls back to
    /// settings `_workflow.gate_confidence`.
    pub confidence: Option<f64>,
    /// `--rule bare|confidence` (a script's `opts.rule`): the rule the gate
    /// decides under ([`crate::config::resolve_mode`]); `None` falls back to
    /// settings `_workflow.gate_rule`.
    pub rule: Option<crate::stats::confidence::RuleChoice>,
    /// `--max-cost-ratio R` (a script's `opts.max_cost_ratio`): the gate
    /// refuses runs with the item dearer than R times those without
    /// ([`crate::gate::limit_cost`]); `None` falls back to settings
    /// `_workflow.max_cost_ratio`.
    pub max_cost_ratio: Option<f64>,
    /// The evaluation feeds a decision that records (`propose`): under the
    /// confidence mode, `--runs auto` buys at the level the item's sequence
    /// holds that decision to ([`super::buying_level`]), not the mode's own,
    /// so the decision has the power auto plans for. The operator's choice:
    /// a script cannot set it.
    pub for_record: bool,
    /// `--best`: measure the recorded best's kept version of the item (for
    /// the model) instead of the source tree's, its with arm bought anew.
    pub best: bool,
    /// `--min-effect D` (a script's `opts.min_effect`): the smallest change
    /// in the suite's score worth detecting; `--runs auto` stops once the
    /// change is clearly smaller, and the document records it. `None` falls
    /// back to settings `_workflow.min_effect`, else
    /// [`crate::stats::DEFAULT_MIN_EFFECT`].
    pub min_effect: Option<f64>,
    /// `--neighbours [ITEM,…]`: after the suite, run the trigger pair again
    /// with these items loaded beside the item (every other item of the
    /// source when empty); `None` without the flag.
    pub neighbours: Option<Vec<String>>,
    /// `--scaffold` (`Some(true)`) or `--no-scaffold` (`Some(false)`): whether
    /// the cases' scaffold scripts run; `None` falls back to settings
    /// `_workflow.scaffold`, and a suite with such a case is refused when
    /// neither says.
    pub scaffold: Option<bool>,
    /// `--mocks off` / `--allow-real-servers`: how the platform serves the
    /// MCP servers a case can call (keyed, shown in the document).
    pub servers: crate::platform::McpServers,
}

impl EvalOptions {
    /// Set `--runs` from its text: `N`, `auto` or `auto:MAX`.
    pub fn set_runs(&mut self, text: &str) -> std::result::Result<(), String> {
        let spec = text
            .parse::<crate::stats::RunsSpec>()
            .map_err(|e| e.to_string())?;
        (self.runs, self.auto) = runs_fields(Some(spec));
        Ok(())
    }

    /// The command-line flags that evaluate the same thing again, each value
    /// one shell word: what decides which runs are bought, under which key
    /// and when auto stops (model, runs, judge, platform binary, cases,
    /// tools, variables, evidence store, servers, scaffold, minimum effect,
    /// neighbours, the rule, `--best`), and how the platform runs them (`-j`,
    /// `--platform-timeout`). Not the ceiling, `--fresh`, the output or
    /// progress: a command built from them, with a ceiling of its
    /// own, reuses the runs the store keeps. Parsed back by the command
    /// line, they give these options again (a test in `commands`).
    pub fn again_flags(&self) -> Vec<String> {
        flat(self.flags(), crate::text::shell_word)
    }

    /// The flags a document of this evaluation records (`flags`): those of
    /// [`Self::again_flags`] a document may name
    /// ([`crate::document::flags::RECORDED`]), one argument each, unquoted.
    pub fn recorded_flags(&self) -> Vec<String> {
        let recorded = self
            .flags()
            .into_iter()
            .filter(|(name, _)| crate::document::flags::is_recorded(name))
            .collect();
        flat(recorded, str::to_owned)
    }

    /// Each flag's long name and its value, as given.
    fn flags(&self) -> Vec<(&'static str, Option<String>)> {
        let mut out = Vec::new();
        let mut flag = |name: &'static str, value: Option<String>| out.push((name, value));
        if let Some(m) = &self.model {
            flag("model", Some(m.clone()));
        }
        match (self.runs, self.auto) {
            (_, Some(max)) => flag("runs", Some(format!("auto:{max}"))),
            (Some(n), None) => flag("runs", Some(n.to_string())),
            (None, None) => {}
        }
        if let Some(m) = &self.judge_model {
            flag("judge-model", Some(m.clone()));
        }
        if let Some(p) = &self.claude {
            flag("claude", Some(p.to_string()));
        }
        if let Some(j) = self.jobs {
            flag("jobs", Some(j.to_string()));
        }
        if let Some(t) = self.platform_timeout {
            flag("platform-timeout", Some(t.as_secs_f64().to_string()));
        }
        for (name, values) in [("case", &self.cases), ("tag", &self.tags)] {
            for v in values {
                flag(name, Some(v.clone()));
            }
        }
        for (name, values) in [
            ("allow-tools", &self.allow_tools),
            ("disallow-tools", &self.disallow_tools),
        ] {
            if !values.is_empty() {
                flag(name, Some(values.join(",")));
            }
        }
        for v in &self.platform_env {
            flag("platform-env", Some(v.clone()));
        }
        if let Some(p) = &self.evidence {
            flag("evidence", Some(p.to_string()));
        }
        if self.servers.mocks_off {
            flag("mocks", Some("off".into()));
        }
        if self.servers.allow_real_servers {
            flag("allow-real-servers", None);
        }
        match self.scaffold {
            Some(true) => flag("scaffold", None),
            Some(false) => flag("no-scaffold", None),
            None => {}
        }
        if let Some(d) = self.min_effect {
            flag("min-effect", Some(d.to_string()));
        }
        match &self.neighbours {
            Some(items) if items.is_empty() => flag("neighbours", None),
            Some(items) => flag("neighbours", Some(items.join(","))),
            None => {}
        }
        if let Some(level) = self.confidence {
            flag("confidence", Some(level.to_string()));
        }
        match self.rule {
            Some(crate::stats::confidence::RuleChoice::Bare) => flag("rule", Some("bare".into())),
            Some(crate::stats::confidence::RuleChoice::Confidence) => {
                flag("rule", Some("confidence".into()));
            }
            None => {}
        }
        if let Some(r) = self.max_cost_ratio {
            flag("max-cost-ratio", Some(r.to_string()));
        }
        if self.best {
            flag("best", None);
        }
        out
    }
}

/// `--name value …`, each value through `value`.
fn flat(flags: Vec<(&str, Option<String>)>, value: impl Fn(&str) -> String) -> Vec<String> {
    flags
        .into_iter()
        .flat_map(|(name, v)| std::iter::once(format!("--{name}")).chain(v.map(|v| value(&v))))
        .collect()
}

/// `--runs` as the two fields of [`EvalOptions`] it sets: `(runs, auto)`.
pub fn runs_fields(spec: Option<crate::stats::RunsSpec>) -> (Option<u32>, Option<u32>) {
    match spec {
        Some(crate::stats::RunsSpec::Fixed(n)) => (Some(n), None),
        Some(crate::stats::RunsSpec::Auto { max }) => (None, Some(max)),
        None => (None, None),
    }
}

/// `--runs`: an integer in [`RUNS`].
pub fn runs_from(n: i64) -> std::result::Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| RUNS.contains(n))
        .ok_or_else(|| format!("runs must be {}..={}, not {n}", RUNS.start(), RUNS.end()))
}

/// `-j`: an integer in [`JOBS`].
pub fn jobs_from(n: i64) -> std::result::Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| JOBS.contains(n))
        .ok_or_else(|| format!("jobs must be {}..={}, not {n}", JOBS.start(), JOBS.end()))
}

/// `--platform-timeout`: a finite number of seconds above 0.
pub fn timeout_from(secs: f64) -> std::result::Result<Duration, String> {
    if !secs.is_finite() || secs <= 0.0 || secs > MAX_TIMEOUT_SECS {
        return Err(format!(
            "a timeout must be a number of seconds above 0 (at most {MAX_TIMEOUT_SECS}), not {secs}"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Parse `text` as an integer for [`runs_from`] or [`jobs_from`].
pub fn parse_count(
    text: &str,
    check: fn(i64) -> std::result::Result<u32, String>,
) -> std::result::Result<u32, String> {
    let n: i64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number"))?;
    check(n)
}

/// Parse `text` as seconds for [`timeout_from`].
pub fn parse_timeout(text: &str) -> std::result::Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    timeout_from(secs)
}

/// What a platform run is held to: `opts` with the model and the ceiling
/// resolved against the environment and home `settings.json`. A bad ceiling,
/// an empty model or broken settings fail here, before anything runs.
pub fn resolve(ctx: &Context, opts: &EvalOptions) -> Result<RunOptions> {
    resolve_keeping(ctx, opts).map(|(run, _)| run)
}

/// [`resolve`], with the settings it read, for a caller that reads more of
/// them (the confidence level) without reading the file again.
pub(crate) fn resolve_keeping(ctx: &Context, opts: &EvalOptions) -> Result<(RunOptions, Settings)> {
    for (flag, value) in [
        ("--model", &opts.model),
        ("--judge-model", &opts.judge_model),
    ] {
        if value.as_deref().is_some_and(|m| m.trim().is_empty()) {
            return Err(Error::Usage(format!(
                "{flag}: give a model name (e.g. haiku), not an empty string"
            )));
        }
    }
    for (flag, values) in [
        ("--case", &opts.cases),
        ("--tag", &opts.tags),
        ("--allow-tools", &opts.allow_tools),
        ("--disallow-tools", &opts.disallow_tools),
    ] {
        if values
            .iter()
            .any(|v| v.trim().is_empty() || v.starts_with('-'))
        {
            return Err(Error::Usage(format!(
                "{flag}: give a non-empty value that does not start with '-' (got {values:?})"
            )));
        }
    }
    // A tool name never starts with `!`: a grant `!Bash` grants nothing (it
    // is no denial), and the evidence key tells the two lists apart by it.
    for (flag, values) in [
        ("--allow-tools", &opts.allow_tools),
        ("--disallow-tools", &opts.disallow_tools),
    ] {
        if let Some(bad) = values.iter().find(|v| v.trim_start().starts_with('!')) {
            let tool = bad.trim_start().trim_start_matches('!');
            return Err(Error::Usage(format!(
                "{flag}: {bad:?} starts with '!', which no tool name does; to keep {tool} from the model, use `--disallow-tools {tool}`"
            )));
        }
    }
    let platform_env = platform::env::opt_ins(&opts.platform_env, |name| {
        ctx.env.var(name).map(str::to_owned)
    })
    .map_err(Error::Usage)?;
    // Refused before anything is spent, as `--out` is, and pinned: a link
    // planted at the path (or its folder) during the run is never followed.
    let report = opts
        .report
        .as_deref()
        .map(|path| crate::fsio::Pinned::new(path, crate::fsio::Links::Follow))
        .transpose()?;
    let settings = Settings::load(&ctx.home)?;
    let run = RunOptions {
        ablation: platform::Ablation::WithWithout,
        model: config::resolve_model(opts.model.as_deref(), &ctx.env, &settings),
        runs: opts.runs,
        max_cost_usd: config::resolve_ceiling(opts.max_cost_usd, &settings)?.usd(),
        ceiling_from: config::ceiling_source(opts.max_cost_usd, &settings),
        judge_model: opts.judge_model.as_deref().map(config::canonical_model),
        jobs: opts.jobs,
        timeout: opts.platform_timeout,
        case: None,
        tags: Vec::new(),
        allow_tools: opts.allow_tools.clone(),
        disallow_tools: opts.disallow_tools.clone(),
        report,
        platform_env,
        scaffold: opts.scaffold.or(settings.scaffold),
        servers: opts.servers,
    };
    Ok((run, settings))
}

/// The evidence store of `opts`: `--evidence`, else `$BOB_EVIDENCE`, else `<home>/evidence.db`.
pub fn evidence_path(ctx: &Context, opts: &EvalOptions) -> Utf8PathBuf {
    Store::default_path(opts.evidence.as_deref(), ctx)
}

/// `$BOB_EVIDENCE_WAIT`: how long runs just bought wait in all for a busy
/// evidence store before they are set aside beside it, in seconds (0 to
/// 3600) [default: [`evidence::BOUGHT_WAIT`]]. Read before anything is spent.
pub const WAIT_ENV: &str = "BOB_EVIDENCE_WAIT";

/// The wait of [`WAIT_ENV`] in `env`; a value that is not 0..=3600 seconds
/// is a usage error.
pub fn evidence_wait(env: &config::Environment) -> Result<Duration> {
    let Some(text) = env.var(WAIT_ENV).filter(|v| !v.trim().is_empty()) else {
        return Ok(evidence::BOUGHT_WAIT);
    };
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| (0.0..=3600.0).contains(s))
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            Error::Usage(format!(
                "${WAIT_ENV}: give a number of seconds in 0..=3600, not {text:?}"
            ))
        })
}

/// The transcript cap of [`evidence::transcript::CAP_ENV`] in `env`, in
/// bytes; a bad value is a usage error.
pub fn transcript_cap(env: &config::Environment) -> Result<u64> {
    evidence::transcript::cap_from(env.var(evidence::transcript::CAP_ENV)).map_err(Error::Usage)
}
