#!/bin/bash
# SPDX-License-Identifier: MIT
# A daemon watching 100 repos idles at zero CPU: over a few quiet seconds
# none of its threads is scheduled (no timer, no polling), it used no CPU
# ticks, and a commit to one repo still wakes it.
. "$(dirname "$0")/tap.sh"
plan 7

sock=$SCRATCH/ascendoptd.sock
cfg=$SCRATCH/ascendoptd.json
export ASCENDOPT_SOCKET=$sock
export ASCENDOPT_LOCK_DIR=$SCRATCH/locks
cli() { "$BUILD/ascendopt" "$@"; }

repos=
for i in $(seq 100); do
	repo=$SCRATCH/repos/r$i
	mkdir -p "$repo/ops/add/op_host" "$repo/ops/add/op_kernel"
	echo h >"$repo/ops/add/op_host/add.cpp"
	echo k >"$repo/ops/add/op_kernel/add.cpp"
	git init -q -b main "$repo"
	git -C "$repo" add -A
	git -C "$repo" -c user.email=t@example.com -c user.name=T commit -qm ops
	repos="$repos${repos:+, }{\"path\": \"$repo\"}"
done
printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1, "repos": [%s]}' \
	"$SCRATCH" "$sock" "$repos" >"$cfg"

"$BUILD/ascendoptd" --config "$cfg" 2>"$SCRATCH/daemon.log" &
pid=$!
started() { for _ in $(seq 600); do cli status >/dev/null 2>&1 && return 0; sleep 0.05; done; return 1; }
check "the daemon starts with 100 repos" started
# the first commits are recorded (not queued) on start; let that settle
for _ in $(seq 100); do
	[ "$(grep -c 'moved (new)' "$SCRATCH/daemon.log")" -ge 100 ] && break
	sleep 0.1
done
is "every repo is watched" "$(grep -c '^<6>watching ' "$SCRATCH/daemon.log")" 100

# cpu_ticks: utime + stime of the whole process; switches: context
# switches summed over its threads (a wakeup of any thread counts)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
switches() { cat /proc/"$pid"/task/*/status | awk '/ctxt_switches/ { n += $2 } END { print n }'; }
# startup is over when a quiet second passes (store writes, the first scans)
last=$(switches)
for _ in $(seq 20); do
	sleep 1
	now=$(switches)
	[ "$now" = "$last" ] && break
	last=$now
done
t0=$(cpu_ticks) s0=$(switches)
sleep 5
t1=$(cpu_ticks) s1=$(switches)
echo "# idle for 5 s: $((t1 - t0)) CPU ticks, $((s1 - s0)) context switches"
is "no CPU ticks while idle" "$((t1 - t0))" 0
is "no thread wakes up while idle" "$((s1 - s0))" 0

# status reads the 100 repos on a worker; requests that arrive meanwhile
# share its answer, so many clients at once are all answered in full
asking=()
for i in $(seq 20); do
	cli status --json >"$SCRATCH/status-$i.json" 2>&1 &
	asking+=($!)
done
wait "${asking[@]}"
full=0
for i in $(seq 20); do
	[ "$(grep -o '"branches":' "$SCRATCH/status-$i.json" | wc -l)" = 100 ] && full=$((full + 1))
done
is "20 status requests at once are all answered with the 100 repos" "$full" 20

git -C "$SCRATCH/repos/r57" -c user.email=t@example.com -c user.name=T commit -q --allow-empty -m poke
check "a commit still wakes it" wait_for_file_text "$SCRATCH/daemon.log" "r57] branch main moved" 10
kill -TERM "$pid"
wait "$pid"
is "the daemon stops cleanly" "$?" 0
done_testing
