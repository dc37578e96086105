#!/usr/bin/env bash
# The event gateway's syslog-over-TCP ingest and logarchive-replay
# --speed 0, each against its floor, raw JetStream async publish of the
# same messages, in the same run, on loopback only.
#
# Ingest: bench/eventsload sends N (default 200,000) RFC 5424 messages
# of about 150 bytes over one TCP connection to the local fabric's
# syslog-tcp endpoint and times them until the endpoint's stream holds
# every record (each parsed, made a record with its raw text, and
# acknowledged by the stream); the floor publishes the same messages.
#
# Replay: the N records the gateway made are archived as three minutes;
# a fresh client process runs logarchive-replay --speed 0 of them into a
# new stream, timed from its start to its exit (the job on a worker reads
# the gzipped minutes and publishes every record, acknowledged); the
# floor publishes the same records. The job's own rate (inside the
# fabric, without the process and job start) is printed too.
#
# Each floor publishes to a fresh stream with 4,000 in flight and waits
# for the last acknowledgement. RUNS times (default 3); medians. Prints
# the ratios last (medians of the runs' ratios: each run is a pair, ours
# and its floor). Targets: ingest at least 0.6, replay at least 0.8.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200000}
RUNS=${RUNS:-3}
out=bench/out
mkdir -p "$out"
. bench/common.sh
build eventsload
start_fabric

ingest=() raw=() replay=() jobrate=() rawrec=()
field() { echo "$2" | sed -n "s/.* $1=\([0-9]*\).*/\1/p; s/^$1=\([0-9]*\).*/\1/p"; }
for i in $(seq "$RUNS"); do
  sync
  line=$("$out/eventsload" "$N" "$out/client")
  echo "run $i: $line"
  ingest+=("$(field ingest_rate "$line")")
  raw+=("$(field raw_rate "$line")")
  replay+=("$(field replay_rate "$line")")
  jobrate+=("$(field replay_job_rate "$line")")
  rawrec+=("$(field raw_records_rate "$line")")
done
med() { printf '%s\n' "$@" | median; }
ing=$(med "${ingest[@]}") rw=$(med "${raw[@]}")
rep=$(med "${replay[@]}") job=$(med "${jobrate[@]}") rwr=$(med "${rawrec[@]}")
printf '\n%d events, medians of %d runs (messages/s)\n' "$N" "$RUNS"
printf '%-72s %10s\n' "ingest: syslog over TCP -> gateway -> stream (acknowledged)" "$ing"
printf '%-72s %10s\n' "floor: raw JetStream async publish of the same messages" "$rw"
printf '%-72s %10s\n' "replay: client logarchive-replay --speed 0, process start to exit" "$rep"
printf '%-72s %10s\n' "  (the replay job's own rate, inside the fabric)" "$job"
printf '%-72s %10s\n' "floor: raw JetStream async publish of the same records" "$rwr"
ratio=$(pair_median "${ingest[@]}" -- "${raw[@]}")
rratio=$(pair_median "${replay[@]}" -- "${rawrec[@]}")
jratio=$(awk -v a="$job" -v b="$rwr" 'BEGIN { printf "%.2f", a / b }')
if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.6) }'; then met=met; else met="NOT met"; fi
if awk -v r="$rratio" 'BEGIN { exit !(r >= 0.8) }'; then rmet=met; else rmet="NOT met"; fi
echo "target ingest >= 0.6 x raw publish: $met"
echo "target replay >= 0.8 x raw publish: $rmet"
result "syslog TCP ingest, acknowledged (rate)" "raw JetStream async publish" "$ratio" ">=" 0.6
result "logarchive-replay --speed 0, process start to exit (rate)" "raw JetStream async publish" "$rratio" ">=" 0.8
echo "ratio replay job (in-process) / raw publish: $jratio"
echo "ratio ingest / raw publish: $ratio"
echo "ratio replay / raw publish: $rratio"
