//! A fake Anthropic Messages API that plays a scripted model, so tests can run the
//! real `claude plugin eval` fully offline and know in advance what it will score.
//!
//! # What it speaks
//! - HTTP/1.1 on `127.0.0.1:<ephemeral port>` only. One request per connection:
//!   every answer carries `Content-Length` and `Connection: close`. Request bodies
//!   may come with `Content-Length` or chunked.
//! - `POST /v1/messages` (the CLI sends `?beta=true`): a JSON body is parsed and
//!   answered by the [`Script`]. With `"stream": true` the answer is one complete
//!   `text/event-stream` response in Messages API order: `message_start`, `ping`,
//!   `content_block_start`, `content_block_delta` (`text_delta`, or
//!   `input_json_delta` for a `tool_use` block), `content_block_stop`,
//!   `message_delta` (`stop_reason`, `usage.output_tokens`), `message_stop`.
//!   Without `stream` it is the same message as one JSON object.
//! - `POST /v1/messages/count_tokens`: `{"input_tokens": N}` (N = body bytes / 4).
//! - Anything else: `404` with a Messages API error body (`not_found_error`).
//! - Bounded: at most [`FakeApi::MAX_REQUESTS`] requests (further connections get a
//!   `529 overloaded_error` and the listener stops), a read timeout per
//!   connection, and a body size limit. Dropping the [`FakeApi`] stops the
//!   listener and joins every thread it started.
//!
//! # What `claude` 2.1.328 sends (observed)
//! Only `POST /v1/messages?beta=true`, always `"stream": true`, one connection
//! per request here (it asks for keep-alive; the fake closes). Headers of
//! interest: `x-api-key` (from `ANTHROPIC_API_KEY`), `anthropic-version:
//! 2023-06-01`, `anthropic-beta` (agent turns include `claude-code-20250219`;
//! judge votes do not), `user-agent: claude-cli/2.1.328 (external, sdk-cli)`,
//! `x-app: cli`, `x-claude-code-session-id`, `x-stainless-retry-count`. Agent
//! turns offer `Agent, Glob, Grep, Read, Skill, …` on both arms; the skills list
//! (a `role: "system"` entry in `messages`) names `bob-eval-commit:commit` only
//! on the with arm, beside the CLI's built-in skills. The tool result of a Skill
//! call is "Launching skill: …" followed by the SKILL.md body. A judge vote has
//! `tools: []`, a judge system prompt, and one user message that quotes the
//! criterion and the agent's output and ends "Respond with exactly one word:
//! PASS or FAIL." Nothing else was requested (no count_tokens, no probes).
//!
//! # Scripting the model
//! A [`Script`] decides each `/v1/messages` answer. Requests come in two kinds
//! ([`ApiRequest::is_judge`]): a *judge* request offers no tools and its last user
//! message asks for `PASS` or `FAIL` (the platform's `llm` graders send three per
//! grader per run); every other request is an *agent* turn. In order:
//! 1. [`Script::reject_all`] answers every request with that error;
//!    [`Script::reject_credentials`] is the credential failure the platform
//!    reports as `auth_failed` (a 403: see there why not a 401).
//! 2. Judge requests vote with [`Script::judge`]'s predicate (`true` → `PASS`);
//!    [`Script::judge_passes_if_contains`] votes `PASS` when the text under
//!    judgment holds a marker. Without a judge rule every vote is `FAIL`.
//! 3. Agent turns go through the rules in the order they were added; the first
//!    that matches answers. [`Script::fire_skill`] adds the two-turn skill rule:
//!    when the request offers the `Skill` tool, the skills list names the skill and
//!    the prompt holds a marker, answer `tool_use Skill {"skill": …}`; once the
//!    tool result comes back, answer with the given text.
//! 4. Otherwise [`Script::otherwise`]'s text (default `"OK."`).
//!
//! A rule may answer [`Reply::Drop`]: the connection is closed unanswered,
//! which the platform reports on the run as `API Error: Connection dropped
//! (ECONNRESET)` (set `CLAUDE_CODE_MAX_RETRIES=0` so it does not retry).
//!
//! [`Script::delay`] makes the model slow: each `/v1/messages` answer waits
//! that long (the request is recorded on arrival).
//!
//! Every answer reports the usage of [`Script::usage`] (agent turns; default
//! 1000 input and 100 output tokens) or 500/5 (votes), so the platform's cost
//! is predictable.
//!
//! # Recording
//! [`FakeApi::requests`] returns every request seen, in arrival order, as a
//! [`Recorded`] summary: path, model, kind, whether `Skill` was offered, the
//! skills listed, and what the fake answered; its `Display` is one log line.
//!
//! ```ignore
//! let api = FakeApi::start(
//!     Script::new()
//!         .fire_skill("bob-eval-commit:commit", "commit message", GOOD_MESSAGE)
//!         .otherwise(BAD_MESSAGE)
//!         .judge_passes_if_contains("Skip the hook because"),
//! );
//! let url = api.base_url(); // ANTHROPIC_BASE_URL
//! ```

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Longest a connection may stay silent before the fake gives up on it.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest request head (request line and headers) accepted.
const MAX_HEAD: usize = 64 * 1024;
/// Largest request body accepted.
const MAX_BODY: usize = 16 * 1024 * 1024;
/// The recorded status of a [`Reply::Drop`]: no HTTP answer was sent.
pub const DROPPED: u16 = 0;

