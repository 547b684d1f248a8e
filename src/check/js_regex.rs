//! The JavaScript regex rules: the platform compiles every `pattern` and
//! `input_match` with `new RegExp(pattern, flags)`, so a pattern JavaScript
//! refuses (or an inline flag group it does not know) throws on every run.
//! A suite's pattern is compiled here only when it is short and shallow
//! enough, and run (by the trigger checks, on inputs of a line) only when it
//! cannot backtrack catastrophically, and then in bounded time: a
//! [`Matcher`] runs the exact translation into the linear-time `regex` crate
//! ([`translate`](super::translate)), or a backtracking engine under a
//! budget, and says when it gave up ("too slow to check").

use super::Out;
use super::scan::{Group, Kind, tokens};
use super::translate::{Translated, translate};
use crate::diagnostic::Code;
use camino::Utf8Path;
use regex_automata::nfa::thompson::{
    self, NFA,
    pikevm::{self, PikeVM},
};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex, mpsc};
use std::time::{Duration, Instant};

/// Check a JavaScript `flags` string: only `dgimsuvy`, each once.
pub fn check_flags(flags: &str) -> std::result::Result<(), (String, String)> {
    let mut seen = HashSet::new();
    for c in flags.chars() {
        if !"dgimsuvy".contains(c) {
            return Err((
                format!("flags `{flags}` holds `{c}`, which is not a JavaScript regex flag"),
                "use only d g i m s u v y (i: ignore case, m: ^/$ per line, s: . matches newlines)"
                    .into(),
            ));
        }
        if !seen.insert(c) {
            return Err((
                format!("flags `{flags}` repeats `{c}` (JavaScript refuses duplicate flags)"),
                format!("write `{c}` once"),
            ));
        }
    }
    if seen.contains(&'u') && seen.contains(&'v') {
        return Err((
            format!("flags `{flags}` has both `u` and `v` (JavaScript refuses them together)"),
            "keep only one of u and v".into(),
        ));
    }
    Ok(())
}

/// The letters of the first inline modifier group (`(?i)`, `(?im:`, `(?-i:`), if any.
pub fn inline_flags(pattern: &str) -> Option<String> {
    tokens(pattern).find_map(|t| match t.kind {
        Kind::Open(Group::Modifiers(letters)) => Some(letters),
        _ => None,
    })
}

/// Compile `pattern` with `flags` as JavaScript would (`new RegExp(pattern, flags)`).
pub fn js_regex(pattern: &str, flags: &str) -> std::result::Result<regress::Regex, String> {
    let engine_flags: String = flags.chars().filter(|c| "imsuv".contains(*c)).collect();
    regress::Regex::with_flags(pattern, engine_flags.as_str()).map_err(|e| e.to_string())
}

/// The longest pattern `check` compiles, in bytes (compiling takes time in
/// proportion; a real pattern is a line or two).
pub const MAX_PATTERN_LEN: usize = 16 * 1024;

/// The deepest group nesting `check` compiles (regress compiles nested groups
/// by recursion: tens of thousands of levels overflow its stack).
pub const MAX_PATTERN_DEPTH: usize = 32;

/// A finding about a pattern: its code, message and fix.
pub(super) type Finding = (Code, String, String);

/// Why `pattern`, the value of `key`, is not safe to compile: too long, or
/// groups nested too deep.
fn compile_hazard(key: &str, pattern: &str) -> Option<Finding> {
    if pattern.len() > MAX_PATTERN_LEN {
        return Some((
            Code::RegexTooComplex,
            format!(
                "`{key}` is {} bytes long, more than the {MAX_PATTERN_LEN} bob-eval compiles",
                pattern.len()
            ),
            "shorten the pattern: match what the item teaches, not a whole text".into(),
        ));
    }
    if group_depth(pattern) > MAX_PATTERN_DEPTH {
        return Some((
            Code::RegexTooComplex,
            format!("`{key}` nests groups deeper than {MAX_PATTERN_DEPTH} levels"),
            "flatten the groups".into(),
        ));
    }
    None
}

/// Why `pattern` (which compiles) is not safe to run: a group that can
/// backtrack catastrophically.
fn run_hazard(key: &str, pattern: &str, safety: &PatternSafety) -> Option<Finding> {
    let (start, end) = safety.catastrophic?;
    let group = super::clip(&pattern[start..end]);
    Some((
        Code::RegexBacktracking,
        format!(
            "`{key}` repeats `{group}`, a group whose iterations can cut one text in many ways (a repeat inside it, or alternatives that overlap): on a long output JavaScript backtracks for hours and the run hangs"
        ),
        "repeat once (`a+`, not `(a+)+`), make the alternatives exclusive (`[\\w-]`, not `(?:\\w|[\\w-])`), or end each iteration on a character the inner repeat cannot match (`([\\w-]+:)*`)".into(),
    ))
}

