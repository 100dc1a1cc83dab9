#!/bin/bash
# SPDX-License-Identifier: MIT
# 'ascendopt init' drafts ascendopt.json from an operator's own files.  On
# every corpus operator, with its hand-written cases given as an msOpSt
# file, the draft says what the hand-written manifest says (name, kernel,
# tensors and dtypes, case shapes and attributes, input ranges).  Each
# failure says which field and what to give; nothing is written then.
# expensive: drafts and runs manifests of many operators
. "$(dirname "$0")/tap.sh"

cli() { "$BUILD/ascendopt" "$@"; }
compare=$SRC/tests/helpers/init-compare.py

# the corpus operators whose inputs are single tensors (msOpSt has no lists)
ops=()
for d in "$SRC"/examples/ops/level*/*/; do
	grep -q '"list": *true' "$d/ascendopt.json" || ops+=("$d")
done
plan $((${#ops[@]} + 22))

# bare OPDIR NAME: a copy of OPDIR's sources, without its manifest
bare() {
	mkdir -p "$SCRATCH/$2"
	cp -r "$1/op_host" "$1/op_kernel" "$SCRATCH/$2/"
	echo "$SCRATCH/$2"
}

for d in "${ops[@]}"; do
	n=$(basename "$d")
	op=$(bare "$d" "corpus/$n")
	mkdir -p "$op/tests/st"
	python3 "$compare" st "$d/ascendopt.json" "$op/tests/st/${n}_case.json"
	kernel=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("kernel", ""))' \
		"$d/ascendopt.json")
	# a templated entry needs its instantiation; the others are found
	args=()
	case "$kernel" in *'<'*) args=(--kernel "$kernel") ;; esac
	if ! out=$(cli init --no-check "${args[@]}" "$op" 2>&1); then
		not_ok "$n: init fails"
		echo "$out" | sed 's/^/#   /'
	elif diff=$(python3 "$compare" compare "$d/ascendopt.json" "$op/ascendopt.json"); then
		ok "$n: the draft from its msOpSt cases says what its manifest says"
	else
		not_ok "$n: the draft differs from its manifest"
		echo "$diff" | head -5 | sed 's/^/#   /'
	fi
done

# a dynamic-list operator from --case, checked on the simulator
foreach=$(bare "$SRC/examples/ops/level2/foreach_add_list" foreach)
out=$(cli init "$foreach" --case 'x=100;2x50,y=100;2x50' --case 'big:x=4096x2048;4099,y=4096x2048;4099' 2>&1)
contains "a dynamic-list draft runs its smallest case on the simulator" "$out" \
	"checked: case case1 ran on the simulator: ok"
is "dynamic inputs and outputs are lists; a large case is timed as it is" \
	"$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
print([t.get("list") for t in m["inputs"] + m["outputs"]], m["cases"][1]["shapes"]["z"],
      [c["bench"] for c in m["cases"]])' "$foreach/ascendopt.json")" \
	"[True, True, True] [[4096, 2048], [4099]] [False, True]"

# the written draft is a manifest eval takes as it is
rms=$(bare "$SRC/examples/ops/level2/rms_norm" rms)
out=$(cli init "$rms" --case x=37x999,gamma=999 --case big:x=8192x2048,gamma=2048 2>&1)
contains "the draft names where it came from" "$out" \
	"name RmsNorm, 2 inputs, 1 outputs and 1 attributes"
quiet_eval() { cli eval --quick "$1" >/dev/null 2>&1; }
check "ascendopt eval runs the written draft" quiet_eval "$rms"
is "a float attribute keeps the default as written (1e-6f)" \
	"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["attrs"])' "$rms/ascendopt.json")" \
	"{'epsilon': 1e-06}"

# an existing manifest is kept unless --force
cp "$rms/ascendopt.json" "$SCRATCH/rms-before.json"
cli init "$rms" --case 4x8 >"$SCRATCH/out" 2>&1
is "an existing ascendopt.json is not replaced (exit 73)" "$?" 73
check "and is left as it was" cmp -s "$rms/ascendopt.json" "$SCRATCH/rms-before.json"
cli init --force --no-check "$rms" --case small:x=4x8,gamma=8 >/dev/null 2>&1
is "--force replaces it" \
	"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cases"][0]["name"])' "$rms/ascendopt.json")" \
	small

# --stdout prints the draft and writes nothing
add=$(bare "$SRC/examples/ops/level1/add" add)
cli init --no-check --stdout "$add" --case 4096x4096 >"$SCRATCH/draft.json" 2>&1
check "--stdout prints a JSON draft" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' \
	"$SCRATCH/draft.json"
check "--stdout writes no file" test ! -e "$add/ascendopt.json"
is "--variant 1 takes the OpDef's second dtype combination" \
	"$(cli init --no-check --stdout --variant 1 "$add" --case 64 2>/dev/null |
		python3 -c 'import json, sys; print([t["dtype"] for t in json.load(sys.stdin)["inputs"]])')" \
	"['float16', 'float16']"

# failures: which field, what to give, and no file
out=$(cli init "$add" 2>&1)
code=$?
contains "no shapes anywhere: .cases is named with the flag to give" "$out" \
	".cases: no msOpSt case in tests/st/ to take shapes from; give one with --case"
is "and it exits 65" "$code" 65
out=$(cli init "$add" --case w=8 2>&1)
contains "--case naming no input says which inputs there are" "$out" \
	'AddCustom has no input or output "w" (its inputs, then outputs: x, y, z)'
out=$(cli init "$add" --case x=8y 2>&1)
contains "a malformed --case shows the form" "$out" "give shapes as [NAME:]x=8x2048"
out=$(cli init "$add" --variant 5 --case 8 2>&1)
contains "--variant past the OpDef's combinations says how many there are" "$out" \
	"the OpDef lists 2 dtype combinations (0 to 1)"

narrow=$(bare "$SRC/examples/ops/level2/narrow" narrow)
out=$(cli init "$narrow" --case 8x100 --attr start=3 2>&1)
contains "a REQUIRED attribute with no default is named with the flag to give" "$out" \
	".attrs.length: the OpDef's attribute length is REQUIRED and has no default; give it with --attr length=VALUE"

abs=$(bare "$SRC/examples/ops/level1/abs" abs)
out=$(cli init "$abs" --case 1024 2>&1)
contains "a templated entry asks for its instantiation" "$out" \
	".kernel: the entry abs_custom is a template; give the instantiation to run with --kernel"
out=$(cli init "$abs" --case 1024 --kernel 'abs_custom<double>' 2>&1)
contains "a draft that does not run is not written" "$out" "nothing was written"
check "and leaves no file" test ! -e "$abs/ascendopt.json"

broken=$(bare "$SRC/examples/ops/level1/relu" broken)
echo 'this is not C++' >>"$broken/op_host/relu_custom.cpp"
out=$(cli init "$broken" --case 1024 2>&1)
contains "an op_host that does not compile is named" "$out" \
	"op_host/relu_custom.cpp does not compile for the simulator"

# an msOpSt case of another operator is left out; auto-sync follows CMakeLists
sync=$(bare "$SRC/examples/ops/level1/relu" sync)
echo 'add_ops_compile_options(OP_NAME ReluCustom OPTIONS --cce-auto-sync=off)' >"$sync/CMakeLists.txt"
mkdir -p "$sync/tests/st"
cat >"$sync/tests/st/cases.json" <<'EOF'
[
  {"case_name": "Test_Other_001", "op": "OtherOp",
   "input_desc": [{"format": ["ND"], "type": ["float16"], "shape": [8, 8]}]},
  {"case_name": "Test_Relu_001", "op": "ReluCustom",
   "input_desc": [{"format": ["ND"], "type": ["float16"], "shape": [64, 2048],
                   "value_range": [[-2.0, 2.0]]}],
   "output_desc": [{"format": ["ND"], "type": ["float16"], "shape": [64, 2048]}]}
]
EOF
cli init --no-check "$sync" >/dev/null 2>&1
is "only the operator's own msOpSt cases, with their types, ranges and auto-sync" \
	"$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
print([c["name"] for c in m["cases"]], m["inputs"][0]["dtype"], m["input_ranges"], m["auto_sync"])' \
		"$sync/ascendopt.json")" \
	"['Test_Relu_001', 'bench'] float16 {'x': [-2.0, 2.0]} False"
done_testing
