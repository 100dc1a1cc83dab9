#!/bin/bash
# SPDX-License-Identifier: MIT
# The ascend backend on a cann-ops style repository (#25), end to end on
# the fake CANN toolchain of tests/fixtures/fake-cann, which follows CANN's
# documented behaviour rather than our code: the fixture repository
# (tests/fixtures/fake-cann/cann-ops: our own AddCustom, a shared
# src/common that the top-level CMake adds, a second operator with a
# hand-written aclnn wrapper) is a git repository, as users have theirs.
# An episode runs in the foreground ('ascendopt optimize --backend ascend')
# and through the daemon, and what the fake build.sh and msprof were given
# is checked: the one operator built with --third_lib_path and without
# another custom package in view, src/common in the scratch project,
# msprof matching <OpType>_, no ASCEND_RT_VISIBLE_DEVICES.  Nothing here ran
# on an NPU.
# expensive: four episodes on the fake toolchain, about a minute
. "$(dirname "$0")/tap.sh"
plan 21

fake=$SRC/tests/fixtures/fake-cann
repo=$SCRATCH/cann-ops
export ASCENDOPT_SOCKET=$SCRATCH/ascendoptd.sock
export FAKE_BUILD_LOG=$SCRATCH/build.log FAKE_MSPROF_LOG=$SCRATCH/msprof.log
# our own device leases: t0027 may hold the shared ones meanwhile
export ASCENDOPT_LOCK_DIR=$SCRATCH/locks
cli() { "$BUILD/ascendopt" "$@"; }
unset ASCEND_HOME_PATH FAKE_NPU_SMI_INFO FAKE_NPU_SMI_LIST FAKE_CANN_BIN ASCEND_RT_VISIBLE_DEVICES

cp -R "$fake/cann-ops" "$repo"
git init -q -b main "$repo"
git -C "$repo" config user.email developer@example.com
git -C "$repo" config user.name "A Developer"
git -C "$repo" add -A
git -C "$repo" commit -qm "a cann-ops style repository"

optimize() { # OPDIR [FLAGS...]
	local op=$1
	shift
	ASCENDOPT_SANDBOX=off ASCEND_CUSTOM_OPP_PATH=/opt/someone-elses/vendors/x \
		cli optimize "$op" --backend ascend --platform Ascend910B2C --device 1 \
		--toolkit "$fake/ascend-toolkit/latest" --budget 3 --rounds 1 --stage1-steps 2 \
		--stage2-steps 1 --json "$@"
}

out=$(optimize "$repo/src/math/add_custom" --third-lib-path "$fake/third-party" \
	--state-dir "$SCRATCH/state-cli" 2>"$SCRATCH/optimize.err")
status=$?
is "optimize --backend ascend on add_custom in its repository exits 0" "$status" 0
[ "$status" = 0 ] || tail -5 "$SCRATCH/optimize.err" | sed 's/^/# /'
summary=$(echo "$out" | tail -1)
contains "its episode is done" "$summary" '"state":"done"'
contains "on the recorded 268.8 us" "$summary" '"latency_us":268.8'
built=$(cat "$SCRATCH/build.log")
contains "build.sh built the one operator, json from the third-party folder" "$built" \
	"argv: build.sh -n add_custom --third_lib_path $fake/third-party"
contains "build.sh saw no other custom package" "$built" "ASCEND_CUSTOM_OPP_PATH unset"
is "the compute unit is the family of Ascend910B2C" \
	"$(grep '^ASCEND_COMPUTE_UNIT=' "$SCRATCH/build.log")" "ASCEND_COMPUTE_UNIT=ascend910b"
profiled=$(cat "$SCRATCH/msprof.log")
contains "msprof matches the installed kernel's name by <OpType>_" "$profiled" \
	" --kernel-name=AddCustom_ "
contains "the harness picks device 1 itself" "$profiled" "ascendopt_harness_add_custom 1 "
contains "ASCEND_RT_VISIBLE_DEVICES is not set for msprof" "$profiled" \
	"ASCEND_RT_VISIBLE_DEVICES unset"

# Offline, without ascend.third_lib_path: build.sh would clone nlohmann/json,
# and the candidate is a compile error saying so.
out=$(optimize "$repo/src/math/add_custom" --state-dir "$SCRATCH/state-offline" 2>&1)
contains "without --third-lib-path the offline build fails where it installs json" "$out" \
	"Install third party packages failed"
