#!/bin/bash
# SPDX-License-Identifier: MIT
# The main job end to end on the simulated NPU: a throwaway git repository
# with corpus operators, ascendoptd watching it, a developer's commit, the
# episode it triggers, and the sibling branch with the optimized operator
# and its report.  Used by 'make demo' and, with a small budget, by
# tests/t0019-demo.sh.
#
# Environment: BUILD (default build), DEMO_DIR (default $BUILD/demo),
# DEMO_BUDGET (measured evaluations, default 40), DEMO_TIMEOUT_S (default 240).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-$SRC/build}" && pwd)
DEMO_DIR=${DEMO_DIR:-$BUILD/demo}
DEMO_BUDGET=${DEMO_BUDGET:-40}
DEMO_TIMEOUT_S=${DEMO_TIMEOUT_S:-240}
export ASCENDOPT_EXEC_HELPER=${ASCENDOPT_EXEC_HELPER:-$BUILD/ascendopt-exec}

repo=$DEMO_DIR/ops-repo
sock=$DEMO_DIR/ascendoptd.sock
cfg=$DEMO_DIR/ascendoptd.json
log=$DEMO_DIR/ascendoptd.log
export ASCENDOPT_SOCKET=$sock
cli() { "$BUILD/ascendopt" "$@"; }
say() { printf '\n== %s\n' "$*"; }
pid=

stop_daemon() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		wait "$pid" || true
	fi
	pid=
}
trap stop_daemon EXIT

rm -rf "$DEMO_DIR"
mkdir -p "$DEMO_DIR"

say "1. a git repository holding three corpus operators: $repo"
git init -q -b main "$repo"
git -C "$repo" config user.email developer@example.com
git -C "$repo" config user.name "A Developer"
for op in relu add sigmoid; do
	mkdir -p "$repo/ops/$op"
	# the expert versions stay in the corpus: the repo holds what a user wrote
	(cd "$SRC/examples/ops/level1/$op" && tar cf - --exclude=expert .) | tar xf - -C "$repo/ops/$op"
done
git -C "$repo" add -A
git -C "$repo" commit -qm "three vector operators"
git -C "$repo" log --oneline

say "2. a config: the sim backend, two devices, a budget of $DEMO_BUDGET evaluations"
cat >"$cfg" <<JSON
{
  "state_dir": "$DEMO_DIR/state",
  "socket": "$sock",
  "backend": "sim",
  "devices": 2,
  "episode": {"budget": $DEMO_BUDGET},
  "repos": [{"path": "$repo", "branches": ["main"]}]
}
JSON
cat "$cfg"

say "3. ascendoptd starts in the foreground (its log: $log)"
"$BUILD/ascendoptd" --config "$cfg" --foreground 2>"$log" &
pid=$!
for _ in $(seq 600); do
	cli status >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || { cat "$log"; exit 1; }
	sleep 0.05
done
cli status

say "4. the developer commits a change to ops/relu (four times as many, smaller tiles)"
sed -i 's/constexpr uint32_t TILE_NUM = 256;/constexpr uint32_t TILE_NUM = 1024;/' \
	"$repo/ops/relu/op_host/relu_custom.cpp"
grep -q 'TILE_NUM = 1024;' "$repo/ops/relu/op_host/relu_custom.cpp" ||
	{ echo "demo: ops/relu no longer has TILE_NUM = 256; update scripts/demo.sh" >&2; exit 1; }
git -C "$repo" commit -qam "relu: smaller tiles"
git -C "$repo" log --oneline -1
source_commit=$(git -C "$repo" rev-parse HEAD)
user_refs() { git -C "$repo" for-each-ref --format='%(refname) %(objectname)' refs/heads | grep -v '^refs/heads/ascendopt/' || true; }
user_refs_before=$(user_refs)
status_before=$(git -C "$repo" status --porcelain=v1)

say "5. the watcher queues it; the episode runs"
deadline=$((SECONDS + DEMO_TIMEOUT_S))
id=
while [ -z "$id" ] && [ $SECONDS -lt $deadline ]; do
	id=$(cli episodes --json | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2 || true)
	sleep 0.2
done
[ -n "$id" ] || { echo "demo: nothing was queued" >&2; cat "$log" >&2; exit 1; }
cli queue
last=
while [ $SECONDS -lt $deadline ]; do
	state=$(cli show "$id" --json | grep -o '"state":"[a-z_]*"' | head -1 | cut -d'"' -f4)
	line=$(grep -E 'evaluations|started|done' "$log" | tail -1 || true)
	if [ "$line" != "$last" ] && [ -n "$line" ]; then
		echo "   ${line#*: }"
		last=$line
	fi
	case "$state" in done | failed | cancelled) break ;; esac
	sleep 1
done

say "6. the episode"
cli show "$id"
[ "$state" = done ] || { echo "demo: the episode ended $state" >&2; tail -20 "$log" >&2; exit 1; }

say "7. git log --oneline --all --graph"
git -C "$repo" log --oneline --all --graph
sibling=$(git -C "$repo" for-each-ref --format='%(refname:short)' refs/heads/ascendopt/ | head -1)
if [ -z "$sibling" ]; then
	echo "demo: no sibling branch was written (see the episode above)" >&2
	exit 1
fi

say "8. what the sibling branch changes ($sibling against main)"
git -C "$repo" --no-pager diff --stat main "$sibling"
git -C "$repo" --no-pager diff main "$sibling" -- ops/relu/op_host ops/relu/op_kernel
mkdir -p "$DEMO_DIR/report"
for ext in md json svg; do
	git -C "$repo" show "$sibling:ops/relu/ascendopt-report.$ext" >"$DEMO_DIR/report/ascendopt-report.$ext"
done
echo
echo "The report: $DEMO_DIR/report/ascendopt-report.md (with .json and .svg);"
echo "in the repository: git -C $repo show $sibling:ops/relu/ascendopt-report.md"

say "9. the user's branches, index and work tree are untouched"
[ "$user_refs_before" = "$(user_refs)" ] || { echo "demo: a user branch moved" >&2; exit 1; }
[ "$status_before" = "$(git -C "$repo" status --porcelain=v1)" ] || { echo "demo: git status changed" >&2; exit 1; }
[ "$(git -C "$repo" rev-parse HEAD)" = "$source_commit" ] || { echo "demo: HEAD moved" >&2; exit 1; }
echo "main is still at ${source_commit:0:12}; git status is clean"

say "10. ascendoptd stops cleanly"
stop_daemon
tail -3 "$log"
