#!/bin/bash
# SPDX-License-Identifier: MIT
# The daemon's lifecycle: it starts, SIGHUP with a broken config keeps the
# old one running, SIGHUP with a good config reloads, SIGTERM stops it.
# A second daemon on the same state directory exits 75 (EX_TEMPFAIL): the
# first holds the store, and start-up maps that -EBUSY once, in main.
. "$(dirname "$0")/tap.sh"
plan 8

cfg=$SCRATCH/ascendoptd.json
log=$SCRATCH/daemon.log
printf '{"state_dir": "%s/state", "socket": "%s/sock", "devices": 1}' "$SCRATCH" "$SCRATCH" >"$cfg"
"$BUILD/ascendoptd" --config "$cfg" --foreground 2>"$log" &
pid=$!

check "daemon starts" wait_for_file_text "$log" "started" 10

other=$("$BUILD/ascendoptd" --config "$cfg" --foreground 2>&1); rc=$?
is "a second daemon on the same state directory exits 75 (try again later)" "$rc" 75
contains "  and says who holds the store" "$other" "is in use by pid $pid"

printf '{"devices": "many"}' >"$cfg"
kill -HUP "$pid"
check "a broken config is rejected on SIGHUP" wait_for_file_text "$log" "reload rejected" 10
check "the daemon keeps running after a rejected reload" kill -0 "$pid"

printf '{"state_dir": "%s/state", "socket": "%s/sock", "devices": 1, "platform": "Ascend910B4"}' \
	"$SCRATCH" "$SCRATCH" >"$cfg"
kill -HUP "$pid"
check "a good config is reloaded" wait_for_file_text "$log" "platform Ascend910B4" 10

kill -TERM "$pid"
wait "$pid"; rc=$?
is "SIGTERM stops the daemon with status 0" "$rc" 0
check "the stop is logged" grep -q "ascendoptd stopped" "$log"
done_testing