/// The deepest nesting of groups in `pattern` (outside classes and escapes).
fn group_depth(pattern: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for token in tokens(pattern) {
        match token.kind {
            Kind::Open(_) => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            Kind::Close => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// `pattern` ready to run with `flags` when JavaScript accepts it and it is
/// safe to compile and to run (short and shallow enough, and no group that
/// can backtrack catastrophically); it still runs in bounded time.
pub fn safe_js_regex(pattern: &str, flags: &str) -> std::result::Result<Matcher, String> {
    if let Some((_, message, _)) = compile_hazard("pattern", pattern) {
        return Err(message);
    }
    let safety = safety(pattern, flags);
    safety.compiles.clone()?;
    match run_hazard("pattern", pattern, &safety) {
        Some((_, message, _)) => Err(message),
        None => Matcher::new(pattern, flags),
    }
}

/// What JavaScript and the shape analysis say of one pattern with its flags.
#[derive(Debug, Clone)]
struct PatternSafety {
    /// Whether JavaScript compiles it, and if not why.
    compiles: std::result::Result<(), String>,
    /// A group that can backtrack catastrophically (when it compiles).
    catastrophic: Option<(usize, usize)>,
}

/// The [`PatternSafety`] of `pattern` with `flags` (which passed
/// [`compile_hazard`]), worked out once per process: a tree repeats its
/// patterns (one pin in two graders and the trigger check, one regex grader
/// copied across suites).
fn safety(pattern: &str, flags: &str) -> PatternSafety {
    /// Patterns remembered; past this the memory starts afresh.
    const MAX_KEPT: usize = 4096;
    static KEPT: LazyLock<Mutex<HashMap<(String, String), PatternSafety>>> =
        LazyLock::new(Mutex::default);
    if super::pin::pin_name(pattern, flags).is_some() {
        // The suggested pin: JavaScript compiles it, and no group of it
        // can backtrack catastrophically (a test holds this).
        return PatternSafety {
            compiles: Ok(()),
            catastrophic: None,
        };
    }
    let key = (pattern.to_owned(), flags.to_owned());
    if let Some(v) = KEPT.lock().ok().and_then(|kept| kept.get(&key).cloned()) {
        return v;
    }
    let v = assess(pattern, flags);
    if let Ok(mut kept) = KEPT.lock() {
        if kept.len() >= MAX_KEPT {
            kept.clear();
        }
        kept.insert(key, v.clone());
    }
    v
}

/// What JavaScript and the shape analysis say of `pattern` with `flags`,
/// worked out.
fn assess(pattern: &str, flags: &str) -> PatternSafety {
    let compiles = js_regex(pattern, flags).map(drop);
    let catastrophic = match compiles {
        Ok(()) => super::backtrack::catastrophic_group(pattern, flags),
        Err(_) => None,
    };
    PatternSafety {
        compiles,
        catastrophic,
    }
}

/// Backtracking steps `fancy-regex` may take in one search (a pattern with
/// a lookaround): a pattern that needs more on a line of input is too slow.
pub const BACKTRACK_STEPS: usize = 1_000_000;

/// Time regress (for a pattern with no exact translation) may spend on one
/// pattern, all its searches together.
pub const FALLBACK_TIME: Duration = Duration::from_secs(1);

/// A JavaScript pattern that runs in bounded time: its exact translation in
/// the linear-time `regex` crate when there is one; with a lookaround,
/// `fancy-regex` under [`BACKTRACK_STEPS`]; else regress on a worker thread
/// under [`FALLBACK_TIME`] (a search past it is abandoned to finish on its
/// own, and the process does not wait for it). Past a budget the matcher
/// gives up: every search then finds nothing, and [`Matcher::gave_up`] says
/// so, for the caller to report the pattern as too slow to check.
pub struct Matcher {
    engine: Arc<Engine>,
    spent: Cell<Duration>,
    gave_up: Cell<bool>,
    /// The PikeVM's scratch space, made on the first short search.
    cache: RefCell<Option<pikevm::Cache>>,
}

enum Engine {
    Linear {
        /// A PikeVM over the pattern's NFA: quick to build (see [`nfa`]),
        /// for a text of a line or two.
        short: PikeVM,
        /// The `regex` crate's full engine, with its DFAs, built on the
        /// first long text (none when it cannot be built: the PikeVM serves).
        long: std::sync::OnceLock<Option<regex_automata::meta::Regex>>,
        hir: regex_syntax::hir::Hir,
        literals: Vec<Vec<Vec<u8>>>,
    },
    Bounded(fancy_regex::Regex),
    Timed(Arc<regress::Regex>),
    /// The suggested pin of an item, run by [`super::pin::find`].
    Pin {
        name: String,
        literals: Vec<Vec<Vec<u8>>>,
    },
}

/// The engine for `pattern` with `flags`, built once per process and
/// shared: one pin is run by the trigger check and by the loose-pin trap,
/// and building it (translation, parse, compile, literals) costs more than
/// running it on a few Skill inputs. Each [`Matcher`] keeps its own budget.
fn engine(pattern: &str, flags: &str) -> std::result::Result<Arc<Engine>, String> {
    /// Engines kept; past this the memory starts afresh. Few: an engine
    /// (a Unicode `\w` makes a large NFA) is shared mostly within one suite,
    /// and keeping one per suite of a large tree grew the heap page by page.
    const MAX_KEPT: usize = 256;
    /// Each engine by its pattern and flags.
    type Engines = HashMap<(String, String), Arc<Engine>>;
    static KEPT: LazyLock<Mutex<Engines>> = LazyLock::new(Mutex::default);
    if let Some(name) = super::pin::pin_name(pattern, flags) {
        return Ok(Arc::new(pin_engine(name)));
    }
    let key = (pattern.to_owned(), flags.to_owned());
    if let Some(e) = KEPT.lock().ok().and_then(|kept| kept.get(&key).cloned()) {
        return Ok(e);
    }
    let built = Arc::new(Matcher::build(pattern, flags)?);
    if let Ok(mut kept) = KEPT.lock() {
        if kept.len() >= MAX_KEPT {
            kept.clear();
        }
        kept.insert(key, Arc::clone(&built));
    }
    Ok(built)
}

/// `pattern` with `flags` compiled as any pattern is (no pin scan), and
/// whether JavaScript compiles it and a catastrophic group: what the pin's
/// shortcuts are held equal to.
#[cfg(test)]
pub(super) fn compiled(pattern: &str, flags: &str) -> (Matcher, bool, Option<(usize, usize)>) {
    let safety = assess(pattern, flags);
    let matcher = Matcher {
        engine: Arc::new(Matcher::build(pattern, flags).expect("compiles")),
        spent: Cell::new(Duration::ZERO),
        gave_up: Cell::new(false),
        cache: RefCell::new(None),
    };
    (matcher, safety.compiles.is_ok(), safety.catastrophic)
}

/// The engine of the suggested pin of `name`: what every match starts with
/// (`"skill"`) and ends with (the name and a quote) are its literals.
fn pin_engine(name: &str) -> Engine {
    Engine::Pin {
        name: name.to_owned(),
        literals: vec![
            vec![br#""skill""#.to_vec()],
            vec![format!("{name}\"").into_bytes()],
        ],
    }
}

/// Where a match is, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    start: usize,
    end: usize,
}

impl Found {
    /// Its first byte.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The byte after it.
    pub fn end(&self) -> usize {
        self.end
    }
}

impl Matcher {
    /// The matcher for `pattern` with `flags` (which JavaScript compiles):
    /// regress compiles it here only when it has no exact translation.
    fn new(pattern: &str, flags: &str) -> std::result::Result<Matcher, String> {
        Ok(Matcher {
            engine: engine(pattern, flags)?,
            spent: Cell::new(Duration::ZERO),
            gave_up: Cell::new(false),
            cache: RefCell::new(None),
        })
    }

    /// The engine for `pattern` with `flags`, built anew (see [`engine`]).
    fn build(pattern: &str, flags: &str) -> std::result::Result<Engine, String> {
        let engine = match translate(pattern, flags) {
            Some(Translated::Linear(text)) => linear(&text),
            Some(Translated::Lookaround(text)) => fancy_regex::RegexBuilder::new(&text)
                .backtrack_limit(BACKTRACK_STEPS)
                .build()
                .ok()
                .map(Engine::Bounded),
            None => None,
        };
        match engine {
            Some(engine) => Ok(engine),
            None => Ok(Engine::Timed(Arc::new(js_regex(pattern, flags)?))),
        }
    }

    /// True when a search went past the budget (the pattern is too slow to check).
    pub fn gave_up(&self) -> bool {
        self.gave_up.get()
    }

    /// True when the pattern runs in linear time (its exact translation).
    pub fn is_linear(&self) -> bool {
        matches!(*self.engine, Engine::Linear { .. } | Engine::Pin { .. })
    }

    /// What every match holds, when the exact translation shows it: sets of
    /// literals, each set holding one literal that starts (or one that ends)
    /// every match. A text holding no literal of a set cannot match, so the
    /// caller searches only the texts that hold one of each. Empty when
    /// nothing is known (no linear translation, or a set too large or
    /// holding the empty string).
    pub fn required_literals(&self) -> &[Vec<Vec<u8>>] {
        match &*self.engine {
            Engine::Linear { literals, .. } | Engine::Pin { literals, .. } => literals,
            _ => &[],
        }
    }

    /// The first match in `text` (none once the matcher gave up).
    pub fn find(&self, text: &str) -> Option<Found> {
        self.find_all(text, false).into_iter().next()
    }

    /// Every match in `text`, left to right (none once the matcher gave up).
    pub fn find_iter(&self, text: &str) -> Vec<Found> {
        self.find_all(text, true)
    }

    fn find_all(&self, text: &str, all: bool) -> Vec<Found> {
        if self.gave_up.get() {
            return Vec::new();
        }
        let take = if all { usize::MAX } else { 1 };
        match &*self.engine {
            Engine::Linear {
                short, long, hir, ..
            } => {
                let found = |m: regex_automata::Match| Found {
                    start: m.start(),
                    end: m.end(),
                };
                let long = (text.len() > SHORT_TEXT)
                    .then(|| {
                        long.get_or_init(|| {
                            regex_automata::meta::Regex::builder()
                                .build_from_hir(hir)
                                .ok()
                        })
                        .as_ref()
                    })
                    .flatten();
                match long {
                    Some(re) => re.find_iter(text).take(take).map(found).collect(),
                    None => {
                        let mut cache = self.cache.borrow_mut();
                        let cache = cache.get_or_insert_with(|| short.create_cache());
                        short.find_iter(cache, text).take(take).map(found).collect()
                    }
                }
            }
            Engine::Bounded(re) => {
                let mut found = Vec::new();
                for m in re.find_iter(text).take(take) {
                    match m {
                        Ok(m) => found.push(Found {
                            start: m.start(),
                            end: m.end(),
                        }),
                        Err(_) => {
                            self.gave_up.set(true);
                            return Vec::new();
                        }
                    }
                }
                found
            }
            Engine::Pin { name, .. } => {
                let mut found = Vec::new();
                let mut at = 0;
                while found.len() < take
                    && let Some((start, end)) = super::pin::find(name, text, at)
                {
                    found.push(Found { start, end });
                    at = end;
                }
                found
            }
            Engine::Timed(re) => {
                let re = Arc::clone(re);
                let text = text.to_owned();
                self.timed(move || {
                    re.find_iter(&text)
                        .take(take)
                        .map(|m| Found {
                            start: m.start(),
                            end: m.end(),
                        })
                        .collect()
                })
                .unwrap_or_default()
            }
        }
    }

    /// `job` on a worker thread within what is left of [`FALLBACK_TIME`].
    fn timed<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let left = FALLBACK_TIME.saturating_sub(self.spent.get());
        let start = Instant::now();
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("regex-fallback".into())
            .spawn(move || {
                let _ = tx.send(job());
            });
        let got = spawned.ok().and_then(|_| rx.recv_timeout(left).ok());
        self.spent.set(self.spent.get() + start.elapsed());
        if got.is_none() {
            self.gave_up.set(true);
        }
        got
    }
}

/// Short texts (Skill inputs), each with its owner, joined once so that the
/// few a [`Matcher`] may match are found without running it on them all
/// ([`Texts::candidates`]): what makes a check of every item against every
/// suite's pattern cost one lookup per pattern, not one search per item.
#[derive(Debug, Clone, Default)]
pub struct Texts {
    joined: String,
    /// `(start, end, owner)` of each text, in the order pushed.
    spans: Vec<(usize, usize, usize)>,
}

impl Texts {
    /// Add `text`, owned by `owner` (push owners in ascending order).
    pub fn push(&mut self, text: &str, owner: usize) {
        let start = self.joined.len();
        self.joined.push_str(text);
        self.spans.push((start, self.joined.len(), owner));
        self.joined.push('\n');
    }

    /// The owners, ascending, of the texts `re` may match: each holds a
    /// literal of every set [`Matcher::required_literals`] gives. `None`
    /// when `re` requires none, or too many texts hold them to narrow the
    /// search: the caller then runs `re` on them all.
    pub fn candidates(&self, re: &Matcher) -> Option<Vec<usize>> {
        /// Past this many, running the pattern on every text is as quick.
        const MAX_CANDIDATES: usize = 64;
        let mut sets: Vec<&Vec<Vec<u8>>> = re.required_literals().iter().collect();
        // The set whose shortest literal is longest is likely the rarest:
        // look it up in every text, then test the few found for the others.
        sets.sort_by_key(|set| std::cmp::Reverse(set.iter().map(Vec::len).min()));
        let (first, rest) = sets.split_first()?;
        let joined = self.joined.as_bytes();
        let mut found = Vec::new();
        for literal in first.iter() {
            for at in memchr::memmem::find_iter(joined, literal) {
                let idx = self.spans.partition_point(|sp| sp.1 < at);
                if let Some(&(a, b, _)) = self.spans.get(idx)
                    && at >= a
                    && at + literal.len() <= b
                {
                    found.push(idx);
                    if found.len() > MAX_CANDIDATES {
                        return None;
                    }
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        let mut owners: Vec<usize> = found
            .into_iter()
            .filter(|&idx| {
                let (a, b, _) = self.spans[idx];
                rest.iter().all(|set| {
                    set.iter()
                        .any(|l| memchr::memmem::find(&joined[a..b], l).is_some())
                })
            })
            .map(|idx| self.spans[idx].2)
            .collect();
        owners.dedup();
        Some(owners)
    }
}

/// The longest text searched without the DFAs (a Skill input is a line):
/// building them costs more than they save on a short text.
const SHORT_TEXT: usize = 256;

/// The NFA of `hir`, compiled as the `regex` crate's engine compiles it
/// (same size limit), by a compiler kept per thread: a fresh one allocates
/// and clears a table of 10,000 entries for its first Unicode class (`\s`
/// is one), which cost more than the rest of a pin's compilation.
fn nfa(hir: &regex_syntax::hir::Hir) -> Option<NFA> {
    /// The `regex` crate's default limit on an NFA's size, in bytes.
    const NFA_SIZE_LIMIT: usize = 10 * (1 << 20);
    thread_local! {
        static COMPILER: thompson::Compiler = {
            let mut compiler = thompson::Compiler::new();
            compiler.configure(
                thompson::Config::new()
                    .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                    .which_captures(thompson::WhichCaptures::Implicit),
            );
            compiler
        };
    }
    COMPILER.with(|c| c.build_from_hir(hir).ok())
}

/// The linear engine for `text` (a translation in the `regex` crate's
/// syntax), parsed once for both the engine and [`Matcher::required_literals`].
fn linear(text: &str) -> Option<Engine> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    /// More literals than this in a set do not narrow a search.
    const MAX_SET: usize = 16;
    let hir = regex_syntax::Parser::new().parse(text).ok()?;
    let short = PikeVM::new_from_nfa(nfa(&hir)?).ok()?;
    let literals = [ExtractKind::Prefix, ExtractKind::Suffix]
        .into_iter()
        .filter_map(|kind| {
            let seq = Extractor::new().kind(kind).extract(&hir);
            let literals = seq.literals()?;
            let usable = !literals.is_empty()
                && literals.len() <= MAX_SET
                && literals.iter().all(|l| !l.as_bytes().is_empty());
            usable.then(|| literals.iter().map(|l| l.as_bytes().to_vec()).collect())
        })
        .collect();
    Some(Engine::Linear {
        short,
        long: std::sync::OnceLock::new(),
        hir,
        literals,
    })
}

/// The finding for a pattern, the value of `key`, whose matcher gave up.
pub(super) fn too_slow(key: &str) -> Finding {
    (
        Code::RegexTooSlow,
        format!(
            "`{key}` is too slow to check: on a Skill input of a line it backtracked past bob-eval's budget ({BACKTRACK_STEPS} steps, or {} s), and JavaScript, which has none, may hang the run on it",
            FALLBACK_TIME.as_secs()
        ),
        "make the alternatives of a repeated group exclusive and repeat once (`[\\w-]+`, not `(?:\\w|[\\w-])+` nor `(\\w+)+`), and keep lookarounds and back references out of repeats".into(),
    )
}

/// Report the value of `key` when JavaScript would refuse it as a regex with
/// `flags`: an inline flag group, or a syntax error.
pub(super) fn check_js_regex(
    key: &str,
    pattern: &str,
    flags: &str,
    file: &Utf8Path,
    line: Option<usize>,
    out: &mut Out,
) {
    if let Some(letters) = inline_flags(pattern) {
        let fix = if key.ends_with("input_match") {
            "input_match takes no flags: drop the group and spell the cases out (e.g. [Cc]ommit)"
                .to_string()
        } else {
            let wanted: String = letters.chars().filter(|c| "imsu".contains(*c)).collect();
            let wanted = if wanted.is_empty() {
                "i".to_string()
            } else {
                wanted
            };
            format!("remove `(?{letters})` and use flags: {wanted}")
        };
        out.error(
            Code::RegexInlineFlags,
            file,
            line,
            format!("`{key}` uses the inline flag group `(?{letters})`, which JavaScript does not accept: the grader throws on every run"),
            fix,
        );
        return;
    }
    if let Some((code, message, fix)) = compile_hazard(key, pattern) {
        out.error(code, file, line, message, fix);
        return;
    }
    let safety = safety(pattern, flags);
    if let Err(e) = &safety.compiles {
        out.error(
            Code::RegexInvalid,
            file,
            line,
            format!(
                "`{key}` is not a valid JavaScript regex ({e}): the grader throws on every run"
            ),
            "fix the pattern in JavaScript syntax (escape literal ( ) [ ] { } with \\)",
        );
        return;
    }
    if let Some((code, message, fix)) = run_hazard(key, pattern, &safety) {
        out.error(code, file, line, message, fix);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_checked() {
        assert!(check_flags("").is_ok());
        assert!(check_flags("gim").is_ok());
        assert!(check_flags("x").is_err());
        assert!(check_flags("ii").is_err());
        assert!(check_flags("uv").is_err());
    }

    #[test]
    fn inline_flags_found_outside_classes_and_escapes() {
        assert_eq!(inline_flags("(?i)fix"), Some("i".into()));
        assert_eq!(inline_flags("a(?im:b)"), Some("im".into()));
        assert_eq!(inline_flags("(?-i:b)"), Some("-i".into()));
        assert_eq!(inline_flags(r"\(?i\)"), None);
        assert_eq!(inline_flags("[(?i)]"), None);
        assert_eq!(inline_flags("(?:x)(?=y)(?!z)(?<n>w)(?<=v)"), None);
    }

    fn matcher(pattern: &str) -> Matcher {
        Matcher::new(pattern, "").unwrap()
    }

    #[test]
    fn matchers_run_in_bounded_time() {
        let input = r#"{"skill":"bob-eval-release-notes:release-notes"}"#;
        // Exactly translated: linear, and it answers.
        let re = matcher(r#"(?:[\w":{}-]|[\w":{}-])*!"#);
        assert!(re.is_linear());
        assert_eq!(re.find(input), None);
        assert_eq!(
            re.find(&format!("{input}!")).map(|m| m.end()),
            Some(input.len() + 1)
        );
        assert!(!re.gave_up());
        // A lookaround: fancy-regex under its step budget gives up.
        let re = matcher(r#"(?:(?=[\w":{}-])[\w":{}-]|[\w":{}-])*!"#);
        assert!(!re.is_linear());
        assert_eq!(re.find("ab!").map(|m| (m.start(), m.end())), Some((0, 3)));
        assert_eq!(re.find(input), None);
        assert!(re.gave_up());
        assert_eq!(re.find("ab!"), None, "nothing once it gave up");
        // No exact translation (a back reference): regress under a time budget.
        let re = matcher(r"(a)(?:\1|a)*!");
        assert!(!re.is_linear());
        assert_eq!(re.find_iter("aa! a!").len(), 2);
        assert!(!re.gave_up());
        assert_eq!(re.find(&"a".repeat(30)), None);
        assert!(re.gave_up());
    }

    #[test]
    fn js_regex_follows_javascript() {
        assert!(js_regex(r#""skill"\s*:\s*"(?:[\w-]+:)?commit""#, "").is_ok());
        assert!(js_regex(r"^\W{0,3}(feat|fix)(\([a-z0-9._/-]+\))?!?: \S.{0,70}$", "m").is_ok());
        assert!(js_regex("(unclosed", "").is_err());
        assert!(js_regex("a**", "").is_err());
        assert!(js_regex(r"(?<name>x)\k<name>", "").is_ok());
    }
}
