#!/bin/bash
# SPDX-License-Identifier: MIT
# 'make fuzz': runs each libFuzzer target given as an argument, one after
# the other, for FUZZ_RUNS executions (FUZZ_SECONDS, when set, caps each
# run's time), starting from its seed corpus (tests/fuzz/corpus/<target>)
# and the corpus kept by earlier runs (FUZZ_DIR/corpus/<target>).  Prints
# each target's executions and whether it crashed, writes the table to
# bench/results/fuzz-<commit>.md, and fails when any target crashed.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
FUZZ_DIR=${FUZZ_DIR:-$SRC/build-fuzz}
RUNS=${FUZZ_RUNS:-10000000}
SECONDS_CAP=${FUZZ_SECONDS:-}
commit=$(git -C "$SRC" rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$SRC" status --porcelain --untracked-files=no 2>/dev/null)" ] && commit+=-dirty
out=$SRC/bench/results/fuzz-$commit.md
rows=
failed=0

for bin in "$@"; do
	name=$(basename "$bin")
	mkdir -p "$FUZZ_DIR/corpus/$name" "$FUZZ_DIR/crashes" "$FUZZ_DIR/logs"
	log=$FUZZ_DIR/logs/$name.log
	echo "== $name: $RUNS executions${SECONDS_CAP:+, at most $SECONDS_CAP s}"
	start=$(date +%s.%N)
	"$bin" -runs="$RUNS" ${SECONDS_CAP:+-max_total_time="$SECONDS_CAP"} -print_final_stats=1 \
		-artifact_prefix="$FUZZ_DIR/crashes/$name-" \
		"$FUZZ_DIR/corpus/$name" "$SRC/tests/fuzz/corpus/$name" >"$log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	corpus=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -1 | sed 's/corp: //')
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
	rate=$(awk -v n="${execs:-0}" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
	# libFuzzer stops at its first crash
	crashes=0
	status="no crash"
	if [ "$rc" -ne 0 ]; then
		failed=1
		crashes=1
		status="crashed (exit $rc), $(grep -o 'Test unit written to .*' "$log" || echo "see $log")"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5 | sed 's/^/   /'
	fi
	echo "   ${execs:-?} executions in $secs s ($rate/s), corpus ${corpus:-?}: $status"
	rows+="| $name | ${execs:-?} | $secs | $rate | $crashes | ${corpus:-?} |"$'\n'
done

mkdir -p "$(dirname "$out")"
{
	echo "# make fuzz at $commit"
	echo
	echo "FUZZ_RUNS=$RUNS${SECONDS_CAP:+, FUZZ_SECONDS=$SECONDS_CAP}; one target at a time on $(nproc) cores" \
		"($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(clang --version | head -1)," \
		"-fsanitize=fuzzer,address,undefined -O1.  Executions include the runs over the starting corpus;" \
		"corpus is the final units/bytes libFuzzer kept."
	echo
	echo "| target | executions | seconds | exec/s | crashes | corpus |"
	echo "|---|---|---|---|---|---|"
	printf '%s' "$rows"
} >"$out"
echo "== results in ${out#"$SRC"/}"
exit $failed
