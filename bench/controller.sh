#!/usr/bin/env bash
# The deployment controller against plain run calls, in the same run, on
# loopback only: D deployments (default 200) of I service instances each
# (default 5) on W workers (default 4), D x I jobs in all, each a service
# pipeline that follows a stream until stopped.
#
# Controller: a fresh client process deploys a bundle of the D blueprints
# (bundle-deploy); timed from its start until every job runs (Running in
# its record). Then the scheduler process's CPU per controller period
# (2s in the benchmark) while they all run.
# Peer: the same number of jobs started with run on a fresh fabric, as
# D x I "client run --name svc" processes one after the other, and from
# one workflow calling run() D x I times (in-process), each timed until
# every job runs. The fabrics are separate fabricd processes (api-server
# and scheduler, then the workers) over a NATS server of the benchmark's.
#
# Prints the ratios last. Target: the controller within 0.5x of plain
# runs (the ratio to the in-process runs, the stricter, is last).
set -euo pipefail
cd "$(dirname "$0")/.."
D=${D:-200}
I=${I:-5}
W=${W:-4}
out=bench/out
mkdir -p "$out"
. bench/gobuild.sh
build_fabric
go_build "$out/controllerload" ./bench/controllerload
line=$("$out/controllerload" "$out/fabricd" "$out/client" "$D" "$I" "$W")
field() { echo "$line" | sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
ctl=$(field controller_s) cpu=$(field controller_cpu_ms_per_period)
procs=$(field run_procs_s) inproc=$(field run_inproc_s)
n=$((D * I))
printf '\n%d deployments x %d instances = %d jobs on %d workers (seconds until all run)\n' "$D" "$I" "$n" "$W"
printf '%-66s %8s\n' "controller: client bundle-deploy, until every job runs" "$ctl"
printf '%-66s %8s\n' "run: $n client run processes, until every job runs" "$procs"
printf '%-66s %8s\n' "run: one workflow calling run() $n times, until every job runs" "$inproc"
printf '%-66s %8s\n' "controller CPU per 2s period with all $n running (ms)" "$cpu"
r1=$(awk -v a="$ctl" -v b="$procs" 'BEGIN { printf "%.2f", a / b }')
r2=$(awk -v a="$ctl" -v b="$inproc" 'BEGIN { printf "%.2f", a / b }')
if awk -v r="$r2" 'BEGIN { exit !(r <= 0.5) }'; then met=met; else met="NOT met"; fi
echo "target controller <= 0.5 x plain runs (in-process): $met"
. bench/result.sh
result "controller: $n jobs of a bundle running" "one workflow calling run() $n times" "$r2" "<=" 0.5
echo "ratio controller / run processes: $r1"
echo "ratio controller / run in-process: $r2"
