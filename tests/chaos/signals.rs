//! SIGHUP, SIGINT, SIGTERM and SIGQUIT sent to `bob-eval run` at every stage
//! (the version probe, plugin assembly, the platform run), against the stub
//! platform: bob-eval exits 130, no process it started is left, and no
//! `bob-eval-*` plugin folder is left in its TMPDIR.
//!
//! Every process of a run carries the run's TMPDIR in its environment (the
//! stub inherits bob-eval's, and whatever the stub starts inherits the
//! stub's), so the processes left are found by scanning `/proc` for it. Only
//! processes found that way, which this test started, are ever ended, by PID.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};
use support::cmd::bob;
use support::data::data;
use support::stub::{Stub, Switches};

const SIGNALS: [(libc::c_int, &str); 4] = [
    (libc::SIGHUP, "SIGHUP"),
    (libc::SIGINT, "SIGINT"),
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGQUIT, "SIGQUIT"),
];

/// One `bob-eval run commit` with its own TMPDIR, home and working folder.
struct Run {
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl Run {
    /// Start `bob-eval run commit --claude <stub> --out <file>` on `source`.
    fn start(stub: &Stub, source: &Path) -> Self {
        Self::command(stub, source, "run")
    }

    /// Start `bob-eval <command> commit --claude <stub>` on `source`, with
    /// `--out <file>` for `run`.
    fn command(stub: &Stub, source: &Path, command: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["tmp", "home", "work"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        let mut cmd = bob(source, &dir.path().join("home"));
        cmd.current_dir(dir.path().join("work"))
            .env("TMPDIR", dir.path().join("tmp"))
            .args([command, "commit", "--claude"])
            .arg(&stub.bin);
        if command == "run" {
            cmd.arg("--out").arg(dir.path().join("work/result.json"));
        }
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        Run {
            dir,
            child: Some(child),
        }
    }

    fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    /// The plugin folders in the run's TMPDIR.
    fn plugins(&self) -> Vec<String> {
        std::fs::read_dir(self.tmp())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("bob-eval-"))
            .collect()
    }

    /// Wait (at most 30 s) for `ready`; on time out, end the run and fail.
    fn wait_for(&mut self, what: &str, ready: impl Fn(&Run) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !ready(self) {
            if Instant::now() > deadline {
                self.end();
                panic!("{what} never happened");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Send `sig` to bob-eval.
    fn signal(&self, sig: libc::c_int) {
        let pid = self.child.as_ref().unwrap().id() as libc::pid_t;
        // SAFETY: kill(2) on our own child, not reaped yet.
        unsafe { libc::kill(pid, sig) };
    }

    /// Wait (at most `limit`) for bob-eval to exit; its output.
    fn exit(&mut self, limit: Duration) -> Output {
        let deadline = Instant::now() + limit;
        loop {
            let child = self.child.as_mut().unwrap();
            if child.try_wait().unwrap().is_some() {
                return self.child.take().unwrap().wait_with_output().unwrap();
            }
            if Instant::now() > deadline {
                self.end();
                panic!("bob-eval did not exit within {limit:?} of the signal");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The processes still alive that carry this run's TMPDIR, or the
    /// platform's (a folder inside it, which bob-eval gives the platform).
    fn left(&self) -> Vec<(libc::pid_t, String)> {
        // bob-eval's own TMPDIR, or the platform's: a folder inside it.
        let entry = format!("TMPDIR={}", self.tmp().display());
        let inside = format!("{entry}/");
        let mut left = vec![];
        for pid in std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<libc::pid_t>().ok())
        {
            let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
                continue;
            };
            if env
                .split(|b| *b == 0)
                .any(|v| v == entry.as_bytes() || v.starts_with(inside.as_bytes()))
            {
                let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                left.push((pid, String::from_utf8_lossy(&cmd).replace('\0', " ")));
            }
        }
        left
    }

    /// End bob-eval and every process of this run still alive, by PID.
    fn end(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        for (pid, _) in self.left() {
            // SAFETY: kill(2) on a process this run started (it carries its TMPDIR).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }

    /// bob-eval exited 130 after `name`, said so, wrote nothing, and left no
    /// process and no plugin folder.
    fn assert_clean(&mut self, out: &Output, name: &str) {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let left = self.left();
        self.end();
        assert_eq!(out.status.code(), Some(130), "{name}: {stderr}");
        assert!(stderr.contains("interrupted"), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name}: stdout written");
        assert!(
            !self.dir.path().join("work/result.json").exists(),
            "{name}: a document was written"
        );
        assert!(
            left.is_empty(),
            "{name}: processes outlived bob-eval: {left:?}"
        );
        assert_eq!(self.plugins(), Vec::<String>::new(), "{name}: plugin left");
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        self.end();
    }
}

/// The stub answering with a captured document, as `switches` say otherwise.
fn answering(switches: Switches) -> Stub {
    Stub::new(Switches {
        fixture: Switches::answering(data("platform/run1_main.json")).fixture,
        ..switches
    })
}

/// `sig` while `claude --version` is still answering: the probe is killed.
fn during_the_version_probe(sig: libc::c_int, name: &str) {
    let stub = answering(Switches {
        version_sleep: Duration::from_secs(30),
        ..Switches::default()
    });
    let mut run = Run::start(&stub, &data("source"));
    run.wait_for("the probe", |_| stub.record("probing").is_some());
    run.signal(sig);
    let out = run.exit(Duration::from_secs(10));
    run.assert_clean(&out, name);
    assert_eq!(stub.record("started"), None, "{name}: the platform ran");
}

/// `sig` while the platform runs: it gets SIGINT or SIGTERM and exits.
fn during_the_platform_run(sig: libc::c_int, name: &str) {
    let stub = answering(Switches {
        mode: Some("wait"),
        ..Switches::default()
    });
    let mut run = Run::start(&stub, &data("source"));
    run.wait_for("the platform run", |_| stub.record("started").is_some());
    run.signal(sig);
    let out = run.exit(Duration::from_secs(10));
    assert_eq!(
        stub.record("signalled").as_deref(),
        Some("bob-eval-commit"),
        "{name}: the platform got the signal first"
    );
    run.assert_clean(&out, name);
}

#[test]
fn sighup_during_the_version_probe() {
    during_the_version_probe(SIGNALS[0].0, SIGNALS[0].1);
}

#[test]
fn sigint_during_the_version_probe() {
    during_the_version_probe(SIGNALS[1].0, SIGNALS[1].1);
}

#[test]
fn sigterm_during_the_version_probe() {
    during_the_version_probe(SIGNALS[2].0, SIGNALS[2].1);
}

#[test]
fn sigquit_during_the_version_probe() {
    during_the_version_probe(SIGNALS[3].0, SIGNALS[3].1);
}

#[test]
fn sighup_during_the_platform_run() {
    during_the_platform_run(SIGNALS[0].0, SIGNALS[0].1);
}

#[test]
fn sigint_during_the_platform_run() {
    during_the_platform_run(SIGNALS[1].0, SIGNALS[1].1);
}

#[test]
fn sigterm_during_the_platform_run() {
    during_the_platform_run(SIGNALS[2].0, SIGNALS[2].1);
}

#[test]
fn sigquit_during_the_platform_run() {
    during_the_platform_run(SIGNALS[3].0, SIGNALS[3].1);
}

/// The same through a pipeline (`exam`: the Rhai primitives hold the plugin).
#[test]
fn sighup_during_an_exam_pipeline_run() {
    let stub = answering(Switches {
        mode: Some("wait"),
        ..Switches::default()
    });
    let mut run = Run::command(&stub, &data("source"), "exam");
    run.wait_for("the platform run", |_| stub.record("started").is_some());
    run.signal(libc::SIGHUP);
    let out = run.exit(Duration::from_secs(10));
    assert_eq!(
        stub.record("signalled").as_deref(),
        Some("bob-eval-commit"),
        "the platform got the signal first"
    );
    run.assert_clean(&out, "SIGHUP");
}

/// A suite with many files, so that copying it into the plugin takes a while.
fn big_source(dir: &Path) -> PathBuf {
    let source = dir.join("source");
    support::tree::copy_tree(&data("source"), &source);
    let bulk = source.join("evals/commit/fires/bulk");
    std::fs::create_dir_all(&bulk).unwrap();
    for i in 0..3000 {
        std::fs::write(bulk.join(format!("{i}.txt")), "x\n").unwrap();
    }
    source
}

/// Each signal the moment the plugin folder appears (while it is assembled,
/// or just after): the folder goes, whatever was half built in it.
#[test]
fn every_signal_while_the_plugin_is_assembled() {
    let dir = tempfile::tempdir().unwrap();
    let source = big_source(dir.path());
    for (sig, name) in SIGNALS {
        let stub = answering(Switches {
            mode: Some("wait"),
            ..Switches::default()
        });
        let mut run = Run::start(&stub, &source);
        run.wait_for("the plugin folder", |r| !r.plugins().is_empty());
        run.signal(sig);
        let out = run.exit(Duration::from_secs(10));
        run.assert_clean(&out, name);
    }
}

/// A platform that ignores SIGTERM and SIGINT, and has started an agent in a
/// session of its own (out of its process group, as the real platform does):
/// SIGKILL reaches both after the grace, and bob-eval still exits 130.
#[test]
fn sighup_to_a_stubborn_platform_with_a_detached_agent() {
    let stub = answering(Switches {
        mode: Some("detached"),
        ..Switches::default()
    });
    let mut run = Run::start(&stub, &data("source"));
    run.wait_for("the platform run", |_| stub.record("started").is_some());
    let agent: libc::pid_t = stub.record("detached").unwrap().parse().unwrap();
    // Until it has exec'd `sleep` in its own session.
    run.wait_for("the detached agent", |r| {
        r.left()
            .iter()
            .any(|(pid, cmd)| *pid == agent && cmd.starts_with("sleep"))
    });
    let sent = Instant::now();
    run.signal(libc::SIGHUP);
    // The grace is 20 s (KILL_AFTER).
    let out = run.exit(Duration::from_secs(40));
    assert!(
        sent.elapsed() >= Duration::from_secs(19),
        "SIGKILL came before the grace: {:?}",
        sent.elapsed()
    );
    run.assert_clean(&out, "SIGHUP");
}

/// Whether process `pid` catches all of [`SIGNALS`] (its handlers are in).
fn handlers_installed(pid: u32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    let Some(mask) = status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
    else {
        return false;
    };
    SIGNALS
        .iter()
        .all(|(sig, _)| mask & (1u64 << (sig - 1)) != 0)
}

/// While bob-eval owns nothing (here: writing a document reduced from
/// `--platform-result` to a FIFO nobody reads), each signal ends it at once,
/// with 130 too.
#[test]
fn a_signal_while_nothing_is_owned_exits_130_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for (sig, name) in SIGNALS {
        let mut child = bob(&data("source"), &dir.path().join("home"))
            .env("TMPDIR", dir.path())
            .args(["run", "commit", "--platform-result"])
            .arg(data("platform/run1_main.json"))
            .arg("--out")
            .arg(&fifo)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !handlers_installed(child.id()) {
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{name}: bob-eval never installed its handlers");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        // SAFETY: kill(2) on our own child, not reaped yet.
        unsafe { libc::kill(child.id() as libc::pid_t, sig) };
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(130),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A signal ignored when bob-eval starts (`nohup` ignores SIGHUP) stays
/// ignored; the others still end it with 130.
#[test]
fn a_signal_ignored_at_start_stays_ignored() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let mut cmd = bob(&data("source"), &dir.path().join("home"));
    // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = cmd
        .env("TMPDIR", dir.path())
        .args(["run", "commit", "--platform-result"])
        .arg(data("platform/run1_main.json"))
        .arg("--out")
        .arg(&fifo)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = |field: &str| -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", child.id()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix(field))
                    .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            })
            .unwrap_or(0)
    };
    let bit = |sig: libc::c_int| 1u64 << (sig - 1);
    let deadline = Instant::now() + Duration::from_secs(30);
    while status("SigCgt:") & bit(libc::SIGTERM) == 0 {
        assert!(
            Instant::now() < deadline,
            "bob-eval never installed its handlers"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(status("SigCgt:") & bit(libc::SIGHUP), 0, "SIGHUP is caught");
    assert_ne!(
        status("SigIgn:") & bit(libc::SIGHUP),
        0,
        "SIGHUP is not ignored"
    );
    // SAFETY: kill(2) on our own child, not reaped yet.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGHUP) };
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.try_wait().unwrap().is_none(), "SIGHUP ended bob-eval");
    // SAFETY: as above.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
}
