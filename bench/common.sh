# Sourced by bench/filter.sh and bench/pipeline.sh, from the repository's
# root with $out set: builds the binaries, makes the inputs, starts a local
# fabric of its own, measures fresh processes and writes the DuckDB peer.
# Needs go, node and npm; GNU time is installed (Debian) when missing.

# build BINARY...: the binaries as make build builds them (client lean,
# client-data, fabricd), then the named helpers of bench/, one at a time.
. bench/gobuild.sh
build() {
  build_fabric
  local b
  for b in gencsv "$@"; do
    go_build "$out/$b" "./bench/$b"
  done
}

# GNU time gives each process's peak RSS; installed as the Makefile
# installs Debian packages.
if [ ! -x /usr/bin/time ]; then
  echo "installing time (Debian package, for peak memory)"
  if command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time) >/dev/null 2>&1 || true
  fi
  [ -x /usr/bin/time ] || { echo "the benchmark needs GNU time at /usr/bin/time (Debian package time)" >&2; exit 1; }
fi

# gen_csv ROWS FILE: (re)generate FILE unless it is current.
gen_csv() {
  if [ ! -f "$2" ] || [ bench/gencsv/main.go -nt "$2" ] || [ "$(wc -l <"$2")" -ne $(($1 + 1)) ]; then
    "$out/gencsv" "$1" "$2"
  fi
}

# writer_stamp: names the Parquet writer of this build (the data build's
# digest); FILE.writer holds the stamp of the build that wrote FILE.
writer_stamp() { sha256sum "$out/client-data" | cut -c1-16; }

# written_here FILE: whether this build wrote FILE (an earlier build's
# file, in other encodings, would give the peer another file to read).
written_here() { [ -f "$1" ] && [ "$(cat "$1.writer" 2>/dev/null)" = "$(writer_stamp)" ]; }

# to_parquet CSV PARQUET: convert unless this build wrote PARQUET from
# this CSV.
to_parquet() {
  if ! written_here "$2" || [ "$1" -nt "$2" ]; then
    "$out/client" file-ops csv-to-parquet --from "$1" --to "$2" >/dev/null
    writer_stamp >"$2.writer"
  fi
}

# start_fabric: a local fabric of one worker in a temporary FABRIC_HOME,
# stopped and removed on exit. Nothing of the caller's configuration
# (FABRIC_NETWORK_CONFIG, FABRIC_USER, FABRIC_PASSWORD) is used.
start_fabric() {
  unset FABRIC_USER FABRIC_PASSWORD
  FABRIC_HOME=$(mktemp -d)
  export FABRIC_HOME
  export FABRIC_NETWORK_CONFIG="$FABRIC_HOME/fabric_network_config.json"
  trap '"$out/client" fabric down >/dev/null 2>&1 || true; rm -rf "$FABRIC_HOME"' EXIT
  "$out/client" fabric up --workers 1 >/dev/null
  FABRICD_PID=$("$out/client" fabric status --json | sed -n 's/^ *"pid": *\([0-9]*\).*/\1/p')
}

# add_dataset NAME FILE: stores FILE as the dataset NAME (quietly, unless
# it fails).
add_dataset() {
  "$out/client" dataset add --name "$1" --file "$2" >/dev/null 2>"$out/last.err" || { cat "$out/last.err" >&2; exit 1; }
}

# measure CMD...: runs CMD as a fresh process, its stdout in $out/last.out
# and its stderr in $out/last.err; sets WALL (seconds, from the outside)
# and RSS (its peak resident memory in MB, GNU time's maximum RSS, which
# covers what it execs). A failure ends the benchmark.
measure() {
  local t0 t1
  t0=$(date +%s%N)
  if ! /usr/bin/time -f '%M' -o "$out/time.txt" "$@" >"$out/last.out" 2>"$out/last.err"; then
    echo "failed: $*" >&2
    cat "$out/last.err" >&2
    exit 1
  fi
  t1=$(date +%s%N)
  WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
  RSS=$(awk 'END { printf "%.0f", $1 / 1024 }' "$out/time.txt")
}

# fabricd_reset / fabricd_peak: the local fabric's process (NATS server and
# every pod) peak RSS in MB since the reset; "n/a" when /proc says nothing.
fabricd_reset() { echo 5 >"/proc/$FABRICD_PID/clear_refs" 2>/dev/null || true; }
fabricd_peak() { awk '/^VmHWM:/ { printf "%.0f", $2 / 1024; found = 1 } END { if (!found) printf "n/a" }' "/proc/$FABRICD_PID/status" 2>/dev/null || echo n/a; }

# median: the middle of the numbers on stdin; maximum: the largest.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
maximum() { sort -g | tail -n 1; }

# ratio A B: A/B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "inf" }'; }

# check_rows WHAT N...: every count must be the same number; else fail loudly.
check_rows() {
  local what=$1 first=$2 n
  shift
  for n in "$@"; do
    if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" != "$first" ]; then
      echo "ROW COUNTS DIFFER for $what: $*" >&2
      exit 1
    fi
  done
}

# The DuckDB peer: copy.mjs times the COPY statement alone, in-process,
# and prints its seconds and the rows it copied (COPY's own count);
# count.mjs prints the rows of each Parquet file it is given.
. bench/duckdb.sh
. bench/result.sh
cat >"$out/node/copy.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const [src, cols, where, dst] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const sql = `COPY (SELECT ${cols} FROM read_parquet('${src}') WHERE ${where}) TO '${dst}' (FORMAT parquet)`;
const t0 = performance.now();
const res = await conn.runAndReadAll(sql);
const secs = (performance.now() - t0) / 1000;
console.log(`${secs} ${res.getRows()[0][0]}`);
JS
cat >"$out/node/count.mjs" <<'JS'
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const counts = [];
for (const f of process.argv.slice(2)) {
  const r = await conn.runAndReadAll(`SELECT count(*) FROM read_parquet('${f}')`);
  counts.push(String(r.getRows()[0][0]));
}
console.log(counts.join(' '));
JS
