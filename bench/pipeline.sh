#!/usr/bin/env bash
# A pipeline job and a dataset download, end to end, against DuckDB and
# against the raw blob in the same run.
#
# For each size in ROWS (default "1000000 10000000"): generates that many
# rows (bench/out/pipeline-ROWS.parquet, reused while current and written
# by this build), adds the file as the dataset bench-ROWS to a local
# fabric of its own (a temporary FABRIC_HOME with one worker, stopped and
# removed on exit), then, RUNS
# times each (default 3), in turn, fresh processes:
#   - ours, the job: client run-get-output --file P --tofile OUT.parquet,
#     where P is
#       @dm:recall name = 'bench-ROWS'
#         --> *dm:filter QUERY
#         --> @dm:selectcolumns include = 'id|ts|host|cpu|status'
#     timed whole from the outside (start, submit, the job on the worker,
#     the fetch of its output, the write), with the client's peak memory
#     and the local fabric's (its one process: NATS server and pods) peak
#     during the job;
#   - DuckDB: COPY (SELECT id, ts, host, cpu, status FROM read_parquet(...)
#     WHERE ...) TO OUT on the same Parquet file, with two figures: the
#     whole node process (timed from the outside, with its peak memory) and
#     the COPY statement alone, in-process;
#   - ours, the download: client dataset get --name bench-ROWS --tofile
#     OUT.parquet (the stored format), a new file each time;
#   - the floor: bench/blobfetch, which fetches the stored blob as it is
#     with nats.go and writes it to a file.
#   The download pair takes tens of milliseconds: it runs GETS times
#   (default 10) in each run.
# Both sides of the job must write the same number of rows (each side's own
# count and the rows of both files, counted by DuckDB), and the download
# all ROWS rows; the benchmark fails otherwise. Prints a table of the
# medians (peak memory: the largest of the runs), then the ratios; the ones
# that count, the job against DuckDB's in-process time, come last (largest
# size first, so the 1,000,000-row one ends the output).
# The ratios of times are the medians of the ratios of the runs' pairs.
# Targets: the 1,000,000-row job within 3x of DuckDB's in-process time;
# dataset get within 1.1x of fetching the raw blob, at each size.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-"1000000 10000000"}
RUNS=${RUNS:-3}
GETS=${GETS:-10}
QUERY=${QUERY:-"cpu > 50 and status is 'CRIT' and region in ['north','east']"}
WHERE=${WHERE:-"cpu > 50 AND status = 'CRIT' AND region IN ('north','east')"}
INCLUDE='id|ts|host|cpu|status'
COLUMNS='id, ts, host, cpu, status'
out=bench/out
mkdir -p "$out"
. bench/common.sh

build blobfetch
start_fabric

# input N: bench/out/pipeline-N.parquet, made from a scratch CSV unless
# it is current; added as the dataset bench-N.
input() {
  local pq="$out/pipeline-$1.parquet" csv="$out/pipeline.csv"
  if ! written_here "$pq" || [ bench/gencsv/main.go -nt "$pq" ]; then
    gen_csv "$1" "$csv"
    to_parquet "$csv" "$pq"
    rm -f "$csv"
  fi
  add_dataset "bench-$1" "$pq"
  echo "input: $pq, $1 rows, $(du -m "$pq" | cut -f1) MB, stored as the dataset bench-$1"
}

job_out="$PWD/$out/pipeline-ours.parquet"
duck_out="$PWD/$out/pipeline-duck.parquet"
get_out="$PWD/$out/pipeline-get.parquet"
blob_out="$PWD/$out/pipeline-blob.parquet"

# wrote: the rows a client command reports writing ("wrote N rows to F").
wrote() { sed -n 's/^wrote \([0-9]*\) rows to .*/\1/p' "$out/last.err" | tail -n 1; }

