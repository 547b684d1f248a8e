//! Progress on stderr: the [`Observer`] the commands pass to the library. On a
//! terminal a live bar per platform run in flight, named by its item (runs
//! done of total, dollars of the ceiling, the current case): one for `run`,
//! one per suite a sweep is running; in a pipe one line per finished run,
//! named by its item too. Warnings, kept folders and finished suites are
//! always one line each.

use crate::event::{Event, Observer};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// How run-level progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressStyle {
    /// A progress bar on stderr (a terminal).
    Bar,
    /// One short line per finished run on stderr (not a terminal).
    Lines,
    /// No run-level progress (warnings and finished suites still show).
    Quiet,
}

/// [`ProgressStyle::Bar`] when stderr is a terminal, else [`ProgressStyle::Lines`].
pub fn mode_for_stderr() -> ProgressStyle {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        ProgressStyle::Bar
    } else {
        ProgressStyle::Lines
    }
}

/// One platform run's display.
struct View {
    ceiling: f64,
    total: Option<u64>,
    done: u64,
    spent: f64,
    bar: Option<indicatif::ProgressBar>,
}

/// The stderr observer.
pub struct Terminal {
    mode: ProgressStyle,
    views: Mutex<HashMap<String, View>>,
    /// Draws every live bar together, so concurrent suites do not overwrite each other.
    bars: indicatif::MultiProgress,
}

impl Terminal {
    /// An observer showing run progress in `mode`.
    pub fn new(mode: ProgressStyle) -> Self {
        Terminal {
            mode,
            views: Mutex::new(HashMap::new()),
            bars: indicatif::MultiProgress::with_draw_target(
                indicatif::ProgressDrawTarget::stderr(),
            ),
        }
    }

    /// Count one finished run of `item` and show it: on the bar, or as a
    /// line whose words `words(case, "/total", done)` gives.
    fn run_done(
        &self,
        views: &mut HashMap<String, View>,
        item: &str,
        case: &str,
        cost: f64,
        words: impl Fn(&str, &str, u64) -> String,
    ) {
        let Some(view) = views.get_mut(item) else {
            return;
        };
        view.done += 1;
        view.spent += cost;
        let of = view.total.map(|t| format!("/{t}")).unwrap_or_default();
        let case = crate::text::line(case);
        match (&view.bar, self.mode) {
            (Some(bar), _) => {
                bar.set_position(view.done);
                bar.set_message(format!(
                    "${:.2} of ${:.2}  {case}",
                    view.spent, view.ceiling
                ));
            }
            (None, ProgressStyle::Lines) => eprintln!(
                "bob-eval: {item}: {}  ${:.2} of ${:.2}",
                words(&case, &of, view.done),
                view.spent,
                view.ceiling
            ),
            _ => {}
        }
    }

    /// Print a line above the live bars.
    fn say(&self, views: &HashMap<String, View>, text: String) {
        let text = crate::text::block(&text).into_owned();
        if views.values().any(|v| v.bar.is_some()) {
            // Only fails when the draw target is gone; the line then has nowhere to go.
            let _ = self.bars.println(text);
        } else {
            eprintln!("{text}");
        }
    }
}

