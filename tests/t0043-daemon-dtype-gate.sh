#!/bin/bash
# SPDX-License-Identifier: MIT
# The dtype gate (issue #26) through the daemon: tests/ops/ok/dtype_ub_parts,
# whose manifest runs float32 only while its OpDef also registers float16
# and int32, and whose fastest float32 tiling overflows the UB on int32,
# is optimized and published; the published operator still passes int32
# (against the original, on the same inputs) and its report lists every
# dtype combination checked and the candidates rejected for breaking one.
# expensive: a full episode through the daemon, with the gate's runs
. "$(dirname "$0")/tap.sh"
plan 9

repo=$SCRATCH/ops
sock=$SCRATCH/ascendoptd.sock
cfg=$SCRATCH/ascendoptd.json
log=$SCRATCH/daemon.log
sibling=refs/heads/ascendopt/main/ops+dtype_ub_parts
export ASCENDOPT_SOCKET=$sock
# a private lock directory: other tests' daemons must not hold our device
export ASCENDOPT_LOCK_DIR=$SCRATCH/locks
cli() { "$BUILD/ascendopt" "$@"; }

git init -q -b main "$repo"
git -C "$repo" config user.email t@example.com
git -C "$repo" config user.name Tester
mkdir -p "$repo/ops/dtype_ub_parts"
cp -r "$SRC/tests/ops/ok/dtype_ub_parts/." "$repo/ops/dtype_ub_parts/"
git -C "$repo" add -A && git -C "$repo" commit -qm "dtype_ub_parts"
# Stage I can try every genome of the two knobs and the one structural move
cat >"$cfg" <<JSON
{"state_dir": "$SCRATCH/state", "socket": "$sock", "devices": 1,
 "episode": {"budget": 20, "rounds": 1, "stage1_steps": 16, "stage2_steps": 4},
 "repos": [{"path": "$repo", "branches": ["main"]}]}
JSON

"$BUILD/ascendoptd" --config "$cfg" 2>"$log" &
pid=$!
started() { for _ in $(seq 600); do cli status >/dev/null 2>&1 && return 0; sleep 0.05; done; return 1; }
check "the daemon starts" started

id=$(cli enqueue "$repo" ops/dtype_ub_parts --json | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
state=
for _ in $(seq 3000); do
	state=$(cli show "$id" --json 2>/dev/null | grep -o '"state":"[a-z_]*"' | head -1 | cut -d'"' -f4)
	case "$state" in done | failed | cancelled) break ;; esac
	sleep 0.2
done
is "the episode ends done" "$state" done
published() { git -C "$repo" rev-parse -q --verify "$sibling" >/dev/null; }
for _ in $(seq 300); do published && break; sleep 0.1; done
check "a faster operator is published" published
published || { cli show "$id" | head -30; tail -20 "$log"; } | sed 's/^/# /'

# the published operator with an int32 manifest, against the original's
pub=$SCRATCH/published
mkdir -p "$pub"
git -C "$repo" archive "$sibling" ops/dtype_ub_parts | tar xf - -C "$pub"
int32() { mkdir -p "$2" && cp -r "$1/op_host" "$1/op_kernel" "$2/" && sed 's/"float32"/"int32"/g' "$1/ascendopt.json" >"$2/ascendopt.json"; }
int32 "$SRC/tests/ops/ok/dtype_ub_parts" "$SCRATCH/original-int32"
int32 "$pub/ops/dtype_ub_parts" "$SCRATCH/published-int32"
check "the published operator changed the tiling" \
	bash -c "! diff -q '$SRC/tests/ops/ok/dtype_ub_parts/op_host/dtype_ub_parts.cpp' '$pub/ops/dtype_ub_parts/op_host/dtype_ub_parts.cpp' >/dev/null"
"$BUILD/ascendopt" eval "$SCRATCH/published-int32" --quick --compare "$SCRATCH/original-int32" \
	--json >"$SCRATCH/int32.json" 2>&1
status=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["status"])' "$SCRATCH/int32.json" 2>/dev/null)
is "the published operator passes int32, as the original does" "$status" ok
[ "$status" = ok ] || { head -c 600 "$SCRATCH/int32.json"; echo; } | sed 's/^/#   /'

report=$(git -C "$repo" show "$sibling:ops/dtype_ub_parts/ascendopt-report.md")
contains "the report lists every dtype combination checked" "$report" \
	"Dtypes checked: x:float32 y:float32 (the manifest's cases); every new best also passed x:float16 y:float16 and x:int32 y:int32"
contains "the report counts the candidates that broke int32" "$report" \
	"Candidates rejected for breaking a dtype the original passes: "
is "the JSON report lists them too" \
	"$(git -C "$repo" show "$sibling:ops/dtype_ub_parts/ascendopt-report.json" |
		python3 -c 'import json, sys; d = json.load(sys.stdin)["dtypes"]; print(d["manifest"], "/", " / ".join(d["checked"]), d["rejected"] > 0)')" \
	"x:float32 y:float32 / x:float16 y:float16 / x:int32 y:int32 True"

kill -TERM "$pid"
wait "$pid"
is "the daemon stops cleanly" "$?" 0
done_testing
