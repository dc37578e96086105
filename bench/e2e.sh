#!/usr/bin/env bash
# A user's day with a table, end to end: a CSV of ROWS rows (default
# 1,000,000, about 100 MB) stored, fetched and filtered as three client
# commands, against DuckDB doing the same in one process, in the same run.
#
# Ours, three fresh processes against a local fabric of its own (a
# temporary FABRIC_HOME with one worker, stopped and removed on exit):
#   client dataset add --name e2e --file data.csv
#   client dataset get --name e2e --tofile got.parquet
#   client -c 'dataset.get("e2e").filter(QUERY).to_parquet(OUT)'
# timed whole from the outside, the three added up.
# DuckDB, one node process (@duckdb/node-api), timed whole from the
# outside: COPY the CSV to a Parquet file (its store), COPY that file to
# another (the fetch), COPY the filtered rows to a third.
# Both filters must keep the same rows (each file counted by DuckDB); the
# benchmark fails otherwise. RUNS pairs (default 3), ours then DuckDB's;
# the ratio, printed last, is the median of the pairs' ratios.
# Target: within 1.0x of DuckDB.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
RUNS=${RUNS:-3}
QUERY=${QUERY:-"cpu > 50 and status is 'CRIT' and region in ['north','east']"}
WHERE=${WHERE:-"cpu > 50 AND status = 'CRIT' AND region IN ('north','east')"}
out=bench/out
mkdir -p "$out"
. bench/common.sh

build
csv="$PWD/$out/bench.csv"
gen_csv "$ROWS" "$csv"
start_fabric
echo "input: $csv, $ROWS rows, $(du -m "$csv" | cut -f1) MB"

cat >"$out/node/e2e.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const [csv, stored, got, filtered, where] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run(`COPY (SELECT * FROM read_csv_auto('${csv}')) TO '${stored}' (FORMAT parquet)`);
await conn.run(`COPY (SELECT * FROM read_parquet('${stored}')) TO '${got}' (FORMAT parquet)`);
await conn.run(`COPY (SELECT * FROM read_parquet('${stored}') WHERE ${where}) TO '${filtered}' (FORMAT parquet)`);
JS

got="$PWD/$out/e2e-got.parquet" filtered="$PWD/$out/e2e-filtered.parquet"
d_stored="$PWD/$out/e2e-duck-stored.parquet" d_got="$PWD/$out/e2e-duck-got.parquet" d_filtered="$PWD/$out/e2e-duck-filtered.parquet"
# shellcheck disable=SC2016 # Starlark, not shell
code='print(dataset.get(sys.argv[1]).filter(sys.argv[2]).to_parquet(sys.argv[3]))'
t_ours=() t_duck=()
for i in $(seq "$RUNS"); do
  rm -f "$got" "$filtered" "$d_stored" "$d_got" "$d_filtered"
  "$out/client" dataset delete --name e2e --yes >/dev/null 2>&1 || true
  measure "$out/client" dataset add --name e2e --file "$csv"
  a=$WALL
  measure "$out/client" dataset get --name e2e --tofile "$got"
  g=$WALL
  measure "$out/client" -c "$code" e2e "$QUERY" "$filtered"
  f=$WALL
  ours=$(awk -v a="$a" -v g="$g" -v f="$f" 'BEGIN { printf "%.3f", a + g + f }')
  measure node "$out/node/e2e.mjs" "$csv" "$d_stored" "$d_got" "$d_filtered" "$WHERE"
  duck=$WALL
  # shellcheck disable=SC2046 # four numbers
  check_rows "the filtered rows (ours, duckdb)" $(node "$out/node/count.mjs" "$filtered" "$d_filtered")
  check_rows "the fetched rows (ours, duckdb, the input)" $(node "$out/node/count.mjs" "$got" "$d_got") "$ROWS"
  printf 'run %d: ours %.3f s (add %.3f, get %.3f, filter %.3f), duckdb %.3f s\n' "$i" "$ours" "$a" "$g" "$f" "$duck"
  t_ours+=("$ours") t_duck+=("$duck")
done
rm -f "$got" "$filtered" "$d_stored" "$d_got" "$d_filtered"
r=$(pair_median "${t_ours[@]}" -- "${t_duck[@]}")
peer_version "DuckDB (@duckdb/node-api)" "$(duckdb_version)"
echo "medians: ours $(printf '%s\n' "${t_ours[@]}" | median) s, duckdb $(printf '%s\n' "${t_duck[@]}" | median) s"
result "add + get + filter of a $ROWS-row CSV: 3 client commands" "DuckDB, the same in one process" "$r" "<=" 1.0
echo "ratio add + get + filter, ours / duckdb one process: $r (target <= 1.0)"
