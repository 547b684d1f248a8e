//! The fuzz build reuses what the test build compiled only while both
//! resolve their shared dependencies with the same features
//! (scripts/fuzz.sh): fuzz/Cargo.toml lists the main crate's
//! dev-dependencies, and the test build asks for cc's `parallel`, which
//! libfuzzer-sys turns on in the fuzz build.

/// The lines of `section` (`[dev-dependencies]`, …) in `manifest`, up to
/// the next section.
fn section<'a>(manifest: &'a str, section: &str) -> Vec<&'a str> {
    manifest
        .lines()
        .skip_while(|l| l.trim() != section)
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .collect()
}

/// The dependency names of `section` in `manifest`.
fn names(manifest: &str, name: &str) -> Vec<String> {
    section(manifest, name)
        .into_iter()
        .filter_map(|l| l.split_once('=').map(|(name, _)| name.trim()))
        .filter(|name| !name.is_empty() && !name.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

#[test]
fn the_fuzz_crate_lists_every_dev_dependency_of_the_main_crate() {
    let dev = names(&read("Cargo.toml"), "[dev-dependencies]");
    assert!(dev.contains(&"insta".to_string()), "{dev:?}");
    let fuzz = names(&read("fuzz/Cargo.toml"), "[dependencies]");
    let missing: Vec<&String> = dev.iter().filter(|d| !fuzz.contains(d)).collect();
    assert!(
        missing.is_empty(),
        "fuzz/Cargo.toml lacks {missing:?}: the fuzz build would compile again what the test build did"
    );
}

#[test]
fn the_test_build_asks_for_cc_s_parallel_as_libfuzzer_sys_does() {
    assert!(names(&read("fuzz/Cargo.toml"), "[dependencies]").contains(&"libfuzzer-sys".into()));
    let build = read("testkit/Cargo.toml");
    assert!(
        section(&build, "[build-dependencies]")
            .iter()
            .any(|l| l.starts_with("cc ") && l.contains("\"parallel\"")),
        "testkit/Cargo.toml: {build}"
    );
}
