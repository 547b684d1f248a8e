//! The primitives: the Rust functions a pipeline may call. They are the only way
//! a script reaches files, processes or the network. Library errors they raise
//! travel through the script as an opaque `Error` value and, when they stop it,
//! become the command's error (and exit code) unchanged.

use super::types::{
    CaseResult, EstimateHandle, EvalResult, GateDecision, Options, OutcomeRow, PluginHandle,
    RunHandle, cases, opt_f64,
};
use super::{Failure, Host, ItemOutcome, PipelineOptions, Published};
use crate::error::Error;
use crate::eval::{self, EvalOptions};
use camino::Utf8PathBuf;
use rhai::{Array, Dynamic, Engine, EvalAltResult, ImmutableString, Map, Position};
use std::io::Write;
use std::sync::{Arc, Mutex};

mod confined;
pub use confined::results_path;
use confined::{confined, create_inside};
mod library;
mod methods;
pub use methods::properties;
use methods::register_types;
mod options;
use options::{KEYS, property, set, shown};
#[cfg(test)]
use options::{eval_keys, set_key};
pub use options::{eval_options, format_of};
mod publish;
use publish::register_publish;
mod values;
pub use values::to_value;
use values::{
    ROW_KEYS, choice, gate_again, gate_at, options_value, row_property, status_str, strings,
    to_dynamic,
};
#[cfg(test)]
mod tests;

/// The names of the primitives, in the order registered; a script defining a
/// function with one of these names is refused. Filled by [`register`] from the
/// registration itself, so no second list can forget one.
static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();

/// The primitives' names ([`NAMES`]); empty until an engine was built.
pub fn names() -> &'static [&'static str] {
    NAMES.get().map_or(&[], Vec::as_slice)
}

/// An engine being given its primitives: each is registered and named at once.
pub(super) struct Api<'e> {
    engine: &'e mut Engine,
    names: Vec<&'static str>,
}

impl Api<'_> {
    /// Register `func` as the primitive `name` (one more overload when the name is known).
    pub(super) fn primitive<A: 'static, const N: usize, const X: bool, R, const F: bool>(
        &mut self,
        name: &'static str,
        func: impl rhai::RhaiNativeFunc<A, N, X, R, F> + Send + Sync + 'static,
    ) -> &mut Self
    where
        R: std::any::Any + Clone + Send + Sync,
    {
        if !self.names.contains(&name) {
            self.names.push(name);
        }
        self.engine.register_fn(name, func);
        self
    }
}

type RResult<T> = Result<T, Box<EvalAltResult>>;

/// A library error raised by a primitive, as scripts see it (`Error`): `message`
/// and `exit_code`; the error itself stays in the host.
#[derive(Debug, Clone)]
pub struct Raised {
    /// Index of the stashed error in the host.
    pub id: usize,
    /// Its message.
    pub message: String,
    /// Its exit code.
    pub exit_code: u8,
}

fn raise(host: &Host, err: Error) -> Box<EvalAltResult> {
    let message = err.to_string();
    let exit_code = err.exit_code();
    let id = host.stash_failure(err);
    EvalAltResult::ErrorRuntime(
        Dynamic::from(Raised {
            id,
            message,
            exit_code,
        }),
        Position::NONE,
    )
    .into()
}

/// A script mistake (wrong key, wrong value): reported at the calling line, exit 2.
fn misuse(message: impl Into<String>) -> Box<EvalAltResult> {
    EvalAltResult::ErrorRuntime(message.into().into(), Position::NONE).into()
}

fn opt_str(s: &Option<String>) -> Dynamic {
    s.as_ref().map_or(Dynamic::UNIT, |s| s.clone().into())
}

fn opt_int(n: Option<u32>) -> Dynamic {
    n.map_or(Dynamic::UNIT, |n| Dynamic::from_int(i64::from(n)))
}

