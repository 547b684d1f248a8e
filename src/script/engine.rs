//! The sandboxed Rhai engine: limits, no `eval`, strict variables, imports served
//! only from the pipelines folder, `print`/`debug` on stderr, and the mapping of
//! script failures to [`Error`].

use super::Host;
use super::primitives;
use crate::error::{Error, Location};
use crate::event::Event;
use camino::{Utf8Path, Utf8PathBuf};
use rhai::packages::{Package, StandardPackage};
use rhai::{AST, Dynamic, Engine, EvalAltResult, Module, ModuleResolver, Position, Scope};
use std::sync::Arc;

/// Most operations one script may run (an endless loop ends with an error).
pub const MAX_OPERATIONS: u64 = 2_000_000;
/// Deepest script function call nesting.
pub const MAX_CALL_LEVELS: usize = 32;
/// Deepest expression nesting (global, inside functions).
pub const MAX_EXPR_DEPTHS: (usize, usize) = (64, 32);
/// Longest string, in bytes.
pub const MAX_STRING_SIZE: usize = 1 << 20;
/// Longest array.
pub const MAX_ARRAY_SIZE: usize = 10_000;
/// Largest object map.
pub const MAX_MAP_SIZE: usize = 10_000;
/// Deepest nesting of imports (a cycle is refused at once).
pub const MAX_IMPORT_DEPTH: usize = 16;
/// Deepest nesting of arrays and maps that `to_json` serialises.
pub const MAX_VALUE_DEPTH: usize = 64;
/// The stack of the thread a script runs on: deep values (nested up to the
/// array and map limits) are printed and compared recursively by Rhai.
pub const SCRIPT_STACK: usize = 1 << 30;
/// A script's own work may take this long by default (`--script-timeout`).
pub const DEFAULT_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// The pipelines compiled into the binary: import name → (display path, text).
pub const EMBEDDED: [(&str, &str, &str); 3] = [
    (
        "exam",
        "pipelines/exam.rhai",
        include_str!("../../pipelines/exam.rhai"),
    ),
    (
        "proposer",
        "pipelines/proposer.rhai",
        include_str!("../../pipelines/proposer.rhai"),
    ),
    (
        "sweep",
        "pipelines/sweep.rhai",
        include_str!("../../pipelines/sweep.rhai"),
    ),
];

/// Build the one engine every pipeline runs on (CLI, tests and benches alike):
/// the standard package, the primitives bound to `host`, and the sandbox.
pub fn engine(host: Arc<Host>) -> Engine {
    let mut engine = Engine::new_raw();
    engine.register_global_module(StandardPackage::new().as_shared_module());
    engine
        .set_max_operations(MAX_OPERATIONS)
        .set_max_call_levels(MAX_CALL_LEVELS)
        .set_max_expr_depths(MAX_EXPR_DEPTHS.0, MAX_EXPR_DEPTHS.1)
        .set_max_string_size(MAX_STRING_SIZE)
        .set_max_array_size(MAX_ARRAY_SIZE)
        .set_max_map_size(MAX_MAP_SIZE)
        .set_strict_variables(true)
        .disable_symbol("eval");
    // What a script prints goes to the front end as it is, never to a stream.
    let printed = host.observer.clone();
    engine.on_print(move |text| printed.event(&Event::Printed(text.to_string())));
    let printed = host.observer.clone();
    engine.on_debug(move |text, source, pos| {
        let text = match (source, pos.line()) {
            (Some(src), Some(line)) => format!("{src}:{line}: {text}"),
            _ => text.to_string(),
        };
        printed.event(&Event::Printed(text));
    });
    engine.set_module_resolver(PipelineResolver {
        folder: host.script_dir.clone(),
        loading: std::sync::Mutex::new(Vec::new()),
    });
    // The wall clock, for the script's own work: time spent inside primitives
    // (a platform run may take an hour) does not count.
    let clock = host.clone();
    engine.on_progress(move |ops| {
        if ops % 4096 != 0 {
            return None;
        }
        let spent = clock.script_time();
        (spent > clock.time_limit).then(|| {
            Dynamic::from(format!(
                "the script ran for more than {} s of its own work (--script-timeout)",
                clock.time_limit.as_secs_f64()
            ))
        })
    });
    primitives::register(&mut engine, host);
    engine
}

