//! The platform's stderr: read line by line within a bound, kept in a log,
//! turned into progress events and into the lines an error shows.

use crate::event::{Event, Observer};
use camino::Utf8Path;
use regex::Regex;
use std::io::{BufRead, BufReader, Write};
use std::sync::{Arc, Mutex, OnceLock, mpsc};

/// What the stderr reader collected.
#[derive(Debug, Default)]
pub(super) struct StderrSummary {
    pub(super) cross_lines: Vec<String>,
    pub(super) tail: std::collections::VecDeque<String>,
}

pub(super) const TAIL: usize = 12;

/// The longest platform stderr line kept; the rest of a longer line is dropped
/// (a platform printing without newlines cannot grow bob-eval's memory).
pub(super) const MAX_LINE: usize = 64 * 1024;

/// Read one line (through `\n`) into `buf`, keeping at most `max` bytes of it.
/// Returns the bytes consumed (0 at the end of the stream).
pub(super) fn read_line_bounded(
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

/// Read the platform's stderr on a thread until it closes: copy each line to
/// `log`, turn progress lines into events, keep the `✗` lines and a tail in
/// `summary`, then say so on `done`. An observer that panics (its stderr went
/// with the terminal: SIGHUP) does not stop the reading, so the platform never
/// blocks on a full pipe.
pub(super) fn spawn_stderr_reader(
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

/// The `✗` lines and the tail of the platform's stderr, for an error. Lines
/// naming a file under `hidden` (the plugin folder, removed when not kept:
/// the platform's `Report: …/report.html`, say) are left out, and a last line
/// says so.
pub(super) fn error_lines(summary: &StderrSummary, hidden: Option<&Utf8Path>) -> Vec<String> {
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

pub(super) fn last_lines(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    lines[lines.len().saturating_sub(n)..].to_vec()
}

/// Parse one platform stderr line of `item`'s run into a progress event;
/// `None` for anything else.
pub(super) fn parse_progress(item: &str, line: &str) -> Option<Event> {
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
