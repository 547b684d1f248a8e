#!/usr/bin/env bash
# make figures: reproduce every figure the simulation benches publish in
# docs/statistics.md and BENCHMARKS.md, each printed beside its published
# value (benches/published.tsv), with its Monte-Carlo error and the suites it
# rests on, then the wall and CPU time the run took (docs/development.md).
#
# The benches are built once in the bench profile, then each binary runs
# directly with its default sections, on every core. Their full output is
# kept in target/figures/<bench>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

# The benches whose figures are published. Add one by its name.
benches=(adaptive sequence)

out=${CARGO_TARGET_DIR:-target}/figures
mkdir -p "$out"
echo "figures: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"

# One build of every bench listed; the executables named by cargo itself.
echo "figures: building ${benches[*]} (bench profile)"
build_started=$(date +%s)
executables=$(cargo bench --locked --no-run --message-format=json-render-diagnostics "${benches[@]/#/--bench=}" \
  | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p')
echo "figures: built in $(($(date +%s) - build_started)) s"

started=$(date +%s%N)
for b in "${benches[@]}"; do
  exe=$(printf '%s\n' "$executables" | grep "/$b-[0-9a-f]*\$" | head -n1)
  if [ -z "$exe" ]; then
    echo "figures: no executable for bench $b" >&2
    exit 1
  fi
  echo "figures: running $b"
  /usr/bin/time -v -o "$out/$b.time" "$exe" >"$out/$b.txt"
done
wall_ms=$((($(date +%s%N) - started) / 1000000))

# Each published figure beside the one measured now.
awk -F'\t' '
  FNR == NR { if ($0 !~ /^#/ && NF >= 3) { pub[$1 "\t" $2] = $3; where[$1 "\t" $2] = $4; order[++n] = $1 "\t" $2 }; next }
  FNR == 1 { bench = FILENAME; sub(/.*\//, "", bench); sub(/\.txt$/, "", bench) }
  $1 == "FIGURE" { got[bench "\t" $2] = $3; err[bench "\t" $2] = $4; basis[bench "\t" $2] = $5; next }
  END {
    same = 0; differ = 0; missing = 0
    printf "%-6s | %-70s | %-12s | %-12s | %-26s | %s\n", "", "figure", "published", "measured", "Monte-Carlo error", "rests on"
    for (i = 1; i <= n; i++) {
      k = order[i]
      split(k, part, "\t")
      if (!(k in got)) { status = "ABSENT"; missing++ }
      else if (got[k] == pub[k]) { status = "same"; same++ }
      else { status = "DIFFERS"; differ++ }
      printf "%-6s | %-70s | %-12s | %-12s | %-26s | %s\n", status, part[1] ": " part[2], pub[k], (k in got ? got[k] : "–"), err[k], basis[k]
    }
    printf "\nfigures: %d published figures: %d the same, %d differ, %d not measured\n", n, same, differ, missing
  }
' benches/published.tsv $(for b in "${benches[@]}"; do echo "$out/$b.txt"; done)

echo
for b in "${benches[@]}"; do
  grep '^RESULT' "$out/$b.txt" | sed "s/^RESULT /$b: /" || true
done
echo
for b in "${benches[@]}"; do
  t="$out/$b.time"
  echo "figures: $b: wall $(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$t"), user $(sed -n 's/.*User time (seconds): //p' "$t") s, system $(sed -n 's/.*System time (seconds): //p' "$t") s, CPU $(sed -n 's/.*Percent of CPU this job got: //p' "$t")"
done
echo "figures: every bench run in $((wall_ms / 1000)).$((wall_ms % 1000 / 100)) s wall (build excluded); load now $(cut -d' ' -f1-3 /proc/loadavg)"
