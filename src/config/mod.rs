//! Where things are and what a run is held to: the source tree and its layout
//! (`evals/<item>/`, `baseline.json`, the wiki), item names, the operator's home
//! settings, the model and the cost ceiling.

use crate::error::{Error, Location, Result};
use crate::stats::confidence::{Mode, RuleChoice};
use camino::{Utf8Path, Utf8PathBuf};
use serde_json::Value;
use std::sync::Arc;

mod environment;

pub use environment::Environment;

/// Where a command works: the source tree, the operator's home, and the
/// environment it was started in.
#[derive(Debug, Clone)]
pub struct Context {
    /// The tree holding `evals/`, the items and `wiki/`.
    pub source: Utf8PathBuf,
    /// The operator's settings folder.
    pub home: Utf8PathBuf,
    /// The process environment, read once at start.
    pub env: Arc<Environment>,
}

impl Context {
    /// Resolve the source and home from flags, `env` and defaults.
    pub fn new(
        source: Option<&Utf8Path>,
        home: Option<&Utf8Path>,
        env: Arc<Environment>,
    ) -> Result<Self> {
        Ok(Context {
            source: source_dir(source, &env)?,
            home: home_dir(home, &env),
            env,
        })
    }
}

/// An item's name, checked once against `^[a-z0-9][a-z0-9-]{0,63}$` where it
/// enters (a flag, a script's argument, a folder listing, a document): a
/// value of this type is a safe path segment, so no layer below checks again.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ItemName(String);

impl ItemName {
    /// The name when it is one, else [`Error::InvalidItemName`].
    pub fn new(name: &str) -> Result<Self> {
        let bytes = name.as_bytes();
        let ok = !bytes.is_empty()
            && bytes.len() <= 64
            && (bytes[0].is_ascii_lowercase() || bytes[0].is_ascii_digit())
            && bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-');
        if ok {
            Ok(ItemName(name.to_owned()))
        } else {
            Err(Error::InvalidItemName { name: name.into() })
        }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A name known to be valid, for tests.
#[cfg(test)]
pub(crate) fn item_name(name: &str) -> ItemName {
    ItemName::new(name).expect("a valid item name")
}

impl std::ops::Deref for ItemName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<Utf8Path> for ItemName {
    fn as_ref(&self) -> &Utf8Path {
        self.0.as_str().into()
    }
}

/// Quoted as the text it is (`"commit"`), so messages that debug-print a
/// name read the same whether they hold a `String` or an `ItemName`.
impl std::fmt::Debug for ItemName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl std::fmt::Display for ItemName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for ItemName {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        ItemName::new(s)
    }
}

impl TryFrom<String> for ItemName {
    type Error = Error;
    fn try_from(name: String) -> Result<Self> {
        ItemName::new(&name)
    }
}

impl From<&ItemName> for String {
    fn from(name: &ItemName) -> String {
        name.0.clone()
    }
}

impl PartialEq<ItemName> for &str {
    fn eq(&self, other: &ItemName) -> bool {
        *self == other.0
    }
}

impl PartialEq<ItemName> for String {
    fn eq(&self, other: &ItemName) -> bool {
        *self == other.0
    }
}

impl From<ItemName> for String {
    fn from(name: ItemName) -> String {
        name.0
    }
}

/// The known name closest to `name` when it is close enough to be a typo
/// (an edit distance of at most a third of its length, and at least 1),
/// for "did you mean" in errors that name an item or a suite.
pub fn did_you_mean<S: AsRef<str>>(name: &str, known: &[S]) -> Option<String> {
    let limit = (name.chars().count() / 3).max(1);
    known
        .iter()
        .map(AsRef::as_ref)
        .filter(|k| *k != name)
        .map(|k| (strsim::damerau_levenshtein(name, k), k))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, k)| k.to_owned())
}

/// The names of the folders (or, with `.md` stripped, Markdown files) in
/// `dir`; nothing when it cannot be read. Hidden entries are left out.
pub fn folder_names(dir: &Utf8Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.'))
        .map(|n| n.strip_suffix(".md").map(str::to_owned).unwrap_or(n))
        .collect()
}

