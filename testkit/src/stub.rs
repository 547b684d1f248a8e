//! The stub platform: one stub `claude` (a shell script) in its own temp
//! folder, set up with [`Switches`] and read back through [`Stub::record`].
//! It serves every stub-tier test and bench, one plugin or many at once.
//!
//! Asked `--version`, it sleeps [`Switches::version_sleep`] (recording that it
//! does), then prints [`Switches::version`]. Asked to run an eval
//! (`plugin eval PLUGIN … --output-dir OUT …`), in this order it
//! - records the call (the records are listed at [`Stub::record`]);
//! - for the plugin [`Switches::fail_plugin`] names, prints a case load error
//!   on stderr and exits 1;
//! - sleeps [`Switches::sleep`];
//! - writes [`Switches::fixture`] to `OUT/aggregate-result.json`, with
//!   `bob-eval-commit` renamed to the name in PLUGIN's manifest, so one capture
//!   of the commit item answers for every item;
//! - writes [`Switches::trace`] where the platform keeps a run's trace
//!   under `--keep-temp` (`$TMPDIR/claude-eval-stub/out/trace.jsonl`, only
//!   in a temp folder bob-eval made for the platform), and points every
//!   run's `tracePath` of the document to it;
//! - writes [`Switches::report`] to `OUT/report.html` and says so on stderr
//!   (`Report: OUT/report.html`), as the platform does;
//! - prints [`Switches::stderr`], [`Switches::stdout`], and a platform table
//!   line on stdout;
//! - acts out [`Switches::mode`] and exits with [`Switches::code`].

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The script; `@DIR@` is the stub's folder, where its switches and records
/// are files.
const SCRIPT: &str = r#"#!/bin/sh
D='@DIR@'
echo "$*" >> "$D/calls"
if [ "$1" = "--version" ]; then
  if [ -f "$D/version_sleep" ]; then echo $$ >> "$D/probing"; sleep "$(cat "$D/version_sleep")"; fi
  cat "$D/version"; exit 0
fi
pwd > "$D/cwd"
printf '%s\n' "$CLAUDE_CONFIG_DIR" > "$D/config"
printf '%s\n' "$@" > "$D/argv"
out=""
prev=""
for a in "$@"; do
  if [ "$prev" = "--output-dir" ]; then out="$a"; fi
  prev="$a"
done
manifest="$3/.claude-plugin/plugin.json"
name=""
if [ -f "$manifest" ]; then
  if [ ! -L "$manifest" ]; then echo real > "$D/manifest"; fi
  while IFS= read -r l || [ -n "$l" ]; do
    case "$l" in
      *'"name"'*) name=${l#*\"name\"}; name=${name#*\"}; name=${name%%\"*}; break ;;
    esac
  done < "$manifest"
fi
if [ -L "$3/skills/commit" ]; then readlink "$3/skills/commit" > "$D/item-link"; fi
if [ -n "$name" ] && [ -e "$D/fail-$name" ]; then
  echo "✗ fires: failed to load case: bad frontmatter" >&2
  exit 1
fi
if [ -f "$D/sleep" ]; then sleep "$(cat "$D/sleep")"; fi
if [ -f "$D/fixture" ]; then
  mkdir -p "$out"
  if [ -n "$name" ] && [ "$name" != bob-eval-commit ]; then
    sed "s/bob-eval-commit/$name/g" "$D/fixture" > "$out/aggregate-result.json"
  else
    cp "$D/fixture" "$out/aggregate-result.json"
  fi
fi
if [ -f "$D/fixture" ] && [ -f "$D/trace" ]; then
  case "$TMPDIR" in
    *bob-eval-*-tmp-*)
      t="$TMPDIR/claude-eval-stub/out"
      mkdir -p "$t"
      cp "$D/trace" "$t/trace.jsonl"
      sed "s|\"tracePath\": *\"[^\"]*\"|\"tracePath\": \"$t/trace.jsonl\"|g" "$out/aggregate-result.json" > "$out/.with-traces"
      mv "$out/.with-traces" "$out/aggregate-result.json"
      ;;
  esac
fi
if [ -f "$D/report" ]; then
  mkdir -p "$out"
  cp "$D/report" "$out/report.html"
  echo "Report: $out/report.html" >&2
