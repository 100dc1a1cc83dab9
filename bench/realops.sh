#!/bin/bash
# SPDX-License-Identifier: MIT
# Real operators as a new user meets them: for each operator of a list
# (default bench/realops/cann-ops-dev.txt, the development set), from a
# fresh export of the repository, 'ascendopt init' with no flags, then
# 'ascendopt eval' with the golden checked.  Prints a table (operator,
# init, eval status, error kind and the first line of its message, golden
# verdict, bench microseconds), the counts, and the blockers ranked by how
# many operators each stops; writes them and the bench shapes init chose
# to $REALOPS_OUT (default: a temporary directory, named at the end).
#
#   bench/realops.sh REPO [LIST]     REPO: a cann-ops checkout or bare clone
#
# In 'make bench' it runs when CANN_OPS names the repository, and says it
# skips otherwise.  bench/results/realops-shapes.json holds the shapes of a
# committed run: a later run that chose others says so per operator.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-$SRC/build}" && pwd)
REPO=${1:-${CANN_OPS:-}}
LIST=${2:-$SRC/bench/realops/cann-ops-dev.txt}
JOBS=${REALOPS_JOBS:-$(nproc)}
TIMEOUT=${REALOPS_TIMEOUT:-600}

if [ -z "$REPO" ]; then
	echo "realops: skipped: set CANN_OPS to a cann-ops checkout or bare clone (e.g. a clone of"
	echo "realops: https://github.com/Hayden727/cann-ops) to run the real-operator benchmark"
	exit 0
fi
if ! git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
	echo "realops: $REPO is not a git repository (a checkout or a bare clone of cann-ops)" >&2
	exit 66
fi
[ -r "$LIST" ] || { echo "realops: $LIST: cannot read the operator list" >&2; exit 66; }

out=${REALOPS_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ascendopt-realops.XXXXXX")}
mkdir -p "$out/ops"
work=$(mktemp -d "${TMPDIR:-/tmp}/ascendopt-realops-work.XXXXXX")
trap 'rm -rf "$work"' EXIT
commit=$(git -C "$REPO" rev-parse HEAD)

# a fresh export of the repository, as a git work tree so that init finds its root
git -C "$REPO" archive HEAD | tar -x -C "$work" || { echo "realops: cannot export $REPO" >&2; exit 74; }
git -C "$work" init -q
export ASCENDOPT_STATE_DIR=$work/.state

one() {
	local op=$1 name dir log
	name=$(echo "$op" | tr '/' '+')
	dir=$work/$op
	log=$out/ops/$name
	if [ ! -d "$dir" ]; then
		echo "not in the repository" >"$log.init"
		echo 66 >"$log.init-rc"
		return
	fi
	timeout "$TIMEOUT" "$BUILD/ascendopt" init "$dir" >"$log.init" 2>&1
	echo $? >"$log.init-rc"
	[ -f "$dir/ascendopt.json" ] || return
	cp "$dir/ascendopt.json" "$log.manifest.json"
	timeout "$TIMEOUT" "$BUILD/ascendopt" eval "$dir" --json >"$log.eval.json" 2>"$log.eval.err"
	echo $? >"$log.eval-rc"
}
export -f one
export BUILD TIMEOUT work out

start=$(date +%s)
grep -v '^#' "$LIST" | grep -v '^\s*$' | xargs -P "$JOBS" -I{} bash -c 'one "$@"' _ {}
seconds=$(($(date +%s) - start))

python3 "$SRC/bench/realops-report.py" "$LIST" "$out" "$commit" "$seconds" \
	"$SRC/bench/results/realops-shapes.json"
echo "realops: details in $out (per operator: .init, .manifest.json, .eval.json)"
