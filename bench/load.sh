#!/usr/bin/env bash
# The local fabric under load, end to end: 1,000 pipeline runs
# (client run-get-output, a process each) from 20 concurrent clients, then
# 100 concurrent dataset adds of small files, against a local fabric
# started for the benchmark on 127.0.0.1. Checks that none is lost, prints
# p50/p99 latencies, and last the ratio of the jobs' p99 to the latency of
# one job run alone. Bounded: JOBS, CLIENTS and ADDS runs, 20 minutes at most.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
go build -trimpath -ldflags '-s -w' -o "$out/client" ./cmd/client
go build -trimpath -ldflags '-s -w' -o "$out/client-data" ./cmd/client-data
go build -trimpath -ldflags '-s -w' -o "$out/fabricd" ./cmd/fabricd
go build -o "$out/load" ./bench/load
FABRIC_HOME=$(mktemp -d)
export FABRIC_HOME
trap '"$out/client" fabric down >/dev/null 2>&1 || true; rm -rf "$FABRIC_HOME"' EXIT
"$out/client" fabric up
"$out/load" -client "$out/client" -jobs "${JOBS:-1000}" -clients "${CLIENTS:-20}" -adds "${ADDS:-100}"
