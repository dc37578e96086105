#!/usr/bin/env bash
# Startup time of the client against a floor: a Go binary that only prints a
# line. Times `client version` and `client checksum -h` (which indexes the
# bundled scripts and runs one of them), in turn with the floor
# (bench/timeit compares medians), and prints the ratio of
# `client checksum -h` to the floor last. Target: within 10x.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-300}
out=bench/out
mkdir -p "$out"
go build -trimpath -ldflags '-s -w' -o "$out/client" ./cmd/client
go build -trimpath -ldflags '-s -w' -o "$out/floor" ./bench/floor
go build -o "$out/timeit" ./bench/timeit
export FABRIC_HOME="$out/home"
"$out/timeit" -runs "$RUNS" \
  -name "floor (print a line)" -- "$out/floor" ";" \
  -name "client version" -- "$out/client" version ";" \
  -name "client checksum -h" -- "$out/client" checksum -h

