#!/bin/bash
# SPDX-License-Identifier: MIT
# A reload (SIGHUP) swaps the whole config: the daemon keeps excluding its
# own sibling branches under the new publish prefix (it once kept a
# pointer into the freed config, a use-after-free ASan reports, and then
# re-optimized its own output), and changed branch patterns apply at once.
# Under SANITIZE=address the daemon aborts on the old bug.
. "$(dirname "$0")/../tap.sh"
plan 6

repo=$SCRATCH/ops
sock=$SCRATCH/ascendoptd.sock
cfg=$SCRATCH/ascendoptd.json
log=$SCRATCH/daemon.log
export ASCENDOPT_SOCKET=$sock
cli() { "$BUILD/ascendopt" "$@"; }
config() { # BRANCH-PATTERN PREFIX
	printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1, "publish": {"prefix": "%s"},
	         "repos": [{"path": "%s", "branches": ["%s"]}]}' \
		"$SCRATCH" "$sock" "$2" "$repo" "$1" >"$cfg"
}
commit_on() { # BRANCH: a commit to the operator on that branch (made if new)
	(cd "$repo" && git checkout -q -B "$1" && echo "$1 $RANDOM" >ops/add/op_kernel/add.cpp &&
		git commit -qam "on $1")
}
followed() { grep -q "branch $1 moved" "$log"; }

git init -q -b main "$repo"
(
	cd "$repo" && git config user.email t@example.com && git config user.name Tester &&
	mkdir -p ops/add/op_host ops/add/op_kernel &&
	echo h >ops/add/op_host/add.cpp && echo k >ops/add/op_kernel/add.cpp &&
	git add -A && git commit -qm initial
)
config 'main' 'bot/'
"$BUILD/ascendoptd" --config "$cfg" 2>>"$log" &
pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && cli status >/dev/null 2>&1 && break; sleep 0.05; done
cli pause >/dev/null # the operator is not a real one: never run it

# the new config follows every branch and publishes under mine/
config '*' 'mine/'
kill -HUP "$pid"
check "the reload is applied" wait_for_file_text "$log" "reloaded" 10

commit_on feature
check "a branch the new patterns match is followed at once" wait_for_file_text "$log" "branch feature moved" 5
commit_on mine/add
commit_on bot/add
# mine/add, under the new prefix, must never be followed; bot/ is someone's
check "a branch of someone else's is followed" wait_for_file_text "$log" "branch bot/add moved" 5
sleep 1
check "the daemon's own branches under the new prefix are not followed" bash -c '! grep -q "branch mine/add moved" "$1"' _ "$log"

check "the daemon is still running" kill -0 "$pid"
kill -TERM "$pid"
wait "$pid"
rc=$?
is "it stops cleanly (no sanitizer report)" "$rc/$(grep -c 'ERROR: AddressSanitizer' "$log")" 0/0
done_testing
