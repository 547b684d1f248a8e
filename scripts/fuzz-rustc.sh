#!/usr/bin/env bash
# The rustc wrapper of scripts/fuzz.sh (RUSTC_WRAPPER): cargo-fuzz's
# SanitizerCoverage flags, with `--cfg fuzzing`, debug assertions and
# overflow checks, for the crates under test alone (BOB_EVAL_FUZZ_CRATES,
# which scripts/fuzz.sh sets: bob-eval and the fuzz targets); every other
# crate is compiled as the test build compiles it, so the fuzz build reuses
# what the test build left. Cargo does not see these flags: after changing
# them, remove the fuzz build of bob-eval and the targets (the command
# scripts/fuzz.sh prints for a build without them).
set -euo pipefail
rustc="$1"
shift
name=""
prev=""
for arg in "$@"; do
  if [ "$prev" = "--crate-name" ]; then
    name="$arg"
    break
  fi
  prev="$arg"
done
for crate in ${BOB_EVAL_FUZZ_CRATES:-}; do
  if [ "$crate" = "$name" ]; then
    exec "$rustc" "$@" -Cpasses=sancov-module \
      -Cllvm-args=-sanitizer-coverage-level=4 \
      -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
      -Cllvm-args=-sanitizer-coverage-pc-table \
      -Cllvm-args=-sanitizer-coverage-trace-compares \
      --cfg fuzzing -Cdebug-assertions -Coverflow-checks
  fi
done
exec "$rustc" "$@"
