# bob-eval: `make test` is the test command (README, CI). `make evals` sweeps
# every suite on the real platform only when EVALS=1.
CARGO ?= cargo

.PHONY: test claude test-deps demo evals check-wiki lint bench fuzz

test: claude test-deps
	$(CARGO) test --locked

demo:
	@echo "make demo: building bob-eval in release mode first; the first build takes a few minutes (later ones are quick)" >&2
	$(CARGO) build --locked --release --quiet
	target/release/bob-eval check
	target/release/bob-eval exam commit --platform-result tests/data/platform/run2_table_no_json.json

claude:
	scripts/install-claude.sh

test-deps:
	scripts/install-test-deps.sh

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

evals:
	$(CARGO) run --locked --release --quiet -- sweep

check-wiki:
	$(CARGO) run --locked --quiet -- check-wiki

bench:
	scripts/bench.sh

# Coverage-guided fuzzing on stable, FUZZ_SECONDS per target (default 10).
fuzz:
	scripts/fuzz.sh
