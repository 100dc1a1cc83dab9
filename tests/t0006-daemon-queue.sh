#!/bin/bash
# SPDX-License-Identifier: MIT
# The daemon end to end on a real repo: a commit touching one operator
# queues exactly one item within 2 s, a commit touching none queues
# nothing, rapid commits collapse, the control API answers the CLI, and a
# kill -9 loses no queued item.
. "$(dirname "$0")/tap.sh"
plan 16

repo=$SCRATCH/ops
sock=$SCRATCH/ascendoptd.sock
cfg=$SCRATCH/ascendoptd.json
log=$SCRATCH/daemon.log
export ASCENDOPT_SOCKET=$sock
cli() { "$BUILD/ascendopt" "$@"; }

git init -q -b main "$repo"
(
	cd "$repo" && git config user.email t@example.com && git config user.name Tester &&
	mkdir -p ops/add/op_host ops/add/op_kernel ops/relu/op_host ops/relu/op_kernel &&
	echo h >ops/add/op_host/add.cpp && echo k >ops/add/op_kernel/add.cpp &&
	echo h >ops/relu/op_host/relu.cpp && echo k >ops/relu/op_kernel/relu.cpp &&
	git add -A && git commit -qm initial
)
printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1, "repos": [{"path": "%s"}]}' \
	"$SCRATCH" "$sock" "$repo" >"$cfg"

start_daemon() {
	"$BUILD/ascendoptd" --config "$cfg" 2>>"$log" &
	pid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && cli status >/dev/null 2>&1 && return 0; sleep 0.05; done
	return 1
}
queued_count() { cli queue --json | grep -o '"state":"queued"' | wc -l; }

check "daemon starts and answers status" start_daemon
# these operators are not real ones: keep the scheduler from claiming them
cli pause >/dev/null
status=$(cli status --json)
contains "status lists the repo and its branch" "$status" "\"branch\":\"main\""

(cd "$repo" && echo k2 >ops/add/op_kernel/add.cpp && git commit -qam kernel)
start=$(date +%s%N)
for _ in $(seq 40); do [ "$(queued_count)" -ge 1 ] && break; sleep 0.05; done
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
is "one commit to one operator queues one item" "$(queued_count)" 1
if [ "$took_ms" -lt 2000 ]; then ok "queued within 2 s (${took_ms} ms)"; else not_ok "took ${took_ms} ms"; fi
contains "the item names the operator" "$(cli queue)" "ops/add"

(cd "$repo" && echo docs >README && git add README && git commit -qm docs)
sleep 1.2
is "a commit touching no operator queues nothing" "$(queued_count)" 1

(cd "$repo" && for i in 1 2 3 4 5 6 7 8 9 10; do echo $i >ops/add/op_host/add.cpp; git commit -qam "c$i"; done)
sleep 1.5
is "ten rapid commits leave one queued item for the operator" "$(queued_count)" 1
newest=$(git -C "$repo" rev-parse HEAD)
contains "the item is for the newest commit" "$(cli queue --json)" "$newest"
contains "the older item was superseded" "$(cli episodes --json)" '"state":"superseded"'

out=$(cli enqueue "$repo" ops/relu)
contains "manual enqueue answers with an id" "$out" "queued item"
contains "manual items are marked" "$(cli queue --json)" '"priority":"manual"'

id=$(cli queue --json | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
cli cancel "$id" >/dev/null
is "cancel removes an item from the queue" "$(queued_count)" 1

contains "pause shows in status" "$(cli status)" "PAUSED"

printf '{"devices": "many"}' >"$SCRATCH/bad.json"
cp "$cfg" "$SCRATCH/good.json" && cp "$SCRATCH/bad.json" "$cfg"
err=$(cli reload 2>&1)
contains "a bad config is rejected by reload" "$err" "devices"
cp "$SCRATCH/good.json" "$cfg"

waiting=$(cli queue --json | grep -o '"id":[0-9]*' | cut -d: -f2)
kill -9 "$pid"
wait "$pid" 2>/dev/null
check "the daemon restarts after kill -9" start_daemon
# the scheduler may claim it at once (and fail it: it is no real operator)
shows() { cli show "$1" >/dev/null; }
check "the queued item survived kill -9" shows "$waiting"
kill -TERM "$pid"
wait "$pid"
done_testing
