#!/bin/bash
# SPDX-License-Identifier: MIT
# One round of 'make stress', smaller: five episodes of 4 evaluations
# (make stress runs ten of 6), the daemon killed with SIGKILL twice while
# they run and then at the steps of a publication, and still every
# acknowledged item ends done, once, each published once, and no finished
# search runs again.
# expensive: kills and restarts the daemon over several episodes
. "$(dirname "$0")/tap.sh"
plan 3
out=$(BUILD=$BUILD STRESS_DIR=$SCRATCH/stress STRESS_KILLS=2 STRESS_SEED=7 \
	STRESS_OPS="abs add relu sigmoid silu" STRESS_BUDGET=4 \
	bash "$SRC/scripts/stress.sh" 1 2>&1); rc=$?
is "the stress round passes" "$rc" 0
contains "nothing lost, duplicated, left unfinished, published twice or searched again" "$out" \
	"0 lost, 0 duplicated, 0 not done, 0 published twice, 0 finished searches run again"
check "the daemon was killed at publishing steps" grep -Eq "2 kills at random, [1-3] at publishing steps" <<<"$out"
[ "$rc" = 0 ] || echo "$out" | tail -20 | sed 's/^/# /'
done_testing
