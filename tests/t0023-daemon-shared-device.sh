#!/bin/bash
# SPDX-License-Identifier: MIT
# Two daemons with their own state but the same device (one lock
# directory) never run on it at the same time: each one's episodes,
# stamped by the test as their log lines arrive, never overlap the
# other's, and while one runs an episode the device's flock is held.
# The second daemon picks the device up once the first lets go.
# expensive: two daemons running episodes
. "$(dirname "$0")/tap.sh"
plan 7

export ASCENDOPT_LOCK_DIR=$SCRATCH/locks
cli() { "$BUILD/ascendopt" "$@"; }

# setup NAME: a repo with two corpus operators and a one-device config
setup() {
	local repo=$SCRATCH/$1/ops
	git init -q -b main "$repo"
	git -C "$repo" config user.email t@example.com
	git -C "$repo" config user.name Tester
	for op in relu add; do
		mkdir -p "$repo/ops/$op"
		(cd "$SRC/examples/ops/level1/$op" && tar cf - --exclude=expert .) | tar xf - -C "$repo/ops/$op"
	done
	git -C "$repo" add -A && git -C "$repo" commit -qm ops
	cat >"$SCRATCH/$1/config.json" <<JSON
{"state_dir": "$SCRATCH/$1/state", "socket": "$SCRATCH/$1/sock", "devices": 1,
 "episode": {"budget": 1}, "repos": [{"path": "$repo", "branches": ["main"]}]}
JSON
}

# stamp: prefixes every line with the time it arrived, in ms
stamp() { while IFS= read -r line; do printf '%s %s\n' "$(date +%s%3N)" "$line"; done; }

start() {
	"$BUILD/ascendoptd" --config "$SCRATCH/$1/config.json" 2> >(stamp >"$SCRATCH/$1/log") &
	eval "pid_$1=$!"
	for _ in $(seq 600); do cli status --socket "$SCRATCH/$1/sock" >/dev/null 2>&1 && return 0; sleep 0.05; done
	return 1
}

setup a
setup b
check "daemon a starts" start a
check "daemon b starts" start b

# both pause, queue two episodes each, then both resume at once
for n in a b; do
	cli pause --socket "$SCRATCH/$n/sock" >/dev/null
	for op in relu add; do cli enqueue "$SCRATCH/$n/ops" "ops/$op" --socket "$SCRATCH/$n/sock" >/dev/null; done
done
cli resume --socket "$SCRATCH/a/sock" >/dev/null &
resuming=$!
cli resume --socket "$SCRATCH/b/sock" >/dev/null
wait "$resuming"

# while episodes run, the device's lock is never free
held=0 free=0
ended() { grep -c '\] ops/[a-z]*: done' "$SCRATCH/$1/log" 2>/dev/null; }
for _ in $(seq 900); do
	[ "$(ended a)" -ge 2 ] && [ "$(ended b)" -ge 2 ] && break
	if grep -q '"state":"leased"' <(cli status --json --socket "$SCRATCH/a/sock"; cli status --json --socket "$SCRATCH/b/sock"); then
		if flock -n "$ASCENDOPT_LOCK_DIR/sim-device-0.lock" true; then free=$((free + 1)); else held=$((held + 1)); fi
	fi
	sleep 0.2
done
is "daemon a ran both episodes" "$(ended a)" 2
is "daemon b ran both episodes, after a let go or before a took it" "$(ended b)" 2
if [ "$held" -gt 0 ] && [ "$free" -eq 0 ]; then
	ok "the device lock was held whenever a daemon leased it ($held looks)"
else
	not_ok "the lock was free $free times of $((held + free)) while leased"
fi

# intervals: [started, done] per episode, from both logs
intervals() {
	awk -v who="$1" '/\] started ops\// { s[$3] = $1 } /\] ops\/[a-z]*: done/ { if ($3 in s) print s[$3], $1, who, $4 }' "$SCRATCH/$1/log"
}
{ intervals a; intervals b; } | sort -n >"$SCRATCH/intervals"
sed 's/^/# /' "$SCRATCH/intervals"
overlaps=$(awk 'NR > 1 && $1 < end { n++ } { if ($2 > end) end = $2 } END { print n + 0 }' "$SCRATCH/intervals")
is "no two episodes overlap on the device" "$overlaps" 0

kill -TERM "$pid_a" "$pid_b"
wait "$pid_a"; ra=$?
wait "$pid_b"; rb=$?
is "both daemons stop cleanly" "$ra $rb" "0 0"
done_testing
