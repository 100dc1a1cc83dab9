# SPDX-License-Identifier: MIT
# Shared by the tests that run the hostile probe operator
# (tests/security/ops/sandbox_probe): sourced after tests/tap.sh.
# shellcheck shell=bash

# probe ACTION TARGET: a fresh copy of the probe operator in $SCRATCH/op, set
# to do ACTION to TARGET, and no work directory left from a run before.
probe() {
	rm -rf "$SCRATCH/op" "$SCRATCH/work"
	cp -r "$SRC/tests/security/ops/sandbox_probe" "$SCRATCH/op"
	python3 - "$SCRATCH/op/ascendopt.json" "$1" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["attrs"] = {"action": sys.argv[2], "target": sys.argv[3]}
json.dump(m, open(sys.argv[1], "w"))
PY
}

# ev [ARG...]: eval of the probe, its result as JSON on stdout
ev() { "$BUILD/ascendopt" eval "$SCRATCH/op" --state-dir "$SCRATCH/state" --work-dir "$SCRATCH/work" --json "$@"; }

# field NAME: a top-level field of the JSON on stdin
field() { python3 -c 'import json, sys; print(json.load(sys.stdin).get(sys.argv[1]))' "$1"; }
