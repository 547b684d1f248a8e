//! Forgeries and escapes a pipeline must not get away with. Each runs through
//! `bob-eval script FILE` on a copy of the fixture source, with results made
//! from a recorded platform document (`platform_result`: no platform, no cost),
//! and checks that the script fails (exit 2, at the script's line) and that
//! nothing was recorded.

use crate::support;

use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::World;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/pipelines/aggregate-result.json"
);

/// A copy of the real tier's fixture source with a wiki page, a `pipelines/`
/// folder and a script outside it (`secret.rhai`) beside the source.
fn sandbox() -> World {
    let sb = World::copy_of(&data("real-source"), Switches::default());
    sb.write("wiki/patterns/p.md", "# P\n");
    std::fs::create_dir_all(sb.root.join("pipelines")).unwrap();
    std::fs::write(sb.root.join("secret.rhai"), "fn gate_ok() { true }\n").unwrap();
    sb
}

/// What these tests do in a sandbox world.
trait Sandbox {
    fn run(&self, text: &str) -> std::process::Output;
    fn nothing_recorded(&self);
}

impl Sandbox for World {
    /// Run `text` as `pipelines/main.rhai`, after a prelude binding `r` to a
    /// result. There is no platform (`bob` names none, and the world's stub
    /// is not given), so only `platform_result` evaluations work.
    fn run(&self, text: &str) -> std::process::Output {
        let prelude =
            format!("let r = evaluate(\"commit\", #{{ platform_result: {FIXTURE:?} }});\n");
        let file = self.root.join("pipelines/main.rhai");
        std::fs::write(&file, format!("{prelude}{text}\n")).unwrap();
        bob(&self.source, &self.home())
            .current_dir(&self.root)
            .args(["script", "pipelines/main.rhai"])
            .output()
            .unwrap()
    }

    fn nothing_recorded(&self) {
        assert!(
            !self.source.join("wiki/skill-impact.md").exists(),
            "a wiki row was written"
        );
        let baseline =
            std::fs::read_to_string(self.source.join("evals/commit/baseline.json")).unwrap();
        let original =
            std::fs::read_to_string(data("real-source/evals/commit/baseline.json")).unwrap();
        assert_eq!(baseline, original, "the baseline changed");
    }
}

/// The script must fail with exit 2, naming `pipelines/main.rhai:<line>` and `needle`.
#[track_caller]
fn refused(sb: &World, text: &str, line: usize, needle: &str) {
    let out = sb.run(text);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{text}\n{err}");
    assert!(
        err.contains(&format!("pipelines/main.rhai:{line}:")),
        "{text}\n{err}"
    );
    assert!(
        err.to_lowercase().contains(&needle.to_lowercase()),
        "{text}\nwanted {needle:?} in\n{err}"
    );
    sb.nothing_recorded();
}

#[test]
fn the_honest_path_records() {
    let sb = sandbox();
    // The bare rule, chosen: the sandbox's result is a few runs, which the
    // default mode of a decision that records would refuse.
    let out = sb.run("let d = record(r, gate(r, #{ rule: \"bare\" }), \"#1\", [\"p\"]);\nif d.accepted { 0 } else { 1 }");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(sb.source.join("wiki/skill-impact.md").exists());
}

#[test]
fn defining_a_function_named_like_a_primitive_is_refused_at_load() {
    let sb = sandbox();
    refused(
        &sb,
        "fn gate(x) { #{ accepted: true } }\nrecord(r, gate(r), \"#1\", [\"p\"]);",
        2,
        "primitive",
    );
    refused(&sb, "\nfn record(a, b, c, d) { () }", 3, "`record`");
}

#[test]
fn a_decision_map_is_not_a_decision() {
    let sb = sandbox();
    let forged = "let d = #{ accepted: true, reasons: [], conditions: [], best: () };\nrecord(r, d, \"#1\", [\"p\"]);";
    refused(&sb, forged, 3, "function not found");
}

