//! Supervising the platform's processes: its group, the tag every process it
//! starts inherits, the wait loop that forwards signals and enforces the timeout.

use super::Platform;
use crate::error::interrupt;
use crate::error::{Error, Result};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{OnceLock, mpsc};
use std::time::{Duration, Instant};

/// How [`wait_at_most`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Waited {
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
pub(super) fn wait_at_most(child: &Tracked, limit: Duration) -> std::io::Result<Waited> {
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

/// The environment variable that tags a child of bob-eval and everything it
/// starts: `<bob-eval pid>-<count>-<nanoseconds>`, one value per child.
pub const TAG: &str = "BOB_EVAL_PLATFORM_TAG";

/// A fresh value for [`TAG`].
pub(super) fn new_tag() -> String {
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
pub(super) struct Tracked {
    /// `None` once reaped.
    pub(super) child: Option<std::process::Child>,
    pub(super) pid: libc::pid_t,
    pub(super) tag: String,
}

impl Tracked {
    /// Spawn `cmd` in a process group of its own, tagged.
    pub(super) fn spawn(cmd: &mut Command) -> std::io::Result<Self> {
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
    pub(super) fn signal(&self, sig: libc::c_int) {
        // SAFETY: kill(2) on the process group of our own child, which is not
        // reaped yet (so the group id is still ours).
        unsafe { libc::kill(-self.pid, sig) };
    }

    /// Kill the group, then every process carrying the tag wherever it went.
    pub(super) fn kill_all(&self) {
        self.signal(libc::SIGKILL);
        kill_tagged(&self.tag);
    }

    /// Whether the child has exited, without reaping it (`WNOHANG | WNOWAIT`).
    pub(super) fn exited(&self) -> std::io::Result<bool> {
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
    pub(super) fn reap(mut self, everything: bool) -> std::io::Result<ExitStatus> {
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
    pub(super) fn output(mut self) -> std::io::Result<std::process::Output> {
        self.signal(libc::SIGKILL);
        let child = self.child.take().expect("reaped once");
        child.wait_with_output()
    }

    /// The child, to take its pipes.
    pub(super) fn child_mut(&mut self) -> &mut std::process::Child {
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
pub(super) fn kill_tagged(tag: &str) {
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
pub(super) fn kill_tagged(_tag: &str) {}

/// Whether process `pid` (alive, ours to read) has `entry` in its environment.
#[cfg(target_os = "linux")]
pub(super) fn tagged(pid: libc::pid_t, entry: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == entry.as_bytes()))
}

/// SIGKILL `pid` if it still holds `entry`, through a pidfd (plain kill(2) on
/// kernels without pidfds).
#[cfg(target_os = "linux")]
pub(super) fn kill_pinned(pid: libc::pid_t, entry: &str) {
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
pub(super) fn wait_exited(pid: libc::pid_t) -> std::io::Result<()> {
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

/// How long the platform may take to finish up after a forwarded signal.
pub(super) const KILL_AFTER: Duration = Duration::from_secs(20);

/// How long a platform past `--platform-timeout` has after SIGTERM before SIGKILL.
pub(super) const TIMEOUT_GRACE: Duration = Duration::from_secs(5);

/// How often the wait loop looks at the caught signal and the clock.
pub(super) const POLL: Duration = Duration::from_millis(50);

/// What the wait loop does to the platform's process group next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WaitAction {
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
pub(super) fn forwarded(caught: libc::c_int) -> libc::c_int {
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
pub(super) struct Waiter {
    /// When a caught signal was forwarded.
    pub(super) forwarded: Option<Instant>,
    /// When SIGTERM was sent for the timeout.
    pub(super) timed_out: Option<Instant>,
    /// Whether SIGKILL was sent.
    pub(super) killed: bool,
    /// Why the API cannot be reached, when that stopped the run (SIGTERM,
    /// then SIGKILL after the timeout's grace).
    pub(super) unreachable: Option<String>,
}

impl Waiter {
    /// Decide what to do at `now`, `elapsed` after the platform started, with
    /// the signal caught so far (if any) and the run's timeout (if any).
    pub(super) fn tick(
        &mut self,
        now: Instant,
        elapsed: Duration,
        caught: Option<libc::c_int>,
        timeout: Option<Duration>,
    ) -> WaitAction {
        let stopping = self.forwarded.or(self.timed_out);
        if let Some(sig) = caught
            && self.forwarded.is_none()
        {
            self.forwarded = Some(now);
            return WaitAction::Signal(forwarded(sig));
        }
        if stopping.is_none() && timeout.is_some_and(|t| elapsed > t) {
            self.timed_out = Some(now);
            return WaitAction::Signal(libc::SIGTERM);
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
                return WaitAction::Kill;
            }
        }
        WaitAction::Wait
    }
}

/// Wait until the platform (the leader of `group`) exits, without reaping it;
/// every [`POLL`] apply what [`Waiter::tick`] decides. Returns the waiter, which
/// says whether a signal was forwarded or the run timed out.
/// Once `unreachable` holds a reason, the run is stopped as on a timeout and
/// the waiter keeps the reason.
pub(super) fn wait_for_exit(
    group: &Tracked,
    platform: &Platform,
    clock: Instant,
    timeout: Option<Duration>,
    unreachable: &OnceLock<String>,
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
                if let Some(why) = unreachable.get()
                    && waiter.forwarded.is_none()
                    && waiter.timed_out.is_none()
                    && caught.is_none()
                {
                    waiter.unreachable = Some(why.clone());
                    waiter.timed_out = Some(now);
                    group.signal(libc::SIGTERM);
                    continue;
                }
                match waiter.tick(now, now.saturating_duration_since(clock), caught, timeout) {
                    WaitAction::Wait => {}
                    WaitAction::Signal(s) => group.signal(s),
                    WaitAction::Kill => group.signal(libc::SIGKILL),
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
