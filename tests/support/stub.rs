//! The stub platform: a stub `claude` (a shell script).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A stub `claude` in its own temp folder. It answers `--version`, records its
/// argv and working directory, copies a chosen fixture to
/// `<output-dir>/aggregate-result.json`, prints chosen stderr, and exits with a
/// chosen code (or kills itself, or waits for a signal).
pub struct Stub {
    pub dir: tempfile::TempDir,
    pub bin: PathBuf,
}

const SCRIPT: &str = r#"#!/bin/sh
D='@DIR@'
echo "$*" >> "$D/calls"
if [ "$1" = "--version" ]; then cat "$D/version"; exit 0; fi
pwd > "$D/cwd"
: > "$D/argv"
for a in "$@"; do printf '%s\n' "$a" >> "$D/argv"; done
out=""
prev=""
for a in "$@"; do
  if [ "$prev" = "--output-dir" ]; then out="$a"; fi
  prev="$a"
done
if [ -f "$3/.claude-plugin/plugin.json" ] && [ ! -L "$3/.claude-plugin/plugin.json" ]; then echo real > "$D/manifest"; fi
if [ -L "$3/skills/commit" ]; then readlink "$3/skills/commit" > "$D/item-link"; fi
if [ -f "$D/fixture" ]; then mkdir -p "$out"; cp "$D/fixture" "$out/aggregate-result.json"; fi
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
      echo started > "$D/started"
      sleep 30
      ;;
    wait)
      trap 'echo signalled > "$D/signalled"; kill $pid 2>/dev/null; exit 130' INT TERM
      sleep 30 &
      pid=$!
      echo started > "$D/started"
      wait $pid
      ;;
  esac
fi
exit "$(cat "$D/code")"
"#;

impl Stub {
    /// A stub reporting 2.1.328 that exits 0 and writes nothing.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("claude");
        std::fs::write(&bin, SCRIPT.replace("@DIR@", dir.path().to_str().unwrap())).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let stub = Stub { dir, bin };
        stub.set("version", "2.1.328 (Claude Code)\n");
        stub.set("code", "0\n");
        stub
    }

    fn set(&self, name: &str, text: &str) {
        std::fs::write(self.dir.path().join(name), text).unwrap();
    }

    fn get(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join(name)).ok()
    }

    /// What `--version` prints.
    pub fn version(&self, text: &str) -> &Self {
        self.set("version", text);
        self
    }

    /// The document to copy to the output folder.
    pub fn fixture(&self, path: &Path) -> &Self {
        std::fs::copy(path, self.dir.path().join("fixture")).unwrap();
        self
    }

    /// The document, as text.
    pub fn fixture_text(&self, text: &str) -> &Self {
        self.set("fixture", text);
        self
    }

    /// What to print on stderr.
    pub fn stderr(&self, text: &str) -> &Self {
        self.set("stderr", text);
        self
    }

    /// Print the stderr lines one at a time, 0.15 s apart, as a real run would.
    pub fn slow(&self) -> &Self {
        self.set("slow", "");
        self
    }

    /// Raw bytes to print on stdout.
    pub fn stdout_bytes(&self, bytes: &[u8]) -> &Self {
        std::fs::write(self.dir.path().join("stdout"), bytes).unwrap();
        self
    }

    /// Raw bytes to print on stderr.
    pub fn stderr_bytes(&self, bytes: &[u8]) -> &Self {
        std::fs::write(self.dir.path().join("stderr"), bytes).unwrap();
        self
    }

    /// The exit code.
    pub fn code(&self, code: i32) -> &Self {
        self.set("code", &format!("{code}\n"));
        self
    }

    /// `segv`, `abort`, `kill`, `wait` (for a signal, then exit 130) or
    /// `stubborn` (ignore SIGINT/SIGTERM and sleep 30 s).
    pub fn mode(&self, mode: &str) -> &Self {
        self.set("mode", mode);
        self
    }

    /// The argv of the eval call, if it happened.
    pub fn argv(&self) -> Option<Vec<String>> {
        self.get("argv")
            .map(|t| t.lines().map(str::to_string).collect())
    }

    /// Whether the stub was called at all (even `--version`).
    pub fn ran(&self) -> bool {
        self.dir.path().join("calls").exists()
    }

    /// A recorded file (`cwd`, `manifest`, `item-link`, `started`, `signalled`).
    pub fn record(&self, name: &str) -> Option<String> {
        self.get(name).map(|t| t.trim_end().to_string())
    }
}
