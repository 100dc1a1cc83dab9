#!/bin/bash
# SPDX-License-Identifier: MIT
# An operator split over many files is optimized, not refused.  cann-ops's
# max_pool3d_grad_with_argmax keeps 50 files in op_host/ and op_kernel/ (its
# largest operator, 134); an episode used to stop at 31 with "Argument list
# too long".  Past the limit that remains (255 a folder), the error names the
# folder and the limit.
. "$(dirname "$0")/tap.sh"
plan 5
op=$SCRATCH/mul
cp -r "$SRC/examples/ops/level1/mul" "$op"
for i in $(seq 1 60); do
	printf '// helper %d of a kernel split over many headers\n#define MUL_PART_%d %d\n' \
		"$i" "$i" "$i" >"$op/op_kernel/mul_part_$i.h"
done
# the kernel includes the last one, so the build must see every file
sed -i 's|#include "mul_custom_tiling.h"|#include "mul_custom_tiling.h"\n#include "mul_part_60.h"|' \
	"$op/op_kernel/mul_custom.cpp"
out=$("$BUILD/ascendopt" optimize "$op" --strategy stage1 --budget 2 --seed 1 \
	--state-dir "$SCRATCH/state" --json 2>"$SCRATCH/log" | tail -1)
is "an operator with 62 source files finishes its episode" \
	"$(echo "$out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])' 2>&1)" done
is "its evaluations build and answer right" \
	"$(echo "$out" | python3 -c 'import json, sys
print(sorted({s["status"] for s in json.load(sys.stdin)["trajectory"]}))' 2>&1)" "['ok']"

for i in $(seq 61 260); do
	echo "// helper $i" >"$op/op_kernel/mul_part_$i.h"
done
"$BUILD/ascendopt" optimize "$op" --strategy stage1 --budget 2 --seed 1 \
	--state-dir "$SCRATCH/state2" --json >/dev/null 2>"$SCRATCH/log2"
rc=$?
check "past the limit the episode is refused" test "$rc" -ne 0
contains "the error names the folder" "$(cat "$SCRATCH/log2")" "$op/op_kernel: more than 255 files"
contains "and says what to do" "$(cat "$SCRATCH/log2")" "move what the operator does not build elsewhere"
done_testing