/// `evals/<item>/` under `source`.
pub fn suite_dir(source: &Utf8Path, item: &ItemName) -> Utf8PathBuf {
    source.join("evals").join(item)
}

/// `evals/<item>/` when it is a folder, else [`Error::NoSuite`]: the one check
/// that a suite exists.
pub fn existing_suite(source: &Utf8Path, item: &ItemName) -> Result<Utf8PathBuf> {
    let dir = suite_dir(source, item);
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(Error::NoSuite {
            item: item.to_string(),
            suggestion: did_you_mean(item, &folder_names(&source.join("evals"))),
            dir,
        })
    }
}

/// `evals/<item>/baseline.json` under `source`.
pub fn baseline_path(source: &Utf8Path, item: &ItemName) -> Utf8PathBuf {
    suite_dir(source, item).join("baseline.json")
}

/// `wiki/skill-impact.md` under `source`.
pub fn impact_path(source: &Utf8Path) -> Utf8PathBuf {
    source.join("wiki").join("skill-impact.md")
}

/// `wiki/patterns/<page>.md` under `source`.
pub fn page_path(source: &Utf8Path, page: &str) -> Utf8PathBuf {
    source
        .join("wiki")
        .join("patterns")
        .join(format!("{page}.md"))
}

/// The highest ceiling bob-eval accepts, in dollars: a guard against a typo
/// (`1e308`, an extra zero or three) turning the mandatory ceiling into none.
pub const MAX_COST_USD: f64 = 10_000.0;

/// The largest file a suite may hold, in bytes (prompts, graders, mocks,
/// reference files): 16 MiB.
pub const MAX_SUITE_FILE: u64 = 16 << 20;

/// The largest file bob-eval reads that is not a suite's (a platform result, a
/// document, an evidence export, the wiki, settings, a script), in bytes:
/// 256 MiB. Every read goes through [`crate::fsio`], which stops there.
pub const MAX_INPUT_FILE: u64 = 256 << 20;

/// The ceiling when neither `--max-cost-usd` nor home settings give one.
pub const DEFAULT_MAX_COST_USD: f64 = 2.0;

/// The source tree: `--source`, else `$BOB_SOURCE`, else the current directory.
pub fn source_dir(flag: Option<&Utf8Path>, env: &Environment) -> Result<Utf8PathBuf> {
    if let Some(dir) = flag {
        return Ok(dir.to_owned());
    }
    if let Some(dir) = env.get_os("BOB_SOURCE").filter(|v| !v.is_empty()) {
        return Utf8PathBuf::from_path_buf(dir.to_owned().into())
            .map_err(|p| Error::Usage(format!("BOB_SOURCE is not UTF-8: {}", p.display())));
    }
    current_dir()
}

/// The current directory as UTF-8.
pub fn current_dir() -> Result<Utf8PathBuf> {
    let dir =
        std::env::current_dir().map_err(|e| Error::io(".", "reading the current directory", e))?;
    Utf8PathBuf::from_path_buf(dir).map_err(|p| {
        Error::Usage(format!(
            "the current directory is not UTF-8: {}",
            p.display()
        ))
    })
}

/// The operator's home: `--home`, else `$BOB_HOME`, else `~/.bob`.
pub fn home_dir(flag: Option<&Utf8Path>, env: &Environment) -> Utf8PathBuf {
    if let Some(dir) = flag {
        return dir.to_owned();
    }
    if let Some(dir) = env.non_empty("BOB_HOME") {
        return dir.into();
    }
    Utf8PathBuf::from(env.var("HOME").unwrap_or(".")).join(".bob")
}

