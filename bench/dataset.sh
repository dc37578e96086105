#!/usr/bin/env bash
# Tabular data at the speed of the disk, against DuckDB in the same run.
#
# Generates a CSV of ROWS rows (default 1,000,000, about 100 MB) and times
#   - client file-ops csv-to-parquet   vs   DuckDB COPY (SELECT * FROM read_csv_auto(...)) TO ... (FORMAT parquet)
#   - client dataset add (into a local fabric started for the benchmark) vs the same DuckDB COPY
# with the peak memory of each (/usr/bin/time -v); then the peak memory of
# client dataset add on a CSV of BIG_ROWS rows (default 10,000,000, about
# 1 GB; BIG_ROWS=0 skips it). The ratio of our csv-to-parquet time to
# DuckDB's is printed last.
# Targets: csv-to-parquet within 2x of DuckDB; dataset add under 300 MB of
# peak memory for the 1 GB CSV.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
BIG_ROWS=${BIG_ROWS:-10000000}
out=bench/out
mkdir -p "$out"

command -v /usr/bin/time >/dev/null 2>&1 || { echo "installing time (Debian)"; apt-get update -qq && apt-get install -y -qq time >/dev/null; }
. bench/duckdb.sh
cat > "$out/node/copy.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const [csv, parquet] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run(`COPY (SELECT * FROM read_csv_auto('${csv}')) TO '${parquet}' (FORMAT parquet)`);
JS

go build -trimpath -ldflags '-s -w' -o "$out/client" ./cmd/client
go build -trimpath -ldflags '-s -w' -o "$out/client-data" ./cmd/client-data
go build -trimpath -ldflags '-s -w' -o "$out/fabricd" ./cmd/fabricd
go build -o "$out/gencsv" ./bench/gencsv
# gen ROWS FILE: (re)generate FILE unless it is current.
gen() {
  if [ ! -f "$2" ] || [ bench/gencsv/main.go -nt "$2" ] || [ "$(wc -l <"$2")" -ne $(($1 + 1)) ]; then
    "$out/gencsv" "$1" "$2"
  fi
}
csv="$out/bench.csv"
gen "$ROWS" "$csv"
echo "input: $csv, $ROWS rows, $(du -m "$csv" | cut -f1) MB"

# measure NAME CMD...: wall seconds and peak RSS (MB) of a command.
measure() {
  local name=$1; shift
  /usr/bin/time -v "$@" >/dev/null 2>"$out/time.txt" || { cat "$out/time.txt"; exit 1; }
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$out/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$out/time.txt")
  printf '%-34s %8.2f s %8s MB peak\n' "$name" "$wall" "$rss" >&2
  echo "$wall"
}

ours=$(measure "client file-ops csv-to-parquet" "$out/client" file-ops csv-to-parquet --from "$csv" --to "$out/ours.parquet")
duck=$(measure "duckdb COPY ... (FORMAT parquet)" node "$out/node/copy.mjs" "$csv" "$out/duck.parquet")

FABRIC_HOME=$(mktemp -d)
export FABRIC_HOME
export FABRIC_NETWORK_CONFIG="$FABRIC_HOME/fabric_network_config.json"
trap '"$out/client" fabric down >/dev/null 2>&1 || true; rm -rf "$FABRIC_HOME"' EXIT
"$out/client" fabric up --workers 1 2>/dev/null
add=$(measure "client dataset add" "$out/client" dataset add --name bench --file "$csv")
echo "parquet sizes: ours $(du -k "$out/ours.parquet" | cut -f1) KB, duckdb $(du -k "$out/duck.parquet" | cut -f1) KB"
if [ "$BIG_ROWS" -gt 0 ]; then
  big="$out/big.csv"
  gen "$BIG_ROWS" "$big"
  echo "input: $big, $BIG_ROWS rows, $(du -m "$big" | cut -f1) MB (peak memory; target under 300 MB)"
  measure "client dataset add (big)" "$out/client" dataset add --name big --file "$big" >/dev/null
  measure "duckdb COPY (big)" node "$out/node/copy.mjs" "$big" "$out/duck-big.parquet" >/dev/null
  rm -f "$out/duck-big.parquet"
fi
awk -v a="$add" -v d="$duck" 'BEGIN { printf "ratio dataset add ours/duckdb: %.2f\n", a / d }'
awk -v a="$ours" -v d="$duck" 'BEGIN { printf "ratio csv-to-parquet ours/duckdb: %.2f (target <= 2)\n", a / d }'
