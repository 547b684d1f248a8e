//! Transcripts: what the model said and did on one run, kept with the run.
//!
//! The platform writes each run's trace (`tracePath`, stream-json: one JSON
//! event a line) in its temp folder; bob-eval asks it to keep them
//! (`--keep-temp`), reads them before that folder is removed with the plugin,
//! and keeps each in the evidence store: secrets redacted first
//! ([`redact`]), then compressed (zlib) and stored once per content (its
//! sha256, [`Transcript::digest`]), with the case's prompt and the run's
//! final answer (the last assistant text block, [`final_answer`]) beside it.
//! See `docs/transcripts.md`.

use flate2::Compression;
use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use serde::Serialize;
use serde_json::Value;
use std::io::{Read, Write};
use std::sync::LazyLock;

/// The most bytes of a trace read from the platform's folder: a longer one
/// is not kept (the run still counts).
pub const MAX_TRACE_BYTES: u64 = 32 * 1024 * 1024;

/// The default transcript cap of a store, in MiB of compressed traces
/// ([`CAP_ENV`] changes it).
pub const DEFAULT_CAP_MIB: u64 = 256;

/// `$BOB_TRANSCRIPT_CAP_MB`: the most MiB of compressed traces one evidence
/// store keeps (0 keeps none) [default: [`DEFAULT_CAP_MIB`]].
pub const CAP_ENV: &str = "BOB_TRANSCRIPT_CAP_MB";

/// The cap of [`CAP_ENV`] in bytes; a value that is not a whole number of
/// MiB in 0..=1048576 is refused in words.
pub fn cap_from(value: Option<&str>) -> Result<u64, String> {
    let Some(text) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(DEFAULT_CAP_MIB * 1024 * 1024);
    };
    text.parse::<u64>()
        .ok()
        .filter(|n| *n <= 1024 * 1024)
        .map(|n| n * 1024 * 1024)
        .ok_or_else(|| {
            format!("${CAP_ENV}: give a whole number of MiB in 0..=1048576, not {text:?}")
        })
}

/// One run's transcript, redacted, ready to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The case's prompt, as the platform reported it.
    pub prompt: Option<String>,
    /// The final answer: the last assistant text block of the trace.
    pub answer: Option<String>,
    /// The trace (stream-json lines).
    pub trace: String,
}

impl Transcript {
    /// A transcript of `trace` for a case whose prompt is `prompt`, both
    /// redacted ([`redact`]); the answer read from the redacted trace.
    pub fn new(prompt: Option<&str>, trace: &str) -> Transcript {
        let trace = redact_trace(trace);
        Transcript {
            prompt: prompt.map(redact),
            answer: final_answer(&trace),
            trace,
        }
    }

    /// The content address of the trace: the sha256 of its (redacted) text.
    pub fn digest(&self) -> String {
        digest_of(&self.trace)
    }
}

/// The sha256 (hex) of `trace`.
pub fn digest_of(trace: &str) -> String {
    super::digest_parts([trace])
}

/// `text` compressed (zlib, default level).
pub fn compress(text: &str) -> Vec<u8> {
    let mut enc = ZlibEncoder::new(Vec::new(), Compression::default());
    enc.write_all(text.as_bytes())
        .expect("writing to memory cannot fail");
    enc.finish().expect("writing to memory cannot fail")
}

/// The text of `bytes` compressed by [`compress`]; `None` when they are not.
pub fn decompress(bytes: &[u8]) -> Option<String> {
    let mut text = String::new();
    ZlibDecoder::new(bytes).read_to_string(&mut text).ok()?;
    Some(text)
}

/// What [`redact`] puts in place of a secret, by kind.
const MARK: &str = "[redacted]";

