#!/bin/bash
# SPDX-License-Identifier: MIT
# 'ascendopt init' takes cases and goldens from an operator's own tests
# (msOpSt files with calc_expect_func_file, examples with main.cpp and
# gen_data.py), adds a bench case at a realistic size, and drafts a whole
# repository with --all; 'ascendopt eval' checks the goldens.  The
# operators are ours, laid out like cann-ops operators, with fixtures of our
# own writing (tests/fixtures/init-cases).
# expensive: drafts and evaluates every init fixture
. "$(dirname "$0")/tap.sh"

cli() { "$BUILD/ascendopt" "$@"; }
fx=$SRC/tests/fixtures/init-cases
py() { python3 -c "import json, sys
m = json.load(open(sys.argv[1]))
$1" "$2"; }

plan 66

# bare OPDIR NAME: a copy of OPDIR's sources, without its manifest
bare() {
	mkdir -p "$SCRATCH/$2"
	cp -r "$1/op_host" "$1/op_kernel" "$SCRATCH/$2/"
	echo "$SCRATCH/$2"
}

# ---- an example: main.cpp and gen_data.py, no msOpSt cases
ex=$(bare "$SRC/examples/ops/level1/add" repo/math/add_example)
mkdir -p "$ex/examples/AclNNInvocationNaive"
cp "$fx/main.cpp" "$fx/gen_data.py" "$ex/examples/AclNNInvocationNaive/"
out=$(cli init "$ex" 2>&1)
contains "cases come from the example when there are no msOpSt cases" "$out" \
	"case AclNNInvocationNaive from examples/AclNNInvocationNaive: shapes, dtypes from main.cpp (aclnnAddCustomGetWorkspaceSize), inputs and golden from what gen_data.py writes"
is "the example's shapes, dtypes and golden files are in the draft" \
	"$(py 'c = m["cases"][0]
print(c["shapes"], [t["dtype"] for t in m["inputs"]], c["golden"])' "$ex/ascendopt.json")" \
	"{'x': [16, 300], 'y': [16, 300], 'z': [16, 300]} ['float32', 'float32'] {'example': 'examples/AclNNInvocationNaive', 'inputs': {'x': {'file': 'input/input_x.bin'}, 'y': {'file': 'input/input_y.bin'}}, 'outputs': {'z': 'output/golden.bin'}}"
check "gen_data.py wrote nothing into the operator" test ! -e "$ex/examples/AclNNInvocationNaive/input"
out=$(cli eval --quick --json "$ex")
code=$?
is "eval runs the example's inputs and matches its golden.bin" \
	"$(echo "$out" | python3 -c 'import json, sys; g = json.load(sys.stdin)["golden"]; print(g["verdict"], g["cases"][0]["outputs"][0]["elements"])')" \
	"match 4800"
is "and exits 0" "$code" 0
out=$(cd "$SCRATCH" && cli eval --quick --json "$ex" --work-dir not-yet/work 2>&1)
is "a --work-dir that does not exist yet, relative to another directory, is made for the golden too" \
	"$(echo "$out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["golden"]["verdict"])' 2>&1)" match
out=$(ASCENDOPT_TEST_GOLDEN_SCALE=2 cli eval --quick --json "$ex")
is "a golden.bin the outputs do not match is a mismatch, and eval exits 1" \
	"$?:$(echo "$out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["golden"]["verdict"])')" \
	"1:mismatch"
out=$(cli optimize "$ex" --budget 2 --strategy stage1 2>&1)
contains "an episode starts on an operator whose cases come from its example (gen_data.py travels with every candidate)" \
	"$out" "evaluations 2"