/// Token counts reported in an answer's `usage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// `usage.input_tokens`.
    pub input_tokens: u64,
    /// `usage.output_tokens`.
    pub output_tokens: u64,
}

/// What the fake answers to one `/v1/messages` request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// One `text` block, `stop_reason: "end_turn"`.
    Text(String),
    /// One `tool_use` block, `stop_reason: "tool_use"`.
    ToolUse {
        /// The tool's name, e.g. `Skill`.
        name: String,
        /// The tool's input, e.g. `{"skill": "bob-eval-commit:commit"}`.
        input: Value,
    },
    /// No answer: the connection is closed as soon as the request is read
    /// (the platform sees a dropped connection; with
    /// `CLAUDE_CODE_MAX_RETRIES=0` it does not retry and the run ends on
    /// an API error).
    Drop,
    /// An HTTP error with a Messages API error body.
    Error {
        /// HTTP status, e.g. 401.
        status: u16,
        /// `error.type`, e.g. `authentication_error`.
        kind: String,
        /// `error.message`.
        message: String,
    },
}

impl Reply {
    /// A short description for the request log, e.g. `tool_use Skill {"skill":"x"}`.
    pub fn summary(&self) -> String {
        match self {
            Reply::Text(t) => format!("text {:?}", truncate(t, 60)),
            Reply::ToolUse { name, input } => format!("tool_use {name} {input}"),
            Reply::Error { status, kind, .. } => format!("error {status} {kind}"),
            Reply::Drop => "dropped".into(),
        }
    }
}

/// Which kind of request the script saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A model turn of the agent under test.
    Agent,
    /// An `llm` grader's judge vote.
    Judge,
    /// Not a `/v1/messages` request (or not parseable as one).
    Other,
}

/// A predicate over a request.
type Pred = Arc<dyn Fn(&ApiRequest) -> bool + Send + Sync>;

/// One agent rule: when it matches, how to answer.
struct Rule {
    when: Pred,
    reply: Arc<dyn Fn(&ApiRequest) -> Reply + Send + Sync>,
}

/// The scripted model (see the module docs for the order rules apply in).
pub struct Script {
    rules: Vec<Rule>,
    otherwise: String,
    judge: Option<Pred>,
    judge_reject: Option<Reply>,
    reject: Option<Reply>,
    usage: Usage,
    judge_usage: Usage,
    delay: Duration,
}

impl Default for Script {
    fn default() -> Self {
        Self::new()
    }
}

