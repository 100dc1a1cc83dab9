#!/bin/bash
# SPDX-License-Identifier: MIT
# The CLI and the daemon's command line as a user meets them: help, unknown
# commands, commands not yet built, config validation and 'ascendopt
# optimize' given bad input, with exit codes.
. "$(dirname "$0")/tap.sh"
plan 22

out=$("$BUILD/ascendopt" --help); rc=$?
is "ascendopt --help exits 0" "$rc" 0
contains "help lists commands" "$out" "Commands:"
check "help lists no command that is not there (bench is make bench)" \
	bash -c '! grep -q -e "Planned" -e "^  bench " <<<"$1"' _ "$out"

err=$("$BUILD/ascendopt" frobnicate 2>&1); rc=$?
is "unknown command is a usage error (64)" "$rc" 64
contains "unknown command is named" "$err" "unknown command 'frobnicate'"

"$BUILD/ascendopt" init >/dev/null 2>&1; rc=$?
is "init without OPDIR is a usage error (64)" "$rc" 64

out=$("$BUILD/ascendoptd" --config "$SRC/etc/ascendopt/ascendoptd.json" --check-config); rc=$?
is "the documented example config is valid" "$rc" 0
contains "check-config says so" "$out" "configuration is valid"

printf '{"repos": [{"path": "/srv/a"}, {"path": 3}]}' >"$SCRATCH/bad.json"
err=$("$BUILD/ascendoptd" --config "$SCRATCH/bad.json" --check-config 2>&1); rc=$?
is "a bad config exits EX_CONFIG (78)" "$rc" 78
contains "the error names file and field" "$err" "bad.json: .repos[1].path: expected a string"

# a fleet section is checked field by field (docs/fleet.md)
printf '{"fleet": {"engine": "slurm", "shared_dir": "/srv/fleet"}}' >"$SCRATCH/fleet.json"
err=$("$BUILD/ascendoptd" --config "$SCRATCH/fleet.json" --check-config 2>&1); rc=$?
is "a fleet config is valid" "$rc" 0
printf '{"fleet": {"engine": "slurm", "shared_dir": "/srv/fleet", "max_jobs": 65}}' >"$SCRATCH/fleet.json"
err=$("$BUILD/ascendoptd" --config "$SCRATCH/fleet.json" --check-config 2>&1); rc=$?
is "more jobs in flight than the scheduler has slots is refused with EX_CONFIG (78)" "$rc" 78
contains "the refusal names the field and the bound" "$err" ".fleet.max_jobs: must be at most 64"

err=$("$BUILD/ascendoptd" --config "$SCRATCH/missing.json" 2>&1); rc=$?
contains "a missing config is named" "$err" "missing.json: cannot open: No such file or directory"

"$BUILD/ascendoptd" --bogus >/dev/null 2>&1; rc=$?
is "an unknown daemon option is a usage error" "$rc" 64

# optimize refuses bad input before it opens a store or measures anything
relu=$SRC/examples/ops/level1/relu
optimize() { "$BUILD/ascendopt" optimize "$@" --state-dir "$SCRATCH/optimize-state" 2>&1; }
err=$(optimize "$SCRATCH/no-such-op"); rc=$?
is "optimize: a missing operator exits EX_NOINPUT (66)" "$rc" 66
contains "and is named" "$err" "no-such-op: No such file or directory"
err=$(optimize "$relu" --budget 0); rc=$?
is "optimize: --budget 0 is a usage error" "$rc" 64
contains "that says the range" "$err" "--budget wants 1..100000"
touch "$SCRATCH/a-file"
err=$(optimize "$relu" --out "$SCRATCH/a-file"); rc=$?
is "optimize: an --out that is a file exits EX_CANTCREAT (73)" "$rc" 73
contains "before any evaluation" "$err" "--out $SCRATCH/a-file: Not a directory"
check "and nothing was measured" [ ! -e "$SCRATCH/optimize-state" ]
done_testing
