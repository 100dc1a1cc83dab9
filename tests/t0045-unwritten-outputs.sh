#!/bin/bash
# SPDX-License-Identifier: MIT
# Output elements a kernel never writes.  The simulator's GM starts zeroed,
# an NPU's does not: tests/ops/ok/threshold_mask (y = x > 1, all false on
# the default inputs) is right by accident when its kernel writes nothing.
# A candidate whose tiling key dispatches no branch, and one whose tiling
# leaves the last core's tail alone, must be wrong answers against the
# original with 'eval --compare' although their bytes match, and a warning
# without a reference; two runs that leave the same elements alone agree.
# An output with an InitValue, and one an atomic add accumulates into, are
# written.
. "$(dirname "$0")/tap.sh"

plan 18
orig=$SRC/tests/ops/ok/threshold_mask
host=op_host/threshold_mask.cpp
eval_json() { "$BUILD/ascendopt" eval "$@" --json 2>"$SCRATCH/eval.err"; }
field() { python3 -c 'import json,sys; r=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

# the original writes every element
out=$("$BUILD/ascendopt" eval "$orig" --case ragged 2>&1)
rc=$?
is "the original passes" "$rc" 0
case "$out" in
*"never written"*) not_ok "the original has no unwritten warning" ;;
*) ok "the original has no unwritten warning" ;;
esac

# tiling keys the kernel does not know: it dispatches nothing
cp -r "$orig" "$SCRATCH/nokey"
sed -i -e 's/TILING_KEY_ONE_TILE = 1;/TILING_KEY_ONE_TILE = 8;/' \
	-e 's/TILING_KEY_TILED = 2;/TILING_KEY_TILED = 9;/' "$SCRATCH/nokey/$host"
mkdir "$SCRATCH/tmp"
json=$(TMPDIR=$SCRATCH/tmp eval_json "$SCRATCH/nokey" --case ragged --compare "$orig")
rc=$?
is "no branch dispatched: eval --compare exits 1" "$rc" 1
is "eval --compare leaves no work directory behind" "$(ls -A "$SCRATCH/tmp")" ""
is "no branch dispatched: wrong_answer" "$(echo "$json" | field 'r["status"]')" wrong_answer
is "no branch dispatched: yet every byte matches" \
	"$(echo "$json" | field 'r["correctness"][0]["mismatch_fraction"]')" 0.0
contains "the error names the output, the count and the first index" \
	"$(echo "$json" | field 'r["error"]["message"]')" \
	"case ragged: y: 3003 of 3003 elements never written by the kernel (the reference writes them; the first at index 0); GM is not zeroed on an NPU"

# without a reference it is a warning, in the JSON and the human output
json=$(eval_json "$SCRATCH/nokey" --case ragged)
is "no reference: still ok" "$(echo "$json" | field 'r["status"]')" ok
is "no reference: the output says how many were written" \
	"$(echo "$json" | field 'r["cases"][0]["outputs"][0]["written_elements"]')" 0
out=$("$BUILD/ascendopt" eval "$SCRATCH/nokey" --case ragged 2>&1)
contains "no reference: a warning in the human output" "$out" \
	"warning: case ragged: y: 3003 of 3003 elements never written by the kernel (the first at index 0)"

# one core too few: the last core's tail is never written
cp -r "$orig" "$SCRATCH/tail"
sed -i 's|uint32_t blockDim = (totalLength + blockLength - 1) / blockLength;|uint32_t blockDim = totalLength / blockLength;|' \
	"$SCRATCH/tail/$host"
json=$(eval_json "$SCRATCH/tail" --case ragged --compare "$orig")
rc=$?
is "a tail left alone: eval --compare exits 1" "$rc" 1
is "a tail left alone: yet every byte matches" \
	"$(echo "$json" | field 'r["correctness"][0]["mismatch_fraction"]')" 0.0
contains "a tail left alone: the tail's elements and its first index" \
	"$(echo "$json" | field 'r["error"]["message"]')" \
	"y: 59 of 3003 elements never written by the kernel (the reference writes them; the first at index 2944)"

# both leave elements alone: only those the reference writes count, element by element
json=$(eval_json "$SCRATCH/tail" --case ragged --compare "$SCRATCH/tail")
is "the same elements left alone by both: ok" "$(echo "$json" | field 'r["status"]')" ok
json=$(eval_json "$SCRATCH/nokey" --case ragged --compare "$SCRATCH/tail")
contains "against a reference that writes some: only those count" \
	"$(echo "$json" | field 'r["error"]["message"]')" \
	"y: 2944 of 3003 elements never written by the kernel (the reference writes them; the first at index 0)"
json=$(eval_json "$SCRATCH/tail" --case ragged --compare "$SCRATCH/nokey")
is "against a reference that writes none: ok" "$(echo "$json" | field 'r["status"]')" ok

# what the framework or an atomic accumulation writes is written
cp -r "$orig" "$SCRATCH/initvalue"
sed -i -e 's/TILING_KEY_ONE_TILE = 1;/TILING_KEY_ONE_TILE = 8;/' \
	-e 's/DataType({ge::DT_BOOL})/DataType({ge::DT_BOOL}).InitValue(0)/' "$SCRATCH/initvalue/$host"
json=$(eval_json "$SCRATCH/initvalue" --case ragged --compare "$orig")
is "an output with InitValue is written by the framework" \
	"$(echo "$json" | field 'r["status"], r["cases"][0]["outputs"][0]["written_elements"]')" "('ok', 3003)"
cp -r "$SRC/tests/ops/ok/atomic_colsum" "$SCRATCH/atomic"
sed -i 's/InitGlobalMemory(zGm, t.cols, 0.0f);/;/' "$SCRATCH/atomic/op_kernel/atomic_colsum.cpp"
json=$(eval_json "$SCRATCH/atomic" --case rows3)
is "an atomic accumulation writes its elements" \
	"$(echo "$json" | field 'r["status"], r["cases"][0]["outputs"][0]["written_elements"], "warnings" in r')" \
	"('ok', 8, False)"
done_testing
