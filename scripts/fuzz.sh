#!/usr/bin/env bash
# Coverage-guided fuzzing of the three parsers (frontmatter/YAML loader, the
# platform-document reducer, the wiki row parser) on the stable toolchain,
# each target FUZZ_SECONDS (default 10) from its corpus folder, the three side
# by side; a panic is a crash and fails the script, leaving the input in
# fuzz/artifacts/. With nightly, `cargo +nightly fuzz run <target>` works too
# (fuzz/Cargo.toml).
#
# The build is most of a short run's time, so it reuses the test build:
# - the tests' dev profile and target folder (the main one, unless
#   CARGO_TARGET_DIR moves it), so every dependency `make test` compiled is
#   reused, not compiled again (fuzz/Cargo.toml lists the main crate's
#   dev-dependencies so that both builds resolve the same features);
# - cargo-fuzz's SanitizerCoverage flags (-Cpasses and -Cllvm-args, both
#   stable) are added by scripts/fuzz-rustc.sh to bob-eval and the targets
#   alone: the coverage that guides the fuzzer is that of the code under
#   test, and no dependency changes;
# - libFuzzer itself is Debian's prebuilt, optimised libFuzzer.a when it can
#   be fetched (into .cache/libfuzzer-16/), else libfuzzer-sys compiles it.
# For a long session, optimise: FUZZ_OPT_LEVEL=3 FUZZ_DEPS_OPT_LEVEL=3
# FUZZ_SECONDS=600 make fuzz (the dependencies are then compiled once more).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fuzz"
seconds="${FUZZ_SECONDS:-10}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
# The fuzz targets (fuzz/Cargo.toml's bins), and the crates the wrapper
# instruments: they and bob-eval.
targets=(frontmatter reduce wiki_row)
export RUSTC_WRAPPER="$root/scripts/fuzz-rustc.sh"
export BOB_EVAL_FUZZ_CRATES="bob_eval ${targets[*]}"
# Debian's libFuzzer (the package holds a static library and depends on a
# clang that is not needed to link it): fetched once, unpacked aside, and
# only a whole library is moved into .cache/; never installed.
llvm=16
libfuzzer="$root/.cache/libfuzzer-$llvm/libFuzzer.a"
if [ ! -f "$libfuzzer" ] && command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null; then
  download="$(mktemp -d)"
  if (cd "$download" && apt-get download -qq "libfuzzer-$llvm-dev" && dpkg-deb -x libfuzzer-"$llvm"-dev_*.deb x) >"$download/log" 2>&1; then
    mkdir -p "$(dirname "$libfuzzer")"
    cp "$download/x/usr/lib/llvm-$llvm/lib/libFuzzer.a" "$libfuzzer.part"
    mv "$libfuzzer.part" "$libfuzzer"
  else
    why="$(tail -n 1 "$download/log")"
    echo "fuzz: Debian's libfuzzer-$llvm-dev could not be fetched (${why:-no message}): libfuzzer-sys compiles libFuzzer" >&2
  fi
  rm -rf "$download"
fi
if [ -f "$libfuzzer" ]; then
  export CUSTOM_LIBFUZZER_PATH="$libfuzzer"
fi
# bob-eval and the targets at FUZZ_OPT_LEVEL, the dependencies at
# FUZZ_DEPS_OPT_LEVEL: 0 each by default, as the test build has them.
level="${FUZZ_OPT_LEVEL:-0}"
profile=(--config "profile.dev.opt-level=$level"
  --config "profile.dev.package.bob-eval.opt-level=$level"
  --config "profile.dev.package.\"*\".opt-level=${FUZZ_DEPS_OPT_LEVEL:-0}")
cargo build --locked --quiet "${profile[@]}"
bin="$CARGO_TARGET_DIR/debug"
mkdir -p artifacts
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
  elif ! grep -q 'inline 8-bit counters' "artifacts/$t.log"; then
    # A fuzzer without coverage feedback is random input: say so, fail.
    tail -n 30 "artifacts/$t.log" >&2
    echo "fuzz target $t ran without coverage counters: bob-eval or the target was built without scripts/fuzz-rustc.sh's flags; remove that build (cargo clean --manifest-path fuzz/Cargo.toml --target-dir target -p bob-eval -p bob-eval-fuzz) and run make fuzz again" >&2
    failed=1
  fi
done
exit "$failed"