/// Compile a script and refuse it when it defines a function named like a primitive.
pub fn compile(engine: &Engine, path: &str, text: &str) -> Result<AST, Error> {
    let mut ast = engine.compile(text).map_err(|e| {
        let pos = e.position();
        script_error(path, pos, &format!("syntax error: {}", e.err_type()))
    })?;
    ast.set_source(path);
    if let Some((name, line)) = shadowed_primitive(&ast, text) {
        return Err(Error::Script {
            at: line.map_or_else(|| Location::file(path), |l| Location::at(path, l)),
            message: format!(
                "defines a function named `{name}`, which is a primitive: script functions may not replace primitives; rename it"
            ),
        });
    }
    Ok(ast)
}

/// The first function of `ast` named like a primitive, with its line in `text` when found.
fn shadowed_primitive(ast: &AST, text: &str) -> Option<(String, Option<usize>)> {
    let name = ast
        .iter_functions()
        .map(|f| f.name)
        .find(|n| primitives::names().contains(n))?;
    let pattern = regex::Regex::new(&format!(
        r"\bfn\s+(?:[A-Za-z_][A-Za-z0-9_]*\s*\.\s*)?{name}\s*\("
    ))
    .ok();
    let line = pattern
        .and_then(|re| re.find(text))
        .map(|m| text[..m.start()].matches('\n').count() + 1);
    Some((name.to_string(), line))
}

/// Run a compiled script; `Ok` holds the script's return value.
pub fn run(engine: &Engine, host: &Host, ast: &AST) -> Result<Dynamic, Error> {
    let mut scope = Scope::new();
    let main = ast.source().unwrap_or("<script>").to_string();
    engine
        .eval_ast_with_scope::<Dynamic>(&mut scope, ast)
        .map_err(|err| to_error(*err, host, &main))
}

/// Turn a script failure into the library error: the error a primitive raised when
/// that is what stopped the script, else an [`Error::Script`] at the innermost position.
pub fn to_error(err: EvalAltResult, host: &Host, main: &str) -> Error {
    let mut source = main.to_string();
    let mut err = err;
    let mut context = Vec::new();
    loop {
        match err {
            EvalAltResult::ErrorInFunctionCall(name, src, inner, _) => {
                if !src.is_empty() {
                    source = src;
                }
                context.push(format!("in function `{name}`"));
                err = *inner;
            }
            EvalAltResult::ErrorInModule(name, inner, _) => {
                if let Some(path) = module_display(host, &name) {
                    source = path;
                }
                context.push(format!("in module `{name}`"));
                err = *inner;
            }
            _ => break,
        }
    }
    if let EvalAltResult::ErrorRuntime(value, _) = &err
        && let Some(raised) = value.clone().try_cast::<primitives::Raised>()
        && let Some(lib) = host.take_failure(raised.id)
    {
        return lib;
    }
    let mut message = match &err {
        // The wall clock stopped it: say why rather than "Script terminated".
        EvalAltResult::ErrorTerminated(why, _) if why.is_string() => why.to_string(),
        EvalAltResult::ErrorDataTooLarge(what, _) => too_large(what),
        _ => err.to_string(),
    };
    if let Some(pos) = message.rfind(" (line ") {
        message.truncate(pos);
    }
    if let Some(known) = properties_hint(&message) {
        message.push_str(&known);
    }
    if !context.is_empty() {
        message = format!("{message} ({})", context.join(", "));
    }
    script_error(&source, err.position(), &message)
}