impl Script {
    /// A model that answers every agent turn with `"OK."` and votes `FAIL` as a
    /// judge; 1000 input and 100 output tokens per agent turn, 500/5 per vote.
    pub fn new() -> Self {
        Self {
            rules: Vec::new(),
            otherwise: "OK.".into(),
            judge: None,
            judge_reject: None,
            reject: None,
            usage: Usage {
                input_tokens: 1000,
                output_tokens: 100,
            },
            judge_usage: Usage {
                input_tokens: 500,
                output_tokens: 5,
            },
            delay: Duration::ZERO,
        }
    }

    /// Fire the skill `<plugin>:<skill>` on prompts holding `prompt_marker` when
    /// the request offers the `Skill` tool and lists that skill; after the tool
    /// result comes back, answer `then_text`.
    pub fn fire_skill(mut self, skill: &str, prompt_marker: &str, then_text: &str) -> Self {
        let marker = prompt_marker.to_string();
        let text = then_text.to_string();
        self.rules.push(Rule {
            when: Arc::new(move |r: &ApiRequest| {
                r.prompt_contains(&marker) && r.last_tool_result_tool().as_deref() == Some("Skill")
            }),
            reply: Arc::new(move |_| Reply::Text(text.clone())),
        });
        let marker = prompt_marker.to_string();
        let wanted = skill.to_string();
        let fired = skill.to_string();
        self.rules.push(Rule {
            when: Arc::new(move |r: &ApiRequest| {
                r.prompt_contains(&marker)
                    && r.offers_tool("Skill")
                    && r.skills_listed().contains(&wanted)
                    && r.last_tool_result_tool().is_none()
            }),
            reply: Arc::new(move |_| Reply::ToolUse {
                name: "Skill".into(),
                input: json!({ "skill": fired }),
            }),
        });
        self
    }

    /// Answer `text` on agent turns whose prompt holds `prompt_marker`.
    pub fn answer(self, prompt_marker: &str, text: &str) -> Self {
        let marker = prompt_marker.to_string();
        let text = text.to_string();
        self.rule(move |r| r.prompt_contains(&marker), Reply::Text(text))
    }

    /// A model that passes at random: on agent turns whose prompt holds
    /// `prompt_marker`, answer `pass_text` with probability `p_with` when the
    /// skills list names `skill` (the with arm) and `p_without` otherwise, else
    /// `fail_text`. Each arm draws from its own stream, seeded by `seed`, in
    /// the order its requests arrive: however the platform interleaves
    /// concurrent runs, the first k answers of an arm are the same k draws, so
    /// the passes of each arm in a call are fixed by the seed.
    pub fn answer_at_random(
        mut self,
        prompt_marker: &str,
        skill: &str,
        odds: (f64, f64),
        seed: u64,
        texts: (&str, &str),
    ) -> Self {
        let marker = prompt_marker.to_string();
        let skill = skill.to_string();
        let (pass, fail) = (texts.0.to_string(), texts.1.to_string());
        let drawn = [AtomicUsize::new(0), AtomicUsize::new(0)];
        self.rules.push(Rule {
            when: Arc::new(move |r: &ApiRequest| r.prompt_contains(&marker)),
            reply: Arc::new(move |r: &ApiRequest| {
                let with = r.skills_listed().contains(&skill);
                let (arm, p) = if with { (0, odds.0) } else { (1, odds.1) };
                let n = drawn[arm].fetch_add(1, Ordering::SeqCst) as u64;
                let u = unit(seed ^ (arm as u64).wrapping_mul(0xA076_1D64_78BD_642F), n);
                Reply::Text(if u < p { pass.clone() } else { fail.clone() })
            }),
        });
        self
    }

    /// Answer `reply` on agent turns matching `when`.
    pub fn rule(
        mut self,
        when: impl Fn(&ApiRequest) -> bool + Send + Sync + 'static,
        reply: Reply,
    ) -> Self {
        self.rules.push(Rule {
            when: Arc::new(when),
            reply: Arc::new(move |_| reply.clone()),
        });
        self
    }

