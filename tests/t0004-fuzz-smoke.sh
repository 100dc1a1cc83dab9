#!/bin/bash
# SPDX-License-Identifier: MIT
# Every libFuzzer target builds and survives a short run from its seed
# corpus, so the fuzzers cannot rot between real fuzzing sessions.
. "$(dirname "$0")/tap.sh"
fuzz_dir=${ASCENDOPT_FUZZ_DIR:-$SRC/build-fuzz}
fuzzers=()
for f in "$fuzz_dir"/fuzz_*; do
	[ -f "$f" ] && [ -x "$f" ] && fuzzers+=("$f")
done
plan "${#fuzzers[@]}"
for f in "${fuzzers[@]}"; do
	name=$(basename "$f")
	mkdir -p "$SCRATCH/$name"
	if "$f" -runs=5000 -max_total_time=60 "$SCRATCH/$name" "$SRC/tests/fuzz/corpus/$name" \
		>"$SCRATCH/$name.log" 2>&1; then
		ok "$name: 5000 runs without a crash"
	else
		not_ok "$name crashed"
		sed 's/^/#   /' "$SCRATCH/$name.log" | tail -20
	fi
done
done_testing
