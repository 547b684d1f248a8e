//! The platform: find `claude`, check its version, run `claude plugin eval`.
//!
//! The argument list is fixed (docs/running.md); the platform's stderr is
//! kept in `<plugin>/.bob-eval/platform-stderr.log` and parsed, best effort, for
//! progress.
//!
//! Signals ([`interrupt`]): the probe and the run each hold an
//! [`interrupt::Guard`]. A signal caught during `claude --version` kills the
//! probe; one caught during a run goes to the platform first (SIGINT as it
//! is, SIGHUP, SIGTERM and SIGQUIT as SIGTERM, the platform's graceful stop),
//! and SIGKILL follows 20 s later if it has not exited. Either way
//! bob-eval then stops with [`Error::Interrupted`].
//!
//! Nothing the platform starts outlives it. Each child (probe or run) leads
//! its own process group and carries a tag ([`TAG`]) in its environment,
//! which everything it starts inherits. The platform starts its agents in
//! sessions of their own, out of its group: once it is stopped (a signal, the
//! timeout) or lost (an early error), every process carrying the tag is
//! killed too (Linux, through `/proc`), so an agent orphaned by a platform
//! that ignored SIGTERM makes no more model calls.

use crate::error::interrupt;
use crate::error::{Error, Result};
use crate::event::{Event, Observer};
use crate::plugin::Plugin;
use camino::{Utf8Path, Utf8PathBuf};
use chrono::{DateTime, Utc};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// The oldest Claude Code with `claude plugin eval` as bob-eval uses it.
mod probe;
pub mod reach;
pub use probe::{VersionProbe, locate, start_locate};
pub mod env;
mod process;
pub mod result;
pub use process::TAG;
use process::{Tracked, wait_for_exit};
mod stderr;
use stderr::{StderrSummary, error_lines, spawn_stderr_reader};
#[cfg(test)]
mod tests;

const MIN_VERSION: &str = "2.1.272";

/// How to install the platform, for messages.
const INSTALL: &str = "install Claude Code with `npm install -g @anthropic-ai/claude-code` (2.1.272 or later), or pass --claude PATH / set BOB_EVAL_CLAUDE";

/// A located, version-checked `claude`.
#[derive(Debug, Clone)]
pub struct Platform {
    /// The binary.
    pub path: Utf8PathBuf,
    /// What `claude --version` said, e.g. `2.1.328`.
    pub version: String,
    /// The operator's environment it is started from (and which
    /// [`run`] trims to what bob-eval controls).
    pub env: std::sync::Arc<crate::config::Environment>,
}

/// Which arms a platform run buys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Ablation {
    /// `--ablation with-without`: both arms.
    #[default]
    WithWithout,
    /// `--ablation none` on the assembled plugin: the item loaded, the with
    /// arm alone (its runs are rescored under the with/without rules when
    /// kept; see `docs/evidence.md`).
    WithOnly,
}

impl Ablation {
    /// The platform's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Ablation::WithWithout => "with-without",
            Ablation::WithOnly => "none",
        }
    }
}

/// What a platform run is held to.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// Both arms, or the with arm alone (an item edit's with arm, or `run --neighbours`, which asks which item fires).
    pub ablation: Ablation,
    /// The model; `default` is not passed.
    pub model: String,
    /// `--runs`.
    pub runs: Option<u32>,
    /// `--max-cost-usd`, already validated.
    pub max_cost_usd: f64,
    /// Where the ceiling came from, in words (`--max-cost-usd`, the settings
    /// file, or the default), stated once when a paid run starts.
    pub ceiling_from: String,
    /// `--judge-model`.
    pub judge_model: Option<String>,
    /// `-j`.
    pub jobs: Option<u32>,
    /// `--platform-timeout`: stop the platform once it has run this long.
    pub timeout: Option<Duration>,
    /// `--case NAME`: one case, by its exact name. The platform reads `*` and
    /// `?` there as wildcards and has no escape, so `check` refuses a case
    /// name that would also select another case (`case-name-pattern`), and
    /// every run that comes back is attributed to its case by name.
    pub case: Option<String>,
    /// `--tag T…`: cases holding any of these tags.
    pub tags: Vec<String>,
    /// `--allow-tools T…`: the operator's grant for gated tools.
    pub allow_tools: Vec<String>,
    /// `--disallow-tools T…`: tools kept from the model in every case.
    pub disallow_tools: Vec<String>,
    /// `--report FILE`: where to save the platform's `report.html` once the
    /// evaluation succeeded (the platform always writes it in its own folder),
    /// pinned before the run so that nothing planted meanwhile is followed.
    pub report: Option<crate::fsio::Pinned>,
    /// `--platform-env`: variables bob-eval otherwise keeps from the
    /// platform ([`env::controlled`]), passed with these values (and keyed).
    pub platform_env: std::collections::BTreeMap<String, String>,
    /// `--scaffold` (`Some(true)`) or `--no-scaffold` (`Some(false)`), passed
    /// on as such; `None` passes neither (the platform runs no scaffold).
    pub scaffold: Option<bool>,
    /// How the platform serves the plugins' MCP servers (`--mocks off`,
    /// `--allow-real-servers`); the default records calls to stand-ins and
    /// withholds a server with none.
    pub servers: McpServers,
}

