#!/bin/bash
# SPDX-License-Identifier: MIT
# One round of 'make stress': ten episodes, the daemon killed with SIGKILL
# twice while they run, and still every acknowledged item ends done, once.
. "$(dirname "$0")/tap.sh"
plan 2
out=$(BUILD=$BUILD STRESS_DIR=$SCRATCH/stress STRESS_KILLS=2 STRESS_SEED=7 \
	bash "$SRC/scripts/stress.sh" 1 2>&1); rc=$?
is "the stress round passes" "$rc" 0
contains "nothing lost, duplicated or left unfinished" "$out" "2 kills: 0 lost, 0 duplicated, 0 not done"
[ "$rc" = 0 ] || echo "$out" | tail -20 | sed 's/^/# /'
done_testing
