# bob-eval: `make test` is the test command (README, CI): it installs what
# every tier needs and runs them all, where a missing tool fails instead of
# skipping. The tiers one by one (docs/development.md): `make test-fast`
# (unit tests and tests/cli, Rust only), `make test-real`, `make test-chaos`.
# `make evals` sweeps every suite on the real platform only when EVALS=1.
CARGO ?= cargo
export CARGO

.PHONY: test test-fast test-real test-chaos claude test-deps demo evals check-wiki lint fmt-check bench figures fuzz

test: claude test-deps
	BOB_EVAL_REQUIRE_TIERS=1 scripts/test.sh

test-fast:
	scripts/test.sh --workspace --lib --bins --test cli

test-real: claude
	BOB_EVAL_REQUIRE_TIERS=1 scripts/test.sh --test real

test-chaos: claude
	BOB_EVAL_REQUIRE_TIERS=1 scripts/test.sh --test chaos

demo:
	@echo "make demo: building bob-eval in release mode first; the first build takes a few minutes (later ones are quick)" >&2
	$(CARGO) build --locked --release --quiet
	target/release/bob-eval check
	target/release/bob-eval exam commit --platform-result tests/data/platform/run2_table_no_json.json

claude:
	scripts/install-claude.sh

test-deps:
	scripts/install-test-deps.sh

# clippy's lints on every target, every warning an error: `cargo clippy
# --workspace --all-targets -- -D warnings`, by scripts/clippy.sh, which CI's
# `BOB_EVAL_LINT=1 make test` also builds the tests under.
lint: fmt-check
	scripts/clippy.sh $(CARGO) check --locked --workspace --all-targets

fmt-check:
	$(CARGO) fmt --check

evals:
	$(CARGO) run --locked --release --quiet -- sweep

check-wiki:
	$(CARGO) run --locked --quiet -- check-wiki

bench:
	scripts/bench.sh

# Every figure the simulation benches publish (docs/statistics.md,
# BENCHMARKS.md), beside its published value, with the wall and CPU time.
figures:
	scripts/figures.sh

# Coverage-guided fuzzing on stable, FUZZ_SECONDS per target (default 10).
fuzz:
	scripts/fuzz.sh
