#!/bin/bash
# SPDX-License-Identifier: MIT
# What an operator's code can see and do inside the sandbox, asked by the
# hostile probe operator from inside and by a compile that includes a
# secret:
# - no capabilities, and not root's uid where a user namespace is allowed;
# - no /etc/shadow, and no file outside the paths it was given, not even
#   through an #include whose error message would quote it;
# - no unix socket outside its work directory (the daemon's control socket);
# - with no working bubblewrap nothing runs unless the sandbox is turned
#   off on purpose, and the error says how.
. "$(dirname "$0")/../tap.sh"

plan 12

. "$(dirname "$0")/probe.sh"

# A listening unix socket outside the sandbox's paths, like the daemon's.
mkdir -p "$SCRATCH/run"
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8); time.sleep(600)' \
	"$SCRATCH/run/ctl.sock" &
listener=$!
trap 'kill $listener 2>/dev/null; [ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$SCRATCH"' EXIT
for _ in $(seq 50); do [ -S "$SCRATCH/run/ctl.sock" ] && break; sleep 0.1; done

probe report "$SCRATCH/run/ctl.sock"
is "the probe operator evaluates" "$(ev | field status)" ok
# the tiling runs once per case: each run appends the same lines
report=$(sort -u "$SCRATCH/work/probe-report.txt" 2>/dev/null)
sed "s/^/# /" <<<"$report"
is "it holds no effective capability" "$(sed -n 's/^CapEff:[[:space:]]*//p' <<<"$report")" 0000000000000000
is "nor a bounding set to regain one from" "$(sed -n 's/^CapBnd:[[:space:]]*//p' <<<"$report")" 0000000000000000
if [ "$(id -u)" -eq 0 ] && bwrap --unshare-user --uid 65534 --ro-bind / / true 2>/dev/null; then
	uid=$(awk '/^Uid:/ { print $2 }' <<<"$report")
	check "a root daemon's candidate does not run as uid 0 (uid $uid)" test "${uid:-0}" != 0
else
	skip "a root daemon's candidate does not run as uid 0: not root, or no user namespaces here"
fi
is "/etc/shadow is not there to read" "$(grep '^shadow' <<<"$report")" "shadow unreadable"
is "a unix socket outside its paths cannot be reached" "$(grep '^socket' <<<"$report")" "socket unreachable"

# A kernel that includes a secret by absolute path: the compile fails, and
# its error does not quote the secret.
mkdir -p "$SCRATCH/secret"
echo "SECRET-0123456789" >"$SCRATCH/secret/key.txt"
chmod 600 "$SCRATCH/secret/key.txt"
probe none ""
sed -i "1i #include \"$SCRATCH/secret/key.txt\"" "$SCRATCH/op/op_kernel/sandbox_probe.cpp"
out=$(ev 2>&1)
check "including a file outside the sandbox fails to compile" grep -q compile_error <<<"$out"
check "and the error does not quote it" bash -c '! grep -q SECRET-0123456789 <<<"$1"' _ "$out"

# No working bubblewrap: a bwrap first in PATH that cannot make namespaces.
mkdir -p "$SCRATCH/nobwrap"
printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' >"$SCRATCH/nobwrap/bwrap"
chmod +x "$SCRATCH/nobwrap/bwrap"
probe none ""
out=$(PATH="$SCRATCH/nobwrap:$PATH" ev 2>&1)
check "without a working sandbox, eval refuses to run the operator and says how to fix it" \
	grep -q 'install bubblewrap' <<<"$out"
is "ASCENDOPT_SANDBOX=off runs it unsandboxed, on purpose" \
	"$(PATH="$SCRATCH/nobwrap:$PATH" ASCENDOPT_SANDBOX=off ev 2>/dev/null | field status)" ok

printf '{"state_dir": "%s/dstate", "socket": "%s/d.sock", "sandbox": "maybe"}' "$SCRATCH" "$SCRATCH" >"$SCRATCH/d.json"
contains "the daemon's config takes \"sandbox\": \"on\" or \"off\" only, and says so" \
	"$("$BUILD/ascendoptd" --config "$SCRATCH/d.json" --check-config 2>&1)" ".sandbox"
printf '{"state_dir": "%s/dstate", "socket": "%s/d.sock", "sandbox": "off"}' "$SCRATCH" "$SCRATCH" >"$SCRATCH/d.json"
check "\"sandbox\": \"off\" is a valid config" \
	bash -c '"$1" --config "$2" --check-config >/dev/null' _ "$BUILD/ascendoptd" "$SCRATCH/d.json"

done_testing
