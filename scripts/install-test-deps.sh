#!/usr/bin/env bash
# Install what the test tiers need beside Rust crates and the platform
# (scripts/install-claude.sh): Python's junitparser, which tests/cli/ci_formats.rs
# reads the JUnit output with, and Debian's chromium, which tests/cli/history.rs
# loads the `history --html` page in. Idempotent; `make test` runs it.
set -euo pipefail
if ! python3 -c "import junitparser" 2>/dev/null; then
  echo "installing Python's junitparser" >&2
  python3 -m pip install --quiet junitparser >&2
fi
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "tests/cli/history.rs needs Debian's chromium: run 'apt-get install chromium' as root" >&2
    exit 1
  fi
  echo "installing Debian's chromium" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
fi
