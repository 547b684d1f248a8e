//! The JavaScript regex rules: the platform compiles every `pattern` and
//! `input_match` with `new RegExp(pattern, flags)`, so a pattern JavaScript
//! refuses (or an inline flag group it does not know) throws on every run.
//! A suite's pattern is compiled here only when it is short and shallow
//! enough, and run (by the trigger checks, on inputs of a line) only when it
//! cannot backtrack catastrophically.

use super::Out;
use camino::Utf8Path;
use std::collections::HashSet;

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
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class && chars.get(i + 1) == Some(&'?') => {
                let rest: String = chars[i + 2..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic() || **c == '-')
                    .collect();
                if !rest.is_empty()
                    && matches!(chars.get(i + 2 + rest.chars().count()), Some(')' | ':'))
                {
                    return Some(rest);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
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
type Finding = (&'static str, String, String);

/// Why `pattern`, the value of `key`, is not safe to compile: too long, or
/// groups nested too deep.
fn compile_hazard(key: &str, pattern: &str) -> Option<Finding> {
    if pattern.len() > MAX_PATTERN_LEN {
        return Some((
            "regex-too-complex",
            format!(
                "`{key}` is {} bytes long, more than the {MAX_PATTERN_LEN} bob-eval compiles",
                pattern.len()
            ),
            "shorten the pattern: match what the item teaches, not a whole text".into(),
        ));
    }
    if group_depth(pattern) > MAX_PATTERN_DEPTH {
        return Some((
            "regex-too-complex",
            format!("`{key}` nests groups deeper than {MAX_PATTERN_DEPTH} levels"),
            "flatten the groups".into(),
        ));
    }
    None
}

/// Why `pattern` (which compiles) is not safe to run: a group that can
/// backtrack catastrophically.
fn run_hazard(key: &str, pattern: &str, flags: &str) -> Option<Finding> {
    let (start, end) = super::backtrack::catastrophic_group(pattern, flags)?;
    let group = super::clip(&pattern[start..end]);
    Some((
        "regex-backtracking",
        format!(
            "`{key}` repeats `{group}`, a group whose own repeat can be split between its iterations in many ways: on a long output JavaScript backtracks for hours and the run hangs"
        ),
        "repeat once (`a+`, not `(a+)+`), or end each iteration on a character the inner repeat cannot match (`([\\w-]+:)*`)".into(),
    ))
}

/// The deepest nesting of groups in `pattern` (outside classes and escapes).
fn group_depth(pattern: &str) -> usize {
    let (mut depth, mut deepest, mut in_class, mut escaped) = (0usize, 0usize, false, false);
    for c in pattern.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' if !in_class => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// `pattern` compiled with `flags` when JavaScript accepts it and it is safe
/// to compile and to run (short and shallow enough, and no group that can
/// backtrack catastrophically).
pub fn safe_js_regex(pattern: &str, flags: &str) -> std::result::Result<regress::Regex, String> {
    if let Some((_, message, _)) = compile_hazard("pattern", pattern) {
        return Err(message);
    }
    let re = js_regex(pattern, flags)?;
    match run_hazard("pattern", pattern, flags) {
        Some((_, message, _)) => Err(message),
        None => Ok(re),
    }
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
            "regex-inline-flags",
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
    if let Err(e) = js_regex(pattern, flags) {
        out.error(
            "regex-invalid",
            file,
            line,
            format!(
                "`{key}` is not a valid JavaScript regex ({e}): the grader throws on every run"
            ),
            "fix the pattern in JavaScript syntax (escape literal ( ) [ ] { } with \\)",
        );
        return;
    }
    if let Some((code, message, fix)) = run_hazard(key, pattern, flags) {
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

    #[test]
    fn js_regex_follows_javascript() {
        assert!(js_regex(r#""skill"\s*:\s*"(?:[\w-]+:)?commit""#, "").is_ok());
        assert!(js_regex(r"^\W{0,3}(feat|fix)(\([a-z0-9._/-]+\))?!?: \S.{0,70}$", "m").is_ok());
        assert!(js_regex("(unclosed", "").is_err());
        assert!(js_regex("a**", "").is_err());
        assert!(js_regex(r"(?<name>x)\k<name>", "").is_ok());
    }
}
