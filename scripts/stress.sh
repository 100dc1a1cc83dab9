#!/bin/bash
# SPDX-License-Identifier: MIT
# Crash safety under load: queue 10 episodes (STRESS_OPS), kill -9 the daemon at random
# moments while they run, restart it, and repeat; then kill it at each step
# of a publication (ASCENDOPT_CRASH_AT: the search done, the intent
# recorded, the ref moved) until every episode has ended.  Then count:
# acknowledged items lost, items duplicated, episodes that did not finish,
# sibling branches published more than once, and finished searches that
# ran again.
#
# Usage: scripts/stress.sh [ROUNDS]   (default 100; 'make stress')
# Environment: BUILD (default build), STRESS_DIR (default $BUILD/stress),
# STRESS_KILLS (kills per round, default 5), STRESS_SEED (default 1),
# STRESS_OPS (the corpus operators queued, default ten of level 1),
# STRESS_BUDGET (evaluations per episode, default 6; 2 of them Stage II).
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-$SRC/build}" && pwd)
ROUNDS=${1:-100}
STRESS_DIR=${STRESS_DIR:-$BUILD/stress}
KILLS=${STRESS_KILLS:-5}
RANDOM=${STRESS_SEED:-1}
export ASCENDOPT_EXEC_HELPER=${ASCENDOPT_EXEC_HELPER:-$BUILD/ascendopt-exec}
OPS=${STRESS_OPS:-abs add axpy exp leaky_relu mul relu rsqrt sigmoid silu}
BUDGET=${STRESS_BUDGET:-6}

cli() { "$BUILD/ascendopt" "$@"; }
pid=
stop_daemon() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=; }
trap stop_daemon EXIT

start_daemon() {
	ASCENDOPT_CRASH_AT=${1:-} "$BUILD/ascendoptd" --config "$cfg" 2>>"$log" &
	pid=$!
	for _ in $(seq 600); do
		cli status >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# states of the acknowledged items, one "id state" line each
item_states() {
	cli episodes --json | grep -o '"id":[0-9]*\|"state":"[a-z_]*"' |
		paste - - 2>/dev/null | sed 's/"id"://; s/"state":"\([a-z_]*\)"/\1/' | sort -n
}

total_lost=0 total_dup=0 total_unfinished=0 total_kills=0 total_twice=0 total_again=0
total_publish_kills=0
for round in $(seq "$ROUNDS"); do
	dir=$STRESS_DIR/round-$round
	rm -rf "$dir"
	mkdir -p "$dir"
	repo=$dir/ops-repo cfg=$dir/ascendoptd.json log=$dir/ascendoptd.log
	export ASCENDOPT_SOCKET=$dir/ascendoptd.sock
	git init -q -b main "$repo"
	for op in $OPS; do
		mkdir -p "$repo/ops/$op"
		(cd "$SRC/examples/ops/level1/$op" && tar cf - --exclude=expert .) | tar xf - -C "$repo/ops/$op"
	done
	git -C "$repo" add -A
	git -C "$repo" -c user.name=Stress -c user.email=s@example.com commit -qm ops
	cat >"$cfg" <<JSON
{"state_dir": "$dir/state", "socket": "$ASCENDOPT_SOCKET", "backend": "sim", "devices": 2,
 "episode": {"budget": $BUDGET, "rounds": 1, "stage1_steps": $((BUDGET - 2)), "stage2_steps": 2},
 "repos": [{"path": "$repo", "branches": ["main"]}]}
JSON
	start_daemon || { echo "round $round: the daemon did not start" >&2; cat "$log" >&2; exit 1; }
	acked=""
	for op in $OPS; do
		id=$(cli enqueue "$repo" "ops/$op" --json | grep -o '"id":[0-9]*' | cut -d: -f2)
		[ -n "$id" ] && acked="$acked $id"
	done
	kills=0 publish_kills=0
	while [ $kills -lt "$KILLS" ]; do
		sleep "$((RANDOM % 30 / 10)).$((RANDOM % 10))"
		stop_daemon
		kills=$((kills + 1))
		start_daemon || { echo "round $round: no restart after kill $kills" >&2; tail "$log" >&2; exit 1; }
	done
	# the daemon kills itself at a publishing step, if an item still gets there
	for step in episode-done intent ref; do
		stop_daemon
		start_daemon "$step" # it may get there before it answers: that is fine
		for _ in $(seq 600); do
			kill -0 "$pid" 2>/dev/null || break
			item_states 2>/dev/null | grep -q 'queued\|running' || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; pid=; publish_kills=$((publish_kills + 1)); }
	done
	stop_daemon
	start_daemon || { echo "round $round: no restart after the publishing kills" >&2; exit 1; }
	for _ in $(seq 1200); do
		item_states | grep -q 'queued\|running' || break
		sleep 0.25
	done
	states=$(item_states)
	lost=0 unfinished=0
	for id in $acked; do
		echo "$states" | grep -q "^$id[[:space:]]" || lost=$((lost + 1))
	done
	dup=$(echo "$states" | awk '{print $1}' | sort | uniq -d | wc -l)
	unfinished=$(echo "$states" | grep -c 'queued\|running\|failed')
	resumed=$(grep -c 'resum' "$log")
	# a sibling branch with more than one commit on its source, or more than one reflog entry
	twice=0
	for op in $OPS; do
		ref=refs/heads/ascendopt/main/ops+$op
		git -C "$repo" rev-parse -q --verify "$ref" >/dev/null || continue
		[ "$(git -C "$repo" rev-list --count "main..$ref")" -eq 1 ] &&
			[ "$(git -C "$repo" reflog "$ref" | wc -l)" -eq 1 ] || twice=$((twice + 1))
	done
	# an episode started again after its search had finished
	again=$(awk 'match($0, /\[episode [0-9]+\]/) { id = substr($0, RSTART, RLENGTH) }
		/search finished/ { finished[id] = 1 }
		/\] started / && finished[id] { n++ } END { print n + 0 }' "$log")
	stop_daemon
	total_lost=$((total_lost + lost)) total_dup=$((total_dup + dup))
	total_unfinished=$((total_unfinished + unfinished)) total_kills=$((total_kills + kills))
	total_twice=$((total_twice + twice)) total_again=$((total_again + again))
	printf 'round %d: %d kills, %d at publishing steps, %d items acknowledged, %d lost, %d duplicated, %d not done, %d published twice, %d finished searches run again (%d resume lines in the log)\n' \
		"$round" "$kills" "$publish_kills" "$(echo $acked | wc -w)" "$lost" "$dup" "$unfinished" "$twice" "$again" "$resumed"
	total_publish_kills=$((total_publish_kills + publish_kills))
done
printf 'stress: %d rounds, %d kills at random, %d at publishing steps: %d lost, %d duplicated, %d not done, %d published twice, %d finished searches run again\n' \
	"$ROUNDS" "$total_kills" "$total_publish_kills" "$total_lost" "$total_dup" "$total_unfinished" "$total_twice" "$total_again"
[ $total_lost -eq 0 ] && [ $total_dup -eq 0 ] && [ $total_unfinished -eq 0 ] &&
	[ $total_twice -eq 0 ] && [ $total_again -eq 0 ]
