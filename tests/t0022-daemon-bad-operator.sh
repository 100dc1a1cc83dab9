#!/bin/bash
# SPDX-License-Identifier: MIT
# A commit that breaks an operator's kernel so it no longer compiles ends
# its episode as failed with the compiler's message in 'ascendopt show',
# and the daemon goes on: it still answers and runs the next episode.
. "$(dirname "$0")/tap.sh"
plan 6

repo=$SCRATCH/ops
sock=$SCRATCH/ascendoptd.sock
cfg=$SCRATCH/ascendoptd.json
log=$SCRATCH/daemon.log
export ASCENDOPT_SOCKET=$sock
cli() { "$BUILD/ascendopt" "$@"; }

git init -q -b main "$repo"
git -C "$repo" config user.email t@example.com
git -C "$repo" config user.name Tester
for op in relu; do
	mkdir -p "$repo/ops/$op"
	(cd "$SRC/examples/ops/level1/$op" && tar cf - --exclude=expert .) | tar xf - -C "$repo/ops/$op"
done
git -C "$repo" add -A && git -C "$repo" commit -qm relu
cat >"$cfg" <<JSON
{"state_dir": "$SCRATCH/state", "socket": "$sock", "devices": 1,
 "episode": {"budget": 2},
 "repos": [{"path": "$repo", "branches": ["main"]}]}
JSON
# a private lock directory: other tests' daemons must not hold our device
export ASCENDOPT_LOCK_DIR=$SCRATCH/locks

"$BUILD/ascendoptd" --config "$cfg" 2>"$log" &
pid=$!
started() { for _ in $(seq 600); do cli status >/dev/null 2>&1 && return 0; sleep 0.05; done; return 1; }
check "the daemon starts" started

# wait_state ID: waits up to 120 s for the item to end, prints its state
wait_state() {
	local state=
	for _ in $(seq 600); do
		state=$(cli show "$1" --json 2>/dev/null | grep -o '"state":"[a-z_]*"' | head -1 | cut -d'"' -f4)
		case "$state" in done | failed | cancelled) break ;; esac
		sleep 0.2
	done
	echo "$state"
}

# the kernel gets a line no compiler accepts
kernel=$repo/ops/relu/op_kernel/relu_custom.cpp
printf '\nthis_is_not_cpp relu_broken_here;\n' >>"$kernel"
git -C "$repo" commit -qam "relu: broken kernel"
bad=
for _ in $(seq 100); do
	bad=$(cli queue --json 2>/dev/null | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
	[ -z "$bad" ] && bad=$(cli episodes --json 2>/dev/null | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
	[ -n "$bad" ] && break
	sleep 0.1
done
is "the broken commit's episode fails" "$(wait_state "$bad")" failed
shown=$(cli show "$bad" 2>&1)
contains "show carries the compiler's message" "$shown" "relu_broken_here"
case "$shown" in *relu_broken_here*) ;; *) echo "$shown" | head -20 | sed 's/^/# /' ;; esac
check "the daemon is still running" kill -0 "$pid"

# the fix goes through on the same daemon, queued by the watcher
git -C "$repo" revert --no-edit HEAD >/dev/null
fixed=$(git -C "$repo" rev-parse HEAD)
good=
for _ in $(seq 100); do
	good=$(cli episodes --json 2>/dev/null | python3 -c 'import json, sys
print(next((i["id"] for i in json.load(sys.stdin)["items"] if i.get("commit") == sys.argv[1]), ""))' "$fixed")
	[ -n "$good" ] && break
	sleep 0.1
done
is "the next episode runs to the end" "$(wait_state "$good")" done
kill -TERM "$pid"
wait "$pid"
is "the daemon stops cleanly" "$?" 0
done_testing