/// How the platform serves the MCP servers a case can call: its default
/// (`--mocks record`: a server with a mock is served by it, one without is
/// not started and its calls are counted as unmocked), or the operator's
/// opt-ins, each passed on as the platform's option of the same name and
/// keyed apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct McpServers {
    /// `--mocks off`: no stand-ins; the plugins' servers are not mocked.
    pub mocks_off: bool,
    /// `--allow-real-servers`: a server with no mock runs for real, as the
    /// operator, outside the sandbox that confines shell tools.
    pub allow_real_servers: bool,
}

impl McpServers {
    /// The platform's options for this choice.
    pub fn args(self) -> Vec<String> {
        let mut args = Vec::new();
        if self.mocks_off {
            args.extend(["--mocks".to_string(), "off".to_string()]);
        }
        if self.allow_real_servers {
            args.push("--allow-real-servers".to_string());
        }
        args
    }

    /// The choice in words for keys and documents (`off`,
    /// `allow-real-servers`, both joined by `+`); `None` for the default.
    pub fn words(self) -> Option<String> {
        let parts: Vec<&str> = [
            (self.mocks_off, "off"),
            (self.allow_real_servers, "allow-real-servers"),
        ]
        .into_iter()
        .filter_map(|(on, w)| on.then_some(w))
        .collect();
        (!parts.is_empty()).then(|| parts.join("+"))
    }
}

impl RunOptions {
    /// Options with nothing but the model and the ceiling set.
    pub fn new(model: impl Into<String>, max_cost_usd: f64) -> Self {
        RunOptions {
            ablation: Ablation::WithWithout,
            model: model.into(),
            runs: None,
            max_cost_usd,
            ceiling_from: "set by the caller".into(),
            judge_model: None,
            jobs: None,
            timeout: None,
            case: None,
            tags: Vec::new(),
            allow_tools: Vec::new(),
            disallow_tools: Vec::new(),
            report: None,
            platform_env: std::collections::BTreeMap::new(),
            scaffold: None,
            servers: McpServers::default(),
        }
    }
}

/// What a finished platform run left behind.
#[derive(Debug, Clone, PartialEq)]
pub struct PlatformOutput {
    /// `<plugin>/.bob-eval/out/aggregate-result.json`.
    pub document: Utf8PathBuf,
    /// The platform's exit code (0, or 2 for a partial result).
    pub exit_code: i32,
    /// When bob-eval started the platform.
    pub started: DateTime<Utc>,
    /// `<plugin>/.bob-eval/platform-stderr.log`.
    pub stderr_log: Utf8PathBuf,
}

impl PlatformOutput {
    /// Where the platform wrote its HTML report: beside its result document.
    pub fn report(&self) -> Utf8PathBuf {
        report_beside(&self.document)
    }
}

/// The platform's `report.html` beside its result document `document`.
pub fn report_beside(document: &Utf8Path) -> Utf8PathBuf {
    document.with_file_name("report.html")
}

/// The arguments after `<claude>` (docs/running.md).
fn arguments(plugin_dir: &Utf8Path, opts: &RunOptions) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "plugin".into(),
        "eval".into(),
        plugin_dir.to_string(),
        "--ablation".into(),
        opts.ablation.as_str().into(),
        "--output-dir".into(),
        output_dir(plugin_dir).to_string(),
        "--threshold".into(),
        "0".into(),
        "--max-cost-usd".into(),
        format!("{}", opts.max_cost_usd),
        "--trust-plugin".into(),
        "--no-publish".into(),
        // Each run's trace outlives the run, in the plugin's own temp folder
        // (removed with the plugin), so that it can be kept as a transcript.
        "--keep-temp".into(),
    ];
    if opts.model != "default" {
        args.extend(["--model".into(), opts.model.clone()]);
    }
    if let Some(runs) = opts.runs {
        args.extend(["--runs".into(), runs.to_string()]);
    }
    if let Some(judge) = &opts.judge_model {
        args.extend(["--judge-model".into(), judge.clone()]);
    }
    if let Some(jobs) = opts.jobs {
        args.extend(["-j".into(), jobs.to_string()]);
    }
    if let Some(case) = &opts.case {
        args.extend(["--case".into(), case.clone()]);
    }
    for tag in &opts.tags {
        args.extend(["--tag".into(), tag.clone()]);
    }
    args.extend(opts.servers.args());
    match opts.scaffold {
        Some(true) => args.push("--scaffold".into()),
        Some(false) => args.push("--no-scaffold".into()),
        None => {}
    }
    // Variadic on the platform: each list follows its flag, up to the next flag.
    for (flag, tools) in [
        ("--allow-tools", &opts.allow_tools),
        ("--disallow-tools", &opts.disallow_tools),
    ] {
        if !tools.is_empty() {
            args.push(flag.into());
            args.extend(tools.iter().cloned());
        }
    }
    args
}

