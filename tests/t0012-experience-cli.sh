#!/bin/bash
# SPDX-License-Identifier: MIT
# 'ascendopt experience': an exported bank imports elsewhere unchanged, a
# query ranks by signature, and a malformed file is refused by field.
# 'ascendopt optimize' on a new store seeds its bank as the daemon does.
. "$(dirname "$0")/tap.sh"
plan 9
cli() { "$BUILD/ascendopt" experience "$@"; }

cat >"$SCRATCH/bank.json" <<'JSON'
{"entries": [
 {"title": "double buffer the input queue", "description": "overlap copy-in with compute",
  "bottleneck": "bound=mte2 stall=buffer_free", "diff": "-InitBuffer(q, 1, n)\n+InitBuffer(q, 2, n)\n", "motif": "double_buffer"},
 {"title": "drop PIPE_ALL", "description": "queues already order the pipes",
  "bottleneck": "stall=pipe_all", "diff": "-PipeBarrier<PIPE_ALL>();\n", "motif": "remove_pipe_all"}
]}
JSON
out=$(cli import "$SCRATCH/bank.json" --state-dir "$SCRATCH/a")
contains "import counts the entries" "$out" "imported 2 entries"
cli export "$SCRATCH/out.json" --state-dir "$SCRATCH/a" >/dev/null
cli import "$SCRATCH/out.json" --state-dir "$SCRATCH/b" >/dev/null
is "an export imports elsewhere unchanged" "$(cli --json --state-dir "$SCRATCH/b")" "$(cli --json --state-dir "$SCRATCH/a")"
first=$(cli --query "stall=pipe_all v_util=low" --state-dir "$SCRATCH/a" | sed -n 2p)
contains "a query ranks the matching entry first" "$first" "drop PIPE_ALL"
echo '{"entries": [{"title": "no diff"}]}' >"$SCRATCH/bad.json"
err=$(cli import "$SCRATCH/bad.json" --state-dir "$SCRATCH/a" 2>&1); rc=$?
is "a malformed bank exits 65" "$rc" 65
contains "the error names the entry" "$err" ".entries[0]: needs title, description, bottleneck and diff"
cli frobnicate >/dev/null 2>&1; rc=$?
is "an unknown action is a usage error" "$rc" 64

# a user's first CLI episode gets the seed bank, not an empty one
opt() { "$BUILD/ascendopt" optimize "$SRC/examples/ops/level1/add" --budget 1 --strategy stage1 "$@"; }
err=$(ASCENDOPT_SEED_BANK=$SCRATCH/bank.json opt --state-dir "$SCRATCH/c" 2>&1 >/dev/null)
contains "optimize on a new store says it seeded the bank" "$err" "seeded the new store's experience bank with 2 entries"
is "and the bank holds the seed entries" "$(cli --state-dir "$SCRATCH/c" | grep -c 'PIPE_ALL\|double buffer')" 2
ASCENDOPT_SEED_BANK= opt --state-dir "$SCRATCH/d" >/dev/null 2>&1
is "an empty ASCENDOPT_SEED_BANK leaves it empty" "$(cli --json --state-dir "$SCRATCH/d" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" 0
done_testing
