# SPDX-License-Identifier: MIT
# Shared helpers for the shell integration tests: TAP output, the paths of
# the build under test, and a scratch directory removed on exit.
# shellcheck shell=bash

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${ASCENDOPT_BUILD:-$SRC/build}
export ASCENDOPT_EXEC_HELPER=${ASCENDOPT_EXEC_HELPER:-$BUILD/ascendopt-exec}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/ascendopt-test.XXXXXX")
# at_exit COMMAND: run COMMAND on exit, before the scratch directory goes
# (a test's own `trap ... EXIT` would replace the removal and leak it)
tap_at_exit=
at_exit() { tap_at_exit=$1; }
trap 'eval "$tap_at_exit"; [ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$SCRATCH"' EXIT
# commands that default to the user's state directory (eval's object cache,
# optimize's store) keep to the scratch directory instead
export ASCENDOPT_STATE_DIR=${ASCENDOPT_STATE_DIR:-$SCRATCH/state}

tap_count=0
tap_failed=0

plan() { echo "1..$1"; }

ok() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count - $1"
}

not_ok() {
	tap_count=$((tap_count + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_count - $1"
}

skip() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count # skip $1"
}

# check NAME COMMAND...: passes when the command succeeds.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# is NAME GOT WANT
is() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "#   got:  '$2'"
		echo "#   want: '$3'"
	fi
}

# contains NAME HAYSTACK NEEDLE
contains() {
	case "$2" in
	*"$3"*) ok "$1" ;;
	*)
		not_ok "$1"
		echo "#   '$2'"
		echo "#   does not contain '$3'"
		;;
	esac
}

# wait_for_file_text FILE TEXT SECONDS: waits (by re-reading, bounded) until FILE holds TEXT.
wait_for_file_text() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

done_testing() {
	[ "$tap_failed" -eq 0 ]
}

# daemon_up PID: waits up to 30 s for `ascendopt status` to answer; 0 when
# it does, 1 when PID (the ascendoptd started in the background) exited.
daemon_up() {
	for _ in $(seq 600); do
		"$BUILD/ascendopt" status >/dev/null 2>&1 && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
