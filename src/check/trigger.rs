//! The trigger pair every suite must carry (docs/suites.md):
//! a `fires` case whose Skill grader asserts the item fires, a `quiet` case
//! whose Skill grader asserts it never does, each pinned by an `input_match`
//! that matches the item's Skill input and no other item's.

use super::Out;
use super::js_regex::{Matcher, Texts, inline_flags, safe_js_regex, too_slow};
use super::scan::{Group, Kind, tokens};
use crate::diagnostic::Code;
use crate::suite::{self, Case, Grader, Suite};
use std::collections::HashMap;

/// Which trigger case.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Trigger {
    Fires,
    Quiet,
}

impl Trigger {
    /// The case name, which is also its grader file's stem.
    fn case_name(self) -> &'static str {
        match self {
            Trigger::Fires => "fires",
            Trigger::Quiet => "quiet",
        }
    }

    /// True when the Skill grader `g` asserts what this case is for: `fires`
    /// needs at least one call, `quiet` exactly none on both arms.
    fn is_shaped(self, g: &Grader) -> bool {
        match self {
            Trigger::Fires => g
                .get("min")
                .map_or(Some(1), |e| suite::as_count(&e.value))
                .is_some_and(|m| m >= 1),
            Trigger::Quiet => {
                count_of(g, "min") == Some(0)
                    && count_of(g, "max") == Some(0)
                    && g.arm() == Some("both")
            }
        }
    }
}

/// Why bob-eval asks for the pair, said wherever it does: the platform has no
/// such rule.
pub const CONVENTION: &str = "bob-eval's convention, not a platform rule: bob-eval needs a fires/quiet pair to measure the trigger rate";

/// True when `g`, a grader of the case named `case_name`, is one of the trigger
/// pair's graders this module checks (a `fires` Skill grader wanting the item
/// to fire, a `quiet` one wanting it never to).
pub(super) fn is_trigger_grader(case_name: &str, g: &Grader) -> bool {
    let trigger = match case_name {
        "fires" => Trigger::Fires,
        "quiet" => Trigger::Quiet,
        _ => return false,
    };
    g.is_skill_trigger() && trigger.is_shaped(g)
}

/// A pin verdict per `input_match` pattern, shared by both trigger cases.
type Verdicts = HashMap<String, Option<(Code, String)>>;

fn skill_graders(case: &Case) -> impl Iterator<Item = &Grader> {
    case.graders.iter().filter(|g| g.is_skill_trigger())
}

fn count_of(g: &Grader, key: &str) -> Option<u64> {
    g.get(key).and_then(|e| suite::as_count(&e.value))
}