/// The parts of home `settings.json` bob-eval reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// `model`.
    pub model: Option<String>,
    /// `_workflow.eval_max_cost_usd`, as written (validated by [`resolve_ceiling`]).
    pub eval_max_cost_usd: Option<Value>,
    /// `_workflow.gate_confidence`, as written (validated by [`resolve_confidence`]).
    pub gate_confidence: Option<Value>,
    /// `_workflow.gate_rule` (`bare` or `confidence`), as written (validated by [`resolve_mode`]).
    pub gate_rule: Option<Value>,
    /// `_workflow.min_effect`, as written (validated by [`resolve_min_effect`]).
    pub min_effect: Option<Value>,
    /// `_workflow.max_cost_ratio`, as written (validated by [`resolve_max_cost_ratio`]).
    pub max_cost_ratio: Option<Value>,
    /// `_workflow.scaffold`: run the cases' scaffold scripts (`true`) or
    /// measure them without (`false`), as `--scaffold` / `--no-scaffold` do.
    pub scaffold: Option<bool>,
    /// `_workflow.judge_threshold`: the lower bound a judge's TPR and TNR
    /// must reach to be calibrated, as written (validated by [`resolve_judge_threshold`]).
    pub judge_threshold: Option<Value>,
    /// `_workflow.require_calibrated`: the gate refuses to call a change
    /// clear on an uncalibrated judge, as `--require-calibrated` does.
    pub require_calibrated: Option<bool>,
    /// The file read, for messages.
    pub path: Option<Utf8PathBuf>,
}

impl Settings {
    /// Read `<home>/settings.json`; a missing file is empty settings, a broken one an error.
    pub fn load(home: &Utf8Path) -> Result<Self> {
        let path = home.join("settings.json");
        let text = match crate::fsio::read_text(&path, MAX_SUITE_FILE) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Settings::default()),
            Err(e) => return Err(Error::unreadable(&path, e)),
        };
        let doc: Value = serde_json::from_str(&text).map_err(|e| Error::InvalidInput {
            at: Location::at(&path, e.line()),
            message: format!("not valid JSON: {e}"),
        })?;
        let model = match doc.get("model") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(other) => {
                return Err(Error::invalid(
                    &path,
                    format!("`model` must be a non-empty string, not {other}"),
                ));
            }
        };
        let eval_max_cost_usd = doc
            .get("_workflow")
            .and_then(|w| w.get("eval_max_cost_usd"))
            .cloned();
        let gate_confidence = doc
            .get("_workflow")
            .and_then(|w| w.get("gate_confidence"))
            .cloned();
        let gate_rule = doc
            .get("_workflow")
            .and_then(|w| w.get("gate_rule"))
            .cloned();
        let min_effect = doc
            .get("_workflow")
            .and_then(|w| w.get("min_effect"))
            .cloned();
        let max_cost_ratio = doc
            .get("_workflow")
            .and_then(|w| w.get("max_cost_ratio"))
            .cloned();
        let scaffold = match doc.get("_workflow").and_then(|w| w.get("scaffold")) {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                return Err(Error::invalid(
                    &path,
                    format!("`_workflow.scaffold` must be true or false, not {other}"),
                ));
            }
        };
        let workflow_bool = |key: &str| match doc.get("_workflow").and_then(|w| w.get(key)) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(Error::invalid(
                &path,
                format!("`_workflow.{key}` must be true or false, not {other}"),
            )),
        };
        let require_calibrated = workflow_bool("require_calibrated")?;
        let judge_threshold = doc
            .get("_workflow")
            .and_then(|w| w.get("judge_threshold"))
            .cloned();
        Ok(Settings {
            judge_threshold,
            require_calibrated,
            model,
            eval_max_cost_usd,
            gate_confidence,
            gate_rule,
            min_effect,
            max_cost_ratio,
            scaffold,
            path: Some(path),
        })
    }
}

/// The model: `--model`, else `$ANTHROPIC_MODEL` (from `env`), else settings
/// `model`, else `default`; in its [canonical](canonical_model) spelling.
pub fn resolve_model(flag: Option<&str>, env: &Environment, settings: &Settings) -> String {
    let named = flag
        .map(str::to_owned)
        .or_else(|| {
            env.var("ANTHROPIC_MODEL")
                .filter(|m| !m.trim().is_empty())
                .map(str::to_owned)
        })
        .or_else(|| settings.model.clone())
        .unwrap_or_else(|| "default".into());
    canonical_model(&named)
}