/// Rhai's "`what` too large" with the sandbox's limit it broke: Rhai counts
/// a value's strings, array elements and map entries with those of every
/// array and map inside it (a list of 3,000 maps of four keys is 12,000
/// map entries).
fn too_large(what: &str) -> String {
    let limit = if what.starts_with("Length of string") {
        format!("{MAX_STRING_SIZE} bytes of text")
    } else if what.starts_with("Size of array") {
        format!("{MAX_ARRAY_SIZE} array elements")
    } else if what.starts_with("Size of object map") {
        format!("{MAX_MAP_SIZE} map entries")
    } else {
        return format!("{what} too large");
    };
    format!(
        "{what} too large: a script's value holds at most {limit}, those of the arrays and maps inside it counted (the sandbox's limit)"
    )
}

/// For "Unknown property 'x' … for type 'T'" or "Indexer unavailable: T …" on
/// one of bob-eval's types: the properties it does have.
fn properties_hint(message: &str) -> Option<String> {
    let (_, known) = primitives::properties().iter().find(|(ty, _)| {
        message.contains(&format!("for type '{ty}'"))
            || message.contains(&format!("Indexer unavailable: {ty} "))
    })?;
    Some(format!(
        "; it has: {} (read them as `x.name`; `with` is a reserved word, so the scores are `with_score` and `without_score`)",
        known.join(", ")
    ))
}

/// An [`Error::Script`] at `pos` in `path` ("path:line: column C: message").
pub fn script_error(path: &str, pos: Position, message: &str) -> Error {
    let at = match pos.line() {
        Some(line) => Location::at(path, line),
        None => Location::file(path),
    };
    let message = match pos.position() {
        Some(col) => format!("column {col}: {message}"),
        None => message.to_string(),
    };
    Error::Script { at, message }
}

/// The display path of a module name the resolver served, if it is one.
fn module_display(host: &Host, name: &str) -> Option<String> {
    if let Some((_, path, _)) = EMBEDDED.iter().find(|(n, ..)| *n == name) {
        return Some(path.to_string());
    }
    let folder = host.script_dir.as_ref()?;
    valid_module_name(name).then(|| folder.join(format!("{name}.rhai")).to_string())
}

/// A module name the resolver accepts: `lib` or `lib/part`, lower-case letters,
/// digits, `-` and `_` only (so no `..`, no absolute path, no backslash).
pub fn valid_module_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name.split('/').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// Serves `import "name"` from the embedded pipelines and, for an operator
/// script, from the script's own folder; refuses everything else.
struct PipelineResolver {
    folder: Option<Utf8PathBuf>,
    /// The modules being loaded, outermost first: an import of one of them is a cycle.
    loading: std::sync::Mutex<Vec<String>>,
}

impl PipelineResolver {
    fn refuse(&self, path: &str, why: &str, pos: Position) -> Box<EvalAltResult> {
        let message = format!(
            "import {path:?} refused: {why}; imports are served only from the pipelines folder, by a name like \"lib\" or \"lib/part\""
        );
        EvalAltResult::ErrorRuntime(message.into(), pos).into()
    }

    fn text(&self, path: &str, pos: Position) -> Result<(String, String), Box<EvalAltResult>> {
        if let Some((_, display, text)) = EMBEDDED.iter().find(|(n, ..)| *n == path) {
            return Ok((display.to_string(), text.to_string()));
        }
        let Some(folder) = &self.folder else {
            return Err(self.refuse(path, "no such pipeline", pos));
        };
        let file = folder.join(format!("{path}.rhai"));
        let inside = |dir: &Utf8Path, f: &Utf8Path| -> bool {
            match (dir.canonicalize_utf8(), f.canonicalize_utf8()) {
                (Ok(d), Ok(f)) => f.starts_with(d),
                _ => false,
            }
        };
        if !file.is_file() {
            return Err(self.refuse(path, &format!("no file {file}"), pos));
        }
        if !inside(folder, &file) {
            return Err(self.refuse(path, &format!("{file} leads outside {folder}"), pos));
        }
        let text = crate::fsio::read_text(&file, crate::config::MAX_SUITE_FILE).map_err(
            |e| -> Box<EvalAltResult> {
                EvalAltResult::ErrorSystem(format!("{file}: reading"), Box::new(e)).into()
            },
        )?;
        Ok((file.to_string(), text))
    }
}

