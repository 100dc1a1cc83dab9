# SPDX-License-Identifier: MIT
# A single-node Slurm cluster on loopback for tests (docs/fleet.md), sourced
# by the fleet tests: munged, slurmctld and slurmd with their own config,
# ports, state, spool, logs and key under one directory, N NPU GRES backed
# by files, and the TaskProlog of docs/fleet.md that exports
# ASCENDOPT_DEVICE.  Debian's slurmctld, slurmd and munge (installed by
# 'scripts/install-deps --tests', their system services left disabled).
#
#   slurm_skip_unless_able  skip the test (exit 0) without root or Slurm,
#                        or fail it under ASCENDOPT_REQUIRE_SLURM=1
#   slurm_start DIR N    start it; SLURM_CONF is exported; fails with a reason
#   slurm_stop DIR       stop what slurm_start started (also on a failed start)

# slurm_skip_unless_able: a test that needs the cluster skips, saying why, without root or Slurm
# (with ASCENDOPT_REQUIRE_SLURM=1, as .ci/run sets, it fails instead: CI must run it)
slurm_skip_unless_able() {
	local tool why=
	if [ "$(id -u)" -ne 0 ]; then
		why="the Slurm daemons need root; CI runs this as root"
	elif tool=$(slurm_missing); then
		why="$tool is missing: run scripts/install-deps --tests (make check does)"
	fi
	[ -z "$why" ] && return 0
	if [ "${ASCENDOPT_REQUIRE_SLURM:-}" = 1 ]; then
		printf '1..1\nnot ok 1 - ASCENDOPT_REQUIRE_SLURM=1, yet %s\n' "$why"
		exit 1
	fi
	echo "1..0 # SKIP $why"
	exit 0
}

slurm_missing() {
	local t
	for t in munged slurmctld slurmd sbatch sacct scontrol; do
		command -v "$t" >/dev/null 2>&1 || { echo "$t"; return 0; }
	done
	return 1
}

slurm_start() {
	local dir=$1 n=$2 host port i
	host=$(hostname -s)
	port=$((20000 + RANDOM % 20000))
	mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/dev" || return 1
	chmod 700 "$dir/munge"
	head -c 1024 /dev/urandom >"$dir/munge/munge.key" && chmod 400 "$dir/munge/munge.key"
	for i in $(seq 0 $((n - 1))); do : >"$dir/dev/npu$i"; done
	cat >"$dir/task-prolog" <<-'P'
	#!/bin/sh
	idx=$(scontrol show job -d "$SLURM_JOB_ID" | sed -n 's/.*GRES=npu:[0-9]*(IDX:\([0-9]*\)).*/\1/p' | head -n 1)
	[ -n "$idx" ] && echo "export ASCENDOPT_DEVICE=$idx"
	exit 0
	P
	chmod 755 "$dir/task-prolog"
	cat >"$dir/slurm.conf" <<-C
	ClusterName=ascendopt-test
	SlurmctldHost=$host(127.0.0.1)
	SlurmctldPort=$port
	SlurmdPort=$((port + 1))
	AuthType=auth/munge
	AuthInfo=socket=$dir/munge/sock
	CredType=cred/munge
	StateSaveLocation=$dir/state
	SlurmdSpoolDir=$dir/spool
	SlurmctldPidFile=$dir/slurmctld.pid
	SlurmdPidFile=$dir/slurmd.pid
	SlurmctldLogFile=$dir/log/slurmctld.log
	SlurmdLogFile=$dir/log/slurmd.log
	SlurmUser=root
	SlurmdUser=root
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	TaskProlog=$dir/task-prolog
	SchedulerType=sched/builtin
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core
	GresTypes=npu
	JobAcctGatherType=jobacct_gather/none
	AccountingStorageType=accounting_storage/none
	JobCompType=jobcomp/filetxt
	JobCompLoc=$dir/log/jobcomp.txt
	ReturnToService=2
	MpiDefault=none
	NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=npu:$n State=UNKNOWN
	PartitionName=npu Nodes=$host Default=YES MaxTime=INFINITE State=UP
	C
	echo "NodeName=$host Name=npu File=$dir/dev/npu[0-$((n - 1))]" >"$dir/gres.conf"
	export SLURM_CONF=$dir/slurm.conf
	munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/sock" \
		--pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/seed" \
		--log-file="$dir/log/munged.log" -f || { echo "munged did not start"; return 1; }
	slurmctld -i || { echo "slurmctld did not start: $(tail -3 "$dir/log/slurmctld.log")"; return 1; }
	slurmd -N "$host" || { echo "slurmd did not start: $(tail -3 "$dir/log/slurmd.log")"; return 1; }
	for i in $(seq 1 60); do
		sinfo -h -o %t 2>/dev/null | grep -q '^idle' && return 0
		sleep 0.5
	done
	echo "the node never became idle: $(sinfo 2>&1 | tail -2)"
	return 1
}

slurm_stop() {
	local dir=$1 f pid pids="" i
	for f in slurmd.pid slurmctld.pid munge/munged.pid; do
		[ -s "$dir/$f" ] || continue
		pid=$(cat "$dir/$f")
		kill "$pid" 2>/dev/null && pids="$pids $pid"
	done
	# gone, or a zombie nobody reaps, before the test's folder is removed
	for i in $(seq 1 50); do
		for pid in $pids; do
			[ -e "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] && break
			pids=${pids/$pid/}
		done
		[ -z "${pids// /}" ] && return 0
		sleep 0.2
	done
	return 0
}