impl Observer for Terminal {
    fn event(&self, event: &Event) {
        let mut views = self.views.lock().unwrap_or_else(|p| p.into_inner());
        match event {
            Event::Warning(warning) => self.say(&views, warning.line()),
            Event::Notice(text) => self.say(&views, format!("bob-eval: {text}")),
            Event::Printed(text) => self.say(&views, text.clone()),
            Event::Kept { dir, scratch, .. } => {
                self.say(&views, format!("bob-eval: keeping the plugin folder {dir}"));
                self.say(
                    &views,
                    format!("bob-eval: keeping the platform's temp folder {scratch} (its run sandboxes)"),
                );
            }
            Event::StoreBusy {
                item,
                keeping,
                store,
                waited,
                wait,
            } => self.say(
                &views,
                format!(
                    "bob-eval: {item}: the evidence store {store} is busy (another bob-eval is writing it): waited {} s of {} s to keep {keeping}, then it is kept beside it",
                    seconds(*waited),
                    seconds(*wait)
                ),
            ),
            Event::SuiteFinished(done) => {
                let said = match &done.outcome {
                    Ok(doc) => finished(doc),
                    Err(failure) => failure.words(),
                };
                self.say(&views, format!("{}: {said}", done.item))
            }
            Event::PlatformStarted { item, ceiling } => {
                let bar = (self.mode == ProgressStyle::Bar).then(|| {
                    let bar = self.bars.add(indicatif::ProgressBar::no_length());
                    bar.set_style(
                        indicatif::ProgressStyle::with_template(
                            "{prefix} {spinner} {elapsed} {msg}",
                        )
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
                    );
                    bar.set_prefix(item.clone());
                    bar.set_message("starting the platform");
                    bar.enable_steady_tick(Duration::from_millis(120));
                    bar
                });
                views.insert(
                    item.clone(),
                    View {
                        ceiling: *ceiling,
                        total: None,
                        done: 0,
                        spent: 0.0,
                        bar,
                    },
                );
            }
            Event::RunsPlanned { item, total } => {
                if let Some(view) = views.get_mut(item) {
                    view.total = Some(*total);
                    if let Some(bar) = &view.bar {
                        bar.set_length(*total);
                        bar.set_position(view.done);
                        if let Ok(style) = indicatif::ProgressStyle::with_template(
                            "{prefix} {bar:30} {pos}/{len} runs  {msg}  {elapsed}",
                        ) {
                            bar.set_style(style);
                        }
                    }
                }
            }
            Event::RunDone {
                item,
                case,
                which,
                arm,
                score,
                cost,
            } => self.run_done(&mut views, item, case, *cost, |case, of, done| {
                format!("run {done}{of}: {case} {which} [{arm}] score {score:.2}")
            }),
            Event::NeighbourRunDone {
                item,
                case,
                which,
                cost,
            } => self.run_done(&mut views, item, case, *cost, |case, of, done| {
                neighbour_run_words(case, which, &format!("{done}{of}"))
            }),
            Event::CeilingHit { text, .. } => {
                if self.mode != ProgressStyle::Quiet {
                    self.say(&views, format!("bob-eval: {text}"));
                }
            }
            Event::PlatformFinished { item } => {
                if let Some(bar) = views.remove(item).and_then(|v| v.bar) {
                    bar.finish_and_clear();
                    self.bars.remove(&bar);
                }
            }
        }
    }
}

/// A `--neighbours` run in words: what it measured (which loaded item the
/// prompt fires, read from the result at the end), never a score.
fn neighbour_run_words(case: &str, which: &str, count: &str) -> String {
    format!(
        "--neighbours run {count}: {case} {which} with the neighbours loaded (which item fired is read at the end)"
    )
}

/// A wait in seconds: whole from 10 s, else to a tenth.
fn seconds(d: std::time::Duration) -> String {
    let secs = d.as_secs_f64();
    if secs >= 10.0 {
        format!("{secs:.0}")
    } else {
        format!("{secs:.1}")
    }
}

/// A finished suite in one line: verdict, scores, runs and cost.
fn finished(doc: &crate::document::SkillEval) -> String {
    use crate::document::fmt_score;
    format!(
        "{}{}  with {}  without {}  delta {}  {} runs  ${:.2}",
        doc.verdict.as_str(),
        if doc.partial { " (partial)" } else { "" },
        fmt_score(doc.with),
        fmt_score(doc.without),
        fmt_score(doc.delta),
        doc.cases.iter().map(|c| c.runs).sum::<u32>(),
        doc.cost_usd
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_fails_on_events_out_of_order() {
        let t = Terminal::new(ProgressStyle::Quiet);
        t.event(&Event::RunDone {
            item: "x".into(),
            case: "c".into(),
            which: "1/1".into(),
            arm: "with".into(),
            score: 1.0,
            cost: 0.1,
        });
        t.event(&Event::PlatformFinished { item: "x".into() });
        t.event(&Event::PlatformStarted {
            item: "x".into(),
            ceiling: 1.0,
        });
        t.event(&Event::RunsPlanned {
            item: "x".into(),
            total: 2,
        });
        assert_eq!(t.views.lock().unwrap()["x"].total, Some(2));
        t.event(&Event::NeighbourRunDone {
            item: "x".into(),
            case: "quiet".into(),
            which: "1/3".into(),
            cost: 0.1,
        });
        assert_eq!(t.views.lock().unwrap()["x"].done, 1);
    }

    #[test]
    fn a_neighbour_run_says_what_it_measured_and_no_score() {
        let words = neighbour_run_words("quiet", "1/3", "2/6");
        assert_eq!(
            words,
            "--neighbours run 2/6: quiet 1/3 with the neighbours loaded (which item fired is read at the end)"
        );
        assert!(!words.contains("score"), "{words}");
    }
}
