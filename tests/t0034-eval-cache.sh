#!/bin/bash
# SPDX-License-Identifier: MIT
# 'ascendopt eval' keeps compiled units in the object cache of its state
# directory, as episodes do: a second eval of an unchanged operator
# compiles nothing and answers the same; a changed host file recompiles
# that unit alone; --no-cache compiles everything.
. "$(dirname "$0")/tap.sh"
unset ASCENDOPT_CACHE_DIR # this test looks at its own state directory's object cache
plan 6

op=$SCRATCH/relu
cp -r "$SRC/examples/ops/level1/relu" "$op"
rm -rf "$op/expert"
ev() { "$BUILD/ascendopt" eval --quick --json --state-dir "$SCRATCH/state" "$@" "$op"; }
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

first=$(ev)
second=$(ev)
is "a first eval compiles both units" "$(echo "$first" | field compile_cache_hits)" 0
is "a second eval takes both from the cache" "$(echo "$second" | field compile_cache_hits)" 2
is "and answers the same" "$(echo "$second" | field outputs_sha256)" \
	"$(echo "$first" | field outputs_sha256)"
check "the objects live in the state directory's cache" \
	test -n "$(ls "$SCRATCH/state/cache/objects")"
sed -i 's|^constexpr uint32_t BLOCK_DIM = 8;|constexpr uint32_t BLOCK_DIM = 16;|' "$op/op_host/relu_custom.cpp"
is "a changed host file recompiles that unit alone" "$(ev | field compile_cache_hits)" 1
is "--no-cache compiles every unit" "$(ev --no-cache | field compile_cache_hits)" 0
done_testing
