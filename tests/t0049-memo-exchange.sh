#!/bin/bash
# SPDX-License-Identifier: MIT
# The memo as JSON lines (#28, docs/fleet.md): what one store measured,
# exported and merged into another, is not measured again there, which is
# how a fleet job and its head will share one memo.  Merging twice changes
# nothing, and a file cut short merges nothing.
# expensive: two 3-evaluation episodes on the simulator
. "$(dirname "$0")/tap.sh"
plan 8
op=$SRC/examples/ops/level1/relu
optimize() {
	"$BUILD/ascendopt" optimize "$op" --strategy stage1 --budget 3 --seed 1 \
		--state-dir "$SCRATCH/$1" --json 2>>"$SCRATCH/log" | tail -1 >"$SCRATCH/$1.json"
}
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

optimize job
is "the first store measures its candidates" "$(field "$SCRATCH/job.json" memo_hits)" 0
out=$("$BUILD/ascendopt" memo export "$SCRATCH/memo.jsonl" --state-dir "$SCRATCH/job"); rc=$?
is "export exits 0" "$rc" 0
check "one line per result, each an identity and a result" python3 -c 'import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines and all(sorted(json.loads(l)) == ["identity", "result"] for l in lines)' \
	"$SCRATCH/memo.jsonl"

out=$("$BUILD/ascendopt" memo import "$SCRATCH/memo.jsonl" --state-dir "$SCRATCH/head"); rc=$?
contains "the merge says what it added" "$out" "merged $(wc -l <"$SCRATCH/memo.jsonl") new results"
out=$("$BUILD/ascendopt" memo import "$SCRATCH/memo.jsonl" --state-dir "$SCRATCH/head")
contains "merging again adds nothing" "$out" "merged 0 new results"

optimize head
is "the other store measures none of them again" \
	"$(field "$SCRATCH/head.json" memo_hits)" "$(field "$SCRATCH/head.json" evaluations)"

head -c 100 "$SCRATCH/memo.jsonl" >"$SCRATCH/cut.jsonl"
err=$("$BUILD/ascendopt" memo import "$SCRATCH/cut.jsonl" --state-dir "$SCRATCH/fresh" 2>&1); rc=$?
is "a file cut short is bad data (65)" "$rc" 65
contains "its error names the line and says nothing was merged" "$err" \
	"cut.jsonl:1: cut short (no newline at its end); nothing was merged"