/// `usd` rounded up to the cent: the ceiling a printed command asks for
/// that covers an estimate of `usd`.
pub fn cents_up(usd: f64) -> f64 {
    (usd * 100.0).ceil() / 100.0
}

/// The model a printed command names with `--model`: `None` for
/// `default` (bob-eval's name for "no `--model`") or an empty name, so the
/// command runs on the platform's default as the result did.
pub fn named_model(model: &str) -> Option<&str> {
    (model != "default" && !model.is_empty()).then_some(model)
}

/// The model aliases the platform (2.1.328) reads whatever their case:
/// `default` is bob-eval's name for "no `--model`".
const MODEL_ALIASES: [&str; 10] = [
    "default",
    "sonnet",
    "opus",
    "haiku",
    "fable",
    "best",
    "opusplan",
    "sonnet[1m]",
    "opus[1m]",
    "fable[1m]",
];

/// The model families whose `claude-…` ids the platform reads whatever their case.
const MODEL_FAMILIES: [&str; 5] = ["opus", "sonnet", "haiku", "fable", "mythos"];

/// One spelling per model, the one every key, best and document holds: the
/// name trimmed, and lower-cased when the platform reads it without regard
/// to case (an alias such as `opus`, or a `claude-<family>-…` id such as
/// `Claude-Sonnet-5-5`): `opus`, `OPUS`, `Opus` and ` opus ` are one model.
/// Any other name (a gateway's own model) is sent to the API as written, so
/// its case is kept: `My-Model` and `my-model` may be two models.
pub fn canonical_model(name: &str) -> String {
    let trimmed = name.trim();
    let lower = trimmed.to_lowercase();
    let family_id = lower.strip_prefix("claude-").is_some_and(|rest| {
        rest.split(['-', '.', '['])
            .any(|part| MODEL_FAMILIES.contains(&part))
    });
    if MODEL_ALIASES.contains(&lower.as_str()) || family_id {
        lower
    } else {
        trimmed.to_owned()
    }
}

/// A number of US dollars above 0 (a ceiling, a sweep's `--max-total-usd`).
pub fn parse_usd(text: &str) -> std::result::Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of dollars (e.g. 0.5)"))?;
    positive_usd(value)
}

/// `value` when it is a finite number of dollars above 0.
fn positive_usd(value: f64) -> std::result::Result<f64, String> {
    if !value.is_finite() {
        return Err(format!("{value} is not a finite number of dollars"));
    }
    if value <= 0.0 {
        return Err(format!(
            "{value} is not a positive number of dollars (a cost ceiling is mandatory, and above 0)"
        ));
    }
    Ok(value)
}

/// A cost ceiling in US dollars, checked once where it enters (a flag, a
/// setting, a script's option, an environment variable): finite, above 0 and
/// at most [`MAX_COST_USD`]. Every layer below takes it as it is.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, serde::Serialize)]
#[serde(transparent)]
pub struct Ceiling(f64);

impl Ceiling {
    /// `usd` when it is a ceiling bob-eval accepts, else why not.
    pub fn new(usd: f64) -> std::result::Result<Self, String> {
        let value = positive_usd(usd)?;
        if value > MAX_COST_USD {
            return Err(format!(
                "{value} is above the most bob-eval accepts, {MAX_COST_USD} dollars"
            ));
        }
        Ok(Ceiling(value))
    }

    /// The ceiling in dollars.
    pub fn usd(self) -> f64 {
        self.0
    }
}

impl std::str::FromStr for Ceiling {
    type Err = String;
    fn from_str(text: &str) -> std::result::Result<Self, String> {
        Ceiling::new(parse_usd(text)?)
    }
}