#[test]
fn a_map_is_not_a_result() {
    let sb = sandbox();
    let d = "let d = gate(r);\nlet fake = #{ item: \"commit\", \"with\": 1.0, without: 0.0, partial: false };\nrecord(fake, d, \"#1\", [\"p\"]);";
    refused(&sb, d, 4, "function not found");
}

#[test]
fn getters_cannot_be_set() {
    let sb = sandbox();
    refused(&sb, "let d = gate(r);\nd.accepted = true;", 3, "accepted");
    refused(&sb, "r.partial = false;", 2, "partial");
    refused(&sb, "let d = gate(r);\nd[\"accepted\"] = true;", 3, "");
}

#[test]
fn a_decision_for_another_result_is_refused() {
    let sb = sandbox();
    let other = format!(
        "let r2 = evaluate(\"commit\", #{{ platform_result: {FIXTURE:?} }});\nlet d = gate(r2);\nrecord(r, d, \"#1\", [\"p\"]);"
    );
    refused(&sb, &other, 4, "not made by `gate` for this result");
}

#[test]
fn there_is_no_constructor() {
    let sb = sandbox();
    refused(&sb, "let d = GateDecision();", 2, "function not found");
    refused(&sb, "let x = new_eval_result();", 2, "function not found");
}

#[test]
fn an_endless_loop_ends_with_an_error() {
    let sb = sandbox();
    refused(
        &sb,
        "let i = 0;\nloop { i += 1; }",
        3,
        "too many operations",
    );
}

#[test]
fn a_huge_string_is_refused() {
    let sb = sandbox();
    refused(
        &sb,
        "let s = \"0123456789abcdef\";\nfor i in 0..40 { s += s; }",
        3,
        "string too large",
    );
}

#[test]
fn imports_cannot_leave_the_pipelines_folder() {
    let sb = sandbox();
    refused(&sb, "import \"../secret\" as s;", 2, "refused");
    refused(
        &sb,
        &format!("import {:?} as s;", sb.root.join("secret").display()),
        2,
        "refused",
    );
    refused(&sb, "import \"/etc/passwd\" as s;", 2, "refused");
    std::fs::write(
        sb.root.join("pipelines/helper.rhai"),
        "fn twice(x) { x * 2 }",
    )
    .unwrap();
    let out = sb.run("import \"helper\" as h;\nh::twice(21) - 42");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn no_file_process_or_environment_access() {
    let sb = sandbox();
    refused(
        &sb,
        "let t = read_file(\"/etc/passwd\");",
        2,
        "function not found",
    );
    refused(
        &sb,
        "let t = open(\"/etc/passwd\");",
        2,
        "function not found",
    );
    refused(&sb, "let t = system(\"id\");", 2, "function not found");
    refused(&sb, "let h = env(\"HOME\");", 2, "EVALS");
}

/// `load_baseline` takes an item name, not a path: `../` cannot reach (or probe
/// for) a `baseline.json` outside `evals/`.
#[test]
fn load_baseline_cannot_leave_the_evals_folder() {
    let sb = sandbox();
    std::fs::create_dir_all(sb.root.join("elsewhere")).unwrap();
    std::fs::write(sb.root.join("elsewhere/baseline.json"), "{ not json").unwrap();
    for item in ["../../elsewhere", "../../nowhere"] {
        let out = sb.run(&format!("let b = load_baseline({item:?});\n0"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{item}: {err}");
        assert!(err.contains("invalid item name"), "{item}: {err}");
        assert!(!err.contains("elsewhere/baseline.json"), "{item}: {err}");
    }
}

#[test]
fn eval_is_disabled() {
    let sb = sandbox();
    refused(&sb, "eval(\"record(r, #{}, \\\"#1\\\", [])\");", 2, "");
}

#[test]
fn a_library_error_keeps_its_exit_code() {
    let sb = sandbox();
    let out = sb.run("let x = evaluate(\"commit\", #{ runs: 1 });");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("platform is missing"));
    let out = sb.run("17");
    assert_eq!(out.status.code(), Some(17));
}
