//! SIGHUP (the terminal closed) to `bob-eval run` in the middle of a real
//! `claude plugin eval` whose model (the fake Messages API) answers slowly:
//! bob-eval exits 130, no process of the platform outlives it (not the
//! platform, not the agents it starts in sessions of their own), the fake
//! API gets no request after bob-eval exited, and the plugin folder and the
//! platform's run sandboxes (made in bob-eval's own temp folder) are gone.
//!
//! Every process of the run carries the run's temp folder in its environment
//! (`platform_env` sets HOME and TMPDIR inside it, and the platform's agents
//! inherit them) or, for the agents, the plugin path on their command line;
//! `/proc` is scanned for both. Only processes found that way, which this test
//! started, are ever ended, by PID.

use crate::support;
use support::tier::{self, Tool};

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::cmd::bob;
use support::fake_api::{FakeApi, Kind, Script};
use support::real::{claude_bin, platform_env, source_copy};

/// How long the scripted model takes to answer each request.
const SLOW: Duration = Duration::from_secs(3);

/// The live processes (pid, command line) whose environment or command line
/// holds `needle`, bob-eval's own aside.
fn processes_holding(needle: &str, except: u32) -> Vec<(u32, String)> {
    let needle = needle.as_bytes();
    let holds = |bytes: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    let mut found = vec![];
    for pid in std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != except && *pid != std::process::id())
    {
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        // A zombie has neither: it is dead already.
        if holds(&env) || holds(&cmd) {
            let line = String::from_utf8_lossy(&cmd).replace('\0', " ");
            found.push((pid, line.chars().take(160).collect()));
        }
    }
    found
}

/// End, by PID, every process this test started that is still alive.
fn end_all(dir: &Path, bob_eval: u32) {
    for (pid, _) in processes_holding(dir.to_str().unwrap(), bob_eval) {
        // SAFETY: kill(2) on a process of this test's run (it holds its temp folder).
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    }
}

/// The platform's run sandboxes (`claude-eval-*`) anywhere under `dir`'s
/// temp folder, two levels deep.
pub(crate) fn sandboxes(dir: &Path) -> Vec<String> {
    let mut found = vec![];
    let top = dir.join("tmp");
    for entry in std::fs::read_dir(&top).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with("claude-eval-")
        {
            found.push(path.to_string_lossy().into_owned());
        }
        for inner in std::fs::read_dir(&path).into_iter().flatten().flatten() {
            if inner
                .file_name()
                .to_string_lossy()
                .starts_with("claude-eval-")
            {
                found.push(inner.path().to_string_lossy().into_owned());
            }
        }
    }
    found
}

#[test]
fn sighup_mid_run_stops_the_real_platform_and_its_agents() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(Script::new().otherwise("OK.").delay(SLOW));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap().to_string();
    let source = source_copy(dir.path());
    let home = dir.path().join("bob-home");
    std::fs::create_dir_all(&home).unwrap();
    let mut child = bob(&source, &home)
        .args(["run", "commit", "--runs", "2", "--claude"])
        .arg(claude_bin())
        .arg("--out")
        .arg(dir.path().join("result.json"))
        .current_dir(dir.path())
        .env_clear()
        .envs(platform_env(&api, dir.path()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let plugin_dir = || -> Option<String> {
        std::fs::read_dir(dir.path().join("tmp"))
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("bob-eval-"))
            })
            .map(|p| p.to_string_lossy().into_owned())
    };

    // Mid-run: an agent of the platform is waiting on the slow model.
    let deadline = Instant::now() + Duration::from_secs(120);
    let agent = loop {
        let agents: Vec<(u32, String)> = processes_holding(&root, pid)
            .into_iter()
            .filter(|(_, cmd)| cmd.contains(" -p "))
            .collect();
        if !agents.is_empty() && !api.requests_of(Kind::Agent).is_empty() {
            break agents;
        }
        if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let _ = child.wait();
            end_all(dir.path(), pid);
            panic!("no agent of the platform ever called the model");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let plugin = plugin_dir().expect("the plugin folder exists mid-run");
    // The platform's run sandboxes are made in the plugin's own temp folder.
    let sandboxes = sandboxes(dir.path());
    assert!(
        sandboxes.iter().any(|s| s.contains("bob-eval-commit-tmp-")),
        "no run sandbox in bob-eval's temp folder mid-run: {sandboxes:?}"
    );

    // SAFETY: kill(2) on our own child, not reaped yet.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGHUP) };
    let sent = Instant::now();
    let exited = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            end_all(dir.path(), pid);
            panic!("bob-eval did not exit within 60 s of SIGHUP");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let at_exit = api.requests().len();
    // Right when bob-eval is gone: nothing of the run is alive.
    let mut left = processes_holding(&root, pid);
    left.extend(processes_holding(&plugin, pid));
    // And the model hears nothing more from it.
    std::thread::sleep(Duration::from_millis(2500));
    let later = api.requests().len();
    left.extend(processes_holding(&root, pid));
    end_all(dir.path(), pid);

    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(exited.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(
        left.is_empty(),
        "platform processes outlived bob-eval (an agent was {agent:?}): {left:?}"
    );
    assert_eq!(
        later,
        at_exit,
        "the model was called after bob-eval exited:\n{}",
        api.requests()[at_exit..]
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        !Path::new(&plugin).exists(),
        "the plugin folder {plugin} was left"
    );
    let left: Vec<String> = std::fs::read_dir(dir.path().join("tmp"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "left in the temp folder: {left:?}");
    assert!(!dir.path().join("result.json").exists());
}
