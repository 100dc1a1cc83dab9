#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/install-deps is a quick no-op once everything is installed.
. "$(dirname "$0")/tap.sh"
plan 2
start=$(date +%s%N)
"$SRC/scripts/install-deps" >"$SCRATCH/out" 2>&1; rc=$?
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
is "a second install-deps run succeeds" "$rc" 0
if [ "$took_ms" -lt 5000 ]; then ok "it takes ${took_ms} ms (< 5 s)"; else not_ok "it took ${took_ms} ms"; fi
done_testing