# ---- a value-carrying input: WindowCopy's tiling reads the value of its
# begin input, which main.cpp gives as a literal; on seeded values the
# tiling refuses (GRAPH_FAILED), so an episode must run the example case on
# the example's inputs, as eval does
wc=$(bare "$SRC/tests/ops/ok/window_copy" valued/window)
mkdir -p "$wc/examples/AclNNInvocationNaive"
cp "$fx/window_main.cpp" "$wc/examples/AclNNInvocationNaive/main.cpp"
cp "$fx/window_gen_data.py" "$wc/examples/AclNNInvocationNaive/gen_data.py"
out=$(cli init "$wc" 2>&1)
is "init takes begin's value from main.cpp" \
	"$(py 'print(m["cases"][0]["golden"]["inputs"]["begin"])' "$wc/ascendopt.json")" "{'values': [256]}"
contains "and its check runs the example case on it" "$out" "golden match"
out=$(cli optimize "$wc" --budget 2 --strategy stage1 2>&1)
contains "the episode's baseline and candidates run the example case on the example's inputs" \
	"$out" "evaluations 2"
is "gen_data.py is run once for the baseline and every candidate" \
	"$(grep -c 'written by gen_data.py once for every candidate' <<<"$out")" 1

st=$(bare "$SRC/examples/ops/level1/add" repo/math/add_st)
mkdir -p "$st/tests/st"
cp "$fx/test_add.py" "$fx/test_missing.py" "$st/tests/st/"
cat >"$st/tests/st/AddCustom_case.json" <<'JSON'
[
  {"case_name": "Test_Add_001", "op": "AddCustom",
   "calc_expect_func_file": "./test_add.py:calc_expect_func",
   "input_desc": [{"name": "x", "format": ["ND"], "type": ["float"], "shape": [8, 300]},
                  {"name": "y", "format": ["ND"], "type": ["float"], "shape": [8, 300]}],
   "output_desc": [{"name": "z", "format": ["ND"], "type": ["float"], "shape": [8, 300]}]},
  {"case_name": "Test_Add_002", "op": "AddCustom",
   "calc_expect_func_file": "./test_missing.py:calc_expect_func",
   "input_desc": [{"name": "x", "format": ["ND"], "type": ["float"], "shape": [3, 77]},
                  {"name": "y", "format": ["ND"], "type": ["float"], "shape": [3, 77]}]},
  {"case_name": "Test_Add_003", "op": "AddCustom",
   "input_desc": [{"name": "x", "format": ["ND"], "type": ["float"], "shape": [8]}]},
  {"case_name": "Test_Add_004", "op": "AddCustom",
   "input_desc": [{"name": "x", "format": ["ND"], "type": ["float"], "shape": [8]},
                  {"name": "y", "format": ["UNDEFINED"], "type": ["UNDEFINED"], "shape": []},
                  {"name": "y", "format": ["ND"], "type": ["float"], "shape": "fuzz"}]}
]
JSON
out=$(cli init --no-check "$st" 2>&1)
contains "the msOpSt cases' expectation functions are their goldens" "$out" \
	"2 cases from 1 msOpSt file in tests/st/ (shapes and dtypes from input_desc), 2 with a golden"
contains "a case with another number of inputs is left out, and said" "$out" \
	"2 msOpSt cases left out; the first: tests/st/AddCustom_case.json: case Test_Add_003 gives 1 inputs"
is "the golden is recorded per case" \
	"$(py 'print([c.get("golden") for c in m["cases"]])' "$st/ascendopt.json")" \
	"[{'function': 'tests/st/test_add.py:calc_expect_func'}, {'function': 'tests/st/test_missing.py:calc_expect_func'}, None]"
out=$(cli eval --quick --json "$st")
code=$?
is "eval: the function's golden matches; a golden importing a missing module is unavailable" \
	"$(echo "$out" | python3 -c 'import json, sys
g = json.load(sys.stdin)["golden"]
print(g["verdict"], g["matched"], g["unavailable"], [c["verdict"] for c in g["cases"]])')" \
	"match 1 1 ['match', 'unavailable']"
contains "and says why" "$out" "the golden imports ascendopt_no_such_module, which is not installed"
is "an unavailable golden is counted, not failed" "$code" 0
out=$(cli optimize "$st" --budget 2 --strategy stage1 2>&1)
contains "an episode starts on an operator whose goldens are msOpSt functions (their files travel with every candidate)" \
	"$out" "evaluations 2"
