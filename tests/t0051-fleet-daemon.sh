#!/bin/bash
# SPDX-License-Identifier: MIT
# The daemon runs its episodes as Slurm jobs (#28, docs/fleet.md), on a
# real single-node cluster with 2 NPU GRES.  Three repositories commit six
# changes to corpus operators; the head is killed with kill -9 while two
# jobs run and is started again; a job cancelled from Slurm is submitted
# once more and fails its item when cancelled again; a broken operator's
# job fails with its node named.  Then: all six publish, Slurm ran one job
# each and never more than two at once, nothing was measured twice, what
# the jobs learned is in the head's bank, and the idle head takes no CPU.
# Needs root (the Slurm daemons); otherwise it skips and says so.
# expensive: a Slurm cluster and eight episodes on the simulator
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/helpers/slurm-cluster.sh"

slurm_skip_unless_able
plan 20
began=$(date +%s)
cluster=$SCRATCH/slurm
pid=
stop_all() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	scancel --name=ascendopt 2>/dev/null
	slurm_stop "$cluster"
}
at_exit stop_all
why=$(slurm_start "$cluster" 2); rc=$?
is "a single-node cluster with 2 NPU GRES starts${why:+ ($why)}" "$rc" 0
export SLURM_CONF=$cluster/slurm.conf
host=$(hostname -s)

cli() { "$BUILD/ascendopt" "$@"; }
export ASCENDOPT_SOCKET=$SCRATCH/sock
state=$SCRATCH/state
log=$SCRATCH/daemon.log

# three repositories, two corpus operators each, and a third that only
# a manual request runs: mul to be cancelled, a broken relu to fail
declare -A ops=([a]="relu abs mul" [b]="add sigmoid" [c]="silu exp")
for r in a b c; do
	repo=$SCRATCH/$r
	git init -q -b main "$repo"
	git -C "$repo" config user.email t@example.com
	git -C "$repo" config user.name Tester
	for op in ${ops[$r]}; do
		mkdir -p "$repo/ops/$op"
		(cd "$SRC/examples/ops/level1/$op" && tar cf - --exclude=expert .) | tar xf - -C "$repo/ops/$op"
	done