fi
if [ -f "$D/stderr" ]; then
  if [ -f "$D/slow" ]; then
    while IFS= read -r l; do printf '%s\n' "$l" >&2; sleep 0.15; done < "$D/stderr"
  else
    cat "$D/stderr" >&2
  fi
fi
if [ -f "$D/stdout" ]; then cat "$D/stdout"; fi
echo "CASE WITH W/OUT (platform table on stdout)"
if [ -f "$D/mode" ]; then
  case "$(cat "$D/mode")" in
    segv) kill -SEGV $$ ;;
    abort) kill -ABRT $$ ;;
    kill) kill -KILL $$ ;;
    stubborn)
      trap '' INT TERM
      echo "$name" >> "$D/started"
      sleep 30
      ;;
    detached)
      setsid sleep 60 </dev/null >/dev/null 2>&1 &
      echo $! >> "$D/detached"
      trap '' INT TERM
      echo "$name" >> "$D/started"
      sleep 30
      ;;
    wait)
      trap 'echo "$name" >> "$D/signalled"; kill $pid 2>/dev/null; exit 130' INT TERM
      sleep 30 &
      pid=$!
      echo "$name" >> "$D/started"
      wait $pid
      ;;
  esac
fi
exit "$(cat "$D/code")"
"#;

/// What the stub does; see the module docs for the order.
pub struct Switches {
    /// What `--version` prints.
    pub version: &'static str,
    /// The document to write to the output folder; `None` writes nothing.
    pub fixture: Option<Vec<u8>>,
    /// The HTML report to write beside the document; `None` writes none.
    pub report: Option<&'static str>,
    /// What to print on stderr.
    pub stderr: Vec<u8>,
    /// Print the stderr lines one at a time, 0.15 s apart, as a real run would.
    pub slow: bool,
    /// What to print on stdout, before the table line.
    pub stdout: Vec<u8>,
    /// The exit code.
    pub code: i32,
    /// `segv`, `abort`, `kill` (the stub signals itself), `wait` (for SIGINT or
    /// SIGTERM, then exit 130), `stubborn` (ignore both and sleep 30 s) or
    /// `detached` (start a `sleep 60` in a session of its own, as the real
    /// platform starts its agents, then act as `stubborn`).
    pub mode: Option<&'static str>,
    /// How long an eval takes before it writes the document.
    pub sleep: Duration,
    /// How long `--version` takes before it answers.
    pub version_sleep: Duration,
    /// A plugin (`bob-eval-<item>`) the stub cannot load: a case load error on
    /// stderr, exit 1, no document.
    pub fail_plugin: Option<&'static str>,
    /// The trace (stream-json) every run of the document is said to have
    /// written ([`STUB_TRACE`] by default); `None` writes none.
    pub trace: Option<String>,
}

/// The answer of the stub's default trace ([`STUB_TRACE`]).
pub const STUB_ANSWER: &str = "fix(hooks): skip the pre-commit hook on docs-only commits";

/// The stub's default trace: the model calls the Skill tool, then answers
/// [`STUB_ANSWER`].
pub const STUB_TRACE: &str = concat!(
    r#"{"type":"system","subtype":"init","session_id":"stub"}"#,
    "\n",
    r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Using the commit skill."},{"type":"tool_use","id":"toolu_stub","name":"Skill","input":{"skill":"bob-eval-commit:commit"}}]}}"#,
    "\n",
    r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_stub","content":"Launching skill: bob-eval-commit:commit"}]}}"#,
    "\n",
    r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"fix(hooks): skip the pre-commit hook on docs-only commits"}]}}"#,
    "\n",
    r#"{"type":"result","subtype":"success","result":"fix(hooks): skip the pre-commit hook on docs-only commits"}"#,
    "\n"
);

impl Default for Switches {
    /// A stub reporting 2.1.328 that exits 0 and writes nothing.
    fn default() -> Self {
        Switches {
            version: "2.1.328 (Claude Code)\n",
            fixture: None,
            report: None,
            stderr: Vec::new(),
            slow: false,
            stdout: Vec::new(),
            code: 0,
            mode: None,
            sleep: Duration::ZERO,
            version_sleep: Duration::ZERO,
            fail_plugin: None,
            trace: Some(STUB_TRACE.to_string()),
        }
    }
}

