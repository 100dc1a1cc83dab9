#!/bin/bash
# SPDX-License-Identifier: MIT
# A candidate cannot fork without bound (1,000 forks succeeded before): each
# sandbox holds at most episode.rlimits.processes processes (256 unless
# set), counted in its own user namespace, so two candidates of the same
# user do not share one count.  The kernel exempts uid 0 from that limit,
# so as root the evaluations run as nobody, as the shipped units' daemon
# does not run as root either.
. "$(dirname "$0")/../tap.sh"
plan 4

. "$(dirname "$0")/probe.sh"

runas=()
if [ "$(id -u)" -eq 0 ]; then
	runas=(setpriv --reuid 65534 --regid 65534 --clear-groups --)
	chmod 755 "$SCRATCH"
fi
if ! "${runas[@]}" test -x "$BUILD/ascendopt" || ! "${runas[@]}" test -r "$SRC/tests/security/probe.sh" ||
	! "${runas[@]}" bwrap --unshare-user --ro-bind / / true 2>/dev/null; then
	for _ in 1 2 3 4; do
		skip "needs an unprivileged user that can read the build and make a user namespace"
	done
	exit 0
fi

# prepare COUNT DIR: the probe set to fork COUNT processes, in DIR, owned
# by the user who evaluates it
prepare() {
	local dir=$SCRATCH/$2
	rm -rf "$dir"
	mkdir -p "$dir"
	probe fork "$1"
	mv "$SCRATCH/op" "$dir/op"
	chown -R 65534:65534 "$dir" 2>/dev/null
}

# forks DIR: evaluates it as an unprivileged user; prints what it reported
forks() {
	local dir=$SCRATCH/$1
	"${runas[@]}" "$BUILD/ascendopt" eval "$dir/op" --state-dir "$dir/state" \
		--work-dir "$dir/work" --json >"$dir/result.json" 2>"$dir/err"
	cat "$dir/work/probe-report.txt" 2>/dev/null
}

got() { sed -n 's/^forked \([0-9]*\) of .*/\1/p' <<<"$1" | head -1; }

prepare 1000 one
out=$(forks one)
n=$(got "$out")
check "a candidate forking 1000 processes gets at most 256 ($n)" test "${n:-1000}" -le 256
check "  and still some: the limit is on the sandbox, not a ban ($n)" test "${n:-0}" -ge 200

prepare 1000 a
prepare 1000 b
forks a >"$SCRATCH/a.out" &
forks b >"$SCRATCH/b.out"
wait
a=$(got "$(cat "$SCRATCH/a.out")") b=$(got "$(cat "$SCRATCH/b.out")")
check "two candidates of one user forking at once each get their own count ($a, $b)" \
	test "${a:-0}" -ge 200 -a "${b:-0}" -ge 200

prepare 4 small
forks small >/dev/null
is "an operator with a few processes evaluates as before" \
	"$(field status <"$SCRATCH/small/result.json")" ok
done_testing