    /// Answer what `reply` makes of the request on agent turns matching
    /// `when` (a model that reads its context to choose its next call).
    pub fn rule_with(
        mut self,
        when: impl Fn(&ApiRequest) -> bool + Send + Sync + 'static,
        reply: impl Fn(&ApiRequest) -> Reply + Send + Sync + 'static,
    ) -> Self {
        self.rules.push(Rule {
            when: Arc::new(when),
            reply: Arc::new(reply),
        });
        self
    }

    /// The text of agent turns no rule matched.
    pub fn otherwise(mut self, text: &str) -> Self {
        self.otherwise = text.to_string();
        self
    }

    /// Vote `PASS` on judge requests for which `pass` is true, `FAIL` otherwise.
    pub fn judge(mut self, pass: impl Fn(&ApiRequest) -> bool + Send + Sync + 'static) -> Self {
        self.judge = Some(Arc::new(pass));
        self
    }

    /// Vote `PASS` when the judge request's text holds `marker`.
    ///
    /// The judge prompt quotes the text under judgment; choose a marker that the
    /// grader's criteria do not contain.
    pub fn judge_passes_if_contains(self, marker: &str) -> Self {
        let marker = marker.to_string();
        self.judge(move |r| r.text().contains(&marker))
    }

    /// Answer every judge request with this error (agent turns are unchanged):
    /// the `llm` grader cannot vote.
    pub fn judge_error(mut self, status: u16, kind: &str, message: &str) -> Self {
        self.judge_reject = Some(Reply::Error {
            status,
            kind: kind.into(),
            message: message.into(),
        });
        self
    }

    /// Answer every request, agent or judge, with this error.
    pub fn reject_all(mut self, status: u16, kind: &str, message: &str) -> Self {
        self.reject = Some(Reply::Error {
            status,
            kind: kind.into(),
            message: message.into(),
        });
        self
    }

    /// Reject every request as a credential the platform will not use: 403
    /// `permission_error`. (`claude` 2.1.328 answers a 401 by retrying every few
    /// seconds until the case times out, so a 401 never reaches the platform's
    /// `auth_failed`; a 403 ends the run at once with "Failed to authenticate",
    /// which it reports as `partialReason: "auth_failed"`.)
    pub fn reject_credentials(self) -> Self {
        self.reject_all(
            403,
            "permission_error",
            "fake api: this credential is not allowed",
        )
    }

    /// Usage reported on agent turns. Keep `input_tokens` well inside a context
    /// window (say ≤ 100k): near a million, `claude` compacts and asks again,
    /// which changes the conversation the script sees.
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage = Usage {
            input_tokens,
            output_tokens,
        };
        self
    }

    /// A slow model: wait `delay` before answering each `/v1/messages`
    /// request (it is recorded on arrival, before the wait).
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// The answer to one `/v1/messages` request, with its kind and usage.
    fn decide(&self, req: &ApiRequest) -> (Kind, Reply, Usage) {
        let kind = if req.is_judge() {
            Kind::Judge
        } else {
            Kind::Agent
        };
        if let Some(reject) = &self.reject {
            return (kind, reject.clone(), self.usage);
        }
        if let (Kind::Judge, Some(reject)) = (kind, &self.judge_reject) {
            return (kind, reject.clone(), self.judge_usage);
        }
        if kind == Kind::Judge {
            let pass = self.judge.as_ref().is_some_and(|p| p(req));
            let vote = if pass { "PASS" } else { "FAIL" };
            return (kind, Reply::Text(vote.into()), self.judge_usage);
        }
        let reply = self
            .rules
            .iter()
            .find(|rule| (rule.when)(req))
            .map(|rule| (rule.reply)(req))
            .unwrap_or_else(|| Reply::Text(self.otherwise.clone()));
        (kind, reply, self.usage)
    }
}

/// A `/v1/messages` request body with the questions a script asks of it.
#[derive(Debug, Clone)]
pub struct ApiRequest {
    /// The parsed JSON body.
    pub body: Value,
}

