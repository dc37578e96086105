# Sourced by every benchmark (bench/common.sh sources it too): the lines
# bench/run.sh reads to make its table. A benchmark prints its own report
# as it likes, and one line per target it holds:
#
#   result MEASURE PEER VALUE OP TARGET
#
# MEASURE is what the user waits for (e.g. "filter-and-write 10M rows:
# time"), PEER the peer or floor it is set against (e.g. "DuckDB COPY,
# in-process"), VALUE the ratio (or a figure, when the target is one: MB,
# docs/s, ms), OP one of <= < >= >, TARGET the number. The line is
#
#   @result<TAB>MEASURE<TAB>PEER<TAB>VALUE<TAB>OP<TAB>TARGET
#
# and "peer_version NAME VERSION" prints "@peer<TAB>NAME<TAB>VERSION".
# Keep the lines of one script in the order its report explains them.

result() {
  printf '@result\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5"
}

peer_version() {
  printf '@peer\t%s\t%s\n' "$1" "$2"
}

# pair_median A... -- B...: the median of the ratios A[i]/B[i] of runs
# taken in pairs (ours then the peer's, in turn), as a paired timer
# reports: drift on the machine touches both sides of a pair alike.
pair_median() {
  local a=() b=() seen=0 x i
  for x in "$@"; do
    if [ "$x" = "--" ]; then seen=1; continue; fi
    if [ "$seen" = 0 ]; then a+=("$x"); else b+=("$x"); fi
  done
  for i in "${!a[@]}"; do
    awk -v a="${a[$i]}" -v b="${b[$i]}" 'BEGIN { if (b > 0) printf "%.6f\n", a / b }'
  done | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.2f", v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# duckdb_version: the version of @duckdb/node-api installed in $out/node.
duckdb_version() {
  node -e "console.log(require('$PWD/$out/node/node_modules/@duckdb/node-api/package.json').version)" 2>/dev/null || echo unknown
}
