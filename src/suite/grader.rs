//! A grader as the platform reads it: its kind, its keys, the predicates
//! bob-eval asks of it (with-only, the Skill trigger), and the parsers of its values.

use super::{BTreeMap, Entry, Utf8PathBuf, Value};

/// The six grader types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraderKind {
    /// A JavaScript regex over a target.
    Regex,
    /// A tool was called (between `min` and `max` times).
    ToolUsed,
    /// One tool call came before another.
    ToolOrder,
    /// A file glob exists (or not) after the run.
    FileExists,
    /// An LLM judge with criteria (2 of 3 votes).
    Llm,
    /// An LLM judge comparing against a recorded baseline.
    Baseline,
}

impl GraderKind {
    /// Every grader type, in the platform's order.
    pub const ALL: [GraderKind; 6] = [
        GraderKind::Regex,
        GraderKind::ToolOrder,
        GraderKind::ToolUsed,
        GraderKind::FileExists,
        GraderKind::Llm,
        GraderKind::Baseline,
    ];

    /// The name used in `type:`.
    pub fn as_str(self) -> &'static str {
        match self {
            GraderKind::Regex => "regex",
            GraderKind::ToolUsed => "tool_used",
            GraderKind::ToolOrder => "tool_order",
            GraderKind::FileExists => "file_exists",
            GraderKind::Llm => "llm",
            GraderKind::Baseline => "baseline",
        }
    }

    /// Does a judge model grade it? (`llm` and `baseline` ask one.)
    pub fn asks_judge(self) -> bool {
        matches!(self, GraderKind::Llm | GraderKind::Baseline)
    }

    /// Parse a `type:` value.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// The keys this type accepts (besides `type`, `name`, `weight`, `arm`).
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            GraderKind::Regex => &["pattern", "flags", "match", "target"],
            GraderKind::ToolUsed => &["tool", "input_match", "min", "max"],
            GraderKind::ToolOrder => &["before", "after"],
            GraderKind::FileExists => &["path", "exists"],
            GraderKind::Llm => &["criteria", "focus"],
            GraderKind::Baseline => &["baseline_file", "criteria"],
        }
    }

    /// The keys this type requires.
    pub fn required(self) -> &'static [&'static str] {
        match self {
            GraderKind::Regex => &["pattern"],
            GraderKind::ToolUsed => &["tool"],
            GraderKind::ToolOrder => &["before", "after"],
            GraderKind::FileExists => &["path"],
            GraderKind::Llm => &["criteria"],
            GraderKind::Baseline => &["baseline_file", "criteria"],
        }
    }

    /// The key a grader file's body fills when the frontmatter does not set it.
    pub fn body_key(self) -> Option<&'static str> {
        match self {
            GraderKind::Llm | GraderKind::Baseline => Some("criteria"),
            GraderKind::Regex => Some("pattern"),
            _ => None,
        }
    }
}

/// Keys every grader accepts.
pub const COMMON_GRADER_KEYS: [&str; 4] = ["type", "name", "weight", "arm"];

/// One grader, from a `graders/*.md` file or a `case.yaml` `graders:` item.
#[derive(Debug, Clone, PartialEq)]
pub struct Grader {
    /// Its name: the file name without `.md`, or `name:`.
    pub name: String,
    /// The file it is defined in.
    pub file: Utf8PathBuf,
    /// The line where it starts (1 for a grader file).
    pub line: Option<usize>,
    /// Every key as written (including unknown ones), with the body filled in.
    pub fields: BTreeMap<String, Entry>,
}

/// What a regex grader looks at, or an llm grader focuses on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The final assistant message (the default).
    LastMessage,
    /// The whole trace.
    Trace,
    /// The list of files written.
    Files,
    /// Calls made to mocked tools.
    MockCalls,
    /// One file's content.
    File(String),
}

/// How a regex grader's pattern must match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchMode {
    /// At least once (the default).
    Contains,
    /// Never.
    NotContains,
    /// Exactly N times.
    Count(u64),
}

