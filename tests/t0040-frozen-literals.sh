#!/bin/bash
# SPDX-License-Identifier: MIT
# Genes only where a choice is (issue #26), through 'ascendopt optimize':
# on tests/ops/ok/keyed_scale, whose tiling sets a tiling key and reads
# dtype byte widths from constants and has a float16 branch its float32
# manifest never runs, no candidate the episode evaluated changes any of
# those literals.  That is judged from the candidates' own op_host texts as
# the store recorded them, against the operator on disk, not from the
# search's genomes; and the episode record says of every literal why it
# was or was not taken.
# expensive: a Stage I episode on the simulator
. "$(dirname "$0")/tap.sh"
plan 9
op=$SRC/tests/ops/ok/keyed_scale
state=$SCRATCH/state

"$BUILD/ascendopt" optimize "$op" --strategy stage1 --budget 8 --seed 3 --state-dir "$state" \
	--json >"$SCRATCH/out.json" 2>"$SCRATCH/err.log"
tail -1 "$SCRATCH/out.json" >"$SCRATCH/record.json"
is "the episode ends done" \
	"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["state"])' "$SCRATCH/record.json")" \
	done

# why NAME LINE: the record's verdict on the literal NAME on LINE: taken frozen why
why() {
	python3 - "$SCRATCH/record.json" "$1" "$2" <<'PY'
import json, sys
record = json.load(open(sys.argv[1]))
for l in record.get("literals", []):
    if l["name"] == sys.argv[2] and str(l["line"]) == sys.argv[3]:
        print(l["taken"], l["frozen"], l["why"])
PY
}
line_of() { grep -n -F "$1" "$op/op_host/keyed_scale.cpp" | head -1 | cut -d: -f1; }

is "a tiling key is frozen, and the record says why" \
	"$(why TILING_KEY_HALF "$(line_of 'TILING_KEY_HALF = 2')")" "False True tiling key (SetTilingKey)"
is "a dtype byte width is frozen" \
	"$(why BYTE_LEN_4 "$(line_of 'BYTE_LEN_4 = 4')")" "False True dtype byte width"
is "a literal in the float16 branch no case runs is frozen" \
	"$(why ubPartNum "$(line_of 'ubPartNum = 3;')")" "False True not executed by any case"
is "a constant only that branch reads is frozen" \
	"$(why HALF_TILE_NUM "$(line_of 'HALF_TILE_NUM = 16')")" "False True not executed by any case"
is "the tiles per core stay a gene" \
	"$(why TILE_NUM "$(line_of 'TILE_NUM = 8;')")" "True False count"

# every candidate in the store against the operator on disk: which frozen
# literals' lines it lost, and which genes' lines it changed
"$BUILD/tests/helpers/store-candidates" "$state" >"$SCRATCH/candidates.jsonl"
python3 - "$SCRATCH/record.json" "$SCRATCH/candidates.jsonl" "$op" >"$SCRATCH/judged.txt" <<'PY'
import json, sys
record = json.load(open(sys.argv[1]))
op = sys.argv[3]
disk = {}
def text_of(path):
    if path not in disk:
        disk[path] = open(f"{op}/{path}").read()
    return disk[path]
# what has a fixed meaning in keyed_scale, known independently of the
# record, and whatever else the record says it froze
fixed = ["TILING_KEY_FLOAT = 1;", "TILING_KEY_HALF = 2;", "BYTE_LEN_4 = 4;", "BYTE_LEN_2 = 2;",
         "HALF_TILE_NUM = 16;", "ubPartNum = 3;"]
host = "op_host/keyed_scale.cpp"
lines = text_of(host).split("\n")
frozen = [{"file": host, "line": next(i + 1 for i, t in enumerate(lines) if f in t), "name": f}
          for f in fixed]
frozen += [l for l in record.get("literals", []) if l["frozen"]]
taken = [l for l in record.get("literals", []) if l["taken"]]
checked = changed_frozen = changed_genes = 0
for row in open(sys.argv[2]):
    cand = json.loads(row)
    checked += 1
    lost = []
    for l in frozen:
        base = text_of(l["file"]).split("\n")
        line = base[l["line"] - 1]
        text = cand["files"].get(l["file"], text_of(l["file"])).split("\n")
        if text.count(line) < base.count(line):
            lost.append(f'{l["file"]}:{l["line"]} {l["name"]}')
    if lost:
        changed_frozen += 1
        print("changes", cand["identity"][:12], ", ".join(lost), file=sys.stderr)
    for l in taken:
        base = text_of(l["file"]).split("\n")
        text = cand["files"].get(l["file"], text_of(l["file"])).split("\n")
        if base[l["line"] - 1] not in text:
            changed_genes += 1
            break
print(checked, changed_frozen, changed_genes)
PY
read -r checked changed_frozen changed_genes <"$SCRATCH/judged.txt"
check "the store holds the baseline and the 8 candidates ($checked)" [ "${checked:-0}" -ge 9 ]
is "no evaluated candidate changes a frozen literal" "$changed_frozen" 0
check "candidates do change the genes ($changed_genes of $checked)" [ "${changed_genes:-0}" -ge 4 ]
done_testing
