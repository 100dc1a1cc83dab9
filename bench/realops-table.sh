#!/bin/bash
# SPDX-License-Identifier: MIT
# The strategies side by side on real operators (issues #26 and #27): a
# fresh export of a cann-ops repository, 'ascendopt init' (no flags) on
# each operator of bench/realops/table-ops.txt, its bench case checked
# against bench/results/realops-shapes.json, then bench_optimize over
# those operators, the table split per category.
#
#   bench/realops-table.sh REPO [LIST]     REPO: a cann-ops checkout or bare clone
#
# Environment: REALOPS_STRATEGIES (default "stage1 bon"), REALOPS_SEEDS
# (3), REALOPS_BUDGET (40), REALOPS_FIRST_SEED (1), REALOPS_OUT (the
# table's path prefix; default build/realops-table), BENCH_REUSE (earlier
# tables of this script to continue, as bench_optimize reads it),
# REALOPS_JOBS (parallel inits; default the cores), REALOPS_DRAFTS (the
# drafts of an earlier run at the same commits, kept with KEEP_SCRATCH=1:
# the next seeds skip the 25 minutes of drafting).  In 'make bench' it
# runs when CANN_OPS names the repository, and says it skips otherwise.
# An operator whose draft fails or whose bench case differs from the
# committed shapes is left out and named: the table is only comparable
# over the same operators and shapes.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-$SRC/build}" && pwd)
REPO=${1:-${CANN_OPS:-}}
LIST=${2:-$SRC/bench/realops/table-ops.txt}
JOBS=${REALOPS_JOBS:-$(nproc)}
OUT=${REALOPS_OUT:-$BUILD/realops-table}
SHAPES=$SRC/bench/results/realops-shapes.json

if [ -z "$REPO" ]; then
	echo "realops-table: skipped: set CANN_OPS to a cann-ops checkout or bare clone (e.g. a clone"
	echo "realops-table: of https://github.com/Hayden727/cann-ops) to run the strategies on real operators"
	exit 0
fi
if ! git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
	echo "realops-table: $REPO is not a git repository (a checkout or a bare clone of cann-ops)" >&2
	exit 66
fi
[ -r "$LIST" ] || { echo "realops-table: $LIST: cannot read the operator list" >&2; exit 66; }
# before the drafts, which take minutes: the programs the table needs
for prog in ascendopt ascendopt-exec bench/bench_optimize; do
	[ -x "$BUILD/$prog" ] && continue
	echo "realops-table: $BUILD/$prog is not built: run 'make bench' or 'make $BUILD/$prog' first" >&2
	exit 69
done
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$(dirname "$OUT")"

# what the drafts depend on: ascendopt's commit (init) and the repository's
drafted_by="ascendopt $(git -C "$SRC" rev-parse HEAD 2>/dev/null || echo unknown) cann-ops $(git -C "$REPO" rev-parse HEAD)"
# the state outside the export: candidates' sandboxes mount the repository read-only
state=$(mktemp -d "${TMPDIR:-/tmp}/ascendopt-realops-state.XXXXXX")
export ASCENDOPT_STATE_DIR=$state
if [ -n "${REALOPS_DRAFTS:-}" ]; then
	work=$(cd "$REALOPS_DRAFTS" 2>/dev/null && pwd) || { echo "realops-table: REALOPS_DRAFTS=$REALOPS_DRAFTS: no such directory" >&2; exit 66; }
	if [ "$(cat "$work/.realops-drafted" 2>/dev/null)" != "$drafted_by" ]; then
		echo "realops-table: $work was not drafted by $drafted_by (it says: $(cat "$work/.realops-drafted" 2>/dev/null || echo nothing)); draft afresh without REALOPS_DRAFTS" >&2
		exit 65
	fi
	[ -n "${KEEP_SCRATCH:-}" ] || trap 'rm -rf "$state"' EXIT
	echo "realops-table: the drafts of $work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/ascendopt-realops-table.XXXXXX")
	if [ -n "${KEEP_SCRATCH:-}" ]; then
		echo "realops-table: keeping the drafts in $work (REALOPS_DRAFTS=$work reuses them)"
	else
		trap 'rm -rf "$work" "$state"' EXIT
	fi
	git -C "$REPO" archive HEAD | tar -x -C "$work/" || { echo "realops-table: cannot export $REPO" >&2; exit 74; }
	git -C "$work" init -q
fi

draft() {
	timeout 600 "$BUILD/ascendopt" init "$work/$1" >"$work/.init-$(echo "$1" | tr / +)" 2>&1 ||
		echo "init failed: $(grep '^ascendopt init:' "$work/.init-$(echo "$1" | tr / +)" | tail -n 2 | tr '\n' ' ')" \
			>"$work/.left-$(echo "$1" | tr / +)" # the reason, then what was (not) written
}
export -f draft
export BUILD work
if [ -z "${REALOPS_DRAFTS:-}" ]; then
	grep -v '^#' "$LIST" | grep -v '^\s*$' | xargs -P "$JOBS" -I{} bash -c 'draft "$@"' _ {}
	echo "$drafted_by" >"$work/.realops-drafted"
fi

# the bench case of each draft against the committed shapes
ops=$(python3 - "$LIST" "$work" "$SHAPES" <<'PY'
import json, os, sys
lst, work, shapes_path = sys.argv[1:4]
shapes = json.load(open(shapes_path))["shapes"]
for op in (l.strip() for l in open(lst)):
    if not op or op.startswith("#"):
        continue
    left = os.path.join(work, ".left-" + op.replace("/", "+"))
    if os.path.exists(left):
        print("realops-table: %s left out: %s" % (op, open(left).read().strip()), file=sys.stderr)
        continue
    doc = json.load(open(os.path.join(work, op, "ascendopt.json")))
    bench = [c["shapes"] for c in doc.get("cases", []) if c.get("bench")]
    if op in shapes and bench != shapes[op]:
        print("realops-table: %s left out: its bench case %s is not the committed %s"
              % (op, bench, shapes[op]), file=sys.stderr)
        continue
    if op not in shapes:
        print("realops-table: %s: no committed bench shapes; using the draft's %s" % (op, bench),
              file=sys.stderr)
    print(op)
PY
)
n=$(echo "$ops" | grep -c .)
echo "realops-table: $n operators from $LIST, repository $(git -C "$REPO" rev-parse --short=12 HEAD)"
[ "$n" -gt 0 ] || exit 1

cd "$work" || exit 74
BENCH_OPS="$ops" \
BENCH_STRATEGIES=${REALOPS_STRATEGIES:-stage1 bon} \
BENCH_SEEDS=${REALOPS_SEEDS:-3} \
BENCH_BUDGET=${REALOPS_BUDGET:-40} \
BENCH_FIRST_SEED=${REALOPS_FIRST_SEED:-1} \
BENCH_BANK=$SRC/etc/ascendopt/seed-bank.json \
BENCH_OUT=$OUT \
BENCH_RETRIEVAL=0 \
ASCENDOPT_EXEC_HELPER=${ASCENDOPT_EXEC_HELPER:-$BUILD/ascendopt-exec} \
ASCENDOPT_SIM_DIR=${ASCENDOPT_SIM_DIR:-$BUILD/sim} \
	"$BUILD/bench/bench_optimize"