python3 - "$st/ascendopt.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["cases"][0]["golden"]["function"] = "tests/st/test_add.py:wrong_expect_func"
json.dump(m, open(sys.argv[1], "w"))
PY
out=$(cli eval --quick "$st" 2>&1)
is "a deliberately wrong golden is a mismatch: eval exits 1" "$?" 1
contains "and the first mismatch is shown" "$out" "first at 0: got"
out=$(cli eval --quick --no-golden "$st" 2>&1)
is "--no-golden leaves the goldens out" "$?" 0

# ---- attribute names in another case style
lk=$(bare "$SRC/examples/ops/level1/leaky_relu" repo/activation/leaky)
mkdir -p "$lk/tests/st"
cp "$fx/test_leaky.py" "$lk/tests/st/"
cat >"$lk/tests/st/LeakyRelu_case.json" <<'JSON'
[{"case_name": "Test_Leaky_001", "calc_expect_func_file": "test_leaky.py:calc_expect_func",
  "input_desc": [{"name": "x", "format": ["ND"], "type": ["float16"], "shape": [4, 512]}],
  "output_desc": [{"name": "y", "format": ["ND"], "type": ["float16"], "shape": [4, 512]}],
  "attr": [{"name": "negativeSlope", "type": "float", "value": 0.25}]}]
JSON
cli init --no-check "$lk" >/dev/null 2>&1
is "negativeSlope in msOpSt is the OpDef's negative_slope; the golden gets its own name" \
	"$(py 'c = m["cases"][0]; print(c["attrs"], c["golden"]["names"])' "$lk/ascendopt.json")" \
	"{'negative_slope': 0.25} {'negative_slope': 'negativeSlope'}"
out=$(cli eval --quick --json "$lk")
is "and eval matches it with that attribute" \
	"$(echo "$out" | python3 -c 'import json, sys; print(json.load(sys.stdin)["golden"]["verdict"])')" \
	"match"

# ---- the bench case
is "elementwise: the bench case grows the first axis to at least 8M elements" \
	"$(py 'print([(c["name"], c["shapes"], c["bench"]) for c in m["cases"]][-1])' "$ex/ascendopt.json")" \
	"('bench', {'x': [27968, 300], 'y': [27968, 300], 'z': [27968, 300]}, True)"
is "the original cases stay correctness cases" \
	"$(py 'print([c["bench"] for c in m["cases"]])' "$ex/ascendopt.json")" "[False, True]"
rms=$(bare "$SRC/examples/ops/level2/rms_norm" repo/norm/rms)
is "row-wise (a norm): the bench case grows the last axis, gamma with it" \
	"$(cli init --no-check --stdout "$rms" --case x=4x100,gamma=100 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["cases"][-1]["shapes"])')" \
	"{'x': [4, 2097200], 'gamma': [2097200]}"
fe=$(bare "$SRC/examples/ops/level2/foreach_add_list" repo/foreach/fe)
is "a list input grows every entry" \
	"$(cli init --no-check --stdout "$fe" --case 'x=8x100;4x100,y=8x100;4x100' 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["cases"][-1]["shapes"]["x"])')" \
	"[[83888, 100], [41944, 100]]"
is "--bench-shape gives the timed case instead" \
	"$(cli init --no-check --stdout "$rms" --case x=4x100,gamma=100 --bench-shape x=64x4096,gamma=4096 2>/dev/null |
		python3 -c 'import json, sys
m = json.load(sys.stdin); print([(c["name"], c["bench"]) for c in m["cases"]], m["cases"][-1]["shapes"])')" \
	"[('case1', False), ('bench', True)] {'x': [64, 4096], 'gamma': [4096]}"

