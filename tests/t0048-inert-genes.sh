#!/bin/bash
# SPDX-License-Identifier: MIT
# A gene a move leaves nothing to do (#26): on cann-ops' pre_layer_norm the
# move that reads the core count from the platform replaces the hard-coded
# count, so every value of that count gave the same candidate.  Stage I
# measured it under many names (memo hits) and took each for a pass of
# that value, which dropped what the count's failures had taught: 39 of 40
# evaluations failed.  tests/ops/ok/hidden_core_count has the same shape
# (aivNum = 40 and the move's site); the count is held as written while
# the move is made.
# expensive: a 12-evaluation episode on the simulator
. "$(dirname "$0")/tap.sh"
plan 3
op=$SRC/tests/ops/ok/hidden_core_count
"$BUILD/ascendopt" optimize "$op" --strategy stage1 --budget 12 --seed 2 \
	--state-dir "$SCRATCH/state" --json >"$SCRATCH/events" 2>"$SCRATCH/log"
tail -1 "$SCRATCH/events" >"$SCRATCH/summary.json"
contains "the episode says which gene the move leaves nothing to do" "$(cat "$SCRATCH/log")" \
	"cores_from_platform at site 1 leaves aivNum nothing to do: held as written while it is made"
# rows with the move made: the count each one names
rows=$(python3 -c 'import json, sys
for s in json.load(open(sys.argv[1]))["trajectory"]:
    g = s["genome"]
    move = next(v for k, v in g.items() if k.endswith("move:cores_from_platform"))
    count = next(v for k, v in g.items() if k.endswith(":aivNum"))
    # a candidate served for its launch differs in another gene: not the same one again
    if move:
        print(count, "memo hit" if s["memo_hit"] and "launch_of" not in s else "measured")' \
	"$SCRATCH/summary.json" 2>&1)
check "the move is tried" test -n "$rows"
is "with the move made the count is always the one written, each candidate measured once" \
	"$(echo "$rows" | sort -u)" "40 measured"
done_testing
