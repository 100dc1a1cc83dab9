#!/bin/bash
# SPDX-License-Identifier: MIT
# A full disk is the machine's failure, not the operator's: an evaluation
# that runs out of space ends as infra_error saying so (it read as a
# runtime_error of the operator, and such results were cached), and runs
# normally once there is space again.  Needs a small tmpfs of its own: a
# mount namespace, so root.
. "$(dirname "$0")/../tap.sh"
unset ASCENDOPT_CACHE_DIR # this test looks at its own state directory's object cache
plan 3

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	for _ in 1 2 3; do skip "a full tmpfs needs root and a mount namespace"; done
	exit 0
fi
fs=$SCRATCH/fs
mkdir -p "$fs"
unshare -m bash -s "$fs" "$BUILD/ascendopt" "$SRC/tests/ops/ok/unary_ops" >"$SCRATCH/out" 2>&1 <<'EOF_INNER'
fs=$1 ascendopt=$2 op=$3
mount -t tmpfs -o size=64m none "$fs" || exit 1
head -c 65000000 /dev/zero >"$fs/fill" 2>/dev/null # leaves about 1 MB
"$ascendopt" eval "$op" --state-dir "$fs/state" --work-dir "$fs/work" --json 2>/dev/null
echo
echo "==="
rm -f "$fs/fill"
"$ascendopt" eval "$op" --state-dir "$fs/state" --work-dir "$fs/work" --json 2>/dev/null
EOF_INNER
full=$(sed '/^===$/,$d' "$SCRATCH/out")
again=$(sed '1,/^===$/d' "$SCRATCH/out")
status() { python3 -c 'import json, sys; print(json.load(sys.stdin)["status"])' 2>/dev/null; }
is "an evaluation on a full disk ends as infra_error" "$(status <<<"$full")" infra_error
contains "and says the disk was full" "$full" "out of disk space"
is "with space again, the same evaluation runs" "$(status <<<"$again")" ok
done_testing
