//! The platform: find `claude`, check its version, run `claude plugin eval`.
//!
//! The argument list is fixed by contracts.md ("run"); the platform's stderr is
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
use regex::Regex;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

/// The oldest Claude Code with `claude plugin eval` as bob-eval uses it.
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

/// Find `claude`: `flag`, else `$BOB_EVAL_CLAUDE`, else `PATH`; check its version.
pub fn locate(flag: Option<&Utf8Path>) -> Result<Platform> {
    start_locate(flag)?.finish()
}

/// A `claude --version` started by [`start_locate`], not yet waited for.
/// Dropped without [`VersionProbe::finish`] (an error in between, an
/// interrupt), it kills the probe and everything it started and reaps it, so
/// neither a process nor a zombie outlives it.
#[derive(Debug)]
pub struct VersionProbe {
    path: Utf8PathBuf,
    child: Tracked,
    /// Released after the probe is gone (fields drop in this order).
    guard: interrupt::Guard,
}

/// Find `claude` and start `claude --version` without waiting for it, so that
/// other set-up work (the plugin) overlaps the platform's start-up.
/// [`Error::Interrupted`] once a signal was caught.
pub fn start_locate(flag: Option<&Utf8Path>) -> Result<VersionProbe> {
    let path = find_binary(flag)?;
    let guard = interrupt::guard()?;
    let child = Tracked::spawn(
        Command::new(&path)
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .map_err(|e| Error::PlatformMissing(format!("{path} could not be started: {e}; {INSTALL}")))?;
    Ok(VersionProbe { path, child, guard })
}

impl VersionProbe {
    /// Wait for `claude --version` and check what it printed. A signal caught
    /// meanwhile kills the probe: [`Error::Interrupted`].
    pub fn finish(self) -> Result<Platform> {
        // The guard is held until the probe is reaped or dropped.
        let VersionProbe {
            path,
            child,
            guard: _guard,
        } = self;
        let waited = wait_at_most(&child, VERSION_TIMEOUT);
        match waited {
            Ok(Waited::Exited) => {}
            Ok(Waited::Interrupted) => return Err(Error::Interrupted),
            Ok(Waited::TimedOut) => {
                return Err(Error::PlatformFailed {
                    message: format!(
                        "`{path} --version` did not answer within {} s: is it Claude Code? {INSTALL}",
                        VERSION_TIMEOUT.as_secs()
                    ),
                    details: vec![],
                });
            }
            Err(e) => {
                return Err(Error::PlatformMissing(format!(
                    "{path} could not be started: {e}; {INSTALL}"
                )));
            }
        }
        let output = child.output().map_err(|e| {
            Error::PlatformMissing(format!("{path} could not be started: {e}; {INSTALL}"))
        })?;
        let text = String::from_utf8_lossy(&output.stdout);
        let Some(version) = parse_version(&text) else {
            return Err(Error::PlatformFailed {
                message: format!(
                    "`{path} --version` did not print a version (exit {}): is it Claude Code? {INSTALL}",
                    describe(output.status)
                ),
                details: last_lines(
                    &format!("{text}{}", String::from_utf8_lossy(&output.stderr)),
                    5,
                ),
            });
        };
        if version_tuple(&version) < version_tuple(MIN_VERSION) {
            return Err(Error::PlatformTooOld {
                path,
                found: version,
                needed: MIN_VERSION,
            });
        }
        Ok(Platform { path, version })
    }
}

/// How long `claude --version` may take before bob-eval gives up on it.
const VERSION_TIMEOUT: Duration = Duration::from_secs(30);

/// How [`wait_at_most`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waited {
    /// The child exited (not reaped).
    Exited,
    /// The limit passed first.
    TimedOut,
    /// A signal was caught first ([`interrupt::caught`]).
    Interrupted,
}

