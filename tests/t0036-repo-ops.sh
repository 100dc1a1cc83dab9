#!/bin/bash
# SPDX-License-Identifier: MIT
# Operators inside their repository, as a user of a cann-ops style
# repository has them (tests/fixtures/repo, our own operators): 'ascendopt
# init' with no flags and 'ascendopt eval' find the host units and include
# folders the repository's CMake declares (or, without CMake, op_host's
# sources less the aclnn and opdev wrappers), the shared headers and the
# shared tiling source, and the constructs real kernels use (ASSERT
# compiled out, the <<<>>> launch stub, ORIG_DTYPE_<NAME> in #if,
# float16_t, TQueSync, the system workspace, an entry named like libm's
# cos); the outputs match independent references; the repository files a
# build reads are part of the cache key; and an episode runs on them.
# expensive: evaluates operators inside whole repositories
. "$(dirname "$0")/tap.sh"
unset ASCENDOPT_CACHE_DIR # this test looks at its own state directory's object cache

plan 15

repo=$SCRATCH/repo
cp -r "$SRC/tests/fixtures/repo" "$repo"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@t commit -qm "operators"
check=$BUILD/tests/helpers/sim-check
field() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }

# evaluate NAME: eval --quick into a fresh work dir; the result JSON on stdout
evaluate() {
	rm -rf "$SCRATCH/work-$1"
	"$BUILD/ascendopt" eval "$repo/src/math/$1" --quick --work-dir "$SCRATCH/work-$1" --json \
		2>>"$SCRATCH/eval.log"
}

# matches NAME: the last evaluate's outputs against tests/fixtures/repo-refs/NAME.c
matches() {
	cc -std=gnu11 -O2 -ffp-contract=off -I"$SRC/tests/sim" "$SRC/tests/fixtures/repo-refs/$1.c" \
		-ljansson -lm -o "$SCRATCH/ref-$1" || return 1
	for c in "$SCRATCH/work-$1"/case_*/; do
		mkdir -p "$c/ref"
		"$SCRATCH/ref-$1" "$c" "$c/ref" || return 1
	done
	"$check" outputs "$repo/src/math/$1" "$SCRATCH/work-$1"
}

for op in scale_shared cos; do
	out=$("$BUILD/ascendopt" init "$repo/src/math/$op" 2>&1)
	code=$?
	is "init $op with no flags" "$code" 0
	[ $code = 0 ] || echo "$out" | sed 's/^/#   /'
done
is "ScaleShared's draft takes the OpDef's first column, float16, and msOpSt's alpha" \
	"$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["inputs"][0]["dtype"], [c["attrs"] for c in d["cases"][:2]])' "$repo/src/math/scale_shared/ascendopt.json")" \
	"float16 [{'alpha': 1.5}, {'alpha': -0.75}]"

first=$(evaluate scale_shared)
is "ScaleShared evaluates: shared tiling source, shared headers, wrappers left out" \
	"$(echo "$first" | field '["status"]')" ok
check "and its float16 path (chosen by ORIG_DTYPE_X in #if) matches the reference" matches scale_shared
is "every unit compiled the first time" "$(echo "$first" | field '["compile_cache_hits"]')" 0
is "an unchanged operator comes from the cache: three host units and the kernel" \
	"$(evaluate scale_shared | field '["compile_cache_hits"]')" 4
echo "// a comment changes the shared tiling header" >>"$repo/src/common/inc/scale/scale_tiling_def.h"
is "a changed shared header is part of every unit's key" \
	"$(evaluate scale_shared | field '["compile_cache_hits"]')" 0
echo "// a comment changes the operator's own kernel" >>"$repo/src/math/scale_shared/op_kernel/scale_shared.cpp"
is "a changed kernel source recompiles the kernel alone" \
	"$(evaluate scale_shared | field '["compile_cache_hits"]')" 3

out=$(evaluate cos)
is "Cos, with no CMakeLists.txt and an entry named like libm's cos, evaluates" \
	"$(echo "$out" | field '["status"]')" ok
check "and matches the reference" matches cos
is "its host units are op_host's less the aclnn and opdev wrappers: one unit and the kernel" \
	"$(evaluate cos | field '["compile_cache_hits"]')" 2

out=$("$BUILD/ascendopt" optimize "$repo/src/math/scale_shared" --budget 2 \
	--state-dir "$SCRATCH/opt-state" 2>&1)
is "an episode measures the operator with its repository's files" "$?" 0
contains "and reports its baseline" "$out" "baseline"
is "the repository is left as it was, apart from the drafted manifests and the two comments" \
	"$(git -C "$repo" status --porcelain | sort | tr '\n' ' ')" \
	" M src/common/inc/scale/scale_tiling_def.h  M src/math/scale_shared/op_kernel/scale_shared.cpp ?? src/math/cos/ascendopt.json ?? src/math/scale_shared/ascendopt.json "

done_testing
