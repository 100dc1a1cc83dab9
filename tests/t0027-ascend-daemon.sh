#!/bin/bash
# SPDX-License-Identifier: MIT
# The ascend backend through the daemon, on the fake CANN toolchain of
# tests/fixtures/fake-cann: the toolkit's set_env.sh is loaded once, the
# two fake NPUs are discovered with `npu-smi info -l`, two episodes run at
# once (one per device) through build.sh, the installer, the harness and
# msprof op, and `ascendopt show` reports them.  The fake harness copies its
# first input to its outputs and the fake msprof reports a recorded
# profile, so this checks the plumbing, not any kernel; nothing here ran on
# an NPU.  A device someone else's process holds makes the baseline an
# infra_error, which is retried rather than blamed on the operator.  Without
# npu-smi, "devices": "auto" stops the daemon with a clear line.
. "$(dirname "$0")/tap.sh"
plan 26

fake=$SRC/tests/fixtures/fake-cann
repo=$SCRATCH/ops-repo
export ASCENDOPT_SOCKET=$SCRATCH/ascendoptd.sock
cli() { "$BUILD/ascendopt" "$@"; }
unset ASCEND_HOME_PATH FAKE_NPU_SMI_INFO FAKE_NPU_SMI_LIST FAKE_CANN_BIN

# Two corpus operators, with a small bench case: the fake harness copies
# whole tensors, and the point here is the plumbing.
git init -q -b main "$repo"
git -C "$repo" config user.email developer@example.com
git -C "$repo" config user.name "A Developer"
for op in relu add; do
	mkdir -p "$repo/ops/$op"
	(cd "$SRC/examples/ops/level1/$op" && tar cf - --exclude=expert .) | tar xf - -C "$repo/ops/$op"
	sed -i 's/\[4096, 4096\]/[64, 1024]/g' "$repo/ops/$op/ascendopt.json"
done
git -C "$repo" add -A
git -C "$repo" commit -qm "two vector operators"

write_config() { # STATE_DIR
	cat >"$SCRATCH/ascendoptd.json" <<JSON
{
  "state_dir": "$1",
  "socket": "$ASCENDOPT_SOCKET",
  "backend": "ascend",
  "sandbox": "off",
  "devices": "auto",
  "toolkit": "$fake/ascend-toolkit/latest",
  "episode": {"budget": 4, "rounds": 1, "stage1_steps": 2, "stage2_steps": 2,
              "eval_timeout_s": 60},
  "repos": [{"path": "$repo", "branches": ["main"]}]
}
JSON
}
write_config "$SCRATCH/state"
"$BUILD/ascendoptd" --config "$SCRATCH/ascendoptd.json" 2>"$SCRATCH/daemon.log" &
pid=$!
daemon_up "$pid"
up=$?
is "the daemon starts on the ascend backend" "$up" 0
[ "$up" = 0 ] || sed 's/^/# /' "$SCRATCH/daemon.log"
log=$(cat "$SCRATCH/daemon.log")
contains "set_env.sh is loaded once" "$log" "CANN environment loaded once from $fake/ascend-toolkit/set_env.sh"
contains "npu-smi info -l finds the two devices" "$log" "npu-smi lists 2 devices: 0 (NPU 0 chip 0), 1 (NPU 1 chip 0)"
contains "the SoC comes from npu-smi info" "$log" "ascend backend: 2 device slots, SoC Ascend910B4"
contains "status names the backend and the SoC" "$(cli status)" "backend ascend on Ascend910B4"

relu=$(cli enqueue "$repo" ops/relu --json | grep -o '"id":[0-9]*' | cut -d: -f2)
add=$(cli enqueue "$repo" ops/add --json | grep -o '"id":[0-9]*' | cut -d: -f2)
finished() { cli show "$1" --json 2>/dev/null | grep -q '"state":"\(done\|failed\|cancelled\)"'; }
for _ in $(seq 1200); do
	finished "$relu" && finished "$add" && break
	sleep 0.2
done
shown_relu=$(cli show "$relu" 2>&1)
shown_add=$(cli show "$add" 2>&1)
contains "the relu episode ends done" "$(cli show "$relu" --json)" '"state":"done"'
contains "the add episode ends done" "$(cli show "$add" --json)" '"state":"done"'
case "$shown_relu$shown_add" in *done*done*) ;; *)
	echo "$shown_relu" | head -20 | sed 's/^/# /'
	echo "$shown_add" | head -20 | sed 's/^/# /'
	tail -20 "$SCRATCH/daemon.log" | sed 's/^/# /' ;;
esac
log=$(cat "$SCRATCH/daemon.log")
contains "one episode ran on device 0" "$log" "at $(git -C "$repo" rev-parse --short=12 HEAD) on device 0"
contains "the other ran on device 1" "$log" "at $(git -C "$repo" rev-parse --short=12 HEAD) on device 1"
# the recorded msprof profile's median Task Duration is 268.8 us
contains "show reports the measured latency" "$shown_relu" "268.8"
contains "the report names the backend and the SoC" \
	"$(cli show "$relu" --json)" '| Backend | ascend |\n| Platform | Ascend910B4 |'