impl ModuleResolver for PipelineResolver {
    fn resolve(
        &self,
        engine: &Engine,
        _source: Option<&str>,
        path: &str,
        pos: Position,
    ) -> Result<rhai::Shared<Module>, Box<EvalAltResult>> {
        if !valid_module_name(path) {
            return Err(self.refuse(path, "not a pipeline name", pos));
        }
        let (display, text) = self.text(path, pos)?;
        let in_module = |e: EvalAltResult| -> Box<EvalAltResult> {
            EvalAltResult::ErrorInModule(path.to_string(), e.into(), pos).into()
        };
        {
            let mut loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
            if loading.iter().any(|m| m == path) || loading.len() >= MAX_IMPORT_DEPTH {
                let chain = loading.join(" → ");
                let why = if loading.len() >= MAX_IMPORT_DEPTH {
                    format!("imports nest deeper than {MAX_IMPORT_DEPTH} ({chain} → {path})")
                } else {
                    format!("an import cycle ({chain} → {path})")
                };
                return Err(self.refuse(path, &why, pos));
            }
            loading.push(path.to_string());
        }
        let loaded = load(engine, &display, &text, &in_module);
        self.loading.lock().unwrap_or_else(|p| p.into_inner()).pop();
        loaded
    }
}

/// Compile and run a module (its text read, its cycle checked), refusing one
/// that defines a function named like a primitive.
fn load(
    engine: &Engine,
    display: &str,
    text: &str,
    in_module: &dyn Fn(EvalAltResult) -> Box<EvalAltResult>,
) -> Result<rhai::Shared<Module>, Box<EvalAltResult>> {
    let mut ast = engine
        .compile(text)
        .map_err(|e| in_module(*Box::<EvalAltResult>::from(e)))?;
    ast.set_source(display);
    if let Some((name, line)) = shadowed_primitive(&ast, text) {
        let at = line.map_or(Position::NONE, |l| {
            Position::new(u16::try_from(l).unwrap_or(u16::MAX), 1)
        });
        let why = format!(
            "defines a function named `{name}`, which is a primitive: script functions may not replace primitives; rename it"
        );
        return Err(in_module(EvalAltResult::ErrorRuntime(why.into(), at)));
    }
    let module = Module::eval_ast_as_new(Scope::new(), &ast, engine).map_err(|e| in_module(*e))?;
    Ok(module.into())
}

#[cfg(test)]
mod tests {
    use super::super::{PipelineOptions, run_pipeline};
    use super::*;
    use crate::config::Context;
    use crate::error::exit;

    fn host(dir: Option<&Utf8Path>) -> Host {
        let ctx = Context {
            source: "/nonexistent/source".into(),
            home: "/nonexistent/home".into(),
            env: Default::default(),
        };
        Host::new(
            ctx,
            PipelineOptions::default(),
            Vec::new(),
            dir.map(Utf8Path::to_owned),
            std::sync::Arc::new(crate::event::Silent),
        )
    }

    fn run_text(text: &str) -> Result<u8, Error> {
        run_pipeline(host(None), "test.rhai", text)
    }

    fn script_err(text: &str) -> (Location, String) {
        match run_text(text) {
            Err(Error::Script { at, message }) => (at, message),
            other => panic!("expected a script error, got {other:?}"),
        }
    }

    #[test]
    fn return_value_is_the_exit_code() {
        assert_eq!(run_text("7").unwrap(), 7);
        assert_eq!(run_text("let x = 1;").unwrap(), 0);
        assert_eq!(run_text("\"done\"").unwrap(), 0);
        let (_, msg) = script_err("256");
        assert!(msg.contains("0..=255"), "{msg}");
    }

    #[test]
    fn endless_loop_ends_with_an_error() {
        let (at, msg) = script_err("let x = 0;\nloop { x += 1; }");
        assert!(msg.contains("Too many operations"), "{msg}");
        assert_eq!(at.path, "test.rhai");
    }

