#!/usr/bin/env bash
# Run test tiers (all by default, or the cargo target arguments given, e.g.
# `--test chaos`), with cargo-nextest when it is installed: it runs the tests
# of every binary side by side, each in its own process, where `cargo test`
# runs one binary after another. Without it, `cargo test` runs the same tests.
# `make test` sets BOB_EVAL_REQUIRE_TIERS=1: a tier whose tool is missing
# fails instead of skipping (testkit/src/tier.rs). With BOB_EVAL_LINT=1 (CI
# sets it) the build is linted as it compiles (scripts/clippy.sh), and the
# benches, which no test builds, are built too: a warning fails the run, and
# `make lint`'s separate check of every crate is not needed.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo="${CARGO:-cargo}"
if [ "${BOB_EVAL_LINT:-0}" = 1 ] && [ -z "${CLIPPY_ARGS:-}" ]; then
  exec scripts/clippy.sh scripts/test.sh "$@"
fi
if [ "${BOB_EVAL_LINT:-0}" = 1 ]; then
  "$cargo" build --locked --workspace --benches --examples
fi
if [ "$#" -eq 0 ]; then
  set -- --workspace
  doc=1
else
  doc=0
fi
if "$cargo" nextest --version >/dev/null 2>&1; then
  "$cargo" nextest run --locked --no-fail-fast "$@"
  # nextest does not run doctests; cargo does.
  if [ "$doc" -eq 1 ]; then
    "$cargo" test --locked --workspace --doc
  fi
else
  echo "cargo-nextest is not installed: running the tiers with cargo test, one binary after another" >&2
  "$cargo" test --locked --no-fail-fast "$@"
fi
