#!/bin/bash
# SPDX-License-Identifier: MIT
# What an operator's code does inside the sandbox never reaches outside it
# through the evaluation that runs it:
# - links it leaves where the evaluation writes next (the next case's spec,
#   the kernel's glue) are neither followed nor written through: the specs
#   and the glue live in inputs/, read-only inside the sandbox;
# - appending to the compiled objects it finds in its work directory does
#   not change the object cache: objects are copied in, never linked, and
#   an object whose content no longer has its recorded hash is not served.
. "$(dirname "$0")/../tap.sh"
unset ASCENDOPT_CACHE_DIR # this test looks at its own state directory's object cache

plan 6

. "$(dirname "$0")/probe.sh"
status() { python3 -c 'import json, sys; print(json.load(sys.stdin)["status"])'; }

echo "precious" >"$SCRATCH/target"
probe plant_links "$SCRATCH/target"
rm -rf "$SCRATCH/work"
is "an operator that plants links in its work directory still evaluates" "$(ev | status)" ok
is "and the file the links point at is untouched" "$(cat "$SCRATCH/target")" precious
check "its specs and glue were written where it could not reach" \
	test -f "$SCRATCH/work/inputs/case_1.json" -a -f "$SCRATCH/work/inputs/glue.cpp"

probe poison ""
ev >/dev/null
objects() { cat "$SCRATCH/state/cache/objects"/*.o 2>/dev/null | sha256sum; }
before=$(objects)
check "the first evaluation filled the cache" test -n "$(ls "$SCRATCH/state/cache/objects"/*.o 2>/dev/null)"
ev >/dev/null # served from the cache; the operator appends to its copies
is "appending to the objects it was served leaves the cache as it was" "$(objects)" "$before"
is "and a third evaluation still runs from the cache" \
	"$(ev | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["status"], r["compile_cache_hits"] > 0)')" \
	"ok True"

done_testing