impl std::fmt::Display for Ceiling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where [`resolve_ceiling`] takes the ceiling from, in words.
pub fn ceiling_source(flag: Option<Ceiling>, settings: &Settings) -> String {
    if flag.is_some() {
        return "from --max-cost-usd".into();
    }
    match (&settings.eval_max_cost_usd, &settings.path) {
        (Some(_), Some(path)) => format!("from _workflow.eval_max_cost_usd in {path}"),
        (Some(_), None) => "from _workflow.eval_max_cost_usd in settings.json".into(),
        (None, _) => format!(
            "the default: no --max-cost-usd given and no _workflow.eval_max_cost_usd in settings.json; the ceiling is ${DEFAULT_MAX_COST_USD:.2} unless you set one"
        ),
    }
}

/// The ceiling: `--max-cost-usd`, else settings `_workflow.eval_max_cost_usd`, else 2.
pub fn resolve_ceiling(flag: Option<Ceiling>, settings: &Settings) -> Result<Ceiling> {
    if let Some(ceiling) = flag {
        return Ok(ceiling);
    }
    let Some(value) = &settings.eval_max_cost_usd else {
        return Ok(Ceiling(DEFAULT_MAX_COST_USD));
    };
    let path = settings
        .path
        .clone()
        .unwrap_or_else(|| "settings.json".into());
    let parsed = match value {
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| format!("{n} is not a number"))
            .and_then(Ceiling::new),
        Value::String(s) => s.parse(),
        other => Err(format!("{other} is not a number of dollars")),
    };
    parsed.map_err(|m| Error::invalid(path, format!("_workflow.eval_max_cost_usd: {m}")))
}

/// The gate's cost limit: `--max-cost-ratio` (or a script's
/// `opts.max_cost_ratio`), else settings `_workflow.max_cost_ratio`, else
/// none. A bad setting is refused naming the file.
pub fn resolve_max_cost_ratio(flag: Option<f64>, settings: &Settings) -> Result<Option<f64>> {
    use crate::stats::efficiency::{check_cost_ratio, parse_cost_ratio};
    if let Some(limit) = flag {
        return check_cost_ratio(limit)
            .map(Some)
            .map_err(|m| Error::Usage(format!("--max-cost-ratio: {m}")));
    }
    let path = settings
        .path
        .clone()
        .unwrap_or_else(|| "settings.json".into());
    match &settings.max_cost_ratio {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_f64()
            .ok_or_else(|| format!("{n} is not a number"))
            .and_then(check_cost_ratio)
            .map(Some),
        Some(Value::String(s)) => parse_cost_ratio(s).map(Some),
        Some(other) => Err(format!("{other} is not a cost ratio (e.g. 1.5)")),
    }
    .map_err(|m| Error::invalid(&path, format!("_workflow.max_cost_ratio: {m}")))
}

/// The gate's confidence mode: `--confidence` (or a script's
/// `opts.confidence`), else settings `_workflow.gate_confidence` (the house
/// rule), else none: the rule alone decides. A bad setting is refused
/// naming the file. What a decision that records nothing uses to buy runs
/// ([`resolve_mode`] with no rule flag, not recording).
pub fn resolve_confidence(flag: Option<f64>, settings: &Settings) -> Result<Option<f64>> {
    Ok(resolve_mode(flag, None, false, settings)?.level())
}

