#!/bin/bash
# SPDX-License-Identifier: MIT
# A fleet job's exchange with its head (#28, docs/fleet.md), with no Slurm:
# the head's memo and bank go into a job's new store ('optimize --bank
# --memo'), the job measures none of the head's candidates again, leaves
# what it measured and learned ('--exchange'), and the head merges that
# back: the memo once per identity, the bank with its counts added.  A
# file cut short merges nothing.
# expensive: a 3-evaluation and a 6-evaluation episode on the simulator
. "$(dirname "$0")/tap.sh"
plan 14
op=$SRC/examples/ops/level1/relu
ao() { "$BUILD/ascendopt" "$@"; }
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }
ids() { python3 -c 'import json, sys
for l in open(sys.argv[1]): print(json.loads(l)["identity"])' "$1" | sort; }

ao optimize "$op" --strategy stage1 --budget 3 --seed 1 --state-dir "$SCRATCH/head" --json \
	2>>"$SCRATCH/log" | tail -1 >"$SCRATCH/head.json"
is "the head measures its candidates" "$(field "$SCRATCH/head.json" memo_hits)" 0
ao experience export "$SCRATCH/bank.json" --state-dir "$SCRATCH/head" >/dev/null
out=$(ao memo export "$SCRATCH/memo.jsonl" --state-dir "$SCRATCH/head"); rc=$?
is "memo export exits 0" "$rc" 0
check "one line per result, each an identity and a result" python3 -c 'import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines and all(sorted(json.loads(l)) == ["identity", "result"] for l in lines)' \
	"$SCRATCH/memo.jsonl"

# the job: the same search, 3 more evaluations, in a store of its own
ao optimize "$op" --budget 6 --stage1-steps 3 --stage2-steps 3 --seed 1 \
	--state-dir "$SCRATCH/job" --bank "$SCRATCH/bank.json" --memo "$SCRATCH/memo.jsonl" \
	--exchange "$SCRATCH/out" >/dev/null 2>>"$SCRATCH/log"; rc=$?
is "the job's episode exits 0" "$rc" 0
is "it measures none of the head's 3 candidates again" \
	"$(field "$SCRATCH/out/result.json" memo_hits)" 3
is "what it leaves holds none of the results it was given" \
	"$(comm -12 <(ids "$SCRATCH/memo.jsonl") <(ids "$SCRATCH/out/memo.jsonl"))" ""
check "it leaves what it learned and credited, with no bank's ids" python3 -c 'import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines and all("id" not in l and l["uses"] >= 0 for l in lines)' \
	"$SCRATCH/out/experience.jsonl"
check "it leaves the text of the baseline's and the best's files, each named by its hash" python3 -c '
import hashlib, json, os, sys
record = json.load(open(sys.argv[1] + "/result.json"))
shas = set(record["baseline"]["files"].values()) | set(record["best"]["files"].values())
assert shas
for sha in shas:
    assert hashlib.sha256(open(os.path.join(sys.argv[1], "files", sha), "rb").read()).hexdigest() == sha' \
	"$SCRATCH/out"

new=$(wc -l <"$SCRATCH/out/memo.jsonl")
out=$(ao memo import "$SCRATCH/out/memo.jsonl" --state-dir "$SCRATCH/head")
contains "the head merges each result it lacks" "$out" "merged $new new results"
out=$(ao memo import "$SCRATCH/out/memo.jsonl" --state-dir "$SCRATCH/head")
contains "merging again adds nothing" "$out" "merged 0 new results"
before=$(ao experience list --json --state-dir "$SCRATCH/head" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
out=$(ao experience merge "$SCRATCH/out/experience.jsonl" --state-dir "$SCRATCH/head"); rc=$?
learned=$(python3 -c 'import json, sys
known = {(e.get("motif"), e["diff"]) for e in json.load(open(sys.argv[1]))["entries"]}
print(sum((l.get("motif"), l["diff"]) not in known for l in map(json.loads, open(sys.argv[2]))))' \
	"$SCRATCH/bank.json" "$SCRATCH/out/experience.jsonl")
after=$(ao experience list --json --state-dir "$SCRATCH/head" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
is "the entries the job learned land in the head's bank" "$((after - before))" "$learned"

head -c 100 "$SCRATCH/memo.jsonl" >"$SCRATCH/cut.jsonl"
err=$(ao memo import "$SCRATCH/cut.jsonl" --state-dir "$SCRATCH/fresh" 2>&1); rc=$?
is "a file cut short is bad data (65)" "$rc" 65
contains "its error names the line and says nothing was merged" "$err" \
	"cut.jsonl:1: cut short (no newline at its end); nothing was merged"
err=$(ao optimize "$op" --state-dir "$SCRATCH/job" --bank "$SCRATCH/bank.json" 2>&1); rc=$?
contains "a job's bank goes into a new store only" "$err" \
	"entries already; a job starts from a new --state-dir"