/// The secrets [`redact`] replaces (documented in `docs/transcripts.md`):
/// Anthropic API keys (`sk-ant-…`), other well-known key shapes (`sk-…`
/// OpenAI-style, GitHub `ghp_`/`github_pat_`, Slack `xox?-`, AWS `AKIA…`),
/// bearer tokens (`Bearer <token>`), and assignments to names that say
/// key, token, secret or password (`ANTHROPIC_API_KEY=…`, `"api_key": "…"`).
static PATTERNS: LazyLock<Vec<(regex::Regex, &'static str)>> = LazyLock::new(|| {
    let re = |p: &str| regex::Regex::new(p).expect("a redaction pattern compiles");
    vec![
        (re(r"sk-ant-[A-Za-z0-9_\-]{6,}"), MARK),
        (re(r"\bsk-[A-Za-z0-9_\-]{20,}"), MARK),
        (re(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"), MARK),
        (re(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), MARK),
        (re(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), MARK),
        (re(r"\bAKIA[0-9A-Z]{16}\b"), MARK),
        (
            re(r"(?i)\b(bearer)(\s+)[A-Za-z0-9\-._~+/]{8,}=*"),
            "${1}${2}[redacted]",
        ),
        (
            re(
                r#"(?i)\b([A-Z0-9_\-]*(?:api[_\-]?key|token|secret|password|passwd)[A-Z0-9_\-]*)("?\s*[=:]\s*"?)([^\s"',;]{4,})"#,
            ),
            "${1}${2}[redacted]",
        ),
    ]
});

/// A long token: 32 or more letters, digits, `_`, `-`, `+`, `/` with upper
/// case, lower case and digits mixed (a random key's shape; a hex digest,
/// all lower case, and words are left as they are).
static LONG_TOKEN: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"[A-Za-z0-9_\-+/]{32,}={0,2}").expect("the long-token pattern compiles")
});

/// `text` with every secret [`PATTERNS`] and [`LONG_TOKEN`] find replaced
/// by `[redacted]` (an assignment keeps its name: `API_KEY=[redacted]`).
pub fn redact(text: &str) -> String {
    let mut out = text.to_string();
    for (re, with) in PATTERNS.iter() {
        if re.is_match(&out) {
            out = re.replace_all(&out, *with).into_owned();
        }
    }
    LONG_TOKEN
        .replace_all(&out, |c: &regex::Captures<'_>| {
            let token = &c[0];
            let mixed = token.chars().any(|c| c.is_ascii_uppercase())
                && token.chars().any(|c| c.is_ascii_lowercase())
                && token.chars().any(|c| c.is_ascii_digit());
            if mixed {
                MARK.to_string()
            } else {
                token.to_string()
            }
        })
        .into_owned()
}

/// A trace redacted string by string: each line that is JSON is parsed, every
/// string in it (keys included) redacted, and written back, so the JSON
/// stays valid; a line that is not JSON is redacted as text.
pub fn redact_trace(trace: &str) -> String {
    let mut out = String::with_capacity(trace.len());
    for line in trace.lines() {
        match serde_json::from_str::<Value>(line) {
            Ok(mut value) => {
                redact_value(&mut value);
                out.push_str(&value.to_string());
            }
            Err(_) => out.push_str(&redact(line)),
        }
        out.push('\n');
    }
    out
}

fn redact_value(value: &mut Value) {
    match value {
        Value::String(s) => *s = redact(s),
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::Object(map) => {
            let old = std::mem::take(map);
            for (k, mut v) in old {
                redact_value(&mut v);
                map.insert(redact(&k), v);
            }
        }
        _ => {}
    }
}

/// One step of a conversation, as a person reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Step {
    /// Text the model wrote.
    Text {
        /// The text.
        text: String,
    },
    /// A tool the model called.
    ToolCall {
        /// The tool's name.
        name: String,
        /// Its input, as compact JSON, cut to [`SHORT_INPUT`] characters.
        input: String,
    },
    /// What a tool gave back.
    ToolResult {
        /// The result's text, cut to [`SHORT_INPUT`] characters.
        text: String,
        /// The tool reported an error.
        error: bool,
    },
}

/// The most characters of a tool's input or result a [`Step`] holds.
pub const SHORT_INPUT: usize = 200;

/// `text` cut to `max` characters, `…` marking a cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The content blocks of an `assistant` or `user` event of the trace.
fn blocks<'a>(event: &'a Value, kind: &str) -> Option<&'a Vec<Value>> {
    if event.get("type")?.as_str()? != kind {
        return None;
    }
    event.get("message")?.get("content")?.as_array()
}

