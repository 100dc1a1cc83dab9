#!/bin/bash
# SPDX-License-Identifier: MIT
# A full disk under the store.  Debian's RocksDB aborts on an assertion
# when its own write fails for space, so the daemon, gc and optimize died
# on every start with no word about space.  Now the store refuses short of
# its reserve and says how much is free; the daemon waits for space before
# starting, and a commit it could not record is queued once it can.
# Needs a small tmpfs of its own: a mount namespace, so root.
. "$(dirname "$0")/../tap.sh"
unset ASCENDOPT_CACHE_DIR # this test looks at its own state directory's object cache
plan 10

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	for _ in $(seq 10); do skip "a full tmpfs needs root and a mount namespace"; done
	exit 0
fi
repo=$SCRATCH/ops
git init -q -b main "$repo"
(
	cd "$repo" && git config user.email t@example.com && git config user.name Tester &&
	mkdir -p ops/add/op_host ops/add/op_kernel ops/mul/op_host ops/mul/op_kernel &&
	echo h >ops/add/op_host/add.cpp && echo k >ops/add/op_kernel/add.cpp &&
	echo h >ops/mul/op_host/mul.cpp && echo k >ops/mul/op_kernel/mul.cpp &&
	git add -A && git commit -qm initial
)
fs=$SCRATCH/fs
mkdir -p "$fs"
unshare -m bash -s "$fs" "$BUILD" "$repo" "$SCRATCH" "$SRC/tests/ops/ok/unary_ops" \
	>"$SCRATCH/out" 2>&1 <<'EOF_INNER'
fs=$1 build=$2 repo=$3 scratch=$4 op=$5
mount -t tmpfs -o size=64m none "$fs" || exit 1
export ASCENDOPT_SOCKET=$scratch/d.sock
printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1, "repos": [{"path": "%s"}]}' \
	"$fs" "$ASCENDOPT_SOCKET" "$repo" >"$scratch/d.json"
status() { "$build/ascendopt" status --json 2>/dev/null; }
start() {
	"$build/ascendoptd" --config "$scratch/d.json" 2>>"$scratch/d.log" &
	pid=$!
}
fill() { head -c 70000000 /dev/zero >"$fs/fill" 2>/dev/null; }

start
for _ in $(seq 100); do status >/dev/null && break; sleep 0.05; done
fill
(cd "$repo" && echo k2 >ops/add/op_kernel/add.cpp && git commit -qam add)
for _ in $(seq 50); do grep -q "cannot record" "$scratch/d.log" && break; sleep 0.1; done
echo "FULLSTATUS $(status | head -c 60)"
rm -f "$fs/fill"
for _ in $(seq 100); do "$build/ascendopt" queue --json | grep -q ops/add && break; sleep 0.1; done
echo "QUEUE1 $("$build/ascendopt" queue --json)"

fill
(cd "$repo" && echo k2 >ops/mul/op_kernel/mul.cpp && git commit -qam mul)
for _ in $(seq 50); do [ "$(grep -c "cannot record" "$scratch/d.log")" -ge 2 ] && break; sleep 0.1; done
kill "$pid"; wait "$pid"
echo "STOPPED $?"
head -c 70000000 /dev/zero >>"$fs/fill" 2>/dev/null # what its close gave back

"$build/ascendopt" gc --state-dir "$fs/state" >"$scratch/gc.out" 2>&1
echo "GC $? $(tr '\n' ' ' <"$scratch/gc.out")"
"$build/ascendopt" optimize "$op" --state-dir "$fs/state" --budget 2 >"$scratch/opt.out" 2>&1
echo "OPTIMIZE $? $(tr '\n' ' ' <"$scratch/opt.out")"

start
sleep 3
kill -0 "$pid" 2>/dev/null && echo "WAITING yes"
rm -f "$fs/fill"
for _ in $(seq 150); do "$build/ascendopt" queue --json 2>/dev/null | grep -q ops/mul && break; sleep 0.1; done
echo "QUEUE2 $("$build/ascendopt" queue --json)"
kill "$pid"; wait "$pid"
echo "LOG $(tr '\n' ' ' <"$scratch/d.log")"
EOF_INNER
line() { sed -n "s/^$1 //p" "$SCRATCH/out"; }
contains "a running daemon whose disk fills still answers status" "$(line FULLSTATUS)" '{"backend":"sim"'
contains "a commit it could not record is queued once there is space" "$(line QUEUE1)" '"op_dir":"ops/add"'
is "it stops cleanly on a full disk" "$(line STOPPED)" 0
is "gc on a full disk exits 75 (try again later)" "$(line GC | cut -d' ' -f1)" 75
contains "  after saying what it trimmed" "$(line GC)" "gc: removed 0 cached objects"
contains "  and how much is free against the store's reserve" "$(line GC)" \
	"cannot open: 0 MiB free on its file system, it needs 33 MiB"
contains "optimize on a full disk says so instead of aborting" "$(line OPTIMIZE)" "MiB free on its file system"
is "a daemon started on a full disk waits instead of dying" "$(line WAITING)" yes
contains "and once there is space it starts, and queues what the last one could not" \
	"$(line QUEUE2)" '"op_dir":"ops/mul"'
log=$(line LOG)
no_assertion() { ! grep -q Assertion "$SCRATCH/out"; }
check "no RocksDB assertion anywhere" no_assertion
[ -n "$VERBOSE" ] && printf '# %s\n' "$log"
done_testing
