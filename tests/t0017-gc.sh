#!/bin/bash
# SPDX-License-Identifier: MIT
# 'ascendopt gc': the object cache is trimmed oldest-first to its cap (an
# outdated precompiled host prelude with it), stale scratch goes while
# fresh scratch stays, and the store survives compaction.  The daemon
# keeps the cache under limits.cache_max_bytes by itself, at start and
# after each episode.
. "$(dirname "$0")/tap.sh"
unset ASCENDOPT_CACHE_DIR # this test looks at its own state directory's object cache
plan 12
state="$SCRATCH/state"
# The objects as the code that fills the cache lays them out: two evaluations.
for op in add abs; do
	"$BUILD/ascendopt" eval "$SRC/examples/ops/level1/$op" --state-dir "$state" --json >/dev/null 2>&1
done
mapfile -t made < <(find "$state/cache" -type f -name '*.o' | sort)
check "the evaluations filled the object cache" test "${#made[@]}" -ge 3
touch -d '3 days ago' "${made[0]}"
touch -d '2 days ago' "${made[1]}"
# what stays: the objects used since, and 1000 bytes of the prelude in use
keep=$(($(stat -c %s "${made[@]:2}" | paste -sd+) + 1000 + 500))
# A precompiled host prelude is built only after a few runs of an episode's
# evaluator, so these two are made here, where the cache keeps them: one
# the simulator's headers have since outdated, and the one in use.
objdir=$(dirname "${made[0]}")
for key in old new; do
	mkdir -p "$objdir/pch-$key/ascendsim"
	head -c 1000 /dev/zero >"$objdir/pch-$key/ascendsim/host_prelude.h.gch"
done
touch -d '4 days ago' "$objdir/pch-old/ascendsim/host_prelude.h.gch"
mkdir -p "$state/scratch/old" "$state/scratch/new"
touch -d '3 days ago' "$state/scratch/old"
cat >"$SCRATCH/bank.json" <<'JSON'
{"entries": [{"title": "drop PIPE_ALL", "description": "queues already order the pipes",
  "bottleneck": "stall=pipe_all", "diff": "-PipeBarrier<PIPE_ALL>();\n", "motif": "remove_pipe_all"}]}
JSON
"$BUILD/ascendopt" experience import "$SCRATCH/bank.json" --state-dir "$state" >/dev/null
before=$("$BUILD/ascendopt" experience --json --state-dir "$state")
out=$("$BUILD/ascendopt" gc --state-dir "$state" --max-cache-bytes "$keep")
contains "gc reports what it removed" "$out" "removed 3 cached objects"
check "an outdated precompiled prelude goes" test ! -e "$objdir/pch-old"
check "the one in use stays" test -f "$objdir/pch-new/ascendsim/host_prelude.h.gch"
check "the most recently used object stays" test -f "${made[-1]}"
check "the two used longest ago go" test ! -e "${made[0]}" -a ! -e "${made[1]}"
check "stale scratch goes, fresh scratch stays" test ! -e "$state/scratch/old" -a -d "$state/scratch/new"
is "the store keeps its entries through compaction" "$("$BUILD/ascendopt" experience --json --state-dir "$state")" "$before"
"$BUILD/ascendopt" gc --max-cache-bytes lots --state-dir "$state" >/dev/null 2>&1; rc=$?
is "a bad cap is a usage error" "$rc" 64
# The daemon: five objects of 1 MB, used one day apart, under a 2.5 MB cap.
dstate=$SCRATCH/dstate
objects=$dstate/${objdir#"$state"/} # where the evaluations above put theirs
mkdir -p "$objects"
for i in 1 2 3 4 5; do
	head -c 1000000 /dev/urandom >"$objects/obj$i.o"
	echo "hash" >"$objects/obj$i.o.sha256"
	touch -d "$((6 - i)) days ago" "$objects/obj$i.o"
done
export ASCENDOPT_SOCKET=$SCRATCH/d.sock
printf '{"state_dir": "%s", "socket": "%s", "repos": [], "limits": {"cache_max_bytes": 2500000}}' \
	"$dstate" "$ASCENDOPT_SOCKET" >"$SCRATCH/d.json"
"$BUILD/ascendoptd" --config "$SCRATCH/d.json" 2>"$SCRATCH/d.log" &
pid=$!
for _ in $(seq 100); do grep -q "cache: removed" "$SCRATCH/d.log" && break; sleep 0.1; done
kill "$pid"
wait "$pid"
contains "the daemon trims the cache to limits.cache_max_bytes at start" "$(cat "$SCRATCH/d.log")" \
	"cache: removed 3 least recently used objects (3.0 MB) to stay under limits.cache_max_bytes (2.5 MB)"
is "  the two used last stay" "$(cd "$objects" && echo *.o)" "obj4.o obj5.o"
is "  and the hashes of those it removed go with them" "$(cd "$objects" && echo *.sha256)" \
	"obj4.o.sha256 obj5.o.sha256"
done_testing