/// The suggested `input_match` pinning `item`.
pub fn pin_pattern(item: &str) -> String {
    format!(r#"'"skill"\s*:\s*"(?:[\w-]+:)?{item}"'"#)
}

/// Check that `suite` has both trigger cases, each with a Skill grader of the
/// right shape pinned to the item; `names` holds every item name in the source.
pub(super) fn check_trigger_pair(suite: &Suite, names: &ItemNames, out: &mut Out) {
    if suite.cases.is_empty() {
        return;
    }
    let mut verdicts = Verdicts::new();
    for trigger in [Trigger::Fires, Trigger::Quiet] {
        let case_name = trigger.case_name();
        match suite.cases.iter().find(|c| c.name == case_name) {
            // A folder the scan could not enter may hold it: that is reported.
            None if suite.incomplete => {}
            None => report_missing_case(suite, trigger, out),
            Some(case) if case.broken => {}
            Some(case) => check_trigger_case(case, trigger, &suite.item, names, &mut verdicts, out),
        }
    }
}

/// The suite has no `fires` (or `quiet`) case.
fn report_missing_case(suite: &Suite, trigger: Trigger, out: &mut Out) {
    let (code, what) = match trigger {
        Trigger::Fires => (
            Code::NoFiresCase,
            "a prompt where the item should fire, with a tool_used grader on Skill pinned by input_match",
        ),
        Trigger::Quiet => (
            Code::NoQuietCase,
            "a prompt where it should not fire, with a tool_used grader on Skill (min: 0, max: 0, arm: both)",
        ),
    };
    let case_name = trigger.case_name();
    out.error(
        code,
        &suite.dir,
        None,
        format!("the suite has no `{case_name}` case ({CONVENTION})"),
        format!("add evals/{}/{case_name}/: {what}", suite.item),
    );
}

/// Check one trigger case: a Skill grader of the right shape, then its pin.
fn check_trigger_case(
    case: &Case,
    trigger: Trigger,
    item: &str,
    names: &ItemNames,
    verdicts: &mut Verdicts,
    out: &mut Out,
) {
    let graders: Vec<&Grader> = skill_graders(case).collect();
    let shaped: Vec<&Grader> = graders
        .iter()
        .copied()
        .filter(|g| trigger.is_shaped(g))
        .collect();
    if shaped.is_empty() {
        let (code, message, fix) = unshaped_finding(trigger, graders.first().copied(), item);
        let (file, line) = match graders.first() {
            Some(g) => (g.file.clone(), g.line),
            None => (case.main_file(), None),
        };
        out.error(code, &file, line, message, fix);
        return;
    }
    for g in shaped {
        check_pin(g, trigger.case_name(), item, names, verdicts, out);
    }
}

/// Why no Skill grader of a trigger case has the right shape (`first` is its
/// first Skill grader, if any): the code, the message and the fix.
fn unshaped_finding(
    trigger: Trigger,
    first: Option<&Grader>,
    item: &str,
) -> (Code, String, String) {
    match (trigger, first) {
        (Trigger::Fires, None) => (
            Code::FiresNoTrigger,
            format!("the `fires` case has no tool_used grader on Skill, so nothing checks that the item fires ({CONVENTION})"),
            format!("add graders/fires.md: type: tool_used, tool: Skill, input_match: {}", pin_pattern(item)),
        ),
        (Trigger::Fires, Some(_)) => (
            Code::FiresNoTrigger,
            "the `fires` case's Skill grader has min 0, so it passes even when the item never fires".to_string(),
            "remove `min: 0` (the default is 1)".to_string(),
        ),
        (Trigger::Quiet, None) => (
            Code::QuietNoTrigger,
            format!("the `quiet` case has no tool_used grader on Skill, so nothing checks that the item stays quiet ({CONVENTION})"),
            format!(
                "add graders/quiet.md: type: tool_used, tool: Skill, input_match: {}, min: 0, max: 0, arm: both",
                pin_pattern(item)
            ),
        ),
        (Trigger::Quiet, Some(g)) => {
            let mut missing = Vec::new();
            if count_of(g, "min") != Some(0) {
                missing.push("min: 0");
            }
            if count_of(g, "max") != Some(0) {
                missing.push("max: 0");
            }
            if g.arm() != Some("both") {
                missing.push("arm: both");
            }
            (
                Code::QuietNoTrigger,
                format!("the `quiet` case's Skill grader `{}` does not assert the item never fires", g.name),
                format!("set {}", missing.join(", ")),
            )
        }
    }
}

/// Check that the trigger grader `g` of case `case_name` has an `input_match`
/// pinning `item` (verdicts are cached per pattern).
fn check_pin(
    g: &Grader,
    case_name: &str,
    item: &str,
    names: &ItemNames,
    verdicts: &mut Verdicts,
    out: &mut Out,
) {
    let Some(e) = g.get("input_match") else {
        out.error(
            Code::TriggerUnpinned,
            &g.file,
            g.line,
            format!(
                "the `{case_name}` Skill grader `{}` has no input_match, so any skill counts",
                g.name
            ),
            format!("add input_match: {}", pin_pattern(item)),
        );
        return;
    };
    let Some(pattern) = e.as_str() else { return };
    let verdict = verdicts
        .entry(pattern.to_owned())
        .or_insert_with(|| pin_verdict(pattern, item, names));
    if let Some((code, message)) = verdict {
        let fix = if *code == Code::RegexTooSlow {
            too_slow("input_match").2
        } else {
            format!("pin it to the item: input_match: {}", pin_pattern(item))
        };
        out.error(
            *code,
            &g.file,
            e.line.or(g.line),
            format!("the `{case_name}` grader `{}`: {message}", g.name),
            fix,
        );
    }
}

/// The JSON-encoded Skill inputs for `name` the platform matches input_match against.
fn encoded(name: &str) -> [String; 2] {
    [
        format!(r#"{{"skill":"{name}"}}"#),
        format!(r#"{{"skill":"bob-eval-{name}:{name}"}}"#),
    ]
}

/// The longest text a suite's pattern is run against here, in bytes: a
/// pattern that backtracks polynomially stays quick on a line or two.
const MAX_HAYSTACK: usize = 512;

/// Encoded inputs joined by newlines, with the `(start, end, name index)` of each.
type Haystack = (String, Vec<(usize, usize, usize)>);

/// Every item name in a source, with their JSON-encoded Skill inputs joined
/// a few at a time (at most 512 bytes, or one input), so a
/// trigger pattern is tried against all of them in a few scans instead of one
/// regex call per name, and never against a long text.
#[derive(Debug, Clone)]
pub struct ItemNames {
    names: Vec<String>,
    /// Joined inputs, each with the `(start, end, name index)` of its inputs.
    haystacks: Vec<Haystack>,
    /// Every input, each owned by its name's index, searched for a
    /// pattern's required literals.
    texts: Texts,
}

impl ItemNames {
    /// Index `names` (every suite name in the source).
    pub fn new(names: &[String]) -> Self {
        let mut haystacks: Vec<Haystack> = Vec::new();
        for (i, name) in names.iter().enumerate() {
            for input in encoded(name) {
                if haystacks
                    .last()
                    .is_none_or(|(h, _)| h.len() + input.len() + 1 > MAX_HAYSTACK)
                {
                    haystacks.push((String::new(), Vec::new()));
                }
                let (haystack, spans) = haystacks.last_mut().expect("pushed above");
                let start = haystack.len();
                haystack.push_str(&input);
                spans.push((start, haystack.len(), i));
                haystack.push('\n');
            }
        }
        let mut texts = Texts::default();
        for (haystack, spans) in &haystacks {
            for &(a, b, n) in spans {
                texts.push(&haystack[a..b], n);
            }
        }
        ItemNames {
            names: names.to_vec(),
            haystacks,
            texts,
        }
    }

    /// The first encoded input of another item that `re` matches.
    fn other_match(&self, re: &Matcher, pattern: &str, item: &str) -> Option<String> {
        match self.texts.candidates(re) {
            Some(found) => first_other(re, item, found.into_iter().map(|n| &self.names[n])),
            None => self.scan(re, pattern, item),
        }
    }

    /// [`ItemNames::other_match`] by a scan of every input.
    fn scan(&self, re: &Matcher, pattern: &str, item: &str) -> Option<String> {
        if !needs_isolation(pattern) {
            let mut clean = true;
            'joined: for (haystack, spans) in &self.haystacks {
                for m in re.find_iter(haystack) {
                    let (s, e) = (m.start(), m.end());
                    let idx = spans.partition_point(|sp| sp.1 < s);
                    match spans.get(idx) {
                        Some(&(a, b, n)) if s >= a && e <= b => {
                            if self.names[n] != item && re.find(&haystack[a..b]).is_some() {
                                return Some(haystack[a..b].to_owned());
                            }
                        }
                        _ => {
                            // A match across two inputs may hide others: test each alone.
                            clean = false;
                            break 'joined;
                        }
                    }
                }
            }
            if clean {
                return None;
            }
        }
        first_other(re, item, self.names.iter())
    }
}

/// The first encoded input of a name in `names` other than `item` that `re` matches.
fn first_other<'a>(
    re: &Matcher,
    item: &str,
    names: impl Iterator<Item = &'a String>,
) -> Option<String> {
    names.filter(|n| n.as_str() != item).find_map(|other| {
        encoded(other)
            .into_iter()
            .find(|input| re.find(input).is_some())
    })
}

/// True when `pattern` has anchors or lookarounds (or a group that is
/// neither plain nor a modifier group), which could behave differently on the
/// joined inputs than on one input alone.
fn needs_isolation(pattern: &str) -> bool {
    tokens(pattern).any(|t| match t.kind {
        Kind::Anchor(_) => true,
        Kind::Open(group) => !matches!(
            group,
            Group::Capture | Group::NonCapture | Group::Modifiers(_)
        ),
        _ => false,
    })
}

/// Whether `pattern` pins `item`: `None` when it does, else the code and why not.
/// Invalid patterns, and those unsafe to run, are reported by the grader
/// checks and pass here: they are never run.
fn pin_verdict(pattern: &str, item: &str, names: &ItemNames) -> Option<(Code, String)> {
    if inline_flags(pattern).is_some() {
        return None;
    }
    let re = safe_js_regex(pattern, "").ok()?;
    let verdict = pin_verdict_with(&re, pattern, item, names);
    if re.gave_up() {
        let (code, message, _) = too_slow("input_match");
        return Some((code, message));
    }
    verdict
}

/// [`pin_verdict`] with the pattern compiled as `re`.
fn pin_verdict_with(
    re: &Matcher,
    pattern: &str,
    item: &str,
    names: &ItemNames,
) -> Option<(Code, String)> {
    for input in encoded(item) {
        if re.find(&input).is_none() {
            return Some((
                Code::TriggerMissesItem,
                format!("input_match does not match {input}, so it never sees the item fire"),
            ));
        }
    }
    let too_broad = |input: String| {
        Some((
            Code::TriggerTooBroad,
            format!("input_match also matches {input}, another item"),
        ))
    };
    for other in [
        format!("{item}-x"),
        format!("x{item}"),
        format!("not-{item}"),
    ] {
        if let Some(input) = encoded(&other)
            .into_iter()
            .find(|input| re.find(input).is_some())
        {
            return too_broad(input);
        }
    }
    names.other_match(re, pattern, item).and_then(too_broad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_find_what_a_scan_finds() {
        let names: Vec<String> = (0..300)
            .map(|n| format!("item-{n:03}"))
            .chain(["commit", "commit-msg", "x-commit", "review"].map(String::from))
            .collect();
        let index = ItemNames::new(&names);
        let patterns = [
            r#""skill"\s*:\s*"(?:[\w-]+:)?item-007""#,
            r#""skill"\s*:\s*"(?:[\w-]+:)?item-00"#,
            r#"item-0[0-4]7""#,
            r#"(?:item-123|commit)""#,
            r#"commit"#,
            r#"COMMIT"#,
            r#":commit-msg"\}$"#,
            r#"^\{"skill":"commit"#,
            r#"[cC]ommit-?m?s?g?""#,
            r#"review|item-299"#,
            r#"skill"#,
            r#"\w+"#,
            r#"item-(?:1|2)\d\d"#,
        ];
        let mut narrowed = 0;
        for pattern in patterns {
            let re = safe_js_regex(pattern, "").unwrap();
            if let Some(found) = index.texts.candidates(&re) {
                narrowed += 1;
                let with = first_other(&re, "commit", found.iter().map(|&n| &names[n]));
                assert_eq!(with, index.scan(&re, pattern, "commit"), "{pattern}");
                // Every name a scan finds is a candidate.
                for (n, name) in names.iter().enumerate() {
                    if encoded(name).iter().any(|i| re.find(i).is_some()) {
                        assert!(found.contains(&n), "{pattern}: {name} missed");
                    }
                }
            }
        }
        assert!(narrowed >= 8, "only {narrowed} patterns narrowed");
    }

    #[test]
    fn pin_verdicts() {
        let names = vec![
            "commit".to_string(),
            "commit-msg".to_string(),
            "review".to_string(),
        ];
        let good = r#""skill"\s*:\s*"(?:[\w-]+:)?commit""#;
        let names = ItemNames::new(&names);
        assert_eq!(pin_verdict(good, "commit", &names), None);
        // Anchored and spanning patterns are judged one input at a time.
        assert_eq!(
            pin_verdict(
                r#"^\{"skill":"(?:[\w-]+:)?commit(?:-msg)?"\}$"#,
                "commit",
                &names
            )
            .map(|v| v.0),
            Some(Code::TriggerTooBroad)
        );
        assert_eq!(
            pin_verdict(
                r#""(?:[\w-]+:)?commit"\}(?:[\s\S]*review)?"#,
                "commit",
                &names
            ),
            None
        );
        assert_eq!(
            pin_verdict(r#"(?:[\w-]+:)?commit"\}|"review""#, "commit", &names).map(|v| v.0),
            Some(Code::TriggerTooBroad)
        );
        assert_eq!(
            pin_verdict("commit", "commit", &names).map(|v| v.0),
            Some(Code::TriggerTooBroad)
        );
        assert_eq!(
            pin_verdict(r#""skill":"commit""#, "commit", &names).map(|v| v.0),
            Some(Code::TriggerMissesItem)
        );
        assert_eq!(
            pin_verdict(r#"(commit|review)"#, "commit", &names).map(|v| v.0),
            Some(Code::TriggerTooBroad)
        );
    }
}
