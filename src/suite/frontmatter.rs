//! The front-matter toolkit: splitting a Markdown file, parsing its YAML
//! within a depth bound, and the line of each key.

use super::{Diagnostic, Entry, HashMap, Utf8Path, Value, problem};
use crate::diagnostic::Code;

/// A markdown file split into frontmatter and body, the platform's way
/// (`/^---\s*\n([\s\S]*?)---\s*\n?/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markdown<'a> {
    /// The frontmatter text, when the file has one.
    pub frontmatter: Option<&'a str>,
    /// The 1-based file line where the frontmatter text starts.
    pub frontmatter_line: usize,
    /// The body.
    pub body: &'a str,
    /// The 1-based file line where the body starts.
    pub body_line: usize,
}

/// The opening `---` with no closing one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unterminated;

/// Split a markdown file into frontmatter and body.
pub fn split_markdown(text: &str) -> std::result::Result<Markdown<'_>, Unterminated> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let line_at = |offset: usize| text[..offset].matches('\n').count() + 1;
    let plain = Markdown {
        frontmatter: None,
        frontmatter_line: 1,
        body: text,
        body_line: 1,
    };
    let Some(rest) = text.strip_prefix("---") else {
        return Ok(plain);
    };
    let ws_len = rest.len() - rest.trim_start().len();
    let Some(nl) = rest[..ws_len].rfind('\n') else {
        return Ok(plain);
    };
    let start = 3 + nl + 1;
    let Some(close) = text[start..].find("---") else {
        return Err(Unterminated);
    };
    let fm_end = start + close;
    let after = &text[fm_end + 3..];
    let body_start = fm_end + 3 + (after.len() - after.trim_start().len());
    Ok(Markdown {
        frontmatter: Some(&text[start..fm_end]),
        frontmatter_line: line_at(start),
        body: &text[body_start..],
        body_line: line_at(body_start),
    })
}

/// The 1-based line of every block-style key path in a YAML text (`execution.max_turns`,
/// `graders.0.type`), offset so that the text's first line is `first_line`.
/// A line scan, not a parser: flow style and odd layouts just get no line.
pub fn key_lines(text: &str, first_line: usize) -> HashMap<String, usize> {
    #[derive(Clone)]
    struct KeyFrame {
        indent: usize,
        seg: String,
        item: bool,
    }
    let mut stack: Vec<KeyFrame> = Vec::new();
    let mut counters: HashMap<String, usize> = HashMap::new();
    let mut out = HashMap::new();
    let path = |stack: &[KeyFrame]| {
        stack
            .iter()
            .map(|f| f.seg.as_str())
            .collect::<Vec<_>>()
            .join(".")
    };
    for (i, raw) in text.lines().enumerate() {
        let line_no = first_line + i;
        let trimmed = raw.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('\t') {
            continue;
        }
        let mut indent = raw.len() - trimmed.len();
        let mut content = trimmed;
        loop {
            if content == "-" || content.starts_with("- ") {
                while stack
                    .last()
                    .is_some_and(|f| f.indent > indent || (f.indent == indent && f.item))
                {
                    stack.pop();
                }
                let parent = path(&stack);
                let counter = counters.entry(parent.clone()).or_insert(0);
                let idx = *counter;
                *counter += 1;
                let seg = idx.to_string();
                let full = if parent.is_empty() {
                    seg.clone()
                } else {
                    format!("{parent}.{seg}")
                };
                out.entry(full).or_insert(line_no);
                stack.push(KeyFrame {
                    indent,
                    seg,
                    item: true,
                });
                let after = content[1..].trim_start_matches(' ');
                indent += content.len() - after.len();
                content = after;
                if content.is_empty() {
                    break;
                }
                continue;
            }
            if let Some(key) = yaml_key(content) {
                while stack.last().is_some_and(|f| f.indent >= indent) {
                    stack.pop();
                }
                // Counters for sequences under a re-opened key start over.
                let mut full = path(&stack);
                if !full.is_empty() {
                    full.push('.');
                }
                full.push_str(&key);
                counters.remove(&full);
                out.entry(full).or_insert(line_no);
                stack.push(KeyFrame {
                    indent,
                    seg: key,
                    item: false,
                });
            }
            break;
        }
    }
    out
}

