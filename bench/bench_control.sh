#!/bin/bash
# SPDX-License-Identifier: MIT
# The control API under a busy 'status': a daemon watching BENCH_REPOS
# repos of BENCH_BRANCHES branches each answers 'ascendopt status' (which
# resolves every branch tip) while other requests keep being answered.
# Prints the time of one status, the time of one 'queue' on a quiet daemon
# and while BENCH_STORM clients ask for status back to back, and the ratio
# of the two: near 1 when status stays off the event loop.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-$SRC/build}" && pwd)
REPOS=${BENCH_REPOS:-100}
BRANCHES=${BENCH_BRANCHES:-20}
STORM=${BENCH_STORM:-4}
SAMPLES=${BENCH_SAMPLES:-30}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ascendopt-bench.XXXXXX")
pid=
storm_pids=()
cleanup() {
	for p in "${storm_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
export ASCENDOPT_SOCKET=$dir/ascendoptd.sock ASCENDOPT_SEED_BANK=
cli() { "$BUILD/ascendopt" "$@"; }

repos=
for i in $(seq "$REPOS"); do
	repo=$dir/repos/r$i
	mkdir -p "$repo/ops/add/op_host"
	echo h >"$repo/ops/add/op_host/add.cpp"
	git init -q -b main "$repo"
	git -C "$repo" add -A
	git -C "$repo" -c user.email=b@example.com -c user.name=B commit -qm ops
	for b in $(seq "$BRANCHES"); do git -C "$repo" branch "b$b"; done
	repos="$repos${repos:+, }{\"path\": \"$repo\", \"branches\": [\"*\"]}"
done
printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1, "repos": [%s]}' \
	"$dir" "$ASCENDOPT_SOCKET" "$repos" >"$dir/cfg.json"
"$BUILD/ascendoptd" --config "$dir/cfg.json" 2>"$dir/log" &
pid=$!
for _ in $(seq 600); do cli status >/dev/null 2>&1 && break; sleep 0.05; done
# the first scans record every branch; let them settle
want=$((REPOS * (BRANCHES + 1)))
for _ in $(seq 600); do
	[ "$(grep -c 'moved (new)' "$dir/log")" -ge "$want" ] && break
	sleep 0.1
done
sleep 1

ms_of() { local t0=$(date +%s%N); "$@" >/dev/null; echo $((($(date +%s%N) - t0) / 1000000)); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
largest() { sort -n | tail -1; }

status_ms=$(for _ in $(seq 5); do ms_of cli status --json; done | median)
quiet=$(for _ in $(seq "$SAMPLES"); do ms_of cli queue --json; done)
for _ in $(seq "$STORM"); do
	(while :; do cli status --json >/dev/null 2>&1; done) &
	storm_pids+=($!)
done
sleep 0.5
busy=$(for _ in $(seq "$SAMPLES"); do ms_of cli queue --json; done)
for p in "${storm_pids[@]}"; do kill "$p" 2>/dev/null || true; done
storm_pids=()

quiet_p50=$(echo "$quiet" | median) quiet_max=$(echo "$quiet" | largest)
busy_p50=$(echo "$busy" | median) busy_max=$(echo "$busy" | largest)
ratio=$(awk -v b="$busy_p50" -v q="$quiet_p50" 'BEGIN { printf "%.2f", (q > 0 ? b / q : 0) }')
printf '%-52s %8s\n' "control API ($REPOS repos x $((BRANCHES + 1)) branches)" "ms"
printf '%-52s %8d\n' "one status (median of 5)" "$status_ms"
printf '%-52s %8d\n' "one queue, quiet daemon (p50)" "$quiet_p50"
printf '%-52s %8d\n' "one queue, quiet daemon (max)" "$quiet_max"
printf '%-52s %8d\n' "one queue while $STORM clients ask for status (p50)" "$busy_p50"
printf '%-52s %8d\n' "one queue while $STORM clients ask for status (max)" "$busy_max"
printf '%-52s %8s\n' "busy p50 / quiet p50" "$ratio"
printf '{"bench":"control","repos":%d,"branches":%d,"status_ms":%d,"queue_quiet_ms":{"p50":%d,"max":%d},"queue_during_status_ms":{"p50":%d,"max":%d},"ratio":%s}\n' \
	"$REPOS" "$((BRANCHES + 1))" "$status_ms" "$quiet_p50" "$quiet_max" "$busy_p50" "$busy_max" "$ratio"