impl ApiRequest {
    /// `model`.
    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    /// Whether `stream` is true.
    pub fn stream(&self) -> bool {
        self.body
            .get("stream")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// The names of the tools offered.
    pub fn tool_names(&self) -> Vec<&str> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.get("name")?.as_str())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether the tool `name` is offered.
    pub fn offers_tool(&self, name: &str) -> bool {
        self.tool_names().contains(&name)
    }

    /// The messages.
    fn messages(&self) -> &[Value] {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// All text of `system` and every message, joined by newlines.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if let Some(system) = self.body.get("system") {
            collect_text(system, &mut out);
        }
        for m in self.messages() {
            if let Some(content) = m.get("content") {
                collect_text(content, &mut out);
            }
        }
        out
    }

    /// The text of the user messages only.
    pub fn user_text(&self) -> String {
        let mut out = String::new();
        for m in self.messages().iter().filter(|m| m["role"] == "user") {
            collect_text(&m["content"], &mut out);
        }
        out
    }

    /// Whether the user messages hold `marker` (the case prompt is the first one).
    pub fn prompt_contains(&self, marker: &str) -> bool {
        self.user_text().contains(marker)
    }

    /// The text of the last user message.
    pub fn last_user_text(&self) -> String {
        let mut out = String::new();
        if let Some(m) = self.messages().iter().rev().find(|m| m["role"] == "user") {
            collect_text(&m["content"], &mut out);
        }
        out
    }

    /// The skills the request lists for the Skill tool (`<plugin>:<skill>` or
    /// `<skill>`), from the "skills are available for use with the Skill tool" list.
    pub fn skills_listed(&self) -> Vec<String> {
        let text = self.text();
        let mut skills = Vec::new();
        for (at, _) in text.match_indices("available for use with the Skill tool") {
            for line in text[at..].lines().skip(1) {
                let line = line.trim();
                if line.is_empty() && skills.is_empty() {
                    continue;
                }
                let Some(entry) = line.strip_prefix("- ") else {
                    break;
                };
                let name = entry
                    .split(':')
                    .take_while(|p| !p.starts_with(' '))
                    .collect::<Vec<_>>();
                if !name.is_empty() {
                    skills.push(name.join(":"));
                }
            }
        }
        skills.sort();
        skills.dedup();
        skills
    }

    /// When the last user message carries a `tool_result`, the name of the tool
    /// whose `tool_use` it answers.
    pub fn last_tool_result_tool(&self) -> Option<String> {
        let messages = self.messages();
        let last = messages.iter().rev().find(|m| m["role"] == "user")?;
        let id = last["content"]
            .as_array()?
            .iter()
            .find(|b| b["type"] == "tool_result")?
            .get("tool_use_id")?
            .as_str()?;
        messages
            .iter()
            .filter(|m| m["role"] == "assistant")
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .find(|b| b["type"] == "tool_use" && b["id"] == id)
            .and_then(|b| b["name"].as_str())
            .map(str::to_string)
    }

    /// The text of every `tool_result` block in the conversation, in order.
    pub fn tool_results(&self) -> Vec<String> {
        self.messages()
            .iter()
            .filter(|m| m["role"] == "user")
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| match &b["content"] {
                Value::String(t) => t.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => other.to_string(),
            })
            .collect()
    }

    /// A judge vote request: no tools, and the last user message asks for PASS or FAIL.
    pub fn is_judge(&self) -> bool {
        let last = self.last_user_text();
        self.tool_names().is_empty() && last.contains("PASS") && last.contains("FAIL")
    }
}

/// Append every text found in a `content`/`system` value (string or blocks).
fn collect_text(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(blocks) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => collect_text(&b["text"], out),
                    Some("tool_result") => collect_text(&b["content"], out),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// One request as the fake saw it, and what it answered.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `POST`, `GET`, …
    pub method: String,
    /// The request target, query included (e.g. `/v1/messages?beta=true`).
    pub path: String,
    /// Headers, names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// Agent turn, judge vote, or another request.
    pub kind: Kind,
    /// The body's `model`.
    pub model: Option<String>,
    /// The body's `stream`.
    pub stream: bool,
    /// Tools offered.
    pub tools: Vec<String>,
    /// Skills listed for the Skill tool.
    pub skills_listed: Vec<String>,
    /// The parsed body (`Null` when not JSON).
    pub body: Value,
    /// What the fake answered.
    pub reply: String,
    /// The HTTP status answered.
    pub status: u16,
}

