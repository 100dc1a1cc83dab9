#!/bin/bash
# SPDX-License-Identifier: MIT
# Every test operator through the product's own path, 'ascendopt eval':
# those under tests/ops/ok must write every element of their outputs and
# match their independent C reference within the manifest's tolerance on
# every case, and those under tests/ops/bad
# must fail with the status and error kind their expect.json names.  The
# sanitizer pass leaves out the large bench cases (ASCENDOPT_SANITIZE).
# expensive: every corpus operator compiled and run on the simulator
. "$(dirname "$0")/tap.sh"

ok_ops=("$SRC"/tests/ops/ok/*/)
bad_ops=("$SRC"/tests/ops/bad/*/)
plan $(( ${#ok_ops[@]} + ${#bad_ops[@]} ))
quick=()
[ -n "${ASCENDOPT_SANITIZE:-}" ] && quick=(--quick)
check=$BUILD/tests/helpers/sim-check

for op in "${ok_ops[@]}"; do
	op=${op%/}
	name=$(basename "$op")
	work=$SCRATCH/ok-$name
	log=$SCRATCH/ok-$name.log
	if ! cc -std=gnu11 -O2 -ffp-contract=off -I"$SRC/tests/sim" "$op/reference.c" -ljansson -lm \
		-o "$SCRATCH/ref-$name" >"$log" 2>&1; then
		not_ok "$name: reference.c does not build"
		continue
	fi
	"$BUILD/ascendopt" eval "$op" "${quick[@]}" --work-dir "$work" --json >"$SCRATCH/$name.json" 2>>"$log"
	if ! grep -q '"status":"ok"' "$SCRATCH/$name.json"; then
		not_ok "$name: eval did not succeed"
		head -c 600 "$SCRATCH/$name.json" | sed 's/^/#   /'
		continue
	fi
	refs_ok=1
	for c in "$work"/case_*/; do
		mkdir -p "$c/ref"
		"$SCRATCH/ref-$name" "$c" "$c/ref" >>"$log" 2>&1 || refs_ok=0
	done
	if [ $refs_ok = 0 ]; then
		not_ok "$name: the reference failed"
		continue
	fi
	if grep -q 'never written by the kernel' "$SCRATCH/$name.json"; then
		not_ok "$name leaves output elements unwritten"
		grep -o 'case [^"]*never written[^;]*' "$SCRATCH/$name.json" | head -3 | sed 's/^/#   /'
	elif out=$("$check" outputs "$op" "$work" 2>&1); then
		ok "$name matches its reference on every case"
	else
		not_ok "$name differs from its reference"
		echo "$out" | head -5 | sed 's/^/#   /'
	fi
	rm -rf "$work"
done

for op in "${bad_ops[@]}"; do
	op=${op%/}
	name=$(basename "$op")
	"$BUILD/ascendopt" eval "$op" --timeout 60 --json >"$SCRATCH/bad-$name.json" 2>/dev/null
	if out=$("$check" expect "$op" "$SCRATCH/bad-$name.json" 2>&1); then
		ok "$name fails as expected ($(grep -o '"kind": *"[a-z_]*"' "$op/expect.json" | head -1))"
	else
		not_ok "$name: $out"
	fi
done
done_testing
