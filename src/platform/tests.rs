use super::probe::start_locate;
use super::probe::{parse_version, version_tuple};
use super::process::TAG;
use super::process::{
    KILL_AFTER, POLL, TIMEOUT_GRACE, Tracked, WaitAction, Waited, Waiter, kill_tagged, tagged,
    wait_at_most,
};
use super::stderr::{parse_progress, read_line_bounded};
use super::{Ablation, RunOptions, arguments};
use crate::error::interrupt;
use crate::event::Event;
use camino::Utf8Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
fn claude_is_found_in_the_environment_given() {
    use crate::config::Environment;
    let dir = tempfile::tempdir().unwrap();
    let dir = Utf8Path::from_path(dir.path()).unwrap();
    let named = Environment::from_pairs([("BOB_EVAL_CLAUDE", dir.join("nothing").as_str())]);
    let err = super::probe::find_binary(None, &named).unwrap_err();
    assert!(err.to_string().contains("(from BOB_EVAL_CLAUDE)"), "{err}");
    let claude = dir.join("claude");
    std::fs::write(&claude, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&claude, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let on_path = Environment::from_pairs([("PATH", format!("/nonexistent:{dir}"))]);
    assert_eq!(super::probe::find_binary(None, &on_path).unwrap(), claude);
    let err = super::probe::find_binary(None, &Environment::default()).unwrap_err();
    assert!(err.to_string().contains("none on PATH"), "{err}");
}

#[test]
fn a_dropped_probe_leaves_no_zombie() {
    let probe = start_locate(Some(Utf8Path::new("/bin/sleep")), Default::default()).unwrap();
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
            WaitAction::Signal(sent),
            "{}",
            interrupt::name(caught)
        );
        let later = KILL_AFTER + MS;
        assert_eq!(
            w.tick(t0 + later, later, Some(caught), None),
            WaitAction::Kill
        );
    }
}

#[test]
fn argument_list() {
    let opts = RunOptions::new("default", 2.0);
    let args = arguments(Utf8Path::new("/p"), &opts).join(" ");
    assert_eq!(
        args,
        "plugin eval /p --ablation with-without --output-dir /p/.bob-eval/out --threshold 0 --max-cost-usd 2 --trust-plugin --no-publish --keep-temp"
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
    assert!(args.ends_with("--max-cost-usd 0.25 --trust-plugin --no-publish --keep-temp --model haiku --runs 2 --judge-model sonnet -j 4 --case fi* --tag a --tag b --allow-tools Write Bash(git:*) --disallow-tools Agent"), "{args}");
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
    assert_eq!(w.tick(t0, Duration::ZERO, None, None), WaitAction::Wait);
    assert_eq!(
        w.tick(t0, Duration::ZERO, int, None),
        WaitAction::Signal(libc::SIGINT)
    );
    assert_eq!(w.tick(t0 + POLL, POLL, int, None), WaitAction::Wait);
    assert_eq!(
        w.tick(t0 + KILL_AFTER, KILL_AFTER, int, None),
        WaitAction::Wait
    );
    let later = KILL_AFTER + MS;
    assert_eq!(w.tick(t0 + later, later, int, None), WaitAction::Kill);
    assert_eq!(
        w.tick(t0 + later * 2, later * 2, int, None),
        WaitAction::Wait
    );
    assert!(w.forwarded.is_some() && w.timed_out.is_none());
}

#[test]
fn a_timeout_sends_sigterm_then_sigkill_after_the_grace() {
    let t0 = Instant::now();
    let limit = Some(Duration::from_secs(10));
    let mut w = Waiter::default();
    let at = |d: Duration| (t0 + d, d);
    let (now, e) = at(Duration::from_secs(10));
    assert_eq!(
        w.tick(now, e, None, limit),
        WaitAction::Wait,
        "not past it yet"
    );
    let (now, e) = at(Duration::from_secs(10) + MS);
    assert_eq!(
        w.tick(now, e, None, limit),
        WaitAction::Signal(libc::SIGTERM)
    );
    let term = e;
    let (now, e) = at(term + TIMEOUT_GRACE);
    assert_eq!(w.tick(now, e, None, limit), WaitAction::Wait);
    let (now, e) = at(term + TIMEOUT_GRACE + MS);
    assert_eq!(w.tick(now, e, None, limit), WaitAction::Kill);
    let (now, e) = at(term + TIMEOUT_GRACE * 3);
    assert_eq!(
        w.tick(now, e, None, limit),
        WaitAction::Wait,
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
        assert_eq!(w.tick(t0 + e, e, None, None), WaitAction::Wait);
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
        WaitAction::Signal(libc::SIGTERM)
    );
    let caught = term + Duration::from_secs(1);
    let int = Some(libc::SIGINT);
    assert_eq!(
        w.tick(t0 + caught, caught, int, limit),
        WaitAction::Signal(libc::SIGINT)
    );
    let e = term + TIMEOUT_GRACE + MS;
    assert_eq!(
        w.tick(t0 + e, e, int, limit),
        WaitAction::Wait,
        "the signal's grace applies"
    );
    let e = caught + KILL_AFTER + MS;
    assert_eq!(w.tick(t0 + e, e, int, limit), WaitAction::Kill);
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
        WaitAction::Signal(libc::SIGTERM)
    );
    assert_eq!(
        w.tick(t0 + e + POLL, e + POLL, term, limit),
        WaitAction::Wait
    );
    assert!(w.forwarded.is_some() && w.timed_out.is_none());
}

#[test]
fn sigkill_is_sent_only_once() {
    let t0 = Instant::now();
    let mut w = Waiter::default();
    let int = Some(libc::SIGINT);
    let limit = Some(Duration::ZERO);
    assert_eq!(w.tick(t0, MS, int, limit), WaitAction::Signal(libc::SIGINT));
    let kills = (1..1000)
        .map(|i| KILL_AFTER + POLL * i)
        .filter(|&e| w.tick(t0 + e, e, int, limit) == WaitAction::Kill)
        .count();
    assert_eq!(kills, 1);
    assert!(w.killed);
}