/// A tool reference in a `tool_order` grader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRef {
    /// The tool name.
    pub tool: String,
    /// A regex over the JSON-encoded input, if any.
    pub input_match: Option<String>,
}

/// A grader's typed configuration, with the platform's defaults applied.
#[derive(Debug, Clone, PartialEq)]
pub enum GraderSpec {
    /// `type: regex`.
    Regex {
        /// The JavaScript pattern.
        pattern: String,
        /// JavaScript flags (default empty).
        flags: String,
        /// `contains` (default), `not_contains`, `count:N`.
        mode: MatchMode,
        /// What it reads (default the last message).
        target: Target,
    },
    /// `type: tool_used`.
    ToolUsed {
        /// The tool.
        tool: String,
        /// Regex over the JSON-encoded input.
        input_match: Option<String>,
        /// Fewest calls (default 1).
        min: u64,
        /// Most calls.
        max: Option<u64>,
    },
    /// `type: tool_order`.
    ToolOrder {
        /// The call that must come first.
        before: ToolRef,
        /// The call that must come after.
        after: ToolRef,
    },
    /// `type: file_exists`.
    FileExists {
        /// The glob.
        path: String,
        /// Whether it must exist (default true).
        exists: bool,
    },
    /// `type: llm`.
    Llm {
        /// The pass criteria (the file body).
        criteria: String,
        /// What the judge reads (default the last message).
        focus: Target,
    },
    /// `type: baseline`.
    Baseline {
        /// The `.jsonl` in the case folder.
        baseline_file: String,
        /// The criteria (the file body).
        criteria: String,
    },
}

impl Grader {
    /// A key's entry.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.fields.get(key)
    }

    /// A key's string value.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Entry::as_str)
    }

    /// The declared type, if it is one of the six.
    pub fn kind(&self) -> Option<GraderKind> {
        self.str("type").and_then(GraderKind::parse)
    }

    /// `weight` (default 1).
    pub fn weight(&self) -> f64 {
        self.get("weight")
            .and_then(|e| e.value.as_f64())
            .unwrap_or(1.0)
    }

    /// `arm` (`with-only` or `both`), when set.
    pub fn arm(&self) -> Option<&str> {
        self.str("arm")
    }

    /// True for a `tool_used` grader on the `Skill` tool: it sees whether a
    /// skill fired, not what the answer holds.
    pub fn is_skill_trigger(&self) -> bool {
        is_skill_trigger(self.str("type").unwrap_or(""), self.str("tool"))
    }

    /// True when the platform treats this grader as with-only under
    /// `with-without` (a plugin-fired indicator, not scored): a Skill trigger
    /// without `arm: both`, or any grader with `arm: with-only`.
    pub fn is_with_only(&self) -> bool {
        is_with_only(self.str("type").unwrap_or(""), self.str("tool"), self.arm())
    }

    /// The typed configuration with defaults, or `None` when a required key is
    /// missing or mistyped (`bob-eval check` says which).
    pub fn spec(&self) -> Option<GraderSpec> {
        let s = |k: &str| self.str(k).map(str::to_owned);
        Some(match self.kind()? {
            GraderKind::Regex => GraderSpec::Regex {
                pattern: s("pattern")?,
                flags: match self.get("flags") {
                    Some(e) => e.as_str()?.to_owned(),
                    None => String::new(),
                },
                mode: match self.get("match") {
                    Some(e) => parse_match(e.as_str()?)?,
                    None => MatchMode::Contains,
                },
                target: match self.get("target") {
                    Some(e) => parse_target(&e.value)?,
                    None => Target::LastMessage,
                },
            },
            GraderKind::ToolUsed => GraderSpec::ToolUsed {
                tool: s("tool")?,
                input_match: match self.get("input_match") {
                    Some(e) => Some(e.as_str()?.to_owned()),
                    None => None,
                },
                min: match self.get("min") {
                    Some(e) => as_count(&e.value)?,
                    None => 1,
                },
                max: match self.get("max") {
                    Some(e) => Some(as_count(&e.value)?),
                    None => None,
                },
            },
            GraderKind::ToolOrder => GraderSpec::ToolOrder {
                before: parse_tool_ref(&self.get("before")?.value)?,
                after: parse_tool_ref(&self.get("after")?.value)?,
            },
            GraderKind::FileExists => GraderSpec::FileExists {
                path: s("path")?,
                exists: match self.get("exists") {
                    Some(e) => e.value.as_bool()?,
                    None => true,
                },
            },
            GraderKind::Llm => GraderSpec::Llm {
                criteria: s("criteria")?,
                focus: match self.get("focus") {
                    Some(e) => parse_target(&e.value)?,
                    None => Target::LastMessage,
                },
            },
            GraderKind::Baseline => GraderSpec::Baseline {
                baseline_file: s("baseline_file")?,
                criteria: s("criteria")?,
            },
        })
    }
}

