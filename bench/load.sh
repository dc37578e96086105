#!/usr/bin/env bash
# The local fabric under load, end to end: pipeline runs (client
# run-get-output, a process each), 1,000 from 20 closed-loop clients (the
# saturated throughput, and the p99 against the CPU floor), then 1,000
# arriving at half that throughput, then 100 concurrent dataset adds of
# small files, against a local fabric started for the benchmark on
# 127.0.0.1. Checks that none is lost or refused, and prints last the ratio
# of the steady load's p99 to the latency of one job run alone (target 5).
# Bounded: JOBS, CLIENTS, RATE and ADDS, 20 minutes at most.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
. bench/gobuild.sh
build_fabric
go build -o "$out/load" ./bench/load
FABRIC_HOME=$(mktemp -d)
export FABRIC_HOME
trap '"$out/client" fabric down >/dev/null 2>&1 || true; rm -rf "$FABRIC_HOME"' EXIT
"$out/client" fabric up
pid=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' "$FABRIC_HOME/local/fabric.json")
"$out/load" -client "$out/client" -fabricd "${pid:-0}" -jobs "${JOBS:-1000}" -clients "${CLIENTS:-20}" -rate "${RATE:-0.5}" -adds "${ADDS:-100}" | tee "$out/load.txt"
. bench/result.sh
lost=$(sed -n 's/^lost: \([0-9]*\), .*/\1/p' "$out/load.txt")
result "jobs lost or refused under load" "a figure" "$((lost + $(sed -n 's/^lost: [0-9]*, refused for capacity: \([0-9]*\)/\1/p' "$out/load.txt")))" "<=" 0
result "p99 of ${JOBS:-1000} jobs under steady load" "one job run alone" "$(sed -n 's/^ratio p99 of the steady load \/ one job alone: //p' "$out/load.txt")" "<=" 5
