#!/usr/bin/env bash
# Run a cargo command with clippy as the compiler of this workspace's own
# crates and every warning, rustc's and clippy's, an error: what `cargo
# clippy` does for `cargo check`, for any cargo command. So the lint rule is
# written once, here:
# - `scripts/clippy.sh cargo check --workspace --all-targets` is `make
#   lint`'s clippy (`cargo clippy --workspace --all-targets -- -D warnings`);
# - `BOB_EVAL_LINT=1 scripts/test.sh` (CI's `make test`) runs the tests
#   under it, so the one test build is linted as it compiles, instead of a
#   check of every crate and then a build of every crate. Dependencies are
#   compiled by plain rustc either way.
set -euo pipefail
driver="$(rustc --print sysroot)/bin/clippy-driver"
if [ ! -x "$driver" ]; then
  echo "clippy is not installed for this toolchain ($driver is missing): rustup component add clippy" >&2
  exit 1
fi
export RUSTC_WORKSPACE_WRAPPER="$driver"
# cargo-clippy's way of handing clippy-driver its arguments.
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
exec "$@"
