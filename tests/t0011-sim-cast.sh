#!/bin/bash
# SPDX-License-Identifier: MIT
# The simulator's Cast in every round mode over all 65,536 half bit
# patterns (and the other documented pairs), against an implementation
# written independently in the test.  The test program prints its own TAP.
. "$(dirname "$0")/tap.sh"
sim=${ASCENDOPT_SIM_DIR:-$BUILD/sim}
if ! g++ -std=gnu++17 -O2 -ffp-contract=off -I"$SRC/npu/sim/include" "$SRC/tests/sim/test_cast.cpp" \
	-L"$sim" -lascendsim -ljansson -o "$SCRATCH/test_cast" >"$SCRATCH/build.log" 2>&1; then
	plan 1
	not_ok "test_cast.cpp builds"
	sed 's/^/#   /' "$SCRATCH/build.log" | head -20
	exit 1
fi
"$SCRATCH/test_cast"
exit $?
