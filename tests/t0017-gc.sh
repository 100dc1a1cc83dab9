#!/bin/bash
# SPDX-License-Identifier: MIT
# 'ascendopt gc': the object cache is trimmed oldest-first to its cap (an
# outdated precompiled host prelude with it), stale scratch goes while
# fresh scratch stays, and the store survives compaction.
. "$(dirname "$0")/tap.sh"
plan 8
state="$SCRATCH/state"
mkdir -p "$state/cache/objects" "$state/scratch/old" "$state/scratch/new"
for i in 1 2 3; do head -c 1000 /dev/zero >"$state/cache/objects/obj$i.o"; done
touch -d '3 days ago' "$state/cache/objects/obj1.o" "$state/scratch/old"
touch -d '2 days ago' "$state/cache/objects/obj2.o"
# a precompiled prelude the simulator's headers have since outdated, and the current one
for key in old new; do
	mkdir -p "$state/cache/objects/pch-$key/ascendsim"
	head -c 1000 /dev/zero >"$state/cache/objects/pch-$key/ascendsim/host_prelude.h.gch"
done
touch -d '4 days ago' "$state/cache/objects/pch-old/ascendsim/host_prelude.h.gch"
cat >"$SCRATCH/bank.json" <<'JSON'
{"entries": [{"title": "drop PIPE_ALL", "description": "queues already order the pipes",
  "bottleneck": "stall=pipe_all", "diff": "-PipeBarrier<PIPE_ALL>();\n", "motif": "remove_pipe_all"}]}
JSON
"$BUILD/ascendopt" experience import "$SCRATCH/bank.json" --state-dir "$state" >/dev/null
before=$("$BUILD/ascendopt" experience --json --state-dir "$state")
out=$("$BUILD/ascendopt" gc --state-dir "$state" --max-cache-bytes 2500)
contains "gc reports what it removed" "$out" "removed 3 cached objects"
check "an outdated precompiled prelude goes" test ! -e "$state/cache/objects/pch-old"
check "the one in use stays" test -f "$state/cache/objects/pch-new/ascendsim/host_prelude.h.gch"
check "the most recently used object stays" test -f "$state/cache/objects/obj3.o"
check "the oldest object goes" test ! -e "$state/cache/objects/obj1.o"
check "stale scratch goes, fresh scratch stays" test ! -e "$state/scratch/old" -a -d "$state/scratch/new"
is "the store keeps its entries through compaction" "$("$BUILD/ascendopt" experience --json --state-dir "$state")" "$before"
"$BUILD/ascendopt" gc --max-cache-bytes lots --state-dir "$state" >/dev/null 2>&1; rc=$?
is "a bad cap is a usage error" "$rc" 64
done_testing
