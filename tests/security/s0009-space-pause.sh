#!/bin/bash
# SPDX-License-Identifier: MIT
# Short of space on the state dir's file system (limits.min_free_bytes),
# the daemon starts no episode: the queue waits, status says so with the
# free space, and work resumes by itself once there is space again.
# Needs a small tmpfs of its own: a mount namespace, so root.
. "$(dirname "$0")/../tap.sh"
plan 5

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	for _ in 1 2 3 4 5; do skip "a small tmpfs needs root and a mount namespace"; done
	exit 0
fi
repo=$SCRATCH/ops
git init -q -b main "$repo"
(
	cd "$repo" && git config user.email t@example.com && git config user.name Tester &&
	mkdir -p ops/add/op_host ops/add/op_kernel && echo h >ops/add/op_host/add.cpp &&
	echo k >ops/add/op_kernel/add.cpp && git add -A && git commit -qm initial
)
fs=$SCRATCH/fs
mkdir -p "$fs"
unshare -m bash -s "$fs" "$BUILD" "$repo" "$SCRATCH" >"$SCRATCH/out" 2>&1 <<'EOF_INNER'
fs=$1 build=$2 repo=$3 scratch=$4
mount -t tmpfs -o size=128m none "$fs" || exit 1
export ASCENDOPT_SOCKET=$scratch/d.sock
printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1, "repos": [{"path": "%s"}],
 "limits": {"min_free_bytes": 100663296}}' "$fs" "$ASCENDOPT_SOCKET" "$repo" >"$scratch/d.json"
"$build/ascendoptd" --config "$scratch/d.json" 2>"$scratch/d.log" &
pid=$!
for _ in $(seq 100); do "$build/ascendopt" status >/dev/null 2>&1 && break; sleep 0.05; done
# leaves about 55 MiB: under the limit, over the store's own reserve
head -c 64000000 /dev/zero >"$fs/fill" 2>/dev/null
(cd "$repo" && echo k2 >ops/add/op_kernel/add.cpp && git commit -qam kernel)
for _ in $(seq 60); do "$build/ascendopt" status --json | grep -q waiting_for_space && break; sleep 0.1; done
echo "STATUS $("$build/ascendopt" status --json)"
echo "TEXT $("$build/ascendopt" status | grep '^space:')"
echo "QUEUE $("$build/ascendopt" queue --json)"
rm -f "$fs/fill"
for _ in $(seq 150); do "$build/ascendopt" status --json | grep -q waiting_for_space || break; sleep 0.1; done
sleep 1
echo "AFTER $("$build/ascendopt" status --json)"
echo "EPISODES $("$build/ascendopt" episodes --json)"
kill "$pid"; wait "$pid"
EOF_INNER
line() { sed -n "s/^$1 //p" "$SCRATCH/out"; }
contains "with 96 MiB demanded and about 55 free, status says the daemon waits for space" \
	"$(line STATUS)" '"waiting_for_space":{"free_bytes":'
contains "and the CLI says so, with the limit" "$(line TEXT)" \
	"space: WAITING: $fs/state has"
contains "the commit's item stays queued" "$(line QUEUE)" '"state":"queued"'
is "with space again the wait ends by itself" "$(line AFTER | grep -c waiting_for_space)" 0
contains "and the item was taken up" "$(line EPISODES)" '"op_dir":"ops/add"'
done_testing
