#!/bin/bash
# SPDX-License-Identifier: MIT
# Every rewrite the optimizer knows moves the model's latency the right
# way, runs are bit-identical, and jitter and traces behave:
# tests/sim/timing-mechanisms.sh.
SRC=$(cd "$(dirname "$0")/.." && pwd)
exec "$SRC/tests/sim/timing-mechanisms.sh"
