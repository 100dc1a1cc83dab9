#!/bin/bash
# SPDX-License-Identifier: MIT
# fleet/'s pieces on a real Slurm (#28, docs/fleet.md), before the daemon
# drives them.  On a single-node cluster on loopback with 2 NPU GRES:
# doctor's checks of the partition and the GRES; a job folder under the
# shared directory with the head's bank and memo, job.sh and the sbatch
# line from fleet/, the job run to its end with 'sbatch --wait'; the head
# merging what it left, once; and Slurm's own record (sacct) of the job
# by its name, completed, on its node.
# Needs root (the Slurm daemons); otherwise it skips and says so.
# expensive: a Slurm cluster and two short episodes on the simulator
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/helpers/slurm-cluster.sh"

slurm_skip_unless_able
plan 11
cluster=$SCRATCH/slurm
at_exit 'slurm_stop "$cluster"'
why=$(slurm_start "$cluster" 2); rc=$?
is "a single-node cluster with 2 NPU GRES starts${why:+ ($why)}" "$rc" 0
export SLURM_CONF=$cluster/slurm.conf

# doctor reads the cluster as the fleet config asks for it
mkdir -p "$SCRATCH/shared"
printf '{"fleet": {"engine": "slurm", "shared_dir": "%s", "partition": "npu"}}' "$SCRATCH/shared" >"$SCRATCH/fleet.json"
out=$("$BUILD/ascendopt" doctor --config "$SCRATCH/fleet.json" 2>&1)
contains "doctor: the partition is up and a node offers the GRES an episode asks for" "$out" \
	"slurm gres       npu: a node offers up to 2 npu; an episode asks npu:1"
printf '{"fleet": {"engine": "slurm", "shared_dir": "%s", "gres": "npu:4"}}' "$SCRATCH/shared" >"$SCRATCH/fleet4.json"
out=$("$BUILD/ascendopt" doctor --config "$SCRATCH/fleet4.json" 2>&1)
contains "doctor: a GRES no node offers fails, with the lines to declare it" "$out" \
	"FAIL  slurm gres       npu: no node offers npu:4 (at most 2) -- fix: declare GresTypes=npu"

op=$SRC/examples/ops/level1/relu
head=$SCRATCH/head
shared=$SCRATCH/shared
ao() { "$BUILD/ascendopt" "$@"; }
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@"; }

ao optimize "$op" --strategy stage1 --budget 3 --seed 1 --state-dir "$head" >/dev/null 2>&1

# the head prepares the job: the operator, a snapshot of its bank and its memo
name=ascendopt-1-1
job=$shared/jobs/$name
mkdir -p "$job/out" && cp -r "$op" "$job/op"
ao experience export "$job/bank.json" --state-dir "$head" >/dev/null
ao memo export "$job/memo.jsonl" --state-dir "$head" >/dev/null
"$BUILD/tests/helpers/fleet-job" script "$job" ASCENDOPT_DEVICE \
	"$BUILD/ascendopt" optimize "$job/op" --budget 6 --stage1-steps 3 --stage2-steps 3 --seed 1 \
	--state-dir "$job/state" --bank "$job/bank.json" --memo "$job/memo.jsonl" \
	--exchange "$job/out" --out "$job/best"
mapfile -t sbatch < <("$BUILD/tests/helpers/fleet-job" sbatch "$shared" "$name" npu:1 600)
id=$(timeout 300 "${sbatch[@]}"); rc=$?
is "sbatch --wait returns when the job ends, with its exit status (job.sh stops with 78 when the TaskProlog gave it no NPU)" "$rc" 0
check "the job id is all sbatch --parsable prints" test -n "$id" -a "$id" -eq "$id"
is "the job measured none of the head's candidates again" \
	"$(field "$job/out/result.json" memo_hits)" 3
check "it left the best operator's files" test -s "$job/best/op_host/relu_custom.cpp"

out=$("$BUILD/tests/helpers/fleet-job" merge "$head" "$name" "$job/out"); rc=$?
is "the head merges what the job left" "$rc" 0
contains "its new results and what it learned" "$out" "merged_before 0 results_added $(wc -l <"$job/out/memo.jsonl")"
out=$("$BUILD/tests/helpers/fleet-job" merge "$head" "$name" "$job/out")
contains "a second merge of the same job adds nothing" "$out" "merged_before 1 results_added 0"
acct=$(sacct -c -n -X -P -o JobName,State,NodeList --name="$name" 2>&1)
is "Slurm's record: one job by that name, completed on its node" "$acct" "$name|COMPLETED|$(hostname -s)"
