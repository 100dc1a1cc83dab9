#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The exact build of the simulated NPU, written out so that the Makefile and
# the evaluator can do the same thing:
#
#   npu/sim/build.sh lib BUILDDIR
#       compiles npu/sim/runtime/*.cpp into BUILDDIR/libascendsim.a
#
#   npu/sim/build.sh op BUILDDIR OPDIR GLUE.cpp OUT [-DNAME=VALUE ...]
#       builds one operator program OUT from OPDIR/op_host/*.cpp and the
#       generated GLUE.cpp, with the per-variant macros (-DDTYPE_X=half
#       -DORIG_DTYPE_X=DT_FLOAT16 ...) the evaluator derives from the case.
#
# The kernel translation unit (GLUE.cpp, which #includes op_kernel/<op>.cpp)
# is compiled apart from the host sources because it gets force-includes
# the real build provides by generating code: every OPDIR/op_host/*tiling*.h
# (so GET_TILING_DATA sees the tiling classes) and ascendsim/kernel_prelude.h,
# then a header of using-declarations that brings each tiling class (and no
# other name of namespace optiling) to global scope, where generated tiling
# structs live; the evaluator writes the same lines at the top of its glue.
# The two compiles are independent and run in parallel.
set -eu

CXX=${CXX:-g++}
HERE=$(cd "$(dirname "$0")" && pwd)
INC="$HERE/include"
CXXFLAGS="-std=gnu++17 -O2 -g0 -ffp-contract=off -fno-strict-aliasing -pipe -Wall -Wno-unused-variable -Wno-unused-function"

usage() {
	echo "usage: $0 lib BUILDDIR" >&2
	echo "       $0 op BUILDDIR OPDIR GLUE.cpp OUT [-DNAME=VALUE ...]" >&2
	exit 64
}

[ $# -ge 2 ] || usage
mode=$1
build=$2
shift 2

case $mode in
lib)
	mkdir -p "$build/ascendsim-obj"
	objs=
	for src in "$HERE"/runtime/*.cpp; do
		obj="$build/ascendsim-obj/$(basename "$src" .cpp).o"
		$CXX $CXXFLAGS -I"$INC" -I"$HERE/runtime" -c "$src" -o "$obj" &
		objs="$objs $obj"
	done
	wait
	for obj in $objs; do [ -f "$obj" ] || exit 1; done
	rm -f "$build/libascendsim.a"
	ar rcs "$build/libascendsim.a" $objs
	;;
op)
	[ $# -ge 3 ] || usage
	opdir=$1
	glue=$2
	out=$3
	shift 3
	work="$out.objs"
	mkdir -p "$work"
	includes=
	headers=
	for h in "$opdir"/op_host/*tiling*.h; do
		[ -f "$h" ] && includes="$includes -include $h" && headers="$headers $h"
	done
	includes="$includes -include ascendsim/kernel_prelude.h"
	# shellcheck disable=SC2086
	if [ -n "$headers" ]; then awk -f "$HERE/tiling-classes.awk" $headers; fi >"$work/tiling_classes.h"
	includes="$includes -include $work/tiling_classes.h"
	pids=
	objs=
	for src in "$opdir"/op_host/*.cpp; do
		[ -f "$src" ] || continue
		obj="$work/host_$(basename "$src" .cpp).o"
		$CXX $CXXFLAGS -I"$INC" -I"$opdir/op_host" "$@" -c "$src" -o "$obj" &
		pids="$pids $!"
		objs="$objs $obj"
	done
	# shellcheck disable=SC2086
	$CXX $CXXFLAGS -I"$INC" -I"$opdir/op_kernel" -I"$opdir/op_host" "$@" $includes -fsanitize-coverage=trace-pc -c "$glue" -o "$work/kernel.o" &
	pids="$pids $!"
	status=0
	for pid in $pids; do wait "$pid" || status=1; done
	[ $status -eq 0 ] || exit 1
	# shellcheck disable=SC2086
	$CXX $objs "$work/kernel.o" -L"$build" -lascendsim -ljansson -o "$out"
	rm -rf "$work"
	;;
*)
	usage
	;;
esac