/// `contains`, `not_contains` or `count:N`.
pub fn parse_match(text: &str) -> Option<MatchMode> {
    match text {
        "contains" => Some(MatchMode::Contains),
        "not_contains" => Some(MatchMode::NotContains),
        _ => {
            let digits = text.strip_prefix("count:")?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            digits.parse().ok().map(MatchMode::Count)
        }
    }
}

/// A `target`/`focus` value: a name, or `{source: file, path: P}`.
pub fn parse_target(value: &Value) -> Option<Target> {
    match value {
        Value::String(s) => match s.as_str() {
            "last_message" => Some(Target::LastMessage),
            "trace" => Some(Target::Trace),
            "files" => Some(Target::Files),
            "mock_calls" => Some(Target::MockCalls),
            _ => None,
        },
        Value::Mapping(map) => {
            if map.len() != 2 || map.get("source").and_then(Value::as_str) != Some("file") {
                return None;
            }
            map.get("path")
                .and_then(Value::as_str)
                .map(|p| Target::File(p.to_owned()))
        }
        _ => None,
    }
}

/// A `before`/`after` value: a tool name, or `{tool, input_match}`.
pub fn parse_tool_ref(value: &Value) -> Option<ToolRef> {
    match value {
        Value::String(tool) => Some(ToolRef {
            tool: tool.clone(),
            input_match: None,
        }),
        Value::Mapping(map) => {
            if map
                .keys()
                .any(|k| !matches!(k.as_str(), Some("tool" | "input_match")))
            {
                return None;
            }
            let tool = map.get("tool")?.as_str()?.to_owned();
            let input_match = match map.get("input_match") {
                Some(v) => Some(v.as_str()?.to_owned()),
                None => None,
            };
            Some(ToolRef { tool, input_match })
        }
        _ => None,
    }
}

/// A non-negative integer (a YAML float with no fraction counts, as in JavaScript).
pub fn as_count(value: &Value) -> Option<u64> {
    if let Some(n) = value.as_u64() {
        return Some(n);
    }
    let f = value.as_f64()?;
    (f >= 0.0 && f.fract() == 0.0 && f <= u64::MAX as f64).then_some(f as u64)
}

/// The platform's question "is this grader the Skill trigger?", on a grader's
/// `type` and `tool` however they were read (a suite's file, the platform's
/// document, a stored run): a `tool_used` grader on the `Skill` tool.
pub fn is_skill_trigger(kind: &str, tool: Option<&str>) -> bool {
    kind == "tool_used" && tool == Some("Skill")
}

/// The platform's rule for a with-only grader under `with-without` (a
/// plugin-fired indicator, not scored unless every grader of its case is
/// one): `arm: with-only`, or a Skill trigger without `arm: both`.
pub fn is_with_only(kind: &str, tool: Option<&str>, arm: Option<&str>) -> bool {
    match arm {
        Some("with-only") => true,
        Some("both") => false,
        _ => is_skill_trigger(kind, tool),
    }
}
