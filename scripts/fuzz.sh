#!/usr/bin/env bash
# Coverage-guided fuzzing of the three parsers (frontmatter/YAML loader, the
# platform-document reducer, the wiki row parser) on the stable toolchain:
# cargo-fuzz's own instrumentation flags (SanitizerCoverage through -Cpasses and
# -Cllvm-args, both stable) without a sanitizer, which Rust's safety makes
# optional. Each target runs FUZZ_SECONDS (default 10) from its corpus folder;
# a panic is a crash and fails the script, leaving the input in fuzz/artifacts/.
# With nightly, `cargo +nightly fuzz run <target>` works too (fuzz/Cargo.toml).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${FUZZ_SECONDS:-10}"
target="$(rustc -vV | sed -n 's/^host: //p')"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
# A short run gains little from full optimisation, and the build is most of
# its time: bob-eval and the targets build at FUZZ_OPT_LEVEL (default 1), the
# other dependencies at FUZZ_DEPS_OPT_LEVEL (default 0; the hot ones are
# pinned higher in fuzz/Cargo.toml), without debug info. For a long session:
# FUZZ_OPT_LEVEL=3 FUZZ_DEPS_OPT_LEVEL=3.
level="${FUZZ_OPT_LEVEL:-1}"
export CARGO_PROFILE_RELEASE_OPT_LEVEL="$level"
export CARGO_PROFILE_RELEASE_DEBUG=0
profile=(--config "profile.release.package.bob-eval.opt-level=$level"
  --config "profile.release.package.\"*\".opt-level=${FUZZ_DEPS_OPT_LEVEL:-0}")
# --target keeps the flags off build scripts and proc-macros, as cargo-fuzz does.
cargo build --locked --release --quiet --target "$target" "${profile[@]}"
# The fuzz crate's own target folder unless CARGO_TARGET_DIR moves it.
bin="${CARGO_TARGET_DIR:-target}/$target/release"
mkdir -p artifacts
# The targets fuzz side by side (libFuzzer is single-threaded), each for
# FUZZ_SECONDS of wall time; then each one's outcome is read in turn.
targets=(frontmatter reduce wiki_row)
declare -A pids
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  echo "fuzz $t for ${seconds}s"
  "$bin/$t" "corpus/$t" -max_total_time="$seconds" \
    -artifact_prefix="artifacts/$t-" >"artifacts/$t.log" 2>&1 &
  pids[$t]=$!
done
failed=0
for t in "${targets[@]}"; do
  set +e
  wait "${pids[$t]}"
  status=$?
  set -e
  grep -E 'DONE|panicked|SUMMARY' "artifacts/$t.log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 30 "artifacts/$t.log" >&2
    echo "fuzz target $t failed (exit $status); the input is in fuzz/artifacts/" >&2
    failed=1
  fi
done
exit "$failed"