    #[test]
    fn limits_on_strings_arrays_maps_and_depth() {
        let (at, msg) = script_err("let s = \"xxxxxxxxxxxxxxxx\";\nfor i in 0..30 { s += s; }");
        assert!(msg.contains("Length of string too large"), "{msg}");
        assert!(
            msg.contains(&format!("at most {MAX_STRING_SIZE} bytes")),
            "{msg}"
        );
        assert_eq!(at.line, Some(2));
        let (_, msg) = script_err("let a = [];\nloop { a.push(1); }");
        assert!(msg.contains("Size of array/BLOB too large"), "{msg}");
        assert!(
            msg.contains(&format!("at most {MAX_ARRAY_SIZE} array elements")),
            "{msg}"
        );
        let (_, msg) = script_err("let m = #{};\nfor i in 0..20000 { m[`k${i}`] = i; }\nm.len()");
        assert!(msg.contains("Size of object map too large"), "{msg}");
        assert!(
            msg.contains(&format!("at most {MAX_MAP_SIZE} map entries")),
            "{msg}"
        );
        // Counted through arrays: 3,000 maps of four keys are 12,000 entries.
        let (_, msg) =
            script_err("let a = [];\nfor i in 0..3000 { a.push(#{a: 1, b: 2, c: 3, d: 4}); }");
        assert!(
            msg.contains(&format!("at most {MAX_MAP_SIZE} map entries")),
            "{msg}"
        );
        let (_, msg) = script_err("fn f(n) { f(n + 1) }\nf(0)");
        assert!(
            msg.contains("Stack overflow") || msg.contains("call"),
            "{msg}"
        );
        let deep = format!("let x = {}1{};", "(".repeat(200), ")".repeat(200));
        let (_, msg) = script_err(&deep);
        assert!(
            msg.contains("too complex") || msg.contains("Expression"),
            "{msg}"
        );
    }

    #[test]
    fn errors_name_path_line_and_column() {
        let (at, msg) = script_err("let a = 1;\nlet b = ;\n");
        assert_eq!((at.path.as_str(), at.line), ("test.rhai", Some(2)));
        assert!(msg.starts_with("column 9: syntax error"), "{msg}");
        let (at, msg) = script_err("let a = 1;\n\n  a + undefined_thing\n");
        assert_eq!(at.line, Some(3), "{msg}");
        assert!(
            msg.contains("undefined_thing") && msg.contains("column"),
            "{msg}"
        );
        let (at, msg) = script_err("fn f(x) {\n  x.no_such_method()\n}\nf(1)");
        assert_eq!(at.line, Some(2), "{msg}");
        assert!(msg.contains("in function `f`"), "{msg}");
    }

    #[test]
    fn eval_is_disabled() {
        let (at, msg) = script_err("let x = 1;\neval(\"x + 1\")");
        assert_eq!(at.line, Some(2), "{msg}");
    }

    #[test]
    fn a_function_named_like_a_primitive_is_refused() {
        for name in ["gate", "record", "evaluate", "env"] {
            let (at, msg) = script_err(&format!("let x = 1;\n\nfn {name}(r) {{ r }}\nx"));
            assert_eq!(at.line, Some(3), "{msg}");
            assert!(
                msg.contains(&format!("`{name}`")) && msg.contains("primitive"),
                "{msg}"
            );
        }
        assert_eq!(run_text("fn gated(r) { r }\ngated(3)").unwrap(), 3);
    }

    #[test]
    fn env_reads_only_evals_variables() {
        let (at, msg) = script_err("let a = 1;\nenv(\"HOME\")");
        assert_eq!(at.line, Some(2));
        assert!(msg.contains("EVALS"), "{msg}");
        assert_eq!(
            run_text("if env(\"EVALS_SURELY_UNSET_X\") == () { 4 } else { 5 }").unwrap(),
            4
        );
    }