/// Wait until `child` exits, `limit` passes or a signal is caught, without
/// reaping it: its output stays readable and its group id reserved. Polls at
/// 1 ms, backing off to 50 ms.
fn wait_at_most(child: &Tracked, limit: Duration) -> std::io::Result<Waited> {
    let deadline = Instant::now() + limit;
    let mut pause = Duration::from_millis(1);
    loop {
        if child.exited()? {
            return Ok(Waited::Exited);
        }
        if interrupt::caught().is_some() {
            return Ok(Waited::Interrupted);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(Waited::TimedOut);
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

fn find_binary(flag: Option<&Utf8Path>) -> Result<Utf8PathBuf> {
    let explicit = match flag {
        Some(p) => Some((p.to_owned(), "--claude")),
        None => std::env::var("BOB_EVAL_CLAUDE")
            .ok()
            .filter(|v| !v.is_empty())
            .map(|v| (v.into(), "BOB_EVAL_CLAUDE")),
    };
    if let Some((path, from)) = explicit {
        return if path.is_file() {
            Ok(path)
        } else {
            Err(Error::PlatformMissing(format!(
                "{path} (from {from}) does not exist or is not a file; {INSTALL}"
            )))
        };
    }
    let dirs = std::env::var("PATH").unwrap_or_default();
    for dir in dirs.split(':').filter(|d| !d.is_empty()) {
        let candidate = Utf8Path::new(dir).join("claude");
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(Error::PlatformMissing(format!(
        "no `claude` found: no --claude, no BOB_EVAL_CLAUDE, and none on PATH ({dirs}); {INSTALL}"
    )))
}

fn is_executable(path: &Utf8Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The first `X.Y.Z` in `claude --version` output (`2.1.328 (Claude Code)`):
/// three dot-separated runs of digits, not glued to other digits or word characters.
fn parse_version(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let word = |i: usize| {
        bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    let digits = |mut i: usize| {
        let start = i;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    let mut start = 0;
    while start < bytes.len() {
        if bytes[start].is_ascii_digit() && (start == 0 || !word(start - 1)) {
            let end = digits(start)
                .filter(|&i| bytes.get(i) == Some(&b'.'))
                .and_then(|i| digits(i + 1))
                .filter(|&i| bytes.get(i) == Some(&b'.'))
                .and_then(|i| digits(i + 1))
                .filter(|&i| !word(i));
            if let Some(end) = end {
                return Some(text[start..end].to_string());
            }
        }
        start += 1;
    }
    None
}

fn version_tuple(v: &str) -> (u64, u64, u64) {
    let mut parts = v.split('.').map(|p| p.parse().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

/// The arguments after `<claude>` (contracts.md, "run").
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

fn output_dir(plugin_dir: &Utf8Path) -> Utf8PathBuf {
    plugin_dir.join(".bob-eval").join("out")
}

/// The environment variable that tags a child of bob-eval and everything it
/// starts: `<bob-eval pid>-<count>-<nanoseconds>`, one value per child.
pub const TAG: &str = "BOB_EVAL_PLATFORM_TAG";

/// A fresh value for [`TAG`].
fn new_tag() -> String {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}-{}-{nanos}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::SeqCst)
    )
}

/// A child (the probe, or the platform), leader of its own process group and
/// tagged with [`TAG`]. The child is reaped only by [`Tracked::reap`] or
/// [`Tracked::output`], after the last signal to the group: until then its
/// pid, and so the group id, cannot be reused. Dropped unreaped (an early
/// error, an interrupt), it kills the group and every tagged process and reaps
/// the child, so nothing it started outlives it.
#[derive(Debug)]
struct Tracked {
    /// `None` once reaped.
    child: Option<std::process::Child>,
    pid: libc::pid_t,
    tag: String,
}

impl Tracked {
    /// Spawn `cmd` in a process group of its own, tagged.
    fn spawn(cmd: &mut Command) -> std::io::Result<Self> {
        let tag = new_tag();
        let child = cmd.process_group(0).env(TAG, &tag).spawn()?;
        let pid = libc::pid_t::try_from(child.id())
            .map_err(|_| std::io::Error::other("a process id out of range"))?;
        Ok(Tracked {
            child: Some(child),
            pid,
            tag,
        })
    }

    /// Send `sig` to every process in the group.
    fn signal(&self, sig: libc::c_int) {
        // SAFETY: kill(2) on the process group of our own child, which is not
        // reaped yet (so the group id is still ours).
        unsafe { libc::kill(-self.pid, sig) };
    }

    /// Kill the group, then every process carrying the tag wherever it went.
    fn kill_all(&self) {
        self.signal(libc::SIGKILL);
        kill_tagged(&self.tag);
    }

    /// Whether the child has exited, without reaping it (`WNOHANG | WNOWAIT`).
    fn exited(&self) -> std::io::Result<bool> {
        loop {
            // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid(2).
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            // SAFETY: waitid(2) on our own child; WNOWAIT leaves it unreaped.
            let rc = unsafe {
                libc::waitid(
                    libc::P_PID,
                    self.pid as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                )
            };
            if rc == 0 {
                // SAFETY: waitid filled `info`; si_pid is 0 when no child changed state.
                return Ok(unsafe { info.si_pid() } != 0);
            }
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
    }

    /// The child has exited: kill what is left of its group (and, with
    /// `everything`, every tagged process), then reap it.
    fn reap(mut self, everything: bool) -> std::io::Result<ExitStatus> {
        if everything {
            self.kill_all();
        } else {
            self.signal(libc::SIGKILL);
        }
        let mut child = self.child.take().expect("reaped once");
        child.wait()
    }

    /// The child has exited: kill what is left of its group, then read its
    /// output and reap it.
    fn output(mut self) -> std::io::Result<std::process::Output> {
        self.signal(libc::SIGKILL);
        let child = self.child.take().expect("reaped once");
        child.wait_with_output()
    }

    /// The child, to take its pipes.
    fn child_mut(&mut self) -> &mut std::process::Child {
        self.child.as_mut().expect("not reaped yet")
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            self.kill_all();
            let _ = child.wait();
        }
    }
}

/// SIGKILL every process but this one whose environment holds `TAG=tag`, until
/// none is left (at most 2 s). Each is pinned with a pidfd and checked again
/// before the signal, so a pid reused meanwhile is never hit.
#[cfg(target_os = "linux")]
fn kill_tagged(tag: &str) {
    let entry = format!("{TAG}={tag}");
    let own = std::process::id();
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return;
        };
        let mut found = 0;
        for pid in dir
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
            .filter(|pid| u32::try_from(*pid).is_ok_and(|p| p != own))
        {
            if tagged(pid, &entry) {
                found += 1;
                kill_pinned(pid, &entry);
            }
        }
        if found == 0 || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Without `/proc`, only the process group is reached.
#[cfg(not(target_os = "linux"))]
fn kill_tagged(_tag: &str) {}

/// Whether process `pid` (alive, ours to read) has `entry` in its environment.
#[cfg(target_os = "linux")]
fn tagged(pid: libc::pid_t, entry: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == entry.as_bytes()))
}

/// SIGKILL `pid` if it still holds `entry`, through a pidfd (plain kill(2) on
/// kernels without pidfds).
#[cfg(target_os = "linux")]
fn kill_pinned(pid: libc::pid_t, entry: &str) {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    // SAFETY: pidfd_open(2) takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let Ok(raw) = libc::c_int::try_from(fd) else {
        return;
    };
    if raw < 0 {
        if std::io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS) {
            // SAFETY: kill(2) on a pid just seen with our tag.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        return;
    }
    // SAFETY: `raw` is a new fd that nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    // The fd pins this very process: check it is still the tagged one.
    if tagged(pid, entry) {
        // SAFETY: pidfd_send_signal(2) on a pidfd we own, no siginfo, no flags.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                fd.as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        };
    }
}

/// Block until child `pid` has exited, without reaping it (`WNOWAIT`).
fn wait_exited(pid: libc::pid_t) -> std::io::Result<()> {
    loop {
        // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid(2).
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid(2) on our own child; WNOWAIT leaves it for `Tracked::reap`.
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// What the stderr reader collected.
#[derive(Debug, Default)]
struct StderrSummary {
    cross_lines: Vec<String>,
    tail: std::collections::VecDeque<String>,
}

const TAIL: usize = 12;

/// The longest platform stderr line kept; the rest of a longer line is dropped
/// (a platform printing without newlines cannot grow bob-eval's memory).
const MAX_LINE: usize = 64 * 1024;

/// Read one line (through `\n`) into `buf`, keeping at most `max` bytes of it.
/// Returns the bytes consumed (0 at the end of the stream).
fn read_line_bounded(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<usize> {
    buf.clear();
    let mut consumed = 0;
    loop {
        let available = match input.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(consumed);
        }
        let (used, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        let room = max.saturating_sub(buf.len());
        buf.extend_from_slice(&available[..used.min(room)]);
        input.consume(used);
        consumed += used;
        if done {
            return Ok(consumed);
        }
    }
}

/// How long the platform may take to finish up after a forwarded signal.
const KILL_AFTER: Duration = Duration::from_secs(20);

/// How long a platform past `--platform-timeout` has after SIGTERM before SIGKILL.
const TIMEOUT_GRACE: Duration = Duration::from_secs(5);

/// How often the wait loop looks at the caught signal and the clock.
const POLL: Duration = Duration::from_millis(50);

/// What the wait loop does to the platform's process group next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    /// Nothing yet: poll again.
    Wait,
    /// Send this signal (a forwarded one, or SIGTERM past the timeout).
    Signal(libc::c_int),
    /// Send SIGKILL: the platform had its grace and did not exit.
    Kill,
}

/// The signal the platform gets for one bob-eval caught: SIGINT as it is, the
/// others as SIGTERM. The platform is not on bob-eval's terminal (its own
/// process group, no stdin), so a hang-up is not its own; and SIGTERM, unlike
/// SIGHUP and SIGQUIT, is the stop it handles gracefully (it ends its agents
/// and removes its own temp folder).
fn forwarded(caught: libc::c_int) -> libc::c_int {
    if caught == libc::SIGINT {
        libc::SIGINT
    } else {
        libc::SIGTERM
    }
}

/// The wait loop's decisions as a pure state machine (no clock, no signals of
/// its own): a caught signal is forwarded once ([`forwarded`]), and SIGKILL follows
/// [`KILL_AFTER`] later; past `--platform-timeout` the group gets SIGTERM,
/// then SIGKILL after [`TIMEOUT_GRACE`]. A signal caught during that grace is
/// still forwarded, and its longer grace then applies. SIGKILL is sent once.
#[derive(Debug, Default)]
struct Waiter {
    /// When a caught signal was forwarded.
    forwarded: Option<Instant>,
    /// When SIGTERM was sent for the timeout.
    timed_out: Option<Instant>,
    /// Whether SIGKILL was sent.
    killed: bool,
}

impl Waiter {
    /// Decide what to do at `now`, `elapsed` after the platform started, with
    /// the signal caught so far (if any) and the run's timeout (if any).
    fn tick(
        &mut self,
        now: Instant,
        elapsed: Duration,
        caught: Option<libc::c_int>,
        timeout: Option<Duration>,
    ) -> Action {
        let stopping = self.forwarded.or(self.timed_out);
        if let Some(sig) = caught
            && self.forwarded.is_none()
        {
            self.forwarded = Some(now);
            return Action::Signal(forwarded(sig));
        }
        if stopping.is_none() && timeout.is_some_and(|t| elapsed > t) {
            self.timed_out = Some(now);
            return Action::Signal(libc::SIGTERM);
        }
        if let Some(at) = stopping {
            let grace = if self.forwarded.is_some() {
                KILL_AFTER
            } else {
                TIMEOUT_GRACE
            };
            if !self.killed && now.saturating_duration_since(at) > grace {
                // The platform had its chance to finish up; do not hang on it.
                self.killed = true;
                return Action::Kill;
            }
        }
        Action::Wait
    }
}

/// Run `claude plugin eval` on `plugin`; map its exit status (contracts.md).
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
    // Its own process group, so that a forwarded signal or a timeout reaches
    // everything the platform started, not only its first process.
    let mut group = Tracked::spawn(
        Command::new(&platform.path)
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
    let item = plugin.item.name.clone();
    observer.event(&Event::PlatformStarted {
        item: item.clone(),
        ceiling: opts.max_cost_usd,
    });
    let reader = spawn_stderr_reader(stderr, log, item, observer, Arc::clone(&summary), done_tx);

    let waiter = wait_for_exit(&group, platform, clock, timeout)?;
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

/// Read the platform's stderr on a thread until it closes: copy each line to
/// `log`, turn progress lines into events, keep the `✗` lines and a tail in
/// `summary`, then say so on `done`. An observer that panics (its stderr went
/// with the terminal: SIGHUP) does not stop the reading, so the platform never
/// blocks on a full pipe.
fn spawn_stderr_reader(
    stderr: std::process::ChildStderr,
    mut log: std::fs::File,
    item: String,
    observer: Arc<dyn Observer>,
    summary: Arc<Mutex<StderrSummary>>,
    done: mpsc::Sender<()>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let tell = |event: &Event| {
            let _ =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| observer.event(event)));
        };
        let mut input = BufReader::new(stderr);
        let mut buf = Vec::new();
        while read_line_bounded(&mut input, &mut buf, MAX_LINE).is_ok_and(|n| n > 0) {
            let _ = log.write_all(&buf);
            if buf.last() != Some(&b'\n') {
                let _ = log.write_all(b"\n");
            }
            let line = String::from_utf8_lossy(&buf).trim_end().to_string();
            if let Some(event) = parse_progress(&item, &line) {
                tell(&event);
            }
            let mut s = summary.lock().unwrap_or_else(|p| p.into_inner());
            if line.trim_start().starts_with('✗') && s.cross_lines.len() < 50 {
                s.cross_lines.push(line.trim().to_string());
            }
            if !line.trim().is_empty() {
                s.tail.push_back(line);
                if s.tail.len() > TAIL {
                    s.tail.pop_front();
                }
            }
            drop(s);
            buf.clear();
        }
        let _ = log.flush();
        tell(&Event::PlatformFinished { item });
        let _ = done.send(());
    })
}

/// Wait until the platform (the leader of `group`) exits, without reaping it;
/// every [`POLL`] apply what [`Waiter::tick`] decides. Returns the waiter, which
/// says whether a signal was forwarded or the run timed out.
fn wait_for_exit(
    group: &Tracked,
    platform: &Platform,
    clock: Instant,
    timeout: Option<Duration>,
) -> Result<Waiter> {
    let (exited_tx, exited_rx) = mpsc::channel();
    let pid = group.pid;
    std::thread::spawn(move || {
        let _ = exited_tx.send(wait_exited(pid));
    });
    let mut waiter = Waiter::default();
    loop {
        match exited_rx.recv_timeout(POLL) {
            Ok(exited) => {
                exited.map_err(|e| Error::io(&platform.path, "waiting for the platform", e))?;
                return Ok(waiter);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let caught = interrupt::caught();
                let now = Instant::now();
                match waiter.tick(now, now.saturating_duration_since(clock), caught, timeout) {
                    Action::Wait => {}
                    Action::Signal(s) => group.signal(s),
                    Action::Kill => group.signal(libc::SIGKILL),
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Error::PlatformFailed {
                    message: "lost track of the platform process".into(),
                    details: vec![],
                });
            }
        }
    }
}

fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("code {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => "unknown status".into(),
    }
}

/// The `✗` lines and the tail of the platform's stderr, for an error. Lines
/// naming a file under `hidden` (the plugin folder, removed when not kept:
/// the platform's `Report: …/report.html`, say) are left out, and a last line
/// says so.
fn error_lines(summary: &StderrSummary, hidden: Option<&Utf8Path>) -> Vec<String> {
    let mut details = summary.cross_lines.clone();
    for line in &summary.tail {
        if !details.iter().any(|d| d == line.trim()) {
            details.push(line.clone());
        }
    }
    if let Some(dir) = hidden {
        let before = details.len();
        details.retain(|line| !line.contains(dir.as_str()));
        if details.len() < before {
            details.push(format!(
                "({} line(s) naming files in the plugin folder, now removed, are left out: --keep keeps the folder with the platform's report and logs)",
                before - details.len()
            ));
        }
    }
    details
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
            if document.is_file() && partial_reason(document).as_deref() == Some("auth_failed") {
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

/// `partialReason` of a platform document, read without typing the rest.
fn partial_reason(document: &Utf8Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(rename = "partialReason")]
        partial_reason: Option<String>,
    }
    let bytes = crate::fsio::read(document, crate::config::MAX_INPUT_FILE).ok()?;
    serde_json::from_slice::<Head>(&bytes).ok()?.partial_reason
}

fn last_lines(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    lines[lines.len().saturating_sub(n)..].to_vec()
}

/// Parse one platform stderr line of `item`'s run into a progress event;
/// `None` for anything else.
fn parse_progress(item: &str, line: &str) -> Option<Event> {
    static TOTAL: OnceLock<Regex> = OnceLock::new();
    static RUN: OnceLock<Regex> = OnceLock::new();
    let total = TOTAL.get_or_init(|| {
        Regex::new(r"^Ablation: \d+ arms? × \d+ cases? \((\d+) runs?\)").expect("valid regex")
    });
    let run = RUN.get_or_init(|| {
        Regex::new(
            r"^\s+(\S+) run (\d+/\d+)(?: \[(with|without)\])?: score ([0-9.]+)\s+\$([0-9.]+)",
        )
        .expect("valid regex")
    });
    if let Some(c) = total.captures(line) {
        return c[1].parse().ok().map(|total| Event::RunsPlanned {
            item: item.into(),
            total,
        });
    }
    if let Some(c) = run.captures(line) {
        return Some(Event::RunDone {
            item: item.into(),
            case: c[1].to_string(),
            which: c[2].to_string(),
            // A single-arm run (`--ablation none`) names no arm: it is the with arm.
            arm: c.get(3).map_or("with", |m| m.as_str()).to_string(),
            score: c[4].parse().ok()?,
            cost: c[5].parse().ok()?,
        });
    }
    let trimmed = line.trim_start();
    trimmed
        .starts_with("⚠ cost ceiling")
        .then(|| Event::CeilingHit {
            item: item.into(),
            text: trimmed.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(
            parse_version("2.1.328 (Claude Code)\n").as_deref(),
            Some("2.1.328")
        );
        assert_eq!(parse_version("garbage"), None);
        assert_eq!(
            parse_version("v 10.20.30-beta").as_deref(),
            Some("10.20.30")
        );
        assert_eq!(parse_version("1.2 and 3.4.5").as_deref(), Some("3.4.5"));
        assert_eq!(parse_version("x1.2.3 1.2.3.4 a").as_deref(), Some("1.2.3"));
        assert_eq!(parse_version("x1.2.3 a1.2.3b"), None);
        assert!(version_tuple("2.1.272") <= version_tuple("2.1.328"));
        assert!(version_tuple("2.1.99") < version_tuple("2.1.272"));
        assert!(version_tuple("10.0.0") > version_tuple("2.1.272"));
    }

    #[test]
    fn a_dropped_probe_leaves_no_zombie() {
        let probe = start_locate(Some(Utf8Path::new("/bin/sleep"))).unwrap();
        let pid = probe.child.pid;
        drop(probe);
        let mut status = 0;
        // SAFETY: waitpid on a child of this process, without blocking.
        let reaped = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert_eq!(reaped, -1, "the probe {pid} was not reaped when dropped");
    }

    #[test]
    fn waiting_for_a_probe_is_bounded() {
        let slow = Tracked::spawn(Command::new("/bin/sleep").arg("5")).unwrap();
        let waited = wait_at_most(&slow, Duration::from_millis(50)).unwrap();
        drop(slow);
        assert_eq!(
            waited,
            Waited::TimedOut,
            "a 5 s child counted as done within 50 ms"
        );
        let quick = Tracked::spawn(&mut Command::new("/bin/true")).unwrap();
        assert_eq!(
            wait_at_most(&quick, Duration::from_secs(10)).unwrap(),
            Waited::Exited
        );
        assert!(
            quick.reap(false).unwrap().success(),
            "still reapable after the wait"
        );
    }

    #[test]
    fn a_tagged_process_is_killed_in_a_session_of_its_own() {
        // The child starts a grandchild in a new session (as the platform
        // starts its agents), prints its pid and exits once it runs `sleep`
        // (setsid(2) done: out of reach of the group's SIGKILL).
        let script = "setsid sleep 30 </dev/null >/dev/null 2>&1 & p=$!; \
            until grep -qa '^sleep' /proc/$p/cmdline 2>/dev/null; do sleep 0.01; done; echo $p";
        let child = Tracked::spawn(
            Command::new("/bin/sh")
                .args(["-c", script])
                .stdout(Stdio::piped()),
        )
        .unwrap();
        let tag = child.tag.clone();
        assert_eq!(
            wait_at_most(&child, Duration::from_secs(10)).unwrap(),
            Waited::Exited
        );
        let out = child.output().unwrap();
        let orphan: libc::pid_t = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        let entry = format!("{TAG}={tag}");
        assert!(tagged(orphan, &entry), "the orphan {orphan} is not running");
        kill_tagged(&tag);
        let left: Vec<libc::pid_t> = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .filter(|pid| tagged(*pid, &entry))
            .collect();
        assert!(left.is_empty(), "tagged processes left: {left:?}");
    }

    #[test]
    fn sighup_sigterm_and_sigquit_reach_the_platform_as_sigterm() {
        for (caught, sent) in [
            (libc::SIGINT, libc::SIGINT),
            (libc::SIGTERM, libc::SIGTERM),
            (libc::SIGHUP, libc::SIGTERM),
            (libc::SIGQUIT, libc::SIGTERM),
        ] {
            let mut w = Waiter::default();
            let t0 = Instant::now();
            assert_eq!(
                w.tick(t0, Duration::ZERO, Some(caught), None),
                Action::Signal(sent),
                "{}",
                interrupt::name(caught)
            );
            let later = KILL_AFTER + MS;
            assert_eq!(w.tick(t0 + later, later, Some(caught), None), Action::Kill);
        }
    }

    #[test]
    fn argument_list() {
        let opts = RunOptions::new("default", 2.0);
        let args = arguments(Utf8Path::new("/p"), &opts).join(" ");
        assert_eq!(
            args,
            "plugin eval /p --ablation with-without --output-dir /p/.bob-eval/out --threshold 0 --max-cost-usd 2 --trust-plugin --no-publish"
        );
        let opts = RunOptions {
            runs: Some(2),
            judge_model: Some("sonnet".into()),
            jobs: Some(4),
            timeout: Some(Duration::from_secs(60)),
            case: Some("fi*".into()),
            tags: vec!["a".into(), "b".into()],
            allow_tools: vec!["Write".into(), "Bash(git:*)".into()],
            disallow_tools: vec!["Agent".into()],
            ..RunOptions::new("haiku", 0.25)
        };
        let args = arguments(Utf8Path::new("/p"), &opts).join(" ");
        let single = RunOptions {
            ablation: Ablation::WithOnly,
            ..RunOptions::new("default", 2.0)
        };
        assert!(
            arguments(Utf8Path::new("/p"), &single)
                .join(" ")
                .starts_with("plugin eval /p --ablation none --output-dir")
        );
        assert!(args.ends_with("--max-cost-usd 0.25 --trust-plugin --no-publish --model haiku --runs 2 --judge-model sonnet -j 4 --case fi* --tag a --tag b --allow-tools Write Bash(git:*) --disallow-tools Agent"), "{args}");
    }

    #[test]
    fn progress_lines() {
        assert_eq!(
            parse_progress("x", "Ablation: 2 arms × 2 cases (8 runs)"),
            Some(Event::RunsPlanned {
                item: "x".into(),
                total: 8
            })
        );
        assert_eq!(
            parse_progress("x", "  fires run 1/2 [with]: score 1.00  $0.03"),
            Some(Event::RunDone {
                item: "x".into(),
                case: "fires".into(),
                which: "1/2".into(),
                arm: "with".into(),
                score: 1.0,
                cost: 0.03
            })
        );
        assert_eq!(
            parse_progress("x", "  fires run 2/3: score 0.50  $0.02"),
            Some(Event::RunDone {
                item: "x".into(),
                case: "fires".into(),
                which: "2/3".into(),
                arm: "with".into(),
                score: 0.5,
                cost: 0.02
            }),
            "a single-arm run is the with arm"
        );
        assert!(matches!(
            parse_progress("x", "⚠ cost ceiling $0.01 hit; skipping remaining cases"),
            Some(Event::CeilingHit { .. })
        ));
        for other in [
            "    ✓ fires [with-only, not scored]: Skill called 1x",
            "Plugin under test: x",
            "",
            "  fires run x [with]",
        ] {
            assert_eq!(parse_progress("x", other), None, "{other}");
        }
    }

    #[test]
    fn long_lines_are_cut_and_the_rest_consumed() {
        let text = format!("{}\nnext\n", "a".repeat(100));
        let mut input = std::io::Cursor::new(text.into_bytes());
        let mut buf = Vec::new();
        assert_eq!(read_line_bounded(&mut input, &mut buf, 10).unwrap(), 101);
        assert_eq!(buf, b"aaaaaaaaaa");
        assert_eq!(read_line_bounded(&mut input, &mut buf, 10).unwrap(), 5);
        assert_eq!(buf, b"next\n");
        assert_eq!(read_line_bounded(&mut input, &mut buf, 10).unwrap(), 0);
    }

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_caught_signal_is_forwarded_once_then_killed_after_kill_after() {
        let t0 = Instant::now();
        let mut w = Waiter::default();
        let int = Some(libc::SIGINT);
        assert_eq!(w.tick(t0, Duration::ZERO, None, None), Action::Wait);
        assert_eq!(
            w.tick(t0, Duration::ZERO, int, None),
            Action::Signal(libc::SIGINT)
        );
        assert_eq!(w.tick(t0 + POLL, POLL, int, None), Action::Wait);
        assert_eq!(w.tick(t0 + KILL_AFTER, KILL_AFTER, int, None), Action::Wait);
        let later = KILL_AFTER + MS;
        assert_eq!(w.tick(t0 + later, later, int, None), Action::Kill);
        assert_eq!(w.tick(t0 + later * 2, later * 2, int, None), Action::Wait);
        assert!(w.forwarded.is_some() && w.timed_out.is_none());
    }

    #[test]
    fn a_timeout_sends_sigterm_then_sigkill_after_the_grace() {
        let t0 = Instant::now();
        let limit = Some(Duration::from_secs(10));
        let mut w = Waiter::default();
        let at = |d: Duration| (t0 + d, d);
        let (now, e) = at(Duration::from_secs(10));
        assert_eq!(w.tick(now, e, None, limit), Action::Wait, "not past it yet");
        let (now, e) = at(Duration::from_secs(10) + MS);
        assert_eq!(w.tick(now, e, None, limit), Action::Signal(libc::SIGTERM));
        let term = e;
        let (now, e) = at(term + TIMEOUT_GRACE);
        assert_eq!(w.tick(now, e, None, limit), Action::Wait);
        let (now, e) = at(term + TIMEOUT_GRACE + MS);
        assert_eq!(w.tick(now, e, None, limit), Action::Kill);
        let (now, e) = at(term + TIMEOUT_GRACE * 3);
        assert_eq!(
            w.tick(now, e, None, limit),
            Action::Wait,
            "one SIGTERM, one SIGKILL"
        );
        assert!(w.timed_out.is_some() && w.forwarded.is_none());
    }

    #[test]
    fn without_a_timeout_or_a_signal_it_waits_forever() {
        let t0 = Instant::now();
        let mut w = Waiter::default();
        for hours in [0, 1, 24, 24 * 365] {
            let e = Duration::from_secs(hours * 3600);
            assert_eq!(w.tick(t0 + e, e, None, None), Action::Wait);
        }
        assert!(w.forwarded.is_none() && w.timed_out.is_none() && !w.killed);
    }

    #[test]
    fn a_signal_during_the_timeout_grace_is_forwarded_and_gets_kill_after() {
        let t0 = Instant::now();
        let limit = Some(Duration::from_secs(1));
        let mut w = Waiter::default();
        let term = Duration::from_secs(2);
        assert_eq!(
            w.tick(t0 + term, term, None, limit),
            Action::Signal(libc::SIGTERM)
        );
        let caught = term + Duration::from_secs(1);
        let int = Some(libc::SIGINT);
        assert_eq!(
            w.tick(t0 + caught, caught, int, limit),
            Action::Signal(libc::SIGINT)
        );
        let e = term + TIMEOUT_GRACE + MS;
        assert_eq!(
            w.tick(t0 + e, e, int, limit),
            Action::Wait,
            "the signal's grace applies"
        );
        let e = caught + KILL_AFTER + MS;
        assert_eq!(w.tick(t0 + e, e, int, limit), Action::Kill);
        assert!(w.forwarded.is_some() && w.timed_out.is_some());
    }

    #[test]
    fn a_signal_caught_past_the_timeout_is_forwarded_instead_of_sigterm() {
        let t0 = Instant::now();
        let e = Duration::from_secs(5);
        let mut w = Waiter::default();
        let term = Some(libc::SIGTERM);
        let limit = Some(Duration::from_secs(1));
        assert_eq!(
            w.tick(t0 + e, e, term, limit),
            Action::Signal(libc::SIGTERM)
        );
        assert_eq!(w.tick(t0 + e + POLL, e + POLL, term, limit), Action::Wait);
        assert!(w.forwarded.is_some() && w.timed_out.is_none());
    }

    #[test]
    fn sigkill_is_sent_only_once() {
        let t0 = Instant::now();
        let mut w = Waiter::default();
        let int = Some(libc::SIGINT);
        let limit = Some(Duration::ZERO);
        assert_eq!(w.tick(t0, MS, int, limit), Action::Signal(libc::SIGINT));
        let kills = (1..1000)
            .map(|i| KILL_AFTER + POLL * i)
            .filter(|&e| w.tick(t0 + e, e, int, limit) == Action::Kill)
            .count();
        assert_eq!(kills, 1);
        assert!(w.killed);
    }
}