impl Recorded {
    /// Whether the `Skill` tool was offered.
    pub fn offers_skill_tool(&self) -> bool {
        self.tools.iter().any(|t| t == "Skill")
    }

    /// Whether the request offered the skill `name` (the Skill tool and the listing).
    pub fn offers_skill(&self, name: &str) -> bool {
        self.offers_skill_tool() && self.skills_listed.iter().any(|s| s == name)
    }

    /// The value of header `name` (lower case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The user messages' text (where the case prompt is).
    pub fn user_text(&self) -> String {
        ApiRequest {
            body: self.body.clone(),
        }
        .user_text()
    }
}

/// One log line: `POST /v1/messages?beta=true kind=Agent model=Some("m")
/// stream=true skill_tool=true listed=["p:s"] beta=Some("…") ua=Some("…") -> 200
/// tool_use Skill {"skill":"p:s"}`.
impl std::fmt::Display for Recorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} kind={:?} model={:?} stream={} skill_tool={} listed={:?} beta={:?} ua={:?} -> {} {}",
            self.method,
            self.path,
            self.kind,
            self.model,
            self.stream,
            self.offers_skill_tool(),
            self.skills_listed,
            self.header("anthropic-beta"),
            self.header("user-agent"),
            self.status,
            self.reply
        )
    }
}

/// A running fake API. Dropping it stops the server and joins its threads.
pub struct FakeApi {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    log: Arc<Mutex<Vec<Recorded>>>,
    accept: Option<JoinHandle<()>>,
}

impl FakeApi {
    /// Requests served before the fake refuses more.
    pub const MAX_REQUESTS: usize = 2000;

    /// Start serving `script` on an ephemeral loopback port.
    pub fn start(script: Script) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let stop = Arc::new(AtomicBool::new(false));
        let log = Arc::new(Mutex::new(Vec::new()));
        let shared = Arc::new(Shared {
            script,
            log: log.clone(),
            counter: AtomicUsize::new(0),
        });
        let stop2 = stop.clone();
        let accept = std::thread::Builder::new()
            .name(format!("fake-api-{}", addr.port()))
            .spawn(move || accept_loop(listener, stop2, shared))
            .expect("spawn fake api");
        Self {
            addr,
            stop,
            log,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request seen so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap().clone()
    }

    /// The `/v1/messages` requests of one kind.
    pub fn requests_of(&self, kind: Kind) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.kind == kind)
            .collect()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept; refused means the loop already ended.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

/// What every connection thread shares.
struct Shared {
    script: Script,
    log: Arc<Mutex<Vec<Recorded>>>,
    counter: AtomicUsize,
}

/// Accept connections until stopped or the request bound is reached, then join
/// every connection thread.
fn accept_loop(listener: TcpListener, stop: Arc<AtomicBool>, shared: Arc<Shared>) {
    let mut workers: Vec<JoinHandle<()>> = Vec::new();
    let mut served = 0usize;
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(mut stream) = conn else { continue };
        served += 1;
        if served > FakeApi::MAX_REQUESTS {
            let _ = stream.set_write_timeout(Some(READ_TIMEOUT));
            let body = error_body("overloaded_error", "fake api: request limit reached");
            let _ = stream.write_all(&http_response(529, "application/json", body.as_bytes()));
            break;
        }
        workers.retain(|w| !w.is_finished());
        let shared = shared.clone();
        let worker = std::thread::spawn(move || {
            let _ = serve(stream, &shared);
        });
        workers.push(worker);
    }
    for w in workers {
        let _ = w.join();
    }
}

