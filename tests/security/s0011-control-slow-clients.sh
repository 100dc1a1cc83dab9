#!/bin/bash
# SPDX-License-Identifier: MIT
# Slow and idle clients of the control socket.  evhttp's timeout restarts
# with every byte, so a client trickling its request held a descriptor
# forever.  Now a whole request must arrive within limits.control_request_s
# of connecting, at most limits.control_connections are open at once (more
# clients wait in the backlog, not refused), and connections that end give
# their descriptors back.
. "$(dirname "$0")/../tap.sh"
plan 7

sock=$SCRATCH/ascendoptd.sock
cfg=$SCRATCH/ascendoptd.json
log=$SCRATCH/daemon.log
export ASCENDOPT_SOCKET=$sock
printf '{"state_dir": "%s/state", "socket": "%s", "devices": 1,
 "limits": {"control_request_s": 2, "control_connections": 4}}' "$SCRATCH" "$sock" >"$cfg"
"$BUILD/ascendoptd" --config "$cfg" 2>>"$log" &
pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && "$BUILD/ascendopt" status >/dev/null 2>&1 && break; sleep 0.05; done
fds() { ls "/proc/$pid/fd" | wc -l; }

# a request trickled one byte every 0.3 s, which no per-read timeout ever ends
held=$(python3 - "$sock" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(0.3)
start = time.time()
request = b"GET /v1/status HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 200
for byte in request:
    try:
        s.send(bytes([byte]))
        if s.recv(1) == b"":
            break
    except socket.timeout:
        continue
    except OSError:
        break
print(round(time.time() - start))
PY
)
check "a trickling client is cut off at the 2 s deadline (held ${held} s of a 70 s trickle)" \
	test "${held:-99}" -ge 1 -a "${held:-99}" -le 5

# a kept-alive client whose requests each come in time is not cut at the deadline
served=$(python3 - "$sock" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(5)
served = 0
for pause in (0, 1.2, 1.2, 1.2):  # 3.6 s in all, each request within 2 s of the last reply
    time.sleep(pause)
    try:
        s.sendall(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                raise OSError("closed")
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0])
        while len(body) < length:
            body += s.recv(65536)
        served += 1
    except OSError:
        break
print(served)
PY
)
is "a kept-alive client gets the deadline afresh after each reply" "$served" 4

# four idle connections fill the limit; status waits for a slot instead of failing
python3 - "$sock" "$SCRATCH/hold" <<'PY' &
import os, socket, sys, time
held = [socket.socket(socket.AF_UNIX) for _ in range(4)]
for s in held:
    s.connect(sys.argv[1])
open(sys.argv[2], "w").close()
time.sleep(10)
PY
holder=$!
for _ in $(seq 100); do [ -e "$SCRATCH/hold" ] && break; sleep 0.05; done
sleep 0.3
start=$(date +%s%N)
out=$(timeout 20 "$BUILD/ascendopt" status 2>&1)
took=$((($(date +%s%N) - start) / 1000000))
contains "with the limit reached, status is still answered" "$out" "queue"
check "once the idle ones reach their deadline (${took} ms)" test "$took" -ge 500 -a "$took" -le 6000
contains "the log says the limit was reached, naming it" "$(cat "$log")" \
	"4 connections are open (limits.control_connections)"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

sleep 2.5 # every deadline above has passed
before=$(fds)
for _ in $(seq 40); do "$BUILD/ascendopt" status >/dev/null 2>&1; done
sleep 0.3
after=$(fds)
check "forty requests later the daemon holds as many descriptors as before ($before, $after)" \
	test "$after" -le "$before"
kill -TERM "$pid"
wait "$pid"
is "the daemon stops cleanly" "$?" 0
done_testing
