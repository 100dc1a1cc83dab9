#!/bin/bash
# SPDX-License-Identifier: MIT
# The cycle model against the published Add benchmark (cases 0-6 within
# 15%, the per-pipe figures and the orderings): tests/sim/calibrate.sh.
# The sanitizer pass leaves out case 0, the 67-million-iteration scalar loop.
# expensive: runs the Add benchmark calibration
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ -n "${ASCENDOPT_SANITIZE:-}" ] && export CALIBRATE_SKIP=${CALIBRATE_SKIP:-0}
exec "$SRC/tests/sim/calibrate.sh"
