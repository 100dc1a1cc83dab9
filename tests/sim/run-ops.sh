#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Builds libascendsim and every test operator under tests/ops, runs each
# case on the simulated NPU and checks it: ok operators against their
# independent C reference within the manifest tolerance, bad operators for
# the status and error kind in their expect.json.  Prints TAP.
#
#   tests/sim/run-ops.sh [--quick] [OP ...]
#
# --quick skips cases marked "bench": true.  Environment: BUILD (a scratch
# directory, default a fresh temp dir), PLATFORM (a platform profile,
# default Ascend910B2), SEED (default 42), CC (default cc).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CC=${CC:-cc}
SEED=${SEED:-42}
PLATFORM=${PLATFORM:-$ROOT/npu/sim/platforms/Ascend910B2.json}
BUILD=${BUILD:-$(mktemp -d "${TMPDIR:-/tmp}/ascendsim-ops.XXXXXX")}
QUICK=0
if [ "${1:-}" = "--quick" ]; then
	QUICK=1
	shift
fi

mkdir -p "$BUILD/tools"
if ! "$ROOT/npu/sim/build.sh" lib "$BUILD" >"$BUILD/lib.log" 2>&1; then
	echo "1..1"
	echo "not ok 1 - build libascendsim"
	sed 's/^/# /' "$BUILD/lib.log" | head -40
	exit 1
fi
$CC -std=gnu11 -O2 -Wall -Wextra -Werror "$ROOT/tests/sim/opspec.c" -ljansson -o "$BUILD/tools/opspec" || exit 1
$CC -std=gnu11 -O2 -Wall -Wextra -Werror "$ROOT/tests/sim/compare.c" -lm -o "$BUILD/tools/compare" || exit 1
OPSPEC=$BUILD/tools/opspec
COMPARE=$BUILD/tools/compare

# The operator directories to test.
if [ $# -gt 0 ]; then
	ops=
	for name in "$@"; do
		for kind in ok bad; do
			[ -d "$ROOT/tests/ops/$kind/$name" ] && ops="$ops $ROOT/tests/ops/$kind/$name"
		done
	done
else
	ops=$(ls -d "$ROOT"/tests/ops/ok/*/ "$ROOT"/tests/ops/bad/*/ 2>/dev/null | sed 's:/$::')
fi

is_bench() { # OPDIR CASE
	[ "$($OPSPEC --field "$1/ascendopt.json" "cases.$2.bench")" = true ]
}

json_field() { # FILE PATH, e.g. error.kind
	$OPSPEC --field "$1" "$2"
}

# Plan: one test per case of an ok operator, one per bad operator.
plan=0
for op in $ops; do
	case $op in
	*/tests/ops/ok/*) plan=$((plan + $($OPSPEC "$op" --cases))) ;;
	*) plan=$((plan + 1)) ;;
	esac
done
echo "1..$plan"

n=0
failed=0
report() { # STATUS NAME [LOGFILE]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && [ -f "$3" ] && sed 's/^/# /' "$3" | head -12
	fi
}

for op in $ops; do
	name=$(basename "$op")
	kind=ok
	case $op in */tests/ops/bad/*) kind=bad ;; esac
	work=$BUILD/$kind-$name
	mkdir -p "$work"
	if [ $kind = ok ]; then
		if ! $CC -std=gnu11 -O2 -ffp-contract=off -I"$ROOT/tests/sim" "$op/reference.c" -ljansson -lm -o "$work/reference" >"$work/ref-build.log" 2>&1; then
			cases=$($OPSPEC "$op" --cases)
			i=0
			while [ $i -lt "$cases" ]; do
				report fail "$name case $i: reference.c does not build" "$work/ref-build.log"
				i=$((i + 1))
			done
			continue
		fi
		cases=$($OPSPEC "$op" --cases)
		built_defines=
		i=0
		while [ $i -lt "$cases" ]; do
			c=$work/case$i
			rm -rf "$c"
			mkdir -p "$c/ref"
			label="$name case $i ($(json_field "$op/ascendopt.json" "cases.$i.name"))"
			if [ $QUICK = 1 ] && is_bench "$op" $i; then
				n=$((n + 1))
				echo "ok $n - $label # SKIP bench case with --quick"
				i=$((i + 1))
				continue
			fi
			$OPSPEC "$op" $i "$PLATFORM" "$SEED" "$c" || { report fail "$label: opspec"; i=$((i + 1)); continue; }
			defines=$(cat "$c/defines")
			if [ "$defines" != "$built_defines" ]; then
				# shellcheck disable=SC2086
				if ! "$ROOT/npu/sim/build.sh" op "$BUILD" "$op" "$c/glue.cpp" "$work/prog" $defines >"$c/build.log" 2>&1; then
					report fail "$label: compile" "$c/build.log"
					i=$((i + 1))
					continue
				fi
				built_defines=$defines
			fi
			if ! "$work/prog" "$c/spec.json" "$c" >"$c/run.log" 2>&1; then
				report fail "$label: harness exited non-zero" "$c/run.log"
				i=$((i + 1))
				continue
			fi
			status=$(json_field "$c/result.json" status)
			if [ "$status" != ok ]; then
				json_field "$c/result.json" error >"$c/err.log"
				report fail "$label: status $status" "$c/err.log"
				i=$((i + 1))
				continue
			fi
			if ! "$work/reference" "$c" "$c/ref" >"$c/ref.log" 2>&1; then
				report fail "$label: reference failed" "$c/ref.log"
				i=$((i + 1))
				continue
			fi
			ok=1
			: >"$c/compare.log"
			while read -r dt atol rtol frac file; do
				if ! "$COMPARE" "$dt" "$atol" "$rtol" "$frac" "$c/$file" "$c/ref/$file" >>"$c/compare.log" 2>&1; then
					echo "$file differs" >>"$c/compare.log"
					ok=0
				fi
			done <"$c/checks"
			if [ $ok = 1 ]; then report ok "$label"; else report fail "$label: wrong answer" "$c/compare.log"; fi
			i=$((i + 1))
		done
	else
		want_status=$(json_field "$op/expect.json" status)
		want_kind=$(json_field "$op/expect.json" kind)
		label="$name: expect $want_status${want_kind:+/$want_kind}"
		c=$work/case0
		rm -rf "$c"
		mkdir -p "$c"
		$OPSPEC "$op" 0 "$PLATFORM" "$SEED" "$c" || { report fail "$label: opspec"; continue; }
		# shellcheck disable=SC2086
		if ! "$ROOT/npu/sim/build.sh" op "$BUILD" "$op" "$c/glue.cpp" "$work/prog" $(cat "$c/defines") >"$c/build.log" 2>&1; then
			got_status=compile_error
			got_kind=compile_error
		elif timeout 120 "$work/prog" "$c/spec.json" "$c" >"$c/run.log" 2>&1; then
			got_status=$(json_field "$c/result.json" status)
			got_kind=$(json_field "$c/result.json" error.kind)
		else
			got_status=harness_failure
			got_kind=
		fi
		if [ "$got_status" = "$want_status" ] && { [ -z "$want_kind" ] || [ "$got_kind" = "$want_kind" ]; }; then
			report ok "$label"
		else
			{
				echo "got status=$got_status kind=$got_kind"
				[ -f "$c/result.json" ] && json_field "$c/result.json" error
				head -5 "$c/build.log" 2>/dev/null
			} >"$c/why.log"
			report fail "$label" "$c/why.log"
		fi
	fi
done

[ $failed -eq 0 ]
