#!/usr/bin/env bash
# make bench: runs every benchmark of bench/ one at a time (each builds
# what it needs and starts its own local fabric), its report shown as it
# runs and kept in bench/out/NAME.log, then prints one table: each target
# a benchmark holds (its "@result" lines, bench/result.sh) with its
# measure, the peer or floor it is set against, the value, the target,
# whether it is met, and the machine's load average when that benchmark
# started. The table is kept as bench/out/summary.md with the machine it
# ran on and the peers' versions; a run of every benchmark also writes it
# into the README's performance section (between its bench markers).
#
# Exits 1 when a target is missed, a benchmark fails, or one reports no
# target; 0 otherwise.
#
#   ONLY="filter events" bash bench/run.sh   # a subset (README untouched)
set -uo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"

all=(startup pods artifacts controller dataset filter e2e pipeline events graphdb bots packs load)
for f in bench/*.sh; do
  n=$(basename "$f" .sh)
  case " ${all[*]} common duckdb gobuild result run " in *" $n "*) ;; *) all+=("$n") ;; esac
done
names=("${all[@]}")
if [ -n "${ONLY:-}" ]; then
  read -r -a names <<<"$ONLY"
fi

rows="$out/results.tsv"
peers="$out/peers.tsv"
: >"$rows"
: >"$peers"
started=$(date -u +%Y-%m-%dT%H:%MZ)
for n in "${names[@]}"; do
  if [ ! -f "bench/$n.sh" ]; then
    echo "bench/run.sh: no benchmark bench/$n.sh" >&2
    exit 2
  fi
  load=$(cut -d' ' -f1 /proc/loadavg)
  echo "=== $n (load $load) ==="
  t0=$(date +%s)
  bash "bench/$n.sh" 2>&1 | tee "$out/$n.log"
  code=${PIPESTATUS[0]}
  secs=$(($(date +%s) - t0))
  echo "=== $n: exit $code in ${secs}s ==="
  found=0
  while IFS=$'\t' read -r tag measure peer value op target; do
    [ "$tag" = "@result" ] || continue
    found=1
    if awk -v v="$value" -v t="$target" -v op="$op" 'BEGIN {
        if (v !~ /^-?[0-9.]+$/) exit 1
        if (op == "<=") exit !(v <= t); if (op == "<") exit !(v < t)
        if (op == ">=") exit !(v >= t); if (op == ">") exit !(v > t); exit 1 }'; then
      met=met
    else
      met=MISSED
    fi
    [ "$code" = 0 ] || met=MISSED
    printf '%s\t%s\t%s\t%s\t%s %s\t%s\t%s\n' "$n" "$measure" "$peer" "$value" "$op" "$target" "$met" "$load" >>"$rows"
  done <"$out/$n.log"
  grep -P '^@peer\t' "$out/$n.log" | cut -f2,3 >>"$peers" || true
  if [ "$code" != 0 ]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "the benchmark failed (exit $code; see $out/$n.log)" "-" "-" "-" "MISSED" "$load" >>"$rows"
  elif [ "$found" = 0 ]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "no target reported" "-" "-" "-" "MISSED" "$load" >>"$rows"
  fi
done

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mem=$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
machine="$(nproc) cores ($cpu), $mem, $(uname -sr), $(go version | cut -d' ' -f3)"
{
  echo "Last \`make bench\`: $started on $machine."
  echo
  echo "| benchmark | measure | peer or floor | value | target | met | load |"
  echo "|---|---|---|---|---|---|---|"
  awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }' "$rows"
  if [ -s "$peers" ]; then
    echo
    echo "Peers: $(sort -u "$peers" | awk -F'\t' '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')."
  fi
} >"$out/summary.md"

echo
echo "make bench: $machine"
{
  printf 'BENCHMARK\tMEASURE\tPEER OR FLOOR\tVALUE\tTARGET\tMET\tLOAD\n'
  cat "$rows"
} | column -t -s $'\t'
missed=$(grep -c $'\tMISSED\t' "$rows" || true)
total=$(wc -l <"$rows")

if [ -z "${ONLY:-}" ] && grep -q '<!-- bench:begin -->' README.md; then
  awk -v f="$out/summary.md" '
    /<!-- bench:begin -->/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
    /<!-- bench:end -->/ { skip = 0 }
    !skip' README.md >README.md.tmp && mv README.md.tmp README.md
  echo "README.md: performance section updated from this run"
fi

if [ "$missed" != 0 ]; then
  echo "$missed of $total targets missed"
  exit 1
fi
echo "all $total targets met"
