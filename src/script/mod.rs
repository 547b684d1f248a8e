//! The Rhai script host. A Rust core exposes primitives to sandboxed Rhai
//! scripts; `pipelines/exam.rhai`, `proposer.rhai` and `sweep.rhai` (embedded in
//! the binary) compose them, so examining an item and validating a proposed edit
//! differ only by script while the gate rule stays compiled in Rust.
//!
//! - [`engine`](engine::engine) builds the one sandboxed engine (CLI, tests, benches);
//! - [`primitives`] are the registered functions scripts may call;
//! - [`types`] are the opaque values that carry authority (results, decisions).

pub mod engine;
pub mod primitives;
pub mod types;

use crate::config::Context;
use crate::error::{Error, Result, exit};
use crate::event::Observer;
use camino::Utf8PathBuf;
use rhai::Dynamic;
use std::sync::{Arc, Mutex};

pub use crate::eval::{Failure, ItemOutcome};
pub use crate::ops::{PipelineOptions, Published};
pub use engine::engine;

/// What the primitives of one script run share: where they work, the options
/// and arguments of the command line, and the library errors primitives raised.
pub struct Host {
    /// Source tree and home.
    pub ctx: Context,
    /// Parsed command-line options (`options()`).
    pub options: PipelineOptions,
    /// Raw arguments after the script (`args()`, for `bob-eval script`).
    pub args: Vec<String>,
    /// The operator script's folder, from which its imports are served.
    pub script_dir: Option<Utf8PathBuf>,
    /// Where progress and warnings of the primitives go.
    pub observer: Arc<dyn Observer>,
    /// The only folder `write_result` writes in.
    pub results_dir: Utf8PathBuf,
    /// How long the script's own work may take (time in primitives aside).
    pub time_limit: std::time::Duration,
    /// What the script handed to the command with `publish` (the last call
    /// wins); the command keeps a clone to read it once the script is done.
    pub published: Arc<Mutex<Option<Published>>>,
    /// How the command running the script is called again: what the
    /// commands a result's advice names start with (`run` for a script's own).
    pub invocation: Arc<crate::ops::next::Invocation>,
    started: std::time::Instant,
    in_primitives: Mutex<std::time::Duration>,
    failures: Mutex<Vec<Option<Error>>>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("ctx", &self.ctx)
            .field("options", &self.options)
            .field("args", &self.args)
            .field("script_dir", &self.script_dir)
            .finish_non_exhaustive()
    }
}

impl Host {
    /// A host for one script run.
    pub fn new(
        ctx: Context,
        options: PipelineOptions,
        args: Vec<String>,
        script_dir: Option<Utf8PathBuf>,
        observer: Arc<dyn Observer>,
    ) -> Self {
        Host {
            results_dir: ctx.source.join("results"),
            ctx,
            options,
            args,
            script_dir,
            observer,
            time_limit: engine::DEFAULT_TIME_LIMIT,
            published: Arc::new(Mutex::new(None)),
            invocation: Arc::new(crate::ops::next::Invocation::run()),
            started: std::time::Instant::now(),
            in_primitives: Mutex::new(std::time::Duration::ZERO),
            failures: Mutex::new(Vec::new()),
        }
    }

    /// The script's own time so far: wall time less the time spent in primitives.
    pub fn script_time(&self) -> std::time::Duration {
        let inside = *self.in_primitives.lock().unwrap_or_else(|p| p.into_inner());
        self.started.elapsed().saturating_sub(inside)
    }

    /// Run a primitive's work, its time not counted as the script's.
    pub(crate) fn timed<T>(&self, work: impl FnOnce() -> T) -> T {
        let start = std::time::Instant::now();
        let out = work();
        *self.in_primitives.lock().unwrap_or_else(|p| p.into_inner()) += start.elapsed();
        out
    }

    /// Keep a library error a primitive raised; the id travels inside the Rhai error.
    pub(crate) fn stash_failure(&self, err: Error) -> usize {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        failures.push(Some(err));
        failures.len() - 1
    }

    /// Take back the library error with this id (once).
    pub(crate) fn take_failure(&self, id: usize) -> Option<Error> {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        failures.get_mut(id).and_then(Option::take)
    }
}

/// Run the embedded pipeline `name` (`exam`, `proposer`, `sweep`) with the
/// command's `options`, progress to `observer`: its exit code and what it
/// handed over with `publish`, for the command to word.
pub fn run_embedded(
    ctx: &Context,
    name: &str,
    options: PipelineOptions,
    observer: Arc<dyn Observer>,
) -> Result<(u8, Option<Published>)> {
    let (path, text) = embedded(name)
        .ok_or_else(|| Error::Usage(format!("no embedded pipeline named `{name}`")))?;
    let invocation = crate::ops::next::Invocation::of(name, &options);
    let mut host = Host::new(ctx.clone(), options, Vec::new(), None, observer);
    host.invocation = Arc::new(invocation);
    let published = host.published.clone();
    let code = run_pipeline(host, path, text)?;
    let published = published.lock().unwrap_or_else(|p| p.into_inner()).take();
    Ok((code, published))
}

/// The embedded pipelines run with progress to an observer: the runner an
/// operation that composes a pipeline is lent ([`crate::ops::Pipelines`]).
pub struct Embedded(pub Arc<dyn Observer>);

impl crate::ops::Pipelines for Embedded {
    fn run(
        &self,
        ctx: &Context,
        name: &str,
        options: PipelineOptions,
    ) -> Result<crate::ops::Piped> {
        let (code, published) = run_embedded(ctx, name, options, self.0.clone())?;
        Ok(crate::ops::Piped { code, published })
    }
}

/// Compile and run a pipeline on a fresh engine; `Ok` holds the exit code.
///
/// `path` names the script in messages. The script's value, when an integer
/// 0..=255, is the exit code; `()` or any other value is 0.
pub fn run_pipeline(host: Host, path: &str, text: &str) -> Result<u8> {
    // Its own thread with a large stack: Rhai prints, compares and serialises
    // nested values recursively, and nesting is bounded only by the size limits.
    let path = path.to_string();
    let text = text.to_string();
    let worker = std::thread::Builder::new()
        .name("script".into())
        .stack_size(engine::SCRIPT_STACK)
        .spawn(move || {
            let host = Arc::new(host);
            let engine = engine(host.clone());
            let ast = engine::compile(&engine, &path, &text)?;
            let value = engine::run(&engine, &host, &ast)?;
            exit_code_of(&path, &value)
        })
        .map_err(|e| Error::io("<script thread>", "starting", e))?;
    worker
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The text of an embedded pipeline (`exam`, `proposer`, `sweep`): its display path and source.
pub fn embedded(name: &str) -> Option<(&'static str, &'static str)> {
    engine::EMBEDDED
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|(_, path, text)| (*path, *text))
}

fn exit_code_of(path: &str, value: &Dynamic) -> Result<u8> {
    match value.as_int() {
        Ok(code) => u8::try_from(code).map_err(|_| Error::Script {
            at: crate::error::Location::file(path),
            message: format!("the script returned {code}: an exit code must be 0..=255"),
        }),
        Err(_) => Ok(exit::OK),
    }
}
