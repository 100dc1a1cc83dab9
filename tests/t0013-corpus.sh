#!/bin/bash
# SPDX-License-Identifier: MIT
# Every corpus operator (examples/ops/level*) and every expert version
# compiles and matches its independent C reference on its small cases,
# through 'ascendopt eval'.  An expert is checked as the baseline with
# its expert/ files laid over it, which is how the optimizer sees it.
# expensive: evaluates the corpus operators
. "$(dirname "$0")/tap.sh"

ops=("$SRC"/examples/ops/level*/*/)
experts=("$SRC"/examples/ops/level*/*/expert/)
[ -d "${experts[0]}" ] || experts=()
plan $(( ${#ops[@]} + ${#experts[@]} ))
check=$BUILD/tests/helpers/sim-check

# judge NAME OPDIR MANIFEST_DIR: eval OPDIR, run its reference, compare.
judge() {
	local name=$1 op=$2 ref_src=$3 work=$SCRATCH/w-$RANDOM
	if ! cc -std=gnu11 -O2 -ffp-contract=off -I"$SRC/tests/sim" "$ref_src/reference.c" \
		-ljansson -lm -o "$SCRATCH/ref" >"$SCRATCH/ref.log" 2>&1; then
		not_ok "$name: reference.c does not build"
		return
	fi
	"$BUILD/ascendopt" eval "$op" --quick --work-dir "$work" --json >"$SCRATCH/r.json" 2>&1
	if ! grep -q '"status":"ok"' "$SCRATCH/r.json"; then
		not_ok "$name: eval did not succeed"
		head -c 600 "$SCRATCH/r.json" | sed 's/^/#   /'
		rm -rf "$work"
		return
	fi
	for c in "$work"/case_*/; do
		mkdir -p "$c/ref"
		"$SCRATCH/ref" "$c" "$c/ref" >/dev/null 2>&1
	done
	if out=$("$check" outputs "$op" "$work" 2>&1); then
		ok "$name matches its reference"
	else
		not_ok "$name differs from its reference"
		echo "$out" | head -5 | sed 's/^/#   /'
	fi
	rm -rf "$work"
}

for op in "${ops[@]}"; do
	op=${op%/}
	judge "$(basename "$(dirname "$op")")/$(basename "$op")" "$op" "$op"
done
for expert in "${experts[@]}"; do
	op=$(dirname "${expert%/}")
	overlay=$SCRATCH/expert-$(basename "$op")
	rm -rf "$overlay"
	mkdir -p "$overlay"
	cp -r "$op/op_host" "$op/op_kernel" "$op/ascendopt.json" "$overlay/"
	cp -r "${expert%/}"/. "$overlay/"
	judge "$(basename "$op") expert" "$overlay" "$op"
done
done_testing