# Both devices held by another process (as a foreground 'ascendopt
# optimize' holds one) when a commit arrives: the flock wakes nobody when
# it is dropped, so the daemon must look again by itself.
if mkdir -p /run/lock/ascendopt 2>/dev/null && [ -w /run/lock/ascendopt ]; then
	locks=/run/lock/ascendopt
elif [ -n "${XDG_RUNTIME_DIR:-}" ] && mkdir -p "$XDG_RUNTIME_DIR/ascendopt/locks" 2>/dev/null; then
	locks=$XDG_RUNTIME_DIR/ascendopt/locks
else
	locks=/tmp/ascendopt-locks-$(id -u)
fi
flock "$locks/ascend-device-0.lock" flock "$locks/ascend-device-1.lock" sleep 3 &
holder=$!
for _ in $(seq 100); do
	[ "$(cli status --json | grep -o held_elsewhere | wc -l)" = 2 ] && break
	sleep 0.05
done
contains "status shows both devices held elsewhere" "$(cli status)" "held"
echo "/* a comment */" >>"$repo/ops/relu/op_kernel/relu_custom.cpp"
git -C "$repo" commit -qam "relu: a comment"
started=
for _ in $(seq 300); do
	grep -q "at $(git -C "$repo" rev-parse --short=12 HEAD) on device" "$SCRATCH/daemon.log" && { started=yes; break; }
	sleep 0.1
done
wait "$holder"
is "the queued commit starts once the other process lets go" "$started" yes
kill -TERM "$pid"
wait "$pid"
is "the daemon stops cleanly" "$?" 0

# Device 1 busy with someone else's process (the recorded npu-smi info):
# the episode's baseline is an infra_error, and the item is retried.
write_config "$SCRATCH/state-busy"
sed -i 's/"devices": "auto"/"devices": [1]/' "$SCRATCH/ascendoptd.json"
FAKE_NPU_SMI_INFO=$SRC/tests/fixtures/ascend/npu-smi/info-busy.txt \
	"$BUILD/ascendoptd" --config "$SCRATCH/ascendoptd.json" 2>"$SCRATCH/daemon-busy.log" &
pid=$!
for _ in $(seq 600); do cli status >/dev/null 2>&1 && break; sleep 0.05; done
busy=$(cli enqueue "$repo" ops/relu --json | grep -o '"id":[0-9]*' | cut -d: -f2)
for _ in $(seq 600); do finished "$busy" && break; sleep 0.2; done
shown=$(cli show "$busy" --json)
contains "a busy device is retried, not blamed" "$shown" '"attempts":3'
contains "the reason names the other process" "$shown" "is busy: process 4242 (python3"
contains "and it is an infra_error" "$(cat "$SCRATCH/daemon-busy.log")" "the baseline could not be measured"
kill -TERM "$pid"
wait "$pid"

# The same backend in the foreground, without a daemon.
contains "the CLI runs the ascend backend only when told it may go unsandboxed" \
	"$(cli optimize "$repo/ops/add" --backend ascend --platform Ascend910B4 2>&1)" \
	"run it with ASCENDOPT_SANDBOX=off to accept that"
out=$(ASCENDOPT_SANDBOX=off cli optimize "$repo/ops/add" --backend ascend --platform Ascend910B4 --device 1 \
	--toolkit "$fake/ascend-toolkit/latest" --budget 2 --rounds 1 --stage1-steps 1 \
	--stage2-steps 1 --state-dir "$SCRATCH/state-cli" --json 2>"$SCRATCH/optimize.err")
is "ascendopt optimize --backend ascend exits 0" "$?" 0
summary=$(echo "$out" | tail -1)
contains "its episode is done" "$summary" '"state":"done"'
contains "on the recorded 268.8 us" "$summary" '"latency_us":268.8'
contains "its record says the OpDef's other dtypes are left unchecked, and why" "$summary" \
	"other dtype combinations are checked on the simulated NPU only"

contains "the CLI needs the SoC for ascend" "$(cli optimize "$repo/ops/add" --backend ascend 2>&1)" \
	"--backend ascend needs --platform SOC"

# No npu-smi anywhere the daemon looks: "auto" cannot find devices.
nosmi=$SCRATCH/bin-without-npu-smi
mkdir -p "$nosmi"
for tool in "$fake"/bin/*; do
	[ "$(basename "$tool")" = npu-smi ] || ln -s "$tool" "$nosmi/"
done
write_config "$SCRATCH/state2"
FAKE_CANN_BIN=$nosmi "$BUILD/ascendoptd" --config "$SCRATCH/ascendoptd.json" 2>"$SCRATCH/daemon2.log"
is "without npu-smi, devices auto exits unavailable" "$?" 69
contains "and says what to do" "$(cat "$SCRATCH/daemon2.log")" \
	".devices: \"auto\" needs npu-smi, which is missing"

unit=$SCRATCH/ascendoptd.service
sed -e "s|@BINDIR@|$BUILD|g" -e "s|@SYSCONFDIR@|$SRC/etc|g" "$SRC/systemd/ascendoptd.service.in" >"$unit"
cat "$SRC/systemd/ascendoptd-ascend.conf" >>"$unit"
if command -v systemd-analyze >/dev/null 2>&1; then
	check "the unit with the ascend drop-in passes systemd-analyze verify" systemd-analyze verify "$unit"
else
	skip "systemd-analyze is not installed"
fi
done_testing