# ---- --case: every input in the hint, output shapes
bare "$SRC/examples/ops/level1/add" repo/math/add_bare >/dev/null
out=$(cli init "$SCRATCH/repo/math/add_bare" 2>&1)
contains "the --case hint names every input" "$out" "give one with --case, e.g. --case x=4096x4096,y=4096x4096"
is "--case gives an output's shape" \
	"$(cli init --no-check --stdout "$SCRATCH/repo/math/add_bare" --case x=8x16,y=8x16,z=8x16 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["cases"][0]["shapes"])')" \
	"{'x': [8, 16], 'y': [8, 16], 'z': [8, 16]}"

# ---- examples of the main.cpp forms init reads, on operators of our own
# example OP PREFIX: a copy of tests/ops/ok/OP with the fixture PREFIX_main.cpp as its example
example() {
	local dir=$SCRATCH/ex/$1
	mkdir -p "$dir/examples/AclNNInvocationNaive"
	cp -r "$SRC/tests/ops/ok/$1/op_host" "$SRC/tests/ops/ok/$1/op_kernel" "$dir/"
	cp "$fx/$2_main.cpp" "$dir/examples/AclNNInvocationNaive/main.cpp"
	cp "$fx/$2_gen_data.py" "$dir/examples/AclNNInvocationNaive/gen_data.py"
	echo "$dir"
}
ia=$(example inplace_axpy inplace)
out=$(cli init "$ia" 2>&1)
contains "a ref (in-place) operator drafts, and its check runs the example's inputs against its golden" \
	"$out" "checked: case AclNNInvocationNaive ran on the simulator: ok"
contains "and the golden matches" "$out" "; golden match"
is "the OpDef's output of an input's name is a ref output; arguments bound by name, the ref tensor passed once" \
	"$(py 'c = m["cases"][0]
print(m["outputs"], c["shapes"], c["attrs"], c["golden"]["outputs"])' "$ia/ascendopt.json")" \
	"[{'name': 'y', 'dtype': 'float32', 'ref': True}] {'y': [77], 'x': [77]} {'alpha': 0.5} {'y': 'output/golden.bin'}"
is "eval reads the updated tensor back as the output and matches the golden" \
	"$(cli eval --quick --json "$ia" | python3 -c 'import json, sys
r = json.load(sys.stdin); print(r["status"], r["golden"]["verdict"])')" "ok match"
rm -rf "$ia/examples"
mkdir -p "$ia/tests/st"
cp "$fx/test_inplace.py" "$ia/tests/st/"
cat >"$ia/tests/st/InplaceAxpy_case.json" <<'JSON'
[{"case_name": "Test_InplaceAxpy_001", "op": "InplaceAxpy",
  "calc_expect_func_file": "test_inplace.py:calc_expect_func",
  "input_desc": [{"name": "y", "format": ["ND"], "type": ["float"], "shape": [5, 100]},
                 {"name": "x", "format": ["ND"], "type": ["float"], "shape": [5, 100]}],
  "output_desc": [{"name": "y_out", "format": ["ND"], "type": ["float"], "shape": [5, 100]}],
  "attr": [{"name": "alpha", "type": "float", "value": 2.5}]}]
JSON
cli init --force --no-check "$ia" >/dev/null 2>&1
is "an msOpSt expectation function gets the in-place tensor's value and matches its update" \
	"$(cli eval --quick --json "$ia" | python3 -c 'import json, sys
r = json.load(sys.stdin); print(r["status"], r["golden"]["verdict"])')" "ok match"
u64=$(example u64_delta u64)
out=$(cli init "$u64" 2>&1)
contains "uint64 and float64 tensors draft and match their goldens" "$out" "; golden match"
is "a scalar the aclnn call passes for an OpDef input is a one-element tensor with its value" \
	"$(py 'c = m["cases"][0]
print([t["dtype"] for t in m["inputs"] + m["outputs"]], c["shapes"]["scale"], c["golden"]["inputs"]["scale"], c["attrs"])' "$u64/ascendopt.json")" \
	"['uint64', 'float64', 'uint64', 'float64'] [1] {'values': [0.25]} {'base': 1000000000000}"