/// The steps of `trace` in order: the model's text, its tool calls, and the
/// tools' results. Lines that are not JSON events are skipped.
pub fn steps(trace: &str) -> Vec<Step> {
    let mut out = Vec::new();
    for line in trace.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if let Some(blocks) = blocks(&event, "assistant") {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let text = b.get("text").and_then(Value::as_str).unwrap_or_default();
                        if !text.trim().is_empty() {
                            out.push(Step::Text { text: text.into() });
                        }
                    }
                    Some("tool_use") => out.push(Step::ToolCall {
                        name: b.get("name").and_then(Value::as_str).unwrap_or("?").into(),
                        input: clip(
                            &b.get("input").map(Value::to_string).unwrap_or_default(),
                            SHORT_INPUT,
                        ),
                    }),
                    _ => {}
                }
            }
        } else if let Some(blocks) = blocks(&event, "user") {
            for b in blocks {
                if b.get("type").and_then(Value::as_str) != Some("tool_result") {
                    continue;
                }
                let text = match b.get("content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Array(parts)) => parts
                        .iter()
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                out.push(Step::ToolResult {
                    text: clip(&text, SHORT_INPUT),
                    error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                });
            }
        }
    }
    out
}

/// The final answer of `trace`: its last assistant text block; else the
/// `result` event's text; `None` when the model wrote no text.
pub fn final_answer(trace: &str) -> Option<String> {
    let last_text = steps(trace).into_iter().rev().find_map(|s| match s {
        Step::Text { text } => Some(text),
        _ => None,
    });
    last_text.or_else(|| {
        trace.lines().rev().find_map(|line| {
            let event: Value = serde_json::from_str(line).ok()?;
            (event.get("type")?.as_str()? == "result")
                .then(|| event.get("result")?.as_str().map(str::to_owned))
                .flatten()
                .filter(|t| !t.trim().is_empty())
        })
    })
}

/// The final answer kept for the stored run `run_id` ([`super::Store::answer`]):
/// `None` for a run with no transcript (bought before transcripts were kept,
/// over the store's cap, or collected by `evidence gc`).
pub fn answer(store: &super::Store, run_id: &str) -> crate::error::Result<Option<String>> {
    store.answer(run_id)
}

