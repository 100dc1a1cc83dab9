#!/bin/bash
# SPDX-License-Identifier: MIT
# Genes where real programs hide their choices (#26): the probe operator
# tests/ops/ok/hidden_setter_tile writes its tile nowhere but in the
# generated setter, tiling.set_tileLength(512).  Stage I used to find no
# gene there, only the three sites of one move, and stopped after three
# evaluations ("the tiling space is exhausted") with the best tile 8x away;
# now the setter's argument is a gene, and a small budget is spent on it
# and finds a larger, faster tile.
# expensive: a 12-evaluation episode on the simulator
. "$(dirname "$0")/tap.sh"
plan 6
op=$SRC/tests/ops/ok/hidden_setter_tile
"$BUILD/ascendopt" optimize "$op" --strategy stage1 --budget 12 --state-dir "$SCRATCH/state" \
	--out "$SCRATCH/best" --json >"$SCRATCH/events" 2>"$SCRATCH/log"
tail -1 "$SCRATCH/events" >"$SCRATCH/summary.json"
# get PATH: a value of the episode's summary, by keys and list indexes
get() {
	python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = v[int(k)] if isinstance(v, list) else v.get(k)
print(v)' "$SCRATCH/summary.json" "$@" 2>/dev/null
}
genes=$(python3 -c 'import json, sys
print(" ".join(g["name"] for g in json.load(open(sys.argv[1]))["genes"]))' "$SCRATCH/summary.json" 2>/dev/null)
contains "the setter's argument is a gene" " $genes " " set_tileLength "
is "the whole budget is spent" "$(get evaluations)" 12
check "Stage I does not run out of things to try" \
	bash -c "! grep -q 'tiling space is exhausted' '$SCRATCH/log'"
# the call, not the comment that quotes it
tile=$(grep -o 'set_tileLength([0-9]*);' "$SCRATCH/best/op_host/hidden_setter_tile.cpp" 2>/dev/null |
	grep -o '[0-9][0-9]*')
check "the best operator sets another tile than 512 (it set ${tile:-none})" [ "${tile:-512}" != 512 ]
base=$(get baseline latency_us)
best=$(get best latency_us)
check "and is faster ($base us -> $best us)" python3 -c "import sys; sys.exit(not float('$best') < float('$base'))"
is "the best genome holds that tile" "$(python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))["best"]["genome"]
print(next(v for k, v in g.items() if k.endswith(":set_tileLength")))' "$SCRATCH/summary.json" 2>/dev/null)" "$tile"
done_testing
