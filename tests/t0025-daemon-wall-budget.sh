#!/bin/bash
# SPDX-License-Identifier: MIT
# An episode past episode.wall_budget_s stops cleanly: it ends done with
# the best it had (published when it beats min_speedup), 'show' says it
# stopped at the wall-clock budget, and the daemon takes the next item.
. "$(dirname "$0")/tap.sh"
plan 8

repo=$SCRATCH/ops
sock=$SCRATCH/ascendoptd.sock
cfg=$SCRATCH/ascendoptd.json
export ASCENDOPT_SOCKET=$sock
export ASCENDOPT_LOCK_DIR=$SCRATCH/locks
cli() { "$BUILD/ascendopt" "$@"; }

git init -q -b main "$repo"
git -C "$repo" config user.email t@example.com
git -C "$repo" config user.name Tester
mkdir -p "$repo/ops/relu"
(cd "$SRC/examples/ops/level1/relu" && tar cf - --exclude=expert .) | tar xf - -C "$repo/ops/relu"
git -C "$repo" add -A && git -C "$repo" commit -qm relu
# 400 evaluations take far longer than the 10 s the episode may run
cat >"$cfg" <<JSON
{"state_dir": "$SCRATCH/state", "socket": "$sock", "devices": 1,
 "episode": {"budget": 400, "wall_budget_s": 10},
 "repos": [{"path": "$repo", "branches": ["main"]}]}
JSON

"$BUILD/ascendoptd" --config "$cfg" 2>"$SCRATCH/daemon.log" &
pid=$!
started() { for _ in $(seq 600); do cli status >/dev/null 2>&1 && return 0; sleep 0.05; done; return 1; }
check "the daemon starts" started
begin=$(date +%s)
id=$(cli enqueue "$repo" ops/relu --json | grep -o '"id":[0-9]*' | cut -d: -f2)
state=
for _ in $(seq 300); do
	state=$(cli show "$id" --json 2>/dev/null | grep -o '"state":"[a-z_]*"' | head -1 | cut -d'"' -f4)
	case "$state" in done | failed | cancelled) break ;; esac
	sleep 0.2
done
took=$(($(date +%s) - begin))
is "the episode ends done, keeping its best" "$state" done
if [ "$took" -lt 40 ]; then ok "it stopped near the budget (${took} s)"; else not_ok "it ran ${took} s"; fi
shown=$(cli show "$id" 2>&1)
contains "show says why it stopped" "$shown" "wall-clock budget"
case "$shown" in *wall-clock*) ;; *) echo "$shown" | head -12 | sed 's/^/# /'; tail -5 "$SCRATCH/daemon.log" | sed 's/^/# /' ;; esac
check "the daemon is still running" kill -0 "$pid"

# 'ascendopt cancel' stops a running episode (after its evaluation in flight)
(cd "$repo" && echo "// touched" >>ops/relu/op_host/relu_custom.cpp && git commit -qam touch)
running=
for _ in $(seq 150); do
	running=$(cli status --json | python3 -c 'import json, sys
print(next((str(r["item"]) for r in json.load(sys.stdin)["running"]), ""))')
	[ -n "$running" ] && break
	sleep 0.2
done
cli cancel "$running" >/dev/null
check "the cancelled episode stops" wait_for_file_text "$SCRATCH/daemon.log" "[episode $running] ops/relu: cancelled" 30
contains "show says it was cancelled" "$(cli show "$running" --json)" '"state":"cancelled"'

kill -TERM "$pid"
wait "$pid"
is "the daemon stops cleanly" "$?" 0
done_testing
