#!/usr/bin/env bash
# A Starlark transform bot of a bot package against the built-in @dm:eval
# doing the same column computation, end to end as jobs.
#
# Makes ROWS rows (default 1,000,000; bench/out/pipeline-ROWS.parquet, as
# bench/pipeline.sh makes it, reused while current and written by this
# build), starts a local fabric of its own (a temporary FABRIC_HOME,
# stopped and removed on exit), adds it as the dataset bench-ROWS, and adds
# the bot package of
# bench/out/botbench (namespace bench, one transform bot, scale, that
# sets load = cpu * 2 + mem on each row). Then, RUNS times each (default
# 3), in turn, a fresh process runs the job and writes its output:
#   client run-get-output --file P --tofile OUT.parquet
# for the pipelines
#   @dm:recall name = 'bench-ROWS' --> @dm:selectcolumns include = 'id|cpu|mem'
#     --> @bench:scale
#   @dm:recall name = 'bench-ROWS' --> @dm:selectcolumns include = 'id|cpu|mem'
#     --> @dm:eval load = 'cpu * 2 + mem'
# timed whole from the outside. Both must write ROWS rows. Prints the
# medians, then the ratio bot / eval last. Target: within 5x.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
RUNS=${RUNS:-3}
out=bench/out
mkdir -p "$out"
. bench/common.sh

build
start_fabric

pq="$out/pipeline-$ROWS.parquet"
if ! written_here "$pq" || [ bench/gencsv/main.go -nt "$pq" ]; then
  gen_csv "$ROWS" "$out/pipeline.csv"
  to_parquet "$out/pipeline.csv" "$pq"
  rm -f "$out/pipeline.csv"
fi
add_dataset "bench-$ROWS" "$pq"
echo "input: $pq, $ROWS rows, stored as the dataset bench-$ROWS"

pkg="$out/botbench"
rm -rf "$pkg"
mkdir -p "$pkg"
cat >"$pkg/bots.yml" <<'YML'
extension:
  namespace: bench
  type: bot-package
  version: 1.0.0
  description: the bot of bench/bots.sh
  default_name: bench-bots
  publisher: bench
  support_email: ""
  config_template: {}
  implementation: {code: bench.Bots}
bots:
  - {name: scale, description: "load = cpu * 2 + mem", bot_type: transform, model_type: api}
YML
cat >"$pkg/bench.star" <<'STAR'
def scale(frame, params, config):
    return frame.with_column("load", lambda row: row["cpu"] * 2 + row["mem"])

Bots = struct(scale = scale)
STAR
"$out/client" bot-package add --dir "$pkg" --overwrite >/dev/null 2>"$out/last.err" || { cat "$out/last.err" >&2; exit 1; }

head="@dm:recall name = 'bench-$ROWS'\n  --> @dm:selectcolumns include = 'id|cpu|mem'\n"
printf "$head  --> @bench:scale\n" >"$out/bots-bot.pipeline"
printf "$head  --> @dm:eval load = 'cpu * 2 + mem'\n" >"$out/bots-eval.pipeline"

# wrote: the rows a client command reports writing ("wrote N rows to F").
wrote() { sed -n 's/^wrote \([0-9]*\) rows to .*/\1/p' "$out/last.err" | tail -n 1; }

t_bot=() t_eval=() m_fab=()
for i in $(seq "$RUNS"); do
  for side in bot eval; do
    rm -f "$out/bots-$side.parquet"
    fabricd_reset
    measure timeout 600 "$out/client" run-get-output --file "$out/bots-$side.pipeline" --tofile "$PWD/$out/bots-$side.parquet"
    [ "$(wrote)" = "$ROWS" ] || { echo "the $side job wrote $(wrote) rows, not $ROWS" >&2; cat "$out/last.err" >&2; exit 1; }
    if [ "$side" = bot ]; then t_bot+=("$WALL"); m_fab+=("$(fabricd_peak)"); else t_eval+=("$WALL"); fi
    echo "run $i $side: ${WALL}s" >&2
  done
done
bot=$(printf '%s\n' "${t_bot[@]}" | median)
ev=$(printf '%s\n' "${t_eval[@]}" | median)
"$out/client" fabric down >/dev/null 2>&1 || true
echo "medians of $RUNS runs, $ROWS rows"
echo "  @bench:scale (Starlark bot), job end to end: ${bot}s (fabricd peak: $(printf '%s\n' "${m_fab[@]}" | maximum) MB)"
echo "  @dm:eval (built-in), job end to end:        ${ev}s"
r=$(pair_median "${t_bot[@]}" -- "${t_eval[@]}")
result "a package's Starlark bot over $ROWS rows, job end to end" "the built-in @dm:eval, the same computation" "$r" "<=" 5
echo "ratio bot / eval: $r, median of the pairs' ratios (target: within 5x)"
