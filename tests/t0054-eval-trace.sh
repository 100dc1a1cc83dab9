#!/bin/bash
# SPDX-License-Identifier: MIT
# 'ascendopt eval --trace FILE' leaves a Chrome trace at FILE, wherever the
# user asked for it: the simulated run is sandboxed and may write only its
# own work directory, so the trace is written there and copied out.  A
# trace that cannot be written fails the run, naming the file.
. "$(dirname "$0")/tap.sh"
plan 6

op=$SCRATCH/relu
cp -r "$SRC/examples/ops/level1/relu" "$op"
rm -rf "$op/expert"
mkdir -p "$SCRATCH/traces"
trace=$SCRATCH/traces/relu.json

out=$("$BUILD/ascendopt" eval --case 0 --trace "$trace" "$op" 2>&1)
check "eval with --trace succeeds" grep -q "^$op: ok" <<<"$out"
check "the trace is at the path asked for, outside the run's work directory" test -s "$trace"
check "the output says where the trace went" grep -q "trace $trace: [1-9][0-9]* events" <<<"$out"
check "the trace is a Chrome trace with vector and copy-in spans" python3 - "$trace" <<'EOF'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
tracks = {(e["pid"], e["tid"]) for e in events if e.get("ph") == "X" and e.get("pid") == 0}
names = {e["args"]["name"] for e in events
         if e.get("name") == "thread_name" and e.get("pid") == 0 and (e["pid"], e["tid"]) in tracks}
sys.exit(0 if {"V", "MTE2"} <= names else 1)
EOF

out=$("$BUILD/ascendopt" eval --case 0 --trace "$SCRATCH/missing/relu.json" "$op" 2>&1)
check "a trace that cannot be written fails the run" grep -q "^$op: runtime_error" <<<"$out"
check "and the error names the file" \
	grep -q "cannot write the trace to $SCRATCH/missing/relu.json" <<<"$out"
done_testing