/// The key of a `key: value` / `key:` line, unquoted.
pub(super) fn yaml_key(content: &str) -> Option<String> {
    for quote in ['"', '\''] {
        if let Some(rest) = content.strip_prefix(quote) {
            let end = rest.find(quote)?;
            return rest[end + 1..]
                .starts_with(':')
                .then(|| rest[..end].to_owned());
        }
    }
    let colon = content
        .find(": ")
        .or_else(|| content.ends_with(':').then(|| content.len() - 1))?;
    let key = content[..colon].trim_end();
    if key.is_empty() || key.starts_with(['{', '[', '|', '>', '&', '*', '!']) {
        return None;
    }
    Some(key.to_owned())
}

/// Deepest nesting of collections a suite's YAML may have. A case needs a
/// handful of levels; the parser takes seconds over a document nested tens of
/// thousands deep before it refuses it, so deeper text is never handed to it.
pub const MAX_YAML_DEPTH: usize = 64;

/// The 0-based line where `text` nests collections deeper than `max`, if it
/// does. A linear scan, not a parser: block indentation, `- `/`? `/`key: `
/// indicators on one line, and `[`/`{` outside quoted scalars, comments and
/// block scalars all count, so it may count a level YAML would not, never
/// fewer (a bracket in a plain scalar counts).
pub fn yaml_too_deep(text: &str, max: usize) -> Option<usize> {
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    // The quote of a quoted scalar open at the end of the previous line.
    let mut quote: Option<char> = None;
    // The indent of the line that opened a block scalar (`|`, `>`).
    let mut block_scalar: Option<usize> = None;
    for (n, line) in text.lines().enumerate() {
        let content = line.trim_start_matches(' ');
        let indent = line.len() - content.len();
        if let Some(parent) = block_scalar {
            if content.trim().is_empty() || indent > parent {
                continue;
            }
            block_scalar = None;
        }
        if quote.is_none() && flow == 0 {
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            while indents.last().is_some_and(|&i| i >= indent) {
                indents.pop();
            }
            indents.push(indent);
        }
        let mut on_line = 0usize;
        let mut scalar_start = true;
        let mut prev = ' ';
        let mut chars = content.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(q) = quote {
                match c {
                    '\\' if q == '"' => {
                        chars.next();
                    }
                    '\'' if q == '\'' && chars.peek() == Some(&'\'') => {
                        chars.next();
                    }
                    _ if c == q => {
                        quote = None;
                        scalar_start = false;
                    }
                    _ => {}
                }
                prev = c;
                continue;
            }
            let spaced = chars.peek().is_none_or(|n| n.is_whitespace());
            match c {
                '#' if prev.is_whitespace() => break,
                '\'' | '"' if scalar_start => quote = Some(c),
                '[' | '{' => {
                    flow += 1;
                    scalar_start = true;
                }
                ']' | '}' => {
                    flow = flow.saturating_sub(1);
                    scalar_start = false;
                }
                ',' => scalar_start = true,
                '-' | '?' if scalar_start && spaced => on_line += 1,
                ':' if spaced => {
                    // In a flow collection its bracket counted the level.
                    if flow == 0 {
                        on_line += 1;
                    }
                    scalar_start = true;
                }
                '|' | '>' if scalar_start && flow == 0 => {
                    block_scalar = Some(indent);
                    break;
                }
                c if c.is_whitespace() => {}
                _ => scalar_start = false,
            }
            if indents.len() + on_line + flow > max {
                return Some(n);
            }
            prev = c;
        }
        if indents.len() + on_line + flow > max {
            return Some(n);
        }
    }
    None
}