    #[test]
    fn library_errors_keep_their_exit_code_even_when_rethrown() {
        let mut h = host(None);
        h.options.problem = Some("unexpected argument".into());
        let err = run_pipeline(h, "t.rhai", "options()").unwrap_err();
        assert!(matches!(err, Error::Usage(_)), "{err:?}");
        let mut h = host(None);
        h.options.problem = Some("x".into());
        let code = run_pipeline(
            h,
            "t.rhai",
            "let c = 0;\ntry { options(); } catch (e) { c = e.exit_code + 10; }\nc",
        )
        .unwrap();
        assert_eq!(code, 12);
        let mut h = host(None);
        h.options.problem = Some("x".into());
        let err =
            run_pipeline(h, "t.rhai", "try { options() } catch (e) { throw e; }").unwrap_err();
        assert!(matches!(err, Error::Usage(_)), "{err:?}");
    }

    #[test]
    fn imports_only_from_the_pipelines_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let folder = root.join("pipelines");
        std::fs::create_dir_all(folder.join("lib")).unwrap();
        std::fs::write(folder.join("helpers.rhai"), "fn twice(x) { x * 2 }").unwrap();
        std::fs::write(folder.join("lib/more.rhai"), "fn three() { 3 }").unwrap();
        std::fs::write(root.join("outside.rhai"), "fn twice(x) { 0 }").unwrap();
        std::fs::write(folder.join("bad.rhai"), "fn record(a, b, c, d) { 0 }").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("outside.rhai"), folder.join("link.rhai")).unwrap();
        let run = |text: &str| run_pipeline(host(Some(&folder)), "main.rhai", text);
        assert_eq!(
            run("import \"helpers\" as h;\nimport \"lib/more\" as m;\nh::twice(m::three())")
                .unwrap(),
            6
        );
        for bad in [
            "../outside",
            "/etc/passwd",
            "lib/../helpers",
            "link",
            "nope",
            "lib\\\\more",
            "",
        ] {
            let err = run(&format!("import \"{bad}\" as h;\n0")).unwrap_err();
            assert!(matches!(err, Error::Script { .. }), "{bad}: {err:?}");
        }
        let err = run("import \"bad\" as b;\n0").unwrap_err().to_string();
        assert!(
            err.contains("`record`") && err.contains("bad.rhai"),
            "{err}"
        );
        let err = run_pipeline(host(None), "main.rhai", "import \"helpers\" as h;\n0").unwrap_err();
        assert!(err.to_string().contains("no such pipeline"), "{err}");
        assert_eq!(err.exit_code(), exit::USAGE);
    }

    #[test]
    fn embedded_pipelines_compile() {
        let host = Arc::new(host(None));
        let engine = engine(host);
        for (_, path, text) in EMBEDDED {
            compile(&engine, path, text).unwrap();
        }
    }

    #[test]
    fn deep_values_print_and_compare_without_overflowing() {
        let code = run_text(
            "let a = [];\nfor i in 0..3000 { a = [a]; }\nlet same = a == a;\nlet text = `${a}`;\nif same && text.len() == 6002 { 0 } else { 1 }",
        );
        assert_eq!(code.unwrap(), 0);
    }

    #[test]
    fn an_import_cycle_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        std::fs::write(root.join("a.rhai"), "import \"b\" as b;\n").unwrap();
        std::fs::write(root.join("b.rhai"), "import \"a\" as a;\n").unwrap();
        let err = run_pipeline(host(Some(root)), "main.rhai", "import \"a\" as a;\n0").unwrap_err();
        assert!(
            err.to_string().contains("import cycle (a → b → a)"),
            "{err}"
        );
    }

    #[test]
    fn to_json_refuses_values_nested_too_deep() {
        let (_, message) = script_err("let a = [];\nfor i in 0..100 { a = [a]; }\nto_json(a)");
        assert!(message.contains("nests deeper than 64"), "{message}");
        assert_eq!(
            run_text("let a = [];\nfor i in 0..60 { a = [a]; }\nto_json(a); 0").unwrap(),
            0
        );
    }

    #[test]
    fn the_wall_clock_stops_runaway_work() {
        let mut h = host(None);
        h.time_limit = std::time::Duration::from_millis(300);
        let started = std::time::Instant::now();
        let err = run_pipeline(
            h,
            "slow.rhai",
            "let s = \"\";\nloop { s += \"x\"; if s.len() > 100000 { s = \"\"; } }",
        )
        .unwrap_err();
        assert!(err.to_string().contains("--script-timeout"), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
    }

    #[test]
    fn every_listed_property_has_a_getter_and_others_are_errors_that_list_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/pipelines/aggregate-result.json"
        );
        let prelude = format!(
            "let r = evaluate(\"commit\", #{{ platform_result: \"{fixture}\" }});\nlet c = r.cases[0];\nlet d = gate(r);\nlet w = evaluate_all([\"commit\"], #{{ platform_result: \"{fixture}\" }}, 1)[0];\nlet e = ();\ntry {{ load_result(\"/nonexistent/r.json\"); }} catch (err) {{ e = err; }}\n"
        );
        let fixture_host = || {
            let mut h = host(None);
            h.ctx.source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/real-source").into();
            h.ctx.home = root.to_owned();
            h
        };
        // Build an engine first: the properties are named by their registration.
        let _ = run_pipeline(fixture_host(), "t.rhai", "0");
        let listed = primitives::properties();
        for ty in ["EvalResult", "Case", "GateDecision", "Row", "Error"] {
            assert!(
                listed
                    .iter()
                    .any(|(t, props)| *t == ty && !props.is_empty()),
                "{ty} has properties: {listed:?}"
            );
        }
        for (ty, props) in listed {
            let var = match *ty {
                "EvalResult" => "r",
                "Case" => "c",
                "GateDecision" => "d",
                "Row" => "w",
                "Error" => "e",
                // Plugin and PlatformOutput are read in the pipelines' own tests.
                _ => continue,
            };
            // Each reads as a script value: a type Rhai names by its Rust
            // path (`bob_eval::…`) was never registered and prints as its path.
            let reads: String = props
                .iter()
                .map(|p| {
                    format!(
                        "let _{p} = {var}.{p};\nif type_of(_{p}).contains(\"::\") {{ throw \"{ty}.{p} is \" + type_of(_{p}); }}\n"
                    )
                })
                .collect();
            let code = run_pipeline(fixture_host(), "t.rhai", &format!("{prelude}{reads}0"));
            assert_eq!(code.unwrap(), 0, "{ty}");
            for bad in [format!("{var}.withh"), format!("{var}[\"with\"]")] {
                let err = run_pipeline(
                    fixture_host(),
                    "t.rhai",
                    &format!("{prelude}let x = {bad};\n0"),
                )
                .unwrap_err();
                assert!(
                    err.to_string()
                        .contains(&format!("it has: {}", props.join(", "))),
                    "{bad}: {err}"
                );
            }
        }
    }

    #[test]
    fn intervals_and_advisories_are_read_only_copies() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8Path::from_path(dir.path()).unwrap();
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/pipelines/aggregate-result.json"
        );
        let mut h = host(None);
        h.ctx.source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/real-source").into();
        h.ctx.home = root.to_owned();
        // Exit 0 only when every read holds; each failed check has its own code.
        let script = format!(
            r#"let r = evaluate("commit", #{{ platform_result: "{fixture}" }});
let d = gate(r);
let s = r.stats;
if s.confidence != 0.95 {{ return 1; }}
let i = s.suite.delta.interval;
if !(i.low <= r.delta && r.delta <= i.high) {{ return 2; }}
if r.cases[0].stats.runs_with < 1 {{ return 3; }}
if type_of(d.advisories.helps) != "map" {{ return 4; }}
s.confidence = 0.5;
if r.stats.confidence != 0.95 {{ return 5; }}
0"#
        );
        assert_eq!(run_pipeline(h, "t.rhai", &script).unwrap(), 0);
    }
}