contains "and the message says what to set" "$out" "set ascend.third_lib_path to a folder holding json/"

# The operator with a hand-written aclnn wrapper the harness cannot call
out=$(optimize "$repo/src/math/sub_custom" --third-lib-path "$fake/third-party" \
	--state-dir "$SCRATCH/state-sub" 2>&1)
contains "a hand-written wrapper that does not follow the OpDef is unsupported" "$out" \
	"op_host/aclnn_sub_custom.h is a hand-written aclnn wrapper"

# The repository the sim's tests use (tests/fixtures/repo, t0036), made a
# cann-ops build tree with the fake's build files: both backends take the
# same operator in the same repository, ScaleShared, whose tiling source
# and headers are in the shared src/common.
shared=$SCRATCH/repo
cp -R "$SRC/tests/fixtures/repo" "$shared"
cp -R "$fake/cann-ops/build.sh" "$fake/cann-ops/build_third_party.sh" \
	"$fake/cann-ops/CMakePresets.json" "$fake/cann-ops/cmake" "$shared/"
git -C "$shared" init -q
git -C "$shared" add -A
git -C "$shared" -c user.name=t -c user.email=t@t commit -qm "operators"
"$BUILD/ascendopt" init "$shared/src/math/scale_shared" >"$SCRATCH/init.log" 2>&1
is "init drafts ScaleShared on the sim" "$?" 0
contains "the sim evaluates it in its repository" \
	"$("$BUILD/ascendopt" eval "$shared/src/math/scale_shared" --quick --json 2>&1)" '"status":"ok"'
out=$(optimize "$shared/src/math/scale_shared" --third-lib-path "$fake/third-party" --budget 1 \
	--state-dir "$SCRATCH/state-shared" 2>&1)
contains "the ascend backend builds the same operator in the same repository" \
	"$(echo "$out" | tail -1)" '"state":"done"'
contains "with build.sh -n scale_shared, src/common there for its configure" \
	"$(cat "$SCRATCH/build.log")" "argv: build.sh -n scale_shared --third_lib_path"

# The daemon, watching the repository: the operator is exported from git
# (the repository less the other operators) and built there.
cat >"$SCRATCH/ascendoptd.json" <<JSON
{
  "state_dir": "$SCRATCH/state",
  "socket": "$ASCENDOPT_SOCKET",
  "backend": "ascend",
  "sandbox": "off",
  "devices": [0],
  "toolkit": "$fake/ascend-toolkit/latest",
  "ascend": {"third_lib_path": "$fake/third-party"},
  "episode": {"budget": 3, "rounds": 1, "stage1_steps": 2, "stage2_steps": 1,
              "eval_timeout_s": 60},
  "repos": [{"path": "$repo", "branches": ["main"]}]
}
JSON
rm -f "$SCRATCH/build.log" "$SCRATCH/msprof.log"
"$BUILD/ascendoptd" --config "$SCRATCH/ascendoptd.json" 2>"$SCRATCH/daemon.log" &
pid=$!
daemon_up "$pid"
up=$?
is "the daemon starts on the ascend backend" "$up" 0
item=$(cli enqueue "$repo" src/math/add_custom --json | grep -o '"id":[0-9]*' | cut -d: -f2)
for _ in $(seq 600); do
	cli show "$item" --json 2>/dev/null | grep -q '"state":"\(done\|failed\|cancelled\)"' && break
	sleep 0.2
done
shown=$(cli show "$item" --json)
contains "the daemon's episode on the cann-ops operator is done" "$shown" '"state":"done"'
case "$shown" in *'"state":"done"'*) ;; *) tail -20 "$SCRATCH/daemon.log" | sed 's/^/# /' ;; esac
contains "the daemon built with the configured third_lib_path" "$(cat "$SCRATCH/build.log")" \
	"--third_lib_path $fake/third-party"
contains "and profiled by <OpType>_" "$(cat "$SCRATCH/msprof.log")" " --kernel-name=AddCustom_ "
kill -TERM "$pid"
wait "$pid"
is "the daemon stops cleanly" "$?" 0
done_testing