/// Register the opaque types and every primitive on `engine`, bound to
/// `host`, one domain at a time.
pub fn register(engine: &mut Engine, host: Arc<Host>) {
    register_types(engine);
    let mut api = Api {
        engine,
        names: Vec::new(),
    };
    let api = &mut api;
    register_command_line(api, &host);
    register_text(api);
    register_publish(api, &host);
    library::register_steps(api, &host);
    library::register_gate(api, &host);
    library::register_tree(api, &host);
    NAMES.get_or_init(|| api.names.clone());
}

/// What the pipeline was started with: `options()` (an [`Options`]),
/// `option(name)`, `args()`, and the `EVALS*` variables (`env(name)`).
fn register_command_line(api: &mut Api, host: &Arc<Host>) {
    let h = host.clone();
    api.primitive("options", move || -> RResult<Options> {
        match &h.options.problem {
            Some(problem) => Err(raise(
                &h,
                Error::Usage(format!("pipeline arguments: {problem}")),
            )),
            None => Ok(Options::of(&h.options, &h.results_dir)),
        }
    });
    let h = host.clone();
    api.primitive("option", move |name: &str| -> Dynamic {
        property(&Options::of(&h.options, &h.results_dir), name).unwrap_or(Dynamic::UNIT)
    });
    let h = host.clone();
    api.primitive("args", move || -> Array {
        h.args.iter().map(|a| Dynamic::from(a.clone())).collect()
    });
    let h = host.clone();
    api.primitive("env", move |name: &str| -> RResult<Dynamic> {
        if name != "EVALS" && !name.starts_with("EVALS_") {
            return Err(misuse(format!(
                "env({name:?}): scripts may read only EVALS and EVALS_* variables"
            )));
        }
        Ok(h.ctx.env.var(name).map_or(Dynamic::UNIT, Into::into))
    });
}

/// Words and numbers for output: `to_json`, `output`, `table`, `fixed`.
fn register_text(api: &mut Api) {
    fn json(v: &Dynamic) -> RResult<String> {
        let value = to_value(v).map_err(misuse)?;
        let text =
            serde_json::to_string_pretty(&value).map_err(|e| misuse(format!("to_json: {e}")))?;
        if text.len() > super::engine::MAX_STRING_SIZE {
            return Err(misuse(format!(
                "to_json: the JSON would be {} bytes, more than a string may hold ({})",
                text.len(),
                super::engine::MAX_STRING_SIZE
            )));
        }
        Ok(text)
    }
    // Maps and arrays too: the standard package's own `to_json(map)` would
    // otherwise win for them and cannot see inside opaque values.
    api.primitive("to_json", |v: Dynamic| json(&v));
    api.primitive("to_json", |v: Map| json(&v.into()));
    api.primitive("to_json", |v: Array| json(&v.into()));
    api.primitive("output", |text: &str| {
        // Names and explanations in it may come from imported runs.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", crate::text::block(text));
    });
    api.primitive("table", |headers: Array, rows: Array| -> RResult<String> {
        let headers = strings(&headers, "table headers")?;
        let rows = rows
            .iter()
            .map(|r| {
                let r = r
                    .clone()
                    .try_cast::<Array>()
                    .ok_or_else(|| misuse("table rows must be arrays"))?;
                Ok(r.iter()
                    .map(|c| {
                        if c.is_unit() {
                            "—".to_string()
                        } else {
                            c.to_string()
                        }
                    })
                    .collect())
            })
            .collect::<RResult<Vec<Vec<String>>>>()?;
        Ok(crate::text::table(&headers, &rows))
    });
    api.primitive("fixed", |x: f64, decimals: i64| -> String {
        format!("{x:.*}", decimals.clamp(0, 12) as usize)
    });
    api.primitive("fixed", |x: i64, decimals: i64| -> String {
        format!("{:.*}", decimals.clamp(0, 12) as usize, x as f64)
    });
    api.primitive("fixed", |_: (), _: i64| -> String { "—".into() });
}