sizes=()
for n in $ROWS; do
  sizes+=("$n")
  input "$n"
  pq="$PWD/$out/pipeline-$n.parquet"
  pipe="$out/pipeline-$n.pipeline"
  printf "@dm:recall name = 'bench-%s'\n  --> *dm:filter %s\n  --> @dm:selectcolumns include = '%s'\n" "$n" "$QUERY" "$INCLUDE" >"$pipe"
  t_job=() m_job=() m_fab=() t_whole=() m_whole=() t_in=() t_get=() m_get=() t_blob=() m_blob=()
  for i in $(seq "$RUNS"); do
    rm -f "$job_out" "$duck_out" "$get_out" "$blob_out"
    fabricd_reset
    measure "$out/client" run-get-output --file "$pipe" --tofile "$job_out"
    t_job+=("$WALL") m_job+=("$RSS") m_fab+=("$(fabricd_peak)")
    n_job=$(wrote)
    measure node "$out/node/copy.mjs" "$pq" "$COLUMNS" "$WHERE" "$duck_out"
    t_whole+=("$WALL") m_whole+=("$RSS")
    read -r secs n_duck <"$out/last.out"
    t_in+=("$secs")
    counts=$(node "$out/node/count.mjs" "$job_out" "$duck_out")
    # shellcheck disable=SC2086 # two numbers
    check_rows "the $n-row job (ours, duckdb, ours' file, duckdb's file)" "$n_job" "$n_duck" $counts

    # The download takes tens of milliseconds: GETS pairs a run.
    for _ in $(seq "$GETS"); do
      rm -f "$get_out" "$blob_out"
      measure "$out/client" dataset get --name "bench-$n" --tofile "$get_out"
      t_get+=("$WALL") m_get+=("$RSS")
      n_get=$(wrote)
      measure "$out/blobfetch" "bench-$n" "$blob_out"
      t_blob+=("$WALL") m_blob+=("$RSS")
    done
    read -r _ stored <"$out/last.out"
    [ "$stored" = parquet ] || { echo "bench-$n is stored as ${stored:-nothing}, not parquet" >&2; exit 1; }
    check_rows "dataset get bench-$n (rows in, reported, in the file)" "$n" "$n_get" "$(node "$out/node/count.mjs" "$get_out")"
    printf 'run %d, %s rows: job ours %.3f s, duckdb whole %.3f s, in-process %.3f s (%s rows); dataset get %.3f s, blob %.3f s\n' \
      "$i" "$n" "${t_job[-1]}" "${t_whole[-1]}" "$secs" "$n_job" "${t_get[-1]}" "${t_blob[-1]}"
  done
  printf -v "job_$n" '%s' "$(printf '%s\n' "${t_job[@]}" | median)"
  printf -v "job_mb_$n" '%s' "$(printf '%s\n' "${m_job[@]}" | maximum)"
  printf -v "fab_mb_$n" '%s' "$(printf '%s\n' "${m_fab[@]}" | maximum)"
  printf -v "whole_$n" '%s' "$(printf '%s\n' "${t_whole[@]}" | median)"
  printf -v "whole_mb_$n" '%s' "$(printf '%s\n' "${m_whole[@]}" | maximum)"
  printf -v "inproc_$n" '%s' "$(printf '%s\n' "${t_in[@]}" | median)"
  printf -v "get_$n" '%s' "$(printf '%s\n' "${t_get[@]}" | median)"
  printf -v "get_mb_$n" '%s' "$(printf '%s\n' "${m_get[@]}" | maximum)"
  printf -v "blob_$n" '%s' "$(printf '%s\n' "${t_blob[@]}" | median)"
  printf -v "blob_mb_$n" '%s' "$(printf '%s\n' "${m_blob[@]}" | maximum)"
  printf -v "rows_$n" '%s' "$n_job"
  printf -v "pairget_$n" '%s' "$(pair_median "${t_get[@]}" -- "${t_blob[@]}")"
  printf -v "pairjob_$n" '%s' "$(pair_median "${t_job[@]}" -- "${t_in[@]}")"
  printf -v "bytes_$n" '%s' "$(stat -c %s "$blob_out")"
  rm -f "$get_out" "$blob_out"
done

echo
echo "job: @dm:recall --> *dm:filter $QUERY --> @dm:selectcolumns include = '$INCLUDE'"
echo "duckdb: COPY (SELECT $COLUMNS FROM read_parquet(...) WHERE $WHERE) TO ... (FORMAT parquet)"
echo "medians of $RUNS runs (peak memory: the largest of them)"
# v NAME: the figure NAME of the size $n.
v() { local x="$1_$n"; echo "${!x}"; }
# row SIZE WHAT SECONDS|- MB ROWS
row() {
  local secs=$3
  [ "$secs" = - ] || secs=$(printf '%.3f' "$secs")
  printf '%-14s %-50s %9s %8s %10s\n' "$1" "$2" "$secs" "$4" "$5"
}
printf '%-65s %9s %8s %10s\n' "" "seconds" "peak MB" "rows out"
for n in "${sizes[@]}"; do
  row "$n rows" "job: ours, client run-get-output (whole process)" "$(v job)" "$(v job_mb)" "$(v rows)"
  row "" "job: the local fabric's process, during the job" - "$(v fab_mb)" ""
  row "" "job: duckdb, node process (whole)" "$(v whole)" "$(v whole_mb)" "$(v rows)"
  row "" "job: duckdb, COPY statement (in-process)" "$(v inproc)" - "$(v rows)"
  row "" "get: ours, client dataset get --tofile .parquet" "$(v get)" "$(v get_mb)" "$n"
  row "" "get: floor, blobfetch ($(v bytes) bytes)" "$(v blob)" "$(v blob_mb)" "$n"
done

echo
for n in "${sizes[@]}"; do
  echo "ratio $n rows: job ours / duckdb whole process: $(ratio "$(v job)" "$(v whole)")"
done
peer_version "DuckDB (@duckdb/node-api)" "$(duckdb_version)"
for n in "${sizes[@]}"; do
  echo "ratio $n rows: dataset get / raw blob fetch: $(v pairget) (target <= 1.1)"
  result "dataset get $n rows to the stored format" "raw blob fetch (bench/blobfetch)" "$(v pairget)" "<=" 1.1
done
# The ones that count last, largest first: the 1,000,000-row job ends it.
for n in $(printf '%s\n' "${sizes[@]}" | sort -rn); do
  target="target <= 3 at 1,000,000 rows"
  [ "$n" -ne 1000000 ] || target="target <= 3"
  [ "$n" -ne 1000000 ] || result "pipeline job $n rows, run-get-output" "DuckDB COPY, in-process" "$(v pairjob)" "<=" 3
  echo "ratio $n rows: job ours / duckdb in-process: $(v pairjob) ($target)"
done