cc=$(example cscale_conj cscale)
out=$(cli init "$cc" 2>&1)
contains "a complex64 operator drafts and matches its golden" "$out" "; golden match"
is "its tensors are complex64" "$(py 'print([t["dtype"] for t in m["inputs"] + m["outputs"]])' "$cc/ascendopt.json")" \
	"['complex64', 'complex64']"
ob=$(example optional_bias bias)
out=$(cli init "$ob" 2>&1)
contains "an optional input main.cpp leaves nullptr is absent, and the check still matches" "$out" "; golden match"
is "the case gives it null; gamma's values come from main.cpp" \
	"$(py 'c = m["cases"][0]; print(c["shapes"], c["golden"]["inputs"]["gamma"])' "$ob/ascendopt.json")" \
	"{'x': [2, 4], 'bias': None, 'gamma': [4], 'y': [2, 4]} {'values': [1.0, 2.0, 0.5, -1.0]}"
rm -rf "$ob/examples"
mkdir -p "$ob/tests/st"
cat >"$ob/tests/st/OptionalBias_case.json" <<'JSON'
[{"case_name": "Test_OptionalBias_001", "op": "OptionalBias",
  "input_desc": [{"name": "x", "format": ["ND"], "type": ["float"], "shape": [3, 40]},
                 {"name": "bias", "format": ["RESERVED"], "type": ["UNDEFINED"], "shape": []},
                 {"name": "gamma", "format": ["ND"], "type": ["float"], "shape": [40],
                  "value_range": [[0.5, 1]]}],
  "output_desc": [{"name": "y", "format": ["ND"], "type": ["float"], "shape": [3, 40]}]},
 {"case_name": "Test_OptionalBias_002", "op": "OptionalBias",
  "input_desc": [{"name": "x", "format": ["ND"], "type": ["float"], "shape": [2, 8]},
                 {"name": "bias", "format": ["ND"], "type": ["float"], "shape": [8]},
                 {"name": "gamma", "format": ["ND"], "type": ["float"], "shape": [8],
                  "value_range": [[2, 3]]}],
  "output_desc": [{"name": "y", "format": ["ND"], "type": ["float"], "shape": [2, 8]}]},
 {"case_name": "Test_OptionalBias_003", "op": "OptionalBias",
  "input_desc": [{"name": "x", "format": ["ND"], "type": ["float16"], "shape": [2, 8]},
                 {"name": "bias", "format": ["ND"], "type": ["float16"], "shape": [8]},
                 {"name": "gamma", "format": ["ND"], "type": ["float16"], "shape": [8]}]}]
JSON
out=$(cli init --force "$ob" 2>&1)
is "an msOpSt input of type UNDEFINED is the optional input left out: null" \
	"$(py 'print(m["cases"][0]["shapes"])' "$ob/ascendopt.json")" "{'x': [3, 40], 'bias': None, 'gamma': [40], 'y': [3, 40]}"
is "a case whose value_range differs from the first case's has its own input_ranges" \
	"$(py 'print(m["input_ranges"], [c.get("input_ranges") for c in m["cases"]])' "$ob/ascendopt.json")" \
	"{'gamma': [0.5, 1.0]} [None, {'gamma': [2.0, 3.0]}]"
contains "a grown bench case that does not run (this kernel keeps a row in UB) is dropped, and said" "$out" \
	"the grown case bench did not run (runtime_error (ub_overflow): OptionalBias"
contains "a case with other dtypes than the first is left out, and said" "$out" \
	"case Test_OptionalBias_003 gives input x as float16, where an earlier case has float32"