/// One parsed HTTP request.
struct HttpRequest {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// Read one request, answer it, close the connection.
fn serve(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(READ_TIMEOUT))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let req = match read_request(&mut reader)? {
        Some(req) => req,
        None => return Ok(()),
    };
    let (status, content_type, body, recorded) = respond(&req, shared);
    let messages = recorded.kind != Kind::Other;
    shared.log.lock().unwrap().push(recorded);
    if messages && !shared.script.delay.is_zero() {
        std::thread::sleep(shared.script.delay);
    }
    let mut stream = stream;
    if status == DROPPED {
        return stream.shutdown(Shutdown::Both);
    }
    stream.write_all(&http_response(status, content_type, &body))?;
    stream.flush()?;
    let _ = stream.shutdown(Shutdown::Write);
    Ok(())
}

/// Read the request line, headers and body (Content-Length or chunked).
fn read_request(reader: &mut BufReader<TcpStream>) -> std::io::Result<Option<HttpRequest>> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
    let mut head = 0usize;
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    head += line.len();
    let mut parts = line.split_whitespace();
    let method = parts.next().ok_or_else(|| bad("no method"))?.to_string();
    let target = parts.next().ok_or_else(|| bad("no target"))?.to_string();
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(bad("eof in headers"));
        }
        head += line.len();
        if head > MAX_HEAD {
            return Err(bad("head too large"));
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((name, value)) = l.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let get = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    let mut body = Vec::new();
    if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| bad("bad chunk size"))?;
            if body.len() + size > MAX_BODY {
                return Err(bad("body too large"));
            }
            if size == 0 {
                // Trailers end with an empty line.
                loop {
                    line.clear();
                    if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
                        break;
                    }
                }
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..])?;
            line.clear();
            reader.read_line(&mut line)?;
        }
    } else if let Some(len) = get("content-length") {
        let len: usize = len.parse().map_err(|_| bad("bad content-length"))?;
        if len > MAX_BODY {
            return Err(bad("body too large"));
        }
        body.resize(len, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Some(HttpRequest {
        method,
        target,
        headers,
        body,
    }))
}

/// Decide the HTTP answer to a request and the log entry for it.
fn respond(req: &HttpRequest, shared: &Shared) -> (u16, &'static str, Vec<u8>, Recorded) {
    let path = req.target.split('?').next().unwrap_or("");
    let parsed: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let api = ApiRequest {
        body: parsed.clone(),
    };
    let mut rec = Recorded {
        method: req.method.clone(),
        path: req.target.clone(),
        headers: req.headers.clone(),
        kind: Kind::Other,
        model: api.model().map(str::to_string),
        stream: api.stream(),
        tools: api.tool_names().into_iter().map(str::to_string).collect(),
        skills_listed: api.skills_listed(),
        body: parsed.clone(),
        reply: String::new(),
        status: 200,
    };
    let (status, ctype, body) = match (req.method.as_str(), path) {
        ("POST", "/v1/messages") if parsed.is_object() => {
            let (kind, reply, usage) = shared.script.decide(&api);
            rec.kind = kind;
            rec.reply = reply.summary();
            let n = shared.counter.fetch_add(1, Ordering::SeqCst) + 1;
            let model = api.model().unwrap_or("claude-fake").to_string();
            match &reply {
                Reply::Drop => (DROPPED, "", Vec::new()),
                Reply::Error {
                    status,
                    kind,
                    message,
                } => (
                    *status,
                    "application/json",
                    error_body(kind, message).into_bytes(),
                ),
                _ if api.stream() => (
                    200,
                    "text/event-stream",
                    sse(&model, n, &reply, usage).into_bytes(),
                ),
                _ => (
                    200,
                    "application/json",
                    message_json(&model, n, &reply, usage)
                        .to_string()
                        .into_bytes(),
                ),
            }
        }
        ("POST", "/v1/messages/count_tokens") => {
            rec.reply = "count_tokens".into();
            let n = (req.body.len() / 4).max(1);
            (
                200,
                "application/json",
                json!({ "input_tokens": n }).to_string().into_bytes(),
            )
        }
        _ => {
            rec.reply = "404".into();
            let msg = format!("fake api: no route for {} {}", req.method, path);
            (
                404,
                "application/json",
                error_body("not_found_error", &msg).into_bytes(),
            )
        }
    };
    rec.status = status;
    (status, ctype, body, rec)
}

