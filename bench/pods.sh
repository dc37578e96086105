#!/usr/bin/env bash
# "client pods --json" against its floor: a minimal Go program that
# connects to the same server with the same network configuration and makes
# one request. Both run in turn RUNS times against a local fabric started
# for the benchmark (bench/timeit alternates them: the median of the pairs'
# ratios); the ratio client/floor is printed last. Target: within 1.5x. The binaries are
# built as make build builds them (the lean client, client-data, fabricd).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-300}
out=bench/out
mkdir -p "$out"
. bench/gobuild.sh
build_fabric
go_build "$out/podsfloor" ./bench/podsfloor
go build -o "$out/timeit" ./bench/timeit
FABRIC_HOME=$(mktemp -d)
export FABRIC_HOME
export FABRIC_NETWORK_CONFIG="$FABRIC_HOME/fabric_network_config.json"
trap '"$out/client" fabric down >/dev/null 2>&1 || true; rm -rf "$FABRIC_HOME"' EXIT
"$out/client" fabric up

# Both see the same pods.
n_client=$("$out/client" pods --json | grep -c '"pod_id"')
n_floor=$("$out/podsfloor" | grep -o '"pod_id"' | wc -l)
echo "pods seen: client $n_client, floor $n_floor"
. bench/result.sh
"$out/timeit" -runs "$RUNS" \
  -name "floor (connect + 1 request)" -- "$out/podsfloor" ";" \
  -name "client pods --json" -- "$out/client" pods --json | tee "$out/pods.txt"
result "client pods --json: process start to exit" "minimal NATS request (bench/podsfloor)" \
  "$(sed -n 's|^ratio client pods --json / floor (connect + 1 request): ||p' "$out/pods.txt")" "<=" 1.5

