#!/bin/bash
# SPDX-License-Identifier: MIT
# The evaluator's noise policy through 'ascendopt optimize': a candidate far
# slower than the best is stopped early and recorded as slow (not as a
# failure, and memoized with its limit); a new best close to the old one
# counts with the slower of its two measurements; and running a finished
# episode again replays it from the memo with zero new evaluations.
# expensive: episodes under seeded noise
. "$(dirname "$0")/tap.sh"
plan 8
op=$SRC/examples/ops/level1/relu
opt() { "$BUILD/ascendopt" optimize "$op" --strategy stage1 --budget 6 --state-dir "$SCRATCH/state" --json "$@" 2>/dev/null | tail -1; }
field() { echo "$1" | grep -o "\"$2\":[0-9]*" | head -1 | cut -d: -f2; }

first=$(opt --seed 1)
is "the episode spends its 6 evaluations" "$(field "$first" evaluations)" 6
# the relu seed-1 trajectory proposes a tile so small (or so few cores) that it runs past 3x the best
contains "a candidate past 3x the best is stopped as slow" "$first" '"status":"slow"'
is "and counted apart" "$(field "$first" slow)" 1
case "$(echo "$first" | grep -o '"failures":{[^}]*}')" in
*slow*) not_ok "slow is not a failure" ;;
*) ok "slow is not a failure" ;;
esac
again=$(opt --seed 1)
is "running the finished episode again costs no evaluation" "$(field "$again" evaluations)" 0
is "every candidate is a memo hit, the slow one included" "$(field "$again" memo_hits)" \
	$(($(field "$first" evaluations) + $(field "$first" memo_hits)))
# with 5% jitter and a 50% margin every new best is re-measured and counts with its slower run
noisy=$(opt --seed 3 --jitter 5 --noise-margin 50)
check "new bests close to the old one are re-measured" [ "$(field "$noisy" remeasured)" -ge 1 ]
bad=$(echo "$noisy" | grep -o '"latency_us":[0-9.]*,[^{}]*"remeasured_us":[0-9.]*' |
	awk -F'[:,]' '{ if ($2 + 0 < $NF + 0) print }')
is "each counts with the slower of its two measurements" "$bad" ""
done_testing
