#!/usr/bin/env bash
# Startup time of the client against a floor: a Go binary that only prints a
# line. Times `client version` and `client checksum -h` (which indexes the
# bundled scripts and runs one of them) over many runs, in the same run as
# the floor, and prints the ratio of `client checksum -h` to the floor last.
# Target: within 10x the floor.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-200}
out=bench/out
mkdir -p "$out"
go build -trimpath -ldflags '-s -w' -o "$out/client" ./cmd/client
go build -trimpath -ldflags '-s -w' -o "$out/floor" ./bench/floor
export FABRIC_HOME="$out/home"

# mean_ms CMD...: mean wall time of RUNS runs, in milliseconds.
mean_ms() {
  "$@" >/dev/null # warm the page cache
  local start end
  start=$(date +%s%N)
  for ((i = 0; i < RUNS; i++)); do "$@" >/dev/null; done
  end=$(date +%s%N)
  awk -v ns=$((end - start)) -v n="$RUNS" 'BEGIN { printf "%.3f", ns / n / 1e6 }'
}

floor=$(mean_ms "$out/floor")
version=$(mean_ms "$out/client" version)
help=$(mean_ms "$out/client" checksum -h)
printf '%-24s %8s ms\n' "floor (print a line)" "$floor" "client version" "$version" "client checksum -h" "$help"
awk -v a="$version" -v f="$floor" 'BEGIN { printf "ratio client version / floor: %.2f\n", a / f }'
awk -v a="$help" -v f="$floor" 'BEGIN { printf "ratio client checksum -h / floor: %.2f (target <= 10)\n", a / f }'
