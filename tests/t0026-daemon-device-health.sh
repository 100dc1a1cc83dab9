#!/bin/bash
# SPDX-License-Identifier: MIT
# A device whose run times out is health-probed before anyone gets it
# again, and quarantined when the probe fails: 'status' shows it with the
# reason and when it is probed again, queued work waits instead of running
# on it, and the daemon goes on.  Once the device answers a later probe it
# is back in service and the waiting work runs, with no restart.
. "$(dirname "$0")/tap.sh"
plan 11

repo=$SCRATCH/ops
sock=$SCRATCH/ascendoptd.sock
cfg=$SCRATCH/ascendoptd.json
log=$SCRATCH/daemon.log
export ASCENDOPT_SOCKET=$sock
export ASCENDOPT_LOCK_DIR=$SCRATCH/locks
# the probe of this test fails the way a wedged device would, until the
# test leaves word in the re-probes' scratch directory (the one path of the
# state the sandbox shows them); re-probes come after 2 s, then 4 s
healthy=$SCRATCH/state/probes/device-0/healthy
export ASCENDOPT_DEVICE_PROBE="test -e '$healthy' || { echo the device does not answer >&2; exit 1; }"
export ASCENDOPT_DEVICE_RECHECK_S=2
cli() { "$BUILD/ascendopt" "$@"; }

git init -q -b main "$repo"
git -C "$repo" config user.email t@example.com
git -C "$repo" config user.name Tester
for op in relu add; do
	mkdir -p "$repo/ops/$op"
	(cd "$SRC/examples/ops/level1/$op" && tar cf - --exclude=expert .) | tar xf - -C "$repo/ops/$op"
done
git -C "$repo" add -A && git -C "$repo" commit -qm ops
cat >"$cfg" <<JSON
{"state_dir": "$SCRATCH/state", "socket": "$sock", "devices": 1,
 "episode": {"budget": 2, "eval_timeout_s": 6},
 "repos": [{"path": "$repo", "branches": ["main"]}]}
JSON

"$BUILD/ascendoptd" --config "$cfg" 2>"$log" &
pid=$!
started() { for _ in $(seq 600); do cli status >/dev/null 2>&1 && return 0; sleep 0.05; done; return 1; }
check "the daemon starts" started

# a kernel that hangs: its run outlives eval_timeout_s
kernel=$repo/ops/relu/op_kernel/relu_custom.cpp
sed -i 's|^#include "kernel_operator.h"|#include "kernel_operator.h"\n#include <unistd.h>|; s|^\tGET_TILING_DATA(tilingData, tiling);|\tsleep(60);\n\tGET_TILING_DATA(tilingData, tiling);|' "$kernel"
git -C "$repo" commit -qam "relu: hangs"
check "the device is quarantined after its probe fails" \
	wait_for_file_text "$log" "device 0 is quarantined" 90
status=$(cli status)
contains "status shows the device quarantined" "$status" "quarantined: health probe failed"
contains "status gives the probe's words" "$status" "the device does not answer"
contains "status says when it is probed again" "$status" "(probed again in "
case "$status" in *quarantined*) ;; *) tail -8 "$log" | sed 's/^/# /' ;; esac

id=$(cli enqueue "$repo" ops/add --json | grep -o '"id":[0-9]*' | cut -d: -f2)
sleep 1
contains "queued work waits instead of running on it" "$(cli show "$id" --json)" '"state":"queued"'
check "a failed re-probe keeps it out and doubles the pause" \
	wait_for_file_text "$log" "device 0 is probed again in 4 s" 10
contains "and status says how many re-probes failed" "$(cli status)" "again (1 time since the quarantine)"

touch "$healthy"
check "a re-probe that passes puts the device back in service" \
	wait_for_file_text "$log" "device 0 passed its health probe again: back in service" 15
check "and the waiting work runs on it" wait_for_file_text "$log" "started ops/add" 10
kill -TERM "$pid"
wait "$pid"
is "the daemon stops cleanly" "$?" 0
done_testing
