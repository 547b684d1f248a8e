//! `bob-eval compare A B`: two evaluations of an item case by case (each a
//! document, a kept evaluation's run id, `best`, `last` or `last~N`): the
//! arms' scores with their intervals, the delta of deltas, the graders that
//! changed, the answers side by side, and whether the two are like for like
//! (`docs/compare.md`).

use crate::config::{Context, ItemName};
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::evidence::Store;
use crate::ops::compare::{Want, compare, resolve};
use camino::Utf8PathBuf;
use clap::{Args, ValueEnum};

/// How `compare` prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum CompareFormat {
    /// Text for people
    #[default]
    Human,
    /// One JSON document (the same as --json; schema bob-eval-compare/1)
    Json,
    /// GitHub-flavoured Markdown for a pull request comment
    Markdown,
}

/// `compare`.
#[derive(Debug, Args)]
#[command(after_help = "\
A and B are each: a skill-eval/1 document file; the run id of an evaluation the \
evidence store keeps (eval-<item>-<time>, as `history --json` lists them); `best`, \
the best baseline.json records for the model (its runs read from the store); \
`last`, the item's last kept evaluation; `last~N`, the one N before it. A file \
named like a keyword is ./best. `best` and `last` take the item (and `best` the \
model) from the other side, else from --item and --model.

Each case shows each arm's mean score on A and on B with its interval, the delta \
of deltas (B's delta minus A's, with a score interval over the four arms), the \
graders whose pass share changed, and each arm's answer on A and B when kept. \
Anything that makes the two not like for like (the suite's cases, the model, \
the judge model, the platform's version, the options) is named first.

Examples:
  bob-eval compare best last                      the last run against the best
  bob-eval compare last~1 last --item commit      the last change alone
  bob-eval compare old.json new.json --format markdown > comment.md
  bob-eval compare best last --html compare.html  one page, no network")]
pub struct CompareArgs {
    /// The reference: FILE, RUN-ID, best, last or last~N
    #[arg(value_name = "A")]
    pub a: String,
    /// The one compared with it: FILE, RUN-ID, best, last or last~N
    #[arg(value_name = "B")]
    pub b: String,
    /// The item of `best` and `last` when neither side is a file or run id
    #[arg(long, value_name = "ITEM")]
    pub item: Option<String>,
    /// The model of `best` and `last` [default: the other side's; for `best`
    /// alone, the only model baseline.json records]
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// The evidence store [default: $BOB_EVIDENCE, else <home>/evidence.db]
    #[arg(long, value_name = "PATH", value_parser = super::path_arg)]
    pub evidence: Option<Utf8PathBuf>,
    /// What to print on stdout
    #[arg(long, value_enum, default_value_t)]
    pub format: CompareFormat,
    /// Print the comparison as JSON (schema bob-eval-compare/1); the same as --format json
    #[arg(long)]
    pub json: bool,
    /// Also write one self-contained HTML page (atomically)
    #[arg(long, value_name = "FILE", value_parser = super::path_arg)]
    pub html: Option<Utf8PathBuf>,
}

/// Resolve both sides, compare, render.
pub fn exec(ctx: &Context, args: &CompareArgs) -> Result<Conclusion<'static>> {
    let item = args.item.as_deref().map(ItemName::new).transpose()?;
    let model = args.model.as_deref().map(crate::config::canonical_model);
    if let Some(path) = &args.html {
        crate::fsio::check_writable(path)?;
    }
    let path = Store::default_path(args.evidence.as_deref(), ctx);
    let store = if path.exists() {
        Some(Store::open_read_only(&path)?)
    } else if args.evidence.is_some() {
        Some(super::evidence::open_existing(&path)?)
    } else {
        None
    };
    let want = Want {
        ctx,
        item: item.as_ref(),
        model: model.as_deref(),
        store: store.as_ref(),
    };
    let [a, b] = resolve(&args.a, &args.b, want)?;
    let comparison = compare(&a, &b, store.as_ref());
    if let Some(file) = &args.html {
        let page = crate::report::compare::html(&comparison);
        crate::fsio::write_atomically(file, page.as_bytes())?;
        eprintln!("bob-eval: wrote {file}");
    }
    let format = if args.json {
        CompareFormat::Json
    } else {
        args.format
    };
    match format {
        CompareFormat::Json => {
            let doc = serde_json::to_value(&comparison).expect("a comparison serializes");
            crate::schema::validate_compare(&doc, "<stdout>".into())?;
            super::print(&super::json(&doc))?;
        }
        CompareFormat::Markdown => super::print(&crate::report::compare::markdown(&comparison))?,
        CompareFormat::Human => super::print(&crate::report::compare::text(&comparison))?,
    }
    Ok(Conclusion::Done)
}
