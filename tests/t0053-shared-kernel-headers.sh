#!/bin/bash
# SPDX-License-Identifier: MIT
# A kernel whose body lives in the repository's shared headers, as
# cann-ops' foreach operators keep theirs: the episode copies the headers
# the kernel includes by a bare name into op_kernel/, Stage II rewrites the
# copies, every copy travels with the best (a copy left behind would find
# the shared neighbour instead), the files written out build and run as
# measured, and the repository's own headers are never touched.
# expensive: runs an episode inside a whole repository
. "$(dirname "$0")/tap.sh"

plan 8

repo=$SCRATCH/repo
op=$repo/src/math/scale_shared
cp -r "$SRC/tests/fixtures/repo" "$repo"
# a second shared header, included by a bare name from the first
echo "// helpers ScaleKernel could use" >"$repo/src/common/inc/scale_kernel/scale_util.h"
sed -i 's|#include "kernel_operator.h"|#include "kernel_operator.h"\n#include "scale_util.h"|' \
	"$repo/src/common/inc/scale_kernel/scale_kernel_base.h"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit -qm "operators"
"$BUILD/ascendopt" init "$op" >/dev/null 2>&1 || echo "# init failed"

"$BUILD/ascendopt" optimize "$op" --strategy stage2 --budget 6 --state-dir "$SCRATCH/state" \
	--out "$SCRATCH/out" --json >"$SCRATCH/run.jsonl" 2>"$SCRATCH/run.log"
is "the episode runs" "$?" 0
contains "it says which shared headers Stage II may rewrite" "$(cat "$SCRATCH/run.log")" \
	"the kernel includes 2 shared headers (src/common/inc/scale_kernel/scale_kernel_base.h, ...)"
summary=$(tail -n 1 "$SCRATCH/run.jsonl")
best_us=$(echo "$summary" | python3 -c 'import json, sys; print(json.load(sys.stdin)["best"]["latency_us"])')
base_us=$(echo "$summary" | python3 -c 'import json, sys; print(json.load(sys.stdin)["baseline"]["latency_us"])')
check "a rewrite of the shared body wins ($base_us -> $best_us us)" \
	grep -q "SetL2CacheHint" "$SCRATCH/out/op_kernel/scale_kernel_base.h"
is "both copies travel with the best, the unchanged one too" \
	"$(cmp -s "$SCRATCH/out/op_kernel/scale_util.h" "$repo/src/common/inc/scale_kernel/scale_util.h" && echo same)" same
is "the repository keeps its shared headers; only the drafted manifest is new" \
	"$(git -C "$repo" status --porcelain | tr '\n' ' ')" "?? src/math/scale_shared/ascendopt.json "

tail -n 1 "$SCRATCH/run.jsonl" >"$SCRATCH/record.json"
mkdir -p "$SCRATCH/report"
"$BUILD/tests/helpers/report-render" "$SCRATCH/record.json" "$SCRATCH/report" \
	--op-path src/math/scale_shared 2>"$SCRATCH/render.err"
contains "the report says where each copy came from" "$(cat "$SCRATCH/report/ascendopt-report.md")" \
	'- op\_kernel/scale\_util.h, a copy of src/common/inc/scale\_kernel/scale\_util.h'

# the files written out, in the operator's folder, are what the build compiles
cp "$SCRATCH/out/op_kernel/"* "$op/op_kernel/"
out=$("$BUILD/ascendopt" eval "$op" --case bench --state-dir "$SCRATCH/state" 2>&1)
contains "the operator with the files written out evaluates" "$out" "case bench        ok"
got=$(echo "$out" | sed -n 's/.*case bench .* \([0-9.]*\) us$/\1/p')
is "at the best's latency" "$got" "$(printf '%.2f' "$best_us")"

done_testing
