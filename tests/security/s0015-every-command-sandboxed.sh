#!/bin/bash
# SPDX-License-Identifier: MIT
# Every command that compiles and runs operator code opens it through the
# one environment (npu/environment.h), so each asks for the sandbox and
# refuses to run when none works, saying how to fix it.  corpus and rewind
# (rewind --llm builds LLM-written code) used to run it unsandboxed, and
# init only failed once its first child did.
. "$(dirname "$0")/../tap.sh"

plan 7

mkdir -p "$SCRATCH/nobwrap" "$SCRATCH/ops/level1"
printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' >"$SCRATCH/nobwrap/bwrap"
chmod +x "$SCRATCH/nobwrap/bwrap"
cp -r "$SRC/examples/ops/level1/add" "$SCRATCH/ops/level1/"
op=$SCRATCH/ops/level1/add

# without_bwrap COMMAND [ARG...]: its exit status and the last line it printed
without_bwrap() {
	local out rc
	out=$(PATH="$SCRATCH/nobwrap:$PATH" ASCENDOPT_STATE_DIR="$SCRATCH/state" "$BUILD/ascendopt" "$@" 2>&1)
	rc=$?
	echo "$rc $(tail -n 1 <<<"$out" | grep -o 'install bubblewrap')"
}

refused="69 install bubblewrap"
is "eval refuses without a working sandbox and says how to fix it" "$(without_bwrap eval "$op")" "$refused"
is "so does optimize" "$(without_bwrap optimize "$op" --budget 2)" "$refused"
is "so does corpus" "$(without_bwrap corpus --root "$SCRATCH/ops")" "$refused"
is "so does rewind" "$(without_bwrap rewind --root "$SCRATCH/ops")" "$refused"
cp -r "$op" "$SCRATCH/new" && rm "$SCRATCH/new/ascendopt.json"
is "and init, which runs the operator's host code to read its OpDef" \
	"$(without_bwrap init "$SCRATCH/new" --stdout)" "$refused"
check "no evaluation started: the store holds no result" \
	bash -c '! ls "$1"/state/scratch/* >/dev/null 2>&1' _ "$SCRATCH"

status=$(PATH="$SCRATCH/nobwrap:$PATH" ASCENDOPT_SANDBOX=off "$BUILD/ascendopt" corpus \
	--root "$SCRATCH/ops" --state-dir "$SCRATCH/state" 2>/dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["status"])')
is "ASCENDOPT_SANDBOX=off runs it unsandboxed, on purpose" "$status" ok

done_testing
