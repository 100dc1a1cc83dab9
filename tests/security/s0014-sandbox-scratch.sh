#!/bin/bash
# SPDX-License-Identifier: MIT
# Scratch per candidate has a limit: each file was capped by RLIMIT_FSIZE,
# but a candidate could write as many files as it liked.  A run that leaves
# more than the scratch limit in its work directory fails as the
# operator's runtime_error, naming the limit; one under it runs as before.
. "$(dirname "$0")/../tap.sh"
plan 3

. "$(dirname "$0")/probe.sh"

probe fill 64
out=$(ev --scratch-mb 32)
is "a candidate writing 64 MiB under a 32 MiB scratch limit fails" "$(field status <<<"$out")" \
	runtime_error
contains "  naming the limit" "$out" \
	"more than 32 MiB after case 0: past the scratch limit (episode.rlimits.scratch_mb"
probe fill 8
is "one writing 8 MiB runs as before" "$(ev --scratch-mb 32 | field status)" ok
done_testing
