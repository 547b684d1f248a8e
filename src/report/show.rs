//! Human output of `bob-eval show`: one run's conversation in the terminal,
//! and as one self-contained HTML page (inline style, no script, nothing
//! fetched, every outside text escaped by [`crate::report::junit::escape`]).

use crate::evidence::GraderOutcome;
use crate::evidence::transcript::Step;
use crate::ops::show::RunView;
use crate::report::junit::escape;
use std::fmt::Write;

/// The head line of a run: item, case, arm, model, score, cost.
fn head(v: &RunView) -> String {
    format!(
        "run {} · item `{}` · case `{}` · {} arm · model {} · platform {}",
        v.run_id,
        v.item,
        v.case,
        v.arm.as_str(),
        v.model,
        v.platform_version
    )
}

/// The figures of a run in words.
fn figures(v: &RunView) -> String {
    format!(
        "score {:.2} ({}) · ${:.4} · {} turn(s) · {:.1} s · started {}{}",
        v.score,
        if v.passed { "passed" } else { "failed" },
        v.cost_usd,
        v.turns,
        v.duration_seconds,
        v.started_at.format("%Y-%m-%d %H:%M:%S UTC"),
        if v.bought_by.is_empty() {
            String::new()
        } else {
            format!(" · bought by {}", v.bought_by)
        }
    )
}

/// A grader's verdict in words: `pass`/`FAIL`, how it counts, its votes.
fn verdict(g: &GraderOutcome) -> String {
    let mut out = format!("{} {}", if g.passed { "pass" } else { "FAIL" }, g.name);
    if g.with_only {
        out.push_str(" (with-only indicator)");
    } else if !g.scored {
        out.push_str(" (not scored)");
    } else if g.weight != 1.0 {
        let _ = write!(out, " (weight {})", g.weight);
    }
    if !g.judge_votes.is_empty() {
        let yes = g.judge_votes.iter().filter(|v| **v).count();
        let _ = write!(out, " · judge votes {yes}/{} pass", g.judge_votes.len());
    }
    out
}