mn=$SCRATCH/ex/misnamed
mkdir -p "$mn/examples/AclNNInvocationNaive"
cp -r "$SRC/tests/ops/ok/optional_bias/op_host" "$SRC/tests/ops/ok/optional_bias/op_kernel" "$mn/"
# bias_main.cpp with the variables of x and gamma swapped: their names mislead
sed -e 's/&x);$/\&tmp);/' -e 's/&gamma);$/\&x);/' -e 's/&tmp);$/\&gamma);/' \
	-e 's/GetWorkspaceSize(x, bias, gamma,/GetWorkspaceSize(gamma, bias, x,/' \
	"$fx/bias_main.cpp" >"$mn/examples/AclNNInvocationNaive/main.cpp"
cp "$fx/bias_gen_data.py" "$mn/examples/AclNNInvocationNaive/gen_data.py"
out=$(cli init "$mn" 2>&1)
contains "tensors whose names mislead bind by the generated aclnn order, and the golden matches" "$out" "; golden match"
is "the tensor called gamma is x, the one called x is gamma" \
	"$(py 'print(m["cases"][0]["shapes"])' "$mn/ascendopt.json")" "{'x': [2, 4], 'bias': None, 'gamma': [4], 'y': [2, 4]}"
sc=$(bare "$SRC/tests/ops/ok/scale_inplace" repo/math/scale_inplace)
out=$(cli init --no-check --case x=1000 "$sc" 2>&1)
contains "an OpDef without outputs updates its inputs in place, and init says so" "$out" \
	"the OpDef declares no outputs: the kernel updates its inputs in place"
is "every input is read back as a ref output" "$(py 'print(m["outputs"])' "$sc/ascendopt.json")" \
	"[{'name': 'x', 'dtype': 'float32', 'ref': True}]"
gt=$(bare "$SRC/tests/ops/ok/gather_table" repo/index/gather_table)
out=$(cli init --no-check --stdout --case x=1000,idx=64,y=64,z=64,r=64,w=64 "$gt" 2>&1)
is "an index input gets a range inside the tensor it indexes, not the default [-100, 100]" \
	"$(echo "$out" | sed -n '/^{/,/^}/p' | python3 -c 'import json, sys; print(json.load(sys.stdin)["input_ranges"])')" \
	"{'idx': [0, 999]}"
rm -rf "$SCRATCH/ex" "$SCRATCH/repo/math/scale_inplace" "$SCRATCH/repo/index"

