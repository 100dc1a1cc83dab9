#!/bin/bash
# SPDX-License-Identifier: MIT
# The daemon speaks systemd's notify protocol: READY once it listens,
# STATUS lines, WATCHDOG pings from a timer while healthy, STOPPING on
# SIGTERM; and the installed unit passes systemd-analyze verify.
. "$(dirname "$0")/tap.sh"
plan 7

sock=$SCRATCH/notify.sock
cfg=$SCRATCH/ascendoptd.json
printf '{"state_dir": "%s/state", "socket": "%s/ctl.sock", "devices": 1}' "$SCRATCH" "$SCRATCH" >"$cfg"
"$BUILD/tests/helpers/notify-listen" "$sock" 120 >"$SCRATCH/notes" &
listener=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
(
	export NOTIFY_SOCKET=$sock WATCHDOG_USEC=400000 WATCHDOG_PID=$BASHPID
	exec "$BUILD/ascendoptd" --config "$cfg" 2>"$SCRATCH/log"
) &
daemon=$!
# Wait for what is expected rather than for a fixed time: on a loaded
# machine the daemon may take seconds to start (CI runs tests in parallel).
wait_for() { # PATTERN COUNT: until the notes hold COUNT lines matching, 30 s
	for _ in $(seq 600); do
		[ "$(grep -c "$1" "$SCRATCH/notes")" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
wait_for "READY=1" 1
start=$(date +%s%N)
wait_for "WATCHDOG=1" 3
took_ms=$((($(date +%s%N) - start) / 1000000))
kill -TERM "$daemon"
wait "$daemon"
wait_for "STOPPING=1" 1
kill "$listener"
wait "$listener" 2>/dev/null

check "READY=1 is sent once the daemon listens" grep -q "READY=1" "$SCRATCH/notes"
check "STATUS lines say what is queued" grep -q "STATUS=0 queued" "$SCRATCH/notes"
pings=$(grep -c "WATCHDOG=1" "$SCRATCH/notes")
if [ "$pings" -ge 3 ]; then ok "the watchdog is pinged again and again ($pings pings, the third ${took_ms} ms after READY)"; else not_ok "only $pings watchdog pings in 30 s"; fi
check "STOPPING=1 is sent on SIGTERM" grep -q "STOPPING=1" "$SCRATCH/notes"

unit=$SCRATCH/ascendoptd.service
sed -e "s|@BINDIR@|$BUILD|g" -e "s|@SYSCONFDIR@|$SRC/etc|g" "$SRC/systemd/ascendoptd.service.in" >"$unit"
if command -v systemd-analyze >/dev/null 2>&1; then
	check "the system unit passes systemd-analyze verify" systemd-analyze verify "$unit"
	fleet=$SCRATCH/fleet/ascendoptd.service
	mkdir -p "$SCRATCH/fleet" && cat "$unit" "$SRC/systemd/ascendoptd-fleet.conf" >"$fleet"
	check "... and so does it with the fleet head's drop-in" systemd-analyze verify "$fleet"
else
	skip "systemd-analyze is not installed"
	skip "systemd-analyze is not installed"
fi
check "the unit asks for notify and a watchdog" grep -q "^WatchdogSec=" "$unit"
done_testing
