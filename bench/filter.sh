#!/usr/bin/env bash
# CFXQL filtering against DuckDB in the same run.
#
# Generates a CSV of ROWS rows (default 10,000,000, about 1 GB, shared with
# bench/dataset.sh) and converts it to Parquet once (bench/out/filter.parquet,
# reused while current). Then, RUNS times each (default 3), times only:
#   - ours: frame.filter(QUERY) in a Starlark script run by "client -c",
#     on the frame read with frame.read (time.now() before and after);
#   - DuckDB: CREATE TABLE r AS SELECT * FROM t WHERE ..., on the table t
#     loaded from the Parquet file into memory first.
# Both must keep the same number of rows. The medians are printed, then the
# ratio ours/DuckDB last. Target: within 3x.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000000}
RUNS=${RUNS:-3}
QUERY=${QUERY:-"cpu > 50 and status is 'CRIT' and region in ['north','east']"}
WHERE=${WHERE:-"cpu > 50 AND status = 'CRIT' AND region IN ('north','east')"}
out=bench/out
mkdir -p "$out"

. bench/duckdb.sh
cat > "$out/node/filter.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const [parquet, where] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${parquet}')`);
const t0 = performance.now();
await conn.run(`CREATE TABLE r AS SELECT * FROM t WHERE ${where}`);
const secs = (performance.now() - t0) / 1000;
const reader = await conn.runAndReadAll('SELECT count(*) AS n FROM r');
console.log(`${secs} ${reader.getRows()[0][0]}`);
JS
cat > "$out/filter.star" <<'STAR'
path, query = sys.argv[1], sys.argv[2]
f = frame.read(path)
t0 = time.now()
r = f.filter(query)
t1 = time.now()
print((t1.unix_nano - t0.unix_nano) / 1e9, r.num_rows)
STAR

go build -trimpath -tags lean -ldflags '-s -w' -o "$out/client" ./cmd/client
go build -trimpath -ldflags '-s -w' -o "$out/client-data" ./cmd/client
go build -trimpath -ldflags '-s -w' -o "$out/fabricd" ./cmd/fabricd
go build -o "$out/gencsv" ./bench/gencsv
csv="$out/big.csv"
if [ ! -f "$csv" ] || [ bench/gencsv/main.go -nt "$csv" ] || [ "$(wc -l <"$csv")" -ne $((ROWS + 1)) ]; then
  "$out/gencsv" "$ROWS" "$csv"
fi
pq="$out/filter.parquet"
if [ ! -f "$pq" ] || [ "$csv" -nt "$pq" ]; then
  "$out/client" file-ops csv-to-parquet --from "$csv" --to "$pq" >/dev/null
fi
echo "input: $pq, $ROWS rows, $(du -m "$pq" | cut -f1) MB"
echo "cfxql:  $QUERY"
echo "duckdb: $WHERE"

# median: the middle of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

ours=() duck=() n_ours="" n_duck=""
for i in $(seq "$RUNS"); do
  res=$("$out/client" -c "$(cat "$out/filter.star")" "$pq" "$QUERY")
  read -r s n <<<"$res"
  ours+=("$s"); n_ours=$n
  res=$(node "$out/node/filter.mjs" "$pq" "$WHERE")
  read -r s n <<<"$res"
  duck+=("$s"); n_duck=$n
  printf 'run %d: ours %.3f s, duckdb %.3f s\n' "$i" "${ours[-1]}" "${duck[-1]}"
done
if [ -z "$n_ours" ] || [ "$n_ours" != "$n_duck" ]; then
  echo "row counts differ: ours ${n_ours:-none}, duckdb ${n_duck:-none}" >&2
  exit 1
fi
o=$(printf '%s\n' "${ours[@]}" | median)
d=$(printf '%s\n' "${duck[@]}" | median)
echo "rows kept: $n_ours of $ROWS (both)"
printf '%-34s %8.3f s (median of %d)\n' "cfxql frame.filter" "$o" "$RUNS"
printf '%-34s %8.3f s (median of %d)\n' "duckdb CREATE TABLE AS ... WHERE" "$d" "$RUNS"
awk -v a="$o" -v d="$d" 'BEGIN { printf "ratio cfxql filter ours/duckdb: %.2f (target <= 3)\n", a / d }'
