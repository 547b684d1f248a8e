#!/usr/bin/env bash
# Run every benchmark in release and print each ratio with PASS/MISS against
# its target (issue 6; figures and the machine in BENCHMARKS.md).
# Needs jq and node on PATH for the two comparisons that use them.
set -euo pipefail
cd "$(dirname "$0")/.."
benches=(check neighbours run reduce sweep shard engine evidence adaptive)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
cargo bench --locked --no-run "${benches[@]/#/--bench=}" >/dev/null 2>&1 || cargo bench --locked --no-run
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for b in "${benches[@]}"; do
  echo "== $b"
  # Only the benches' own lines (the engine bench runs exam.rhai, which prints).
  cargo bench --locked --quiet --bench "$b" 2>/dev/null \
    | grep -E '^(check_suites|neighbours|run|reduce|sweep|collect|engine|evidence|adaptive|RESULT|INFO|  )' | tee -a "$log"
done
echo
echo "== summary (load now $(cut -d' ' -f1-3 /proc/loadavg))"
grep '^RESULT' "$log" | sed 's/^RESULT //'
if grep -q '^RESULT.*MISS$' "$log"; then
  echo "at least one target missed"
fi
