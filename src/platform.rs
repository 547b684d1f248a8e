//! The platform: find `claude`, check its version, run `claude plugin eval`.
//!
//! The argument list is fixed by contracts.md ("run"); the platform's stderr is
//! kept in `<plugin>/.bob-eval/platform-stderr.log` and parsed, best effort, for
//! progress. Ctrl-C and SIGTERM go to the child first; bob-eval then stops with
//! [`Error::Interrupted`].

use crate::error::{Error, Result};
use crate::event::{Event, Observer};
use crate::plugin::Plugin;
use camino::{Utf8Path, Utf8PathBuf};
use chrono::{DateTime, Utc};
use regex::Regex;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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

/// What a platform run is held to.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// The model; `default` is not passed.
    pub model: String,
    /// `--runs`.
    pub runs: Option<u32>,
    /// `--max-cost-usd`, already validated.
    pub max_cost_usd: f64,
    /// `--judge-model`.
    pub judge_model: Option<String>,
    /// `-j`.
    pub jobs: Option<u32>,
    /// `--platform-timeout`: stop the platform once it has run this long.
    pub timeout: Option<Duration>,
    /// `--case GLOB`: the platform takes one (the last one wins).
    pub case: Option<String>,
    /// `--tag T…`: cases holding any of these tags.
    pub tags: Vec<String>,
    /// `--allow-tools T…`: the operator's grant for gated tools.
    pub allow_tools: Vec<String>,
    /// `--disallow-tools T…`: tools kept from the model in every case.
    pub disallow_tools: Vec<String>,
}

