#!/usr/bin/env bash
# Filter a stored dataset and write the result to Parquet, end to end,
# against DuckDB in the same run.
#
# Generates a CSV of ROWS rows (default 10,000,000, about 1 GB, shared with
# bench/dataset.sh), converts it to Parquet once (bench/out/filter.parquet,
# reused while current and written by this build), starts a local fabric
# of its own (a temporary FABRIC_HOME, stopped and removed on exit) and
# adds that file as the dataset "big". Then, RUNS times each (default 3), in turn:
#   - ours: a fresh process,
#       client -c 'dataset.get("big").filter(QUERY).to_parquet(OUT)'
#     timed whole from the outside (process start, the fetch from the
#     object store, the filter, the write), with its peak memory;
#   - DuckDB: a fresh node process running
#       COPY (SELECT * FROM read_parquet('filter.parquet') WHERE ...) TO OUT
#     on the same Parquet file, with two figures: the whole process (timed
#     from the outside, with its peak memory) and the COPY statement alone
#     (performance.now() around it: node's and DuckDB's start excluded).
# The same is done for SMALL_QUERY, a filter that keeps few rows. Both sides
# must write the same number of rows (each side's own count, and the rows
# of both output files, counted by DuckDB); the benchmark fails otherwise.
# Prints a table of the medians (peak memory: the largest of the runs),
# then the ratios; the one that counts, ours whole against DuckDB's
# in-process time, is last.
# The ratios of times are the medians of the ratios of the runs' pairs.
# Targets (at 10,000,000 rows): ours within 1.5x of DuckDB's in-process
# time; our peak memory at or below DuckDB's whole process; the small-result
# filter under 300 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000000}
RUNS=${RUNS:-3}
QUERY=${QUERY:-"cpu > 50 and status is 'CRIT' and region in ['north','east']"}
WHERE=${WHERE:-"cpu > 50 AND status = 'CRIT' AND region IN ('north','east')"}
SMALL_QUERY=${SMALL_QUERY:-"cpu > 99.9 and status is 'CRIT'"}
SMALL_WHERE=${SMALL_WHERE:-"cpu > 99.9 AND status = 'CRIT'"}
out=bench/out
mkdir -p "$out"
. bench/common.sh

build
csv="$out/big.csv"
pq="$PWD/$out/filter.parquet"
gen_csv "$ROWS" "$csv"
to_parquet "$csv" "$pq"
start_fabric
add_dataset big "$pq"
echo "input: $out/filter.parquet, $ROWS rows, $(du -m "$pq" | cut -f1) MB, stored as the dataset \"big\""

ours_out="$PWD/$out/filter-ours.parquet"
duck_out="$PWD/$out/filter-duck.parquet"
# shellcheck disable=SC2016 # Starlark, not shell
code='print(dataset.get(sys.argv[1]).filter(sys.argv[2]).to_parquet(sys.argv[3]))'

# run_case NAME QUERY WHERE: RUNS runs of each side; sets the medians
# (<NAME>_ours, <NAME>_whole, <NAME>_inproc, seconds), the largest peak
# memories (<NAME>_ours_mb, <NAME>_whole_mb) and <NAME>_rows.
run_case() {
  local name=$1 query=$2 where=$3 i
  local t_ours=() t_whole=() t_in=() m_ours=() m_whole=() n_ours n_duck secs counts
  for i in $(seq "$RUNS"); do
    rm -f "$ours_out" "$duck_out"
    measure "$out/client" -c "$code" big "$query" "$ours_out"
    t_ours+=("$WALL") m_ours+=("$RSS")
    n_ours=$(tail -n 1 "$out/last.out")
    measure node "$out/node/copy.mjs" "$pq" '*' "$where" "$duck_out"
    t_whole+=("$WALL") m_whole+=("$RSS")
    read -r secs n_duck <"$out/last.out"
    t_in+=("$secs")
    counts=$(node "$out/node/count.mjs" "$ours_out" "$duck_out")
    # shellcheck disable=SC2086 # two numbers
    check_rows "$name (ours, duckdb, ours' file, duckdb's file)" "$n_ours" "$n_duck" $counts
    printf 'run %d %-5s: ours %.3f s %s MB, duckdb whole %.3f s %s MB, in-process %.3f s; %s rows\n' \
      "$i" "$name" "${t_ours[-1]}" "${m_ours[-1]}" "${t_whole[-1]}" "${m_whole[-1]}" "$secs" "$n_ours"
  done
  printf -v "${name}_ours" '%s' "$(printf '%s\n' "${t_ours[@]}" | median)"
  printf -v "${name}_whole" '%s' "$(printf '%s\n' "${t_whole[@]}" | median)"
  printf -v "${name}_inproc" '%s' "$(printf '%s\n' "${t_in[@]}" | median)"
  printf -v "${name}_ours_mb" '%s' "$(printf '%s\n' "${m_ours[@]}" | maximum)"
  printf -v "${name}_whole_mb" '%s' "$(printf '%s\n' "${m_whole[@]}" | maximum)"
  printf -v "${name}_rows" '%s' "$n_ours"
  printf -v "${name}_pair_inproc" '%s' "$(pair_median "${t_ours[@]}" -- "${t_in[@]}")"
  printf -v "${name}_pair_whole" '%s' "$(pair_median "${t_ours[@]}" -- "${t_whole[@]}")"
}

run_case main "$QUERY" "$WHERE"
run_case small "$SMALL_QUERY" "$SMALL_WHERE"

echo
echo "main:  cfxql  $QUERY"
echo "       duckdb $WHERE"
echo "small: cfxql  $SMALL_QUERY"
echo "       duckdb $SMALL_WHERE"
echo "medians of $RUNS runs (peak memory: the largest of them); $ROWS rows in"
row() { printf '%-6s %-6s %-34s %9.3f %8s %10s\n' "$@"; }
printf '%-48s %9s %8s %10s\n' "" "seconds" "peak MB" "rows out"
# shellcheck disable=SC2154 # set by run_case
for c in main small; do
  n="${c}_ours" m="${c}_ours_mb" w="${c}_whole" wm="${c}_whole_mb" i="${c}_inproc" r="${c}_rows"
  row "$c" ours "client -c ... (whole process)" "${!n}" "${!m}" "${!r}"
  row "$c" duckdb "node process (whole)" "${!w}" "${!wm}" "${!r}"
  row "$c" duckdb "COPY statement (in-process)" "${!i}" "-" "${!r}"
done

at=""
[ "$ROWS" -eq 10000000 ] || at="; the targets are set at 10,000,000 rows"
echo
echo "ratio small: ours / duckdb in-process: $small_pair_inproc"
echo "ratio main: ours / duckdb whole process: $main_pair_whole"
echo "peak memory small: ours $small_ours_mb MB (target < 300 MB$at)"
echo "ratio main: peak memory ours / duckdb whole process: $(ratio "$main_ours_mb" "$main_whole_mb") (target <= 1.0$at)"
echo "ratio main: filter-and-write ours / duckdb in-process: $main_pair_inproc, median of the pairs' ratios (target <= 1.5$at)"
peer_version "DuckDB (@duckdb/node-api)" "$(duckdb_version)"
result "filter-and-write $ROWS rows, few rows kept: peak memory (MB)" "a figure" "$small_ours_mb" "<" 300
result "filter-and-write $ROWS rows: peak memory" "DuckDB, whole process" "$(ratio "$main_ours_mb" "$main_whole_mb")" "<=" 1.0
result "filter-and-write $ROWS rows: whole process" "DuckDB COPY, in-process" "$main_pair_inproc" "<=" 1.5
