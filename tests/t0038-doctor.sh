#!/bin/bash
# SPDX-License-Identifier: MIT
# ascendopt doctor on the fake CANN toolchain of tests/fixtures/fake-cann
# (its cmake wrapped by tests/fixtures/doctor/cmake to answer --version),
# with a fake /dev ($ASCENDOPT_DEV_DIR: plain files and a fifo named like
# the NPU's nodes) and fake unit directories ($ASCENDOPT_UNIT_DIR): it
# passes, then fails naming the fix when each piece is taken away in turn
# (the toolkit, npu-smi, msprof, a device node's permission, cmake), reads
# the service user and its groups from the shipped unit and drop-in, gives
# valid JSON, and runs with no config at all on the sim.
. "$(dirname "$0")/tap.sh"
plan 40

fake=$SRC/tests/fixtures/fake-cann
cli() { "$BUILD/ascendopt" "$@"; }
unset ASCEND_HOME_PATH FAKE_NPU_SMI_INFO FAKE_NPU_SMI_LIST FAKE_CMAKE_VERSION
export ASCENDOPT_LOCK_DIR=$SCRATCH/locks
export ASCENDOPT_DEV_DIR=$SCRATCH/dev
export ASCENDOPT_UNIT_DIR=$SCRATCH/units
mkdir -p "$ASCENDOPT_UNIT_DIR"
# the service user of some checks is nobody, who must reach the fake nodes
chmod 0755 "$SCRATCH"

