#!/bin/bash
# SPDX-License-Identifier: MIT
# The folders depend in the order docs/architecture.md writes down, and
# 'make lint' (scripts/check-layers) fails on an include that crosses it.
. "$(dirname "$0")/tap.sh"
plan 4

out=$("$SRC/scripts/check-layers" "$SRC" 2>&1)
is "the tree keeps docs/architecture.md's order" "$?:$out" "0:"

tree=$SCRATCH/tree
mkdir -p "$tree"
cp -r "$SRC/docs" "$SRC/common" "$SRC/config" "$SRC/store" "$SRC/queue" "$SRC/watchers" \
	"$SRC/npu" "$SRC/publish" "$SRC/llm" "$SRC/optimizer" "$SRC/daemon" "$SRC/cli" "$tree/"
sed -i '0,/#include "store.h"/s//#include "store.h"\n#include "daemon\/daemon.h"/' "$tree/store/store.c"
out=$("$SRC/scripts/check-layers" "$tree" 2>&1)
is "an include of the daemon from the store fails the check" "$?" 1
contains "  naming the file, the line and the two folders" "$out" \
	"store/store.c:9: store -> daemon crosses docs/architecture.md's order"
grep -q '^lint:.*' "$SRC/Makefile" && sed -n '/^lint:/,/^$/p' "$SRC/Makefile" >"$SCRATCH/lint"
contains "make lint runs it" "$(cat "$SCRATCH/lint")" "scripts/check-layers"
done_testing