/// The full message object of a reply (the non-streaming answer).
fn message_json(model: &str, n: usize, reply: &Reply, usage: Usage) -> Value {
    let (content, stop) = match reply {
        Reply::Text(t) => (json!([{ "type": "text", "text": t }]), "end_turn"),
        Reply::ToolUse { name, input } => (
            json!([{ "type": "tool_use", "id": format!("toolu_fake_{n}"), "name": name, "input": input }]),
            "tool_use",
        ),
        Reply::Error { .. } | Reply::Drop => unreachable!("errors are not messages"),
    };
    json!({
        "id": format!("msg_fake_{n}"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0
        }
    })
}

/// The event stream of a reply, in Messages API order.
fn sse(model: &str, n: usize, reply: &Reply, usage: Usage) -> String {
    let mut out = String::new();
    let mut event = |name: &str, data: Value| {
        out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    event(
        "message_start",
        json!({
            "type": "message_start",
            "message": {
                "id": format!("msg_fake_{n}"),
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": {
                    "input_tokens": usage.input_tokens,
                    "output_tokens": 1,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0
                }
            }
        }),
    );
    event("ping", json!({ "type": "ping" }));
    let stop = match reply {
        Reply::Text(text) => {
            event(
                "content_block_start",
                json!({ "type": "content_block_start", "index": 0, "content_block": { "type": "text", "text": "" } }),
            );
            for piece in split_in_two(text) {
                event(
                    "content_block_delta",
                    json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "text_delta", "text": piece } }),
                );
            }
            "end_turn"
        }
        Reply::ToolUse { name, input } => {
            event(
                "content_block_start",
                json!({
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": { "type": "tool_use", "id": format!("toolu_fake_{n}"), "name": name, "input": {} }
                }),
            );
            let input = input.to_string();
            for piece in split_in_two(&input) {
                event(
                    "content_block_delta",
                    json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "input_json_delta", "partial_json": piece } }),
                );
            }
            "tool_use"
        }
        Reply::Error { .. } | Reply::Drop => unreachable!("errors are not streamed"),
    };
    event(
        "content_block_stop",
        json!({ "type": "content_block_stop", "index": 0 }),
    );
    event(
        "message_delta",
        json!({
            "type": "message_delta",
            "delta": { "stop_reason": stop, "stop_sequence": null },
            "usage": { "output_tokens": usage.output_tokens }
        }),
    );
    event("message_stop", json!({ "type": "message_stop" }));
    out
}

/// Split a string in two at a char boundary near its middle (two deltas prove
/// the client joins them).
fn split_in_two(s: &str) -> Vec<&str> {
    let mut mid = s.len() / 2;
    while !s.is_char_boundary(mid) {
        mid += 1;
    }
    let (a, b) = s.split_at(mid);
    [a, b].into_iter().filter(|p| !p.is_empty()).collect()
}

/// A Messages API error body.
fn error_body(kind: &str, message: &str) -> String {
    json!({ "type": "error", "error": { "type": kind, "message": message } }).to_string()
}

/// A complete HTTP/1.1 response that closes the connection.
fn http_response(status: u16, content_type: &str, body: &[u8]) -> Vec<u8> {
    let reason = match status {
        200 => "OK",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        529 => "Overloaded",
        _ => "Error",
    };
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\nrequest-id: req_fake\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

/// At most `n` chars of `s`, with `…` when cut.
fn truncate(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// The `n`-th draw of the stream `seed`, uniform in [0, 1): splitmix64 of
/// `seed + n`, so a draw depends on nothing but the two.
fn unit(seed: u64, n: u64) -> f64 {
    let mut z = seed.wrapping_add(n.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}