/// The rule a decision is made under (docs/gate.md, "Which rule decides"):
/// `--rule bare` (the seed's bare rule) or `--confidence LEVEL`; else
/// settings `_workflow.gate_rule` and `_workflow.gate_confidence`; else,
/// for a decision that `records` (`gate --record`, `propose`), the
/// confidence mode at [`crate::stats::confidence::DEFAULT_LEVEL`], and for
/// a check the bare rule ([`Mode::BareCheck`]). `--rule bare` with
/// `--confidence` is refused (they contradict each other).
pub fn resolve_mode(
    flag: Option<f64>,
    rule: Option<RuleChoice>,
    records: bool,
    settings: &Settings,
) -> Result<Mode> {
    use crate::stats::confidence::{DEFAULT_LEVEL, check_level, parse_level};
    if let Some(level) = flag {
        if rule == Some(RuleChoice::Bare) {
            return Err(Error::Usage(
                "--rule bare and --confidence contradict each other: the bare rule has no confidence level (drop one)".into(),
            ));
        }
        return check_level(level)
            .map(Mode::Confidence)
            .map_err(|m| Error::Usage(format!("--confidence: {m}")));
    }
    let path = settings
        .path
        .clone()
        .unwrap_or_else(|| "settings.json".into());
    let level = match &settings.gate_confidence {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(
            n.as_f64()
                .ok_or_else(|| format!("{n} is not a number"))
                .and_then(check_level),
        ),
        Some(Value::String(s)) => Some(parse_level(s)),
        Some(other) => Some(Err(format!(
            "{other} is not a confidence level (e.g. 0.95)"
        ))),
    }
    .transpose()
    .map_err(|m| Error::invalid(&path, format!("_workflow.gate_confidence: {m}")))?;
    let set_rule = match &settings.gate_rule {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(
            s.parse::<RuleChoice>()
                .map_err(|m| Error::invalid(&path, format!("_workflow.gate_rule: {m}")))?,
        ),
        Some(other) => {
            return Err(Error::invalid(
                &path,
                format!("_workflow.gate_rule: {other} is not a rule: `bare` or `confidence`"),
            ));
        }
    };
    Ok(match rule.or(set_rule) {
        Some(RuleChoice::Bare) => Mode::Bare,
        Some(RuleChoice::Confidence) => Mode::Confidence(level.unwrap_or(DEFAULT_LEVEL)),
        None => match level {
            Some(level) => Mode::Confidence(level),
            None if records => Mode::Confidence(DEFAULT_LEVEL),
            None => Mode::BareCheck,
        },
    })
}

/// The minimum effect of interest: `flag` (`--min-effect`, a script's
/// `opts.min_effect`), else settings `_workflow.min_effect`, else
/// [`crate::stats::DEFAULT_MIN_EFFECT`].
pub fn resolve_min_effect(flag: Option<f64>, settings: &Settings) -> Result<f64> {
    if let Some(d) = flag {
        return crate::stats::check_min_effect(d)
            .map_err(|m| Error::Usage(format!("--min-effect: {m}")));
    }
    let path = settings
        .path
        .clone()
        .unwrap_or_else(|| "settings.json".into());
    let parsed = match &settings.min_effect {
        None | Some(Value::Null) => return Ok(crate::stats::DEFAULT_MIN_EFFECT),
        Some(Value::Number(n)) => n
            .as_f64()
            .ok_or_else(|| format!("{n} is not a number"))
            .and_then(crate::stats::check_min_effect),
        Some(other) => Err(format!("{other} is not a minimum effect (e.g. 0.2)")),
    };
    parsed.map_err(|m| Error::invalid(path, format!("_workflow.min_effect: {m}")))
}

/// The lower bound a judge's TPR and TNR must both reach (at 95 %) to be
/// calibrated: settings `_workflow.judge_threshold` (0.5 to 1), else
/// [`crate::stats::calibration::DEFAULT_THRESHOLD`].
pub fn resolve_judge_threshold(settings: &Settings) -> Result<f64> {
    let path = settings
        .path
        .clone()
        .unwrap_or_else(|| "settings.json".into());
    match &settings.judge_threshold {
        None | Some(Value::Null) => Ok(crate::stats::calibration::DEFAULT_THRESHOLD),
        Some(Value::Number(n)) if n.as_f64().is_some_and(|x| (0.5..=1.0).contains(&x)) => Ok(n
            .as_f64()
            .unwrap_or(crate::stats::calibration::DEFAULT_THRESHOLD)),
        Some(other) => Err(Error::invalid(
            path,
            format!(
                "_workflow.judge_threshold: {other} is not a lower bound from 0.5 to 1 (e.g. 0.8)"
            ),
        )),
    }
}

#[cfg(test)]
mod tests;