/// The transcripts of `runs`, the runs kept from `result`: each run's trace
/// read where the platform says it wrote it (`tracePath`), only inside
/// `under` (the platform's temp folder bob-eval gave it; a path elsewhere
/// is never read), at most [`MAX_TRACE_BYTES`], redacted. Returns the
/// transcripts by run id, and in words the runs whose trace could not be
/// read (the run still counts).
pub fn read_traces(
    result: &crate::platform::result::PlatformResult,
    runs: &[super::StoredRun],
    under: &camino::Utf8Path,
) -> (Vec<(String, Transcript)>, Vec<String>) {
    let (mut out, mut missing) = (Vec::new(), Vec::new());
    let root = std::fs::canonicalize(under).ok();
    for case in &result.cases {
        let arms = [
            (super::Arm::With, &case.arms.with),
            (super::Arm::Without, &case.arms.without),
        ];
        for (arm, list) in arms {
            for (i, run) in list.iter().enumerate() {
                let Some(stored) = runs.iter().find(|r| {
                    r.key.case == case.name && r.key.arm == arm && r.outcome.run as usize == i + 1
                }) else {
                    continue;
                };
                let what = format!("case `{}`, {} arm, run {}", case.name, arm.as_str(), i + 1);
                let Some(path) = &run.trace_path else {
                    missing.push(format!("{what}: the platform named no trace"));
                    continue;
                };
                let inside = std::fs::canonicalize(path)
                    .ok()
                    .zip(root.as_ref())
                    .is_some_and(|(p, root)| p.starts_with(root));
                if !inside {
                    missing.push(format!("{what}: no trace in the platform's temp folder"));
                    continue;
                }
                match crate::fsio::read_text(camino::Utf8Path::new(path), MAX_TRACE_BYTES) {
                    Ok(text) => out.push((
                        stored.id.clone(),
                        Transcript::new(case.prompt_markdown.as_deref(), &text),
                    )),
                    Err(e) => missing.push(format!("{what}: its trace cannot be read ({e})")),
                }
            }
        }
    }
    (out, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s"}"#,
        "\n",
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"bob-eval-commit:commit"}}]}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Launching skill"}]}}"#,
        "\n",
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"fix(hooks): skip docs"}]}}"#,
        "\n",
        r#"{"type":"result","subtype":"success","result":"fix(hooks): skip docs"}"#,
        "\n"
    );

    #[test]
    fn the_answer_is_the_last_assistant_text_and_steps_read_in_order() {
        assert_eq!(
            final_answer(TRACE).as_deref(),
            Some("fix(hooks): skip docs")
        );
        let steps = steps(TRACE);
        assert_eq!(steps.len(), 4, "{steps:?}");
        assert_eq!(
            steps[1],
            Step::ToolCall {
                name: "Skill".into(),
                input: r#"{"skill":"bob-eval-commit:commit"}"#.into()
            }
        );
        assert!(
            matches!(&steps[2], Step::ToolResult { text, error: false } if text == "Launching skill")
        );
    }

    #[test]
    fn with_no_assistant_text_the_result_event_answers_and_else_nothing() {
        let only_result = r#"{"type":"result","result":"done"}"#;
        assert_eq!(final_answer(only_result).as_deref(), Some("done"));
        assert_eq!(final_answer("not json\n"), None);
    }

    #[test]
    fn secrets_are_redacted_and_ordinary_text_is_not() {
        let cases = [
            (
                "key sk-ant-api03-AbCdEf123456_xyz end",
                "key [redacted] end",
            ),
            (
                "Authorization: Bearer abc.DEF-123_456",
                "Authorization: Bearer [redacted]",
            ),
            ("ANTHROPIC_API_KEY=sk123456", "ANTHROPIC_API_KEY=[redacted]"),
            (
                "export GITHUB_TOKEN=hunter22",
                "export GITHUB_TOKEN=[redacted]",
            ),
            (
                "tok Zx9Kq2Lm8Np4Rs6Tv1Wy3Ab5Cd7Ef0Gh9Ij end",
                "tok [redacted] end",
            ),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123", "[redacted]"),
            ("AKIAABCDEFGHIJKLMNOP", "[redacted]"),
        ];
        for (text, want) in cases {
            assert_eq!(redact(text), want, "{text}");
        }
        let digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        for plain in [
            "fix(hooks): skip the pre-commit hook when only docs change",
            digest,
            "the token budget is 3",
        ] {
            assert_eq!(redact(plain), plain);
        }
    }

    #[test]
    fn a_trace_stays_valid_json_after_redaction() {
        let line = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"use\nsk-ant-api03-SECRETSECRET and \"Bearer abcdefgh1234\""}]}}"#;
        let out = redact_trace(line);
        let value: Value = serde_json::from_str(out.trim()).expect("still JSON");
        let text = value["message"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(text, "use\n[redacted] and \"Bearer [redacted]\"");
        assert!(!out.contains("SECRET"));
        assert_eq!(redact_trace("plain sk-ant-abcdefgh"), "plain [redacted]\n");
    }

    #[test]
    fn compression_round_trips_and_shrinks_a_trace() {
        let big = TRACE.repeat(50);
        let packed = compress(&big);
        assert!(
            packed.len() < big.len() / 5,
            "{} of {}",
            packed.len(),
            big.len()
        );
        assert_eq!(decompress(&packed).as_deref(), Some(big.as_str()));
        assert_eq!(decompress(b"not zlib"), None);
    }

    #[test]
    fn equal_traces_share_a_digest_and_redaction_comes_first() {
        let a = Transcript::new(Some("p"), &TRACE.replace("docs", "docs sk-ant-one111111"));
        let b = Transcript::new(Some("p"), &TRACE.replace("docs", "docs sk-ant-two222222"));
        assert_eq!(
            a.digest(),
            b.digest(),
            "the same once the keys are redacted"
        );
        let c = Transcript::new(Some("p"), TRACE);
        assert_ne!(a.digest(), c.digest());
        assert_eq!(a.digest().len(), 64);
    }

    #[test]
    fn the_cap_reads_mib_and_refuses_nonsense() {
        assert_eq!(cap_from(None), Ok(DEFAULT_CAP_MIB << 20));
        assert_eq!(cap_from(Some(" 3 ")), Ok(3 << 20));
        assert_eq!(cap_from(Some("0")), Ok(0));
        let err = cap_from(Some("lots")).unwrap_err();
        assert!(err.contains(CAP_ENV) && err.contains("\"lots\""), "{err}");
    }
}
