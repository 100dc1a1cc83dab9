#!/bin/bash
# SPDX-License-Identifier: MIT
# make install honours PREFIX and DESTDIR, fills in the unit files, and
# never overwrites a config the user edited; the system unit's user comes
# with a sysusers.d file.
. "$(dirname "$0")/tap.sh"
plan 9

dest=$SCRATCH/root
run_install() {
	make -s -C "$SRC" NO_DEPS=1 SANITIZE="${ASCENDOPT_SANITIZE:-}" PREFIX=/usr DESTDIR="$dest" install >"$SCRATCH/install.log" 2>&1
}
check "make install succeeds" run_install
check "binaries are installed" test -x "$dest/usr/bin/ascendopt" -a -x "$dest/usr/bin/ascendoptd"
check "the exec helper is in libexec" test -x "$dest/usr/libexec/ascendopt/ascendopt-exec"
check "the system unit points at the installed daemon" \
	grep -q '^ExecStart=/usr/bin/ascendoptd --config /etc/ascendopt/ascendoptd.json' \
	"$dest/usr/lib/systemd/system/ascendoptd.service"
check "the user unit is installed" test -f "$dest/usr/lib/systemd/user/ascendoptd.service"
check "the system unit's user is declared for systemd-sysusers" \
	grep -q '^u ascendopt ' "$dest/usr/lib/sysusers.d/ascendopt.conf"
check "the example config goes to /etc" test -f "$dest/etc/ascendopt/ascendoptd.json"
check "the operator ascendopt doctor runs on an NPU is installed" \
	test -f "$dest/usr/share/ascendopt/doctor/add/ascendopt.json" -a -d "$dest/usr/share/ascendopt/doctor/add/op_kernel"

echo '{"devices": 7}' >"$dest/etc/ascendopt/ascendoptd.json"
run_install
is "an edited config survives a second install" "$(cat "$dest/etc/ascendopt/ascendoptd.json")" '{"devices": 7}'
done_testing
