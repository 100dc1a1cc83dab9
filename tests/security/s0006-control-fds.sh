#!/bin/bash
# SPDX-License-Identifier: MIT
# Clients that hold the control socket's connections until the daemon runs
# out of descriptors: accept() then fails with EMFILE while the socket
# stays readable, and the daemon used to retry it in a loop, logging each
# failure (65 million lines in 100 s).  It must pause accepting, say so
# once, use no CPU meanwhile, and answer again once the clients go.
. "$(dirname "$0")/../tap.sh"
plan 5

sock=$SCRATCH/ascendoptd.sock
cfg=$SCRATCH/ascendoptd.json
log=$SCRATCH/daemon.log
export ASCENDOPT_SOCKET=$sock
# a connection limit above the descriptors, so that accept() runs out first
printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1, "limits": {"control_connections": 200}}' \
	"$SCRATCH" "$sock" >"$cfg"
(
	ulimit -n 96
	exec "$BUILD/ascendoptd" --config "$cfg" 2>>"$log"
) &
pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && "$BUILD/ascendopt" status >/dev/null 2>&1 && break; sleep 0.05; done
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }

# 120 idle connections, held open, against a limit of 96 descriptors
python3 - "$sock" "$SCRATCH/hold" <<'PY' &
import os, socket, sys, time
held = []
for _ in range(120):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    held.append(s)
open(sys.argv[2], "w").close()
while os.path.exists(sys.argv[2]):
    time.sleep(0.05)
PY
holder=$!
for _ in $(seq 100); do [ -e "$SCRATCH/hold" ] && break; sleep 0.05; done
sleep 0.5
before=$(ticks)
sleep 2
after=$(ticks)
check "the daemon logs the exhaustion once, naming the error" \
	test "$(grep -c 'cannot accept connections: Too many open files' "$log")" -eq 1
check "and does not spin meanwhile ($((after - before)) CPU ticks in 2 s)" test $((after - before)) -le 20
lines=$(wc -l <"$log")
check "its log stays short ($lines lines)" test "$lines" -lt 50

rm -f "$SCRATCH/hold"
wait "$holder"
answered=no
for _ in $(seq 30); do
	"$BUILD/ascendopt" status >/dev/null 2>&1 && answered=yes && break
	sleep 0.5
done
is "once the clients go, status is answered again" "$answered" yes
kill -TERM "$pid"
wait "$pid"
is "the daemon stops cleanly" "$?" 0
done_testing