# ---- how main.cpp's arguments bind to an OpDef they do not follow to the
# letter: AttrNorm (a fixture OpDef, never built) with five examples
an=$SCRATCH/norm/attr_norm
mkdir -p "$an"
cp -r "$fx/attr_norm/op_host" "$fx/attr_norm/op_kernel" "$fx/attr_norm/examples" "$an/"
for d in "$an"/examples/*/; do cp "$fx/attr_norm/gen_data.py" "$d"; done
out=$(cli init --no-check "$an" 2>&1)
case_of() { py "c = {c['name']: c for c in m['cases']}['$1']; $2" "$an/ascendopt.json"; }
is "values bind to the attributes their names abbreviate (eps, kernelSize, training)" \
	"$(case_of abbrev 'print(c.get("attrs"))')" "{'epsilon': 1e-06, 'ksize': 3, 'is_training': True}"
is "optional inputs the call leaves out are null; an output it passes nullptr for is InferShape's, without a golden" \
	"$(case_of abbrev 'print(c["shapes"], c["golden"]["outputs"])')" \
	"{'x': [4, 32], 'gamma': [32], 'beta': None, 'offset': None, 'y': [4, 32]} {'y': 'output/golden.bin'}"
contains "and init says so" "$out" \
	"examples/abbrev/main.cpp: aclnnAttrNormGetWorkspaceSize asks for no output rstd (nullptr)"
is "an argument init cannot read keeps its place among the attributes: the values after it bind to the attributes after it" \
	"$(case_of order 'print(c.get("attrs"), c["shapes"]["beta"])')" "{'ksize': 3, 'is_training': True, 'momentum': 0.25} None"
is "a value that fits more than one attribute is bound to none" "$(case_of ambiguous 'print(c.get("attrs"))')" "None"
contains "and init says it is not taken" "$out" \
	"examples/ambiguous/main.cpp passes 1 non-tensor arguments that match no attribute of the OpDef by name, nor by position in one way only: not taken"
is "a shape and an attribute main.cpp reads from files gen_data.py writes" \
	"$(case_of fromfile 'print(c["shapes"]["x"], c["attrs"])')" "[4, 32] {'epsilon': 0.00100000005}"
is "a tensor more than the kernel takes is dropped, the last ones are the outputs" \
	"$(case_of dropped 'print(c["shapes"])')" \
	"{'x': [4, 32], 'gamma': [32], 'beta': [32], 'offset': [32], 'y': [4, 32], 'rstd': [4]}"
rm -rf "$SCRATCH/norm"

# ---- a hand-written aclnn wrapper whose call takes the tensors in another
# order than the OpDef: its level-0 launch (ADD_TO_LAUNCHER_LIST_AICORE)
# says which parameter is which input, output and attribute
pg=$SCRATCH/pooling/pool_grad
mkdir -p "$pg"
cp -r "$fx/pool_grad/op_host" "$fx/pool_grad/op_kernel" "$fx/pool_grad/examples" "$pg/"
cp "$fx/pool_grad/gen_data.py" "$pg/examples/swapped/"
out=$(cli init --no-check "$pg" 2>&1)
is "tensors bind by the names the wrapper's launch passes, not by the aclnn call's order" \
	"$(py 'c = m["cases"][0]; print(c["shapes"], c["attrs"])' "$pg/ascendopt.json")" \
	"{'x': [4, 8], 'grad': [2, 4], 'argmax': [2, 4], 'y': [4, 8]} {'ksize': 2, 'ceil_mode': True}"
is "and so do the files gen_data.py writes for them" \
	"$(py 'print(m["cases"][0]["golden"]["inputs"])' "$pg/ascendopt.json")" \
	"{'x': {'file': 'input/self.bin'}, 'grad': {'file': 'input/grad.bin'}, 'argmax': {'file': 'input/indices.bin'}}"
contains "init says where the binding comes from" "$out" \
	"examples/swapped/main.cpp: aclnnPoolBackwardGetWorkspaceSize bound to the OpDef by the names op_host/aclnn_pool_grad.h passes to PoolGrad's launch in op_host/pool_grad_l0.cpp"
# a launch that hands the kernel a tensor the wrapper computes (here from
# gradOutput) does not bind; where nothing else binds either, init stops
sed -i 's/OP_INPUT(self, gradOutput, indices)/OP_INPUT(self, gradOutput, sortedIndices)/' "$pg/op_host/pool_grad_l0.cpp"
sed -i -e 's/const aclTensor \*indices, int64_t kernelSize,//' -e 's/int64_t poolMode, bool ceilMode, //' \
	"$pg/op_host/aclnn_pool_grad.h"
sed -i 's/(gradOut, self, indices, kernelSize, poolMode, ceilMode, gradIn/(gradOut, self, gradIn/' \
	"$pg/examples/swapped/main.cpp"
out=$(cli init --no-check --force "$pg" 2>&1)
contains "a tensor the wrapper computes is named, with the file" "$out" \
	"op_host/pool_grad_l0.cpp passes sortedIndices as the OpDef's input argmax, which is no parameter of op_host/aclnn_pool_grad.h by that name"
rm -rf "$SCRATCH/pooling"

# ---- --all over a small repository: one line per operator
rm -f "$SCRATCH"/repo/*/*/ascendopt.json
out=$(cli init --all --no-check "$SCRATCH/repo" 2>&1)
is "--all prints one line per operator, and a count" "$(echo "$out" | wc -l)" 7
contains "an operator that drafts is ok" "$out" "math/add_example: ok, 2 cases, 1 with a golden (not checked)"
contains "one that does not says why, with the flag to give" "$out" \
	"math/add_bare: .cases: no msOpSt case in tests/st/ to take shapes from; give one with --case"
done_testing
