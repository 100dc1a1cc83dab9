#!/bin/bash
# SPDX-License-Identifier: MIT
# The CLI and the daemon's command line as a user meets them: help, unknown
# commands, commands not yet built, and config validation with exit codes.
. "$(dirname "$0")/tap.sh"
plan 12

out=$("$BUILD/ascendopt" --help); rc=$?
is "ascendopt --help exits 0" "$rc" 0
contains "help lists commands" "$out" "Commands:"
contains "help says which commands are not built yet" "$out" "Planned, not in this build yet:"

err=$("$BUILD/ascendopt" frobnicate 2>&1); rc=$?
is "unknown command is a usage error (64)" "$rc" 64
contains "unknown command is named" "$err" "unknown command 'frobnicate'"

"$BUILD/ascendopt" init >/dev/null 2>&1; rc=$?
is "a planned command exits EX_UNAVAILABLE (69)" "$rc" 69

out=$("$BUILD/ascendoptd" --config "$SRC/etc/ascendopt/ascendoptd.json" --check-config); rc=$?
is "the documented example config is valid" "$rc" 0
contains "check-config says so" "$out" "configuration is valid"

printf '{"repos": [{"path": "/srv/a"}, {"path": 3}]}' >"$SCRATCH/bad.json"
err=$("$BUILD/ascendoptd" --config "$SCRATCH/bad.json" --check-config 2>&1); rc=$?
is "a bad config exits EX_CONFIG (78)" "$rc" 78
contains "the error names file and field" "$err" "bad.json: .repos[1].path: expected a string"

err=$("$BUILD/ascendoptd" --config "$SCRATCH/missing.json" 2>&1); rc=$?
contains "a missing config is named" "$err" "missing.json: cannot open: No such file or directory"

"$BUILD/ascendoptd" --bogus >/dev/null 2>&1; rc=$?
is "an unknown daemon option is a usage error" "$rc" 64
done_testing
