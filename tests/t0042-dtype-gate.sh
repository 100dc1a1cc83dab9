#!/bin/bash
# SPDX-License-Identifier: MIT
# The dtype gate (issue #26) through 'ascendopt optimize': tests/ops/ok/
# dtype_ub_parts registers float32, float16 and int32 but its manifest runs
# float32 only, and the UB part count that makes float32 fastest overflows
# the UB on int32.  The best the episode keeps must still pass int32 (run
# on the best files with an int32 manifest, against the original), the
# candidates that break it are rejected as dtype_regression naming the
# dtypes, and the record lists every combination checked.  Replayed from
# the memo, the rejections hold without running anything again.
# expensive: a Stage I episode with the gate's runs on the simulator
. "$(dirname "$0")/tap.sh"
plan 12

op=$SRC/tests/ops/ok/dtype_ub_parts
state=$SCRATCH/state
opt() { "$BUILD/ascendopt" optimize "$op" --strategy stage1 --budget 16 --seed 1 --state-dir "$state" "$@"; }
field() { python3 -c 'import json, sys
r = json.loads(sys.stdin.read().strip().splitlines()[-1])
print(eval(sys.argv[1], {"r": r}))' "$1"; }

opt --out "$SCRATCH/best" --json >"$SCRATCH/run.json" 2>"$SCRATCH/run.log"
is "the episode ends done" "$?" 0
record=$(tail -1 "$SCRATCH/run.json")
is "the record names the manifest's dtypes" "$(field 'r["dtypes"]["manifest"]' <<<"$record")" \
	"x:float32 y:float32"
is "the record lists every other combination the OpDef registers as checked" \
	"$(field '" / ".join(r["dtypes"]["checked"])' <<<"$record")" "x:float16 y:float16 / x:int32 y:int32"
is "nothing is left unchecked" "$(field 'len(r["dtypes"]["not_checkable"]) + len(r["dtypes"]["baseline_fails"])' <<<"$record")" 0
rejected=$(field 'r["failures"].get("dtype_regression", 0)' <<<"$record")
check "candidates that break int32 are rejected as dtype_regression ($rejected)" test "$rejected" -ge 1
is "a rejected row names the dtypes and how they broke" \
	"$(field 'next((t["dtype_regression"]["dtypes"] + " " + t["dtype_regression"]["status"] for t in r["trajectory"] if t["status"] == "dtype_regression"), None)' <<<"$record")" \
	"x:int32 y:int32 ub_overflow"
check "the episode still found a faster float32 operator" \
	test "$(field 'int(r["best"]["latency_us"] < r["baseline"]["latency_us"])' <<<"$record")" = 1

# the best files with an int32 manifest: they run, and answer as the original does
int32() { mkdir -p "$2" && cp -r "$1/op_host" "$1/op_kernel" "$2/" && sed 's/"float32"/"int32"/g' "$1/ascendopt.json" >"$2/ascendopt.json"; }
int32 "$op" "$SCRATCH/original-int32"
int32 "$SCRATCH/best" "$SCRATCH/best-int32"
"$BUILD/ascendopt" eval "$SCRATCH/original-int32" --quick --json >"$SCRATCH/original.json" 2>&1
is "the original passes int32" "$(field 'r["status"]' <"$SCRATCH/original.json")" ok
"$BUILD/ascendopt" eval "$SCRATCH/best-int32" --quick --compare "$SCRATCH/original-int32" --json \
	>"$SCRATCH/best.json" 2>&1
is "the best passes int32 and matches the original" "$(field 'r["status"]' <"$SCRATCH/best.json")" ok
[ "$(field 'r["status"]' <"$SCRATCH/best.json")" = ok ] || { head -c 600 "$SCRATCH/best.json"; echo; } | sed 's/^/#   /'

# run again: a replay from the memo, where the rejected candidates are memo hits
out=$(opt 2>&1)
contains "the replay runs no evaluation" "$out" "evaluations 0 of 16"
contains "a memo hit is still held to the gate" "$out" "failed: dtype_regression       $rejected"
contains "the summary lists the dtypes checked" "$out" \
	"dtypes checked: x:float32 y:float32 (the manifest's), x:float16 y:float16, x:int32 y:int32"
done_testing