done
cp -r "$SCRATCH/a/ops/relu" "$SCRATCH/c/ops/broken"
for f in "$SCRATCH"/c/ops/broken/op_kernel/*.cpp; do echo '#error broken on purpose' >>"$f"; done
for r in a b c; do git -C "$SCRATCH/$r" add -A && git -C "$SCRATCH/$r" commit -qm ops; done

mkdir -p "$SCRATCH/shared"
cat >"$SCRATCH/config.json" <<JSON
{"state_dir": "$state", "socket": "$ASCENDOPT_SOCKET", "devices": 1,
 "episode": {"budget": 3, "stage1_steps": 1, "stage2_steps": 1, "turn_patience": 1},
 "repos": [{"path": "$SCRATCH/a"}, {"path": "$SCRATCH/b"}, {"path": "$SCRATCH/c"}],
 "fleet": {"engine": "slurm", "partition": "npu", "gres": "npu:1",
           "shared_dir": "$SCRATCH/shared", "max_jobs": 8}}
JSON
start_daemon() {
	"$BUILD/ascendoptd" --config "$SCRATCH/config.json" 2>>"$log" &
	pid=$!
	for _ in $(seq 600); do cli status >/dev/null 2>&1 && return 0; sleep 0.05; done
	return 1
}
check "the head starts with a fleet config" start_daemon

# six changes: one commit per operator
for r in a b c; do
	for op in ${ops[$r]}; do
		[ "$op" = mul ] && continue
		for f in "$SCRATCH/$r/ops/$op"/op_kernel/*.cpp; do echo "// tuned for the fleet test" >>"$f"; done
		git -C "$SCRATCH/$r" commit -qam "change $op"
	done
done

# two jobs run (2 GRES): the head is killed with kill -9 and started again
running_jobs() { squeue -h -t running -o %j 2>/dev/null | grep -c '^ascendopt-'; }
for _ in $(seq 600); do [ "$(running_jobs)" -ge 2 ] && break; sleep 0.2; done
# job.sh says where it runs as it starts
for _ in $(seq 100); do shown=$(cli status); [[ $shown == *"on $host:"* ]] && break; sleep 0.1; done
contains "status shows a running job's name, id, state and node" "$shown" "as Slurm job ascendopt-"
contains "... on its node" "$shown" "on $host"
kill -9 "$pid"
wait "$pid" 2>/dev/null
is "two jobs still run after kill -9 of the head" "$(running_jobs)" 2
check "the head starts again" start_daemon
contains "it finds the jobs it left by their names" "$(cat "$log")" "left running by the last start; asking Slurm about it"

# a job cancelled from Slurm runs once more; a second cancel fails its item
mul=$(cli enqueue "$SCRATCH/a" ops/mul --json | grep -o '"id":[0-9]*' | cut -d: -f2)
broken=$(cli enqueue "$SCRATCH/c" ops/broken --json | grep -o '"id":[0-9]*' | cut -d: -f2)
known_to_slurm() { squeue -h -t all -o %j --name="$1" 2>/dev/null | grep -q .; }
for attempt in 1 2; do
	for _ in $(seq 300); do known_to_slurm "ascendopt-$mul-$attempt" && break; sleep 0.2; done
	scancel --name="ascendopt-$mul-$attempt"
done
item_state() { cli show "$1" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])'; }
for _ in $(seq 300); do [ "$(item_state "$mul")" = failed ] && break; sleep 0.2; done
is "a job cancelled from Slurm twice fails its item" "$(item_state "$mul")" failed
contains "the item says why" "$(cli show "$mul")" "was cancelled from Slurm again"

# 'ascendopt cancel' of an item whose job is in flight cancels the job too
# (mul again: an operator of the six could supersede its item still queued)
again=$(cli enqueue "$SCRATCH/a" ops/mul --json | grep -o '"id":[0-9]*' | cut -d: -f2)
for _ in $(seq 300); do known_to_slurm "ascendopt-$again-1" && break; sleep 0.2; done
cli cancel "$again" >/dev/null
slurm_state() { squeue -h -t all -o %T --name="$1" 2>/dev/null; }
for _ in $(seq 100); do [ "$(slurm_state "ascendopt-$again-1")" = CANCELLED ] && break; sleep 0.2; done
is "ascendopt cancel runs scancel: Slurm cancelled the item's job" \
	"$(item_state "$again") $(slurm_state "ascendopt-$again-1")" "cancelled CANCELLED"

# every item ends
for _ in $(seq 1200); do
	left=$(cli queue --json | grep -c '"state":"\(queued\|running\)"')
	[ "$left" -eq 0 ] && break
	sleep 0.2
done
is "every item ended" "$left" 0
check "the folders of ended jobs are removed from the shared directory" \
	test -z "$(ls "$SCRATCH/shared/jobs")"
contains "a job that fails on its node is reported with the node's name" "$(cli show "$broken")" \
	"FAILED on node $host"

published=0
for r in a b c; do
	for op in ${ops[$r]}; do
		[ "$op" = mul ] && continue
		git -C "$SCRATCH/$r" rev-parse -q --verify "refs/heads/ascendopt/main/ops+$op" >/dev/null &&
			published=$((published + 1))
	done
done
is "all six changes publish a faster operator" "$published" 6
[ "$published" -eq 6 ] && [ "$left" -eq 0 ] || { cli episodes | sed 's/^/# /'; grep -E "episode [0-9]+" "$log" | tail -30 | sed 's/^/# /'; }

# Slurm's own record (the job completion log: no slurmdbd here)
acct=$(sacct -c -n -X -P -o JobName,State,Start,End 2>&1)
echo "$acct" | sed 's/^/# /'
completed=$(echo "$acct" | awk -F'|' '$2 == "COMPLETED"' | cut -d'|' -f1 | sed 's/-[0-9]*$//' | sort)
is "sacct shows exactly one completed job for each of the six" \
	"$(echo "$completed" | wc -l) $(echo "$completed" | uniq | wc -l)" "6 6"
most=$(echo "$acct" | python3 -c '
import sys, datetime
spans = []
for line in sys.stdin:
    f = line.strip().split("|")
    if len(f) == 4 and f[2] not in ("Unknown", "None") and f[3] not in ("Unknown", "None"):
        p = lambda s: datetime.datetime.fromisoformat(s).timestamp()
        spans.append((p(f[2]), p(f[3])))
print(max((sum(1 for s, e in spans if s <= t < e) for t, _ in spans), default=0))')
if [ "$most" -le 2 ]; then ok "at most 2 jobs ran at once ($most)"; else not_ok "$most jobs ran at once"; fi

merges=$(grep -c "merged: [0-9]* new results (0 the store held already)" "$log")
twice=$(grep "merged: [0-9]" "$log" | grep -vc "(0 the store held already)")
is "no job measured a candidate the store held already (checked against the memo at each merge)" \
	"$twice" 0
learned=$(grep "merged: [0-9]" "$log" | grep -v " 0 new experience entries" | grep -o "job ascendopt-[0-9]*" | sort -u | wc -l)
if [ "$learned" -ge 2 ]; then ok "jobs of $learned operators learned bank entries ($merges merges)"; else not_ok "only $learned jobs learned an entry"; fi

# idle with no job in flight: no CPU at all, once the last episode's
# housekeeping is over (two quiet seconds in a row: on a loaded machine,
# or under the sanitizers, one quiet second can fall inside it)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
switches() { cat /proc/"$pid"/task/*/status | awk '/ctxt_switches/ { n += $2 } END { print n }'; }
last=$(switches) quiet=0
for _ in $(seq 40); do
	sleep 1
	now=$(switches)
	if [ "$now" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0; fi
	[ "$quiet" -ge 2 ] && break
	last=$now
done
t0=$(cpu_ticks)
sleep 3
is "the idle head takes no CPU ticks in 3 s" "$(($(cpu_ticks) - t0))" 0

kill -TERM "$pid"
wait "$pid"
pid=
# what the jobs learned is in the head's one bank: the seed bank and every merge's new entries
added=$(grep -o "merged: [0-9]* new results ([0-9]* the store held already), [0-9]* new experience" "$log" |
	awk '{ n += $(NF - 2) } END { print n + 0 }')
seeded=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["entries"]))' 	"$SRC/etc/ascendopt/seed-bank.json")
is "the head's bank holds the seed bank and the $added entries the jobs learned" 	"$(cli experience list --json --state-dir "$state" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" 	"$((seeded + added))"
echo "# took $(($(date +%s) - began)) s"
done_testing