impl Switches {
    /// The default stub, answering with the document at `capture`.
    pub fn answering(capture: impl AsRef<Path>) -> Self {
        Switches {
            fixture: Some(std::fs::read(capture).expect("read the stub's capture")),
            ..Switches::default()
        }
    }

    /// A platform that stops at the ceiling after one run, every time: the
    /// capture `platform/run5_partial_cost.json` (`cost_ceiling`), the
    /// platform's warning on stderr, exit 2.
    pub fn at_the_ceiling() -> Self {
        Switches {
            code: 2,
            stderr: "⚠ cost ceiling $0.01 hit; skipping remaining cases\n".into(),
            ..Switches::answering(crate::data::data("platform/run5_partial_cost.json"))
        }
    }
}

/// A stub `claude` in its own temp folder.
pub struct Stub {
    dir: tempfile::TempDir,
    /// The stub's path: pass it as `--claude` or `BOB_EVAL_CLAUDE`, or put its
    /// folder on PATH.
    pub bin: PathBuf,
}

impl Stub {
    /// A stub doing what `switches` say.
    pub fn new(switches: Switches) -> Self {
        let dir = tempfile::tempdir().expect("stub folder");
        let bin = dir.path().join("claude");
        let script = SCRIPT.replace("@DIR@", dir.path().to_str().expect("utf-8 temp path"));
        std::fs::write(&bin, script).expect("write the stub");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755))
            .expect("make the stub executable");
        let stub = Stub { dir, bin };
        let Switches {
            version,
            fixture,
            report,
            stderr,
            slow,
            stdout,
            code,
            mode,
            sleep,
            version_sleep,
            fail_plugin,
            trace,
        } = switches;
        stub.set("version", version.as_bytes());
        stub.set("code", format!("{code}\n").as_bytes());
        if let Some(fixture) = fixture {
            stub.set("fixture", &fixture);
        }
        if let Some(report) = report {
            stub.set("report", report.as_bytes());
        }
        if !stderr.is_empty() {
            stub.set("stderr", &stderr);
        }
        if slow {
            stub.set("slow", b"");
        }
        if !stdout.is_empty() {
            stub.set("stdout", &stdout);
        }
        if let Some(mode) = mode {
            stub.set("mode", mode.as_bytes());
        }
        if !sleep.is_zero() {
            stub.set("sleep", sleep.as_secs_f64().to_string().as_bytes());
        }
        if !version_sleep.is_zero() {
            stub.set(
                "version_sleep",
                version_sleep.as_secs_f64().to_string().as_bytes(),
            );
        }
        if let Some(trace) = trace {
            stub.set("trace", trace.as_bytes());
        }
        if let Some(plugin) = fail_plugin {
            stub.set(&format!("fail-{plugin}"), b"");
        }
        stub
    }

    /// From now on answer every eval with the document at `capture` (the
    /// platform's single-arm mode after a with/without run, say).
    pub fn answer(&self, capture: impl AsRef<Path>) {
        self.set(
            "fixture",
            &std::fs::read(capture).expect("read the stub's capture"),
        );
    }

    fn set(&self, name: &str, bytes: &[u8]) {
        std::fs::write(self.dir.path().join(name), bytes).expect("write a stub switch");
    }

    /// What the stub recorded under `name`, trailing whitespace trimmed;
    /// `None` if it never did:
    /// - `calls`: every call's arguments, one call a line, `--version` included;
    /// - `argv`: the last eval call's arguments, one a line;
    /// - `cwd`: the folder the last eval ran in;
    /// - `config`: the last eval's `CLAUDE_CONFIG_DIR`;
    /// - `manifest`: `real` once a plugin's manifest was a real file (no link);
    /// - `item-link`: where the plugin's `skills/commit` link pointed;
    /// - `started`, `signalled`: the plugins (by manifest name), one a line, that
    ///   began to wait in mode `wait`, `stubborn` or `detached`, and that a
    ///   signal ended in mode `wait`;
    /// - `probing`: the pid of each `--version` call that began to sleep
    ///   [`Switches::version_sleep`];
    /// - `detached`: the pid of each `sleep 60` mode `detached` started.
    pub fn record(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join(name))
            .ok()
            .map(|t| t.trim_end().to_string())
    }
}