/// Parse YAML text into a value; on error, a diagnostic with the file line.
/// Flat text takes the quick path ([`super::flat`]), and so does the
/// nested layout of a `case.yaml` ([`super::block`]); text nested deeper than
/// [`MAX_YAML_DEPTH`] is refused before it is parsed.
pub fn parse_yaml(
    text: &str,
    file: &Utf8Path,
    first_line: usize,
) -> std::result::Result<Value, Diagnostic> {
    if let Some(value) = super::flat::parse_flat(text).or_else(|| super::block::parse_block(text)) {
        return Ok(value);
    }
    if let Some(n) = yaml_too_deep(text, MAX_YAML_DEPTH) {
        return Err(problem(
            Code::YamlTooDeep,
            file,
            Some(first_line + n),
            format!("the YAML nests deeper than {MAX_YAML_DEPTH} levels, so it is not read"),
            "flatten it: a case or grader needs only a few levels of keys and lists",
        ));
    }
    serde_norway::from_str::<Value>(text).map_err(|e| {
        let line = e.location().map(|l| l.line() + first_line - 1);
        let message = e.to_string();
        let message = message.lines().next().unwrap_or("invalid YAML").to_owned();
        problem(
            Code::InvalidYaml,
            file,
            line,
            format!("invalid YAML: {message}"),
            "fix the YAML syntax (quote values holding `: ` or starting with a special character)",
        )
    })
}

/// A YAML mapping key as a string (non-string keys are written as YAML).
pub fn key_string(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Null => "null".into(),
        _ => "?".into(),
    }
}

/// Frontmatter of a markdown file, parsed.
pub struct Frontmatter {
    /// Keys with values and lines, in file order.
    pub keys: Vec<(String, Entry)>,
    /// The body.
    pub body: String,
    /// The body's first line.
    pub body_line: usize,
    /// Whether there was a frontmatter block at all.
    pub had: bool,
}

impl Frontmatter {
    /// The trimmed body at its first non-blank line, unless it is blank.
    pub(super) fn body_entry(&self, path: &Utf8Path) -> Option<Entry> {
        let body = self.body.trim();
        if body.is_empty() {
            return None;
        }
        let skipped = self.body.len() - self.body.trim_start().len();
        Some(Entry {
            value: Value::String(body.to_owned()),
            file: path.to_owned(),
            line: Some(self.body_line + self.body[..skipped].matches('\n').count()),
        })
    }
}

/// Split `text`, the markdown file `path`, and parse its frontmatter; `None`
/// (with a problem recorded) when the frontmatter is unterminated, not YAML or
/// not a mapping.
pub fn read_markdown(
    path: &Utf8Path,
    text: &str,
    problems: &mut Vec<Diagnostic>,
) -> Option<Frontmatter> {
    let md = match split_markdown(text) {
        Ok(md) => md,
        Err(Unterminated) => {
            problems.push(problem(
                Code::UnterminatedFrontmatter,
                path,
                Some(1),
                "the frontmatter opens with `---` but never closes".into(),
                "add a closing `---` line after the frontmatter",
            ));
            return None;
        }
    };
    let Some(fm) = md.frontmatter else {
        return Some(Frontmatter {
            keys: Vec::new(),
            body: md.body.to_owned(),
            body_line: md.body_line,
            had: false,
        });
    };
    let value = match parse_yaml(fm, path, md.frontmatter_line) {
        Ok(v) => v,
        Err(d) => {
            problems.push(d);
            return None;
        }
    };
    let keys = match value {
        Value::Null => Vec::new(),
        Value::Mapping(map) => {
            let lines = key_lines(fm, md.frontmatter_line);
            map.into_iter()
                .map(|(k, v)| {
                    let key = key_string(&k);
                    let line = lines.get(&key).copied();
                    (
                        key,
                        Entry {
                            value: v,
                            file: path.to_owned(),
                            line,
                        },
                    )
                })
                .collect()
        }
        _ => {
            problems.push(problem(
                Code::NotAMapping,
                path,
                Some(md.frontmatter_line),
                "the frontmatter is not a YAML mapping of `key: value` lines".into(),
                "write the frontmatter as `key: value` lines",
            ));
            return None;
        }
    };
    Some(Frontmatter {
        keys,
        body: md.body.to_owned(),
        body_line: md.body_line,
        had: true,
    })
}