/// `text` indented by `pad` on every line.
fn indent(text: &str, pad: &str) -> String {
    text.lines()
        .map(|l| format!("{pad}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The run in the terminal: head, figures, prompt, steps, answer, graders.
pub fn text(v: &RunView) -> String {
    let mut out = format!("{}\n{}\n", head(v), figures(v));
    if let Some(error) = &v.error {
        let _ = writeln!(out, "error (the run does not count): {error}");
    }
    match &v.transcript {
        None => {
            let _ = writeln!(out, "\n{}", v.note.unwrap_or_default());
        }
        Some(t) => {
            if let Some(prompt) = &t.prompt {
                let _ = writeln!(out, "\nPrompt\n{}", indent(prompt.trim_end(), "  "));
            }
            out.push_str("\nConversation\n");
            if t.steps.is_empty() {
                out.push_str("  (the trace holds no text nor tool call)\n");
            }
            for step in &t.steps {
                match step {
                    Step::Text { text } => {
                        let _ = writeln!(out, "  model:\n{}", indent(text.trim_end(), "    "));
                    }
                    Step::ToolCall { name, input } => {
                        let _ = writeln!(out, "  → {name} {input}");
                    }
                    Step::ToolResult { text, error } => {
                        let mark = if *error { "✗" } else { "←" };
                        let first = text.lines().next().unwrap_or_default();
                        let _ = writeln!(out, "    {mark} {first}");
                    }
                }
            }
            let answer = t.answer.as_deref().unwrap_or("(the model wrote no text)");
            let _ = writeln!(out, "\nAnswer\n{}", indent(answer.trim_end(), "  "));
        }
    }
    out.push_str("\nGraders\n");
    if v.graders.is_empty() {
        out.push_str("  (none)\n");
    }
    for g in &v.graders {
        let _ = writeln!(out, "  {}", verdict(g));
        if !g.explanation.trim().is_empty() {
            let _ = writeln!(out, "{}", indent(g.explanation.trim_end(), "      "));
        }
        if let Some(evidence) = &g.evidence {
            let _ = writeln!(
                out,
                "      the judge saw:\n{}",
                indent(evidence.trim_end(), "        ")
            );
        }
    }
    out
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222;padding:0 1em}\
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}\
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:.5em;margin:.3em 0}\
.tool{font-family:monospace;color:#555}.error{color:#b00}.pass{color:#2e7d32}.fail{color:#b00}\
.note{background:#fff4e5;border-left:4px solid #e67e22;padding:.5em 1em}";

/// The run as one self-contained page.
pub fn html(v: &RunView) -> String {
    let mut out = String::new();
    let title = format!("{} · {} · {} arm", v.item, v.case, v.arm.as_str());
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        escape(&title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(
        out,
        "<p class=\"head\">{}</p>\n<p class=\"figures\">{}</p>",
        escape(&head(v)),
        escape(&figures(v))
    );
    if let Some(error) = &v.error {
        let _ = writeln!(
            out,
            "<p class=\"error\">error (the run does not count): {}</p>",
            escape(error)
        );
    }
    match &v.transcript {
        None => {
            let _ = writeln!(
                out,
                "<p class=\"note\">{}</p>",
                escape(v.note.unwrap_or_default())
            );
        }
        Some(t) => {
            if let Some(prompt) = &t.prompt {
                let _ = writeln!(
                    out,
                    "<h2>Prompt</h2>\n<pre class=\"prompt\">{}</pre>",
                    escape(prompt)
                );
            }
            out.push_str("<h2>Conversation</h2>\n<ol class=\"steps\">\n");
            for step in &t.steps {
                let _ = match step {
                    Step::Text { text } => {
                        writeln!(out, "<li class=\"text\"><pre>{}</pre></li>", escape(text))
                    }
                    Step::ToolCall { name, input } => writeln!(
                        out,
                        "<li class=\"tool\">→ {} {}</li>",
                        escape(name),
                        escape(input)
                    ),
                    Step::ToolResult { text, error } => writeln!(
                        out,
                        "<li class=\"tool{}\">← {}</li>",
                        if *error { " error" } else { "" },
                        escape(text)
                    ),
                };
            }
            out.push_str("</ol>\n");
            let _ = writeln!(
                out,
                "<h2>Answer</h2>\n<pre class=\"answer\">{}</pre>",
                escape(t.answer.as_deref().unwrap_or("(the model wrote no text)"))
            );
        }
    }
    out.push_str("<h2>Graders</h2>\n<ul class=\"graders\">\n");
    for g in &v.graders {
        let _ = write!(
            out,
            "<li class=\"grader {}\" data-grader=\"{}\">{}",
            if g.passed { "pass" } else { "fail" },
            escape(&g.name),
            escape(&verdict(g))
        );
        if !g.explanation.trim().is_empty() {
            let _ = write!(out, "<pre>{}</pre>", escape(&g.explanation));
        }
        if let Some(evidence) = &g.evidence {
            let _ = write!(
                out,
                "<p>the judge saw:</p><pre class=\"evidence\">{}</pre>",
                escape(evidence)
            );
        }
        out.push_str("</li>\n");
    }
    out.push_str("</ul>\n</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Arm;
    use crate::evidence::transcript::Step;
    use crate::ops::show::{NO_TRANSCRIPT, SHOW_SCHEMA, TranscriptView};

    fn view(transcript: bool) -> RunView {
        RunView {
            schema: SHOW_SCHEMA,
            run_id: "ab12".repeat(16),
            item: "commit".into(),
            case: "fires".into(),
            arm: Arm::With,
            model: "haiku".into(),
            platform_version: "2.1.328".into(),
            started_at: "2026-12-02T09:40:17Z".parse().unwrap(),
            bought_by: "eval-commit-20261202T094017Z".into(),
            score: 0.5,
            passed: false,
            cost_usd: 0.0123,
            turns: 2,
            duration_seconds: 4.25,
            error: None,
            transcript: transcript.then(|| TranscriptView {
                digest: "d".repeat(64),
                prompt: Some("Write the commit message for <this> change".into()),
                steps: vec![
                    Step::Text {
                        text: "Using the skill.".into(),
                    },
                    Step::ToolCall {
                        name: "Skill".into(),
                        input: r#"{"skill":"bob-eval-commit:commit"}"#.into(),
                    },
                    Step::ToolResult {
                        text: "Launching skill".into(),
                        error: false,
                    },
                ],
                answer: Some("fix(hooks): skip <docs> & more".into()),
            }),
            note: (!transcript).then_some(NO_TRANSCRIPT),
            graders: vec![
                GraderOutcome {
                    name: "fires".into(),
                    passed: true,
                    scored: false,
                    with_only: true,
                    weight: 1.0,
                    explanation: "Skill called 1x".into(),
                    judge_votes: vec![],
                    evidence: None,
                },
                GraderOutcome {
                    name: "why".into(),
                    passed: false,
                    scored: true,
                    with_only: false,
                    weight: 1.0,
                    explanation: "no reason given".into(),
                    judge_votes: vec![true, false, false],
                    evidence: Some("fix(hooks): skip <docs>".into()),
                },
            ],
        }
    }

    #[test]
    fn terminal_text_of_a_run_with_a_transcript() {
        insta::assert_snapshot!(text(&view(true)));
    }

    #[test]
    fn a_run_without_a_transcript_says_so_and_still_shows_its_graders() {
        let out = text(&view(false));
        assert!(out.contains(NO_TRANSCRIPT), "{out}");
        assert!(out.contains("FAIL why · judge votes 1/3 pass"), "{out}");
        assert!(!out.contains("Answer"), "{out}");
    }

    #[test]
    fn the_page_escapes_everything_it_did_not_write() {
        let page = html(&view(true));
        assert!(page.contains("skip &lt;docs&gt; &amp; more"), "{page}");
        assert!(page.contains("for &lt;this&gt; change"), "{page}");
        assert!(
            !page.contains("<docs>") && !page.contains("<this>"),
            "{page}"
        );
        assert!(
            !page.contains("<script") && !page.contains("http"),
            "{page}"
        );
    }
}
