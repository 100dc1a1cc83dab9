#!/bin/bash
# SPDX-License-Identifier: MIT
# 'make demo' in small: the daemon sees a commit, optimizes the operator,
# publishes a sibling branch with the report, and leaves the user's
# branches, index and work tree as they were.
# expensive: the whole demo, a full episode
. "$(dirname "$0")/tap.sh"
plan 9
out=$(BUILD=$BUILD DEMO_DIR=$SCRATCH/demo DEMO_BUDGET=10 DEMO_TIMEOUT_S=300 \
	bash "$SRC/scripts/demo.sh" 2>&1); rc=$?
is "the demo script succeeds" "$rc" 0
[ "$rc" = 0 ] || echo "$out" | tail -30 | sed 's/^/# /'
repo=$SCRATCH/demo/ops-repo
sibling=$(git -C "$repo" for-each-ref --format='%(refname)' refs/heads/ascendopt/)
is "the sibling branch is named as docs/design.md says" "$sibling" "refs/heads/ascendopt/main/ops+relu"
is "its parent is the source commit" "$(git -C "$repo" rev-parse "$sibling^")" "$(git -C "$repo" rev-parse main)"
changed=$(git -C "$repo" diff --name-only main "$sibling" | sort | tr '\n' ' ')
contains "only the operator's files and the report change" "$changed" "ops/relu/ascendopt-report.md ops/relu/ascendopt-report.svg"
is "nothing outside the operator changes" "$(echo "$changed" | tr ' ' '\n' | grep -v '^ops/relu/' | grep -c . )" 0
contains "the commit message gives the speedup" "$(git -C "$repo" log -1 --format=%s "$sibling")" "x faster ("
contains "ascendopt show prints the episode's report" "$out" "## Correctness"
contains "the demo says where the report is" "$out" "The report: "
contains "a new store starts from the seed bank" "$(cat "$SCRATCH/demo/ascendoptd.log")" "seeded the experience bank with"
done_testing
