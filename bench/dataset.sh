#!/usr/bin/env bash
# Tabular data at the speed of the disk, against DuckDB in the same run.
#
# Generates a CSV of ROWS rows (default 1,000,000, about 100 MB) and times
#   - client file-ops csv-to-parquet   vs   DuckDB COPY (SELECT * FROM read_csv_auto(...)) TO ... (FORMAT parquet)
#   - client dataset add (into a local fabric started for the benchmark) vs the same DuckDB COPY
# with the peak memory of each (/usr/bin/time -v); then the peak memory of
# client dataset add on a CSV of BIG_ROWS rows (default 10,000,000, about
# 1 GB; BIG_ROWS=0 skips it) against DuckDB's COPY of it, whole processes.
# RUNS (default 3) pairs of each, ours then DuckDB's; the ratios are the
# medians of the pairs' ratios.
# Targets: csv-to-parquet within 2x of DuckDB; dataset add of the 1 GB CSV
# under 250 MB of peak memory and within 1.0x of DuckDB's COPY.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
BIG_ROWS=${BIG_ROWS:-10000000}
RUNS=${RUNS:-3}
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

. bench/gobuild.sh
build_fabric
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

# measure NAME CMD...: runs CMD, prints its line to stderr; sets WALL
# (seconds) and RSS (peak MB).
measure() {
  local name=$1; shift
  /usr/bin/time -v "$@" >/dev/null 2>"$out/time.txt" || { cat "$out/time.txt"; exit 1; }
  WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$out/time.txt")
  RSS=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$out/time.txt")
  printf '%-34s %8.2f s %8s MB peak\n' "$name" "$WALL" "$RSS" >&2
}
. bench/result.sh
peer_version "DuckDB (@duckdb/node-api)" "$(duckdb_version)"

t_ours=() t_duck=()
for i in $(seq "$RUNS"); do
  measure "client file-ops csv-to-parquet" "$out/client" file-ops csv-to-parquet --from "$csv" --to "$out/ours.parquet"
  t_ours+=("$WALL")
  measure "duckdb COPY ... (FORMAT parquet)" node "$out/node/copy.mjs" "$csv" "$out/duck.parquet"
  t_duck+=("$WALL")
done

FABRIC_HOME=$(mktemp -d)
export FABRIC_HOME
export FABRIC_NETWORK_CONFIG="$FABRIC_HOME/fabric_network_config.json"
trap '"$out/client" fabric down >/dev/null 2>&1 || true; rm -rf "$FABRIC_HOME"' EXIT
"$out/client" fabric up --workers 1 2>/dev/null
measure "client dataset add" "$out/client" dataset add --name bench --file "$csv"
echo "parquet sizes: ours $(du -k "$out/ours.parquet" | cut -f1) KB, duckdb $(du -k "$out/duck.parquet" | cut -f1) KB"
result "csv-to-parquet $ROWS rows: whole process" "DuckDB COPY to Parquet, whole process" "$(pair_median "${t_ours[@]}" -- "${t_duck[@]}")" "<=" 2
if [ "$BIG_ROWS" -gt 0 ]; then
  big="$out/big.csv"
  gen "$BIG_ROWS" "$big"
  echo "input: $big, $BIG_ROWS rows, $(du -m "$big" | cut -f1) MB"
  a_t=() a_m=() d_t=()
  for i in $(seq "$RUNS"); do
    "$out/client" dataset delete --name big --yes >/dev/null 2>&1 || true
    measure "client dataset add (big)" "$out/client" dataset add --name big --file "$big"
    a_t+=("$WALL") a_m+=("$RSS")
    measure "duckdb COPY (big)" node "$out/node/copy.mjs" "$big" "$out/duck-big.parquet"
    d_t+=("$WALL")
    rm -f "$out/duck-big.parquet"
  done
  peak=$(printf '%s\n' "${a_m[@]}" | sort -g | tail -n 1)
  echo "dataset add of $BIG_ROWS rows: peak $peak MB (the largest of $RUNS runs)"
  result "dataset add $BIG_ROWS rows: peak memory (MB)" "a figure" "$peak" "<" 250
  result "dataset add $BIG_ROWS rows: whole process" "DuckDB CSV -> Parquet, whole process" "$(pair_median "${a_t[@]}" -- "${d_t[@]}")" "<=" 1.0
fi
