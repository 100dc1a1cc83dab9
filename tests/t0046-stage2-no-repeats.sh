#!/bin/bash
# SPDX-License-Identifier: MIT
# Stage II does not measure again what the episode measured (issue #26, part 5).
# The corpus's Mul with the tiling Stage I found for it (31 tiles a core, one
# buffer, 1 KiB blocks): padding every bank-conflicting site loses, padding the
# first alone wins, and on that new best padding every site again gives the
# candidate already measured.  Before the change Stage II proposed it again (a
# memo hit, its 7th step); now it is left out, counted, and the line that says
# Stage II is spent says so.
. "$(dirname "$0")/tap.sh"
plan 5
op=$SCRATCH/mul
cp -r "$SRC/examples/ops/level1/mul" "$op"
sed -i 's/TILE_NUM = 42;/TILE_NUM = 31;/; s/BUFFER_NUM = 2; /BUFFER_NUM = 1; /; s/BLOCK_BYTES = 32;/BLOCK_BYTES = 1024;/' \
	"$op/op_host/mul_custom.cpp"
out=$("$BUILD/ascendopt" optimize "$op" --strategy stage2 --budget 8 --seed 1 \
	--state-dir "$SCRATCH/state" --json 2>"$SCRATCH/log" | tail -1)
echo "$out" >"$SCRATCH/record.json"
py() { python3 -c "$1" "$SCRATCH/record.json"; }

is "the episode finishes" "$(py 'import json, sys; print(json.load(open(sys.argv[1]))["state"])')" done
contains "a motif at one site is a new best" "$(py 'import json, sys
for s in json.load(open(sys.argv[1]))["trajectory"]: print(s.get("motif"), s.get("site"), s["new_best"])')" \
	"bank_conflict_pad 0 True"
# a Stage II step whose candidate this episode measured before: a repeat (a memo hit here)
repeats=$(py 'import json, sys
seen = set()
for s in json.load(open(sys.argv[1]))["trajectory"]:
    if s["stage"] == 2 and s["identity"] in seen:
        print(s["evaluation"], s["motif"], s["site"], "memo hit" if s["memo_hit"] else "")
    seen.add(s["identity"])')
is "no Stage II step repeats a candidate measured in the episode" "$repeats" ""
is "the candidate measured before is left out and counted" \
	"$(py 'import json, sys; print(json.load(open(sys.argv[1])).get("stage2_measured_before"))')" 1
contains "the log says why Stage II stops" "$(cat "$SCRATCH/log")" \
	"Stage II: every motif that applies to the best was measured on it (bank_conflict_pad measured before in this episode); nothing new to try"
done_testing
