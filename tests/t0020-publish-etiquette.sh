#!/bin/bash
# SPDX-License-Identifier: MIT
# Bot etiquette: once someone else commits to a sibling branch the daemon
# stops updating it and says so in status; 'ascendopt recreate' rebuilds it.
# expensive: full episodes through the daemon
. "$(dirname "$0")/tap.sh"
plan 10
demo=$SCRATCH/demo
BUILD=$BUILD DEMO_DIR=$demo DEMO_BUDGET=6 DEMO_TIMEOUT_S=300 bash "$SRC/scripts/demo.sh" >"$SCRATCH/demo.out" 2>&1
is "the demo publishes a sibling branch" "$?" 0
repo=$demo/ops-repo
sibling=refs/heads/ascendopt/main/ops+relu
export ASCENDOPT_SOCKET=$demo/ascendoptd.sock
cli() { "$BUILD/ascendopt" "$@"; }

# someone else commits on top of the sibling branch
tree=$(git -C "$repo" rev-parse "$sibling^{tree}")
foreign=$(GIT_AUTHOR_NAME=Reviewer GIT_AUTHOR_EMAIL=r@example.com GIT_COMMITTER_NAME=Reviewer \
	GIT_COMMITTER_EMAIL=r@example.com git -C "$repo" commit-tree "$tree" -p "$sibling" -m "review fixup")
git -C "$repo" update-ref "$sibling" "$foreign"

# and a hook that records what it was told
sed -i "s|\"backend\": \"sim\",|\"backend\": \"sim\", \"publish\": {\"post_publish_hook\": \"env > $SCRATCH/hook.env\"},|" "$demo/ascendoptd.json"
"$BUILD/ascendoptd" --config "$demo/ascendoptd.json" 2>"$SCRATCH/daemon.log" &
pid=$!
for _ in $(seq 600); do cli status >/dev/null 2>&1 && break; sleep 0.05; done
id=$(cli enqueue "$repo" ops/relu --json | grep -o '"id":[0-9]*' | cut -d: -f2)
for _ in $(seq 1500); do
	cli show "$id" --json | grep -q '"state":"\(done\|failed\)"' && break
	sleep 0.2
done
shown=$(cli show "$id" 2>&1)
contains "the episode ends done" "$shown" "done"
case "$shown" in *done*) ;; *) echo "# item '$id': $shown" | head -5; tail -5 "$SCRATCH/daemon.log" | sed 's/^/# /' ;; esac
is "the foreign tip is left alone" "$(git -C "$repo" rev-parse "$sibling")" "$foreign"
contains "status says the branch is left alone" "$(cli status)" "ascendopt/main/ops+relu in $repo"
contains "the log says why" "$(cat "$SCRATCH/daemon.log")" "recreate"

out=$(cli recreate "$repo" ops/relu)
contains "recreate rebuilds the branch" "$out" "published $sibling"
is "the rebuilt tip is ascendopt's, on the source commit" \
	"$(git -C "$repo" log -1 --format='%an %P' "$sibling")" "ascendopt $(git -C "$repo" rev-parse main)"
for _ in $(seq 300); do [ -s "$SCRATCH/hook.env" ] && break; sleep 0.1; done
contains "post_publish_hook gets the branch" "$(cat "$SCRATCH/hook.env" 2>/dev/null)" "ASCENDOPT_BRANCH=ascendopt/main/ops+relu"
contains "post_publish_hook gets the speedup" "$(cat "$SCRATCH/hook.env" 2>/dev/null)" "ASCENDOPT_SPEEDUP="
status=$(cli status)
case "$status" in *"left alone"*) not_ok "status forgets the branch after recreate" ;; *) ok "status forgets the branch after recreate" ;; esac
kill -TERM "$pid"; wait "$pid"
done_testing
