#!/bin/bash
# SPDX-License-Identifier: MIT
# The launch memo (#27): a Stage I candidate whose tiling program hands
# the kernel exactly the launch a measured candidate had (block dim,
# tiling key, tiling data, workspace, bound parameters) is served that
# candidate's result and costs no evaluation; a stage that only finds
# such launches is spent for now.  On a copy of tests/ops/ok/add_custom
# with one marked knob that changes nothing the kernel gets, Stage I
# measures only what its structural moves change, stops before its budget
# and says why; with a second knob that does (the buffer count), it spends
# its budget.  Neither measures the same launch twice.
# expensive: two Stage I episodes on the simulator
. "$(dirname "$0")/tap.sh"
plan 6
op=$SCRATCH/add_inert
cp -r "$SRC/tests/ops/ok/add_custom" "$op"
python3 - "$op/op_host/add_custom.cpp" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
# only marked literals are genes: one knob whose value reaches no launch
text = text.replace("const uint32_t BLOCK_SIZE = 32;",
                    "const uint32_t BLOCK_SIZE = 32;\nconst uint64_t ROW_ALIGN = 64; // @tune 1..4096")
text = text.replace("\tuint64_t totalBytes = totalNum * typeLength;",
                    "\tuint64_t totalBytes = totalNum * typeLength;\n"
                    "\tuint64_t paddedNum = (totalNum + ROW_ALIGN - 1) / ROW_ALIGN * ROW_ALIGN;\n"
                    "\t(void)paddedNum;")
open(path, "w").write(text)
PY

# measured_launches N: the launches of the baseline and of every candidate
# episode N measured, one line each, from the results its store kept
measured_launches() {
	"$BUILD/ascendopt" memo export "$SCRATCH/memo$1.jsonl" --state-dir "$SCRATCH/state$1" >/dev/null
	python3 - "$SCRATCH/record$1.json" "$SCRATCH/memo$1.jsonl" <<'PY'
import json, sys
record = json.load(open(sys.argv[1]))
results = {}
for line in open(sys.argv[2]):
    row = json.loads(line)
    results[row["identity"]] = row["result"]
measured = [record["baseline"]["identity"]]
measured += [s["identity"] for s in record["trajectory"] if not s["memo_hit"]]
for identity in measured:
    print(" ".join(c["launch_sha256"] for c in results[identity]["cases"]))
PY
}
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]))' "$@"; }

"$BUILD/ascendopt" optimize "$op" --strategy stage1 --budget 8 --seed 1 \
	--state-dir "$SCRATCH/state1" --json >"$SCRATCH/events1" 2>"$SCRATCH/log1"
tail -1 "$SCRATCH/events1" >"$SCRATCH/record1.json"
is "the episode ends done" "$(field "$SCRATCH/record1.json" state)" done
# what it measures is the structural move's sites (other block dims), never the knob alone
check "it stops before its budget is spent" \
	test "$(field "$SCRATCH/record1.json" evaluations)" -lt 8
contains "the log says why Stage I stopped" "$(cat "$SCRATCH/log1")" \
	"Stage I is spent for now: its last 16 candidates were served from the memo (the same kernel on a launch measured before)"
is "no launch was measured twice" "$(measured_launches 1 | sort | uniq -d | wc -l)" 0

# a knob that does reach the launch: the buffer count
sed -i 's|^const uint32_t BUFFER_NUM = 2;|const uint32_t BUFFER_NUM = 2; // @tune 1..8|' \
	"$op/op_host/add_custom.cpp"
"$BUILD/ascendopt" optimize "$op" --strategy stage1 --budget 6 --seed 1 \
	--state-dir "$SCRATCH/state2" --json >"$SCRATCH/events2" 2>"$SCRATCH/log2"
tail -1 "$SCRATCH/events2" >"$SCRATCH/record2.json"
is "the second episode spends its budget" "$(field "$SCRATCH/record2.json" evaluations)" 6
is "and measures no launch twice" "$(measured_launches 2 | sort | uniq -d | wc -l)" 0
done_testing