/// The platform's config folder (`CLAUDE_CONFIG_DIR`), in its temp folder
/// beside the plugin ([`crate::plugin::Plugin::scratch`]).
const CONFIG_FOLDER: &str = "bob-eval-config";

fn output_dir(plugin_dir: &Utf8Path) -> Utf8PathBuf {
    plugin_dir.join(".bob-eval").join("out")
}

/// Run `claude plugin eval` on `plugin`; map its exit status (README.md, "Exit codes").
/// Past `opts.timeout` the platform's process group gets SIGTERM, then SIGKILL
/// after a 5 s grace, and the run fails with [`Error::PlatformFailed`] (exit 3).
/// A signal caught before or during the run stops it: [`Error::Interrupted`].
/// When it returns, nothing the platform started in its process group is
/// left, nor, after a stop, anything carrying its tag.
pub fn run(
    platform: &Platform,
    plugin: &Plugin,
    opts: &RunOptions,
    observer: Arc<dyn Observer>,
) -> Result<PlatformOutput> {
    let timeout = opts.timeout;
    let work = plugin.dir.join(".bob-eval");
    std::fs::create_dir_all(&work).map_err(|e| Error::io(&work, "creating", e))?;
    let stderr_log = work.join("platform-stderr.log");
    let stdout_log = work.join("platform-stdout.log");
    let document = output_dir(&plugin.dir).join("aggregate-result.json");
    let stdout_file =
        std::fs::File::create(&stdout_log).map_err(|e| Error::io(&stdout_log, "creating", e))?;
    let log =
        std::fs::File::create(&stderr_log).map_err(|e| Error::io(&stderr_log, "creating", e))?;

    // Taken before the platform starts, released after it is gone.
    let _guard = interrupt::guard()?;

    let started = Utc::now();
    let clock = Instant::now();
    // The environment bob-eval controls (docs/platform.md): an empty config
    // folder of its own (no settings `env` block), no variable that chooses
    // or shapes the model but those opted into, and a working folder of its
    // own (no project settings). The config folder sits beside the plugin,
    // not in it: the platform rewrites and rotates files there while its
    // sessions run, and a file that vanishes inside the plugin while another
    // run screens the plugin's tree fails that run (ENOENT).
    let config = plugin.scratch.join(CONFIG_FOLDER);
    std::fs::create_dir_all(&config).map_err(|e| Error::io(&config, "creating", e))?;
    let operator: Vec<(String, String)> = platform.env.pairs();
    let var = |name: &str| {
        operator
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    // The operator's settings are read for their credential only; a missing
    // or unreadable file carries nothing (the platform says what it lacks).
    let carried = env::operator_settings(var(env::CONFIG_DIR), var("HOME"))
        .and_then(|path| {
            crate::fsio::read_text(Utf8Path::new(&path), crate::config::MAX_SUITE_FILE).ok()
        })
        .map(|text| env::Carried::from_settings(&text))
        .unwrap_or_default();
    let env_plan = env::plan(
        operator.clone(),
        config.as_str(),
        &carried,
        &opts.platform_env,
    );
    let mut command = Command::new(&platform.path);
    for name in &env_plan.remove {
        command.env_remove(name);
    }
    command.envs(env_plan.set.iter().map(|(k, v)| (k, v)));
    // The platform makes a sandbox per run in its temp folder and keeps a
    // failed or stopped run's: the plugin's own temp folder is removed with
    // the plugin however the run ends.
    for name in env::TEMP_DIRS {
        command.env(name, &plugin.scratch);
    }

    // Its own process group, so that a forwarded signal or a timeout reaches
    // everything the platform started, not only its first process.
    let mut group = Tracked::spawn(
        command
            .current_dir(&work)
            .args(arguments(&plugin.dir, opts))
            .stdin(Stdio::null())
            .stdout(Stdio::from(stdout_file))
            .stderr(Stdio::piped()),
    )
    .map_err(|e| {
        Error::PlatformMissing(format!(
            "{} could not be started: {e}; {INSTALL}",
            platform.path
        ))
    })?;
    let stderr = group.child_mut().stderr.take().expect("stderr is piped");

    let summary = Arc::new(Mutex::new(StderrSummary::default()));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let item = plugin.item.name.to_string();
    observer.event(&Event::PlatformStarted {
        item: item.clone(),
        ceiling: opts.max_cost_usd,
    });
    let reader = spawn_stderr_reader(stderr, log, item, observer, Arc::clone(&summary), done_tx);

    // With the API unreachable the platform retries for minutes, silently:
    // check it once the run has been quiet a while (docs/platform.md).
    let unreachable = Arc::new(std::sync::OnceLock::new());
    let exited = Arc::new(std::sync::atomic::AtomicBool::new(false));
    if let Some(endpoint) = reach::endpoint(|name| env_plan.value(name, var(name))) {
        let (unreachable, exited) = (Arc::clone(&unreachable), Arc::clone(&exited));
        std::thread::spawn(move || {
            let quiet = Instant::now() + reach::QUIET;
            while Instant::now() < quiet {
                if exited.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            if let Err(why) = reach::probe(&endpoint, reach::CONNECT) {
                let _ = unreachable.set(format!("{} cannot be reached: {why}", endpoint.named));
            }
        });
    }
    let waited = wait_for_exit(&group, platform, clock, timeout, &unreachable);
    exited.store(true, std::sync::atomic::Ordering::Relaxed);
    let waiter = waited?;
    // Whatever the platform left in its group must not outlive the run; after
    // a stop, neither may the agents it started in sessions of their own.
    let stopped =
        waiter.forwarded.is_some() || waiter.timed_out.is_some() || interrupt::caught().is_some();
    let status = group
        .reap(stopped)
        .map_err(|e| Error::io(&platform.path, "waiting for the platform", e))?;
    // A grandchild may hold stderr open after the platform exits: do not wait for it forever.
    if done_rx.recv_timeout(Duration::from_secs(2)).is_ok() {
        let _ = reader.join();
    }
    let summary = std::mem::take(&mut *summary.lock().unwrap_or_else(|p| p.into_inner()));

    if waiter.forwarded.is_some() || interrupt::caught().is_some() {
        return Err(Error::Interrupted);
    }
    // The folder goes with the plugin unless kept: no message may point into it.
    let hidden = (!plugin.is_kept()).then_some(plugin.dir.as_path());
    if let Some(why) = &waiter.unreachable {
        return Err(Error::PlatformFailed {
            message: format!(
                "{why}; the platform was stopped after {:.0} s instead of retrying for minutes, and nothing was measured. Check the network, $ANTHROPIC_BASE_URL or the proxy ({} turns this check off)",
                clock.elapsed().as_secs_f64(),
                reach::SWITCH
            ),
            details: error_lines(&summary, hidden),
        });
    }
    if let (Some(_), Some(limit)) = (waiter.timed_out, timeout) {
        return Err(Error::PlatformFailed {
            message: format!(
                "the platform did not finish within {} s (--platform-timeout); it was stopped and nothing was written",
                limit.as_secs_f64()
            ),
            details: error_lines(&summary, hidden),
        });
    }
    let out = PlatformOutput {
        document: document.clone(),
        exit_code: status.code().unwrap_or(-1),
        started,
        stderr_log,
    };
    map_status(status, &summary, &document, hidden)?;
    Ok(out)
}

fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("code {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => "unknown status".into(),
    }
}

fn map_status(
    status: ExitStatus,
    summary: &StderrSummary,
    document: &Utf8Path,
    hidden: Option<&Utf8Path>,
) -> Result<()> {
    use std::os::unix::process::ExitStatusExt;
    let failed = |message: String| Error::PlatformFailed {
        message,
        details: error_lines(summary, hidden),
    };
    match (status.code(), status.signal()) {
        (Some(0), _) => {}
        (Some(2), _) => {
            if document.is_file()
                && result::read(document)
                    .is_ok_and(|r| r.partial_reason.as_deref() == Some("auth_failed"))
            {
                return Err(Error::PlatformFailed {
                    message: "the platform's credential was rejected (auth_failed): log in with `claude /login` or set ANTHROPIC_API_KEY, then run again".into(),
                    details: error_lines(summary, hidden),
                });
            }
        }
        (Some(130 | 143), _) => return Err(Error::Interrupted),
        (None, Some(sig)) if sig == libc::SIGINT || sig == libc::SIGTERM => {
            return Err(Error::Interrupted);
        }
        (Some(1), _) => {
            return Err(failed(
                "`claude plugin eval` exited with code 1 (a case file failed to load, no case was found, or a run could not start)"
                    .into(),
            ));
        }
        _ => {
            return Err(failed(format!(
                "`claude plugin eval` ended abnormally ({})",
                describe(status)
            )));
        }
    }
    if !document.is_file() {
        return Err(failed(format!(
            "`claude plugin eval` exited with {} but wrote no result at {document}",
            describe(status)
        )));
    }
    Ok(())
}
