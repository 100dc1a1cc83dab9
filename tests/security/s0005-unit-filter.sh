#!/bin/bash
# SPDX-License-Identifier: MIT
# The shipped units keep the sandbox working.  systemd is not PID 1 where
# tests run, so the system unit's SystemCallFilter= is applied the way
# systemd would (an allow list, EPERM for the rest, native architecture
# only) by tests/helpers/seccomp-run, and an operator is evaluated under it:
# - the old filter (@system-service alone) denied the mount calls
#   bubblewrap needs, and the daemon then ran candidates unsandboxed;
# - the shipped one lets the sandbox start, and nothing runs unsandboxed.
# The units' systemd-analyze security scores must not get worse than
# recorded in docs/security.md.
. "$(dirname "$0")/../tap.sh"
plan 7

unit=$SCRATCH/ascendoptd.service
sed -e "s|@BINDIR@|$BUILD|g" -e "s|@SYSCONFDIR@|$SRC/etc|g" -e "s|@SYSUSERSDIR@|/usr/lib/sysusers.d|g" \
	"$SRC/systemd/ascendoptd.service.in" >"$unit"
user_unit=$SCRATCH/ascendoptd-user.service
sed -e "s|@BINDIR@|$BUILD|g" "$SRC/systemd/ascendoptd.user.service.in" >"$user_unit"

case $(uname -m) in
x86_64 | aarch64) ;;
*)
	for _ in $(seq 7); do skip "seccomp-run knows x86_64 and aarch64 only"; done
	exit 0
	;;
esac
if ! command -v systemd-analyze >/dev/null 2>&1; then
	for _ in $(seq 7); do skip "systemd-analyze is not installed (it expands the filter's groups)"; done
	exit 0
fi

# expand NAME...: the system calls the filter's names and @groups stand for
expand() {
	local n
	for n in "$@"; do
		case $n in
		@*) systemd-analyze syscall-filter "$n" | sed -n '2,$p' | sed 's/^[[:space:]]*//' |
			grep -v -e '^#' -e '^$' | while read -r m; do expand "$m"; done ;;
		*) echo "$n" ;;
		esac
	done
}
numbers() { # NAMES-FILE: their numbers on this machine, one per line
	echo '#include <sys/syscall.h>' | ${CC:-cc} -E -dM - |
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$/\1 \2/p' |
		awk 'NR == FNR { want[$1] = 1; next } ($1 in want) { print $2 }' "$1" -
}
# shellcheck disable=SC2046
expand $(sed -n 's/^SystemCallFilter=//p' "$unit") | sort -u >"$SCRATCH/shipped.names"
expand @system-service | sort -u >"$SCRATCH/old.names"
numbers "$SCRATCH/shipped.names" >"$SCRATCH/shipped.nrs"
numbers "$SCRATCH/old.names" >"$SCRATCH/old.nrs"

op=$SRC/tests/ops/ok/unary_ops
# LeakSanitizer stops the world with ptrace, which the filter denies as
# systemd would: a sanitized build checks leaks in the other tests
ev() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$BUILD/tests/helpers/seccomp-run" "$1" "$BUILD/ascendopt" eval "$op" \
	--state-dir "$SCRATCH/state-$2" --work-dir "$SCRATCH/work-$2" --json 2>&1; }
status() { python3 -c 'import json, sys; print(json.load(sys.stdin)["status"])' 2>/dev/null; }

if ! bwrap --unshare-all --ro-bind / / true 2>/dev/null; then
	for _ in $(seq 3); do skip "bubblewrap cannot make namespaces here"; done
else
	out=$(ev "$SCRATCH/old.nrs" old)
	check "under the old filter (@system-service alone) the sandbox cannot start, and nothing runs" \
		grep -q 'install bubblewrap' <<<"$out"
	is "under the shipped filter an operator evaluates, sandboxed" "$(ev "$SCRATCH/shipped.nrs" new | status)" ok
	contains "the shipped filter adds to @system-service exactly what bubblewrap needs" \
		"$(comm -13 "$SCRATCH/old.names" "$SCRATCH/shipped.names" | tr '\n' ' ')" "mount pivot_root umount2 "
fi

breaking=$(grep -E '^(ProtectKernelTunables|ProtectKernelLogs|ProtectProc|ProcSubset|RestrictNamespaces|PrivateUsers)=' \
	"$unit" "$user_unit")
is "neither unit sets what would break the sandbox's /proc or namespaces" "$breaking" ""

score() { # UNIT [--user]: systemd-analyze security's exposure, offline
	mkdir -p "$SCRATCH/rt" && chmod 700 "$SCRATCH/rt"
	XDG_RUNTIME_DIR=$SCRATCH/rt systemd-analyze security --offline=true $2 "$1" 2>/dev/null |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
}
recorded() { sed -n "s/^| \`$1\` | \([0-9.]*\) .*/\1/p" "$SRC/docs/security.md"; }
sys=$(score "$unit")
usr=$(score "$user_unit" --user)
want_sys=$(recorded ascendoptd.service)
want_usr=$(recorded "ascendoptd.service (user)")
check "the system unit's exposure ($sys) is no worse than recorded ($want_sys)" \
	awk "BEGIN { exit !(\"$sys\" != \"\" && $sys <= ${want_sys:-0}) }"
check "the user unit's exposure ($usr) is no worse than recorded ($want_usr)" \
	awk "BEGIN { exit !(\"$usr\" != \"\" && $usr <= ${want_usr:-0}) }"
check "the system unit runs as its own user, with a private state directory and umask" \
	grep -qzE 'User=ascendopt.*StateDirectoryMode=0700.*UMask=0077' "$unit"
done_testing
