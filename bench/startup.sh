#!/usr/bin/env bash
# Startup time of the client against a floor: a Go binary that only prints a
# line. Times `client checksum -h` (which indexes the bundled scripts and
# runs one of them), the full client's `client-data version` (with the
# data libraries, for comparison) and `client version`, in turn with the
# floor (bench/timeit pairs them), and prints the ratio of `client
# version` to the floor last. Targets: version within 3x, checksum -h
# within 10x. The binaries are built as make build builds them.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-300}
out=bench/out
mkdir -p "$out"
. bench/gobuild.sh
go_build "$out/client" ./cmd/client
go_build "$out/client-data" ./cmd/client-data
go_build "$out/floor" ./bench/floor
go build -o "$out/timeit" ./bench/timeit
export FABRIC_HOME="$out/home"
. bench/result.sh
"$out/timeit" -runs "$RUNS" \
  -name "floor (print a line)" -- "$out/floor" ";" \
  -name "client checksum -h" -- "$out/client" checksum -h ";" \
  -name "client-data version" -- "$out/client-data" version ";" \
  -name "client version" -- "$out/client" version | tee "$out/startup.txt"
r() { sed -n "s|^ratio $1 / floor (print a line): ||p" "$out/startup.txt"; }
result "client checksum -h: process start to exit" "Go hello world" "$(r "client checksum -h")" "<=" 10
result "client version: process start to exit" "Go hello world" "$(r "client version")" "<=" 3

