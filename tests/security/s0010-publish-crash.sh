#!/bin/bash
# SPDX-License-Identifier: MIT
# Publishing is a transaction.  The daemon is killed (SIGKILL, through
# ASCENDOPT_CRASH_AT) at each step of a publication: the search's record
# says done; the intent is in the queue but the ref has not moved; the ref
# has moved but the item's end is not recorded.  After each restart the
# finished search is not run again, the sibling branch gets exactly one
# commit, which holds the best the search found, and the item ends done.
. "$(dirname "$0")/../tap.sh"
plan 15

export ASCENDOPT_EXEC_HELPER=${ASCENDOPT_EXEC_HELPER:-$BUILD/ascendopt-exec}
cli() { "$BUILD/ascendopt" "$@"; }
sibling=refs/heads/ascendopt/main/ops+relu

for step in episode-done intent ref; do
	dir=$SCRATCH/$step repo=$SCRATCH/$step/ops
	mkdir -p "$repo/ops/relu"
	(cd "$SRC/examples/ops/level1/relu" && tar cf - --exclude=expert .) | tar xf - -C "$repo/ops/relu"
	git -C "$repo" init -q -b main
	git -C "$repo" add -A
	git -C "$repo" -c user.name=T -c user.email=t@example.com commit -qm ops
	export ASCENDOPT_SOCKET=$dir/d.sock
	printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1,
 "episode": {"budget": 6, "rounds": 1, "stage1_steps": 4, "stage2_steps": 2},
 "repos": [{"path": "%s", "branches": ["main"]}]}' "$dir" "$ASCENDOPT_SOCKET" "$repo" >"$dir/d.json"

	ASCENDOPT_CRASH_AT=$step "$BUILD/ascendoptd" --config "$dir/d.json" 2>"$dir/d.log" &
	pid=$!
	for _ in $(seq 200); do cli status >/dev/null 2>&1 && break; sleep 0.05; done
	id=$(cli enqueue "$repo" ops/relu --json | grep -o '"id":[0-9]*' | cut -d: -f2)
	{ wait "$pid"; } 2>/dev/null # the shell's "Killed" notice is expected
	died=$?
	tip_after_crash=$(git -C "$repo" rev-parse -q --verify "$sibling")

	"$BUILD/ascendoptd" --config "$dir/d.json" 2>>"$dir/d.log" &
	pid=$!
	for _ in $(seq 200); do cli status >/dev/null 2>&1 && break; sleep 0.05; done
	for _ in $(seq 600); do
		cli show "$id" --json 2>/dev/null | grep -q '"state":"\(done\|failed\)"' && break
		sleep 0.2
	done
	shown=$(cli show "$id" --json 2>&1)
	kill "$pid"
	wait "$pid"

	searches=$(grep -c "started ops/relu" "$dir/d.log")
	is "$step: killed there (SIGKILL), then one search in all, none after the restart" \
		"$died $searches" "137 1"
	contains "$step: the item ends done and published" "$shown" '"state":"done"'
	case "$shown" in *"published refs/heads"*) ok "$step: its reason says published" ;;
	*) not_ok "$step: its reason says published"; echo "$shown" | head -c 600 | sed 's/^/# /'
	   tail -5 "$dir/d.log" | sed 's/^/# /' ;; esac
	is "$step: the sibling branch has exactly one commit of ascendopt's, and its reflog one entry" \
		"$(git -C "$repo" rev-list --count main.."$sibling") $(git -C "$repo" reflog "$sibling" | wc -l)" "1 1"
	case $step in
	ref) is "$step: the commit is the one the killed attempt had moved the ref to" \
		"$(git -C "$repo" rev-parse "$sibling")" "$tip_after_crash" ;;
	*) is "$step: nothing was published before the kill" "$tip_after_crash" "" ;;
	esac
done
done_testing
