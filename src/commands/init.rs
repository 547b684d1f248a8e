//! `bob-eval init ITEM [--bare CASE]`: write a new suite (or one blank case)
//! and print what was written and what to do next.

use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::scaffold::{self, Scaffolded};
use camino::{Utf8Path, Utf8PathBuf};
use clap::Args;
use std::fmt::Write;

/// `init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The skill, command or agent the suite is for (evals/ITEM/)
    #[arg(value_name = "ITEM")]
    pub item: String,
    /// Add one blank case named CASE to the existing suite instead
    #[arg(long, value_name = "CASE")]
    pub bare: Option<String>,
}

/// Write the suite or case, then print the files and the next steps.
pub fn exec(ctx: &Context, args: &InitArgs) -> Result<Conclusion<'static>> {
    let done = match &args.bare {
        Some(case) => scaffold::add_case(&ctx.source, &args.item, case)?,
        None => scaffold::init(&ctx.source, &args.item)?,
    };
    if done.found.is_none() {
        super::warn(&[crate::error::Warning::new(missing_item(ctx, &done))]);
    }
    super::print(&render(ctx, &done))?;
    Ok(Conclusion::Done)
}

/// The warning for a suite written before its item: the path to create, and
/// the nearest existing name when the name looks like a typo of one.
fn missing_item(ctx: &Context, done: &Scaffolded) -> String {
    let item = &done.item;
    let shown = Shown::new(&ctx.source);
    let meant = match &done.suggestion {
        Some(s) => format!(
            " (did you mean `{s}`? then remove {} and run `bob-eval init {s}`)",
            shown.path(&done.dir)
        ),
        None => String::new(),
    };
    format!(
        "no item named `{item}` in the source{meant}: the suite is written, but `run` needs the item; create {} (or commands/{item}.md, agents/{item}.md, or the same under registry/)",
        shown.path(&ctx.source.join("skills").join(item).join("SKILL.md"))
    )
}

/// The files written, where the item is (or that it is missing), the next steps.
fn render(ctx: &Context, done: &Scaffolded) -> String {
    let shown = Shown::new(&ctx.source);
    let item = &done.item;
    let mut out = String::new();
    let _ = writeln!(out, "wrote {}/:", shown.path(&done.dir));
    for file in &done.files {
        let _ = writeln!(out, "  {}", shown.path(file));
    }
    match &done.found {
        Some(found) => {
            let _ = writeln!(
                out,
                "for the {} `{item}` ({})",
                found.kind.as_str(),
                shown.path(&found.path)
            );
        }
        None => {
            let _ = writeln!(out, "for the item `{item}`, which does not exist yet");
        }
    }
    let source = shown.flag();
    let _ = writeln!(out, "\nnext steps:");
    let mut step = 0;
    let mut next = |text: String| {
        step += 1;
        let _ = writeln!(out, "  {step}. {text}");
    };
    for case in &done.to_fill {
        next(format!(
            "replace the TODO lines in {}/: the prompt (prompt.md), a regex a good response matches (graders/matches.md) and what a judge checks (graders/judge.md); `check` refuses the suite until they are filled",
            shown.path(case)
        ));
    }
    if done.dir == crate::config::suite_dir(&ctx.source, &done.item) {
        next(format!(
            "replace the TODO line in {}/fires/graders/{}.md with a regex of what the item teaches: the trigger grader beside it is with-only, and a case scored by it alone measures only that the item fired",
            shown.path(&done.dir),
            crate::scaffold::FIRES_SCORING
        ));
        next(format!(
            "make {}/fires/prompt.md a real request where the item should fire unasked (the default names it), and quiet/prompt.md one close to it where it must not",
            shown.path(&done.dir)
        ));
    }
    next(format!("bob-eval{source} check {item}"));
    next(format!(
        "bob-eval{source} run {item} --runs 1 --model haiku --max-cost-usd 0.2   # a cheap smoke run"
    ));
    out
}

/// Paths as the user reads them: relative to the current directory when inside it.
struct Shown {
    cwd: Option<Utf8PathBuf>,
    source: Utf8PathBuf,
}

impl Shown {
    fn new(source: &Utf8Path) -> Self {
        Shown {
            cwd: crate::config::current_dir().ok(),
            source: source.to_owned(),
        }
    }

    fn path(&self, path: &Utf8Path) -> Utf8PathBuf {
        let shown = match &self.cwd {
            Some(cwd) => path
                .strip_prefix(cwd)
                .map(Utf8Path::to_owned)
                .unwrap_or_else(|_| path.to_owned()),
            None => path.to_owned(),
        };
        // `--source .` gives `./evals/…`: the same path, said plainly.
        shown
            .strip_prefix(".")
            .map(Utf8Path::to_owned)
            .unwrap_or(shown)
    }

    /// ` --source DIR` unless the source is the current directory.
    fn flag(&self) -> String {
        let same = |a: &Utf8Path, b: &Utf8Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        };
        match &self.cwd {
            Some(cwd) if same(&self.source, cwd) => String::new(),
            _ => format!(
                " --source {}",
                crate::text::shell_word(self.source.as_str())
            ),
        }
    }
}
