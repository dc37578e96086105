#!/usr/bin/env bash
# The event gateway's syslog-over-TCP ingest against its floor, raw
# JetStream async publish of the same messages, in the same run, on
# loopback only. bench/eventsload sends N (default 200,000) RFC 5424
# messages of about 150 bytes over one TCP connection to the local
# fabric's syslog-tcp endpoint and times them until the endpoint's stream
# holds every record (each parsed, made a record with its raw text, and
# acknowledged by the stream); then it publishes the same messages to a
# fresh stream with raw JetStream async publish (4,000 in flight) and
# times them until the last acknowledgement. RUNS times (default 3);
# medians. Prints the ratio ingest rate / raw publish rate last.
# Target: at least 0.5.
#
# (The issue's second half, logarchive-replay --speed 0 against raw
# publish, comes with the log archives.)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200000}
RUNS=${RUNS:-3}
out=bench/out
mkdir -p "$out"
. bench/common.sh
build eventsload
start_fabric

ingest=() raw=()
for i in $(seq "$RUNS"); do
  sync
  line=$("$out/eventsload" "$N")
  echo "run $i: $line"
  ingest+=("$(echo "$line" | sed -n 's/.*ingest_rate=\([0-9]*\).*/\1/p')")
  raw+=("$(echo "$line" | sed -n 's/.*raw_rate=\([0-9]*\).*/\1/p')")
done
med() { printf '%s\n' "$@" | median; }
ing=$(med "${ingest[@]}") rw=$(med "${raw[@]}")
printf '\n%d syslog messages over TCP, medians of %d runs (messages/s)\n' "$N" "$RUNS"
printf '%-60s %10s\n' "ingest: syslog over TCP -> gateway -> stream (acknowledged)" "$ing"
printf '%-60s %10s\n' "floor: raw JetStream async publish of the same messages" "$rw"
ratio=$(awk -v a="$ing" -v b="$rw" 'BEGIN { printf "%.2f", a / b }')
if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.5) }'; then met=met; else met="NOT met"; fi
echo "target ingest >= 0.5 x raw publish: $met"
echo "ratio ingest / raw publish: $ratio"