# The fake toolchain, one bin directory a case can take a tool out of.
make_bin() { # DIR [TOOL-TO-LEAVE-OUT]
	rm -rf "$1"
	mkdir -p "$1"
	for tool in "$fake"/bin/*; do
		[ "$(basename "$tool")" = "${2:-}" ] || ln -s "$tool" "$1/"
	done
	if [ "${2:-}" != cmake ]; then
		rm "$1/cmake"
		ln -s "$SRC/tests/fixtures/doctor/cmake" "$1/cmake"
	fi
}
make_bin "$SCRATCH/bin"
export FAKE_CANN_BIN=$SCRATCH/bin

mkdir -p "$ASCENDOPT_DEV_DIR"
for node in davinci0 davinci1 davinci_manager devmm_svm; do : >"$ASCENDOPT_DEV_DIR/$node"; done
mkfifo "$ASCENDOPT_DEV_DIR/hisi_hdc"
chmod 0660 "$ASCENDOPT_DEV_DIR"/*
chmod 0755 "$ASCENDOPT_DEV_DIR"

write_config() { # EXTRA-JSON
	cat >"$SCRATCH/ascendoptd.json" <<JSON
{
  "backend": "ascend",
  "sandbox": "off",
  "devices": "auto",
  "state_dir": "$SCRATCH/doctor-state",
  "toolkit": "$fake/ascend-toolkit/latest"${1:+,
  $1}
}
JSON
}
write_config
doctor() { cli doctor --config "$SCRATCH/ascendoptd.json" "$@" 2>&1; }

out=$(doctor)
is "doctor passes on the fake toolchain" "$?" 0
case "$out" in *FAIL*) echo "$out" | sed 's/^/# /' ;; esac
contains "it checks the toolkit and its version" "$out" "CANN 8.0.fake (version.cfg)"
contains "npu-smi lists the fake NPUs" "$out" "lists 2 devices: 0 (NPU 0 chip 0), 1 (NPU 1 chip 0)"
contains "the device's SoC comes from npu-smi" "$out" "device 0: Ascend910B4"
contains "the nodes of both devices are checked" "$out" \
	"$ASCENDOPT_DEV_DIR/davinci0 $ASCENDOPT_DEV_DIR/davinci1 $ASCENDOPT_DEV_DIR/davinci_manager"
contains "cmake's version is read" "$out" "$SCRATCH/bin/cmake: 3.25.1"
contains "the sandbox is off, which is a warning" "$out" "WARN  sandbox"
contains "an unset third_lib_path warns about the download" "$out" \
	"build.sh will try to download nlohmann/json"
contains "a trivial operator runs through the backend" "$out" \
	"AddCustom built, installed, run and profiled on device 0"
contains "the summary says episodes can run" "$out" "backend ascend: "
is "the temporary directory is gone" "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'ascendopt-doctor.*' -newer "$SCRATCH/ascendoptd.json" | wc -l)" 0

json=$(cli doctor --config "$SCRATCH/ascendoptd.json" --json)
is "--json exits 0 too" "$?" 0
check "--json is one object with the backend and every check's fields" python3 -c '
import json, sys
doc = json.loads(sys.argv[1])
assert doc["backend"] == "ascend", doc["backend"]
assert len(doc["checks"]) > 10
for c in doc["checks"]:
    assert set(c) == {"name", "status", "detail", "fix"}, c
    assert c["status"] in ("ok", "warn", "fail"), c
    assert (c["fix"] is None) == (c["status"] == "ok"), c
assert not [c for c in doc["checks"] if c["status"] == "fail"]
' "$json"

# Each piece taken away in turn: exit 1 and the fix named.
write_config
sed -i "s|\"toolkit\": \".*\"|\"toolkit\": \"$SCRATCH/no-toolkit\"|" "$SCRATCH/ascendoptd.json"
out=$(doctor)
is "without the toolkit it fails" "$?" 1
contains "and says where to point \"toolkit\"" "$out" \
	"install the CANN toolkit (it brings set_env.sh), or point \"toolkit\" in $SCRATCH/ascendoptd.json at its root"
write_config

smi_elsewhere=
for dir in /usr/local/sbin /usr/local/bin /usr/local/Ascend/driver/tools /usr/sbin /usr/bin /sbin /bin; do
	[ -x "$dir/npu-smi" ] && smi_elsewhere=$dir
done
make_bin "$SCRATCH/bin-no-smi" npu-smi
out=$(FAKE_CANN_BIN=$SCRATCH/bin-no-smi doctor)
rc=$?
if [ -n "$smi_elsewhere" ]; then
	skip "this host has an npu-smi in $smi_elsewhere"
	skip "this host has an npu-smi in $smi_elsewhere"
else
	is "without npu-smi it fails" "$rc" 1
	contains "and names the driver" "$out" \
		"FAIL  npu-smi          npu-smi not found"
fi
contains "npu-smi's fix: install the driver" "$out" \
	"install the Ascend driver and firmware, which bring npu-smi"

make_bin "$SCRATCH/bin-no-msprof" msprof
out=$(FAKE_CANN_BIN=$SCRATCH/bin-no-msprof doctor)
is "without msprof it fails" "$?" 1
contains "and names the toolkit's tools" "$out" \
	"reinstall the CANN toolkit with its tools: msprof op times every candidate"

out=$(FAKE_CMAKE_VERSION=3.10.2 doctor)
is "a cmake older than 3.16 fails" "$?" 1
contains "and says which to install" "$out" "is 3.10, older than 3.16 -- fix: install cmake 3.16 or newer"
# The backend takes a cmake from the usual places after the toolkit's PATH:
# hide this host's own under /dev/null (bubblewrap) to take it away.
hide=()
for dir in /usr/local/sbin /usr/local/bin /usr/local/Ascend/driver/tools /usr/sbin /usr/bin /sbin /bin; do
	[ -x "$dir/cmake" ] && hide+=(--ro-bind /dev/null "$(readlink -f "$dir/cmake")")
done
make_bin "$SCRATCH/bin-no-cmake" cmake
if [ ${#hide[@]} -gt 0 ] && ! bwrap --dev-bind / / "${hide[@]}" true 2>/dev/null; then
	for _ in 1 2 3; do skip "this host has a cmake, and no bubblewrap to hide it"; done
else
	out=$(FAKE_CANN_BIN=$SCRATCH/bin-no-cmake ${hide[@]:+bwrap --dev-bind / / "${hide[@]}"} \
		"$BUILD/ascendopt" doctor --config "$SCRATCH/ascendoptd.json" 2>&1)
	is "without cmake it fails" "$?" 1
	contains "and names the fix" "$out" "-- fix: install cmake 3.16 or newer (sudo apt-get install cmake)"
	contains "for the check of cmake" "$(echo "$out" | grep "^FAIL  cmake")" "cmake not found"
fi

# The device nodes for another service user, nobody.
if ! id nobody >/dev/null 2>&1; then
	for _ in 1 2 3 4 5 6 7 8 9; do skip "no user nobody here"; done
else
	chmod 0666 "$ASCENDOPT_DEV_DIR"/*
	out=$(doctor --user nobody)
	if ! echo "$out" | grep -q "^ok    device nodes"; then
		echo "$out" | grep "device nodes" | sed 's/^/# /'
		for _ in 1 2 3 4 5 6 7 8 9; do skip "nobody cannot reach $ASCENDOPT_DEV_DIR here"; done
	else
		ok "nodes every user may open are fine for nobody"
		chmod 0600 "$ASCENDOPT_DEV_DIR/davinci0"
		out=$(doctor --user nobody)
		is "a node nobody may not write fails" "$?" 1
		contains "and the fix gives it to the driver's group" "$out" \
			"sudo chgrp HwHiAiUser $ASCENDOPT_DEV_DIR/davinci0 && sudo chmod g+rw $ASCENDOPT_DEV_DIR/davinci0 && sudo usermod -aG HwHiAiUser nobody"
		chmod 0660 "$ASCENDOPT_DEV_DIR"/*
		group=$(stat -c %G "$ASCENDOPT_DEV_DIR/davinci0")
		contains "a node of a group nobody is not in: the fix adds nobody to it" \
			"$(doctor --user nobody)" "fix: sudo usermod -aG $group nobody, then restart ascendoptd"

		# The shipped system unit hides the NPU; its ascend drop-in opens
		# it, and one more drop-in makes nobody, in the nodes' group, its user.
		sed -e "s|@BINDIR@|$BUILD|g" -e "s|@SYSCONFDIR@|$SRC/etc|g" \
			"$SRC/systemd/ascendoptd.service.in" >"$ASCENDOPT_UNIT_DIR/ascendoptd.service"
		mkdir -p "$ASCENDOPT_UNIT_DIR/ascendoptd.service.d"
		printf '[Service]\nUser=nobody\nGroup=\nSupplementaryGroups=\nSupplementaryGroups=%s\n' \
			"$group" >"$ASCENDOPT_UNIT_DIR/ascendoptd.service.d/zz-test.conf"
		out=$(doctor)
		contains "without the ascend drop-in the unit fails" "$out" \
			"has PrivateDevices=yes, which hides the NPU from ascendoptd"
		contains "and the fix installs the drop-in" "$out" "/systemd/ascendoptd-ascend.conf /etc/systemd/system/ascendoptd.service.d/ascend.conf"
		cp "$SRC/systemd/ascendoptd-ascend.conf" "$ASCENDOPT_UNIT_DIR/ascendoptd.service.d/ascend.conf"
		out=$(doctor)
		contains "the service user comes from the unit's drop-ins" "$out" \
			"ok    user             nobody (uid $(id -u nobody), groups"
		contains "the drop-in allows the nodes" "$out" "ok    systemd          $ASCENDOPT_UNIT_DIR/ascendoptd.service with 2 drop-ins"
		contains "the unit's SupplementaryGroups= lets nobody open them" "$out" "ok    device nodes"
		rm -rf "$ASCENDOPT_UNIT_DIR"/*
	fi
fi

write_config "\"ascend\": {\"third_lib_path\": \"$SCRATCH/third\"}"
mkdir -p "$SCRATCH/third/json"
contains "a third_lib_path without json.hpp fails" "$(doctor)" \
	"FAIL  third_lib_path   $SCRATCH/third/json has no include/nlohmann/json.hpp"
mkdir -p "$SCRATCH/third/json/include/nlohmann"
: >"$SCRATCH/third/json/include/nlohmann/json.hpp"
contains "one with it is fine" "$(doctor)" "ok    third_lib_path"
write_config

# No config at all: the sim.  As root the default config is /etc's, which may exist.
if [ "$(id -u)" = 0 ] && [ -e /etc/ascendopt/ascendoptd.json ]; then
	skip "/etc/ascendopt/ascendoptd.json exists here"
	skip "/etc/ascendopt/ascendoptd.json exists here"
else
	out=$(HOME=$SCRATCH/home XDG_CONFIG_HOME=$SCRATCH/home/.config cli doctor 2>&1)
	rc=$?
	check "with no config doctor runs to its end" test "$rc" = 0 -o "$rc" = 1
	contains "and checks the sim" "$out" "backend sim: "
fi
contains "ascendopt help doctor shows its options" "$(cli help doctor)" "--user NAME"
cli doctor --device x >/dev/null 2>&1
is "a bad --device is a usage error" "$?" 64
done_testing