impl RunOptions {
    /// Options with nothing but the model and the ceiling set.
    pub fn new(model: impl Into<String>, max_cost_usd: f64) -> Self {
        RunOptions {
            model: model.into(),
            runs: None,
            max_cost_usd,
            judge_model: None,
            jobs: None,
            timeout: None,
            case: None,
            tags: Vec::new(),
            allow_tools: Vec::new(),
            disallow_tools: Vec::new(),
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

/// Find `claude`: `flag`, else `$BOB_EVAL_CLAUDE`, else `PATH`; check its version.
pub fn locate(flag: Option<&Utf8Path>) -> Result<Platform> {
    start_locate(flag)?.finish()
}

/// A `claude --version` started by [`start_locate`], not yet waited for.
/// Dropped without [`VersionProbe::finish`] (an error in between), it kills and
/// reaps the probe, so no zombie outlives it.
#[derive(Debug)]
pub struct VersionProbe {
    path: Utf8PathBuf,
    /// `None` once [`VersionProbe::finish`] took it.
    child: Option<std::process::Child>,
}

/// Find `claude` and start `claude --version` without waiting for it, so that
/// other set-up work (the plugin) overlaps the platform's start-up.
pub fn start_locate(flag: Option<&Utf8Path>) -> Result<VersionProbe> {
    let path = find_binary(flag)?;
    let child = Command::new(&path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::PlatformMissing(format!("{path} could not be started: {e}; {INSTALL}"))
        })?;
    Ok(VersionProbe {
        path,
        child: Some(child),
    })
}

impl VersionProbe {
    /// Wait for `claude --version` and check what it printed.
    pub fn finish(mut self) -> Result<Platform> {
        let path = std::mem::take(&mut self.path);
        let mut child = self.child.take().expect("a probe is finished once");
        let waited = wait_at_most(&mut child, VERSION_TIMEOUT);
        if !matches!(waited, Ok(true)) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(match waited {
                Err(e) => {
                    Error::PlatformMissing(format!("{path} could not be started: {e}; {INSTALL}"))
                }
                _ => Error::PlatformFailed {
                    message: format!(
                        "`{path} --version` did not answer within {} s: is it Claude Code? {INSTALL}",
                        VERSION_TIMEOUT.as_secs()
                    ),
                    details: vec![],
                },
            });
        }
        let output = child.wait_with_output().map_err(|e| {
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

/// Wait until `child` exits (`Ok(true)`) or `limit` passes (`Ok(false)`), without
/// reaping it: its output stays readable. Polls at 1 ms, backing off to 50 ms.
fn wait_at_most(child: &mut std::process::Child, limit: Duration) -> std::io::Result<bool> {
    let deadline = std::time::Instant::now() + limit;
    let mut pause = Duration::from_millis(1);
    loop {
        if child.try_wait()?.is_some() {
            return Ok(true);
        }
        let now = std::time::Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

impl Drop for VersionProbe {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
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
        "with-without".into(),
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

/// Signal state shared with the handlers: the signal caught during a run, and
/// whether a run is in progress (outside one, a signal exits with 130 at once).
struct Signals {
    caught: Arc<AtomicUsize>,
    idle: Arc<AtomicBool>,
    /// Platform runs in progress (a sweep runs several at once).
    active: Mutex<usize>,
}

fn signals() -> Result<&'static Signals> {
    static S: OnceLock<std::result::Result<Signals, String>> = OnceLock::new();
    S.get_or_init(|| {
        let caught = Arc::new(AtomicUsize::new(0));
        let idle = Arc::new(AtomicBool::new(true));
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&idle))
                .map_err(|e| e.to_string())?;
            signal_hook::flag::register_usize(sig, Arc::clone(&caught), sig as usize)
                .map_err(|e| e.to_string())?;
        }
        Ok(Signals {
            caught,
            idle,
            active: Mutex::new(0),
        })
    })
    .as_ref()
    .map_err(|e| Error::PlatformFailed {
        message: format!("cannot install signal handlers: {e}"),
        details: vec![],
    })
}

impl Signals {
    /// Mark one more run in progress. The first run clears an old signal; a
    /// run starting while others are being interrupted is refused.
    fn begin(&'static self) -> Result<Busy> {
        let mut active = self.active.lock().unwrap_or_else(|p| p.into_inner());
        if *active == 0 {
            self.caught.store(0, Ordering::SeqCst);
        } else if self.caught.load(Ordering::SeqCst) != 0 {
            return Err(Error::Interrupted);
        }
        *active += 1;
        self.idle.store(false, Ordering::SeqCst);
        Ok(Busy(self))
    }
}

/// Marks a run in progress until dropped; the process is idle (a signal exits
/// at once) only when no run is left.
struct Busy(&'static Signals);

impl Drop for Busy {
    fn drop(&mut self) {
        let mut active = self.0.active.lock().unwrap_or_else(|p| p.into_inner());
        *active = active.saturating_sub(1);
        if *active == 0 {
            self.0.idle.store(true, Ordering::SeqCst);
        }
    }
}

/// The platform child, leader of its own process group. The child is reaped
/// only by [`Group::reap`], after the last signal to the group: until then its
/// pid, and so the group id, cannot be reused. Dropped unreaped (an early
/// error), it kills the group and reaps the child, so nothing outlives the run.
struct Group {
    child: std::process::Child,
    pid: libc::pid_t,
    reaped: bool,
}

impl Group {
    fn new(child: std::process::Child) -> Self {
        let pid = child.id() as libc::pid_t;
        Group {
            child,
            pid,
            reaped: false,
        }
    }

    /// Send `sig` to every process in the group.
    fn signal(&self, sig: libc::c_int) {
        // SAFETY: kill(2) on the process group of our own child, which is not reaped yet.
        unsafe { libc::kill(-self.pid, sig) };
    }

    /// Reap the child (it has exited: [`wait_exited`] said so).
    fn reap(mut self) -> std::io::Result<ExitStatus> {
        self.reaped = true;
        self.child.wait()
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if !self.reaped {
            self.signal(libc::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

/// Block until child `pid` has exited, without reaping it (`WNOWAIT`).
fn wait_exited(pid: libc::pid_t) -> std::io::Result<()> {
    loop {
        // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid(2).
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid(2) on our own child; WNOWAIT leaves it for `Group::reap`.
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

/// The wait loop's decisions as a pure state machine (no clock, no signals of
/// its own): a caught signal is forwarded once, and SIGKILL follows
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
            return Action::Signal(sig);
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

    let sig = signals()?;
    let _busy = sig.begin()?;

    let started = Utc::now();
    let clock = Instant::now();
    // Its own process group, so that a forwarded signal or a timeout reaches
    // everything the platform started, not only its first process.
    let mut child = Command::new(&platform.path)
        .args(arguments(&plugin.dir, opts))
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::from(stdout_file))
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::PlatformMissing(format!(
                "{} could not be started: {e}; {INSTALL}",
                platform.path
            ))
        })?;
    let stderr = child.stderr.take().expect("stderr is piped");
    let group = Group::new(child);

    let summary = Arc::new(Mutex::new(StderrSummary::default()));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let item = plugin.item.name.clone();
    observer.event(&Event::PlatformStarted {
        item: item.clone(),
        ceiling: opts.max_cost_usd,
    });
    let reader = spawn_stderr_reader(stderr, log, item, observer, Arc::clone(&summary), done_tx);

    let waiter = wait_for_exit(&group, platform, sig, clock, timeout)?;
    if waiter.timed_out.is_some() {
        // Whatever the platform left in its group must not outlive the run.
        group.signal(libc::SIGKILL);
    }
    let status = group
        .reap()
        .map_err(|e| Error::io(&platform.path, "waiting for the platform", e))?;
    // A grandchild may hold stderr open after the platform exits: do not wait for it forever.
    if done_rx.recv_timeout(Duration::from_secs(2)).is_ok() {
        let _ = reader.join();
    }
    let summary = std::mem::take(&mut *summary.lock().unwrap_or_else(|p| p.into_inner()));

    if waiter.forwarded.is_some() || sig.caught.load(Ordering::SeqCst) != 0 {
        return Err(Error::Interrupted);
    }
    if let (Some(_), Some(limit)) = (waiter.timed_out, timeout) {
        return Err(Error::PlatformFailed {
            message: format!(
                "the platform did not finish within {} s (--platform-timeout); it was stopped and nothing was written",
                limit.as_secs_f64()
            ),
            details: error_lines(&summary),
        });
    }
    let out = PlatformOutput {
        document: document.clone(),
        exit_code: status.code().unwrap_or(-1),
        started,
        stderr_log,
    };
    map_status(status, &summary, &document)?;
    Ok(out)
}

/// Read the platform's stderr on a thread until it closes: copy each line to
/// `log`, turn progress lines into events, keep the `✗` lines and a tail in
/// `summary`, then say so on `done`.
fn spawn_stderr_reader(
    stderr: std::process::ChildStderr,
    mut log: std::fs::File,
    item: String,
    observer: Arc<dyn Observer>,
    summary: Arc<Mutex<StderrSummary>>,
    done: mpsc::Sender<()>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut input = BufReader::new(stderr);
        let mut buf = Vec::new();
        while read_line_bounded(&mut input, &mut buf, MAX_LINE).is_ok_and(|n| n > 0) {
            let _ = log.write_all(&buf);
            if buf.last() != Some(&b'\n') {
                let _ = log.write_all(b"\n");
            }
            let line = String::from_utf8_lossy(&buf).trim_end().to_string();
            if let Some(event) = parse_progress(&item, &line) {
                observer.event(&event);
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
        observer.event(&Event::PlatformFinished { item });
        let _ = done.send(());
    })
}

/// Wait until the platform (the leader of `group`) exits, without reaping it;
/// every [`POLL`] apply what [`Waiter::tick`] decides. Returns the waiter, which
/// says whether a signal was forwarded or the run timed out.
fn wait_for_exit(
    group: &Group,
    platform: &Platform,
    sig: &Signals,
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
                let caught = match sig.caught.load(Ordering::SeqCst) {
                    0 => None,
                    n => Some(n as libc::c_int),
                };
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

fn error_lines(summary: &StderrSummary) -> Vec<String> {
    let mut details = summary.cross_lines.clone();
    for line in &summary.tail {
        if !details.iter().any(|d| d == line.trim()) {
            details.push(line.clone());
        }
    }
    details
}

fn map_status(status: ExitStatus, summary: &StderrSummary, document: &Utf8Path) -> Result<()> {
    use std::os::unix::process::ExitStatusExt;
    let failed = |message: String| Error::PlatformFailed {
        message,
        details: error_lines(summary),
    };
    match (status.code(), status.signal()) {
        (Some(0), _) => {}
        (Some(2), _) => {
            if document.is_file() && partial_reason(document).as_deref() == Some("auth_failed") {
                return Err(Error::PlatformFailed {
                    message: "the platform's credential was rejected (auth_failed): log in with `claude /login` or set ANTHROPIC_API_KEY, then run again".into(),
                    details: error_lines(summary),
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
    let bytes = std::fs::read(document).ok()?;
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
        Regex::new(r"^\s+(\S+) run (\d+/\d+) \[(with|without)\]: score ([0-9.]+)\s+\$([0-9.]+)")
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
            arm: c[3].to_string(),
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
        let pid = probe.child.as_ref().unwrap().id() as libc::pid_t;
        drop(probe);
        let mut status = 0;
        // SAFETY: waitpid on a child of this process, without blocking.
        let reaped = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert_eq!(reaped, -1, "the probe {pid} was not reaped when dropped");
    }

    #[test]
    fn waiting_for_a_probe_is_bounded() {
        let mut slow = Command::new("/bin/sleep").arg("5").spawn().unwrap();
        let waited = wait_at_most(&mut slow, Duration::from_millis(50)).unwrap();
        let _ = slow.kill();
        let _ = slow.wait();
        assert!(!waited, "a 5 s child counted as done within 50 ms");
        let mut quick = Command::new("/bin/true").spawn().unwrap();
        assert!(wait_at_most(&mut quick, Duration::from_secs(10)).unwrap());
        assert!(
            quick.wait().unwrap().success(),
            "still reapable after the wait"
        );
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
