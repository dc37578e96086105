#!/usr/bin/env bash
# 10,000 "dashboard.add" + "dashboard.get" through the Starlark module in
# one process (bench/artifacts.star, run by the client) against the
# floor: raw JetStream KV create + get of the same document (bench/kvfloor,
# the dashboard's JSON), against the same local fabric. Ours runs two
# ways: adding the YAML text of the dashboard (each add parses YAML), and
# adding a template dict (the measure of the target). All run in turn RUNS
# times (bench/timeit alternates them and compares medians of the whole
# process: start, connect, the loop); each also reports its loop alone,
# in-process. The ratio ours (dict) / floor is printed last. Target:
# within 1.5x of raw KV.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-15}
N=${N:-10000}
out=bench/out
mkdir -p "$out"
. bench/gobuild.sh
build_fabric
go_build "$out/kvfloor" ./bench/kvfloor
go build -o "$out/timeit" ./bench/timeit
unset FABRIC_USER FABRIC_PASSWORD
FABRIC_HOME=$(mktemp -d)
export FABRIC_HOME
export FABRIC_NETWORK_CONFIG="$FABRIC_HOME/fabric_network_config.json"
trap '"$out/client" fabric down >/dev/null 2>&1 || true; rm -rf "$FABRIC_HOME"' EXIT
"$out/client" fabric up --workers 1 >/dev/null

# A dashboard of two tabbed sections and three widgets (1.3 KB of YAML).
doc=fabric/infra/artifact/testdata/dashboard.yaml
# The floor stores the dashboard's JSON (what ours stores, but for
# saved_time and enabled).
json="$out/dashboard.json"
"$out/client" run /dev/stdin >"$json" <<STAR
print(json.encode(yaml.decode(file.read("$doc"))))
STAR
rm -f "$out"/*-inproc.txt

# Each stores and reads back every item (a failure ends the benchmark).
"$out/timeit" -runs "$RUNS" -warmup 1 \
  -name "raw KV create + get x$N" -- "$out/kvfloor" "$N" "$json" "$out/floor-inproc.txt" ";" \
  -name "dashboard.add(YAML text) + get" -- "$out/client" run bench/artifacts.star text "$N" "$doc" "$out/text-inproc.txt" ";" \
  -name "dashboard.add(dict) + get x$N" -- "$out/client" run bench/artifacts.star dict "$N" "$doc" "$out/dict-inproc.txt" \
  | tee "$out/artifacts.txt"
med() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
floor_in=$(med "$out/floor-inproc.txt")
for m in text dict; do
  ours_in=$(med "$out/$m-inproc.txt")
  echo "in-process loop ($m): raw KV ${floor_in} s, dashboard module ${ours_in} s: $(awk -v a="$ours_in" -v b="$floor_in" 'BEGIN { printf "%.2f", a / b }')x"
done
. bench/result.sh
result "10,000 dashboard.add + get, whole process" "raw JetStream KV create + get (bench/kvfloor)" \
  "$(sed -n 's|^ratio dashboard.add(dict) + get x[0-9]* / raw KV create + get x[0-9]*: ||p' "$out/artifacts.txt")" "<=" 1.5
